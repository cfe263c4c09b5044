// Tessera's own integer attention (tsr_attention_scores_i8, tsr_softmax_i8,
// tsr_attention_accumulate_i8) on XpulpV2, the portable kernels' integers bit for bit. Each
// pass over the positions is a hardware loop with post-increment loads and stores:
//  - scores: a position's dot product with the query one sdotsp.b a word (symmetric
//    queries, head sizes a multiple of 4, word-aligned rows; otherwise the portable
//    kernel), then the requantization (head sizes 4 and 8 at a scale below 1/2: the
//    product's high word, shifted and rounded by one addRNr, clipped; otherwise the portable
//    form); keys without a zero point start a position's sum with dotsp.b, head size 4 two
//    positions a pass;
//  - softmax: the maximum by max, two a pass; each exponential looked up in the image's
//    table (u = max - x is an int8 difference: 256 of them), two a pass, or without a table
//    its quotient by ln2 as one 32-bit product (tsr_iexp_quotient_multiplier) and its shift
//    capped by minu, no branch; each probability's quotient from the row's reciprocal by
//    single-cycle products (p.mac, then p.msu for the remainder), one correction step;
//  - accumulation (head sizes a multiple of 4, one core): one p.mac a product, eight (or
//    four) dimensions a pass over the positions, a position's probability held in a register,
//    the probabilities summed only for values with a zero point.
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

