// GGUF checkpoints (llama.cpp's format, versions 1 to 3), read on the host: the llama
// architecture's hyper-parameters and tensors, and the SentencePiece vocabulary in
// its tokenizer.ggml.* metadata.
#ifndef TESSERA_MODELS_GGUF_H
#define TESSERA_MODELS_GGUF_H

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/models/llama2c.h"

namespace tessera {

struct GgufModel {
    LlamaCheckpoint checkpoint; // seq_len: llama.context_length, as the file claims it
    Vocabulary vocabulary;      // pieces as llama2.c's tokenizer.bin spells them
};

// Whether the file begins with the GGUF magic.
bool is_gguf(const std::string &path);

// Tensor types F32, F16, BF16, Q8_0 and Q4_0 are read, quantized ones dequantized to
// fp32 as ggml does. Q and K stay as written: llama.cpp's "normal" RoPE rotates
// adjacent pairs, as llama2.c does. An output.weight equal to token_embd.weight is
// taken as a shared classifier. Throws InputError naming the file, the key or tensor,
// and the byte offset.
GgufModel read_gguf(const std::string &path);
GgufModel parse_gguf(const std::vector<uint8_t> &bytes, const std::string &name);

} // namespace tessera

#endif
