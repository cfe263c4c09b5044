// QuantLib attention (tessera/kernels_quantlib.h) on XpulpV2. The same integers as the
// portable kernels (quantlib_i8.cpp), bit for bit. Head size 4 (microLlama's) is one word
// per cached position; other head sizes run the portable kernels. Each pass is a
// hardware loop over two (or four) positions, with post-increment loads and stores:
//  - scores: dotsp.b of q's word with a key's, the RequantShift in its 32-bit form
//    (every score |q . k| <= 2^16, xpulpv2_rqs.h), the table lookup by register offset;
//  - iSoftmax: the maximum by max; each e = exp[max - u] summed (the largest e
//    checked once, by maxu); each quotient floor(e levels / sum) by a reciprocal of
//    the row's sum (one division a row), one mulhu and one correction step, exact for
//    every e levels < 2^32;
//  - accumulation: four positions' value words transposed (shuffle2.b, pack) into
//    one word a dimension, each against the four probabilities in one sdotsp.b.
// The rows kernel reads a position's key and value words a stride apart (a register
// post-increment): a head's column of a block of several heads' rows costs nothing more.
#include "kernel_checks.h"
#include "kernel_math.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernels_xpulpv2.h"
#include "xpulpv2_dot.h"
#include "xpulpv2_insn.h"
#include "xpulpv2_rqs.h"

namespace {


inline uint32_t word(const int8_t *p)
{
    uint32_t w;
    __builtin_memcpy(&w, p, 4);
    return w;
}

// u[j] = table[rqs(q . k_j)] for j < n: two positions an iteration, the odd one after.
void scores_part(uint32_t qw, const uint32_t *k, int8_t *u, uint32_t n, const int8_t *table, const tsr_xpulpv2_rqs &r)
{
    if (const uint32_t pairs = n >> 1) {
        uint32_t k0, k1;
        int32_t d0, d1;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 18)
                         TSR_XP_LW_POST4("%[k0]", "%[k]")
                         TSR_XP_LW_POST4("%[k1]", "%[k]")
                         TSR_XP_DOTSP_B("%[d0]", "%[q]", "%[k0]")
                         TSR_XP_DOTSP_B("%[d1]", "%[q]", "%[k1]")
                         "mul %[d0], %[d0], %[mul]\n"
                         "mul %[d1], %[d1], %[mul]\n"
                         "add %[d0], %[d0], %[ar]\n"
                         "add %[d1], %[d1], %[ar]\n"
                         "sra %[d0], %[d0], %[sh]\n"
                         "sra %[d1], %[d1], %[sh]\n"
                         TSR_XP_MAX("%[d0]", "%[d0]", "%[lo]")
                         TSR_XP_MAX("%[d1]", "%[d1]", "%[lo]")
                         TSR_XP_MIN("%[d0]", "%[d0]", "%[hi]")
                         TSR_XP_MIN("%[d1]", "%[d1]", "%[hi]")
                         TSR_XP_LB_RR("%[d0]", "%[t]", "%[d0]")
                         TSR_XP_LB_RR("%[d1]", "%[t]", "%[d1]")
                         TSR_XP_SB_POST1("%[d0]", "%[u]")
                         TSR_XP_SB_POST1("%[d1]", "%[u]")
                         TSR_HWLOOP_END
                         : [k] "+r"(k), [u] "+r"(u), [k0] "=&r"(k0), [k1] "=&r"(k1), [d0] "=&r"(d0), [d1] "=&r"(d1)
                         : [pairs] "r"(pairs), [q] "r"(qw), [mul] "r"(r.mul), [ar] "r"(r.add_round), [sh] "r"(r.shift),
                           [lo] "r"(r.lo), [hi] "r"(r.hi), [t] "r"(table)
                         : "memory");
    }
    if (n & 1u) *u = table[tsr_xpulpv2_rqs_apply(r, tsr_xpulpv2_dotsp(qw, *k))];
}

