// Dot products of int8 rows on XpulpV2 (k a multiple of 4, rows word-aligned): a word of
// x and of each weight row loaded with post-increment, one sdotsp.b per four MACs,
// in a hardware loop. Shared by the set's int8 matmuls.
#ifndef TESSERA_XPULPV2_DOT_H
#define TESSERA_XPULPV2_DOT_H

#include <stddef.h>
#include <stdint.h>

#include "kernel_checks.h"
#include "xpulpv2_insn.h"

// The sum of the four signed byte products of a and b (dotsp.b).
static inline int32_t tsr_xpulpv2_dotsp(uint32_t a, uint32_t b)
{
    int32_t d;
    __asm__(TSR_XP_DOTSP_B("%0", "%1", "%2") : "=r"(d) : "r"(a), "r"(b));
    return d;
}

// acc[c] += x . w_c over `words` words, for the four weight rows w, w + k, w + 2k, w + 3k
// (words > 0).
static inline void tsr_xpulpv2_dot_1x4_part(const int8_t *x, const int8_t *w, uint32_t k, uint32_t words, int32_t acc[4])
{
    const int8_t *w0 = w, *w1 = w + k, *w2 = w + 2 * k, *w3 = w + 3 * k;
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    uint32_t xv, v0, v1, v2, v3;
    __asm__ volatile(".balign 4\n"
                     ".option push\n.option norvc\n.option norelax\n"
                     TSR_XP_SETUP0("%[n]", 9)
                     TSR_XP_LW_POST4("%[xv]", "%[x]")
                     TSR_XP_LW_POST4("%[v0]", "%[w0]")
                     TSR_XP_LW_POST4("%[v1]", "%[w1]")
                     TSR_XP_LW_POST4("%[v2]", "%[w2]")
                     TSR_XP_LW_POST4("%[v3]", "%[w3]")
                     TSR_XP_SDOTSP_B("%[a0]", "%[xv]", "%[v0]")
                     TSR_XP_SDOTSP_B("%[a1]", "%[xv]", "%[v1]")
                     TSR_XP_SDOTSP_B("%[a2]", "%[xv]", "%[v2]")
                     TSR_XP_SDOTSP_B("%[a3]", "%[xv]", "%[v3]")
                     ".option pop\n"
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w0] "+r"(w0),
                       [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), [xv] "=&r"(xv), [v0] "=&r"(v0), [v1] "=&r"(v1),
                       [v2] "=&r"(v2), [v3] "=&r"(v3)
                     : [n] "r"(words)
                     : "memory");
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

