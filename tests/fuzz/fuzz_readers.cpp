// Fuzzer (d): the packer's llama2.c checkpoint and tokenizer readers and its GGUF
// reader on arbitrary bytes. A bad file must end in InputError (its one-line message); any other
// exception, a crash or a sanitizer report is a finding.
//
// Input: byte 0 picks the reader (bit 3: GGUF; else bit 0: checkpoint or tokenizer)
// and, for a tokenizer, the vocabulary size it must have (bits 1-2: 10, 300, 512, 32000).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tessera/models/gguf.h"
#include "tessera/models/llama2c.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const std::vector<uint8_t> bytes(data + 1, data + size);
    static const uint32_t kVocab[4] = {10, 300, 512, 32000};
    try {
        if (data[0] & 8u) {
            const tessera::GgufModel g = tessera::parse_gguf(bytes, "fuzz.gguf");
            const tessera::LlamaConfig &c = g.checkpoint.config;
            if (g.checkpoint.weights.token_embedding.size() != uint64_t(c.vocab_size) * c.dim ||
                g.vocabulary.pieces.size() != c.vocab_size)
                std::abort();
        } else if (data[0] & 1u) {
            const tessera::Vocabulary v = tessera::parse_llama2c_tokenizer(bytes, "fuzz.tok", kVocab[(data[0] >> 1) & 3u]);
            if (v.pieces.size() != v.scores.size()) std::abort();
        } else {
            const tessera::LlamaCheckpoint ck = tessera::parse_llama2c_checkpoint(bytes, "fuzz.bin");
            if (ck.weights.token_embedding.size() != uint64_t(ck.config.vocab_size) * ck.config.dim) std::abort();
        }
    } catch (const tessera::InputError &e) {
        if (!e.what()[0] || std::strchr(e.what(), '\n')) {
            std::fprintf(stderr, "fuzz finding: reader message not one line: %s\n", e.what());
            std::abort();
        }
    }
    return 0;
}