// scores_part's over keys `stride` bytes apart, keeping the largest of them and *max in
// *max. Clip8: the scores' range is -128..127, one clip instead of max and min.
template <bool Clip8>
void scores_max_part(uint32_t qw, const int8_t *k, uint32_t stride, int8_t *u, uint32_t n, const int8_t *table,
                     const tsr_xpulpv2_rqs &r, int32_t *max)
{
    int32_t m = *max;
    if (const uint32_t pairs = n >> 1) {
        uint32_t k0, k1;
        int32_t d0, d1;
#define TSR_SCORES_HEAD                                                                                                \
    TSR_XP_LW_POST_RR("%[k0]", "%[k]", "%[ks]")                                                                        \
    TSR_XP_LW_POST_RR("%[k1]", "%[k]", "%[ks]")                                                                        \
    TSR_XP_DOTSP_B("%[d0]", "%[q]", "%[k0]")                                                                           \
    TSR_XP_DOTSP_B("%[d1]", "%[q]", "%[k1]")                                                                           \
    "mul %[d0], %[d0], %[mul]\n"                                                                                       \
    "mul %[d1], %[d1], %[mul]\n"                                                                                       \
    "add %[d0], %[d0], %[ar]\n"                                                                                        \
    "add %[d1], %[d1], %[ar]\n"                                                                                        \
    "sra %[d0], %[d0], %[sh]\n"                                                                                        \
    "sra %[d1], %[d1], %[sh]\n"
#define TSR_SCORES_TAIL                                                                                                \
    TSR_XP_LB_RR("%[d0]", "%[t]", "%[d0]")                                                                             \
    TSR_XP_LB_RR("%[d1]", "%[t]", "%[d1]")                                                                             \
    TSR_XP_SB_POST1("%[d0]", "%[u]")                                                                                   \
    TSR_XP_SB_POST1("%[d1]", "%[u]")                                                                                   \
    TSR_XP_MAX("%[m]", "%[m]", "%[d0]")                                                                                \
    TSR_XP_MAX("%[m]", "%[m]", "%[d1]")                                                                                \
    TSR_HWLOOP_END
#define TSR_SCORES_OPERANDS                                                                                            \
    : [k] "+r"(k), [u] "+r"(u), [m] "+r"(m), [k0] "=&r"(k0), [k1] "=&r"(k1), [d0] "=&r"(d0), [d1] "=&r"(d1)           \
    : [pairs] "r"(pairs), [q] "r"(qw), [mul] "r"(r.mul), [ar] "r"(r.add_round), [sh] "r"(r.shift), [lo] "r"(r.lo),    \
      [hi] "r"(r.hi), [t] "r"(table), [ks] "r"(stride)                                                                 \
    : "memory"
        if (Clip8)
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 18) TSR_SCORES_HEAD
                             TSR_XP_CLIP8("%[d0]", "%[d0]")
                             TSR_XP_CLIP8("%[d1]", "%[d1]")
                             TSR_SCORES_TAIL TSR_SCORES_OPERANDS);
        else
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 20) TSR_SCORES_HEAD
                             TSR_XP_MAX("%[d0]", "%[d0]", "%[lo]")
                             TSR_XP_MAX("%[d1]", "%[d1]", "%[lo]")
                             TSR_XP_MIN("%[d0]", "%[d0]", "%[hi]")
                             TSR_XP_MIN("%[d1]", "%[d1]", "%[hi]")
                             TSR_SCORES_TAIL TSR_SCORES_OPERANDS);
#undef TSR_SCORES_HEAD
#undef TSR_SCORES_TAIL
#undef TSR_SCORES_OPERANDS
    }
    if (n & 1u) {
        const int32_t v = *u = table[tsr_xpulpv2_rqs_apply(r, tsr_xpulpv2_dotsp(qw, word(k)))];
        m = v > m ? v : m;
    }
    *max = m;
}

// exps[j] = exp[max - u_j] for j < n (max - u_j in 0..255); returns their sum and puts
// the largest in *largest (unsigned: the table is data).
uint32_t exps_of(const int8_t *u, int32_t *exps, uint32_t n, const int32_t *exp, int32_t max, uint32_t *largest)
{
    uint32_t sum = 0, big = 0;
    const int32_t *top = exp + max; // exp[max - u] is top[-u]: the word at top - 4 u
    if (const uint32_t pairs = n >> 1) {
        int32_t a, b;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 14)
                         TSR_XP_LB_POST1("%[a]", "%[u]")
                         TSR_XP_LB_POST1("%[b]", "%[u]")
                         "slli %[a], %[a], 2\n"
                         "slli %[b], %[b], 2\n"
                         "sub %[a], %[top], %[a]\n"
                         "sub %[b], %[top], %[b]\n"
                         "lw %[a], 0(%[a])\n"
                         "lw %[b], 0(%[b])\n"
                         "add %[sum], %[sum], %[a]\n"
                         "add %[sum], %[sum], %[b]\n"
                         TSR_XP_MAXU("%[big]", "%[big]", "%[a]")
                         TSR_XP_MAXU("%[big]", "%[big]", "%[b]")
                         TSR_XP_SW_POST4("%[a]", "%[e]")
                         TSR_XP_SW_POST4("%[b]", "%[e]")
                         TSR_HWLOOP_END
                         : [u] "+r"(u), [e] "+r"(exps), [sum] "+r"(sum), [big] "+r"(big), [a] "=&r"(a), [b] "=&r"(b)
                         : [pairs] "r"(pairs), [top] "r"(top)
                         : "memory");
    }
    if (n & 1u) {
        const uint32_t e = (uint32_t)(*exps = top[-*u]);
        sum += e;
        big = e > big ? e : big;
    }
    *largest = big;
    return sum;
}

