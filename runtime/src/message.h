// A fixed-capacity text builder for error messages: no heap, no stdio, truncates.
// Out of line on purpose: messages are built on cold paths from many call sites.
#ifndef TESSERA_MESSAGE_H
#define TESSERA_MESSAGE_H

#include <stdint.h>

namespace tsr {

class Message {
public:
    Message(char *buffer, uint32_t capacity);
    // The same, with `prefix` ("tessera_step: ") put before the first character written:
    // a message nobody writes to stays empty.
    Message(char *buffer, uint32_t capacity, const char *prefix);
    Message &str(const char *s);
    Message &num(uint64_t v);
    Message &hex(uint32_t v, uint32_t digits = 8); // "0x" and the low `digits` hex digits
    const char *c_str() const { return cap_ ? buf_ : ""; }

private:
    void put(char c);
    char *buf_;
    uint32_t cap_;
    uint32_t len_;
    const char *prefix_ = nullptr;
};

} // namespace tsr

#endif
