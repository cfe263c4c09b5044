// The GPT family's kernels against double precision written from their definitions:
// LayerNorm (torch's: the biased variance), GELU's tanh form, a bf16 matmul's bias added
// before its one rounding; every split over the cores gives the one-core bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tessera/kernels.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"

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

// GELU's exact form: erf within Abramowitz and Stegun 7.1.26's 1.5e-7, halved by 0.5 x.
TEST(GptKernels, GeluErfMatchesItsDefinition)
{
    std::vector<float> x;
    for (int i = -4000; i <= 4000; ++i) x.push_back(float(i) / 400.0f); // -10 .. 10
    x.push_back(-100.0f), x.push_back(100.0f);
    std::vector<float> y(x.size());
    ASSERT_EQ(tsr_gelu_erf_f32(x.data(), y.data(), uint32_t(x.size()), 0, 1), TSR_KERNEL_OK);
    for (size_t i = 0; i < x.size(); ++i) {
        const double want = 0.5 * x[i] * (1.0 + std::erf(double(x[i]) / std::sqrt(2.0)));
        EXPECT_NEAR(y[i], want, 1e-7 * std::fabs(x[i]) + 2e-7 * (1.0 + std::fabs(want))) << "x = " << x[i];
    }
    EXPECT_EQ(y[x.size() - 1], 100.0f);
    // By hand: GELU(1) = 0.5 (1 + erf(1 / sqrt 2)) = 0.8413447..., not the tanh form's 0.8411920.
    float one = 1.0f, g;
    tsr_gelu_erf_f32(&one, &g, 1, 0, 1);
    EXPECT_NEAR(g, 0.84134475, 1e-6);
    tsr_bf16 xb = tsr_bf16_from_f32(1.0f), yb;
    ASSERT_EQ(tsr_gelu_erf_bf16(&xb, &yb, 1, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(yb, tsr_bf16_from_f32(g)); // the fp32 value rounded once
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

// ---- int8 (tessera/kernels_i8.h): integers only

// A factor as the int8 kernels take it: multiplier in [2^30, 2^31), factor = multiplier 2^(shift - 31).
void q31(double factor, int32_t &multiplier, int32_t &shift)
{
    int e = 0;
    const double m = std::frexp(factor, &e); // [0.5, 1)
    multiplier = int32_t(std::llround(std::ldexp(m, 31)));
    shift = e;
    if (multiplier == INT32_MIN) multiplier = 1 << 30, ++shift; // m rounded up to 1
}

TEST(GptKernels, LayerNormI8IsWithinOneStepOfItsDefinitionOnEverySplit)
{
    const uint32_t rows = 4, dim = 96;
    const double sx = 0.04, sg = 2.0 / 32767.0, sy = 4.0 / 127.0, eps = 1e-5;
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> xs(-120, 120), gs(-32767, 32767), bs(-200000, 200000);
    std::vector<int8_t> x(rows * dim);
    std::vector<int16_t> g(dim);
    std::vector<int32_t> b(dim);
    for (int8_t &v : x) v = int8_t(xs(rng));
    for (uint32_t j = 0; j < dim; ++j) x[3 * dim + j] = 5; // a constant row: the variance is eps's alone
    for (int16_t &v : g) v = int16_t(gs(rng));
    for (int32_t &v : b) v = bs(rng);
    tsr_layernorm_i8_args a{};
    a.x = x.data();
    a.weight = g.data();
    a.bias = b.data();
    a.eps_q16 = uint32_t(std::llround(65536.0 * eps / (sx * sx)));
    q31(sg / (256.0 * sy), a.multiplier, a.shift);
    a.rows = rows;
    a.dim = dim;
    std::vector<int8_t> one(x.size());
    a.y = one.data();
    ASSERT_EQ(tsr_layernorm_i8(&a, 0, 1), TSR_KERNEL_OK);
    // The definition on the real values the integers stand for, rounded to the output's steps.
    std::vector<float> xr(x.size()), wr(dim), br(dim);
    for (size_t i = 0; i < x.size(); ++i) xr[i] = float(sx * x[i]);
    for (uint32_t j = 0; j < dim; ++j) wr[j] = float(sg * g[j]), br[j] = float(sg / 256.0 * b[j]);
    const std::vector<double> want = layernorm_reference(xr, wr, br, rows, dim, eps);
    int worst = 0;
    for (size_t i = 0; i < one.size(); ++i) {
        const double q = std::max(-128.0, std::min(127.0, std::round(want[i] / sy)));
        worst = std::max(worst, int(std::fabs(one[i] - q)));
    }
    EXPECT_LE(worst, 1);
    for (uint32_t j = 0; j < dim; ++j) // the constant row: every deviation 0, the output the bias
        EXPECT_EQ(one[3 * dim + j], int8_t(std::max(-128.0, std::min(127.0, std::round(br[j] / sy))))) << j;
    for (uint32_t cores : {2u, 3u, 8u}) {
        std::vector<int8_t> y(x.size());
        a.y = y.data();
        for (uint32_t c = 0; c < cores; ++c) ASSERT_EQ(tsr_layernorm_i8(&a, c, cores), TSR_KERNEL_OK);
        EXPECT_EQ(y, one) << cores << " cores";
    }
    std::vector<int8_t> in_place = x; // y may be x
    a.x = a.y = in_place.data();
    ASSERT_EQ(tsr_layernorm_i8(&a, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(in_place, one);
    tsr_layernorm_i8_args bad = a;
    bad.dim = 16385;
    EXPECT_EQ(tsr_layernorm_i8(&bad, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    bad = a;
    bad.shift = 31;
    EXPECT_EQ(tsr_layernorm_i8(&bad, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    bad = a;
    bad.bias = nullptr;
    EXPECT_EQ(tsr_layernorm_i8(&bad, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

TEST(GptKernels, LookupI8ReadsEachInputsEntryOnEverySplit)
{
    std::vector<int8_t> table(256), x(256);
    for (int v = 0; v < 256; ++v) table[size_t(v)] = int8_t(127 - v), x[size_t(v)] = int8_t(v - 128); // table[v + 128] = -v - 1
    for (uint32_t cores : {1u, 3u, 8u}) {
        std::vector<int8_t> y(x.size());
        for (uint32_t c = 0; c < cores; ++c) ASSERT_EQ(tsr_lut_i8(x.data(), table.data(), y.data(), 256, c, cores), TSR_KERNEL_OK);
        for (int v = -128; v < 128; ++v) EXPECT_EQ(y[size_t(v + 128)], int8_t(-v - 1)) << v;
    }
    EXPECT_EQ(tsr_lut_i8(x.data(), nullptr, x.data(), 256, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_lut_i8(x.data(), table.data(), x.data(), 0, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

} // namespace
