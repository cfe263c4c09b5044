// Fuzzer (i): GPT-2's byte-level BPE files, vocab.json and merges.txt or a tokenizer.json,
// read into the device tokenizer's table, written as an image's tokenizer section (with its
// encoding tables), checked by the runtime and used to encode text. A bad file must end in
// InputError with a one-line printable message naming it; any other exception, a crash or
// a sanitizer report is a finding, and so is a table that breaks what the reader promises
// (one piece per id, none empty or with a NUL, each within TSR_MAX_TOKEN_BYTES), a section
// the packer writes that the runtime refuses, an id outside the vocabulary, or a text
// encoded that does not decode back to its bytes.
//
// Input: byte 0 bit 0 picks the files: vocab.json and merges.txt (0) or tokenizer.json
// (1); bit 1 damages the section (eight bytes flipped where the input's last 16 bytes say:
// the runtime must refuse it or encode without fault); bytes 1-2 the vocabulary size
// (little-endian; 0 is skipped); then vocab.json's text and, after the first NUL byte,
// merges.txt's; or tokenizer.json's. The text encoded: the input's last 48 bytes up to a NUL.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <vector>

#include "../../runtime/src/tokenizer.h"
#include "tessera/image_format.h"
#include "tessera/models/bpe.h"
#include "tessera/pack/image_writer.h"

namespace {

void check_message(const char *m)
{
    bool ok = std::strncmp(m, "vocab.json", 10) == 0 || std::strncmp(m, "merges.txt", 10) == 0 ||
              std::strncmp(m, "tokenizer.json", 14) == 0;
    for (const char *p = m; *p; ++p) ok = ok && static_cast<unsigned char>(*p) >= 0x20 && static_cast<unsigned char>(*p) < 0x7F;
    if (!ok) {
        std::fprintf(stderr, "fuzz finding: message not one printable line naming its file: %s\n", m);
        std::abort();
    }
}

[[noreturn]] void finding(const char *what)
{
    std::fprintf(stderr, "fuzz finding: %s\n", what);
    std::abort();
}

// The vocabulary as the device holds it: its section checked by the runtime, then a text
// encoded and decoded back.
void device(const tessera::Vocabulary &v, const uint8_t *data, size_t size)
{
    const std::vector<uint8_t> section = tessera::build_tokenizer_section(v);
    std::vector<uint32_t> storage(section.size() / 4 + 1, 0);
    std::memcpy(storage.data(), section.data(), section.size());
    uint8_t *base = reinterpret_cast<uint8_t *>(storage.data());
    const bool damaged = (data[0] & 2u) != 0u && size >= 19;
    if (damaged)
        for (size_t k = 0; k < 8; ++k) {
            const uint32_t at = (uint32_t(data[size - 16 + 2 * k]) | uint32_t(data[size - 15 + 2 * k]) << 8) % section.size();
            base[at] ^= uint8_t(data[size - 16 + 2 * k] | 1u);
        }
    char msg[256];
    tsr::Message err(msg, sizeof msg);
    tsr::TokenizerView view{};
    const uint32_t n = uint32_t(v.pieces.size());
    const tessera_status st = tsr::read_tokenizer_section(base, uint32_t(section.size()), n, &view, err);
    if (st != TESSERA_OK) {
        if (!damaged) finding(msg); // the packer wrote what the runtime refuses
        return;
    }
    const size_t from = size > 48 ? size - 48 : 3;
    std::string text(reinterpret_cast<const char *>(data + from), size - from);
    text = text.substr(0, text.find('\0'));
    constexpr uint32_t kContext = 64;
    std::vector<uint32_t> work(tsr_encode_work_bytes(kContext, view.header->max_token_length) / 4 + 1);
    char merge[2 * TSR_MAX_TOKEN_BYTES + 4];
    const tsr::EncodeOptions opt{false, false, 0, 0, kContext, merge, reinterpret_cast<uint8_t *>(work.data()),
                                 uint32_t(work.size() * 4)};
    int32_t ids[kContext];
    uint32_t count = 0;
    if (tsr::tokenizer_encode(view, opt, text.c_str(), ids, kContext, &count, err) != TESSERA_OK) return;
    std::string back;
    for (uint32_t i = 0; i < count; ++i) {
        if (ids[i] < 0 || uint32_t(ids[i]) >= n) finding("an id outside the vocabulary");
        uint32_t len = 0;
        const char *piece = tsr::tokenizer_decode(view, 0xFFFFFFFFu, i ? ids[i - 1] : -1, ids[i], &len);
        if (!piece) finding("an id that does not decode");
        back.append(piece, len);
    }
    if (!damaged && v.byte_level && view.bpe && back != text) finding("a text that does not decode back to its bytes");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) return 0;
    const uint32_t vocab_size = uint32_t(data[1]) | uint32_t(data[2]) << 8;
    if (!vocab_size) return 0;
    const std::string rest(reinterpret_cast<const char *>(data + 3), size - 3);
    const size_t nul = rest.find('\0');
    const std::string vocab = rest.substr(0, nul), merges = nul == std::string::npos ? std::string() : rest.substr(nul + 1);
    try {
        const tessera::ByteLevelBpe bpe =
            data[0] & 1u ? tessera::parse_tokenizer_json(rest, "tokenizer.json", vocab_size)
                         : tessera::parse_byte_level_bpe(vocab, "vocab.json", merges, "merges.txt", vocab_size);
        const tessera::Vocabulary v = tessera::byte_level_vocabulary(bpe, "vocab.json");
        if (v.pieces.size() != vocab_size || v.scores.size() != vocab_size) std::abort();
        for (const std::string &p : v.pieces)
            if (p.empty() || p.find('\0') != std::string::npos || p.size() > TSR_MAX_TOKEN_BYTES) std::abort();
        for (const auto &[a, b] : bpe.merges)
            if (a >= vocab_size || b >= vocab_size) std::abort();
        device(v, data, size);
    } catch (const tessera::InputError &e) {
        check_message(e.what());
    }
    return 0;
}