// probs[j] = prob[floor(exps[j] levels / sum)] for j < n, with m = floor((2^32 - 1) / sum):
// e levels m / 2^32 lies within (e levels / sum - 1, e levels / sum], so the high half of
// the product is the quotient or one less, and one step corrects it (prob is indexed
// from its second entry, less one when the remainder is below sum).
void probs_of(const int32_t *exps, int8_t *probs, uint32_t n, const int8_t *prob, uint32_t levels, uint32_t sum,
              uint32_t m)
{
    const int8_t *next = prob + 1;
    if (const uint32_t pairs = n >> 1) {
        uint32_t a, b, qa, qb, ta, tb;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 18)
                         TSR_XP_LW_POST4("%[a]", "%[e]")
                         TSR_XP_LW_POST4("%[b]", "%[e]")
                         "mul %[a], %[a], %[lv]\n"
                         "mul %[b], %[b], %[lv]\n"
                         "mulhu %[qa], %[a], %[m]\n"
                         "mulhu %[qb], %[b], %[m]\n"
                         "mul %[ta], %[qa], %[s]\n"
                         "mul %[tb], %[qb], %[s]\n"
                         "sub %[a], %[a], %[ta]\n" // the remainders
                         "sub %[b], %[b], %[tb]\n"
                         "sltu %[a], %[a], %[s]\n"
                         "sltu %[b], %[b], %[s]\n"
                         "sub %[qa], %[qa], %[a]\n"
                         "sub %[qb], %[qb], %[b]\n"
                         TSR_XP_LB_RR("%[qa]", "%[n1]", "%[qa]")
                         TSR_XP_LB_RR("%[qb]", "%[n1]", "%[qb]")
                         TSR_XP_SB_POST1("%[qa]", "%[p]")
                         TSR_XP_SB_POST1("%[qb]", "%[p]")
                         TSR_HWLOOP_END
                         : [e] "+r"(exps), [p] "+r"(probs), [a] "=&r"(a), [b] "=&r"(b), [qa] "=&r"(qa), [qb] "=&r"(qb),
                           [ta] "=&r"(ta), [tb] "=&r"(tb)
                         : [pairs] "r"(pairs), [lv] "r"(levels), [m] "r"(m), [s] "r"(sum), [n1] "r"(next)
                         : "memory");
    }
    if (n & 1u) {
        const uint32_t el = (uint32_t)*exps * levels, q = (uint32_t)(((uint64_t)el * m) >> 32);
        *probs = next[q - (el - q * sum < sum)];
    }
}

