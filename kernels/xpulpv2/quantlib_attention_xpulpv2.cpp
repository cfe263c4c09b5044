// QuantLib attention (tessera/kernels_quantlib.h) on XpulpV2. The same integers as the
// portable kernels (quantlib_i8.cpp), bit for bit:
//  - scores: head size 4 (microLlama's) is one word per cached position, one cv.sdotsp.b
//    with q's word; other head sizes run the portable kernel;
//  - iSoftmax: its quotients floor(e * levels / sum) by a reciprocal of the row's sum
//    (one division a row) and one correction step, exact for every e * levels < 2^32;
//  - accumulation: each value byte taken with cv.extract and added with cv.mac.
#include "kernel_checks.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_insn.h"

namespace {

bool within_i8(const tsr_rqs_params *r) { return r && tsr_rqs_valid(r) && r->lo >= -128 && r->hi <= 127; }

inline int32_t sdotsp(int32_t acc, uint32_t a, uint32_t b)
{
    __asm__(TSR_CV_SDOTSP_B("%0", "%1", "%2") : "+r"(acc) : "r"(a), "r"(b));
    return acc;
}

inline uint32_t word(const int8_t *p)
{
    uint32_t w;
    __builtin_memcpy(&w, p, 4);
    return w;
}

// floor(a / b) for a < 2^32, b >= 1, given m = floor((2^32 - 1) / b): a m / 2^32 lies
// within (a / b - 1, a / b], so the high half of the product is the quotient or one less.
inline uint32_t divide(uint32_t a, uint32_t b, uint32_t m)
{
    uint32_t q = (uint32_t)(((uint64_t)a * m) >> 32);
    if (a - q * b >= b) ++q;
    return q;
}

} // namespace

tsr_kernel_status tsr_quantlib_scores_xpulpv2(const int8_t *q, const int8_t *keys, int8_t *u, uint32_t count,
                                              uint32_t head_size, uint32_t first, uint32_t row_pos,
                                              const tsr_quantlib_attention *t)
{
    if (head_size != 4u || !q || !keys || ((uintptr_t)keys & 3u) != 0u)
        return tsr_quantlib_scores(q, keys, u, count, head_size, first, row_pos, t);
    TSR_KERNEL_REQUIRE(u && t && within_i8(&t->scores));
    const tsr_rqs_prepared r = tsr_rqs_prepare(&t->scores);
    const uint32_t visible = row_pos < first ? 0u : row_pos - first + 1u < count ? row_pos - first + 1u : count;
    const uint32_t qw = word(q);
    const uint32_t *k = (const uint32_t *)(const void *)keys;
    const int8_t *table = t->visible + 128; // indexed by the int8 score
    for (uint32_t j = 0; j < count; ++j) {
        if (j == visible) table = t->masked + 128;
        u[j] = table[tsr_rqs_apply(&r, sdotsp(0, qw, k[j]))];
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_quantlib_softmax_xpulpv2(const int8_t *u, int8_t *probs, int32_t *exps, uint32_t n,
                                               const tsr_quantlib_attention *t)
{
    TSR_KERNEL_REQUIRE(u && probs && exps && n && n <= TSR_QUANTLIB_MAX_CONTEXT && t && t->levels >= 1 &&
                       t->levels <= 255 && t->exp[0] > 0);
    int32_t max = u[0];
    for (uint32_t j = 1; j < n; ++j) max = u[j] > max ? u[j] : max;
    uint32_t sum = 0; // n x 2^20 <= 2^31
    for (uint32_t j = 0; j < n; ++j) {
        const int32_t e = t->exp[max - u[j]];
        TSR_KERNEL_REQUIRE((uint32_t)e <= (uint32_t)TSR_QUANTLIB_MAX_EXP); // the table is data
        sum += (uint32_t)(exps[j] = e);
    }
    // sum >= exp[0] > 0; e levels <= 2^20 x 255 < 2^32; the quotient is at most levels.
    const uint32_t levels = (uint32_t)t->levels, m = 0xFFFFFFFFu / sum;
    for (uint32_t j = 0; j < n; ++j) probs[j] = t->prob[divide((uint32_t)exps[j] * levels, sum, m)];
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_quantlib_accumulate_xpulpv2(const int8_t *probs, const int8_t *values, int32_t *acc,
                                                  uint32_t count, uint32_t head_size)
{
    if (head_size != 4u || ((uintptr_t)values & 3u) != 0u)
        return tsr_quantlib_accumulate(probs, values, acc, count, head_size);
    TSR_KERNEL_REQUIRE(probs && values && acc);
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    const uint32_t *v = (const uint32_t *)(const void *)values;
    for (uint32_t j = 0; j < count; ++j) {
        const int32_t p = probs[j];
        if (!p) continue; // mostly the masked positions
        const uint32_t w = v[j];
        int32_t b0, b1, b2, b3;
        __asm__(TSR_CV_EXTRACT_B("%0", "%4", 0) TSR_CV_EXTRACT_B("%1", "%4", 1) TSR_CV_EXTRACT_B("%2", "%4", 2)
                    TSR_CV_EXTRACT_B("%3", "%4", 3)
                : "=&r"(b0), "=&r"(b1), "=&r"(b2), "=&r"(b3)
                : "r"(w));
        __asm__(TSR_CV_MAC("%0", "%4", "%5") TSR_CV_MAC("%1", "%4", "%6") TSR_CV_MAC("%2", "%4", "%7")
                    TSR_CV_MAC("%3", "%4", "%8")
                : "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3)
                : "r"(p), "r"(b0), "r"(b1), "r"(b2), "r"(b3));
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
    return TSR_KERNEL_OK;
}
