// The pulp-rtl board's integer sqrtf (boards/pulp-rtl/src/sqrtf_integer.c) against the
// host's sqrtf (IEEE 754: correctly rounded), bit for bit: every exponent with
// mantissas at and near both ends, a million random bit patterns, and the special values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

extern "C" float tsr_sqrtf_integer(float x);

namespace {

uint32_t bits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

float from_bits(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

void expect_same(uint32_t input)
{
    const float x = from_bits(input);
    const float want = std::sqrt(x);
    const float got = tsr_sqrtf_integer(x);
    if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << std::hex << "input 0x" << input;
        return;
    }
    EXPECT_EQ(bits(got), bits(want)) << std::hex << "input 0x" << input;
}

TEST(SqrtfInteger, EveryExponentAtAndNearTheMantissasEnds)
{
    for (uint32_t exponent = 0; exponent < 255; ++exponent) {
        for (uint32_t m = 0; m < 64; ++m) {
            expect_same((exponent << 23) | m);
            expect_same((exponent << 23) | (0x7FFFFFu - m));
            expect_same((exponent << 23) | (0x400000u + m));
        }
    }
}

TEST(SqrtfInteger, RandomBitPatterns)
{
    std::mt19937 rng(12345);
    for (int i = 0; i < 1000000; ++i) {
        expect_same(rng() & 0x7FFFFFFFu);
    }
}

TEST(SqrtfInteger, SpecialValues)
{
    EXPECT_EQ(bits(tsr_sqrtf_integer(0.0f)), 0u);
    EXPECT_EQ(bits(tsr_sqrtf_integer(-0.0f)), 0x80000000u);
    EXPECT_EQ(bits(tsr_sqrtf_integer(INFINITY)), 0x7F800000u);
    EXPECT_TRUE(std::isnan(tsr_sqrtf_integer(-INFINITY)));
    EXPECT_TRUE(std::isnan(tsr_sqrtf_integer(-1.0f)));
    EXPECT_TRUE(std::isnan(tsr_sqrtf_integer(-1e-45f)));
    EXPECT_TRUE(std::isnan(tsr_sqrtf_integer(NAN)));
    EXPECT_EQ(tsr_sqrtf_integer(4.0f), 2.0f);
    EXPECT_EQ(tsr_sqrtf_integer(1.0f), 1.0f);
}

} // namespace
