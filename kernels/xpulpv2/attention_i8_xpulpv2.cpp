// Tessera's own integer attention (tsr_attention_scores_i8, tsr_softmax_i8,
// tsr_attention_accumulate_i8) on XpulpV2, the portable kernels' integers bit for bit. Each
// pass over the positions is a hardware loop with post-increment loads and stores:
//  - scores: a position's dot product with the query one sdotsp.b a word (symmetric
//    queries, head sizes a multiple of 4, word-aligned rows; otherwise the portable
//    kernel), then the requantization (head sizes 4 and 8 at a scale below 1/2: the
//    product's high word, shifted and rounded, clipped; otherwise the portable form);
//  - softmax: the maximum by max, two a pass; each exponential looked up in the image's
//    table (u = max - x is an int8 difference: 256 of them), two a pass, or without a table
//    its quotient by ln2 as one 32-bit product (tsr_iexp_quotient_multiplier) and its shift
//    capped by minu, no branch; each probability's quotient by the row's reciprocal, one
//    mulhu, one correction step;
//  - accumulation (head sizes a multiple of 4, one core): one p.mac a product, eight (or
//    four) dimensions a pass over the positions, a position's probability held in a register.
// Keys and values a stride apart (kv_stride: a head's column of several heads' rows) cost
// nothing more: the register post-increment loads step over the rest of a row.
#include "attention_i8_checks.h"
#include "kernel_checks.h"
#include "softmax_i8_checks.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"
#include "xpulpv2_iexp.h"
#include "xpulpv2_requantize.h"

namespace {

inline int32_t sdot(int32_t acc, uint32_t a, uint32_t b)
{
    __asm__(TSR_XP_SDOTSP_B("%0", "%1", "%2") : "+r"(acc) : "r"(a), "r"(b));
    return acc;
}

} // namespace

// A score's requantization as tsr_xpulpv2_requantize_to_i8 at shift <= -2 (sh = -2 - shift):
// the high word of d m, shifted by sh, rounded half up, clipped to int8, stored (post-increment):
// six instructions of a hardware-loop body.
#define TSR_SCORE_OUT                                                                                                  \
    "mulh %[d], %[d], %[m]\n"                                                                                          \
    "sra %[d], %[d], %[sh]\n"                                                                                          \
    "addi %[d], %[d], 1\n"                                                                                             \
    "srai %[d], %[d], 1\n" TSR_XP_CLIP8("%[d]", "%[d]") TSR_XP_SB_POST1("%[d]", "%[s]")