// probs_of's quotients without a correction step: with 2^a <= sum < 2^(a+1), c = 8 - a and
// s = 0 for a < 8, else c = 0 and s = a - 8, and m = ceil(levels 2^(32+s-c) / sum) (at most
// 255 x 2^24), (e 2^c) m / 2^(32+s) exceeds e levels / sum by less than e 2^c / 2^(32+s),
// which is below 1 / sum (e <= 2^20 and e <= sum): its floor is floor(e levels / sum), the
// high word of (e << c) m shifted right by s. m costs a division of a 64-bit numerator,
// levels 2^(32+s-c), whose high word levels 2^(s-c) is below sum (two 32-bit divisions,
// about 100 cycles), which a row of kExactFrom positions or more repays.
constexpr uint32_t kExactFrom = 32;
struct ExactQuotient {
    uint32_t m, c, s;
};
ExactQuotient exact_quotient(uint32_t levels, uint32_t sum)
{
    const uint32_t a = tsr_top_bit(sum); // sum >= exp[0] > 0
    ExactQuotient x;
    x.c = a < 8u ? 8u - a : 0u;
    x.s = a < 8u ? 0u : a - 8u;
    const uint32_t hi = x.c ? levels >> x.c : levels << x.s, lo = x.c ? levels << (32u - x.c) : 0u;
    uint32_t rem;
    x.m = tsr_udiv_64_32(hi, lo, sum, &rem);
    x.m += rem != 0u;
    return x;
}
template <bool Shifted> void probs_exact(const int32_t *exps, int8_t *probs, uint32_t n, const int8_t *prob, const ExactQuotient &x)
{
    if (const uint32_t pairs = n >> 1) {
        uint32_t a, b;
#define TSR_PROBS_HEAD TSR_XP_LW_POST4("%[a]", "%[e]") TSR_XP_LW_POST4("%[b]", "%[e]")
#define TSR_PROBS_TAIL                                                                                                 \
    "mulhu %[a], %[a], %[m]\n"                                                                                         \
    "mulhu %[b], %[b], %[m]\n"                                                                                         \
    "srl %[a], %[a], %[s]\n"                                                                                           \
    "srl %[b], %[b], %[s]\n"                                                                                           \
    TSR_XP_LB_RR("%[a]", "%[pr]", "%[a]")                                                                              \
    TSR_XP_LB_RR("%[b]", "%[pr]", "%[b]")                                                                              \
    TSR_XP_SB_POST1("%[a]", "%[p]")                                                                                    \
    TSR_XP_SB_POST1("%[b]", "%[p]")                                                                                    \
    TSR_HWLOOP_END                                                                                                     \
    : [e] "+r"(exps), [p] "+r"(probs), [a] "=&r"(a), [b] "=&r"(b)                                                      \
    : [pairs] "r"(pairs), [m] "r"(x.m), [c] "r"(x.c), [s] "r"(x.s), [pr] "r"(prob)                                     \
    : "memory"
        if (Shifted)
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 12) TSR_PROBS_HEAD
                             "sll %[a], %[a], %[c]\n"
                             "sll %[b], %[b], %[c]\n"
                             TSR_PROBS_TAIL);
        else
            __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 10) TSR_PROBS_HEAD TSR_PROBS_TAIL);
#undef TSR_PROBS_HEAD
#undef TSR_PROBS_TAIL
    }
    if (n & 1u) *probs = prob[(uint32_t)(((uint64_t)((uint32_t)*exps << x.c) * x.m) >> 32) >> x.s];
}

