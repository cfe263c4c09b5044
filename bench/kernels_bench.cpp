// Matrix kernels: reference vs optimized, GEMV (token mode) and GEMM (prompt mode),
// on stories260K's shapes, single core.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "tessera/kernels.h"

namespace {

using Kernel = tsr_kernel_status (*)(const float *, const float *, float *, uint32_t, uint32_t, uint32_t, uint32_t,
                                     uint32_t, uint32_t);

void run_matmul(benchmark::State &state, Kernel kernel, uint32_t rows)
{
    const uint32_t k = uint32_t(state.range(0)), n = uint32_t(state.range(1));
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> x(size_t(rows) * k), w(size_t(n) * k), y(size_t(rows) * n);
    for (auto &v : x) v = u(rng);
    for (auto &v : w) v = u(rng);
    for (auto _ : state) {
        kernel(x.data(), w.data(), y.data(), rows, k, n, n, 0, 1);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * rows * k * n * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void GEMV_ref(benchmark::State &s) { run_matmul(s, tsr_matmul_f32_ref, 1); }
void GEMV_opt(benchmark::State &s) { run_matmul(s, tsr_matmul_f32, 1); }
void GEMM16_ref(benchmark::State &s) { run_matmul(s, tsr_matmul_f32_ref, 16); }
void GEMM16_opt(benchmark::State &s) { run_matmul(s, tsr_matmul_f32, 16); }

// {k, n}: wq/wo 64x64, wk/wv 64x32, w1/w3 64x172, w2 172x64, classifier 64x512.
#define SHAPES ->ArgNames({"k", "n"})->Args({64, 64})->Args({64, 32})->Args({64, 172})->Args({172, 64})->Args({64, 512})
BENCHMARK(GEMV_ref) SHAPES;
BENCHMARK(GEMV_opt) SHAPES;
BENCHMARK(GEMM16_ref) SHAPES;
BENCHMARK(GEMM16_opt) SHAPES;

} // namespace
