#include <gtest/gtest.h>

#include <cstring>
#include <vector>

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

TEST(Crc32, PartsSummedApartCombineIntoTheWhole)
{
    // crc(A B) from crc(A), crc(B) and B's length, for every split of a buffer (empty parts
    // too), and for three parts of a longer one.
    std::vector<uint8_t> data(1031);
    uint32_t seed = 7;
    for (auto &b : data) b = uint8_t((seed = seed * 1103515245u + 12345u) >> 24);
    const uint32_t whole = tsr_crc32(0, data.data(), data.size());
    for (size_t split = 0; split <= data.size(); split += split < 16 ? 1 : 97) {
        const uint32_t a = tsr_crc32(0, data.data(), split), b = tsr_crc32(0, data.data() + split, data.size() - split);
        EXPECT_EQ(tsr_crc32_combine(a, b, data.size() - split), whole) << "split at " << split;
    }
    const uint32_t p0 = tsr_crc32(0, data.data(), 300), p1 = tsr_crc32(0, data.data() + 300, 400),
                   p2 = tsr_crc32(0, data.data() + 700, data.size() - 700);
    EXPECT_EQ(tsr_crc32_combine(tsr_crc32_combine(p0, p1, 400), p2, data.size() - 700), whole);
    EXPECT_EQ(tsr_crc32_combine(0x414FA339u, 0u, 0u), 0x414FA339u); // an empty second part
}
