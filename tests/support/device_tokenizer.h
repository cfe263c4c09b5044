// The device tokenizer on the host: a tokenizer section built by the packer,
// validated and viewed by the runtime, with a work area sized by the packer's rule
// for `context` tokens. For tests and benchmarks of the tokenizer alone.
#ifndef TESSERA_TESTS_DEVICE_TOKENIZER_H
#define TESSERA_TESTS_DEVICE_TOKENIZER_H

#include <string>
#include <vector>

#include "../runtime/src/tokenizer.h"
#include "tessera/models/llama2c.h"

namespace tessera::test {

class DeviceTokenizer {
public:
    DeviceTokenizer(const std::string &path, uint32_t vocab, uint32_t context = 512);
    explicit DeviceTokenizer(const Vocabulary &v, uint32_t context = 512);
    tessera_status status() const { return status_; }

    // Encodes into a context-sized array. With `st`, the status goes there; without,
    // anything but TESSERA_OK fails the running test. `message` gets the error.
    std::vector<int32_t> encode(const std::string &text, bool bos = true, bool eos = false,
                                tessera_status *st = nullptr, std::string *message = nullptr);
    std::string decode(const std::vector<int32_t> &ids) const;
    const tsr::TokenizerView &view() const { return view_; }
    const Vocabulary &vocab() const { return vocab_; }

private:
    Vocabulary vocab_;
    uint32_t context_;
    std::vector<uint32_t> storage_, work_;
    tsr::TokenizerView view_{};
    tessera_status status_;
    char merge_[2 * TSR_MAX_TOKEN_BYTES + 4];
};

} // namespace tessera::test

#endif
