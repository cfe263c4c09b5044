// The character classes GPT-2's pre-tokenizer reads (tsr_bpe_class_range), from ICU's
// Unicode data: what a byte-level BPE image carries so that the device splits text as
// GPT-2's pattern does.
#ifndef TESSERA_PACK_CHAR_CLASSES_H
#define TESSERA_PACK_CHAR_CLASSES_H

#include <vector>

#include "tessera/image_format.h"

namespace tessera {

// Every code point's class as ranges, ascending: letters (general category L*), numbers
// (N*) and white space (the White_Space property, the pattern's \s); the other code points
// in no range.
std::vector<tsr_bpe_class_range> gpt2_char_classes();

} // namespace tessera

#endif
