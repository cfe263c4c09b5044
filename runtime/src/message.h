// A fixed-capacity text builder for error messages: no heap, no stdio, truncates.
#ifndef TESSERA_MESSAGE_H
#define TESSERA_MESSAGE_H

#include <stdint.h>

namespace tsr {

class Message {
public:
    Message(char *buffer, uint32_t capacity) : buf_(buffer), cap_(capacity), len_(0)
    {
        if (cap_) buf_[0] = '\0';
    }
    Message &str(const char *s)
    {
        while (s && *s) put(*s++);
        return *this;
    }
    Message &num(uint64_t v)
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
    Message &hex(uint32_t v)
    {
        str("0x");
        for (int shift = 28; shift >= 0; shift -= 4) put("0123456789abcdef"[(v >> shift) & 15u]);
        return *this;
    }
    const char *c_str() const { return cap_ ? buf_ : ""; }

private:
    void put(char c)
    {
        if (len_ + 1 < cap_) {
            buf_[len_++] = c;
            buf_[len_] = '\0';
        }
    }
    char *buf_;
    uint32_t cap_;
    uint32_t len_;
};

} // namespace tsr

#endif
