#include <gtest/gtest.h>

#include <cstring>

#include "tessera/crc32.h"

TEST(Crc32, StandardCheckValue)
{
    // The CRC-32/ISO-HDLC check value from the CRC catalogue.
    EXPECT_EQ(tsr_crc32(0, "123456789", 9), 0xCBF43926u);
    EXPECT_EQ(tsr_crc32(0, "", 0), 0u);
}

TEST(Crc32, CanBeContinued)
{
    const char *text = "The quick brown fox jumps over the lazy dog";
    const size_t n = std::strlen(text);
    EXPECT_EQ(tsr_crc32(0, text, n), 0x414FA339u);
    EXPECT_EQ(tsr_crc32(tsr_crc32(0, text, 10), text + 10, n - 10), 0x414FA339u);
}
