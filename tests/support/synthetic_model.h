// Small llama2.c checkpoints and tokenizers made by the tests themselves, with
// known weights, so the runtime can be checked against an independent reference.
#ifndef TESSERA_TESTS_SYNTHETIC_MODEL_H
#define TESSERA_TESTS_SYNTHETIC_MODEL_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::test {

struct SyntheticConfig {
    int dim = 32, hidden_dim = 48, n_layers = 2, n_heads = 4, n_kv_heads = 2, vocab_size = 300, seq_len = 40;
    bool shared_classifier = true;
    uint32_t seed = 1;
    // The embedding's values are uniform in +-embedding_scale. A shared classifier whose
    // embedding is small beside the layers' outputs predicts from them, not the token itself.
    float embedding_scale = 1.0f;
};

// Weights in llama2.c's logical layout (per-layer arrays concatenated).
struct SyntheticWeights {
    std::vector<float> token_embedding, rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3, rms_final, wcls;
};

SyntheticWeights make_weights(const SyntheticConfig &c);

// TinyLLama-v0's shape, the model of the Deeploy paper: dim 64, 8 layers, 16 heads,
// FFN 256, vocab 32000, seq_len 256.
SyntheticConfig tinyllama_v0_config();

// Writes the legacy format (negative vocab when unshared) or the ak42 version-1 format.
void write_legacy_checkpoint(const std::string &path, const SyntheticConfig &c, const SyntheticWeights &w);
void write_v1_checkpoint(const std::string &path, const SyntheticConfig &c, const SyntheticWeights &w);
// llama2.c's version 2 as its export.py writes it: norms in fp32, every other tensor
// (per layer) quantized to Q8_0 in groups of `group_size` (scale = max |w| / 127,
// q = round half to even of w / scale), int8 values then fp32 scales. Returns the
// weights as runq.c dequantizes them (q * scale, in float). The group size is not
// checked, as export.py checks only that it divides dim.
SyntheticWeights write_v2_checkpoint(const std::string &path, const SyntheticConfig &c, const SyntheticWeights &w,
                                     int group_size);

// A llama2.c tokenizer: <unk> <s> </s>, the 256 byte pieces, " ", letters, a few
// merges, then filler pieces up to `vocab_size` (cut short there when smaller).
struct TokenizerSpec {
    int vocab_size = 300;
    bool byte_pieces = true; // <0x00>..<0xFF> as ids 3..258
    bool space_piece = true; // " ", the dummy prefix
};
std::vector<std::string> tokenizer_pieces(const TokenizerSpec &spec);
void write_tokenizer(const std::string &path, const TokenizerSpec &spec);
void write_tokenizer(const std::string &path, int vocab_size);

// A fresh path under the test's temporary directory.
std::string temp_path(const std::string &name);

// ../shared, as configured; empty when the folder is missing.
std::string shared_dir();

} // namespace tessera::test

#endif
