#include "message.h"

namespace tsr {

Message::Message(char *buffer, uint32_t capacity) : buf_(buffer), cap_(capacity), len_(0)
{
    if (cap_) buf_[0] = '\0';
}

Message &Message::str(const char *s)
{
    while (s && *s) put(*s++);
    return *this;
}

Message &Message::num(uint64_t v)
{
    char digits[20];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n) put(digits[--n]);
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
    if ((unsigned char)c < 0x20u || c == 0x7F) c = '?'; // a message is one line, whatever it quotes
    if (len_ + 1 < cap_) {
        buf_[len_++] = c;
        buf_[len_] = '\0';
    }
}

} // namespace tsr
