// tessera-synthetic-model: writes a small llama2.c checkpoint with random weights and
// a matching tokenizer, for the CLI tests and the fuzzers' seed corpora.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "support/synthetic_model.h"

int main(int argc, char **argv)
{
    tessera::test::SyntheticConfig c;
    tessera::test::TokenizerSpec tok;
    std::string checkpoint, tokenizer;
    bool v1 = false, no_bytes = false, no_space = false;
    CLI::App app{"tessera-synthetic-model: write a small llama2.c checkpoint (random weights) and its tokenizer."};
    app.add_option("checkpoint", checkpoint, "checkpoint to write (.bin)")->required();
    app.add_option("tokenizer", tokenizer, "tokenizer to write (.bin)")->required();
    app.add_option("--dim", c.dim)->capture_default_str()->check(CLI::Range(2, 4096));
    app.add_option("--hidden", c.hidden_dim)->capture_default_str()->check(CLI::Range(1, 16384));
    app.add_option("--layers", c.n_layers)->capture_default_str()->check(CLI::Range(1, 64));
    app.add_option("--heads", c.n_heads)->capture_default_str()->check(CLI::Range(1, 256));
    app.add_option("--kv-heads", c.n_kv_heads)->capture_default_str()->check(CLI::Range(1, 256));
    app.add_option("--vocab", c.vocab_size)->capture_default_str()->check(CLI::Range(3, 1 << 20));
    app.add_option("--seq-len", c.seq_len)->capture_default_str()->check(CLI::Range(1, 1 << 16));
    app.add_option("--seed", c.seed)->capture_default_str();
    app.add_option("--embedding-scale", c.embedding_scale,
                   "the embedding's values are uniform in +-this (a shared classifier predicts the token itself "
                   "unless it is small beside the layers' outputs, e.g. 0.05)")
        ->capture_default_str()->check(CLI::Range(1e-6, 1e3));
    app.add_flag("--unshared-classifier", [&](int64_t) { c.shared_classifier = false; }, "separate classifier weights");
    app.add_flag("--v1", v1, "ak42 version-1 format instead of the legacy one");
    app.add_flag("--no-byte-pieces", no_bytes, "a tokenizer without the 256 <0xXX> pieces");
    app.add_flag("--no-space-piece", no_space, "a tokenizer without the \" \" piece");
    CLI11_PARSE(app, argc, argv);
    tok.vocab_size = c.vocab_size;
    tok.byte_pieces = !no_bytes;
    tok.space_piece = !no_space;
    try {
        const auto w = tessera::test::make_weights(c);
        if (v1) tessera::test::write_v1_checkpoint(checkpoint, c, w);
        else tessera::test::write_legacy_checkpoint(checkpoint, c, w);
        tessera::test::write_tokenizer(tokenizer, tok);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-synthetic-model: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