// acc[d] += sum_j probs[j] values[j][d] for j < n, head size 4, a position's word `stride`
// bytes after the one before. Four positions an
// iteration: their value words w0..w3 (byte d of w_j is values[j][d]) transposed into one
// word a dimension, [w0.d, w1.d, w2.d, w3.d], each against the word of four probabilities
// in one sdotsp.b; the rest one position at a time (extract, mac). The transposition is
// shuffle2.b and pack only: both cores have them (RI5CY has no pack of the high halves).
void accumulate_4(const int8_t *probs, const int8_t *v, uint32_t stride, int32_t acc[4], uint32_t n)
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    if (const uint32_t quads = n >> 2) {
        // shuffle2.b selectors: byte i takes byte (s & 3) of rs1 when s & 4, else of rd.
        const uint32_t lo = 0x05010400u;  // [rd.0, rs1.0, rd.1, rs1.1]
        const uint32_t hi = 0x07030602u;  // [rd.2, rs1.2, rd.3, rs1.3]
        const uint32_t top = 0x07060302u; // [rd.2, rd.3, rs1.2, rs1.3]
        uint32_t p, w0, w1, w2, w3, l01, l23;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[quads]", 19)
                         TSR_XP_LW_POST_RR("%[w0]", "%[v]", "%[vs]")
                         TSR_XP_LW_POST_RR("%[w1]", "%[v]", "%[vs]")
                         TSR_XP_LW_POST_RR("%[w2]", "%[v]", "%[vs]")
                         TSR_XP_LW_POST_RR("%[w3]", "%[v]", "%[vs]")
                         "mv %[l01], %[w0]\n"
                         TSR_XP_SHUFFLE2_B("%[l01]", "%[w1]", "%[lo]") // [w0.0, w1.0, w0.1, w1.1]
                         TSR_XP_SHUFFLE2_B("%[w0]", "%[w1]", "%[hi]")  // [w0.2, w1.2, w0.3, w1.3]
                         "mv %[l23], %[w2]\n"
                         TSR_XP_SHUFFLE2_B("%[l23]", "%[w3]", "%[lo]")
                         TSR_XP_SHUFFLE2_B("%[w2]", "%[w3]", "%[hi]")
                         TSR_XP_LW_POST4("%[p]", "%[pr]")
                         TSR_XP_PACK("%[w1]", "%[l23]", "%[l01]")       // dimension 0
                         TSR_XP_SHUFFLE2_B("%[l01]", "%[l23]", "%[top]") // dimension 1
                         TSR_XP_PACK("%[l23]", "%[w2]", "%[w0]")        // dimension 2
                         TSR_XP_SHUFFLE2_B("%[w0]", "%[w2]", "%[top]")   // dimension 3
                         TSR_XP_SDOTSP_B("%[a0]", "%[p]", "%[w1]")
                         TSR_XP_SDOTSP_B("%[a1]", "%[p]", "%[l01]")
                         TSR_XP_SDOTSP_B("%[a2]", "%[p]", "%[l23]")
                         TSR_XP_SDOTSP_B("%[a3]", "%[p]", "%[w0]")
                         TSR_HWLOOP_END
                         : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [v] "+r"(v), [pr] "+r"(probs),
                           [p] "=&r"(p), [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3),
                           [l01] "=&r"(l01), [l23] "=&r"(l23)
                         : [quads] "r"(quads), [lo] "r"(lo), [hi] "r"(hi), [top] "r"(top), [vs] "r"(stride)
                         : "memory");
    }
    for (uint32_t j = 0; j < (n & 3u); ++j) {
        const int32_t p = probs[j];
        const uint32_t w = word(v + (size_t)j * stride);
        int32_t b0, b1, b2, b3;
        __asm__(TSR_XP_EXTRACT_B("%0", "%4", 0) TSR_XP_EXTRACT_B("%1", "%4", 1) TSR_XP_EXTRACT_B("%2", "%4", 2)
                    TSR_XP_EXTRACT_B("%3", "%4", 3)
                : "=&r"(b0), "=&r"(b1), "=&r"(b2), "=&r"(b3)
                : "r"(w));
        __asm__(TSR_XP_MAC("%0", "%4", "%5") TSR_XP_MAC("%1", "%4", "%6") TSR_XP_MAC("%2", "%4", "%7")
                    TSR_XP_MAC("%3", "%4", "%8")
                : "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3)
                : "r"(p), "r"(b0), "r"(b1), "r"(b2), "r"(b3));
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

} // namespace

