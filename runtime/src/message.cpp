#include "message.h"

namespace tsr {

Message::Message(char *buffer, uint32_t capacity) : buf_(buffer), cap_(capacity), len_(0)
{
    if (cap_) buf_[0] = '\0';
}

Message::Message(char *buffer, uint32_t capacity, const char *prefix) : Message(buffer, capacity)
{
    prefix_ = prefix;
}

Message &Message::str(const char *s)
{
    while (s && *s) put(*s++);
    return *this;
}

// Each digit by subtracting its power of ten: no 64-bit division, which RV32 has only
// as a library call (some 1.7 KB of libgcc in a firmware).
Message &Message::num(uint64_t v)
{
    static const uint64_t kTens[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
                                       100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
                                       1000000000000ull, 10000000000000ull, 100000000000000ull,
                                       1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
                                       1000000000000000000ull, 10000000000000000000ull};
    int i = 19;
    while (i > 0 && kTens[i] > v) --i;
    for (; i >= 0; --i) {
        char digit = '0';
        while (v >= kTens[i]) v -= kTens[i], ++digit;
        put(digit);
    }
    return *this;
}

Message &Message::hex(uint32_t v, uint32_t digits)
{
    str("0x");
    for (int shift = 4 * (int)(digits < 8u ? digits : 8u) - 4; shift >= 0; shift -= 4) put("0123456789abcdef"[(v >> shift) & 15u]);
    return *this;
}

void Message::put(char c)
{
    if (prefix_) {
        const char *p = prefix_;
        prefix_ = nullptr;
        str(p).str(": ");
    }
    if ((unsigned char)c < 0x20u || c == 0x7F) c = '?'; // a message is one line, whatever it quotes
    if (len_ + 1 < cap_) {
        buf_[len_++] = c;
        buf_[len_] = '\0';
    }
}

} // namespace tsr
