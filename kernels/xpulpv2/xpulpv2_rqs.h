// QuantLib's RequantShift in its 32-bit form on XpulpV2, for kernels that know a bound on
// their accumulators: (x mul + add + round) >> shift, clamped with max / min. It is
// tsr_rqs_apply's fast form (tessera/kernels_quantlib.h), taken once per call or channel
// when x mul + add + round stays within int32 for every |x| <= bound, so no element needs
// the range check; the kernels take the portable form otherwise. Bit-exact with tsr_rqs.
#ifndef TESSERA_XPULPV2_RQS_H
#define TESSERA_XPULPV2_RQS_H

#include <stdint.h>

#include "tessera/kernels_quantlib.h"
#include "xpulpv2_insn.h"

struct tsr_xpulpv2_rqs {
    int32_t mul, add_round, shift, lo, hi;
};

static inline uint32_t tsr_xpulpv2_magnitude(int32_t v) { return v < 0 ? 0u - (uint32_t)v : (uint32_t)v; }

// Whether x mul + add + round stays within int32 for every |x| <= bound, given |mul| and
// |add| (tsr_rqs_prepare's condition, without its division).
static inline bool tsr_xpulpv2_fits_32_bit(uint32_t bound, uint32_t mul, uint32_t add, uint32_t round)
{
    return (uint64_t)bound * mul + add + round <= 0x7FFFFFFFu;
}

// Whether r is a valid RequantShift into int8 whose 32-bit form holds for every
// |x| <= bound; *q is that form then. When not, the kernels run the portable path,
// which checks r and refuses what is invalid.
static inline bool tsr_xpulpv2_rqs_for(const tsr_rqs_params *r, uint32_t bound, tsr_xpulpv2_rqs *q)
{
    if (!r || !tsr_rqs_valid(r) || r->lo < -128 || r->hi > 127 || r->shift >= 31) return false;
    const uint32_t round = r->shift > 0 ? 1u << (r->shift - 1) : 0u;
    if (!tsr_xpulpv2_fits_32_bit(bound, tsr_xpulpv2_magnitude(r->mul), tsr_xpulpv2_magnitude(r->add), round))
        return false;
    *q = tsr_xpulpv2_rqs{r->mul, r->add + (int32_t)round, r->shift, r->lo, r->hi};
    return true;
}

static inline uint32_t tsr_xpulpv2_maxu(uint32_t a, uint32_t b)
{
    __asm__(TSR_XP_MAXU("%0", "%0", "%1") : "+r"(a) : "r"(b));
    return a;
}

static inline int32_t tsr_xpulpv2_clamp(int32_t v, int32_t lo, int32_t hi)
{
    __asm__(TSR_XP_MAX("%0", "%0", "%1") TSR_XP_MIN("%0", "%0", "%2") : "+r"(v) : "r"(lo), "r"(hi));
    return v;
}

static inline int32_t tsr_xpulpv2_rqs_apply(const tsr_xpulpv2_rqs &q, int32_t x)
{
    return tsr_xpulpv2_clamp((x * q.mul + q.add_round) >> q.shift, q.lo, q.hi);
}

#endif
