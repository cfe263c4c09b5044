// The int8 kernels: requantization by hand and against exact 128-bit arithmetic, the
// matmul's reference against double precision, and the optimized matmul bit for bit
// against the reference on any shape and core count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tessera/kernels_i8.h"

namespace {

// TFLite's QuantizeMultiplier: real = m * 2^(s - 31), m in [2^30, 2^31).
void quantize_multiplier(double real, int32_t *m, int32_t *s)
{
    int e = 0;
    const double q = std::frexp(real, &e); // real = q * 2^e, q in [0.5, 1)
    int64_t qm = int64_t(std::llround(q * double(1ll << 31)));
    if (qm == (1ll << 31)) qm /= 2, ++e;
    *m = int32_t(qm), *s = e;
}

// round half up of acc * m / 2^(31 - s), in exact 128-bit arithmetic.
int64_t exact_requantize(int32_t acc, int32_t m, int32_t s)
{
    const __int128 v = __int128(acc) * m, d = __int128(1) << (31 - s);
    __int128 q = (v + d / 2) / d; // C++ truncates toward zero: make it a floor
    if ((v + d / 2) % d != 0 && (v + d / 2) < 0) --q;
    return int64_t(q);
}

TEST(RequantizeI8, ByHand)
{
    const int32_t half = 1 << 30; // 0.5 with shift 0
    EXPECT_EQ(tsr_requantize(3, half, 0), 2);   // 1.5 rounds up
    EXPECT_EQ(tsr_requantize(-3, half, 0), -1); // -1.5 rounds up, to -1
    EXPECT_EQ(tsr_requantize(5, half, -1), 1);  // 1.25
    EXPECT_EQ(tsr_requantize(7, half, -1), 2);  // 1.75
    EXPECT_EQ(tsr_requantize(100, half, 2), 200); // 0.5 * 4
    EXPECT_EQ(tsr_requantize(INT32_MAX, INT32_MAX, 30), INT32_MAX); // saturates
    EXPECT_EQ(tsr_requantize(INT32_MIN, INT32_MAX, 30), INT32_MIN);
    EXPECT_EQ(tsr_requantize(12345, 0, 0), 0);
    EXPECT_EQ(tsr_requantize_to_i8(1000, half, 0, 10, -128, 127), 127);
    EXPECT_EQ(tsr_requantize_to_i8(-1000, half, 0, 10, -100, 127), -100);
    EXPECT_EQ(tsr_requantize_to_i8(-41, half, 0, 10, -128, 127), -10); // -20.5 -> -20, + 10
}

TEST(RequantizeI8, EqualsExactArithmeticAndApproachesTheRealFactor)
{
    std::mt19937 rng(3);
    std::uniform_int_distribution<int32_t> acc_of(-(1 << 24), 1 << 24);
    std::uniform_real_distribution<double> log_factor(std::log(1e-6), std::log(50.0));
    for (int t = 0; t < 200000; ++t) {
        const double real = std::exp(log_factor(rng));
        int32_t m, s;
        quantize_multiplier(real, &m, &s);
        ASSERT_GE(m, 1 << 30);
        ASSERT_TRUE(s >= -31 && s <= 30);
        const int32_t acc = acc_of(rng);
        const int64_t exact = exact_requantize(acc, m, s);
        const int32_t got = tsr_requantize(acc, m, s);
        ASSERT_EQ(got, exact) << acc << " * " << m << " * 2^(" << s << " - 31)";
        ASSERT_LE(std::fabs(double(got) - std::floor(double(acc) * real + 0.5)), 1.0);
    }
}

struct Problem {
    uint32_t rows, k, n, ldy;
    int32_t x_zero, y_zero;
    bool bias;
    std::vector<int8_t> x, w, shift;
    std::vector<int32_t> b, multiplier;
    std::vector<double> factor; // the real scale_x * scale_w[i] / scale_y each (multiplier, shift) stands for
    tsr_matmul_i8_args args(int8_t *y) const
    {
        return {x.data(), w.data(), bias ? b.data() : nullptr, multiplier.data(), shift.data(), y, x_zero, y_zero,
                -128, 127, rows, k, n, ldy};
    }
};

Problem random_problem(uint32_t rows, uint32_t k, uint32_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    Problem p{rows, k, n, n + seed % 3, int32_t(rng() % 256) - 128, int32_t(rng() % 256) - 128, seed % 2 == 0,
              {}, {}, {}, {}, {}, {}};
    for (uint32_t i = 0; i < rows * k; ++i) p.x.push_back(int8_t(int32_t(rng() % 256) - 128));
    for (uint32_t i = 0; i < n * k; ++i) p.w.push_back(int8_t(int32_t(rng() % 255) - 127));
    for (uint32_t i = 0; i < n; ++i) {
        // A factor that maps the accumulator's typical range onto int8's.
        const double real = (0.2 + double(rng() % 1000) / 1000.0) * 127.0 / (std::sqrt(double(k)) * 127.0 * 74.0);
        int32_t m, s;
        quantize_multiplier(real, &m, &s);
        p.multiplier.push_back(m), p.shift.push_back(int8_t(s)), p.factor.push_back(real);
        p.b.push_back(int32_t(rng() % 20001) - 10000);
    }
    return p;
}

std::vector<int8_t> run(const Problem &p, bool optimized, uint32_t cores)
{
    std::vector<int8_t> y(size_t(p.rows) * p.ldy, int8_t(0x5A)); // untouched padding stays 0x5A
    const tsr_matmul_i8_args a = p.args(y.data());
    for (uint32_t c = 0; c < cores; ++c)
        EXPECT_EQ(optimized ? tsr_matmul_i8(&a, c, cores) : tsr_matmul_i8_ref(&a, c, cores), TSR_KERNEL_OK);
    return y;
}

TEST(MatmulI8, ByHand)
{
    // x = [3, -2] with zero point 1: (2, -3). w = [[1, 2], [-1, 4]]. Sums -4 and -14.
    const int8_t x[] = {3, -2}, w[] = {1, 2, -1, 4};
    const int32_t multiplier[] = {1 << 30, 1 << 30}; // 0.5
    const int8_t shift[] = {0, 0};
    int8_t y[2];
    tsr_matmul_i8_args a{x, w, nullptr, multiplier, shift, y, 1, 5, -128, 127, 1, 2, 2, 2};
    ASSERT_EQ(tsr_matmul_i8_ref(&a, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(y[0], 3);  // -2 + 5
    EXPECT_EQ(y[1], -2); // -7 + 5
    const int32_t bias[] = {1, 0}; // -3 * 0.5 = -1.5 rounds up to -1
    a.bias = bias;
    ASSERT_EQ(tsr_matmul_i8(&a, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(y[0], 4);
    EXPECT_EQ(tsr_matmul_i8_scratch_bytes(&a), 0u);
}

TEST(MatmulI8, ReferenceAgainstDoublePrecision)
{
    const Problem p = random_problem(3, 172, 64, 11);
    const std::vector<int8_t> y = run(p, false, 1);
    uint32_t off_by_one = 0;
    for (uint32_t r = 0; r < p.rows; ++r)
        for (uint32_t i = 0; i < p.n; ++i) {
            double acc = p.bias ? p.b[i] : 0;
            for (uint32_t j = 0; j < p.k; ++j) acc += (double(p.x[r * p.k + j]) - p.x_zero) * p.w[i * p.k + j];
            const double want = std::clamp(std::floor(p.y_zero + acc * p.factor[i] + 0.5), -128.0, 127.0);
            const double got = y[r * p.ldy + i];
            ASSERT_LE(std::fabs(got - want), 1.0) << "row " << r << " channel " << i;
            off_by_one += got != want;
        }
    EXPECT_LE(off_by_one, 2u) << "the multiplier is exact to 2^-31: only near-ties may differ";
}

TEST(MatmulI8, OptimizedIsTheReferenceBitForBitOnAnyShapeAndCoreCount)
{
    uint32_t seed = 1;
    for (const auto &[rows, k, n] : std::vector<std::array<uint32_t, 3>>{
             {1, 64, 64}, {1, 64, 172}, {1, 172, 64}, {16, 64, 512}, {5, 33, 7}, {2, 1, 1}, {1, 3, 5}, {7, 256, 9}})
        for (uint32_t cores : {1u, 2u, 3u, 8u}) {
            const Problem p = random_problem(rows, k, n, seed++);
            const std::vector<int8_t> want = run(p, false, cores), got = run(p, true, cores);
            EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size()), 0)
                << rows << "x" << k << "x" << n << " on " << cores << " cores";
            EXPECT_EQ(want, run(p, false, 1)) << "the reference does not depend on the core count";
        }
}

TEST(MatmulI8, RefusesArgumentsOutsideTheirRanges)
{
    const Problem p = random_problem(1, 8, 4, 2);
    std::vector<int8_t> y(8);
    auto refused = [&](auto edit) {
        tsr_matmul_i8_args a = p.args(y.data());
        std::vector<int32_t> m = p.multiplier;
        std::vector<int8_t> s = p.shift;
        a.multiplier = m.data(), a.shift = s.data();
        edit(a, m, s);
        return tsr_matmul_i8_ref(&a, 0, 1) == TSR_KERNEL_BAD_ARGUMENT && tsr_matmul_i8(&a, 0, 1) == TSR_KERNEL_BAD_ARGUMENT;
    };
    using M = std::vector<int32_t>;
    using S = std::vector<int8_t>;
    EXPECT_TRUE(refused([](tsr_matmul_i8_args &a, M &, S &) { a.x = nullptr; }));
    EXPECT_TRUE(refused([](tsr_matmul_i8_args &a, M &, S &) { a.k = 0; }));
    EXPECT_TRUE(refused([](tsr_matmul_i8_args &a, M &, S &) { a.k = 32769; }));
    EXPECT_TRUE(refused([](tsr_matmul_i8_args &a, M &, S &) { a.ldy = a.n - 1; }));
    EXPECT_TRUE(refused([](tsr_matmul_i8_args &a, M &, S &) { a.x_zero = 128; }));
    EXPECT_TRUE(refused([](tsr_matmul_i8_args &a, M &, S &) { a.y_min = 5, a.y_max = 4; }));
    EXPECT_TRUE(refused([](tsr_matmul_i8_args &, M &m, S &) { m[1] = (1 << 30) - 1; }));
    EXPECT_TRUE(refused([](tsr_matmul_i8_args &, M &, S &s) { s[2] = 31; }));
    EXPECT_TRUE(refused([](tsr_matmul_i8_args &, M &, S &s) { s[0] = -32; }));
    EXPECT_FALSE(refused([](tsr_matmul_i8_args &, M &, S &) {}));
    tsr_matmul_i8_args a = p.args(y.data());
    EXPECT_EQ(tsr_matmul_i8(&a, 2, 2), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_matmul_i8(nullptr, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

} // namespace
