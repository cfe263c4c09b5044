// Fuzzer (i): GPT-2's byte-level BPE files, vocab.json and merges.txt or a tokenizer.json,
// read into the device tokenizer's table. A bad file must end in InputError with a one-line
// printable message naming it; any other exception, a crash or a sanitizer
// report is a finding, and so is a table that breaks what the reader promises (one
// piece per id, none empty or with a NUL, each within TSR_MAX_TOKEN_BYTES).
//
// Input: byte 0 bit 0 picks the files: vocab.json and merges.txt (0) or tokenizer.json
// (1); bytes 1-2 the vocabulary size (little-endian; 0 is skipped); then vocab.json's text
// and, after the first NUL byte, merges.txt's; or tokenizer.json's.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tessera/image_format.h"
#include "tessera/models/bpe.h"

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
    } catch (const tessera::InputError &e) {
        check_message(e.what());
    }
    return 0;
}
