// tsr_matmul_i8 and tsr_matmul_i8_f32 with Helium. Four output channels a pass over a
// row of x, so that each vector of x is loaded once for four: sixteen int8 products
// summed into a channel's 32-bit accumulator an instruction (VMLADAVA); when k is not a
// multiple of sixteen the last vector is loaded with its missing lanes zero (VCTP
// predication), which adds nothing. The four sums are then one vector: requantized
// four lanes at once (VMULH and a rounding shift, the portable fast path's arithmetic:
// requantize_fast.h) and stored narrowed to four bytes; the per-channel tables are
// checked in tail-predicated loops. A token's products (one row, the plain
// requantization) are inline assembly: x held in registers when k = 64, else a
// tail-predicated loop; GCC 12 spills the intrinsic forms' pointers. Integer sums are
// exact in any order: the portable kernels' results, bit for bit.
#include <arm_mve.h>

#include "kernel_checks.h"
#include "matmul_i8_checks.h"
#include "matmul_i8_dot.h"
#include "requantize_fast.h"
#include "tessera/kernels_arm_mve.h"
#include "tessera/kernels_quantlib.h"

namespace {

// tsr_matmul_i8_channels_ok as lane arithmetic whose nonzero lanes are the faults, OR-ed
// over the table and tested once, in tail-predicated loops (DLSTP/LETP: the last
// iteration's missing lanes are left alone):
//  - shifts, sixteen a vector: s + 31 (mod 256) <= 61 as an unsigned byte; and the largest;
//  - multipliers, four a vector: m - 2^30 (mod 2^32) < 2^30 unsigned, or m = 0: the
//    fault is the smaller of (m - 2^30) saturating-less (2^30 - 1) and m itself;
//  - biases: b + 2^26 <= 2^27 unsigned.
// Five instructions and the loop's end for sixteen shifts, or four multipliers.
bool channels_ok(const tsr_matmul_i8_args *a, int32_t *max_shift)
{
    const uint32_t n = a->n;
    const int8_t *shift = a->shift;
    const int32_t *mult = a->multiplier;
    int32_t most = -31; // VMAXV takes the larger of its register and the lanes
    uint32_t shift_fault = 0u, mult_fault = 0u;
    __asm__ volatile("vmov.i32 q2, #0\n"
                     "dlstp.8 lr, %[n]\n"
                     "1:\n"
                     "vldrb.u8 q0, [%[s]], #16\n"
                     "vadd.i8 q1, q0, %[k31]\n"
                     "vqsub.u8 q1, q1, %[k61]\n"
                     "vorr q2, q2, q1\n"
                     "vmaxv.s8 %[most], q0\n"
                     "letp lr, 1b\n"
                     "vmaxv.u8 %[sf], q2\n"
                     "vmov.i32 q2, #0\n"
                     "dlstp.32 lr, %[n]\n"
                     "2:\n"
                     "vldrw.u32 q0, [%[m]], #16\n"
                     "vsub.i32 q1, q0, %[two30]\n"
                     "vqsub.u32 q1, q1, %[below]\n"
                     "vmin.u32 q1, q1, q0\n"
                     "vorr q2, q2, q1\n"
                     "letp lr, 2b\n"
                     "vmaxv.u32 %[mf], q2\n"
                     : [s] "+r"(shift), [m] "+r"(mult), [most] "+r"(most), [sf] "+r"(shift_fault), [mf] "+r"(mult_fault)
                     : [n] "r"(n), [k31] "r"(31), [k61] "r"(61), [two30] "r"(1u << 30), [below] "r"((1u << 30) - 1u)
                     : "lr", "d0", "d1", "d2", "d3", "d4", "d5", "memory");
    if (a->bias) {
        uint32x4_t fault = vdupq_n_u32(0u);
        for (uint32_t i = 0; i < n; i += 4u) {
            const int32x4_t b = vldrwq_z_s32(a->bias + i, vctp32q(n - i));
            fault = vorrq_u32(fault, vqsubq_n_u32(vreinterpretq_u32_s32(vaddq_n_s32(b, 1 << 26)), 1u << 27));
        }
        mult_fault |= vmaxvq_u32(0u, fault);
    }
    *max_shift = (int8_t)most;
    return mult_fault == 0u && shift_fault == 0u;
}

// sum_j x_j w_c[j] for the four rows w_c = w + c k, k >= 1, as one vector: `blocks`
// whole vectors (k / 16) with the pointers stepping, then, when Tail (k not a multiple
// of sixteen), the last one predicated.
template <bool Tail> TSR_MVE_INLINE int32x4_t dot4(const int8_t *x, const int8_t *w, uint32_t k, uint32_t blocks)
{
    const int8_t *w1 = w + k, *w2 = w1 + k, *w3 = w2 + k;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (uint32_t b = blocks; b; --b) {
        const int8x16_t xv = vldrbq_s8(x);
        a0 = vmladavaq_s8(a0, xv, vldrbq_s8(w));
        a1 = vmladavaq_s8(a1, xv, vldrbq_s8(w1));
        a2 = vmladavaq_s8(a2, xv, vldrbq_s8(w2));
        a3 = vmladavaq_s8(a3, xv, vldrbq_s8(w3));
        x += 16, w += 16, w1 += 16, w2 += 16, w3 += 16;
    }
    if (Tail) {
        const mve_pred16_t p = vctp8q(k % 16u);
        const int8x16_t xv = vldrbq_z_s8(x, p);
        a0 = vmladavaq_s8(a0, xv, vldrbq_z_s8(w, p));
        a1 = vmladavaq_s8(a1, xv, vldrbq_z_s8(w1, p));
        a2 = vmladavaq_s8(a2, xv, vldrbq_z_s8(w2, p));
        a3 = vmladavaq_s8(a3, xv, vldrbq_z_s8(w3, p));
    }
    int32x4_t v = vdupq_n_s32(a0);
    v = vsetq_lane_s32(a1, v, 1);
    v = vsetq_lane_s32(a2, v, 2);
    return vsetq_lane_s32(a3, v, 3);
}

template <bool Tail> TSR_MVE_INLINE int32_t dot1(const int8_t *x, const int8_t *w, uint32_t k, uint32_t blocks)
{
    int32_t a = 0;
    for (uint32_t b = blocks; b; --b, x += 16, w += 16) a = vmladavaq_s8(a, vldrbq_s8(x), vldrbq_s8(w));
    if (Tail) {
        const mve_pred16_t p = vctp8q(k % 16u);
        a = vmladavaq_s8(a, vldrbq_z_s8(x, p), vldrbq_z_s8(w, p));
    }
    return a;
}

// sum_j w[j], sixteen a VADDVA.
TSR_MVE_INLINE int32_t row_sum(const int8_t *w, uint32_t k)
{
    int32_t s = 0;
    for (uint32_t j = 0; j < k; j += 16u) s = vaddvaq_p_s8(s, vldrbq_z_s8(w + j, vctp8q(k - j)), vctp8q(k - j));
    return s;
}

// Every output channel in [begin, end) of every row, four channels a pass:
// `emit4(r, i, sums)` with the sums of channels i..i+3 for row r, then `emit1(r, i, sum)`
// for the last n mod 4.
template <bool Tail, typename Emit4, typename Emit1>
TSR_MVE_INLINE void channels(const int8_t *x, const int8_t *w, uint32_t rows, uint32_t k, uint32_t begin, uint32_t end,
                     Emit4 emit4, Emit1 emit1)
{
    const uint32_t blocks = k / 16u;
    uint32_t i = begin;
    for (; i + 4u <= end; i += 4u)
        for (uint32_t r = 0; r < rows; ++r) emit4(r, i, dot4<Tail>(x + (size_t)r * k, w + (size_t)i * k, k, blocks));
    for (; i < end; ++i)
        for (uint32_t r = 0; r < rows; ++r) emit1(r, i, dot1<Tail>(x + (size_t)r * k, w + (size_t)i * k, k, blocks));
}

template <typename Emit4, typename Emit1>
TSR_MVE_INLINE void channels(const int8_t *x, const int8_t *w, uint32_t rows, uint32_t k, uint32_t begin, uint32_t end,
                     Emit4 emit4, Emit1 emit1)
{
    if (k % 16u) channels<true>(x, w, rows, k, begin, end, emit4, emit1);
    else channels<false>(x, w, rows, k, begin, end, emit4, emit1);
}

// The arguments, read once (the kernel's stores through y may alias nothing it reads,
// but the compiler cannot know that of int8_t stores).
struct Requant {
    const int32_t *bias, *multiplier;
    const int8_t *shift;
    const int8_t *w;
    int8_t *y;
    int32_t x_zero, y_zero, y_min, y_max;
    uint32_t k, ldy;

