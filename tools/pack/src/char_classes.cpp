#include "char_classes.h"

#include <unicode/uchar.h>

namespace tessera {

std::vector<tsr_bpe_class_range> gpt2_char_classes()
{
    static const std::vector<tsr_bpe_class_range> ranges = [] {
        std::vector<tsr_bpe_class_range> out;
        for (UChar32 cp = 0; cp <= 0x10FFFF; ++cp) {
            uint32_t c = TSR_CHAR_OTHER;
            if (u_isUWhiteSpace(cp)) c = TSR_CHAR_SPACE;
            else if (U_GET_GC_MASK(cp) & U_GC_L_MASK) c = TSR_CHAR_LETTER;
            else if (U_GET_GC_MASK(cp) & U_GC_N_MASK) c = TSR_CHAR_NUMBER;
            if (c == TSR_CHAR_OTHER) continue;
            if (!out.empty() && out.back().char_class == c && out.back().last + 1u == uint32_t(cp)) out.back().last = uint32_t(cp);
            else out.push_back({uint32_t(cp), uint32_t(cp), c});
        }
        return out;
    }();
    return ranges;
}

} // namespace tessera
