// The GPT family's kernels against double precision written from their definitions:
// LayerNorm (torch's: the biased variance), GELU's tanh form, a bf16 matmul's bias added
// before its one rounding; every split over the cores gives the one-core bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tessera/kernels.h"
#include "tessera/kernels_bf16.h"

namespace {

std::vector<float> random_values(size_t n, uint32_t seed, float scale)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, scale);
    std::vector<float> v(n);
    for (float &x : v) x = d(rng);
    return v;
}

// y = w (x - mean) / sqrt(mean((x - mean)^2) + eps) + b, in double.
std::vector<double> layernorm_reference(const std::vector<float> &x, const std::vector<float> &w,
                                        const std::vector<float> &b, uint32_t rows, uint32_t dim, double eps)
{
    std::vector<double> y(x.size());
    for (uint32_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (uint32_t j = 0; j < dim; ++j) mean += x[r * dim + j];
        mean /= dim;
        for (uint32_t j = 0; j < dim; ++j) var += (x[r * dim + j] - mean) * (x[r * dim + j] - mean);
        var /= dim;
        for (uint32_t j = 0; j < dim; ++j) y[r * dim + j] = w[j] * (x[r * dim + j] - mean) / std::sqrt(var + eps) + b[j];
    }
    return y;
}

double gelu_tanh_reference(double x) { return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))); }