    // bias - x_zero sum_j w_ij, the portable kernel's offset: the same for every row.
    int32_t offset(uint32_t i) const
    {
        return (bias ? bias[i] : 0) - (x_zero ? x_zero * row_sum(w + (size_t)i * k, k) : 0);
    }
    void one(uint32_t r, uint32_t i, int32_t acc) const
    {
        y[(size_t)r * ldy + i] =
            tsr_requantize_to_i8_fast(acc + offset(i), multiplier[i], shift[i], y_zero, y_min, y_max);
    }
    // Channels i..i+3 with their offsets: as plain() below when their shifts are all
    // <= -2, else lane by lane.
    TSR_MVE_INLINE void four(uint32_t r, uint32_t i, int32x4_t acc) const
    {
        if (bias || x_zero)
        {
            const int32x4_t off = {offset(i), offset(i + 1u), offset(i + 2u), offset(i + 3u)};
            acc = vaddq_s32(acc, off);
        }
        const int32x4_t s = vldrbq_s32(shift + i);
        int8_t *out = y + (size_t)r * ldy + i;
        if (vmaxvq_s32(INT32_MIN, s) > -2) {
            int32_t lane[4];
            vst1q_s32(lane, acc);
            for (uint32_t c = 0; c < 4u; ++c)
                out[c] = tsr_requantize_to_i8_fast(lane[c], multiplier[i + c], shift[i + c], y_zero, y_min, y_max);
            return;
        }
        const int32x4_t t = vrshlq_s32(vmulhq_s32(acc, vldrwq_s32(multiplier + i)), vaddq_n_s32(s, 1));
        vstrbq_s32(out, vmaxq_s32(vminq_s32(vaddq_n_s32(t, y_zero), vdupq_n_s32(y_max)), vdupq_n_s32(y_min)));
    }
};

// The usual case, channels begin..end4 (a multiple of four apart): no bias, x_zero 0,
// every shift <= -2 (30 - shift >= 32: the fast path of tsr_requantize_fast). Then
// t = (acc m) >> 32 and (t >> (-2 - shift) + 1) >> 1, which is one rounding shift right
// by -1 - shift (VRSHL); y_zero added and clamped once (|t| < 2^30, so that equals the
// portable kernel's two clamps). Four channels an iteration, with every row.
template <bool Tail> TSR_MVE_INLINE
void plain(const tsr_matmul_i8_args *a, uint32_t begin, uint32_t end4)
{
    const int8_t *x = a->x, *w = a->w, *shift = a->shift;
    const int32_t *mult = a->multiplier;
    int8_t *y = a->y;
    const uint32_t k = a->k, rows = a->rows, ldy = a->ldy, blocks = k / 16u;
    const int32_t y_zero = a->y_zero, y_min = a->y_min, y_max = a->y_max;
    for (uint32_t i = begin; i < end4; i += 4u) {
        const int8_t *wi = w + (size_t)i * k;
        for (uint32_t r = 0; r < rows; ++r) {
            const int32x4_t acc = dot4<Tail>(x + (size_t)r * k, wi, k, blocks);
            const int32x4_t t = vrshlq_s32(vmulhq_s32(acc, vldrwq_s32(mult + i)), vaddq_n_s32(vldrbq_s32(shift + i), 1));
            vstrbq_s32(y + (size_t)r * ldy + i,
                       vmaxq_s32(vminq_s32(vaddq_n_s32(t, y_zero), vdupq_n_s32(y_max)), vdupq_n_s32(y_min)));
        }
    }
}

// One row (a token) with k = 64, hand-scheduled (GCC 12 spills the intrinsic form's
// pointers): x held in q4..q7 for the whole call; a group's four channels are 256
// consecutive weight bytes, read in order through one pointer; each channel's sum is
// four VMLADAV(A) into an even core register, and the four sums become one vector
// (VDUP and three lane VMOVs: QEMU 7.2 gets the two-lane VMOV's lanes wrong) for the
// group's epilogue. 16 loads + 16 multiply-accumulates for 256 MACs.
struct RowK64 {
    const int8_t *x;
    int32_t hi, lo; // plain_row_k64's clamp
};
// Clobbers of q0..q7 named by their D halves (GCC 12 takes "qN" for one of them only).
#define TSR_Q_CLOBBERS_0_TO_3 "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7"
#define TSR_Q_CLOBBERS_4_TO_7 "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15"
#define TSR_K64_LOAD_X                                                                                               \
    "ldr %[a0], [%[p]]\n"                                                                                          \
    "vldrb.s8 q4, [%[a0]]\n"                                                                                       \
    "vldrb.s8 q5, [%[a0], #16]\n"                                                                                  \
    "vldrb.s8 q6, [%[a0], #32]\n"                                                                                  \
    "vldrb.s8 q7, [%[a0], #48]\n"
#define TSR_K64_DOT(acc)                                                                                             \
    "vldrb.s8 q0, [%[w]], #16\n"                                                                                   \
    "vmladav.s8 %[" acc "], q0, q4\n"                                                                              \
    "vldrb.s8 q1, [%[w]], #16\n"                                                                                   \
    "vmladava.s8 %[" acc "], q1, q5\n"                                                                             \
    "vldrb.s8 q0, [%[w]], #16\n"                                                                                   \
    "vmladava.s8 %[" acc "], q0, q6\n"                                                                             \
    "vldrb.s8 q1, [%[w]], #16\n"                                                                                   \
    "vmladava.s8 %[" acc "], q1, q7\n"
#define TSR_K64_GROUP                                                                                                \
    TSR_K64_DOT("a0") TSR_K64_DOT("a1") TSR_K64_DOT("a2") TSR_K64_DOT("a3")                                         \
    "vdup.32 q0, %[a0]\n"                                                                                          \
    "vmov.32 q0[1], %[a1]\n"                                                                                       \
    "vmov.32 q0[2], %[a2]\n"                                                                                       \
    "vmov.32 q0[3], %[a3]\n"

// A group's four sums in q0 requantized (VQDMULH by the multipliers at m, VRSHL by the
// shifts at s: see plain_row_k64), y_zero added (a scalar register or a vector), clamped
// to [q3, q2] and stored as four bytes at y; m, s and y step past them.
#define TSR_ROW_REQUANT(y_zero)                                                                                      \
    "vldrw.u32 q1, [%[m]], #16\n"                                                                                 \
    "vqdmulh.s32 q0, q0, q1\n"                                                                                     \
    "vldrb.s32 q1, [%[s]], #4\n"                                                                                  \
    "vrshl.s32 q0, q0, q1\n"                                                                                       \
    "vadd.i32 q0, q0, " y_zero "\n"                                                                                \
    "vmin.s32 q0, q0, q2\n"                                                                                        \
    "vmax.s32 q0, q0, q3\n"                                                                                        \
    "vstrb.32 q0, [%[y]], #4\n"

// A token's groups for k = 64 (groups >= 1). The requantization is plain()'s with the
// multiply doubled: with every shift s <= -2, a rounding shift right by -s of
// (2 acc m) >> 32 (VQDMULH; m >= 0 never saturates) equals one by -1 - s of
// (acc m) >> 32, since the bit the doubling keeps cannot carry a rounding (both round
// down an odd numerator the same way), and it needs no s + 1.
void plain_row_k64(const RowK64 &p, const int8_t *w, const int32_t *mult, const int8_t *shift, int8_t *y,
                   uint32_t groups, int32_t y_zero)
{
    int32_t a0, a1, a2, a3;
    __asm__ volatile(TSR_K64_LOAD_X
                     "ldr %[a0], [%[p], #4]\n"
                     "vdup.32 q2, %[a0]\n"
                     "ldr %[a0], [%[p], #8]\n"
                     "vdup.32 q3, %[a0]\n"
                     "dls lr, %[n]\n"
                     "1:\n" TSR_K64_GROUP
                     TSR_ROW_REQUANT("%[yz]")
                     "le lr, 1b\n"
                     : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3), [w] "+r"(w), [m] "+r"(mult),
                       [s] "+r"(shift), [y] "+r"(y)
                     : [p] "r"(&p), [n] "r"(groups), [yz] "r"(y_zero)
                     : "lr", TSR_Q_CLOBBERS_0_TO_3, TSR_Q_CLOBBERS_4_TO_7, "memory");
}

