// The bf16 kernels: conversions by hand, the matmul's reference against double
// precision and the optimized one bit for bit against it, softmax and SwiGLU with
// either exponential against double precision.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8_float.h"

namespace {

uint32_t bits_of(float f)
{
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
float float_of(uint32_t b)
{
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

TEST(Bf16, ConversionsRoundToNearestEven)
{
    EXPECT_EQ(tsr_bf16_from_f32(1.0f), 0x3F80u);
    EXPECT_EQ(tsr_bf16_from_f32(float_of(0x3F808000u)), 0x3F80u); // a tie: to the even 0x3F80
    EXPECT_EQ(tsr_bf16_from_f32(float_of(0x3F818000u)), 0x3F82u); // a tie: to the even 0x3F82
    EXPECT_EQ(tsr_bf16_from_f32(float_of(0x3F808001u)), 0x3F81u); // above the tie
    EXPECT_EQ(tsr_bf16_from_f32(-2.0f), 0xC000u);
    EXPECT_EQ(tsr_bf16_from_f32(INFINITY), 0x7F80u);
    EXPECT_EQ(tsr_bf16_from_f32(float_of(0x7F7FFFFFu)), 0x7F80u); // the largest float rounds to inf
    EXPECT_TRUE(std::isnan(tsr_f32_from_bf16(tsr_bf16_from_f32(float_of(0x7F800001u))))); // stays NaN
    EXPECT_EQ(tsr_f32_from_bf16(0x4049u), 3.140625f);
    for (uint32_t b = 0; b < 0x10000u; ++b) { // every finite bf16 survives the round trip
        const float f = tsr_f32_from_bf16(uint16_t(b));
        if (std::isfinite(f)) ASSERT_EQ(tsr_bf16_from_f32(f), b);
    }
}

std::vector<tsr_bf16> random_bf16(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<tsr_bf16> v(n);
    for (auto &x : v) x = tsr_bf16_from_f32(normal(rng));
    return v;
}

TEST(MatmulBf16, ReferenceAgainstDoublePrecision)
{
    const uint32_t rows = 3, k = 172, n = 64;
    const auto x = random_bf16(rows * k, 1), w = random_bf16(n * k, 2);
    std::vector<tsr_bf16> y(rows * n);
    tsr_matmul_bf16_args a{x.data(), w.data(), y.data(), rows, k, n, n};
    ASSERT_EQ(tsr_matmul_bf16_ref(&a, 0, 1), TSR_KERNEL_OK);
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t i = 0; i < n; ++i) {
            double want = 0, magnitude = 0;
            for (uint32_t j = 0; j < k; ++j) {
                const double p = double(tsr_f32_from_bf16(x[r * k + j])) * tsr_f32_from_bf16(w[i * k + j]);
                want += p, magnitude += std::fabs(p);
            }
            // One bf16 rounding (2^-9 relative) plus fp32 accumulation (k 2^-24 of the magnitude).
            EXPECT_NEAR(tsr_f32_from_bf16(y[r * n + i]), want, std::fabs(want) / 256 + magnitude * k * 6e-8)
                << r << " " << i;
        }
}

TEST(MatmulBf16, OptimizedIsTheReferenceBitForBitOnAnyShapeAndCoreCount)
{
    uint32_t seed = 10;
    for (const auto &[rows, k, n] : std::vector<std::array<uint32_t, 3>>{
             {1, 64, 64}, {1, 64, 172}, {16, 64, 512}, {5, 33, 7}, {2, 1, 1}, {1, 3, 5}})
        for (uint32_t cores : {1u, 2u, 3u, 8u}) {
            const auto x = random_bf16(rows * k, seed++), w = random_bf16(n * k, seed++);
            std::vector<tsr_bf16> want(rows * (n + 1), 0x5A5A), got = want;
            tsr_matmul_bf16_args a{x.data(), w.data(), want.data(), rows, k, n, n + 1};
            for (uint32_t c = 0; c < cores; ++c) ASSERT_EQ(tsr_matmul_bf16_ref(&a, c, cores), TSR_KERNEL_OK);
            a.y = got.data();
            for (uint32_t c = 0; c < cores; ++c) ASSERT_EQ(tsr_matmul_bf16(&a, c, cores), TSR_KERNEL_OK);
            EXPECT_EQ(got, want) << rows << "x" << k << "x" << n << " on " << cores << " cores";
        }
    tsr_matmul_bf16_args bad{nullptr, nullptr, nullptr, 1, 1, 1, 1};
    EXPECT_EQ(tsr_matmul_bf16(&bad, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_matmul_bf16_ref(&bad, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

TEST(ExpSchraudolph, WithinSixPercentAndItsEdges)
{
    double worst = 0;
    for (double x = -80; x <= 80; x += 0.01) {
        const double got = tsr_expf_schraudolph(float(x)), want = std::exp(double(float(x)));
        worst = std::max(worst, std::fabs(got / want - 1));
    }
    EXPECT_LE(worst, 0.062); // 2^f taken as 1 + f: at worst 1.0615 apart
    EXPECT_GT(worst, 0.01) << "an approximation, not the exponential";
    EXPECT_EQ(tsr_expf_schraudolph(0.0f), 1.0f);
    EXPECT_EQ(tsr_expf_schraudolph(-100.0f), 0.0f);
    EXPECT_EQ(tsr_expf_schraudolph(100.0f), INFINITY);
    EXPECT_TRUE(std::isnan(tsr_expf_schraudolph(NAN)));
}

TEST(SoftmaxBf16, EitherExponentialAgainstDoublePrecision)
{
    std::mt19937 rng(8);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    for (uint32_t n : {1u, 2u, 9u, 100u, 512u})
        for (tsr_exp_kind kind : {TSR_EXP_ACCURATE, TSR_EXP_SCHRAUDOLPH}) {
            std::vector<tsr_bf16> x(n);
            for (auto &v : x) v = tsr_bf16_from_f32(normal(rng));
            std::vector<double> want(n);
            double top = -1e300, sum = 0;
            for (uint32_t i = 0; i < n; ++i) top = std::max(top, double(tsr_f32_from_bf16(x[i])));
            for (uint32_t i = 0; i < n; ++i) sum += want[i] = std::exp(tsr_f32_from_bf16(x[i]) - top);
            ASSERT_EQ(tsr_softmax_bf16(x.data(), n, kind), TSR_KERNEL_OK);
            double total = 0;
            for (uint32_t i = 0; i < n; ++i) {
                const double got = tsr_f32_from_bf16(x[i]);
                total += got;
                // bf16 rounding 2^-9; Schraudolph's 4 % on each term and on the sum.
                const double tolerance = kind == TSR_EXP_ACCURATE ? want[i] / sum / 200 : want[i] / sum * 0.09;
                EXPECT_NEAR(got, want[i] / sum, tolerance + 1e-30) << n << " " << i << " kind " << kind;
            }
            EXPECT_NEAR(total, 1.0, kind == TSR_EXP_ACCURATE ? 0.01 : 0.09);
        }
    tsr_bf16 one = 0x3F80;
    EXPECT_EQ(tsr_softmax_bf16(&one, 0, TSR_EXP_ACCURATE), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_softmax_bf16(&one, 1, tsr_exp_kind(7)), TSR_KERNEL_BAD_ARGUMENT);
}

TEST(SwigluBf16, EitherExponentialAgainstDoublePrecision)
{
    const auto gate = random_bf16(300, 3), up = random_bf16(300, 4);
    for (tsr_exp_kind kind : {TSR_EXP_ACCURATE, TSR_EXP_SCHRAUDOLPH}) {
        std::vector<tsr_bf16> y(300);
        for (uint32_t c = 0; c < 3; ++c)
            ASSERT_EQ(tsr_swiglu_bf16(gate.data(), up.data(), y.data(), 300, kind, c, 3), TSR_KERNEL_OK);
        for (uint32_t i = 0; i < 300; ++i) {
            const double g = tsr_f32_from_bf16(gate[i]), want = g / (1 + std::exp(-g)) * tsr_f32_from_bf16(up[i]);
            EXPECT_NEAR(tsr_f32_from_bf16(y[i]), want, std::fabs(want) * (kind == TSR_EXP_ACCURATE ? 0.005 : 0.065) + 1e-6)
                << i;
        }
    }
}

} // namespace

namespace {

TEST(MatmulF32W16, BitForBitAndAgainstDoublePrecision)
{
    uint32_t seed = 40;
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (const auto &[rows, k, n] : std::vector<std::array<uint32_t, 3>>{{1, 64, 64}, {16, 64, 172}, {3, 172, 64}, {2, 5, 3}})
        for (uint32_t cores : {1u, 3u, 8u}) {
            std::vector<float> x(rows * k);
            for (auto &v : x) v = normal(rng);
            const auto w = random_bf16(n * k, seed++);
            std::vector<float> want(rows * n), got(rows * n);
            for (uint32_t c = 0; c < cores; ++c) {
                ASSERT_EQ(tsr_matmul_f32_w16_ref(x.data(), w.data(), want.data(), rows, k, n, n, c, cores), TSR_KERNEL_OK);
                ASSERT_EQ(tsr_matmul_f32_w16(x.data(), w.data(), got.data(), rows, k, n, n, c, cores), TSR_KERNEL_OK);
            }
            EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * 4), 0) << rows << "x" << k << "x" << n;
            // Weights at an address that is not 4-byte aligned: the one-at-a-time path.
            std::vector<tsr_bf16> shifted(w.size() + 1);
            std::copy(w.begin(), w.end(), shifted.begin() + 1);
            std::vector<float> odd(rows * n);
            for (uint32_t c = 0; c < cores; ++c)
                ASSERT_EQ(tsr_matmul_f32_w16(x.data(), shifted.data() + 1, odd.data(), rows, k, n, n, c, cores), TSR_KERNEL_OK);
            EXPECT_EQ(std::memcmp(odd.data(), want.data(), want.size() * 4), 0) << "unaligned, " << rows << "x" << k << "x" << n;
            for (uint32_t r = 0; r < rows; ++r)
                for (uint32_t i = 0; i < n; ++i) {
                    double exact = 0, magnitude = 0;
                    for (uint32_t j = 0; j < k; ++j) {
                        const double p = double(x[r * k + j]) * tsr_f32_from_bf16(w[i * k + j]);
                        exact += p, magnitude += std::fabs(p);
                    }
                    ASSERT_NEAR(want[r * n + i], exact, magnitude * k * 6e-8 + 1e-30);
                }
        }
    float y;
    EXPECT_EQ(tsr_matmul_f32_w16(nullptr, nullptr, &y, 1, 1, 1, 1, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

} // namespace

namespace {

TEST(MatmulI8F32, OptimizedIsTheReferenceBitForBitAndExact)
{
    std::mt19937 rng(3);
    for (uint32_t rows : {1u, 3u})
        for (uint32_t n : {1u, 5u, 37u})
            for (uint32_t k : {1u, 7u, 64u}) {
                std::vector<int8_t> x(rows * k), w(n * k);
                std::vector<float> scale(n), a(rows * n), b(rows * n);
                for (auto &v : x) v = int8_t(int(rng() % 255) - 127);
                for (auto &v : w) v = int8_t(int(rng() % 255) - 127);
                for (auto &v : scale) v = std::uniform_real_distribution<float>(1e-4f, 1e-2f)(rng);
                tsr_matmul_i8_f32_args ra = {x.data(), w.data(), scale.data(), a.data(), rows, k, n, n}, oa = ra;
                oa.y = b.data();
                for (uint32_t cores : {1u, 3u})
                    for (uint32_t c = 0; c < cores; ++c) {
                        ASSERT_EQ(tsr_matmul_i8_f32_ref(&ra, c, cores), TSR_KERNEL_OK);
                        ASSERT_EQ(tsr_matmul_i8_f32(&oa, c, cores), TSR_KERNEL_OK);
                    }
                EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0);
                for (uint32_t r = 0; r < rows; ++r)
                    for (uint32_t i = 0; i < n; ++i) { // an integer sum below 2^24 is exact in float: one rounding
                        int64_t acc = 0;
                        for (uint32_t j = 0; j < k; ++j) acc += x[r * k + j] * w[i * k + j];
                        EXPECT_EQ(a[r * n + i], float(acc) * scale[i]);
                    }
            }
}

TEST(TransformerBf16, RmsNormRopeAddAndAttentionAgainstDoublePrecision)
{
    std::mt19937 rng(5);
    auto bf = [&](size_t n, float lo, float hi) {
        std::vector<tsr_bf16> v(n);
        for (auto &e : v) e = tsr_bf16_from_f32(std::uniform_real_distribution<float>(lo, hi)(rng));
        return v;
    };
    auto f = [](tsr_bf16 v) { return double(tsr_f32_from_bf16(v)); };
    const uint32_t dim = 16, hs = 8, n = 5;
    // RMSNorm: one rounding to bf16 (relative 2^-8) of the exact value.
    const auto x = bf(2 * dim, -2, 2), g = bf(dim, 0.5f, 1.5f);
    std::vector<tsr_bf16> y(2 * dim);
    ASSERT_EQ(tsr_rmsnorm_bf16(x.data(), g.data(), y.data(), 2, dim, 1e-5f, 0, 1), TSR_KERNEL_OK);
    for (uint32_t r = 0; r < 2; ++r) {
        double ss = 0;
        for (uint32_t j = 0; j < dim; ++j) ss += f(x[r * dim + j]) * f(x[r * dim + j]);
        const double inv = 1 / std::sqrt(ss / dim + 1e-5);
        for (uint32_t j = 0; j < dim; ++j) {
            const double want = f(g[j]) * f(x[r * dim + j]) * inv;
            EXPECT_NEAR(f(y[r * dim + j]), want, std::abs(want) * 0.005 + 1e-6);
        }
    }
    // Add.
    const auto a = bf(dim, -3, 3), b = bf(dim, -3, 3);
    ASSERT_EQ(tsr_add_bf16(a.data(), b.data(), y.data(), dim, 0, 1), TSR_KERNEL_OK);
    for (uint32_t j = 0; j < dim; ++j) EXPECT_EQ(y[j], tsr_bf16_from_f32(float(f(a[j]) + f(b[j]))));
    // RoPE by 90 degrees: (v0, v1) -> (-v1, v0), exactly.
    std::vector<tsr_bf16> q = bf(hs, -2, 2), k = bf(hs, -2, 2), q0 = q, k0 = k;
    std::vector<float> table(hs);
    for (uint32_t i = 0; i < hs; i += 2) table[i] = 0.0f, table[i + 1] = 1.0f;
    ASSERT_EQ(tsr_rope_bf16(q.data(), k.data(), table.data(), 1, 0, hs, hs, hs, 0, 1), TSR_KERNEL_OK);
    for (uint32_t i = 0; i < hs; i += 2) {
        EXPECT_EQ(f(q[i]), -f(q0[i + 1]));
        EXPECT_EQ(f(q[i + 1]), f(q0[i]));
    }
    // Attention of one head over n positions, both exponentials.
    const auto qh = bf(hs, -1, 1), keys = bf(n * hs, -1, 1), values = bf(n * hs, -1, 1);
    for (tsr_exp_kind kind : {TSR_EXP_ACCURATE, TSR_EXP_SCHRAUDOLPH}) {
        std::vector<float> scores(n), acc(hs, 0.0f);
        ASSERT_EQ(tsr_attention_scores_bf16(qh.data(), keys.data(), scores.data(), n, hs), TSR_KERNEL_OK);
        ASSERT_EQ(tsr_softmax_f32_exp(scores.data(), n, kind), TSR_KERNEL_OK);
        ASSERT_EQ(tsr_attention_accumulate_bf16(scores.data(), values.data(), acc.data(), n, hs), TSR_KERNEL_OK);
        std::vector<double> p(n);
        double sum = 0;
        for (uint32_t t = 0; t < n; ++t) {
            double dot = 0;
            for (uint32_t d = 0; d < hs; ++d) dot += f(qh[d]) * f(keys[t * hs + d]);
            sum += p[t] = std::exp(dot / std::sqrt(double(hs)));
        }
        for (uint32_t d = 0; d < hs; ++d) {
            double want = 0;
            for (uint32_t t = 0; t < n; ++t) want += p[t] / sum * f(values[t * hs + d]);
            EXPECT_NEAR(acc[d], want, kind == TSR_EXP_ACCURATE ? 1e-5 : 0.07) << "exp " << kind;
        }
    }
}

} // namespace
