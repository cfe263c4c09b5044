// llama2.c checkpoints and tokenizers (Karpathy's formats), read on the host.
#ifndef TESSERA_MODELS_LLAMA2C_H
#define TESSERA_MODELS_LLAMA2C_H

#include <cstdint>
#include <array>
#include <string>
#include <vector>

#include "tessera/errors.h"

namespace tessera {

// What a decoder family is beyond Llama's sizes: the checkpoint's form of the graph
// builder's DecoderArch. Llama's is every default.
struct ModelFamily {
    std::string name = "llama";     // "llama", "gpt2", "gpt_neo" (as config.json's model_type says it)
    bool layer_norm = false;        // LayerNorm with a bias, else RMSNorm
    bool learned_positions = false; // a table of positions added to the embedding, else RoPE
    bool gelu = false;              // the feed-forward is up, GELU, down; else SwiGLU
    bool linear_biases = false;     // every linear layer of the decoder has a bias
    bool scaled_attention = true;   // the scores divided by sqrt(head_size); GPT-Neo's are not
    uint32_t window = 0;            // local attention's window, in the layers local_layers marks
    std::vector<bool> local_layers; // by layer (empty: none local)
    bool gelu_exact = false;        // GELU's exact (erf) form ("gelu"); else its tanh form ("gelu_new")
};

struct LlamaConfig {
    ModelFamily family;
    uint32_t dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, vocab_size = 0, seq_len = 0;
    bool shared_classifier = true;
    uint32_t bos_id = 1, eos_id = 2; // llama2.c's; GPT-2's <|endoftext|> is both
    float rope_theta = 10000.0f, norm_eps = 1e-5f; // llama2.c's; GGUF and Hugging Face files may say otherwise
    uint32_t head_size() const { return dim / n_heads; }
    uint32_t kv_dim() const { return dim / n_heads * n_kv_heads; }
};

struct LlamaWeights {
    std::vector<float> token_embedding; // vocab x dim
    std::vector<float> rms_att, rms_ffn;  // layers x dim
    std::vector<float> wq, wk, wv, wo;    // layers x (dim|kv_dim) x dim, layers x dim x dim
    std::vector<float> w1, w2, w3;        // layers x hidden x dim, layers x dim x hidden, layers x hidden x dim
    std::vector<float> rms_final;         // dim
    std::vector<float> wcls;              // vocab x dim, empty when shared with the embedding
    // Other families' (ModelFamily), empty for Llama: the learned positions (seq_len x dim),
    // LayerNorm's biases (layers x dim; dim), the linear layers' biases (layers x their rows;
    // w3 is the GELU feed-forward's up projection, w2 its down projection).
    std::vector<float> position_embedding;
    std::vector<float> att_norm_bias, ffn_norm_bias, final_norm_bias;
    std::vector<float> bq, bk, bv, bo, b1, b2, b3;
};

struct LlamaCheckpoint {
    std::string format; // "llama2.c legacy", "llama2.c v1 (ak42)" or "llama2.c v2 (ak42, Q8_0, group size N)"
    LlamaConfig config;
    LlamaWeights weights;
};

// A string from a file as a one-line message shows it: at most 64 bytes, anything but
// printable ASCII as \xNN.
std::string shown_in_message(const std::string &text);
// A checkpoint file's bytes; throws InputError for a missing or unreadable file.
std::vector<uint8_t> read_checkpoint_bytes(const std::string &path);
// Its first `max_bytes` (fewer in a shorter file), and its size: what a reader checks
// before it reads a whole file.
std::vector<uint8_t> read_file_head(const std::string &path, size_t max_bytes, uint64_t *file_size = nullptr);
// Head size whole and even, heads a multiple of KV heads; throws InputError naming `name`.
void check_llama_config(const std::string &name, const LlamaConfig &config);

// Reads the legacy header-only format (negative vocab = unshared classifier) or the
// versioned format with magic "ak42": version 1 (fp32) or version 2 (Q8_0 groups,
// dequantized here as runq.c does; a group size must divide dim and hidden_dim).
// Throws InputError naming the file and the offending field or byte count.
LlamaCheckpoint read_llama2c_checkpoint(const std::string &path);
// Whether the file looks like a llama2.c checkpoint by its header alone: the magic
// "ak42", or a legacy header whose seven fields are all in range (its size is the
// reader's to check). Never throws.
bool is_llama2c_checkpoint(const std::string &path);
// The same from bytes in memory; `name` stands for the file in messages.
LlamaCheckpoint parse_llama2c_checkpoint(const std::vector<uint8_t> &bytes, const std::string &name);

struct Vocabulary {
    bool byte_level = false; // GPT-2's byte-level BPE (tsr_tokenizer_kind), else SentencePiece
    uint32_t max_token_length = 0;
    std::vector<std::string> pieces;
    std::vector<float> scores;
    // Byte-level BPE's encoding, where text is split by GPT-2's pre-tokenizer (the device
    // encodes text only then): each byte's token (TSR_BPE_NO_TOKEN: none) and the merges by
    // rank, {left, right, result} each.
    bool gpt2_pretokenizer = false;
    std::vector<uint32_t> byte_tokens;
    std::vector<std::array<uint32_t, 3>> merges;
};

// Refuses a piece the device tokenizer cannot hold (tsr_check_token_piece: a NUL, or
// more than TSR_MAX_TOKEN_BYTES), naming file `name` and the token.
void check_token_piece(const std::string &name, uint32_t id, const std::string &piece);

// Appends SentencePiece piece `id` as llama2.c's tokenizer.py exports it: BOS (1) and
// EOS (2) on lines of their own, U+2581 (the word boundary) as a space; checked by
// check_token_piece.
void add_sentencepiece_piece(Vocabulary &vocabulary, const std::string &name, uint32_t id, std::string piece,
                             float score);

// An IEEE binary16 value (GGUF F16, safetensors F16) as fp32, subnormals included.
float f32_from_f16(uint16_t half);

// Reads a llama2.c tokenizer.bin; expect_size is the model's vocabulary size.
Vocabulary read_llama2c_tokenizer(const std::string &path, uint32_t expect_size);
Vocabulary parse_llama2c_tokenizer(const std::vector<uint8_t> &bytes, const std::string &name, uint32_t expect_size);

} // namespace tessera

#endif
