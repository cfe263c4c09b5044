// Kernels: the optimized matmul against the reference, every kernel against a
// double-precision formula written here, and results independent of core count.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

// The core split as the PULP cores' builds have it (a table's reciprocal: TSR_CORES_DIVIDE_SLOWLY),
// so that QuotientByCoresEqualsTheCompilersDivision holds that form to the division here too
// (the header's functions are static inline: this file's own copies).
#define TSR_CORES_DIVIDE_SLOWLY 1
#include "tessera/kernels.h"
#include "tessera/kernels_quantlib.h"
#include "kernel_math.h" // tsr_expf, shared by softmax and SiLU
#include "softmax_i8_checks.h" // tsr_iexp_quotient_multiplier
#include "elementwise_i8_checks.h" // tsr_isqrt, tsr_isqrt_masked

namespace {

std::vector<float> random_floats(size_t n, uint32_t seed, float scale = 1.0f)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-scale, scale);
    std::vector<float> v(n);
    for (auto &x : v) x = u(rng);
    return v;
}

// Runs a kernel once per core, in reverse core order, as a cluster would (in any order).
template <typename F> void on_cores(uint32_t cores, F f)
{
    for (uint32_t c = cores; c-- > 0;) ASSERT_EQ(f(c, cores), TSR_KERNEL_OK);
}

TEST(CoreRange, PartitionsEveryItemOnceBalanced)
{
    for (uint32_t total : {0u, 1u, 7u, 64u, 173u})
        for (uint32_t cores : {1u, 2u, 3u, 8u}) {
            uint32_t next = 0;
            for (uint32_t c = 0; c < cores; ++c) {
                uint32_t b, e;
                tsr_core_range(total, c, cores, &b, &e);
                EXPECT_EQ(b, next);
                EXPECT_LE(e - b, total / cores + 1);
                next = e;
            }
            EXPECT_EQ(next, total);
        }
}

// A core split's quotient by the core count (the reciprocal's form) against the compiler's division: every count
// the table covers (2 to 16) at every numerator below 2^20 and around 2^27 (its edge), and
// the counts beyond it (a division) at a few; the split itself covers every item once.
TEST(KernelMath, QuotientByCoresEqualsTheCompilersDivision)
{
    for (uint32_t d = 1; d <= 40; ++d) {
        const uint32_t dense = d <= 16u ? (1u << 20) : 4096u;
        for (uint32_t n = 0; n < dense; ++n) ASSERT_EQ(tsr_quotient_by_cores(n, d), n / d) << n << " / " << d;
        for (uint32_t n = (1u << 27) - 70000u; n < (1u << 27) + 70000u; ++n)
            ASSERT_EQ(tsr_quotient_by_cores(n, d), n / d) << n << " / " << d;
        for (uint32_t n : {0xFFFFFFFFu, 0xFFFFFFF0u, 0x80000000u, 0x7FFFFFFFu})
            ASSERT_EQ(tsr_quotient_by_cores(n, d), n / d) << n << " / " << d;
        for (uint32_t total : {0u, 1u, 7u, 64u, 172u, 1000u}) {
            uint32_t next = 0;
            for (uint32_t c = 0; c < d; ++c) {
                uint32_t begin = 0, end = 0;
                tsr_core_range(total, c, d, &begin, &end);
                ASSERT_EQ(begin, next) << total << " over " << d;
                ASSERT_LE(end - begin, total / d + 1u);
                ASSERT_GE(end - begin, total / d);
                next = end;
            }
            ASSERT_EQ(next, total) << total << " over " << d;
        }
    }
}

