// The x86 AVX2 kernel set (kernels/x86) against the portable kernels, bit for bit: the
// definitions (*_ref) where there are, else the portable kernels (tested against double
// precision in kernels_i8_test). Random shapes, tails, zero points, both requantization
// forms (shifts of -2 and below, and above), core splits, and arguments out of range.
// End to end: stories260K in int8 gives the same ids with the host board's tuned kernels
// as with the portable ones. Skipped on a machine without AVX2.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <vector>

#include "support/packed_image.h"
#include "support/synthetic_model.h"
#include "tessera/kernels_x86.h"

namespace {

using namespace tessera::test;

class KernelsX86 : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!tsr_x86_avx2_available()) GTEST_SKIP() << "this machine has no AVX2";
    }
    std::mt19937 rng{20};
    int8_t i8() { return int8_t(int32_t(rng() % 256) - 128); }
    std::vector<int8_t> i8s(size_t n)
    {
        std::vector<int8_t> v(n);
        for (auto &x : v) x = i8();
        return v;
    }
    int32_t zero() { return rng() % 3 == 0 ? 0 : int32_t(rng() % 256) - 128; }
};

TEST_F(KernelsX86, MatmulI8IsTheDefinitionBitForBit)
{
    for (const auto &[rows, k, n] : std::vector<std::array<uint32_t, 3>>{
             {1, 64, 64}, {1, 64, 172}, {1, 172, 64}, {3, 16, 4}, {16, 64, 512}, {5, 33, 7}, {2, 1, 1}, {1, 3, 5}, {7, 256, 9}})
        for (uint32_t cores : {1u, 3u, 8u})
            for (int32_t shift_base : {-12, -2, -1, 3}) { // -2 and below: the vector requantization
                std::vector<int8_t> x = i8s(size_t(rows) * k), w = i8s(size_t(n) * k), shift(n);
                std::vector<int32_t> mult(n), bias(n);
                for (uint32_t i = 0; i < n; ++i) {
                    mult[i] = i % 11 == 5 ? 0 : int32_t((1u << 30) + rng() % (1u << 30));
                    shift[i] = int8_t(shift_base - int32_t(rng() % 3) + (i % 7 == 3 ? 4 : 0)); // some lanes slow
                    bias[i] = int32_t(rng() % 20001) - 10000;
                }
                const uint32_t ldy = n + 2;
                std::vector<int8_t> want(size_t(rows) * ldy, 0x5A), got = want;
                tsr_matmul_i8_args a = {x.data(), w.data(), rng() % 2 ? bias.data() : nullptr, mult.data(), shift.data(),
                                        want.data(), zero(), zero(), -128 + int32_t(rng() % 20), 127 - int32_t(rng() % 20),
                                        rows, k, n, ldy, 0};
                ASSERT_EQ(tsr_matmul_i8_ref(&a, 0, 1), TSR_KERNEL_OK);
                a.y = got.data();
                for (uint32_t c = 0; c < cores; ++c) ASSERT_EQ(tsr_matmul_i8_avx2(&a, c, cores), TSR_KERNEL_OK);
                EXPECT_EQ(got, want) << rows << "x" << k << "x" << n << " on " << cores << " cores, shifts from " << shift_base;
            }
}

