// A GGUF writer for tests, written from the format's description (ggml's
// docs/gguf.md), independent of the packer's reader: versions 1 (32-bit counts and
// lengths) and 3, llama metadata, and the block quantizations as ggml's reference
// quantizers compute them.
#ifndef TESSERA_TEST_GGUF_WRITER_H
#define TESSERA_TEST_GGUF_WRITER_H

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/models/llama2c.h"

namespace tessera::test {

enum GgufType : uint32_t { kGgufF32 = 0, kGgufF16 = 1, kGgufQ4_0 = 2, kGgufQ8_0 = 8, kGgufBF16 = 30 };

struct GgufTensor {
    std::string name;
    std::vector<uint64_t> dims; // innermost first
    uint32_t type = kGgufF32;
    std::vector<uint8_t> data;
    std::vector<float> expected; // what a reader must give back: the values as the type holds them
    int64_t offset = -1;         // >= 0: the data offset the file states, instead of where the data is
};

// A metadata entry written as given: its value already encoded (for version 2 or 3,
// 64-bit lengths). One whose key is a standard one replaces it; extras may repeat.
struct GgufMetadata {
    std::string key;
    uint32_t type = 0;
    std::vector<uint8_t> value;
};

// `values` (rows x cols, cols innermost) stored as `type`.
GgufTensor gguf_tensor(const std::string &name, const std::vector<uint64_t> &dims, uint32_t type, const float *values);

struct GgufFile {
    uint32_t version = 3;
    LlamaConfig config;
    Vocabulary vocabulary; // llama2.c spelling; written as SentencePiece pieces
    std::vector<GgufTensor> tensors;
    uint32_t bos = 1, eos = 2;
    std::string architecture = "llama";
    std::vector<GgufMetadata> extra; // written after the standard keys
};

// Encoded values for GgufMetadata (versions 2 and 3).
GgufMetadata gguf_string_metadata(const std::string &key, const std::string &text);
GgufMetadata gguf_f64_metadata(const std::string &key, double value);

// A llama checkpoint as a GGUF file: every 2D weight in `matrix_type`, norms in F32;
// with `type_of` non-null, it picks each tensor's type by name instead.
GgufFile gguf_from_checkpoint(const LlamaCheckpoint &ck, const Vocabulary &vocab, uint32_t matrix_type,
                              uint32_t (*type_of)(const std::string &name) = nullptr);
std::vector<uint8_t> gguf_bytes(const GgufFile &file);

} // namespace tessera::test

#endif
