// Fuzzer (c): tessera_encode with arbitrary bytes on four vocabularies (512 pieces:
// stories260K's; 32,000: Llama 2's; 10 pieces with no byte pieces; one without " "),
// each through an open session. Every id must decode, and short texts must encode
// exactly as the plain reference encoder (tests/support) does.
//
// Input: byte 0 picks the vocabulary (bits 0-1), BOS (bit 2), EOS (bit 3) and a
// small output array (bit 4, its size from byte 1); the rest, up to a NUL, is the text.
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "support/reference_tokenizer.h"
#include "tessera/host_board.hpp"
#include "tessera/tessera.h"
#include "tessera/tools/image_file.h"

namespace {

struct Model {
    const char *name;
    uint32_t reference_bytes; // texts up to this long are checked against the reference
    std::unique_ptr<tessera::ImageFile> image;
    tessera::Vocabulary vocab;
    std::unique_ptr<tessera::test::ReferenceTokenizer> reference;
    tessera_session session;
    uint32_t context = 0;
};

Model g_models[4] = {{"encode-512", 200, {}, {}, {}, {}}, {"encode-32000", 120, {}, {}, {}, {}},
                     {"encode-10", 200, {}, {}, {}, {}}, {"encode-nospace", 200, {}, {}, {}, {}}};
std::unique_ptr<tessera::HostBoard> g_board;

[[noreturn]] void finding(const std::string &what)
{
    std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    g_board = tessera::HostBoard::create(tessera::load_board_desc("host"), 1);
    const std::string dir = TESSERA_FUZZ_DATA;
    for (Model &m : g_models) {
        m.image = std::make_unique<tessera::ImageFile>(dir + "/" + m.name + ".tess");
        if (!m.image->ok()) finding(m.image->error() + " (run tessera-fuzz-seeds first)");
        if (tessera_open(&m.session, m.image->data(), m.image->size(), g_board->hal()) != TESSERA_OK)
            finding(std::string(m.name) + ": " + tessera_last_error(&m.session));
        tessera_image_summary s;
        tessera_image_summary_of(&m.session, &s);
        m.context = s.context;
        m.vocab = tessera::read_llama2c_tokenizer(dir + "/" + m.name + ".tok", s.vocab_size);
        m.reference = std::make_unique<tessera::test::ReferenceTokenizer>(m.vocab);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    Model &m = g_models[data[0] & 3u];
    const bool bos = data[0] & 4u, eos = data[0] & 8u, small = data[0] & 16u;
    const std::string text(reinterpret_cast<const char *>(data + 2), strnlen(reinterpret_cast<const char *>(data + 2), size - 2));
    std::vector<int32_t> ids(m.context + 1u);
    const uint32_t capacity = small ? data[1] % 8u : m.context + 1u;
    uint32_t n = 0;
    const tessera_status st = tessera_encode(&m.session, text.c_str(), bos, eos, ids.data(), capacity, &n);
    if (st != TESSERA_OK) {
        const char *msg = tessera_last_error(&m.session);
        if (!msg[0] || std::strchr(msg, '\n')) finding(std::string("bad message for status ") + tessera_status_string(st));
    } else {
        if (n > capacity || n > m.context) finding("more tokens than the room or the context");
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t len = 0;
            if (tessera_decode(&m.session, i ? ids[i - 1] : 1, ids[i], &len) == nullptr)
                finding("an encoded id does not decode");
        }
    }
    if (text.size() <= m.reference_bytes) {
        const auto want = m.reference->encode(text, bos, eos);
        if (!want) {
            if (st != TESSERA_ERR_UNENCODABLE_TEXT) finding("the reference cannot encode it, the device did not say so");
        } else if (want->size() > m.context) {
            if (st != TESSERA_ERR_CONTEXT_FULL) finding("more tokens than the context, and not refused as such");
        } else if (want->size() > capacity) {
            if (st != TESSERA_ERR_BUFFER_TOO_SMALL) finding("more tokens than the array, and not refused as such");
        } else if (st != TESSERA_OK || std::vector<int32_t>(ids.begin(), ids.begin() + n) != *want) {
            finding(std::string(m.name) + ": differs from the reference encoder: " + text);
        }
    }
    return 0;
}
