// Packing time of stories260K (checkpoint to image, planning included), by L1 size.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "support/synthetic_model.h"
#include "tessera/pack/packer.h"

namespace {

void Pack(benchmark::State &state)
{
    const std::string shared = TESSERA_SHARED_DIR;
    if (!std::filesystem::exists(shared + "/models/stories260K.bin")) {
        state.SkipWithError("stories260K.bin not found under TESSERA_SHARED_DIR");
        return;
    }
    tessera::PackOptions o;
    o.checkpoint = shared + "/models/stories260K.bin";
    o.tokenizer = shared + "/models/tok512.bin";
    o.output = tessera::test::temp_path("pack_bench.tess");
    o.l1_bytes = uint64_t(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(tessera::pack(o).image_bytes);
}

// 0 = the host board's own L1 (1 MiB).
BENCHMARK(Pack)->ArgName("l1_bytes")->Arg(0)->Arg(256 << 10)->Arg(64 << 10)->Arg(16 << 10)->Arg(8 << 10)->Unit(benchmark::kMillisecond);

} // namespace
