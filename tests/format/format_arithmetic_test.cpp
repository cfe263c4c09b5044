// The small arithmetic the format's headers give runtimes and tools, against hand values.
#include <gtest/gtest.h>

#include "tessera/image_format.h"
#include "tessera/step_geometry.h"

TEST(FormatArithmetic, ElementBytesOfEachType)
{
    EXPECT_EQ(tsr_dtype_bytes(TSR_DTYPE_F32), 4u);
    EXPECT_EQ(tsr_dtype_bytes(TSR_DTYPE_I32), 4u);
    EXPECT_EQ(tsr_dtype_bytes(TSR_DTYPE_BF16), 2u);
    EXPECT_EQ(tsr_dtype_bytes(TSR_DTYPE_I8), 1u);
    EXPECT_EQ(tsr_dtype_bytes(TSR_DTYPE_U8), 1u);
    EXPECT_EQ(tsr_dtype_bytes(TSR_DTYPE_I16), 2u);
    // No type: 0, whatever the value (an image's field is untrusted).
    for (uint32_t v : {0u, 7u, 8u, 15u, 16u, 0x80000000u, 0xFFFFFFFFu}) EXPECT_EQ(tsr_dtype_bytes(v), 0u) << v;
}

TEST(FormatArithmetic, CeilDiv)
{
    EXPECT_EQ(tsr::ceil_div(0u, 1u), 0u);
    EXPECT_EQ(tsr::ceil_div(0u, 7u), 0u);
    EXPECT_EQ(tsr::ceil_div(1u, 1u), 1u);
    EXPECT_EQ(tsr::ceil_div(5u, 1u), 5u);
    EXPECT_EQ(tsr::ceil_div(3u, 4u), 1u);
    EXPECT_EQ(tsr::ceil_div(4u, 4u), 1u);
    EXPECT_EQ(tsr::ceil_div(5u, 4u), 2u);
    EXPECT_EQ(tsr::ceil_div(64u, 7u), 10u);
    EXPECT_EQ(tsr::ceil_div(32000u, 256u), 125u);
}