tsr_kernel_status tsr_attention_scores_i8_xpulpv2(const tsr_attention_scores_i8_args *a, uint32_t core_id,
                                                  uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_attention_scores_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t hs = a->head_size, words = hs >> 2, stride = a->kv_stride ? a->kv_stride : hs;
    if (a->q_zero != 0 || (hs & 3u) || words > 16u || (((uintptr_t)a->q | (uintptr_t)a->keys | stride) & 3u))
        return tsr_attention_scores_i8(a, core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const uint32_t *q = (const uint32_t *)(const void *)a->q;
    int32_t q_sum = 0;
    for (uint32_t d = 0; d < hs; ++d) q_sum += a->q[d];
    const int32_t offset = -a->k_zero * q_sum, multiplier = a->multiplier, shift = a->shift;
    const uint32_t *key = (const uint32_t *)(const void *)(a->keys + (size_t)begin * stride);
    int8_t *const scores = a->scores; // a local: a score's store could alias *a
    const uint32_t count = end - begin;
    if (count && words <= 2u && shift <= -2) { // the usual scale: requantized as tsr_xpulpv2_requantize_to_i8 does
        const uint32_t sh = (uint32_t)(-2 - shift); // 0..29 (shift >= -31: the args' check)
        int8_t *s = scores + begin;
        uint32_t k0, k1;
        int32_t d;
        if (words == 1u) // TinyLLama-v0's (microLlama's) head size 4: the query's word in a register
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 9)
                             TSR_XP_LW_POST_RR("%[k0]", "%[k]", "%[ks]")
                             "mv %[d], %[off]\n"
                             TSR_XP_SDOTSP_B("%[d]", "%[q0]", "%[k0]")
                             TSR_SCORE_OUT
                             TSR_HWLOOP_END
                             : [k] "+r"(key), [s] "+r"(s), [k0] "=&r"(k0), [d] "=&r"(d)
                             : [n] "r"(count), [off] "r"(offset), [q0] "r"(q[0]), [m] "r"(multiplier), [sh] "r"(sh),
                               [ks] "r"(stride)
                             : "memory");
        else // stories260K's head size 8: the query's two words in registers
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 11)
                             TSR_XP_LW_POST4("%[k0]", "%[k]")
                             TSR_XP_LW_POST_RR("%[k1]", "%[k]", "%[ks]")
                             "mv %[d], %[off]\n"
                             TSR_XP_SDOTSP_B("%[d]", "%[q0]", "%[k0]")
                             TSR_XP_SDOTSP_B("%[d]", "%[q1]", "%[k1]")
                             TSR_SCORE_OUT
                             TSR_HWLOOP_END
                             : [k] "+r"(key), [s] "+r"(s), [k0] "=&r"(k0), [k1] "=&r"(k1), [d] "=&r"(d)
                             : [n] "r"(count), [off] "r"(offset), [q0] "r"(q[0]), [q1] "r"(q[1]), [m] "r"(multiplier),
                               [sh] "r"(sh), [ks] "r"(stride - 4u)
                             : "memory");
        return TSR_KERNEL_OK;
    }
    for (uint32_t t = begin; t < end; ++t, key += stride >> 2) {
        int32_t dot = offset;
        for (uint32_t w = 0; w < words; ++w) dot = sdot(dot, q[w], key[w]);
        scores[t] = tsr_xpulpv2_requantize_to_i8(dot, multiplier, shift, 0, -128, 127);
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_softmax_i8_xpulpv2(const tsr_softmax_i8_args *a, uint32_t *e)
{
    if (!tsr_softmax_i8_args_ok(a, e)) return TSR_KERNEL_BAD_ARGUMENT;
    const int8_t *x = a->x;
    const uint32_t n = a->n;
    const tsr_iexp_constants k = a->constants; // a copy: a store to e could alias *a
    const int32_t max = tsr_xpulpv2_max_i8(x, n);
    uint32_t sum = 0, *ep = e;
    if (a->exps) { // the table's (every int8 image's): u = max - x, looked up, two positions a pass
        const uint8_t *const t = (const uint8_t *)(const void *)a->exps; // byte offsets 4 u
        if (const uint32_t pairs = n >> 1) {
            int32_t xa, xb;
            uint32_t la, lb;
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 12)
                             TSR_XP_LB_POST1("%[xa]", "%[x]")
                             TSR_XP_LB_POST1("%[xb]", "%[x]")
                             "sub %[xa], %[max], %[xa]\n"
                             "sub %[xb], %[max], %[xb]\n"
                             "slli %[xa], %[xa], 2\n"
                             "slli %[xb], %[xb], 2\n"
                             TSR_XP_LW_RR("%[la]", "%[t]", "%[xa]")
                             TSR_XP_LW_RR("%[lb]", "%[t]", "%[xb]")
                             TSR_XP_SW_POST4("%[la]", "%[e]")
                             "add %[sum], %[sum], %[la]\n"
                             TSR_XP_SW_POST4("%[lb]", "%[e]")
                             "add %[sum], %[sum], %[lb]\n"
                             TSR_HWLOOP_END
                             : [x] "+r"(x), [e] "+r"(ep), [sum] "+r"(sum), [xa] "=&r"(xa), [xb] "=&r"(xb), [la] "=&r"(la),
                               [lb] "=&r"(lb)
                             : [pairs] "r"(pairs), [max] "r"(max), [t] "r"(t)
                             : "memory");
        }
        if (n & 1u) sum += *ep = a->exps[max - *x];
    } else { // the integer exponential's arithmetic
        // e = tsr_iexp(-(u << shift)) for u = max - x: z = (u M) >> 19, t = b - (u << shift) + z ln2,
        // (t t + c) >> (z + 6), the shift capped at 31 (l < 2^24: z >= 26 gives 0 either way).
        const uint32_t mz = tsr_iexp_quotient_multiplier(k), cap = 25u;
        {
            int32_t xv;
            uint32_t u, z, big, t, l;
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 14)
                             TSR_XP_LB_POST1("%[xv]", "%[x]")
                             "mv %[l], %[c]\n"
                             "sub %[u], %[max], %[xv]\n"
                             "mul %[z], %[u], %[mz]\n"
                             "sll %[big], %[u], %[shift]\n"
                             "srli %[z], %[z], %[bits]\n"
                             "sub %[t], %[b], %[big]\n"
                             TSR_XP_MAC("%[t]", "%[z]", "%[ln2]")
                             TSR_XP_MAC("%[l]", "%[t]", "%[t]")
                             TSR_XP_MINU("%[z]", "%[z]", "%[cap]")
                             "addi %[z], %[z], 6\n"
                             "srl %[l], %[l], %[z]\n"
                             TSR_XP_SW_POST4("%[l]", "%[e]")
                             "add %[sum], %[sum], %[l]\n"
                             TSR_HWLOOP_END
                             : [x] "+r"(x), [e] "+r"(ep), [sum] "+r"(sum), [xv] "=&r"(xv), [u] "=&r"(u), [z] "=&r"(z),
                               [big] "=&r"(big), [t] "=&r"(t), [l] "=&r"(l)
                             : [n] "r"(n), [max] "r"(max), [mz] "r"(mz), [shift] "r"(k.shift), [bits] "i"(tsr_iexp_quotient_bits),
                               [b] "r"(k.b), [ln2] "r"(k.ln2), [c] "r"(k.c), [cap] "r"(cap)
                             : "memory");
        }
    }
    // y = floor((4096 e + sum / 2) / sum): q = the high word of m r, r = floor((2^32 - 1) / sum),
    // is the quotient or one less (tsr_softmax_i8_normalize's bound, m < 2^31: m r / 2^32 >
    // m / sum - m / 2^32 - m / (2^32 sum) > m / sum - 1), so one step corrects it: q + 1 where
    // the remainder m - q sum exceeds sum - 1. Two positions a pass, each one's latencies under
    // the other's work.
    const uint32_t r = 0xFFFFFFFFu / sum, half = sum / 2u, below = sum - 1u; // sum >= 1: the largest e is 2^-6 (b^2 + c)
    uint16_t *y = a->y;
    ep = e;
    if (const uint32_t pairs = n >> 1) {
        uint32_t ma, mb, qa, qb, ta, tb;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 18)
                         TSR_XP_LW_POST4("%[ma]", "%[e]")
                         TSR_XP_LW_POST4("%[mb]", "%[e]")
                         "slli %[ma], %[ma], 12\n"
                         "slli %[mb], %[mb], 12\n"
                         "add %[ma], %[ma], %[half]\n"
                         "add %[mb], %[mb], %[half]\n"
                         "mulhu %[qa], %[ma], %[r]\n"
                         "mulhu %[qb], %[mb], %[r]\n"
                         "mul %[ta], %[qa], %[sum]\n"
                         "mul %[tb], %[qb], %[sum]\n"
                         "sub %[ma], %[ma], %[ta]\n"
                         "sub %[mb], %[mb], %[tb]\n"
                         "sltu %[ma], %[below], %[ma]\n"
                         "sltu %[mb], %[below], %[mb]\n"
                         "add %[qa], %[qa], %[ma]\n"
                         "add %[qb], %[qb], %[mb]\n"
                         TSR_XP_SH_POST2("%[qa]", "%[y]")
                         TSR_XP_SH_POST2("%[qb]", "%[y]")
                         TSR_HWLOOP_END
                         : [e] "+r"(ep), [y] "+r"(y), [ma] "=&r"(ma), [mb] "=&r"(mb), [qa] "=&r"(qa), [qb] "=&r"(qb),
                           [ta] "=&r"(ta), [tb] "=&r"(tb)
                         : [pairs] "r"(pairs), [half] "r"(half), [r] "r"(r), [sum] "r"(sum), [below] "r"(below)
                         : "memory");
    }
    if (n & 1u) {
        const uint32_t m = *ep * 4096u + half, q = (uint32_t)(((uint64_t)m * r) >> 32);
        *y = (uint16_t)(q + (m - q * sum > below));
    }
    return TSR_KERNEL_OK;
}