tsr_kernel_status tsr_quantlib_scores_xpulpv2(const int8_t *q, const int8_t *keys, int8_t *u, uint32_t count,
                                              uint32_t head_size, uint32_t first, uint32_t row_pos,
                                              const tsr_quantlib_attention *t)
{
    tsr_xpulpv2_rqs r;
    if (head_size != 4u || !q || !keys || ((uintptr_t)keys & 3u) != 0u || !t ||
        !tsr_xpulpv2_rqs_for(&t->scores, 1u << 16, &r)) // |q . k| <= 4 x 2^14
        return tsr_quantlib_scores(q, keys, u, count, head_size, first, row_pos, t); // it checks
    TSR_KERNEL_REQUIRE(u);
    const uint32_t visible = row_pos < first ? 0u : row_pos - first + 1u < count ? row_pos - first + 1u : count;
    const uint32_t qw = word(q), *k = (const uint32_t *)(const void *)keys;
    scores_part(qw, k, u, visible, t->visible + 128, r); // indexed by the int8 score
    scores_part(qw, k + visible, u + visible, count - visible, t->masked + 128, r);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_quantlib_softmax_xpulpv2(const int8_t *u, int8_t *probs, int32_t *exps, uint32_t n,
                                               const tsr_quantlib_attention *t)
{
    TSR_KERNEL_REQUIRE(u && probs && exps && n && n <= TSR_QUANTLIB_MAX_CONTEXT && t && t->levels >= 1 &&
                       t->levels <= 255 && t->exp[0] > 0);
    uint32_t largest;
    const uint32_t sum = exps_of(u, exps, n, t->exp, tsr_xpulpv2_max_i8(u, n), &largest); // n x 2^20 <= 2^31
    TSR_KERNEL_REQUIRE(largest <= (uint32_t)TSR_QUANTLIB_MAX_EXP); // the table is data
    // sum >= exp[0] > 0 (the maximum's own), e <= sum, e levels <= 2^20 x 255 < 2^32: the
    // quotient is at most levels.
    probs_of(exps, probs, n, t->prob, (uint32_t)t->levels, sum, 0xFFFFFFFFu / sum);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_quantlib_accumulate_xpulpv2(const int8_t *probs, const int8_t *values, int32_t *acc,
                                                  uint32_t count, uint32_t head_size)
{
    if (head_size != 4u || !values || ((uintptr_t)values & 3u) != 0u)
        return tsr_quantlib_accumulate(probs, values, acc, count, head_size); // it checks
    TSR_KERNEL_REQUIRE(probs && acc);
    accumulate_4(probs, values, 4u, acc, count);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_quantlib_rows_xpulpv2(const tsr_quantlib_rows_args *a)
{
    tsr_xpulpv2_rqs rs, ro;
    if (!a || a->head_size != 4u || !a->q || !a->keys || !a->values || !a->y || !a->t || !a->scratch ||
        (((uintptr_t)a->keys | (uintptr_t)a->values | (uintptr_t)a->scratch | a->kv_stride) & 3u) != 0u || !a->n ||
        a->n > TSR_QUANTLIB_MAX_CONTEXT || !tsr_xpulpv2_rqs_for(&a->t->scores, 1u << 16, &rs) || // |q . k| <= 4 x 2^14
        !tsr_xpulpv2_rqs_for(&a->t->out, a->n << 14, &ro) ||                                      // |sum p v| <= n 2^14
        a->t->levels < 1 || a->t->levels > 255 || a->t->exp[0] <= 0)
        return tsr_quantlib_rows(a); // it checks
    TSR_KERNEL_REQUIRE(a->rows);
    const tsr_quantlib_attention *t = a->t;
    const uint32_t n = a->n, levels = (uint32_t)t->levels;
    const tsr_quantlib_attention_layout l = tsr_quantlib_attention_scratch_layout(n, 4u);
    int8_t *const u = (int8_t *)a->scratch, *const probs = (int8_t *)(a->scratch + l.probs);
    int32_t *const exps = (int32_t *)(void *)(a->scratch + l.exps);
    const uint32_t stride = a->kv_stride ? a->kv_stride : 4u; // word-aligned: checked above
    const int8_t *const k = a->keys, *const v = a->values;
    const int8_t *q = a->q;
    int8_t *y = a->y;
    uint32_t row_pos = a->row_pos;
    const bool clip8 = rs.lo == -128 && rs.hi == 127;
    for (uint32_t r = 0; r < a->rows; ++r, q += a->q_stride, y += a->y_stride, row_pos += a->pos_step) {
        const uint32_t qw = word(q), visible = row_pos + 1u < n ? row_pos + 1u : n; // as the portable kernel wraps
        int32_t max = -128;
        if (clip8) {
            scores_max_part<true>(qw, k, stride, u, visible, t->visible + 128, rs, &max); // indexed by the int8 score
            scores_max_part<true>(qw, k + (size_t)visible * stride, stride, u + visible, n - visible, t->masked + 128, rs,
                                  &max);
        } else {
            scores_max_part<false>(qw, k, stride, u, visible, t->visible + 128, rs, &max);
            scores_max_part<false>(qw, k + (size_t)visible * stride, stride, u + visible, n - visible, t->masked + 128, rs,
                                   &max);
        }
        uint32_t largest;
        const uint32_t sum = exps_of(u, exps, n, t->exp, max, &largest); // n x 2^20 <= 2^31
        TSR_KERNEL_REQUIRE(largest <= (uint32_t)TSR_QUANTLIB_MAX_EXP);    // the table is data
        if (n < kExactFrom) {
            probs_of(exps, probs, n, t->prob, levels, sum, 0xFFFFFFFFu / sum);
        } else {
            const ExactQuotient x = exact_quotient(levels, sum);
            if (x.c) probs_exact<true>(exps, probs, n, t->prob, x);
            else probs_exact<false>(exps, probs, n, t->prob, x);
        }
        int32_t acc[4] = {0, 0, 0, 0};
        accumulate_4(probs, v, stride, acc, n);
        y[0] = (int8_t)tsr_xpulpv2_rqs_apply(ro, acc[0]);
        y[1] = (int8_t)tsr_xpulpv2_rqs_apply(ro, acc[1]);
        y[2] = (int8_t)tsr_xpulpv2_rqs_apply(ro, acc[2]);
        y[3] = (int8_t)tsr_xpulpv2_rqs_apply(ro, acc[3]);
    }
    return TSR_KERNEL_OK;
}