// acc0[c] += x0 . w_c and acc1[c] += x1 . w_c over `words` words, for the four weight rows
// w, w + k, w + 2k, w + 3k (words > 0): two rows of x against each weight word loaded
// once, 32 MACs in 14 instructions.
static inline void tsr_xpulpv2_dot_2x4_part(const int8_t *x0, const int8_t *x1, const int8_t *w, uint32_t k,
                                            uint32_t words, int32_t acc0[4], int32_t acc1[4])
{
    const int8_t *w0 = w, *w1 = w + k, *w2 = w + 2 * k, *w3 = w + 3 * k;
    int32_t a0 = acc0[0], a1 = acc0[1], a2 = acc0[2], a3 = acc0[3];
    int32_t b0 = acc1[0], b1 = acc1[1], b2 = acc1[2], b3 = acc1[3];
    // The loaded words in fixed temporaries (clobbered), not operands: GCC takes at most 30.
    __asm__ volatile(".balign 4\n"
                     ".option push\n.option norvc\n.option norelax\n"
                     TSR_XP_SETUP0("%[n]", 14)
                     TSR_XP_LW_POST4("t0", "%[x0]")
                     TSR_XP_LW_POST4("t1", "%[x1]")
                     TSR_XP_LW_POST4("t2", "%[w0]")
                     TSR_XP_LW_POST4("t3", "%[w1]")
                     TSR_XP_LW_POST4("t4", "%[w2]")
                     TSR_XP_LW_POST4("t5", "%[w3]")
                     TSR_XP_SDOTSP_B("%[a0]", "t0", "t2")
                     TSR_XP_SDOTSP_B("%[b0]", "t1", "t2")
                     TSR_XP_SDOTSP_B("%[a1]", "t0", "t3")
                     TSR_XP_SDOTSP_B("%[b1]", "t1", "t3")
                     TSR_XP_SDOTSP_B("%[a2]", "t0", "t4")
                     TSR_XP_SDOTSP_B("%[b2]", "t1", "t4")
                     TSR_XP_SDOTSP_B("%[a3]", "t0", "t5")
                     TSR_XP_SDOTSP_B("%[b3]", "t1", "t5")
                     ".option pop\n"
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [b0] "+r"(b0), [b1] "+r"(b1),
                       [b2] "+r"(b2), [b3] "+r"(b3), [x0] "+r"(x0), [x1] "+r"(x1), [w0] "+r"(w0), [w1] "+r"(w1),
                       [w2] "+r"(w2), [w3] "+r"(w3)
                     : [n] "r"(words)
                     : "t0", "t1", "t2", "t3", "t4", "t5", "memory");
    acc0[0] = a0, acc0[1] = a1, acc0[2] = a2, acc0[3] = a3;
    acc1[0] = b0, acc1[1] = b1, acc1[2] = b2, acc1[3] = b3;
}

// acc + x . w over `words` words (words > 0).
static inline int32_t tsr_xpulpv2_dot_1x1_part(const int8_t *x, const int8_t *w, uint32_t words, int32_t a)
{
    uint32_t xv, v;
    __asm__ volatile(".balign 4\n"
                     ".option push\n.option norvc\n.option norelax\n"
                     TSR_XP_SETUP0("%[n]", 4)
                     TSR_XP_LW_POST4("%[xv]", "%[x]")
                     TSR_XP_LW_POST4("%[v]", "%[w]")
                     "nop\n"
                     TSR_XP_SDOTSP_B("%[a]", "%[xv]", "%[v]")
                     ".option pop\n"
                     : [a] "+r"(a), [x] "+r"(x), [w] "+r"(w), [xv] "=&r"(xv), [v] "=&r"(v)
                     : [n] "r"(words)
                     : "memory");
    return a;
}

// sums[c] = the sum of weight row c (of w, w + k, w + 2k, w + 3k): each word against
// 0x01010101 in sdotsp.b, 8 instructions per 16 weights.
static inline void tsr_xpulpv2_row_sums_4(const int8_t *w, uint32_t k, int32_t sums[4])
{
    const int8_t *w0 = w, *w1 = w + k, *w2 = w + 2 * k, *w3 = w + 3 * k;
    const uint32_t ones = 0x01010101u;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    uint32_t v0, v1, v2, v3;
    __asm__ volatile(".balign 4\n"
                     ".option push\n.option norvc\n.option norelax\n"
                     TSR_XP_SETUP0("%[n]", 8)
                     TSR_XP_LW_POST4("%[v0]", "%[w0]")
                     TSR_XP_LW_POST4("%[v1]", "%[w1]")
                     TSR_XP_LW_POST4("%[v2]", "%[w2]")
                     TSR_XP_LW_POST4("%[v3]", "%[w3]")
                     TSR_XP_SDOTSP_B("%[a0]", "%[one]", "%[v0]")
                     TSR_XP_SDOTSP_B("%[a1]", "%[one]", "%[v1]")
                     TSR_XP_SDOTSP_B("%[a2]", "%[one]", "%[v2]")
                     TSR_XP_SDOTSP_B("%[a3]", "%[one]", "%[v3]")
                     ".option pop\n"
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [w0] "+r"(w0), [w1] "+r"(w1),
                       [w2] "+r"(w2), [w3] "+r"(w3), [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2), [v3] "=&r"(v3)
                     : [n] "r"(k >> 2), [one] "r"(ones)
                     : "memory");
    sums[0] = a0, sums[1] = a1, sums[2] = a2, sums[3] = a3;
}