// Four dimensions of a position's values loaded (post-increment, into v0..v3) and each
// multiplied by its probability w into its sum: eight instructions of a hardware-loop body.
#define TSR_ACC4(a0, a1, a2, a3)                                                                                       \
    TSR_XP_LB_POST1("%[v0]", "%[v]") TSR_XP_LB_POST1("%[v1]", "%[v]") TSR_XP_LB_POST1("%[v2]", "%[v]")                \
    TSR_XP_LB_POST1("%[v3]", "%[v]") TSR_XP_MAC(a0, "%[w]", "%[v0]") TSR_XP_MAC(a1, "%[w]", "%[v1]")                  \
    TSR_XP_MAC(a2, "%[w]", "%[v2]") TSR_XP_MAC(a3, "%[w]", "%[v3]")

tsr_kernel_status tsr_attention_accumulate_i8_xpulpv2(const tsr_attention_accumulate_i8_args *a, uint32_t core_id,
                                                      uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_attention_accumulate_i8_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t hs = a->head_size, count = a->count, stride = a->kv_stride ? a->kv_stride : hs;
    if (core_count != 1u || hs % 4u != 0u) return tsr_attention_accumulate_i8(a, core_id, core_count);
    const uint16_t *const probs = a->probs;
    int32_t *const acc = a->acc;
    const int32_t v_zero = a->v_zero;
    // Eight dimensions a pass over the positions (their sums in registers), then four; each
    // pass sums the probabilities too, for the values' zero point (sum_t p (v - z) is
    // sum_t p v - z sum_t p).
    uint32_t d = 0;
    for (; d + 8u <= hs; d += 8u) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0, ps = 0, w, v0, v1, v2, v3;
        const int8_t *v = a->values + d;
        const uint16_t *p = probs;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 19)
                         TSR_XP_LHU_POST2("%[w]", "%[p]")
                         TSR_ACC4("%[a0]", "%[a1]", "%[a2]", "%[a3]")
                         TSR_ACC4("%[a4]", "%[a5]", "%[a6]", "%[a7]")
                         "add %[ps], %[ps], %[w]\n"
                         "add %[v], %[v], %[skip]\n"
                         TSR_HWLOOP_END
                         : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [a4] "+r"(a4), [a5] "+r"(a5),
                           [a6] "+r"(a6), [a7] "+r"(a7), [ps] "+r"(ps), [p] "+r"(p), [v] "+r"(v), [w] "=&r"(w),
                           [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2), [v3] "=&r"(v3)
                         : [n] "r"(count), [skip] "r"(stride - 8u)
                         : "memory");
        const int32_t offset = -v_zero * ps;
        acc[d] += a0 + offset, acc[d + 1] += a1 + offset, acc[d + 2] += a2 + offset, acc[d + 3] += a3 + offset;
        acc[d + 4] += a4 + offset, acc[d + 5] += a5 + offset, acc[d + 6] += a6 + offset, acc[d + 7] += a7 + offset;
    }
    if (d < hs) { // four left (TinyLLama-v0's head size 4: all of it)
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, ps = 0, w, v0, v1, v2, v3;
        const int8_t *v = a->values + d;
        const uint16_t *p = probs;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 11)
                         TSR_XP_LHU_POST2("%[w]", "%[p]")
                         TSR_ACC4("%[a0]", "%[a1]", "%[a2]", "%[a3]")
                         "add %[ps], %[ps], %[w]\n"
                         "add %[v], %[v], %[skip]\n"
                         TSR_HWLOOP_END
                         : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [ps] "+r"(ps), [p] "+r"(p),
                           [v] "+r"(v), [w] "=&r"(w), [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2), [v3] "=&r"(v3)
                         : [n] "r"(count), [skip] "r"(stride - 4u)
                         : "memory");
        const int32_t offset = -v_zero * ps;
        acc[d] += a0 + offset, acc[d + 1] += a1 + offset, acc[d + 2] += a2 + offset, acc[d + 3] += a3 + offset;
    }
    return TSR_KERNEL_OK;
}
