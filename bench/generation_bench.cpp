// End-to-end tokens/s on the host board: autoregressive steps and prompt-mode chunks
// of stories260K, and steps of a TinyLLama-v0-shaped model with random weights made
// here (dim 64, hidden 256, 8 layers, 16 heads, vocab 32000, context 256: the model
// of the Deeploy paper), by the threads backing the cluster (threads:0 = the board's
// default, each run on the count it measures fastest).
#include <benchmark/benchmark.h>

#include <filesystem>

#include "support/packed_image.h"
#include "support/synthetic_model.h"

namespace {

std::unique_ptr<tessera::test::OpenModel> open_stories(benchmark::State &state, uint32_t threads,
                                                       const std::string &precision = "fp32")
{
    const std::string shared = TESSERA_SHARED_DIR;
    if (!std::filesystem::exists(shared + "/models/stories260K.bin")) {
        state.SkipWithError("stories260K.bin not found under TESSERA_SHARED_DIR");
        return nullptr;
    }
    tessera::PackOptions o;
    o.checkpoint = shared + "/models/stories260K.bin";
    o.tokenizer = shared + "/models/tok512.bin";
    o.output = tessera::test::temp_path("bench_" + precision + ".tess");
    o.precision = tessera::parse_option(tessera::kPrecisionNames, precision, "precision");
    auto m = tessera::test::open_model(o, threads);
    if (m->status != TESSERA_OK) state.SkipWithError(tessera_last_error(&m->session));
    return m;
}

std::unique_ptr<tessera::test::OpenModel> open_tinyllama_shape(benchmark::State &state, uint32_t threads)
{
    tessera::test::SyntheticConfig c;
    c.dim = 64, c.hidden_dim = 256, c.n_layers = 8, c.n_heads = 16, c.n_kv_heads = 16, c.vocab_size = 32000;
    c.seq_len = 256, c.shared_classifier = false, c.seed = 7;
    tessera::PackOptions o;
    o.checkpoint = tessera::test::temp_path("tinyllama_shape.bin");
    o.tokenizer = tessera::test::temp_path("tinyllama_shape_tok.bin");
    o.output = tessera::test::temp_path("tinyllama_shape.tess");
    tessera::test::write_legacy_checkpoint(o.checkpoint, c, tessera::test::make_weights(c));
    tessera::test::write_tokenizer(o.tokenizer, c.vocab_size);
    auto m = tessera::test::open_model(o, threads);
    if (m->status != TESSERA_OK) state.SkipWithError(tessera_last_error(&m->session));
    return m;
}

// Greedy generation of 128 tokens after BOS, token mode.
void generate_128(benchmark::State &state, tessera::test::OpenModel *m)
{
    if (!m || m->status != TESSERA_OK) return;
    tessera_sampler greedy;
    tessera_sampler_init(&greedy, 0, 0, 1);
    const int32_t bos = 1;
    uint64_t tokens = 0;
    for (auto _ : state) {
        tessera_reset(&m->session);
        tessera_step(&m->session, bos);
        for (int i = 0; i < 127; ++i) {
            int32_t next;
            tessera_sample(&m->session, &greedy, &next);
            tessera_step(&m->session, next);
        }
        tokens += 128;
    }
    state.counters["tokens/s"] = benchmark::Counter(double(tokens), benchmark::Counter::kIsRate);
}

void Token(benchmark::State &state) { generate_128(state, open_stories(state, uint32_t(state.range(0))).get()); }

// Decode at each precision (threads: the board's choice): 0 fp32, 1 bf16, 2 int8.
void TokenPrecision(benchmark::State &state)
{
    static const char *const names[] = {"fp32", "bf16", "int8"};
    state.SetLabel(names[state.range(0)]);
    generate_128(state, open_stories(state, 0, names[state.range(0)]).get());
}

void TokenTinyLlamaShape(benchmark::State &state)
{
    generate_128(state, open_tinyllama_shape(state, uint32_t(state.range(0))).get());
}

// 128 prompt tokens through prompt mode (8 chunks of 16).
void Prompt(benchmark::State &state)
{
    auto m = open_stories(state, uint32_t(state.range(0)));
    if (!m || m->status != TESSERA_OK) return;
    std::vector<int32_t> ids(128);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = int32_t(3 + (i * 37) % 500);
    uint64_t tokens = 0;
    for (auto _ : state) {
        tessera_reset(&m->session);
        tessera_prompt(&m->session, ids.data(), uint32_t(ids.size()));
        tokens += ids.size();
    }
    state.counters["tokens/s"] = benchmark::Counter(double(tokens), benchmark::Counter::kIsRate);
}

BENCHMARK(Token)->ArgName("threads")->Arg(0)->Arg(1)->Arg(2)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(TokenPrecision)->ArgName("fp32_bf16_int8")->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(TokenTinyLlamaShape)->ArgName("threads")->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Prompt)->ArgName("threads")->Arg(0)->Arg(1)->Arg(2)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
