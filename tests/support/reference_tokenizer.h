// run.c's encoder written plainly, separately from the runtime (a map from piece to
// id, a rescan of every adjacent pair for every merge): the independent reference
// the device tokenizer is held to. As the device does, a byte with no piece of its
// own is looked up as its "<0xXX>" piece by name, where run.c adds 3 to the byte:
// the same id in every sentencepiece export, and no read past a small vocabulary.
#ifndef TESSERA_TESTS_REFERENCE_TOKENIZER_H
#define TESSERA_TESTS_REFERENCE_TOKENIZER_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tessera/models/llama2c.h"

namespace tessera::test {

class ReferenceTokenizer {
public:
    explicit ReferenceTokenizer(const Vocabulary &vocab);
    // The ids of `text`, or nothing when a byte has neither a piece nor a byte piece.
    std::optional<std::vector<int32_t>> encode(const std::string &text, bool bos, bool eos, int32_t bos_id = 1,
                                               int32_t eos_id = 2) const;

private:
    const Vocabulary &vocab_;
    std::map<std::string, int32_t> id_of_;
};

} // namespace tessera::test

#endif