// The 64-by-32-bit division of two 32-bit ones against the compiler's 64-bit division:
// every divisor's normalizing shift, the largest numerators (hi = d - 1, lo all ones), and
// random ones; the top bit against std::bit_width.
TEST(KernelMath, DivisionOfTwoWordsEqualsTheCompilersOnEveryShift)
{
    std::mt19937 rng(7);
    auto check = [](uint32_t hi, uint32_t lo, uint32_t d) {
        const uint64_t n = (uint64_t(hi) << 32) | lo;
        uint32_t rem = 0;
        const uint32_t q = tsr_udiv_64_32(hi, lo, d, &rem);
        ASSERT_EQ(q, uint32_t(n / d)) << hi << " " << lo << " / " << d;
        ASSERT_EQ(rem, uint32_t(n % d)) << hi << " " << lo << " / " << d;
    };
    for (uint32_t shift = 0; shift < 32; ++shift) {
        const uint32_t top = 1u << shift;
        for (uint32_t d : {top, top | (top >> 1), top + (top - 1u), top + 1u}) {
            if (!d) continue;
            EXPECT_EQ(tsr_top_bit(d), uint32_t(std::bit_width(d)) - 1u);
            check(0, 0, d);
            check(0, 0xFFFFFFFFu, d);
            check(d - 1u, 0xFFFFFFFFu, d);
            check(d - 1u, 0, d);
            for (int i = 0; i < 2000; ++i) check(uint32_t(rng() % d), uint32_t(rng()), d);
        }
    }
    for (int i = 0; i < 200000; ++i) {
        const uint32_t d = uint32_t(rng()) >> (rng() % 32u);
        if (d) check(uint32_t(rng() % d), uint32_t(rng()), d);
    }
}

struct MatmulShape {
    uint32_t rows, k, n;
};

class MatmulTest : public ::testing::TestWithParam<MatmulShape> {};

TEST_P(MatmulTest, ReferenceMatchesDoublePrecision)
{
    const auto [rows, k, n] = GetParam();
    const auto x = random_floats(size_t(rows) * k, 1), w = random_floats(size_t(n) * k, 2);
    std::vector<float> y(size_t(rows) * n);
    on_cores(3, [&](uint32_t c, uint32_t cs) { return tsr_matmul_f32_ref(x.data(), w.data(), y.data(), rows, k, n, n, c, cs); });
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t i = 0; i < n; ++i) {
            double want = 0;
            for (uint32_t j = 0; j < k; ++j) want += double(w[size_t(i) * k + j]) * x[size_t(r) * k + j];
            EXPECT_NEAR(y[size_t(r) * n + i], want, 1e-5 * k) << r << "," << i;
        }
}

TEST_P(MatmulTest, OptimizedMatchesReferenceOnAnyCoreCount)
{
    const auto [rows, k, n] = GetParam();
    const auto x = random_floats(size_t(rows) * k, 3), w = random_floats(size_t(n) * k, 4);
    std::vector<float> ref(size_t(rows) * n), opt(size_t(rows) * n, NAN);
    on_cores(1, [&](uint32_t c, uint32_t cs) { return tsr_matmul_f32_ref(x.data(), w.data(), ref.data(), rows, k, n, n, c, cs); });
    for (uint32_t cores : {1u, 2u, 5u, 8u}) {
        on_cores(cores, [&](uint32_t c, uint32_t cs) { return tsr_matmul_f32(x.data(), w.data(), opt.data(), rows, k, n, n, c, cs); });
        // Same multiply-adds in the same order per output (kernels are built with
        // -ffp-contract=off): the same bits.
        for (size_t i = 0; i < ref.size(); ++i)
            EXPECT_EQ(std::memcmp(&opt[i], &ref[i], sizeof(float)), 0)
                << "cores " << cores << " index " << i << ": " << opt[i] << " vs " << ref[i];
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatmulTest,
                         ::testing::Values(MatmulShape{1, 64, 64}, MatmulShape{1, 172, 64}, MatmulShape{1, 64, 512},
                                           MatmulShape{3, 7, 5}, MatmulShape{4, 64, 172}, MatmulShape{16, 64, 32},
                                           MatmulShape{9, 33, 17}, MatmulShape{1, 1, 1}, MatmulShape{1, 33, 21},
                                           MatmulShape{1, 6, 12}, MatmulShape{5, 30, 13}, MatmulShape{2, 3, 9}));

TEST(Matmul, WritesAColumnTileIntoAWiderOutput)
{
    // A 5-row x 3-column tile of a 5 x 11 output: ldy = 11, columns 4..6.
    const uint32_t rows = 5, k = 9, n = 3, ldy = 11;
    const auto x = random_floats(rows * k, 20), w = random_floats(n * k, 21);
    std::vector<float> whole(rows * n), wide(rows * ldy, -7.0f);
    on_cores(1, [&](uint32_t c, uint32_t cs) { return tsr_matmul_f32_ref(x.data(), w.data(), whole.data(), rows, k, n, n, c, cs); });
    on_cores(2, [&](uint32_t c, uint32_t cs) { return tsr_matmul_f32(x.data(), w.data(), wide.data() + 4, rows, k, n, ldy, c, cs); });
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t i = 0; i < ldy; ++i) {
            if (i >= 4 && i < 7) EXPECT_NEAR(wide[r * ldy + i], whole[r * n + i - 4], 1e-6f);
            else EXPECT_EQ(wide[r * ldy + i], -7.0f) << "wrote outside its tile at " << r << "," << i;
        }
}

