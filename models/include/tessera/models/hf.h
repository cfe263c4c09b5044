// Hugging Face Llama directories, read on the host: config.json, model.safetensors
// (F32, F16 or BF16 tensors) and the SentencePiece tokenizer.model (read with
// libsentencepiece).
#ifndef TESSERA_MODELS_HF_H
#define TESSERA_MODELS_HF_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tessera/models/llama2c.h"

namespace tessera {

struct HfModel {
    LlamaCheckpoint checkpoint; // seq_len: max_position_embeddings
    Vocabulary vocabulary;      // pieces as llama2.c's tokenizer.bin spells them
    std::string tokenizer;      // the tokenizer file read
};

// One tensor of a safetensors header: its byte range in the data after the header.
struct SafeTensor {
    std::string dtype;
    std::vector<uint64_t> shape;
    uint64_t begin = 0, end = 0;
};

// The largest safetensors header read (a real one is ~100 bytes a tensor).
constexpr uint64_t kMaxSafetensorsHeaderBytes = 16u << 20;

// The tensors a safetensors header names (its __metadata__ skipped), checked before any
// data is read: every value an integer of its range, each tensor's [begin, end) inside
// the `data_bytes` after the header and apart from every other's. Throws InputError
// naming `name` and the key path.
std::map<std::string, SafeTensor> parse_safetensors_header(const std::string &header, const std::string &name,
                                                           uint64_t data_bytes);

// config.json's hyper-parameters (model_type llama, no rope_scaling, hidden_act silu;
// rms_norm_eps and rope_theta finite and positive as fp32); `tie_word_embeddings` gets
// the key's value (default false). Throws InputError naming `name` and the key.
LlamaConfig parse_hf_config(const std::string &text, const std::string &name, bool *tie_word_embeddings);

// Whether `path` is a directory holding a config.json.
bool is_hf_directory(const std::string &path);

// Q and K are permuted back from Hugging Face's rotary layout (the two halves of each
// head rotated together) into the interleaved pairs llama2.c rotates. An lm_head
// absent, or tie_word_embeddings, is a shared classifier. Throws InputError naming
// the file, the key or tensor.
HfModel read_hf_directory(const std::string &dir);

// Rows of a Q or K projection (heads x head_size rows of `cols`): Hugging Face's row
// h * hs + half * hs / 2 + i holds the interleaved row h * hs + 2 * i + half.
std::vector<float> hf_rotary_to_interleaved(const std::vector<float> &w, uint32_t heads, uint32_t head_size,
                                            uint32_t cols);

} // namespace tessera

#endif