// plain_row_k64 for any other k (at least one group): a tail-predicated loop
// (DLSTP/LETP) over x and the group's four rows, each sixteen weights one VMLADAVA; the
// last iteration's missing lanes add nothing. Every core register is taken, so the
// loop reads x, k and where it ends from the RowAny, and y_zero sits in a vector.
struct RowAny {
    const int8_t *x;
    int32_t hi, lo, y_zero;
    uint32_t k;
    uint32_t pad;       // 16 ceil(k / 16) - k: how far the last iteration's pointers overshoot
    const int8_t *end;  // y after the last group
};
void plain_row_any(const RowAny &p, const int8_t *w, const int32_t *mult, const int8_t *shift, int8_t *y)
{
    int32_t a0, a1, a2, a3;
    const int8_t *xp, *w1, *w2, *w3;
    __asm__ volatile("ldr %[a0], [%[p], #4]\n"
                     "vdup.32 q2, %[a0]\n"
                     "ldr %[a0], [%[p], #8]\n"
                     "vdup.32 q3, %[a0]\n"
                     "ldr %[a0], [%[p], #12]\n"
                     "vdup.32 q4, %[a0]\n"
                     "1:\n"
                     "ldr %[xp], [%[p]]\n"
                     "ldr %[a0], [%[p], #16]\n"
                     "add %[w1], %[w], %[a0]\n"
                     "add %[w2], %[w1], %[a0]\n"
                     "add %[w3], %[w2], %[a0]\n"
                     "dlstp.8 lr, %[a0]\n"
                     "movs %[a0], #0\n"
                     "movs %[a1], #0\n"
                     "movs %[a2], #0\n"
                     "movs %[a3], #0\n"
                     "2:\n"
                     "vldrb.s8 q0, [%[xp]], #16\n"
                     "vldrb.s8 q1, [%[w]], #16\n"
                     "vmladava.s8 %[a0], q0, q1\n"
                     "vldrb.s8 q1, [%[w1]], #16\n"
                     "vmladava.s8 %[a1], q0, q1\n"
                     "vldrb.s8 q1, [%[w2]], #16\n"
                     "vmladava.s8 %[a2], q0, q1\n"
                     "vldrb.s8 q1, [%[w3]], #16\n"
                     "vmladava.s8 %[a3], q0, q1\n"
                     "letp lr, 2b\n"
                     "vdup.32 q0, %[a0]\n"
                     "vmov.32 q0[1], %[a1]\n"
                     "vmov.32 q0[2], %[a2]\n"
                     "vmov.32 q0[3], %[a3]\n"
                     "ldr %[a0], [%[p], #20]\n"
                     "sub %[w], %[w3], %[a0]\n"
                     TSR_ROW_REQUANT("q4")
                     "ldr %[a0], [%[p], #24]\n"
                     "cmp %[y], %[a0]\n"
                     "bne 1b\n"
                     : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3), [xp] "=&r"(xp), [w1] "=&r"(w1),
                       [w2] "=&r"(w2), [w3] "=&r"(w3), [w] "+r"(w), [m] "+r"(mult), [s] "+r"(shift), [y] "+r"(y)
                     : [p] "r"(&p)
                     : "lr", TSR_Q_CLOBBERS_0_TO_3, "d8", "d9", "memory");
}