TEST(Matmul, RejectsBadArguments)
{
    float x = 1, w = 1, y = 0;
    EXPECT_EQ(tsr_matmul_f32(nullptr, &w, &y, 1, 1, 1, 1, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_matmul_f32(&x, &w, &y, 0, 1, 1, 1, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_matmul_f32(&x, &w, &y, 1, 1, 1, 1, 2, 2), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_matmul_f32(&x, &w, &y, 1, 1, 2, 1, 0, 1), TSR_KERNEL_BAD_ARGUMENT); // ldy < n
    EXPECT_EQ(tsr_matmul_f32_ref(&x, &w, &y, 1, 1, 1, 1, 0, 0), TSR_KERNEL_BAD_ARGUMENT);
}

TEST(RmsNorm, MatchesDoublePrecision)
{
    const uint32_t rows = 3, dim = 64;
    const auto x = random_floats(rows * dim, 5, 3.0f), w = random_floats(dim, 6);
    std::vector<float> y(rows * dim);
    on_cores(2, [&](uint32_t c, uint32_t cs) { return tsr_rmsnorm_f32(x.data(), w.data(), y.data(), rows, dim, 1e-5f, c, cs); });
    for (uint32_t r = 0; r < rows; ++r) {
        double ss = 0;
        for (uint32_t j = 0; j < dim; ++j) ss += double(x[r * dim + j]) * x[r * dim + j];
        const double s = 1.0 / std::sqrt(ss / dim + 1e-5);
        for (uint32_t j = 0; j < dim; ++j) EXPECT_NEAR(y[r * dim + j], w[j] * x[r * dim + j] * s, 1e-5);
    }
}

TEST(Softmax, MatchesDoublePrecisionAndSumsToOne)
{
    for (uint32_t n : {1u, 2u, 7u, 8u, 9u, 37u, 300u}) { // around the eight lanes, and the tails
        auto x = random_floats(n, 7 + n, 20.0f);
        const auto in = x;
        tsr_softmax_f32(x.data(), n);
        double mx = in[0], total = 0, sum = 0;
        for (float v : in) mx = std::max(mx, double(v));
        for (float v : in) total += std::exp(v - mx);
        for (size_t i = 0; i < x.size(); ++i) {
            EXPECT_NEAR(x[i], std::exp(in[i] - mx) / total, 1e-6) << "n " << n << " index " << i;
            sum += x[i];
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << "n " << n;
    }
}

TEST(Softmax, MaximumAnywhere)
{
    // The largest value in each lane and in the tail: every result stays finite and sums to one.
    for (uint32_t where : {0u, 3u, 7u, 8u, 12u, 18u}) {
        std::vector<float> x(19, -5.0f);
        x[where] = 95.0f; // e^(95 - max) without the maximum taken out would overflow
        tsr_softmax_f32(x.data(), uint32_t(x.size()));
        EXPECT_NEAR(x[where], 1.0f, 1e-6f) << where;
    }
}

// Distance in units in the last place between a float and the exact value.
double ulps_from(float got, double want)
{
    const float f = float(want);
    const double ulp = double(std::nextafter(std::fabs(f), INFINITY)) - double(std::fabs(f));
    return std::fabs(double(got) - want) / (ulp > 0 ? ulp : std::ldexp(1.0, -149));
}

TEST(Expf, WithinTwoUlpOverItsWholeRange)
{
    // Every 127th float from -103.97 (below it the result is 0) to the overflow threshold,
    // normal and subnormal results alike, against double precision.
    uint64_t checked = 0;
    double worst = 0;
    float worst_at = 0;
    for (float lo : {0.0f, -0.0f}) {
        uint32_t bits;
        std::memcpy(&bits, &lo, sizeof bits);
        for (;; bits += 127u) {
            float x;
            std::memcpy(&x, &bits, sizeof x);
            if (!(x > -103.97f && x < 88.72f)) break;
            const double d = ulps_from(tsr_expf(x), std::exp(double(x)));
            if (d > worst) worst = d, worst_at = x;
            ++checked;
        }
    }
    EXPECT_GT(checked, 15000000u);
    EXPECT_LE(worst, 2.0) << "at x = " << worst_at;
}

TEST(Expf, EdgesOfTheRange)
{
    EXPECT_EQ(tsr_expf(0.0f), 1.0f);
    EXPECT_EQ(tsr_expf(INFINITY), INFINITY);
    EXPECT_EQ(tsr_expf(-INFINITY), 0.0f);
    EXPECT_TRUE(std::isnan(tsr_expf(NAN)));
    EXPECT_EQ(tsr_expf(88.72283f), INFINITY);
    EXPECT_EQ(tsr_expf(1e30f), INFINITY);
    const float below = std::nextafter(88.72283f, 0.0f); // the largest x with a finite e^x
    EXPECT_TRUE(std::isfinite(tsr_expf(below)));
    EXPECT_LE(ulps_from(tsr_expf(below), std::exp(double(below))), 2.0);
    EXPECT_EQ(tsr_expf(-104.0f), 0.0f);
    EXPECT_GT(tsr_expf(-103.0f), 0.0f); // subnormal, not flushed
    EXPECT_LE(ulps_from(tsr_expf(-100.0f), std::exp(-100.0)), 2.0);
}

TEST(Expf, BothFormsGiveTheSameBits)
{
    // The RISC-V cores run the branching form, the host the branch-free one: every
    // 127th bit pattern of the whole float range (NaNs, infinities, subnormals) and
    // the edges must give the same result, so the firmware and the host agree.
    uint64_t checked = 0, differing = 0;
    uint32_t first_bad = 0;
    auto same = [](float a, float b) {
        if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
        return std::memcmp(&a, &b, sizeof a) == 0;
    };
    auto check = [&](uint32_t bits) {
        float x;
        std::memcpy(&x, &bits, sizeof x);
        if (!same(tsr_expf_branching(x), tsr_expf_branch_free(x)) && differing++ == 0) first_bad = bits;
        ++checked;
    };
    for (uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += 127u) check(uint32_t(bits));
    for (float x : {88.72283f, std::nextafter(88.72283f, 0.0f), -103.972f, std::nextafter(-103.972f, 0.0f),
                    -87.33655f, -87.3365479f, 88.0f, -100.0f, -0.0f, 1e-45f, -1e-45f})
        check(std::bit_cast<uint32_t>(x));
    EXPECT_GT(checked, 33000000u);
    EXPECT_EQ(differing, 0u) << "first at bits 0x" << std::hex << first_bad;
}

TEST(Argmax, FirstOfTies)
{
    const float v[] = {1, 5, 2, 5, -1};
    EXPECT_EQ(tsr_argmax_f32(v, 5), 1u);
}

TEST(Elementwise, AddAndSwiglu)
{
    const auto a = random_floats(100, 8, 4.0f), b = random_floats(100, 9, 4.0f);
    std::vector<float> sum(100), act(100);
    on_cores(3, [&](uint32_t c, uint32_t cs) { return tsr_add_f32(a.data(), b.data(), sum.data(), 100, c, cs); });
    on_cores(3, [&](uint32_t c, uint32_t cs) { return tsr_swiglu_f32(a.data(), b.data(), act.data(), 100, c, cs); });
    for (int i = 0; i < 100; ++i) {
        EXPECT_FLOAT_EQ(sum[i], a[i] + b[i]);
        EXPECT_NEAR(act[i], a[i] / (1.0 + std::exp(-double(a[i]))) * b[i], 1e-5);
    }
}

TEST(Embed, CopiesRows)
{
    const auto table = random_floats(10 * 4, 10);
    const int32_t tokens[] = {3, 0, 9};
    std::vector<float> out(12);
    on_cores(2, [&](uint32_t c, uint32_t cs) { return tsr_embed_f32(tokens, table.data(), out.data(), 3, 4, c, cs); });
    for (int r = 0; r < 3; ++r)
        for (int j = 0; j < 4; ++j) EXPECT_EQ(out[r * 4 + j], table[tokens[r] * 4 + j]);
}

TEST(Rope, RotatesPairsByPositionAngle)
{
    const uint32_t rows = 2, pos = 5, dim = 16, kv_dim = 8, hs = 8, context = 8;
    std::vector<float> table(context * hs);
    for (uint32_t p = 0; p < context; ++p)
        for (uint32_t i = 0; i < hs / 2; ++i) {
            const double angle = p * std::pow(10000.0, -2.0 * i / hs);
            table[(p * hs / 2 + i) * 2] = float(std::cos(angle));
            table[(p * hs / 2 + i) * 2 + 1] = float(std::sin(angle));
        }
    auto q = random_floats(rows * dim, 11), k = random_floats(rows * kv_dim, 12);
    const auto q0 = q, k0 = k;
    on_cores(3, [&](uint32_t c, uint32_t cs) {
        return tsr_rope_f32(q.data(), k.data(), table.data(), rows, pos, dim, kv_dim, hs, c, cs);
    });
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t i = 0; i < dim; i += 2) {
            const double angle = (pos + r) * std::pow(10000.0, -double(i % hs) / hs);
            EXPECT_NEAR(q[r * dim + i], q0[r * dim + i] * std::cos(angle) - q0[r * dim + i + 1] * std::sin(angle), 1e-5);
            EXPECT_NEAR(q[r * dim + i + 1], q0[r * dim + i] * std::sin(angle) + q0[r * dim + i + 1] * std::cos(angle), 1e-5);
            if (i < kv_dim)
                EXPECT_NEAR(k[r * kv_dim + i], k0[r * kv_dim + i] * std::cos(angle) - k0[r * kv_dim + i + 1] * std::sin(angle), 1e-5);
        }
}

TEST(Rope, RefusesKPairsBeyondQs)
{
    // The pairs of k are a prefix of q's: a kv_dim above dim would leave k's tail unturned.
    std::vector<float> q(2), k(4), table(2, 0.5f);
    EXPECT_EQ(tsr_rope_f32(q.data(), k.data(), table.data(), 1, 0, 2, 4, 2, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_rope_f32(q.data(), k.data(), table.data(), 1, 0, 2, 2, 2, 0, 1), TSR_KERNEL_OK);
}

TEST(Attention, CausalGroupedQueryMatchesDoublePrecision)
{
    const uint32_t heads = 4, kv_heads = 2, hs = 8, context = 12, rows = 3, pos = 4;
    const uint32_t dim = heads * hs, kv_dim = kv_heads * hs;
    const auto q = random_floats(rows * dim, 13), kc = random_floats(context * kv_dim, 14), vc = random_floats(context * kv_dim, 15);
    for (uint32_t cores : {1u, 3u}) {
        std::vector<float> scratch(cores * context), y(rows * dim);
        on_cores(cores, [&](uint32_t c, uint32_t cs) {
            return tsr_attention_f32_ref(q.data(), kc.data(), vc.data(), scratch.data(), y.data(), rows, pos, heads,
                                         kv_heads, hs, context, c, cs);
        });
        for (uint32_t r = 0; r < rows; ++r)
            for (uint32_t h = 0; h < heads; ++h) {
                const uint32_t g = h / (heads / kv_heads), last = pos + r;
                std::vector<double> s(last + 1);
                double mx = -1e300, total = 0;
                for (uint32_t t = 0; t <= last; ++t) {
                    double d = 0;
                    for (uint32_t i = 0; i < hs; ++i) d += double(q[r * dim + h * hs + i]) * kc[t * kv_dim + g * hs + i];
                    s[t] = d / std::sqrt(double(hs));
                    mx = std::max(mx, s[t]);
                }
                for (auto &v : s) total += (v = std::exp(v - mx));
                for (uint32_t i = 0; i < hs; ++i) {
                    double want = 0;
                    for (uint32_t t = 0; t <= last; ++t) want += s[t] / total * vc[t * kv_dim + g * hs + i];
                    EXPECT_NEAR(y[r * dim + h * hs + i], want, 1e-5) << "cores " << cores;
                }
            }
    }
}

TEST(Attention, RejectsPositionsPastContext)
{
    float buf[64] = {};
    EXPECT_EQ(tsr_attention_f32_ref(buf, buf, buf, buf, buf, 2, 7, 2, 1, 2, 8, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

TEST(Attention, TiledPiecesEqualTheWholeKernelExactly)
{
    // One head of one row, keys and values streamed in chunks of 3 positions, on
    // 2 cores: scores chunk by chunk, softmax, values chunk by chunk.
    const uint32_t heads = 2, kv_heads = 1, hs = 8, context = 10, pos = 6;
    const uint32_t dim = heads * hs, kv_dim = kv_heads * hs, last = pos;
    const auto q = random_floats(dim, 16), kc = random_floats(context * kv_dim, 17), vc = random_floats(context * kv_dim, 18);
    std::vector<float> scratch(context), whole(dim);
    on_cores(1, [&](uint32_t c, uint32_t cs) {
        return tsr_attention_f32_ref(q.data(), kc.data(), vc.data(), scratch.data(), whole.data(), 1, pos, heads, kv_heads,
                                     hs, context, c, cs);
    });
    for (uint32_t h = 0; h < heads; ++h) {
        std::vector<float> scores(context), out(hs, 0.0f);
        for (uint32_t t0 = 0; t0 <= last; t0 += 3) {
            const uint32_t n = std::min(3u, last + 1 - t0);
            on_cores(2, [&](uint32_t c, uint32_t cs) {
                return tsr_attention_scores_f32(q.data() + h * hs, kc.data() + t0 * kv_dim, scores.data() + t0, n, hs, c, cs);
            });
        }
        tsr_softmax_f32(scores.data(), last + 1);
        for (uint32_t t0 = 0; t0 <= last; t0 += 3) {
            const uint32_t n = std::min(3u, last + 1 - t0);
            on_cores(2, [&](uint32_t c, uint32_t cs) {
                return tsr_attention_accumulate_f32(scores.data() + t0, vc.data() + t0 * kv_dim, out.data(), n, hs, c, cs);
            });
        }
        for (uint32_t i = 0; i < hs; ++i) EXPECT_EQ(out[i], whole[h * hs + i]) << "head " << h << " dim " << i;
    }
}

} // namespace

// The RequantShift matmul's 32-bit fact, by hand: one channel of weights {-3, 5} (sum of
// magnitudes 8, so |x . w| <= 1024 for int8 x); the 32-bit form holds while
// 1024 |mul| + |add| + round <= 2^31 - 1.
TEST(KernelMath, RequantShiftFits32BitsExactlyAtItsBound)
{
    const int8_t w[2] = {-3, 5};
    const int32_t big = 1 << 21; // 1024 x 2^21 = 2^31
    auto fits = [&](int32_t mul, int32_t add, int32_t shift) { return tsr_matmul_i8_rqs_fits_32(w, &mul, &add, 1, 2, shift); };
    EXPECT_FALSE(fits(big, 0, 0));
    EXPECT_TRUE(fits(big - 1, 0, 0));      // 2^31 - 1024
    EXPECT_TRUE(fits(big - 1, 1023, 0));   // 2^31 - 1
    EXPECT_FALSE(fits(big - 1, 1024, 0));  // 2^31
    EXPECT_FALSE(fits(big - 1, 1023, 1));  // the rounding term 1: 2^31
    EXPECT_TRUE(fits(-(big - 1), -1023, 0)); // magnitudes
    EXPECT_FALSE(fits(-big, 0, 0));
    EXPECT_FALSE(fits(1, 0, 31));          // no 32-bit form past shift 30
    EXPECT_FALSE(fits(1, 0, -1));
    // Two channels: one that does not hold is enough.
    const int8_t w2[4] = {-3, 5, 127, -128}; // the second: 255, |x . w| <= 32640
    const int32_t mul2[2] = {1, 65536}, add2[2] = {0, 0}; // 32640 x 65536 + 2^15 < 2^31; x 65800 is not
    EXPECT_TRUE(tsr_matmul_i8_rqs_fits_32(w2, mul2, add2, 2, 2, 16));
    const int32_t mul3[2] = {1, 65800};
    EXPECT_FALSE(tsr_matmul_i8_rqs_fits_32(w2, mul3, add2, 2, 2, 16));
    EXPECT_FALSE(tsr_matmul_i8_rqs_fits_32(nullptr, mul2, add2, 2, 2, 16));
}

// RMSNorm's integer square roots (by branches and by masks): floor(sqrt(v)) for every v below
// 2^22 (a root's argument in the int8 RMSNorm is below 2^25), every power of two and its
// neighbours, and the largest.
TEST(KernelMath, IntegerSquareRootsAreTheFloorOfTheRoot)
{
    for (auto isqrt : {tsr_isqrt, tsr_isqrt_masked}) {
        for (uint32_t v = 0; v < (1u << 22); ++v) ASSERT_EQ(isqrt(v), uint32_t(std::floor(std::sqrt(double(v))))) << v;
        for (uint32_t b = 0; b < 32; ++b)
            for (const uint32_t v : {(1u << b) - 1u, 1u << b, (1u << b) + 1u})
                ASSERT_EQ(isqrt(v), uint32_t(std::floor(std::sqrt(double(v))))) << v;
        EXPECT_EQ(isqrt(0xFFFFFFFFu), 65535u);
    }
}

// The integer exponential's quotient by one 32-bit product (tsr_iexp_quotient_multiplier),
// against the division it replaces, for every u an int8 softmax has and every shift and ln2
// the constants' check admits; the product never wraps.
TEST(KernelMath, IexpQuotientByMultiplierIsTheDivisionForEveryInt8Difference)
{
    for (int32_t shift = 0; shift <= 14; ++shift)
        for (int32_t ln2 = 709; ln2 <= 1420; ++ln2) {
            const tsr_iexp_constants k = {shift, ln2, 1385, 1000000};
            const uint64_t m = tsr_iexp_quotient_multiplier(k);
            ASSERT_LE(255u * m, 0xFFFFFFFFull) << "shift " << shift << " ln2 " << ln2;
            for (uint32_t u = 0; u < 256u; ++u)
                ASSERT_EQ((uint32_t)(u * m) >> tsr_iexp_quotient_bits, (u << shift) / (uint32_t)ln2)
                    << "u " << u << " shift " << shift << " ln2 " << ln2;
        }
}