// A score's requantization as tsr_xpulpv2_requantize_to_i8 at shift <= -2: ((h >> sh) + 1) >> 1
// for h the high word of d m and sh = -2 - shift, that is floor((h + 2^sh) / 2^(sh + 1)), one
// addRNr by sh + 1 (h + 2^sh < 2^30: |d| <= 2^18 with the keys' offset, m < 2^31, sh <= 29); clipped to int8, stored
// (post-increment): four instructions of a hardware-loop body.
#define TSR_SCORE_OUT                                                                                                  \
    "mulh %[d], %[d], %[m]\n" TSR_XP_ADDRN_R("%[d]", "zero", "%[sh]") TSR_XP_CLIP8("%[d]", "%[d]")                     \
        TSR_XP_SB_POST1("%[d]", "%[s]")

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
        const uint32_t sh = (uint32_t)(-1 - shift); // addRNr's: 1..30 (shift >= -31: the args' check)
        int8_t *s = scores + begin;
        uint32_t k0, k1;
        int32_t d;
        // Keys without a zero point (Tessera's own lowering) need no offset: a position's first
        // product is a dotsp.b, not a move then an sdotsp.b.
        const uint32_t pairs = offset == 0 && words == 1u ? count >> 1 : 0u, rest = count - 2u * pairs;
        if (pairs) { // head size 4, no offset: two positions a pass, each load two instructions before its use
            uint32_t ka, kb;
            int32_t da, db;
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 12)
                             TSR_XP_LW_POST_RR("%[ka]", "%[k]", "%[ks]")
                             TSR_XP_LW_POST_RR("%[kb]", "%[k]", "%[ks]")
                             TSR_XP_DOTSP_B("%[da]", "%[q0]", "%[ka]")
                             TSR_XP_DOTSP_B("%[db]", "%[q0]", "%[kb]")
                             "mulh %[da], %[da], %[m]\n"
                             "mulh %[db], %[db], %[m]\n"
                             TSR_XP_ADDRN_R("%[da]", "zero", "%[sh]")
                             TSR_XP_ADDRN_R("%[db]", "zero", "%[sh]")
                             TSR_XP_CLIP8("%[da]", "%[da]")
                             TSR_XP_CLIP8("%[db]", "%[db]")
                             TSR_XP_SB_POST1("%[da]", "%[s]")
                             TSR_XP_SB_POST1("%[db]", "%[s]")
                             TSR_HWLOOP_END
                             : [k] "+r"(key), [s] "+r"(s), [ka] "=&r"(ka), [kb] "=&r"(kb), [da] "=&r"(da), [db] "=&r"(db)
                             : [n] "r"(pairs), [q0] "r"(q[0]), [m] "r"(multiplier), [sh] "r"(sh), [ks] "r"(stride)
                             : "memory");
        }
        if (!rest) return TSR_KERNEL_OK;
        if (words == 1u) // TinyLLama-v0's (microLlama's) head size 4: the query's word in a register
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 7)
                             TSR_XP_LW_POST_RR("%[k0]", "%[k]", "%[ks]")
                             "mv %[d], %[off]\n"
                             TSR_XP_SDOTSP_B("%[d]", "%[q0]", "%[k0]")
                             TSR_SCORE_OUT
                             TSR_HWLOOP_END
                             : [k] "+r"(key), [s] "+r"(s), [k0] "=&r"(k0), [d] "=&r"(d)
                             : [n] "r"(rest), [off] "r"(offset), [q0] "r"(q[0]), [m] "r"(multiplier), [sh] "r"(sh),
                               [ks] "r"(stride)
                             : "memory");
        else if (offset == 0) // stories260K's head size 8: the query's two words in registers
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 8)
                             TSR_XP_LW_POST4("%[k0]", "%[k]")
                             TSR_XP_LW_POST_RR("%[k1]", "%[k]", "%[ks]")
                             TSR_XP_DOTSP_B("%[d]", "%[q0]", "%[k0]")
                             TSR_XP_SDOTSP_B("%[d]", "%[q1]", "%[k1]")
                             TSR_SCORE_OUT
                             TSR_HWLOOP_END
                             : [k] "+r"(key), [s] "+r"(s), [k0] "=&r"(k0), [k1] "=&r"(k1), [d] "=&r"(d)
                             : [n] "r"(rest), [q0] "r"(q[0]), [q1] "r"(q[1]), [m] "r"(multiplier), [sh] "r"(sh),
                               [ks] "r"(stride - 4u)
                             : "memory");
        else
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 9)
                             TSR_XP_LW_POST4("%[k0]", "%[k]")
                             TSR_XP_LW_POST_RR("%[k1]", "%[k]", "%[ks]")
                             "mv %[d], %[off]\n"
                             TSR_XP_SDOTSP_B("%[d]", "%[q0]", "%[k0]")
                             TSR_XP_SDOTSP_B("%[d]", "%[q1]", "%[k1]")
                             TSR_SCORE_OUT
                             TSR_HWLOOP_END
                             : [k] "+r"(key), [s] "+r"(s), [k0] "=&r"(k0), [k1] "=&r"(k1), [d] "=&r"(d)
                             : [n] "r"(rest), [off] "r"(offset), [q0] "r"(q[0]), [q1] "r"(q[1]), [m] "r"(multiplier),
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
    // y = floor(m / sum) for m = 4096 e + half (half = floor(sum / 2)) without a high-word
    // product (mulhu stalls these cores four cycles): t = (e R + H) >> 19 for R = floor(2^31 /
    // sum) and H = (half R) >> 12 is the quotient or one less, so one step corrects it: t + 1
    // where the remainder m - t sum exceeds sum - 1. Why: 2^19 m / sum - (e R + H) lies in
    // [0, e + half / 2^12 + 1), below 2^18 + 2^15 + 1 < 2^19 (e < 2^18, sum < 2^28); e R + H
    // <= 2^31 + 2^18 (e <= sum) and half R <= 2^30 fit 32 bits. Two positions a pass, ten
    // single-cycle instructions each.
    const uint32_t R = 0x80000000u / sum, half = sum / 2u, H = (half * R) >> 12, below = sum - 1u; // sum >= 1: the largest e is 2^-6 (b^2 + c)
    uint16_t *y = a->y;
    ep = e;
    if (const uint32_t pairs = n >> 1) {
        uint32_t ma, mb, ta, tb;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 20)
                         TSR_XP_LW_POST4("%[ma]", "%[e]")
                         TSR_XP_LW_POST4("%[mb]", "%[e]")
                         "mv %[ta], %[H]\n"
                         "mv %[tb], %[H]\n"
                         TSR_XP_MAC("%[ta]", "%[ma]", "%[R]")
                         TSR_XP_MAC("%[tb]", "%[mb]", "%[R]")
                         "slli %[ma], %[ma], 12\n"
                         "slli %[mb], %[mb], 12\n"
                         "srli %[ta], %[ta], 19\n"
                         "srli %[tb], %[tb], 19\n"
                         "add %[ma], %[ma], %[half]\n"
                         "add %[mb], %[mb], %[half]\n"
                         TSR_XP_MSU("%[ma]", "%[ta]", "%[sum]")
                         TSR_XP_MSU("%[mb]", "%[tb]", "%[sum]")
                         "sltu %[ma], %[below], %[ma]\n"
                         "sltu %[mb], %[below], %[mb]\n"
                         "add %[ta], %[ta], %[ma]\n"
                         "add %[tb], %[tb], %[mb]\n"
                         TSR_XP_SH_POST2("%[ta]", "%[y]")
                         TSR_XP_SH_POST2("%[tb]", "%[y]")
                         TSR_HWLOOP_END
                         : [e] "+r"(ep), [y] "+r"(y), [ma] "=&r"(ma), [mb] "=&r"(mb), [ta] "=&r"(ta), [tb] "=&r"(tb)
                         : [pairs] "r"(pairs), [H] "r"(H), [R] "r"(R), [half] "r"(half), [sum] "r"(sum), [below] "r"(below)
                         : "memory");
    }
    if (n & 1u) {
        const uint32_t m = *ep * 4096u + half, t = (*ep * R + H) >> 19;
        *y = (uint16_t)(t + (m - t * sum > below));
    }
    return TSR_KERNEL_OK;
}