// tsr_matmul_i8_f32's groups for one row with k = 64 (groups >= 1): (float)sum * scale
// four lanes at once (VCVT rounds to nearest, as the scalar conversion).
void f32_row_k64(const RowK64 &p, const int8_t *w, const float *scale, float *y, uint32_t groups)
{
    int32_t a0, a1, a2, a3;
    __asm__ volatile(TSR_K64_LOAD_X
                     "dls lr, %[n]\n"
                     "1:\n" TSR_K64_GROUP
                     "vcvt.f32.s32 q0, q0\n"
                     "vldrw.u32 q1, [%[c]], #16\n"
                     "vmul.f32 q0, q0, q1\n"
                     "vstrw.32 q0, [%[y]], #16\n"
                     "le lr, 1b\n"
                     : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3), [w] "+r"(w), [c] "+r"(scale),
                       [y] "+r"(y)
                     : [p] "r"(&p), [n] "r"(groups)
                     : "lr", "d0", "d1", "d2", "d3", TSR_Q_CLOBBERS_4_TO_7, "memory");
}

} // namespace

tsr_kernel_status tsr_matmul_i8_mve(const tsr_matmul_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_scalars_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t end4 = begin + (end - begin) / 4u * 4u;
    // Tables the caller checked (tsr_matmul_i8_tables_ok), all on the plain path: not
    // scanned again, since its vector arithmetic is defined for any table; the entries
    // of the channels left over (n mod 4), which take the scalar arithmetic, are.
    int32_t max_shift = -2;
    const uint32_t trusted = TSR_MATMUL_I8_TABLES_CHECKED | TSR_MATMUL_I8_SHIFTS_FAST;
    if ((a->flags & trusted) == trusted && !a->bias && !a->x_zero)
        TSR_KERNEL_REQUIRE(tsr_matmul_i8_table_ok(a->multiplier, a->shift, nullptr, end4, end));
    else
        TSR_KERNEL_REQUIRE(channels_ok(a, &max_shift));
    if (!a->bias && !a->x_zero && max_shift <= -2) { // the rest (n mod 4) below, by the general path
        if (a->rows == 1u && a->k == 64u && end4 > begin) { // a token's matrix-vector products
            const RowK64 p = {a->x, a->y_max, a->y_min};
            plain_row_k64(p, a->w + (size_t)begin * 64u, a->multiplier + begin, a->shift + begin, a->y + begin,
                          (end4 - begin) / 4u, a->y_zero);
        } else if (a->rows == 1u && end4 > begin) {
            const uint32_t k = a->k;
            const RowAny p = {a->x, a->y_max, a->y_min, a->y_zero, k, (16u - k % 16u) % 16u, a->y + end4};
            plain_row_any(p, a->w + (size_t)begin * k, a->multiplier + begin, a->shift + begin, a->y + begin);
        } else if (a->rows > 1u && a->k % 16u) plain<true>(a, begin, end4);
        else if (a->rows > 1u) plain<false>(a, begin, end4);
        begin = end4;
    }
    if (begin == end) return TSR_KERNEL_OK;
    const Requant q = {a->bias, a->multiplier, a->shift, a->w, a->y, a->x_zero, a->y_zero, a->y_min, a->y_max, a->k, a->ldy};
    channels(
        a->x, a->w, a->rows, a->k, begin, end, [&q](uint32_t r, uint32_t i, int32x4_t acc) { q.four(r, i, acc); },
        [&q](uint32_t r, uint32_t i, int32_t acc) { q.one(r, i, acc); });
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_matmul_i8_f32_mve(const tsr_matmul_i8_f32_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_f32_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const float *scale = a->scale;
    float *y = a->y;
    const uint32_t ldy = a->ldy;
    if (a->rows == 1u && a->k == 64u && end - begin >= 4u) {
        const uint32_t groups = (end - begin) / 4u;
        f32_row_k64(RowK64{a->x, 0, 0}, a->w + (size_t)begin * 64u, scale + begin, y + begin, groups);
        begin += 4u * groups;
    }
    // (float)dot * scale[i]: VCVT rounds to nearest as the scalar conversion does, and
    // the products are IEEE single multiplies (a packer's scales give no subnormal one).
    channels(
        a->x, a->w, a->rows, a->k, begin, end,
        [=](uint32_t r, uint32_t i, int32x4_t dot) {
            vstrwq_f32(y + (size_t)r * ldy + i, vmulq_f32(vcvtq_f32_s32(dot), vldrwq_f32(scale + i)));
        },
        [=](uint32_t r, uint32_t i, int32_t dot) { y[(size_t)r * ldy + i] = (float)dot * scale[i]; });
    return TSR_KERNEL_OK;
}

namespace {

// RequantShift of four channels' sums, as tsr_rqs_apply: when every lane's |acc| is
// within its channel's 32-bit limit (tsr_rqs_prepare), acc mul + add + round in 32 bits
// shifted right arithmetically (VSHL by -shift: a shift of 32 or more leaves the sign, as
// the 64-bit shift does for a value within int32), clamped, stored narrowed; else lane by
// lane. Where the caller proved every channel's 32-bit form (TSR_MATMUL_I8_RQS_FITS_32:
// the runtime, at open) a block prepares nothing and checks no lane (a wrong flag wraps,
// the vector arithmetic's way).
struct Rqs4 {
    tsr_rqs_prepared p[4];
    int32x4_t mul, add_round, limit;
    bool vector; // every channel has a 32-bit form
    bool fits;   // known for every channel of the call: no lane checked
    void prepare(const tsr_matmul_i8_rqs_args *a, uint32_t i)
    {
        if (fits) {
            const uint32_t round = a->range.shift > 0 ? 1u << (a->range.shift - 1) : 0u;
            mul = vld1q_s32(a->mul + i);
            add_round = vreinterpretq_s32_u32(vaddq_n_u32(vreinterpretq_u32_s32(vld1q_s32(a->add + i)), round));
            return;
        }
        int32_t m[4], ar[4], lim[4];
        vector = true;
        for (uint32_t c = 0; c < 4u; ++c) {
            const tsr_rqs_params r = {a->mul[i + c], a->add[i + c], a->range.shift, a->range.lo, a->range.hi};
            p[c] = tsr_rqs_prepare(&r);
            vector = vector && p[c].span != 0u && p[c].limit <= 0x7FFFFFFFu;
            m[c] = r.mul, ar[c] = p[c].add_round, lim[c] = (int32_t)(p[c].limit & 0x7FFFFFFFu);
        }
        mul = vld1q_s32(m), add_round = vld1q_s32(ar), limit = vld1q_s32(lim);
    }
    TSR_MVE_INLINE void store(int32x4_t acc, int8_t *y, const tsr_rqs_params &range) const
    {
        if (fits || (vector && !(vcmpgtq_s32(vabsq_s32(acc), limit) & 0xFFFFu))) {
            const int32x4_t v = vshlq_s32(vaddq_s32(vmulq_s32(acc, mul), add_round), vdupq_n_s32(-range.shift));
            vstrbq_s32(y, vmaxq_s32(vminq_s32(v, vdupq_n_s32(range.hi)), vdupq_n_s32(range.lo)));
            return;
        }
        int32_t lane[4];
        vst1q_s32(lane, acc);
        for (uint32_t c = 0; c < 4u; ++c) y[c] = (int8_t)tsr_rqs_apply(&p[c], lane[c]);
    }
};

template <bool Tail> TSR_MVE_INLINE void rqs_groups(const tsr_matmul_i8_rqs_args *a, uint32_t begin, uint32_t end4)
{
    const uint32_t k = a->k, blocks = k / 16u;
    Rqs4 q;
    q.fits = (a->flags & TSR_MATMUL_I8_RQS_FITS_32) && a->range.shift < 31;
    for (uint32_t i = begin; i < end4; i += 4u) {
        q.prepare(a, i);
        const int8_t *wi = a->w + (size_t)i * k;
        for (uint32_t r = 0; r < a->rows; ++r)
            q.store(dot4<Tail>(a->x + (size_t)r * k, wi, k, blocks), a->y + (size_t)r * a->ldy + i, a->range);
    }
}

} // namespace

tsr_kernel_status tsr_matmul_i8_rqs_mve(const tsr_matmul_i8_rqs_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tsr_matmul_i8_rqs_args_ok(a));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->n, core_id, core_count, &begin, &end);
    const uint32_t end4 = begin + (end - begin) / 4u * 4u;
    if (a->k % 16u) rqs_groups<true>(a, begin, end4);
    else rqs_groups<false>(a, begin, end4);
    const uint32_t blocks = a->k / 16u;
    const bool fits = (a->flags & TSR_MATMUL_I8_RQS_FITS_32) && a->range.shift < 31;
    const int32_t shift = a->range.shift, lo = a->range.lo, hi = a->range.hi;
    const uint32_t round = fits && shift > 0 ? 1u << (shift - 1) : 0u;
    for (uint32_t i = end4; i < end; ++i) {
        const tsr_rqs_params r = {a->mul[i], a->add[i], shift, lo, hi};
        const tsr_rqs_prepared p = fits ? tsr_rqs_prepared{} : tsr_rqs_prepare(&r);
        for (uint32_t row = 0; row < a->rows; ++row) {
            const int8_t *x = a->x + (size_t)row * a->k, *w = a->w + (size_t)i * a->k;
            const int32_t acc = a->k % 16u ? dot1<true>(x, w, a->k, blocks) : dot1<false>(x, w, a->k, blocks);
            int32_t out;
            if (fits) { // the 32-bit form in unsigned words (a wrong flag wraps), shift < 31
                const int32_t v = (int32_t)((uint32_t)acc * (uint32_t)r.mul + (uint32_t)r.add + round) >> shift;
                out = v < lo ? lo : v > hi ? hi : v;
            } else {
                out = tsr_rqs_apply(&p, acc); // shifts up to 62: the prepared form's
            }
            a->y[(size_t)row * a->ldy + i] = (int8_t)out;
        }
    }
    return TSR_KERNEL_OK;
}
