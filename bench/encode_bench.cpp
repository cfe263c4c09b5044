// Device tokenizer speed: prompts of growing length on the 512- and 32,000-piece
// vocabularies, with a work area sized for a context they fit in.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>

#include "support/device_tokenizer.h"

namespace {

const std::string kShared = TESSERA_SHARED_DIR;

// The golden story (English prose, as prompts are), repeated to `bytes`.
std::string prose(size_t bytes)
{
    std::ifstream in(kShared + "/golden/stories260K.greedy200.text");
    const std::string story((std::istreambuf_iterator<char>(in)), {});
    std::string text;
    while (!story.empty() && text.size() < bytes) text += story + " ";
    text.resize(bytes);
    return text;
}

tessera::test::DeviceTokenizer *tokenizer(uint32_t vocab)
{
    static std::map<uint32_t, std::unique_ptr<tessera::test::DeviceTokenizer>> made;
    auto &t = made[vocab];
    if (!t) {
        const std::string file = kShared + (vocab == 512 ? "/models/tok512.bin" : "/models/tokenizer.bin");
        if (!std::filesystem::exists(file)) return nullptr;
        t = std::make_unique<tessera::test::DeviceTokenizer>(file, vocab, 16384);
    }
    return t.get();
}

void Encode(benchmark::State &state)
{
    tessera::test::DeviceTokenizer *tok = tokenizer(uint32_t(state.range(0)));
    const std::string text = prose(size_t(state.range(1)));
    if (!tok || text.empty()) {
        state.SkipWithError("tokenizer or golden text not found under TESSERA_SHARED_DIR");
        return;
    }
    size_t tokens = 0;
    for (auto _ : state) tokens = tok->encode(text).size();
    state.counters["tokens"] = double(tokens);
    state.SetBytesProcessed(int64_t(state.iterations()) * state.range(1));
}
BENCHMARK(Encode)->ArgNames({"vocab", "bytes"})->ArgsProduct({{512, 32000}, {1024, 9216, 18432}})->Unit(benchmark::kMillisecond);

} // namespace