// The cluster core this runs on: mhartid's core field (bits 4:0) on PULP clusters (GVSoC's
// Siracusa, the RTL testbench). csrr as .insn: the kernels' -march has no Zicsr.
static inline uint32_t tsr_xpulpv2_cluster_core(void)
{
    uint32_t id;
    __asm__ volatile(".insn i 0x73, 2, %0, x0, -236" : "=r"(id)); // csrrs id, mhartid (0xF14), x0
    return id & 0x1Fu;
}

// Where a call starts its pass over k words: two words further on each core, so that cores
// in step load from different banks of a 16-bank word-interleaved L1 (x is shared, and weight
// rows k bytes apart often start in one bank). A call the cores share (core_count > 1) is
// skewed by core_id; a call a core makes alone while the others make theirs (core 0 of 1: a
// fused step's columns, each core a range of its own) by the cluster core it runs on. The
// integer sums are the same in any order.
static inline uint32_t tsr_xpulpv2_skew(uint32_t core_id, uint32_t core_count, uint32_t words)
{
    if (words <= 1u) return 0u;
    const uint32_t core = core_count > 1u ? core_id : tsr_xpulpv2_cluster_core();
    uint32_t skew = 2u * core; // (2 core) % words, without a division: words > 2 core in the usual case
    while (skew >= words) skew -= words;
    return skew;
}

// acc[c] = x . w_c (k = 4 * words), from word `skew` round to it.
static inline void tsr_xpulpv2_dot_1x4(const int8_t *x, const int8_t *w, uint32_t k, uint32_t skew, int32_t acc[4])
{
    const uint32_t words = k >> 2;
    acc[0] = acc[1] = acc[2] = acc[3] = 0;
    tsr_xpulpv2_dot_1x4_part(x + 4u * skew, w + 4u * skew, k, words - skew, acc);
    if (skew) tsr_xpulpv2_dot_1x4_part(x, w, k, skew, acc);
}

// acc0[c] = x0 . w_c and acc1[c] = x1 . w_c (k = 4 * words), from word `skew` round to it.
static inline void tsr_xpulpv2_dot_2x4(const int8_t *x0, const int8_t *x1, const int8_t *w, uint32_t k, uint32_t skew,
                                       int32_t acc0[4], int32_t acc1[4])
{
    const uint32_t words = k >> 2;
    acc0[0] = acc0[1] = acc0[2] = acc0[3] = 0;
    acc1[0] = acc1[1] = acc1[2] = acc1[3] = 0;
    tsr_xpulpv2_dot_2x4_part(x0 + 4u * skew, x1 + 4u * skew, w + 4u * skew, k, words - skew, acc0, acc1);
    if (skew) tsr_xpulpv2_dot_2x4_part(x0, x1, w, k, skew, acc0, acc1);
}

// x . w (k = 4 * words), from word `skew` round to it.
static inline int32_t tsr_xpulpv2_dot_1x1(const int8_t *x, const int8_t *w, uint32_t k, uint32_t skew)
{
    const int32_t a = tsr_xpulpv2_dot_1x1_part(x + 4u * skew, w + 4u * skew, (k >> 2) - skew, 0);
    return skew ? tsr_xpulpv2_dot_1x1_part(x, w, skew, a) : a;
}

