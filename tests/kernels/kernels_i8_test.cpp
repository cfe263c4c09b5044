// The int8 kernels: requantization by hand and against exact 128-bit arithmetic, the
// matmul's reference against double precision, and the optimized matmul bit for bit
// against the reference on any shape and core count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "requantize_fast.h" // the optimized kernels' 32-bit form, tested as they build it
#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"

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

TEST(RequantizeI8, The32BitFormIsTheReferenceBitForBit)
{
    // Every shift (every form: 30 - shift >= 32, and below, RV32's two words), accumulators over the whole
    // int32 range and at its edges, multipliers at the ends of their range.
    std::mt19937 rng(5);
    const int32_t edges[] = {0, 1, -1, 2, -2, 3, -3, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 1 << 24, -(1 << 24)};
    const int32_t multipliers[] = {0, 1 << 30, (1 << 30) + 1, INT32_MAX, INT32_MAX - 1};
    for (int32_t shift = -31; shift <= 30; ++shift)
        for (int t = 0; t < 4000; ++t) {
            const int32_t acc = t < 13 ? edges[t] : int32_t(rng());
            const int32_t m = t % 7 < 5 ? multipliers[t % 7] : int32_t((1u << 30) + rng() % (1u << 30));
            ASSERT_EQ(tsr_requantize_fast(acc, m, shift), tsr_requantize(acc, m, shift)) << acc << " " << m << " " << shift;
            if (30 - shift < 32) // RV32's form of these shifts (the fast one there), on every machine
                ASSERT_EQ(tsr_requantize_two_words(acc, m, shift), tsr_requantize(acc, m, shift))
                    << acc << " " << m << " " << shift;
            const int32_t zero = int32_t(rng() % 256) - 128, lo = int32_t(rng() % 256) - 128;
            const int32_t hi = lo + int32_t(rng() % uint32_t(128 - lo));
            ASSERT_EQ(tsr_requantize_to_i8_fast(acc, m, shift, zero, lo, hi), tsr_requantize_to_i8(acc, m, shift, zero, lo, hi))
                << acc << " " << m << " " << shift << " " << zero << " [" << lo << ", " << hi << "]";
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

// ---- W4A8 ----------------------------------------------------------------------------

// n random W4_G32 rows of k weights: any bytes of weights, group scales 1..255.
std::vector<uint8_t> random_w4_rows(std::mt19937 &rng, uint32_t n, uint32_t k)
{
    std::uniform_int_distribution<int> byte(0, 255), gsd(1, 255);
    const uint32_t stride = tsr_w4_row_bytes(k);
    std::vector<uint8_t> w(size_t(n) * stride);
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t b = 0; b < stride; ++b) w[size_t(i) * stride + b] = uint8_t(b < (k + 1) / 2 ? byte(rng) : gsd(rng));
    return w;
}

// k = 3, one channel: weights {1, -2, 7} (bytes 0xE1, 0x07), group scale 2, x {1, 2, 3}:
// 2 x (1 - 4 + 21) = 36, times 0.5 (multiplier 2^30, shift 0) = 18.
TEST(MatmulW4A8, ByHand)
{
    const int8_t x[3] = {1, 2, 3};
    const uint8_t w[3] = {0xE1, 0x07, 2};
    const int32_t m = 1 << 30;
    const int8_t shift = 0;
    int8_t y = 0;
    ASSERT_EQ(tsr_w4_row_bytes(3), 3u);
    tsr_matmul_w4a8_args a = {x, w, &m, &shift, &y, 0, 0, 1, 3, 1, 1};
    ASSERT_EQ(tsr_matmul_w4a8_ref(&a, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(y, 18);
    y = 0;
    ASSERT_EQ(tsr_matmul_w4a8(&a, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(y, 18);
    // A zero point of 1: (0, 1, 2) . (1, -2, 7) = 12, times 2 and 0.5: 12; plus y_zero 5.
    a.x_zero = 1;
    a.y_zero = 5;
    ASSERT_EQ(tsr_matmul_w4a8_ref(&a, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(y, 17);
    a.k = 2049; // beyond the accumulator's range
    EXPECT_EQ(tsr_matmul_w4a8(&a, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

// The optimized kernel gives the reference's bits for every k (whole and partial
// groups, odd k), zero point, row count and split over cores.
TEST(MatmulW4A8, OptimizedIsTheReferenceBitForBit)
{
    std::mt19937 rng(20);
    std::uniform_int_distribution<int> i8(-128, 127);
    for (uint32_t k : {1u, 2u, 31u, 32u, 33u, 64u, 172u, 256u, 2048u})
        for (uint32_t rows : {1u, 3u}) {
            const uint32_t n = 7;
            std::vector<int8_t> x(size_t(rows) * k);
            for (auto &v : x) v = int8_t(i8(rng));
            const std::vector<uint8_t> w = random_w4_rows(rng, n, k);
            std::vector<int32_t> m(n);
            std::vector<int8_t> sh(n);
            for (uint32_t i = 0; i < n; ++i) {
                m[i] = (1 << 30) + int32_t(rng() % (1u << 30));
                sh[i] = int8_t(-int(rng() % 20) - 8);
            }
            const int32_t xz = i8(rng), yz = i8(rng);
            std::vector<int8_t> want(size_t(rows) * n), got(size_t(rows) * n);
            tsr_matmul_w4a8_args a = {x.data(), w.data(), m.data(), sh.data(), want.data(), xz, yz, rows, k, n, n};
            ASSERT_EQ(tsr_matmul_w4a8_ref(&a, 0, 1), TSR_KERNEL_OK);
            a.y = got.data();
            for (uint32_t core = 0; core < 3; ++core) ASSERT_EQ(tsr_matmul_w4a8(&a, core, 3), TSR_KERNEL_OK);
            EXPECT_EQ(got, want) << "k " << k << ", rows " << rows;
        }
}

// The W4A8 classifier (fp32 out): the by-hand row above, 36 times its scale 0.5; the
// optimized kernel gives the reference's bits on any k, rows and core split.
TEST(MatmulW4A8F32, ByHandAndOptimizedIsTheReference)
{
    const int8_t x1[3] = {1, 2, 3};
    const uint8_t w1[3] = {0xE1, 0x07, 2};
    const float half = 0.5f;
    float y1 = 0;
    tsr_matmul_w4a8_f32_args one = {x1, w1, &half, &y1, 1, 3, 1, 1};
    ASSERT_EQ(tsr_matmul_w4a8_f32_ref(&one, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(y1, 18.0f);
    y1 = 0;
    ASSERT_EQ(tsr_matmul_w4a8_f32(&one, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(y1, 18.0f);
    one.k = 2049;
    EXPECT_EQ(tsr_matmul_w4a8_f32(&one, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    std::mt19937 rng(21);
    std::uniform_int_distribution<int> i8(-128, 127);
    std::uniform_real_distribution<float> sd(1e-4f, 1e-2f);
    for (uint32_t k : {1u, 33u, 64u, 288u, 2048u})
        for (uint32_t rows : {1u, 2u}) {
            const uint32_t n = 9;
            std::vector<int8_t> x(size_t(rows) * k);
            for (auto &v : x) v = int8_t(i8(rng));
            const std::vector<uint8_t> w = random_w4_rows(rng, n, k);
            std::vector<float> sc(n);
            for (auto &v : sc) v = sd(rng);
            std::vector<float> want(size_t(rows) * n), got(size_t(rows) * n);
            tsr_matmul_w4a8_f32_args a = {x.data(), w.data(), sc.data(), want.data(), rows, k, n, n};
            ASSERT_EQ(tsr_matmul_w4a8_f32_ref(&a, 0, 1), TSR_KERNEL_OK);
            a.y = got.data();
            for (uint32_t core = 0; core < 2; ++core) ASSERT_EQ(tsr_matmul_w4a8_f32(&a, core, 2), TSR_KERNEL_OK);
            EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float))) << "k " << k;
        }
}

// ---- embedding from a table shared with the classifier ---------------------------------

// int8 rows at factor 0.5 (multiplier 2^30, shift 0), rounding half up: 127 -> 63.5 -> 64,
// -64 -> -32, 1 -> 0.5 -> 1, 0 -> 0.
TEST(EmbedRowI8, Int8RowByHand)
{
    int8_t y[4] = {127, -64, 1, 0};
    const tsr_embed_row_i8_args a = {y, nullptr, 1 << 30, 0, 4, 0};
    ASSERT_EQ(tsr_embed_row_i8(&a), TSR_KERNEL_OK);
    EXPECT_EQ(std::vector<int8_t>(y, y + 4), (std::vector<int8_t>{64, -32, 1, 0}));
}

// A W4 row in place: weights {1, -2, 7} (bytes 0xE1, 0x07), group scale 2, factor 0.25
// (multiplier 2^30, shift -1): 0.5 -> 1, -1, 3.5 -> 4.
TEST(EmbedRowI8, W4RowInPlaceByHand)
{
    int8_t y[3] = {int8_t(0xE1), 0x07, 99};
    const uint8_t gs[1] = {2};
    const tsr_embed_row_i8_args a = {y, gs, 1 << 30, -1, 3, 1};
    ASSERT_EQ(tsr_embed_row_i8(&a), TSR_KERNEL_OK);
    EXPECT_EQ(std::vector<int8_t>(y, y + 3), (std::vector<int8_t>{1, -1, 4}));
}

// Every element of wide W4 rows expanded in place equals the exact requantization of its
// weight times its group's scale, computed from an untouched copy of the row.
TEST(EmbedRowI8, W4RowsInPlaceEqualExactArithmetic)
{
    std::mt19937 rng(22);
    std::uniform_int_distribution<int> byte(0, 255), gsd(1, 255);
    for (uint32_t dim : {32u, 64u, 288u, 768u, 2048u}) {
        const uint32_t half = (dim + 1) / 2, G = (dim + 31) / 32;
        std::vector<uint8_t> row(half), gs(G);
        for (auto &b : row) b = uint8_t(byte(rng));
        for (auto &g : gs) g = uint8_t(gsd(rng));
        int32_t m, s;
        quantize_multiplier(0.013 + 0.001 * (dim % 7), &m, &s);
        std::vector<int8_t> y(dim, 0);
        std::memcpy(y.data(), row.data(), half);
        const tsr_embed_row_i8_args a = {y.data(), gs.data(), m, s, dim, 1};
        ASSERT_EQ(tsr_embed_row_i8(&a), TSR_KERNEL_OK);
        for (uint32_t j = 0; j < dim; ++j) {
            const uint32_t nib = (j & 1) ? row[j / 2] >> 4 : row[j / 2] & 15u;
            const int32_t w = int32_t(nib) - int32_t((nib & 8u) << 1);
            const int64_t want = std::clamp<int64_t>(exact_requantize(w * gs[j / 32], m, s), -128, 127);
            ASSERT_EQ(y[j], want) << "dim " << dim << ", element " << j;
        }
    }
    int8_t y[4] = {};
    tsr_embed_row_i8_args bad = {y, nullptr, 1 << 30, 0, 4, 1}; // W4 without its group scales
    EXPECT_EQ(tsr_embed_row_i8(&bad), TSR_KERNEL_BAD_ARGUMENT);
    bad.w4 = 0;
    bad.multiplier = 5; // below 2^30
    EXPECT_EQ(tsr_embed_row_i8(&bad), TSR_KERNEL_BAD_ARGUMENT);
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
        const bool both = tsr_matmul_i8_ref(&a, 0, 1) == TSR_KERNEL_BAD_ARGUMENT && tsr_matmul_i8(&a, 0, 1) == TSR_KERNEL_BAD_ARGUMENT;
        a.flags = TSR_MATMUL_I8_TABLES_CHECKED | TSR_MATMUL_I8_SHIFTS_FAST; // the portable kernels check every call
        return both && tsr_matmul_i8(&a, 0, 1) == TSR_KERNEL_BAD_ARGUMENT;
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

// The check a caller makes once (the runtime: at open), and what it reports.
TEST(MatmulI8, TablesCheckedOnceSayWhetherEveryShiftIsFast)
{
    std::vector<int32_t> m = {0, 1 << 30, 0x7FFFFFFF, 1 << 30};
    std::vector<int8_t> s = {-31, -2, -9, -2};
    std::vector<int32_t> bias = {1 << 26, -(1 << 26), 0, 5};
    uint32_t flags = 0;
    ASSERT_TRUE(tsr_matmul_i8_tables_ok(m.data(), s.data(), bias.data(), 4, &flags));
    EXPECT_EQ(flags, TSR_MATMUL_I8_TABLES_CHECKED | TSR_MATMUL_I8_SHIFTS_FAST);
    s[3] = -1; // a scale of 1/2 or more somewhere: checked, not fast
    ASSERT_TRUE(tsr_matmul_i8_tables_ok(m.data(), s.data(), nullptr, 4, &flags));
    EXPECT_EQ(flags, TSR_MATMUL_I8_TABLES_CHECKED);
    flags = 0;
    EXPECT_FALSE(tsr_matmul_i8_tables_ok(m.data(), s.data(), bias.data(), 3, nullptr));
    bias[1] = -(1 << 26) - 1;
    EXPECT_FALSE(tsr_matmul_i8_tables_ok(m.data(), s.data(), bias.data(), 4, &flags));
    m[2] = -1;
    EXPECT_FALSE(tsr_matmul_i8_tables_ok(m.data(), s.data(), nullptr, 4, &flags));
    m[2] = 1 << 30, s[0] = 31;
    EXPECT_FALSE(tsr_matmul_i8_tables_ok(m.data(), s.data(), nullptr, 4, &flags));
    EXPECT_EQ(flags, 0u); // untouched when refused
}

} // namespace

namespace {

std::vector<uint16_t> softmax_i8(const std::vector<int8_t> &x, double scale, bool optimized)
{
    tsr_softmax_i8_args a{x.data(), nullptr, uint32_t(x.size()), {}};
    EXPECT_EQ(tsr_iexp_constants_for(scale, &a.constants), 1);
    std::vector<uint16_t> y(x.size());
    a.y = y.data();
    std::vector<uint32_t> scratch(tsr_softmax_i8_scratch_bytes(&a) / 4);
    EXPECT_EQ(optimized ? tsr_softmax_i8(&a, scratch.data()) : tsr_softmax_i8_ref(&a, scratch.data()), TSR_KERNEL_OK);
    return y;
}

// The largest |y / 256 - softmax(scale * x)| over random rows.
double worst_error(double scale, uint32_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    double worst = 0;
    for (int t = 0; t < 50; ++t) {
        std::vector<int8_t> x(n);
        for (auto &v : x) v = int8_t(int32_t(rng() % 256) - 128);
        const std::vector<uint16_t> y = softmax_i8(x, scale, false);
        double top = -1e9, sum = 0;
        for (int8_t v : x) top = std::max(top, scale * v);
        for (int8_t v : x) sum += std::exp(scale * v - top);
        for (uint32_t i = 0; i < n; ++i)
            worst = std::max(worst, std::fabs(y[i] / 4096.0 - std::exp(scale * x[i] - top) / sum));
    }
    return worst;
}

TEST(SoftmaxI8, ByHand)
{
    EXPECT_EQ(softmax_i8({5}, 0.1, false), std::vector<uint16_t>{4096}); // 1
    EXPECT_EQ(softmax_i8({7, 7}, 0.1, true), (std::vector<uint16_t>{2048, 2048}));
    // Scale 0.25: scores 0 and -8 are 2 apart, softmax 1 / (1 + e^-2) = 0.8808 and 0.1192,
    // 3607.8 and 488.2 in 4096ths.
    const auto y = softmax_i8({0, -8}, 0.25, false);
    EXPECT_NEAR(y[0], 3607.8, 8.0);
    EXPECT_NEAR(y[1], 488.2, 8.0);
}

TEST(SoftmaxI8, CloseToDoublePrecisionAtTheScalesAttentionUses)
{
    // Output step 1/4096, plus I-BERT's polynomial error.
    for (double scale : {1.0 / 2048, 1.0 / 256, 0.01, 0.03, 0.06, 0.1, 0.25, 1.0, 8.0})
        for (uint32_t n : {1u, 2u, 8u, 37u, 256u}) EXPECT_LE(worst_error(scale, n, n), 0.003) << scale << " n " << n;
}

TEST(SoftmaxI8, OptimizedIsTheReferenceBitForBit)
{
    std::mt19937 rng(9);
    for (double scale : {1.0 / 2048, 1.0 / 256, 0.02, 0.1, 0.5, 15.9})
        for (uint32_t n : {1u, 2u, 3u, 31u, 256u, 1024u}) {
            std::vector<int8_t> x(n);
            for (auto &v : x) v = int8_t(int32_t(rng() % 256) - 128);
            EXPECT_EQ(softmax_i8(x, scale, true), softmax_i8(x, scale, false)) << scale << " n " << n;
        }
}

// The table of exponentials (tsr_softmax_i8_exp_table) by hand at u = 0 and against the
// integer exponential's definition, and the softmax reading it against the one computing, at
// every scale range's end and between.
TEST(SoftmaxI8, ExpTableGivesTheComputedProbabilities)
{
    std::mt19937 rng(31);
    for (double scale : {1.0 / 2048, 1.0 / 256, 0.02, 0.1, 0.5, 15.9}) {
        tsr_iexp_constants k{};
        ASSERT_EQ(tsr_iexp_constants_for(scale, &k), 1);
        uint32_t exps[TSR_SOFTMAX_I8_EXP_ENTRIES];
        ASSERT_EQ(tsr_softmax_i8_exp_table(&k, exps), TSR_KERNEL_OK);
        ASSERT_EQ(tsr_softmax_i8_exp_table_ok(exps), 1);
        // u = 0: t = b, z = 0: (b^2 + c) / 64.
        EXPECT_EQ(exps[0], (uint32_t(k.b) * uint32_t(k.b) + uint32_t(k.c)) >> 6) << scale;
        for (uint32_t u = 1; u < TSR_SOFTMAX_I8_EXP_ENTRIES; ++u) // exp(-scale u) in e(0)'s units, within I-BERT's error
            ASSERT_NEAR(exps[u] / double(exps[0]), std::exp(-scale * u), 0.004) << scale << " u " << u;
        for (uint32_t n : {1u, 2u, 3u, 31u, 256u, 1024u}) {
            std::vector<int8_t> x(n);
            for (auto &v : x) v = int8_t(int32_t(rng() % 256) - 128);
            std::vector<uint16_t> y(n);
            std::vector<uint32_t> scratch(n);
            tsr_softmax_i8_args a{x.data(), y.data(), n, k, exps};
            ASSERT_EQ(tsr_softmax_i8(&a, scratch.data()), TSR_KERNEL_OK);
            EXPECT_EQ(y, softmax_i8(x, scale, false)) << scale << " n " << n;
        }
    }
    uint32_t exps[TSR_SOFTMAX_I8_EXP_ENTRIES] = {};
    tsr_iexp_constants k{};
    EXPECT_EQ(tsr_softmax_i8_exp_table(&k, exps), TSR_KERNEL_BAD_ARGUMENT);
    ASSERT_EQ(tsr_iexp_constants_for(0.1, &k), 1);
    EXPECT_EQ(tsr_softmax_i8_exp_table(nullptr, exps), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_softmax_i8_exp_table(&k, nullptr), TSR_KERNEL_BAD_ARGUMENT);
    // Out of the kernels' ranges: a first entry of 0 (a row's sum could be 0), an entry of 2^18.
    ASSERT_EQ(tsr_softmax_i8_exp_table(&k, exps), TSR_KERNEL_OK);
    exps[255] = 1u << 18;
    EXPECT_EQ(tsr_softmax_i8_exp_table_ok(exps), 0);
    exps[255] = 0, exps[0] = 0;
    EXPECT_EQ(tsr_softmax_i8_exp_table_ok(exps), 0);
    EXPECT_EQ(tsr_softmax_i8_exp_table_ok(nullptr), 0);
}

TEST(SoftmaxI8, RefusesArgumentsOutsideTheirRanges)
{
    std::vector<int8_t> x(1025, 1);
    std::vector<uint16_t> y(1025);
    std::vector<uint32_t> scratch(1025);
    tsr_softmax_i8_args a{x.data(), y.data(), 4, {}};
    ASSERT_EQ(tsr_iexp_constants_for(0.1, &a.constants), 1);
    EXPECT_EQ(tsr_softmax_i8(&a, scratch.data()), TSR_KERNEL_OK);
    EXPECT_EQ(tsr_iexp_constants_for(16.0, &a.constants), 0);
    EXPECT_EQ(tsr_iexp_constants_for(1.0 / 4096, &a.constants), 0);
    for (auto edit : std::vector<std::function<void(tsr_softmax_i8_args &)>>{
             [](tsr_softmax_i8_args &b) { b.n = 0; }, [](tsr_softmax_i8_args &b) { b.n = 1025; },
             [](tsr_softmax_i8_args &b) { b.constants.ln2 = 708; }, [](tsr_softmax_i8_args &b) { b.constants.b = 2772; },
             [](tsr_softmax_i8_args &b) { b.constants.shift = 15; },
             [](tsr_softmax_i8_args &b) { b.y = nullptr; }}) {
        tsr_softmax_i8_args b = a;
        ASSERT_EQ(tsr_iexp_constants_for(0.1, &b.constants), 1);
        edit(b);
        EXPECT_EQ(tsr_softmax_i8_ref(&b, scratch.data()), TSR_KERNEL_BAD_ARGUMENT);
        EXPECT_EQ(tsr_softmax_i8(&b, scratch.data()), TSR_KERNEL_BAD_ARGUMENT);
    }
    EXPECT_EQ(tsr_softmax_i8(&a, nullptr), TSR_KERNEL_BAD_ARGUMENT);
}

} // namespace

namespace {

struct Quantized {
    std::vector<int8_t> q;
    double scale;
    int32_t zero;
};

// Asymmetric int8 quantization of `v` over its own range.
Quantized quantize(const std::vector<double> &v)
{
    double lo = 0, hi = 0;
    for (double x : v) lo = std::min(lo, x), hi = std::max(hi, x);
    Quantized out{{}, (hi - lo) / 255.0, 0};
    out.zero = int32_t(std::lround(-128 - lo / out.scale));
    for (double x : v) out.q.push_back(int8_t(std::clamp<long>(std::lround(x / out.scale) + out.zero, -128, 127)));
    return out;
}

// One (row, head) of int8 attention through the kernels, the keys and values in chunks.
std::vector<int8_t> attention_i8(const Quantized &q, const Quantized &k, const Quantized &v, uint32_t count,
                                 uint32_t hs, double score_scale, double out_scale, int32_t out_zero, bool optimized,
                                 uint32_t cores, uint32_t chunk)
{
    int32_t m, s;
    std::vector<int8_t> scores(count);
    quantize_multiplier(q.scale * k.scale / std::sqrt(double(hs)) / score_scale, &m, &s);
    for (uint32_t start = 0; start < count; start += chunk) {
        const uint32_t n = std::min(chunk, count - start);
        tsr_attention_scores_i8_args a{q.q.data(), k.q.data() + start * hs, scores.data() + start, q.zero, k.zero,
                                       m, s, n, hs};
        for (uint32_t c = 0; c < cores; ++c)
            EXPECT_EQ((optimized ? tsr_attention_scores_i8 : tsr_attention_scores_i8_ref)(&a, c, cores), TSR_KERNEL_OK);
    }
    std::vector<uint16_t> probs(count);
    std::vector<uint32_t> exps(count);
    tsr_softmax_i8_args sm{scores.data(), probs.data(), count, {}};
    EXPECT_EQ(tsr_iexp_constants_for(score_scale, &sm.constants), 1);
    EXPECT_EQ((optimized ? tsr_softmax_i8 : tsr_softmax_i8_ref)(&sm, exps.data()), TSR_KERNEL_OK);
    std::vector<int32_t> acc(hs, 0);
    for (uint32_t start = 0; start < count; start += chunk) {
        const uint32_t n = std::min(chunk, count - start);
        tsr_attention_accumulate_i8_args a{probs.data() + start, v.q.data() + start * hs, acc.data(), v.zero, n, hs};
        for (uint32_t c = 0; c < cores; ++c)
            EXPECT_EQ((optimized ? tsr_attention_accumulate_i8 : tsr_attention_accumulate_i8_ref)(&a, c, cores),
                      TSR_KERNEL_OK);
    }
    std::vector<int8_t> out(hs);
    quantize_multiplier(v.scale / 4096.0 / out_scale, &m, &s);
    tsr_attention_output_i8(acc.data(), out.data(), hs, m, s, out_zero);
    return out;
}

TEST(AttentionI8, OneHeadCloseToDoublePrecision)
{
    std::mt19937 rng(21);
    std::normal_distribution<double> normal(0.0, 1.0);
    for (uint32_t count : {1u, 9u, 64u, 200u})
        for (uint32_t hs : {8u, 16u}) {
            std::vector<double> qd(hs), kd(count * hs), vd(count * hs);
            for (auto &x : qd) x = 2.0 * normal(rng);
            for (auto &x : kd) x = 2.0 * normal(rng);
            for (auto &x : vd) x = normal(rng);
            const Quantized q = quantize(qd), k = quantize(kd), v = quantize(vd);
            // The reference works on what the kernels are given: the dequantized inputs.
            for (uint32_t d = 0; d < hs; ++d) qd[d] = q.scale * (q.q[d] - q.zero);
            for (uint32_t i = 0; i < count * hs; ++i)
                kd[i] = k.scale * (k.q[i] - k.zero), vd[i] = v.scale * (v.q[i] - v.zero);
            std::vector<double> p(count), want(hs, 0.0);
            double top = -1e300, sum = 0, range = 0;
            for (uint32_t t = 0; t < count; ++t) {
                for (uint32_t d = 0; d < hs; ++d) p[t] += qd[d] * kd[t * hs + d];
                p[t] /= std::sqrt(double(hs));
                top = std::max(top, p[t]);
                range = std::max(range, std::fabs(p[t]));
            }
            for (auto &x : p) sum += (x = std::exp(x - top));
            for (uint32_t t = 0; t < count; ++t)
                for (uint32_t d = 0; d < hs; ++d) want[d] += p[t] / sum * vd[t * hs + d];
            // The scores' scale from their range, as calibration sets it; outputs within +-2.
            const double score_scale = range / 127, out_scale = 4.0 / 255;
            const auto got = attention_i8(q, k, v, count, hs, score_scale, out_scale, 0, false, 1, 16);
            double worst = 0;
            for (uint32_t d = 0; d < hs; ++d) worst = std::max(worst, std::fabs(got[d] * out_scale - want[d]));
            // Budget: scores rounded to scale / 2 (about 0.05 here) change each weight by up to
            // 5 %, on values of about 1; outputs rounded to 1 / 127.
            EXPECT_LE(worst, 0.08) << count << " positions, head size " << hs;
        }
}

TEST(AttentionI8, OptimizedIsTheReferenceBitForBitOnAnyCoreCountAndChunking)
{
    std::mt19937 rng(4);
    auto random_q = [&](size_t n) {
        Quantized x{std::vector<int8_t>(n), 0.05 + (rng() % 100) / 1000.0, int32_t(rng() % 256) - 128};
        for (auto &v : x.q) v = int8_t(int32_t(rng() % 256) - 128);
        return x;
    };
    for (uint32_t count : {1u, 5u, 33u, 256u})
        for (uint32_t hs : {1u, 4u, 8u, 16u, 64u}) { // 4, 8, 16: the unrolled loops
            const Quantized q = random_q(hs), k = random_q(count * hs), v = random_q(count * hs);
            const auto want = attention_i8(q, k, v, count, hs, 0.1, 0.02, 3, false, 1, count);
            for (uint32_t cores : {1u, 3u, 8u})
                for (uint32_t chunk : {1u, 7u, 64u}) {
                    EXPECT_EQ(attention_i8(q, k, v, count, hs, 0.1, 0.02, 3, true, cores, chunk), want)
                        << count << "x" << hs << " cores " << cores << " chunk " << chunk;
                    EXPECT_EQ(attention_i8(q, k, v, count, hs, 0.1, 0.02, 3, false, cores, chunk), want);
                }
        }
}

TEST(AttentionI8, RefusesArgumentsOutsideTheirRanges)
{
    int8_t q[4] = {}, keys[8] = {}, scores[2];
    tsr_attention_scores_i8_args s{q, keys, scores, 0, 0, 1 << 30, 0, 2, 4};
    EXPECT_EQ(tsr_attention_scores_i8(&s, 0, 1), TSR_KERNEL_OK);
    for (auto edit : std::vector<std::function<void(tsr_attention_scores_i8_args &)>>{
             [](auto &a) { a.keys = nullptr; }, [](auto &a) { a.count = 0; }, [](auto &a) { a.head_size = 1025; },
             [](auto &a) { a.k_zero = -129; }, [](auto &a) { a.multiplier = 5; }, [](auto &a) { a.shift = 31; }}) {
        tsr_attention_scores_i8_args b = s;
        edit(b);
        EXPECT_EQ(tsr_attention_scores_i8(&b, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
        EXPECT_EQ(tsr_attention_scores_i8_ref(&b, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    }
    uint16_t probs[2] = {};
    int32_t acc[4] = {};
    tsr_attention_accumulate_i8_args a{probs, keys, acc, 0, 2, 4};
    EXPECT_EQ(tsr_attention_accumulate_i8(&a, 1, 2), TSR_KERNEL_OK);
    for (auto edit : std::vector<std::function<void(tsr_attention_accumulate_i8_args &)>>{
             [](auto &b) { b.acc = nullptr; }, [](auto &b) { b.count = 1025; }, [](auto &b) { b.v_zero = 128; }}) {
        tsr_attention_accumulate_i8_args b = a;
        edit(b);
        EXPECT_EQ(tsr_attention_accumulate_i8(&b, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
        EXPECT_EQ(tsr_attention_accumulate_i8_ref(&b, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    }
    EXPECT_EQ(tsr_attention_accumulate_i8(&a, 2, 2), TSR_KERNEL_BAD_ARGUMENT);
    // 256 int8 scores, 256 uint16 probabilities, 256 uint32 exponentials, 8 int32 accumulators;
    // a context of 5: 5 -> 8, 10 -> 12, 20, 3 x 4.
    const tsr_attention_i8_layout l = tsr_attention_i8_scratch_layout(256, 8);
    EXPECT_EQ(l.probs, 256u);
    EXPECT_EQ(l.exps, 768u);
    EXPECT_EQ(l.acc, 1792u);
    EXPECT_EQ(tsr_attention_i8_scratch_bytes(256, 8), 1824u);
    EXPECT_EQ(tsr_attention_i8_scratch_bytes(5, 3), 8u + 12u + 20u + 12u);
}

} // namespace

namespace {

TEST(RmsNormI8, CloseToDoublePrecision)
{
    std::mt19937 rng(12);
    for (uint32_t dim : {1u, 8u, 64u, 172u, 4096u}) {
        const uint32_t rows = 3;
        std::vector<int8_t> x(rows * dim), g(dim);
        for (auto &v : x) v = int8_t(int32_t(rng() % 256) - 128);
        for (auto &v : g) v = int8_t(int32_t(rng() % 255) - 127);
        const double sx = 0.05, sg = 0.01, sy = 3.0 / 127, eps = 1e-5;
        const int32_t xz = 7, yz = -3;
        tsr_rmsnorm_i8_args a{x.data(), g.data(), nullptr, xz, yz, uint32_t(std::lround(256 * eps / (sx * sx))), 0, 0,
                              rows, dim};
        double gain = 16 * sg / sy;
        while (gain < (1 << 14)) gain *= 2, ++a.gain_shift;
        a.gain = int32_t(std::lround(gain));
        std::vector<int8_t> y(rows * dim);
        a.y = y.data();
        for (uint32_t c = 0; c < 2; ++c) ASSERT_EQ(tsr_rmsnorm_i8(&a, c, 2), TSR_KERNEL_OK);
        for (uint32_t r = 0; r < rows; ++r) {
            double ms = 0;
            for (uint32_t i = 0; i < dim; ++i) ms += std::pow(sx * (x[r * dim + i] - xz), 2) / dim;
            for (uint32_t i = 0; i < dim; ++i) {
                const double want = std::clamp(
                    yz + sg * g[i] * sx * (x[r * dim + i] - xz) / std::sqrt(ms + eps) / sy, -128.0, 127.0);
                // The RMS to 1/16 of a step (at least 1/(16 x 255) relative here), then one rounding.
                ASSERT_LE(std::fabs(y[r * dim + i] - want), 1.5) << "dim " << dim << " row " << r << " i " << i;
            }
        }
    }
    tsr_rmsnorm_i8_args bad{};
    EXPECT_EQ(tsr_rmsnorm_i8(&bad, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

TEST(SwigluI8, IntegerSiluCloseToDoublePrecision)
{
    std::mt19937 rng(13);
    const double sg = 0.05, su = 0.02, sy = 0.02; // gate within +-6.4, up within +-2.5
    tsr_swiglu_i8_args a{};
    a.gate_zero = 5, a.up_zero = -2, a.y_zero = 1;
    ASSERT_EQ(tsr_iexp_constants_for(sg, &a.constants), 1);
    quantize_multiplier(sg * su / (16 * sy), &a.multiplier, &a.shift);
    std::vector<int8_t> gate(256), up(256), y(256);
    for (int i = 0; i < 256; ++i) gate[size_t(i)] = int8_t(i - 128), up[size_t(i)] = int8_t(int32_t(rng() % 256) - 128);
    a.gate = gate.data(), a.up = up.data(), a.y = y.data(), a.count = 256;
    for (uint32_t c = 0; c < 3; ++c) ASSERT_EQ(tsr_swiglu_i8(&a, c, 3), TSR_KERNEL_OK);
    double worst = 0;
    for (int i = 0; i < 256; ++i) {
        const double g = sg * (gate[size_t(i)] - a.gate_zero), u = su * (up[size_t(i)] - a.up_zero);
        const double want = std::clamp(a.y_zero + g / (1 + std::exp(-g)) * u / sy, -128.0, 127.0);
        worst = std::max(worst, std::fabs(y[size_t(i)] - want));
    }
    EXPECT_LE(worst, 1.5) << "in output steps";
    a.constants.ln2 = 1;
    EXPECT_EQ(tsr_swiglu_i8(&a, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

// The table of silu16 (tsr_swiglu_i8_silu_table) against the double-precision g sigmoid(g)
// in 1/16ths of the gate's scale, and the kernel reading it against the kernel computing,
// every gate value, at several scales and zero points.
TEST(SwigluI8, SiluTableGivesTheComputedOutputs)
{
    std::mt19937 rng(29);
    for (const double sg : {0.002, 0.05, 0.3, 2.0})
        for (const int32_t gz : {0, 5, -128, 127}) {
            tsr_swiglu_i8_args a{};
            a.gate_zero = gz, a.up_zero = -3, a.y_zero = 2;
            ASSERT_EQ(tsr_iexp_constants_for(sg, &a.constants), 1);
            quantize_multiplier(sg * 0.02 / (16 * 0.03), &a.multiplier, &a.shift);
            int16_t table[TSR_SWIGLU_I8_SILU_ENTRIES];
            ASSERT_EQ(tsr_swiglu_i8_silu_table(&a.constants, gz, table), TSR_KERNEL_OK);
            for (int32_t v = -128; v < 128; ++v) {
                const double g = v - gz, want = 16 * g / (1 + std::exp(-sg * g));
                // The integer exponential's error, scaled by 16 |g| (at most 4080), plus a rounding.
                ASSERT_LE(std::fabs(table[v + 128] - want), 0.5 + 16 * std::fabs(g) * 0.01) << sg << " " << gz << " " << v;
            }
            std::vector<int8_t> gate(1024), up(1024), computed(1024), looked_up(1024);
            for (size_t i = 0; i < gate.size(); ++i)
                gate[i] = int8_t(int32_t(i % 256) - 128), up[i] = int8_t(int32_t(rng() % 256) - 128);
            a.gate = gate.data(), a.up = up.data(), a.count = uint32_t(gate.size());
            a.y = computed.data();
            for (uint32_t c = 0; c < 3; ++c) ASSERT_EQ(tsr_swiglu_i8(&a, c, 3), TSR_KERNEL_OK);
            a.y = looked_up.data(), a.silu16 = table;
            for (uint32_t c = 0; c < 3; ++c) ASSERT_EQ(tsr_swiglu_i8(&a, c, 3), TSR_KERNEL_OK);
            ASSERT_EQ(looked_up, computed) << sg << " " << gz;
        }
    tsr_iexp_constants k{};
    int16_t table[TSR_SWIGLU_I8_SILU_ENTRIES];
    EXPECT_EQ(tsr_swiglu_i8_silu_table(&k, 0, table), TSR_KERNEL_BAD_ARGUMENT);
    ASSERT_EQ(tsr_iexp_constants_for(0.05, &k), 1);
    EXPECT_EQ(tsr_swiglu_i8_silu_table(&k, 128, table), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_swiglu_i8_silu_table(&k, 0, nullptr), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_swiglu_i8_silu_table(nullptr, 0, table), TSR_KERNEL_BAD_ARGUMENT);
}

} // namespace

namespace {

TEST(RopeI8, ByHandAndAgainstDoublePrecision)
{
    // One head of 2: (100, -50) turned by 90 degrees (cos 0, sin 1 in Q14) is (50, 100).
    int8_t q[2] = {100, -50}, k[2] = {10, 20};
    const int16_t table[2] = {0, 16384};
    ASSERT_EQ(tsr_rope_i8(q, k, table, 1, 0, 2, 2, 2, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(q[0], 50);
    EXPECT_EQ(q[1], 100);
    EXPECT_EQ(k[0], -20);
    EXPECT_EQ(k[1], 10);
    // Random pairs and angles, 3 rows at position 5, on 3 cores: within half a unit of
    // the exact rotation (Q14 cos/sin, then one rounding), saturated.
    std::mt19937 rng(7);
    const uint32_t rows = 3, dim = 8, kv = 4, hs = 4, ctx = 8;
    std::vector<int16_t> t(ctx * hs);
    std::vector<double> angle(ctx * hs / 2);
    for (size_t i = 0; i < angle.size(); ++i) {
        angle[i] = std::uniform_real_distribution<double>(-3.1, 3.1)(rng);
        t[2 * i] = int16_t(std::lround(std::cos(angle[i]) * 16384)), t[2 * i + 1] = int16_t(std::lround(std::sin(angle[i]) * 16384));
    }
    std::vector<int8_t> qs(rows * dim), ks(rows * kv);
    for (auto &v : qs) v = int8_t(int(rng() % 255) - 127);
    for (auto &v : ks) v = int8_t(int(rng() % 255) - 127);
    std::vector<int8_t> q2 = qs, k2 = ks;
    for (uint32_t c = 0; c < 3; ++c) ASSERT_EQ(tsr_rope_i8(q2.data(), k2.data(), t.data(), rows, 5, dim, kv, hs, c, 3), TSR_KERNEL_OK);
    auto check = [&](const std::vector<int8_t> &in, const std::vector<int8_t> &out, uint32_t width) {
        for (uint32_t r = 0; r < rows; ++r)
            for (uint32_t i = 0; i < width; i += 2) {
                const size_t a = (5 + r) * hs / 2 + (i % hs) / 2;
                const double c = t[2 * a] / 16384.0, s = t[2 * a + 1] / 16384.0, v0 = in[r * width + i], v1 = in[r * width + i + 1];
                const double y0 = std::clamp(v0 * c - v1 * s, -128.0, 127.0), y1 = std::clamp(v0 * s + v1 * c, -128.0, 127.0);
                EXPECT_LE(std::abs(out[r * width + i] - y0), 0.5 + 1e-9);
                EXPECT_LE(std::abs(out[r * width + i + 1] - y1), 0.5 + 1e-9);
            }
    };
    check(qs, q2, dim);
    check(ks, k2, kv);
    EXPECT_EQ(tsr_rope_i8(q, k, table, 1, 0, 2, 4, 2, 0, 1), TSR_KERNEL_BAD_ARGUMENT); // kv_dim above dim
}

TEST(AddI8, EachInputToTheOutputScaleThenSaturated)
{
    // a in scale 0.5, b in scale 0.25, y in scale 1: y = round(a / 2) + round(b / 4).
    int32_t ma, sa, mb, sb;
    quantize_multiplier(0.5, &ma, &sa);
    quantize_multiplier(0.25, &mb, &sb);
    const int8_t a[4] = {10, -10, 127, 3}, b[4] = {8, 7, 127, -2};
    int8_t y[4];
    const tsr_add_i8_args args = {a, b, y, ma, sa, mb, sb, 4};
    ASSERT_EQ(tsr_add_i8(&args, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(y[0], 5 + 2);
    EXPECT_EQ(y[1], -5 + 2);  // 7 / 4 = 1.75 -> 2
    EXPECT_EQ(y[2], 64 + 32); // 63.5 -> 64, 31.75 -> 32
    EXPECT_EQ(y[3], 2 + 0);   // 1.5 -> 2 (half up), -0.5 -> 0 (half up)
    tsr_add_i8_args bad = args;
    bad.a_multiplier = 5; // not 0 nor in [2^30, 2^31)
    EXPECT_EQ(tsr_add_i8(&bad, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

} // namespace