// Four dimensions of a position's values loaded (post-increment, into v0..v3; the last by
// LAST_STEP, a register, so that the fourth of a row's last four steps to the next row) and
// each multiplied by its probability w into its sum: eight instructions of a hardware-loop body.
#define TSR_ACC4_LOADS(last_step)                                                                                      \
    TSR_XP_LB_POST1("%[v0]", "%[v]") TSR_XP_LB_POST1("%[v1]", "%[v]") TSR_XP_LB_POST1("%[v2]", "%[v]")                \
        TSR_XP_LB_POST_RR("%[v3]", "%[v]", last_step)
#define TSR_ACC4_MACS(a0, a1, a2, a3)                                                                                  \
    TSR_XP_MAC(a0, "%[w]", "%[v0]") TSR_XP_MAC(a1, "%[w]", "%[v1]") TSR_XP_MAC(a2, "%[w]", "%[v2]")                   \
        TSR_XP_MAC(a3, "%[w]", "%[v3]")
// A hardware-loop body over the positions for eight dimensions, and for four: w's load, the
// products, then SUM_W (the probabilities' sum, for a values' zero point, or nothing).
#define TSR_ACC8_BODY(sum_w)                                                                                           \
    TSR_XP_LHU_POST2("%[w]", "%[p]") TSR_ACC4_LOADS("%[one]") TSR_ACC4_MACS("%[a0]", "%[a1]", "%[a2]", "%[a3]")         \
        TSR_ACC4_LOADS("%[skip]") TSR_ACC4_MACS("%[a4]", "%[a5]", "%[a6]", "%[a7]") sum_w
#define TSR_ACC4_BODY(sum_w)                                                                                           \
    TSR_XP_LHU_POST2("%[w]", "%[p]") TSR_ACC4_LOADS("%[skip]") TSR_ACC4_MACS("%[a0]", "%[a1]", "%[a2]", "%[a3]") sum_w
#define TSR_SUM_W "add %[ps], %[ps], %[w]\n"

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
    const uint32_t one = 1u;
    // Eight dimensions a pass over the positions (their sums in registers), then four; where
    // the values have a zero point, each pass sums the probabilities too (sum_t p (v - z) is
    // sum_t p v - z sum_t p). The pass's last load steps to the next position's row.
    uint32_t d = 0;
    for (; d + 8u <= hs; d += 8u) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0, ps = 0, w, v0, v1, v2, v3;
        const int8_t *v = a->values + d;
        const uint16_t *p = probs;
        const uint32_t skip = stride - 7u;
#define TSR_ACC8_OPERANDS                                                                                              \
    : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [a4] "+r"(a4), [a5] "+r"(a5), [a6] "+r"(a6),         \
      [a7] "+r"(a7), [ps] "+r"(ps), [p] "+r"(p), [v] "+r"(v), [w] "=&r"(w), [v0] "=&r"(v0), [v1] "=&r"(v1),             \
      [v2] "=&r"(v2), [v3] "=&r"(v3)                                                                                   \
    : [n] "r"(count), [skip] "r"(skip), [one] "r"(one)                                                                \
    : "memory"
        if (v_zero) __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 18) TSR_ACC8_BODY(TSR_SUM_W) TSR_HWLOOP_END TSR_ACC8_OPERANDS);
        else __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 17) TSR_ACC8_BODY("") TSR_HWLOOP_END TSR_ACC8_OPERANDS);
#undef TSR_ACC8_OPERANDS
        const int32_t offset = -v_zero * ps;
        acc[d] += a0 + offset, acc[d + 1] += a1 + offset, acc[d + 2] += a2 + offset, acc[d + 3] += a3 + offset;
        acc[d + 4] += a4 + offset, acc[d + 5] += a5 + offset, acc[d + 6] += a6 + offset, acc[d + 7] += a7 + offset;
    }
    if (d < hs) { // four left (TinyLLama-v0's head size 4: all of it)
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, ps = 0, w, v0, v1, v2, v3;
        const int8_t *v = a->values + d;
        const uint16_t *p = probs;
        const uint32_t skip = stride - 3u;
#define TSR_ACC4_OPERANDS                                                                                              \
    : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [ps] "+r"(ps), [p] "+r"(p), [v] "+r"(v),              \
      [w] "=&r"(w), [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2), [v3] "=&r"(v3)                                     \
    : [n] "r"(count), [skip] "r"(skip)                                                                                \
    : "memory"
        if (v_zero) __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 10) TSR_ACC4_BODY(TSR_SUM_W) TSR_HWLOOP_END TSR_ACC4_OPERANDS);
        else __asm__ volatile(TSR_HWLOOP_BEGIN("%[n]", 9) TSR_ACC4_BODY("") TSR_HWLOOP_END TSR_ACC4_OPERANDS);
#undef TSR_ACC4_OPERANDS
        const int32_t offset = -v_zero * ps;
        acc[d] += a0 + offset, acc[d + 1] += a1 + offset, acc[d + 2] += a2 + offset, acc[d + 3] += a3 + offset;
    }
    return TSR_KERNEL_OK;
}