TEST_F(KernelsX86, MatmulI8RefusesWhatTheDefinitionRefuses)
{
    const uint32_t n = 20, k = 8;
    std::vector<int8_t> x = i8s(k), w = i8s(n * k), shift(n, -5), y(n);
    std::vector<int32_t> mult(n, 1 << 30), bias(n, 0);
    tsr_matmul_i8_args a = {x.data(), w.data(), bias.data(), mult.data(), shift.data(), y.data(), 0, 0, -128, 127, 1, k, n, n, 0};
    ASSERT_EQ(tsr_matmul_i8_avx2(&a, 0, 1), TSR_KERNEL_OK);
    for (uint32_t i : {0u, 9u, 19u}) { // in the vector part and in the tail
        for (int32_t bad : {1, (1 << 30) - 1, -5}) {
            mult[i] = bad;
            EXPECT_EQ(tsr_matmul_i8_avx2(&a, 0, 1), TSR_KERNEL_BAD_ARGUMENT) << "multiplier " << bad << " at " << i;
            EXPECT_EQ(tsr_matmul_i8_ref(&a, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
        }
        mult[i] = 1 << 30;
        for (int32_t bad : {-32, 31}) {
            shift[i] = int8_t(bad);
            EXPECT_EQ(tsr_matmul_i8_avx2(&a, 0, 1), TSR_KERNEL_BAD_ARGUMENT) << "shift " << bad << " at " << i;
        }
        shift[i] = -5;
        for (int32_t bad : {(1 << 26) + 1, -(1 << 26) - 1}) {
            bias[i] = bad;
            EXPECT_EQ(tsr_matmul_i8_avx2(&a, 0, 1), TSR_KERNEL_BAD_ARGUMENT) << "bias " << bad << " at " << i;
        }
        bias[i] = 0;
    }
    EXPECT_EQ(tsr_matmul_i8_avx2(&a, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(tsr_matmul_i8_avx2(&a, 1, 1), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_matmul_i8_avx2(nullptr, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

TEST_F(KernelsX86, MatmulF32IsTheDefinitionBitForBit)
{
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (const auto &[rows, k, n] : std::vector<std::array<uint32_t, 3>>{
             {1, 64, 64}, {1, 64, 512}, {1, 172, 64}, {4, 64, 172}, {16, 64, 37}, {5, 33, 7}, {7, 3, 9}, {2, 1, 1}})
        for (uint32_t cores : {1u, 3u}) {
            std::vector<float> x(size_t(rows) * k), w(size_t(n) * k);
            for (auto &v : x) v = normal(rng);
            for (auto &v : w) v = normal(rng);
            const uint32_t ldy = n + 1;
            std::vector<float> want(size_t(rows) * ldy, -7.0f), got = want;
            for (uint32_t c = 0; c < cores; ++c)
                ASSERT_EQ(tsr_matmul_f32_ref(x.data(), w.data(), want.data(), rows, k, n, ldy, c, cores), TSR_KERNEL_OK);
            for (uint32_t c = 0; c < cores; ++c)
                ASSERT_EQ(tsr_matmul_f32_sse(x.data(), w.data(), got.data(), rows, k, n, ldy, c, cores), TSR_KERNEL_OK);
            EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0)
                << rows << "x" << k << "x" << n << " on " << cores << " cores";
        }
    float v = 0;
    EXPECT_EQ(tsr_matmul_f32_sse(nullptr, &v, &v, 1, 1, 1, 1, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    EXPECT_EQ(tsr_matmul_f32_sse(&v, &v, &v, 1, 1, 2, 1, 0, 1), TSR_KERNEL_BAD_ARGUMENT); // ldy < n
}

TEST_F(KernelsX86, MatmulI8F32IsTheDefinitionBitForBit)
{
    for (const auto &[rows, k, n] : std::vector<std::array<uint32_t, 3>>{{1, 64, 512}, {4, 64, 37}, {1, 17, 3}, {2, 300, 9}})
        for (uint32_t cores : {1u, 2u, 5u}) {
            std::vector<int8_t> x = i8s(size_t(rows) * k), w = i8s(size_t(n) * k);
            std::vector<float> scale(n);
            for (auto &s : scale) s = float(rng() % 10000 + 1) * 1e-7f;
            std::vector<float> want(size_t(rows) * n, -1.0f), got = want;
            tsr_matmul_i8_f32_args a = {x.data(), w.data(), scale.data(), want.data(), rows, k, n, n};
            ASSERT_EQ(tsr_matmul_i8_f32_ref(&a, 0, 1), TSR_KERNEL_OK);
            a.y = got.data();
            for (uint32_t c = 0; c < cores; ++c) ASSERT_EQ(tsr_matmul_i8_f32_avx2(&a, c, cores), TSR_KERNEL_OK);
            EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0) << rows << "x" << k << "x" << n;
        }
}

TEST_F(KernelsX86, SoftmaxI8IsTheDefinitionBitForBit)
{
    for (double scale : {1.0 / 2048, 1.0 / 256, 0.02, 0.1, 0.5, 3.0, 15.9})
        for (uint32_t n : {1u, 3u, 8u, 31u, 256u, 1024u}) {
            const std::vector<int8_t> x = i8s(n);
            std::vector<uint16_t> want(n), got(n);
            std::vector<uint32_t> e(n);
            tsr_softmax_i8_args a = {x.data(), want.data(), n, {}};
            ASSERT_EQ(tsr_iexp_constants_for(scale, &a.constants), 1);
            ASSERT_EQ(tsr_softmax_i8_ref(&a, e.data()), TSR_KERNEL_OK);
            a.y = got.data();
            ASSERT_EQ(tsr_softmax_i8_avx2(&a, e.data()), TSR_KERNEL_OK);
            EXPECT_EQ(got, want) << "scale " << scale << " n " << n;
        }
    // Every difference from the maximum, at the smallest and the largest fine scales.
    std::vector<int8_t> ramp(256);
    for (uint32_t i = 0; i < 256; ++i) ramp[i] = int8_t(int32_t(i) - 128);
    for (double scale : {1.0 / 2048, 15.9}) {
        std::vector<uint16_t> want(256), got(256);
        std::vector<uint32_t> e(256);
        tsr_softmax_i8_args a = {ramp.data(), want.data(), 256, {}};
        ASSERT_EQ(tsr_iexp_constants_for(scale, &a.constants), 1);
        ASSERT_EQ(tsr_softmax_i8_ref(&a, e.data()), TSR_KERNEL_OK);
        a.y = got.data();
        ASSERT_EQ(tsr_softmax_i8_avx2(&a, e.data()), TSR_KERNEL_OK);
        EXPECT_EQ(got, want) << "ramp at scale " << scale;
    }
    uint32_t e[2];
    uint16_t y[2];
    int8_t x[2] = {};
    tsr_softmax_i8_args bad = {x, y, 0, {}};
    EXPECT_EQ(tsr_softmax_i8_avx2(&bad, e), TSR_KERNEL_BAD_ARGUMENT);
}

TEST_F(KernelsX86, AttentionI8IsTheDefinitionBitForBit)
{
    for (uint32_t count : {1u, 7u, 8u, 33u, 256u})
        for (uint32_t hs : {4u, 8u, 16u}) // 8: vectorized; others: the portable kernels
            for (int32_t shift : {-9, -2, 1}) {
                const std::vector<int8_t> q = i8s(hs), keys = i8s(size_t(count) * hs), values = i8s(size_t(count) * hs);
                std::vector<int8_t> want(count), got(count);
                tsr_attention_scores_i8_args s = {q.data(), keys.data(), want.data(), zero(), zero(),
                                                  int32_t((1u << 30) + rng() % (1u << 30)), shift, count, hs};
                ASSERT_EQ(tsr_attention_scores_i8_ref(&s, 0, 1), TSR_KERNEL_OK);
                s.scores = got.data();
                for (uint32_t cores : {1u, 3u}) {
                    std::fill(got.begin(), got.end(), int8_t(0));
                    for (uint32_t c = 0; c < cores; ++c) ASSERT_EQ(tsr_attention_scores_i8_avx2(&s, c, cores), TSR_KERNEL_OK);
                    EXPECT_EQ(got, want) << "scores " << count << "x" << hs << " shift " << shift << " cores " << cores;
                }
                std::vector<uint16_t> probs(count);
                for (auto &p : probs) p = uint16_t(rng() % 4097);
                std::vector<int32_t> acc_want(hs, 7), acc_got(hs, 7);
                tsr_attention_accumulate_i8_args v = {probs.data(), values.data(), acc_want.data(), zero(), count, hs};
                ASSERT_EQ(tsr_attention_accumulate_i8_ref(&v, 0, 1), TSR_KERNEL_OK);
                v.acc = acc_got.data();
                ASSERT_EQ(tsr_attention_accumulate_i8_avx2(&v, 0, 1), TSR_KERNEL_OK);
                EXPECT_EQ(acc_got, acc_want) << "accumulate " << count << "x" << hs;
            }
    int8_t q[8] = {}, keys[16] = {}, scores[2];
    tsr_attention_scores_i8_args s{q, keys, scores, 0, 0, 1 << 30, 0, 2, 8};
    s.multiplier = 5;
    EXPECT_EQ(tsr_attention_scores_i8_avx2(&s, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    uint16_t p[2] = {};
    int32_t acc[8] = {};
    tsr_attention_accumulate_i8_args v{p, keys, acc, 200, 2, 8};
    EXPECT_EQ(tsr_attention_accumulate_i8_avx2(&v, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

TEST_F(KernelsX86, RmsnormAndSwigluAreThePortableKernelsBitForBit)
{
    for (uint32_t dim : {1u, 7u, 8u, 64u, 172u, 2048u})
        for (uint32_t rows : {1u, 3u}) {
            const std::vector<int8_t> x = i8s(size_t(rows) * dim), g = i8s(dim);
            std::vector<int8_t> want(x.size()), got(x.size());
            tsr_rmsnorm_i8_args a = {x.data(), g.data(), want.data(), zero(), zero(), uint32_t(rng() % 5000),
                                     int32_t((1 << 14) + rng() % (1 << 14)), int32_t(rng() % 12), rows, dim};
            ASSERT_EQ(tsr_rmsnorm_i8(&a, 0, 1), TSR_KERNEL_OK);
            a.y = got.data();
            for (uint32_t c = 0; c < 2u; ++c) ASSERT_EQ(tsr_rmsnorm_i8_avx2(&a, c, 2), TSR_KERNEL_OK);
            EXPECT_EQ(got, want) << "rmsnorm " << rows << "x" << dim;
        }
    for (uint32_t count : {1u, 8u, 13u, 172u, 1000u})
        for (double scale : {0.01, 0.05, 0.3, 2.0})
            for (int32_t shift : {-10, -2, 0}) {
                const std::vector<int8_t> gate = i8s(count), up = i8s(count);
                std::vector<int8_t> want(count), got(count);
                tsr_swiglu_i8_args a = {gate.data(), up.data(), want.data(), zero(), zero(), zero(), {},
                                        int32_t((1u << 30) + rng() % (1u << 30)), shift, count};
                ASSERT_EQ(tsr_iexp_constants_for(scale, &a.constants), 1);
                ASSERT_EQ(tsr_swiglu_i8(&a, 0, 1), TSR_KERNEL_OK);
                a.y = got.data();
                for (uint32_t c = 0; c < 3u; ++c) ASSERT_EQ(tsr_swiglu_i8_avx2(&a, c, 3), TSR_KERNEL_OK);
                EXPECT_EQ(got, want) << "swiglu " << count << " scale " << scale << " shift " << shift;
            }
    int8_t x[4] = {}, y[4];
    tsr_rmsnorm_i8_args r = {x, x, y, 0, 0, 0, 1 << 13, 0, 1, 4}; // gain below 2^14
    EXPECT_EQ(tsr_rmsnorm_i8_avx2(&r, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
    tsr_swiglu_i8_args s = {x, x, y, 0, 0, 0, {}, 1 << 30, -3, 4}; // constants of no scale
    EXPECT_EQ(tsr_swiglu_i8_avx2(&s, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

// The host board's description names x86-avx2; the same greedy ids with either set.
TEST_F(KernelsX86, Stories260KInt8GivesTheSameIdsWithEitherSet)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    auto m = open_model(stories260k_int8(shared, "host", "cluster", temp_path("x86_set.tess")), 1);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    ASSERT_EQ(m->board->isa(), uint32_t(TSR_ISA_X86_AVX2));
    const std::vector<int32_t> tuned = generate_greedy(*m, {1}, 200);
    tessera_close(&m->session);
    m->board->use_portable_kernels();
    ASSERT_EQ(tessera_open(&m->session, m->image.data(), m->image.size, m->board->hal()), TESSERA_OK);
    EXPECT_EQ(generate_greedy(*m, {1}, 200), tuned);
    EXPECT_EQ(tuned.size(), 200u); // positions 1..200 after BOS
}

} // namespace