// This core's share of output channels [0, n) of x (rows x k) times w (n x k), four
// channels at a time (then one): prepare(i, block, w_i) once per block, store(r, i, block,
// acc) with each row's dot products, as the portable tsr_i8_channel_blocks.
template <typename Prepare, typename Store>
static inline void tsr_xpulpv2_channel_blocks(const int8_t *x, const int8_t *w, uint32_t rows, uint32_t k, uint32_t n,
                                              uint32_t core_id, uint32_t core_count, Prepare prepare, Store store)
{
    uint32_t begin, end;
    tsr_core_range(n, core_id, core_count, &begin, &end);
    const uint32_t skew = tsr_xpulpv2_skew(core_id, core_count, k >> 2);
    for (uint32_t i = begin; i < end;) {
        const uint32_t block = end - i >= 4u ? 4u : 1u;
        const int8_t *wi = w + (size_t)i * k;
        prepare(i, block, wi);
        for (uint32_t r = 0; r < rows; ++r) {
            int32_t acc[4];
            const int8_t *xr = x + (size_t)r * k;
            if (block == 4u) tsr_xpulpv2_dot_1x4(xr, wi, k, skew, acc);
            else acc[0] = tsr_xpulpv2_dot_1x1(xr, wi, k, skew);
            store(r, i, block, acc);
        }
        i += block;
    }
}

// Whether the operands suit the dot products above.
static inline bool tsr_xpulpv2_words(const int8_t *x, const int8_t *w, uint32_t k)
{
    return k != 0u && (k & 3u) == 0u && (((uintptr_t)x | (uintptr_t)w) & 3u) == 0u;
}

// floor(n / d) for n < 2^32 and d >= 1, given m = floor((2^32 - 1) / d): n m / 2^32 lies
// within (n / d - 1, n / d], so the high half of the product is the quotient or one less.
static inline uint32_t tsr_xpulpv2_divide(uint32_t n, uint32_t d, uint32_t m)
{
    uint32_t q = (uint32_t)(((uint64_t)n * m) >> 32);
    if (n - q * d >= d) ++q;
    return q;
}

// The largest of the int8s u[0..n) (n >= 1): two a hardware-loop pass.
static inline int32_t tsr_xpulpv2_max_i8(const int8_t *u, uint32_t n)
{
    int32_t m = *u++;
    if (const uint32_t pairs = (n - 1u) >> 1) {
        int32_t a, b;
        __asm__ volatile(TSR_HWLOOP_BEGIN("%[pairs]", 4)
                         TSR_XP_LB_POST1("%[a]", "%[u]")
                         TSR_XP_LB_POST1("%[b]", "%[u]")
                         TSR_XP_MAX("%[m]", "%[m]", "%[a]")
                         TSR_XP_MAX("%[m]", "%[m]", "%[b]")
                         TSR_HWLOOP_END
                         : [m] "+r"(m), [u] "+r"(u), [a] "=&r"(a), [b] "=&r"(b)
                         : [pairs] "r"(pairs)
                         : "memory");
    }
    if (!(n & 1u)) m = *u > m ? *u : m;
    return m;
}

// The sum of the squares of a row of dim int8s (<= 2^28).
static inline uint32_t tsr_xpulpv2_squares(const int8_t *x, uint32_t dim)
{
    uint32_t sum = 0, i = 0;
    if (tsr_xpulpv2_words(x, x, dim & ~3u)) {
        sum = (uint32_t)tsr_xpulpv2_dot_1x1_part(x, x, dim >> 2, 0);
        i = dim & ~3u;
    }
    for (; i < dim; ++i) sum += (uint32_t)(x[i] * x[i]);
    return sum;
}

// A row-normalizing kernel's share of rows x dim items (rows * dim < 2^32): a run of them
// split over the cores, so that one row takes every core; in place (y overlapping x), whole
// rows, since a core's outputs may be another core's inputs.
static inline void tsr_xpulpv2_row_items(const int8_t *x, const int8_t *y, uint32_t rows, uint32_t dim,
                                         uint32_t core_id, uint32_t core_count, uint32_t *begin, uint32_t *end)
{
    const uint32_t items = rows * dim;
    if (y < x + items && x < y + items) {
        tsr_core_range(rows, core_id, core_count, begin, end);
        *begin *= dim, *end *= dim;
    } else {
        tsr_core_range(items, core_id, core_count, begin, end);
    }
}

#endif