TEST(GptKernels, LayerNormF32MatchesItsDefinitionOnEverySplit)
{
    const uint32_t rows = 3, dim = 96;
    const std::vector<float> x = random_values(rows * dim, 1, 3.0f), w = random_values(dim, 2, 1.0f),
                             b = random_values(dim, 3, 0.5f);
    const std::vector<double> want = layernorm_reference(x, w, b, rows, dim, 1e-5);
    std::vector<float> one(x.size());
    ASSERT_EQ(tsr_layernorm_f32(x.data(), w.data(), b.data(), one.data(), rows, dim, 1e-5f, 0, 1), TSR_KERNEL_OK);
    for (size_t i = 0; i < one.size(); ++i) EXPECT_NEAR(one[i], want[i], 2e-6 * (1.0 + std::fabs(want[i]))) << i;
    for (uint32_t cores : {2u, 3u, 8u}) { // fewer rows than cores: columns split too
        std::vector<float> y(x.size());
        for (uint32_t c = 0; c < cores; ++c)
            ASSERT_EQ(tsr_layernorm_f32(x.data(), w.data(), b.data(), y.data(), rows, dim, 1e-5f, c, cores), TSR_KERNEL_OK);
        EXPECT_EQ(std::memcmp(y.data(), one.data(), 4 * y.size()), 0) << cores << " cores";
    }
    EXPECT_EQ(tsr_layernorm_f32(x.data(), w.data(), nullptr, one.data(), rows, dim, 1e-5f, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_layernorm_f32(x.data(), w.data(), b.data(), one.data(), rows, dim, 0.0f, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

TEST(GptKernels, GeluTanhMatchesItsDefinition)
{
    std::vector<float> x;
    for (int i = -4000; i <= 4000; ++i) x.push_back(float(i) / 400.0f); // -10 .. 10
    x.push_back(-100.0f), x.push_back(100.0f), x.push_back(0.0f);
    std::vector<float> y(x.size());
    ASSERT_EQ(tsr_gelu_tanh_f32(x.data(), y.data(), uint32_t(x.size()), 0, 1), TSR_KERNEL_OK);
    for (size_t i = 0; i < x.size(); ++i) {
        const double want = gelu_tanh_reference(x[i]);
        EXPECT_NEAR(y[i], want, 4e-7 * (1.0 + std::fabs(want))) << "x = " << x[i];
    }
    EXPECT_EQ(y[x.size() - 3], -0.0f); // GELU(-100) underflows to zero, GELU(100) is 100
    EXPECT_EQ(y[x.size() - 2], 100.0f);
    // By hand: GELU(1) = 0.5 (1 + tanh(sqrt(2/pi) 1.044715)) = 0.8411920...
    float one = 1.0f, g;
    tsr_gelu_tanh_f32(&one, &g, 1, 0, 1);
    EXPECT_NEAR(g, 0.84119199, 1e-6);
}

TEST(GptKernels, Bf16FormsAreTheF32ArithmeticRoundedOnce)
{
    const uint32_t rows = 2, dim = 64;
    std::vector<float> x = random_values(rows * dim, 4, 2.0f), w = random_values(dim, 5, 1.0f), b = random_values(dim, 6, 0.5f);
    std::vector<tsr_bf16> xb(x.size()), wb(dim), bb(dim), yb(x.size()), gb(x.size());
    for (size_t i = 0; i < x.size(); ++i) xb[i] = tsr_bf16_from_f32(x[i]), x[i] = tsr_f32_from_bf16(xb[i]);
    for (uint32_t j = 0; j < dim; ++j) {
        wb[j] = tsr_bf16_from_f32(w[j]), w[j] = tsr_f32_from_bf16(wb[j]);
        bb[j] = tsr_bf16_from_f32(b[j]), b[j] = tsr_f32_from_bf16(bb[j]);
    }
    std::vector<float> y(x.size()), g(x.size());
    ASSERT_EQ(tsr_layernorm_f32(x.data(), w.data(), b.data(), y.data(), rows, dim, 1e-5f, 0, 1), TSR_KERNEL_OK);
    ASSERT_EQ(tsr_layernorm_bf16(xb.data(), wb.data(), bb.data(), yb.data(), rows, dim, 1e-5f, 0, 1), TSR_KERNEL_OK);
    ASSERT_EQ(tsr_gelu_tanh_f32(x.data(), g.data(), uint32_t(x.size()), 0, 1), TSR_KERNEL_OK);
    ASSERT_EQ(tsr_gelu_tanh_bf16(xb.data(), gb.data(), uint32_t(x.size()), 0, 1), TSR_KERNEL_OK);
    for (size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(yb[i], tsr_bf16_from_f32(y[i])) << i;
        EXPECT_EQ(gb[i], tsr_bf16_from_f32(g[i])) << i;
    }
}

TEST(GptKernels, Bf16MatmulAddsItsBiasBeforeRounding)
{
    const uint32_t rows = 2, k = 24, n = 13;
    const std::vector<float> xf = random_values(rows * k, 7, 1.0f), wf = random_values(n * k, 8, 1.0f),
                             bias = random_values(n, 9, 4.0f);
    std::vector<tsr_bf16> x(xf.size()), w(wf.size()), y(rows * n), opt(rows * n);
    for (size_t i = 0; i < x.size(); ++i) x[i] = tsr_bf16_from_f32(xf[i]);
    for (size_t i = 0; i < w.size(); ++i) w[i] = tsr_bf16_from_f32(wf[i]);
    tsr_matmul_bf16_args a{x.data(), w.data(), y.data(), rows, k, n, n, nullptr, bias.data()};
    ASSERT_EQ(tsr_matmul_bf16_ref(&a, 0, 1), TSR_KERNEL_OK);
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t i = 0; i < n; ++i) {
            double sum = bias[i];
            for (uint32_t j = 0; j < k; ++j) sum += double(tsr_f32_from_bf16(w[i * k + j])) * tsr_f32_from_bf16(x[r * k + j]);
            // one rounding of a sum within fp32's error of the double one
            EXPECT_NEAR(tsr_f32_from_bf16(y[r * n + i]), sum, std::fabs(sum) * 0.0079 + 1e-5) << r << "," << i;
        }
    for (uint32_t cores : {1u, 3u}) {
        a.y = opt.data();
        for (uint32_t c = 0; c < cores; ++c) ASSERT_EQ(tsr_matmul_bf16(&a, c, cores), TSR_KERNEL_OK);
        EXPECT_EQ(opt, y) << cores << " cores: the optimized kernel's bits are the reference's";
    }
}

} // namespace
