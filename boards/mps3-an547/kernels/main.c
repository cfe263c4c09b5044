/* The Helium kernel set against the portable references on the Cortex-M55 (QEMU): each
 * pair runs on the same pseudo-random operands over shapes that take every path of the
 * Helium kernels (matmul: k a multiple of sixteen or not, n a multiple of four or not,
 * one row or several, a zero point and a bias or none, shifts on the vector path (<= -2)
 * and off it, zero multipliers, clamping bounds, the work split over cores; attention:
 * head sizes the vector paths take and others, counts not a multiple of four, zero
 * points, softmax scales across their range), and their outputs must be equal byte for
 * byte. Tables out of their documented ranges must be refused by
 * both, with y untouched. Prints a line per kernel and exits 1 when anything differs.
 *
 *   kernels: arm-mve against the portable references: 1443 cases equal, 0 differ
 */
#include <stdint.h>
#include <string.h>

#include "tessera/kernels_arm_mve.h"
#include "tessera/mps3_an547.h"

static uint32_t g_seed = 12345u;
static uint32_t next(void) { return g_seed = g_seed * 1664525u + 1013904223u; }
static int32_t in_range(int32_t lo, int32_t hi) { return lo + (int32_t)((next() >> 8) % (uint32_t)(hi - lo + 1)); }
static void fill(int8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) p[i] = (int8_t)(next() >> 24);
}

enum { kMaxRows = 5, kMaxK = 300, kMaxN = 64, kMaxCount = 300, kMaxHead = 48 };
static int8_t g_x[kMaxRows * kMaxK], g_w[kMaxN * kMaxK], g_y0[kMaxRows * kMaxN + 8], g_y1[kMaxRows * kMaxN + 8];
static int32_t g_bias[kMaxN], g_mult[kMaxN];
static int8_t g_shift[kMaxN];
static float g_scale[kMaxN], g_f0[kMaxRows * kMaxN + 2], g_f1[kMaxRows * kMaxN + 2];

static uint32_t g_cases, g_failed;
static const char *g_first_failure;

static void check(int equal, const char *what)
{
    ++g_cases;
    if (!equal) {
        if (!g_failed) g_first_failure = what;
        ++g_failed;
    }
}

/* The tables: multipliers 0 now and then, else in [2^30, 2^31); shifts mostly on the
 * vector path, sometimes (fast_only 0) anywhere in [-31, 30]. */
static void tables(uint32_t n, int fast_only)
{
    for (uint32_t i = 0; i < n; ++i) {
        g_mult[i] = next() % 11u == 0u ? 0 : (int32_t)(0x40000000u + (next() >> 2));
        if (next() % 13u == 0u) g_mult[i] = next() % 2u ? 0x7FFFFFFF : 0x40000000; /* the range's ends */
        g_shift[i] = (int8_t)(fast_only || next() % 3u ? in_range(-31, -2) : in_range(-31, 30));
        g_bias[i] = in_range(-(1 << 26), 1 << 26);
        g_scale[i] = (float)in_range(1, 1 << 20) * 1.0e-9f;
    }
}

static void matmul_case(uint32_t rows, uint32_t k, uint32_t n, int32_t x_zero, int with_bias, int fast_only,
                        uint32_t cores)
{
    fill(g_x, rows * k), fill(g_w, n * k);
    tables(n, fast_only);
    const int32_t y_min = next() % 2u ? -128 : in_range(-128, 0), y_max = next() % 2u ? 127 : in_range(y_min, 127);
    const uint32_t ldy = n + (next() % 2u) * 3u; /* a column tile written in place */
    memset(g_y0, 0x5a, sizeof g_y0), memset(g_y1, 0x5a, sizeof g_y1);
    tsr_matmul_i8_args a = {g_x, g_w, with_bias ? g_bias : 0, g_mult, g_shift, g_y0, x_zero, in_range(-128, 127),
                            y_min, y_max, rows, k, n, ldy, 0};
    if (ldy * rows > sizeof g_y0) a.ldy = n;
    int ok = 1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_matmul_i8_ref(&a, c, cores) == TSR_KERNEL_OK;
    a.y = g_y1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_matmul_i8_mve(&a, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(g_y0, g_y1, sizeof g_y0) == 0, "matmul_i8");
    /* again with the tables checked once beforehand (tsr_matmul_i8_tables_ok: the runtime
     * does it at open): the kernel skips its scan where it may, the same bytes */
    ok = tsr_matmul_i8_tables_ok(g_mult, g_shift, a.bias, n, &a.flags);
    memset(g_y1, 0x5a, sizeof g_y1);
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_matmul_i8_mve(&a, c, cores) == TSR_KERNEL_OK;
    check(ok && (a.flags & TSR_MATMUL_I8_SHIFTS_FAST || !fast_only) && memcmp(g_y0, g_y1, sizeof g_y0) == 0,
          "matmul_i8 with checked tables");

    /* the dequantizing form on the same operands */
    const tsr_matmul_i8_f32_args f = {g_x, g_w, g_scale, g_f0, rows, k, n, n};
    tsr_matmul_i8_f32_args f1 = f;
    f1.y = g_f1;
    memset(g_f0, 0, sizeof g_f0), memset(g_f1, 0, sizeof g_f1);
    ok = 1;
    for (uint32_t c = 0; c < cores; ++c)
        ok &= tsr_matmul_i8_f32_ref(&f, c, cores) == TSR_KERNEL_OK && tsr_matmul_i8_f32_mve(&f1, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(g_f0, g_f1, sizeof g_f0) == 0, "matmul_i8_f32");
}

/* The fp32 matmul: the portable kernel's bits (its multiply-adds in input order). */
static float g_xf[kMaxRows * kMaxK], g_wf[kMaxN * kMaxK];
static float uniform(void) { return (float)((int32_t)(next() >> 8) - (1 << 23)) / (float)(1 << 23); }
static void f32_case(uint32_t rows, uint32_t k, uint32_t n, uint32_t cores)
{
    for (uint32_t i = 0; i < rows * k; ++i) g_xf[i] = uniform();
    for (uint32_t i = 0; i < n * k; ++i) g_wf[i] = uniform();
    const uint32_t ldy = n + (next() % 2u) * 2u;
    memset(g_f0, 0, sizeof g_f0), memset(g_f1, 0, sizeof g_f1);
    int ok = 1;
    const uint32_t stride = ldy * rows <= kMaxRows * kMaxN ? ldy : n;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_matmul_f32(g_xf, g_wf, g_f0, rows, k, n, stride, c, cores) == TSR_KERNEL_OK;
    for (uint32_t c = 0; c < cores; ++c)
        ok &= tsr_matmul_f32_mve(g_xf, g_wf, g_f1, rows, k, n, stride, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(g_f0, g_f1, sizeof g_f0) == 0, "matmul_f32");
}

/* The fp32 softmax: scores across the exponential's range, its clamps included. */
static void softmax_f32_case(uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t kind = next() % 16u;
        g_f0[i] = kind == 0u ? -150.0f + uniform() : kind == 1u ? 95.0f + uniform() : 30.0f * uniform();
    }
    memcpy(g_f1, g_f0, n * sizeof(float));
    tsr_softmax_f32(g_f0, n);
    tsr_softmax_f32_mve(g_f1, n);
    check(memcmp(g_f0, g_f1, n * sizeof(float)) == 0, "softmax_f32");
}

/* The fp32 attention's scores and weighted sum (outputs accumulating over a chunk). */
static void attention_f32_case(uint32_t count, uint32_t hs, uint32_t cores)
{
    for (uint32_t i = 0; i < count * hs; ++i) g_xf[i] = uniform(), g_wf[i] = uniform();
    for (uint32_t d = 0; d < hs; ++d) g_wf[kMaxN * kMaxK - 1 - d] = uniform(); /* q at the far end */
    const float *q = g_wf + kMaxN * kMaxK - hs;
    memset(g_f0, 0, sizeof g_f0), memset(g_f1, 0, sizeof g_f1);
    int ok = 1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_attention_scores_f32(q, g_xf, g_f0, count, hs, c, cores) == TSR_KERNEL_OK;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_attention_scores_f32_mve(q, g_xf, g_f1, count, hs, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(g_f0, g_f1, sizeof g_f0) == 0, "attention_scores_f32");
    float p[kMaxCount], out0[kMaxHead], out1[kMaxHead];
    for (uint32_t t = 0; t < count; ++t) p[t] = 0.5f + 0.5f * uniform();
    for (uint32_t d = 0; d < hs; ++d) out0[d] = out1[d] = uniform();
    ok = 1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_attention_accumulate_f32(p, g_wf, out0, count, hs, c, cores) == TSR_KERNEL_OK;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_attention_accumulate_f32_mve(p, g_wf, out1, count, hs, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(out0, out1, hs * sizeof(float)) == 0, "attention_accumulate_f32");
}

/* QuantLib's RequantShift matmul (Deeploy's graphs): multipliers and addends of the
 * sizes its graphs have, and now and then ones whose 32-bit form does not hold (the
 * 64-bit path), shifts across 0..62. */
static int32_t g_mul[kMaxN], g_add[kMaxN];
static void rqs_case(uint32_t rows, uint32_t k, uint32_t n, uint32_t cores)
{
    fill(g_x, rows * k), fill(g_w, n * k);
    const int32_t shift = next() % 6u ? in_range(8, 24) : in_range(0, 62);
    for (uint32_t i = 0; i < n; ++i) {
        g_mul[i] = next() % 7u ? in_range(-512, 512) : (int32_t)next();
        g_add[i] = next() % 7u ? in_range(-(1 << 20), 1 << 20) : (int32_t)next();
    }
    const tsr_rqs_params range = {0, 0, shift, next() % 2u ? -128 : in_range(-128, 0), next() % 2u ? 127 : in_range(1, 127)};
    memset(g_y0, 0x5a, sizeof g_y0), memset(g_y1, 0x5a, sizeof g_y1);
    tsr_matmul_i8_rqs_args a = {g_x, g_w, g_mul, g_add, g_y0, range, rows, k, n, n};
    int ok = 1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_matmul_i8_rqs_ref(&a, c, cores) == TSR_KERNEL_OK;
    a.y = g_y1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_matmul_i8_rqs_mve(&a, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(g_y0, g_y1, sizeof g_y0) == 0, "matmul_i8_rqs");
}

/* One table entry out of its range: both refuse, neither writes. */
static void refused_case(uint32_t n, int which)
{
    tables(n, 0);
    const uint32_t at = next() % n;
    if (which == 0) g_mult[at] = in_range(1, (1 << 30) - 1);
    if (which == 1) g_mult[at] = next() % 2u ? -in_range(1, 1 << 30) : (1 << 30) - 1; /* just below the range */
    if (which == 2) g_shift[at] = (int8_t)(next() % 2u ? 31 : -32);
    if (which == 3) g_bias[at] = next() % 2u ? (1 << 26) + 1 : -(1 << 26) - 1;
    fill(g_x, 64), fill(g_w, n * 64u);
    memset(g_y0, 0x5a, sizeof g_y0), memset(g_y1, 0x5a, sizeof g_y1);
    tsr_matmul_i8_args a = {g_x, g_w, g_bias, g_mult, g_shift, g_y0, 0, 0, -128, 127, 1, 64, n, n, 0};
    const tsr_kernel_status r0 = tsr_matmul_i8_ref(&a, 0, 1);
    a.y = g_y1;
    const tsr_kernel_status r1 = tsr_matmul_i8_mve(&a, 0, 1);
    uint32_t flags = 0;
    check(r0 != TSR_KERNEL_OK && r1 == r0 && memcmp(g_y0, g_y1, sizeof g_y0) == 0 && (uint8_t)g_y1[0] == 0x5au &&
              !tsr_matmul_i8_tables_ok(g_mult, g_shift, g_bias, n, &flags) && flags == 0u,
          "matmul_i8 refusal");
}

/* The integer attention's pieces for one (row, head): scores of `count` keys, their
 * softmax, the weighted sum of the values into accumulators that already hold a chunk. */
static int8_t g_q[kMaxHead], g_keys[kMaxCount * kMaxHead], g_values[kMaxCount * kMaxHead];
static int8_t g_s0[kMaxCount + 4], g_s1[kMaxCount + 4];
static uint16_t g_p0[kMaxCount + 4], g_p1[kMaxCount + 4];
static uint32_t g_e[kMaxCount + 4];
static int32_t g_acc0[kMaxHead], g_acc1[kMaxHead];

static void attention_case(uint32_t count, uint32_t hs, int32_t q_zero, int32_t k_zero, int32_t v_zero, uint32_t cores)
{
    fill(g_q, hs), fill(g_keys, count * hs), fill(g_values, count * hs);
    const int32_t multiplier = (int32_t)(0x40000000u + (next() >> 2));
    const int32_t shift = next() % 5u ? in_range(-14, -2) : in_range(-31, 3);
    memset(g_s0, 0x5a, sizeof g_s0), memset(g_s1, 0x5a, sizeof g_s1);
    tsr_attention_scores_i8_args s = {g_q, g_keys, g_s0, q_zero, k_zero, multiplier, shift, count, hs};
    int ok = 1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_attention_scores_i8_ref(&s, c, cores) == TSR_KERNEL_OK;
    s.scores = g_s1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_attention_scores_i8_mve(&s, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(g_s0, g_s1, sizeof g_s0) == 0, "attention_scores_i8");

    /* the softmax of the scores, at a scale the packer could give */
    tsr_iexp_constants k;
    const double scales[] = {1.0 / 2048.0, 0.01, 0.05, 0.3, 2.0, 15.9};
    tsr_iexp_constants_for(scales[next() % 6u], &k);
    memset(g_p0, 0x5a, sizeof g_p0), memset(g_p1, 0x5a, sizeof g_p1);
    tsr_softmax_i8_args m = {g_s0, g_p0, count, k};
    ok = tsr_softmax_i8_ref(&m, g_e) == TSR_KERNEL_OK;
    m.y = g_p1;
    ok &= tsr_softmax_i8_mve(&m, g_e) == TSR_KERNEL_OK;
    check(ok && memcmp(g_p0, g_p1, sizeof g_p0) == 0, "softmax_i8");

    for (uint32_t d = 0; d < hs; ++d) g_acc0[d] = g_acc1[d] = in_range(-(1 << 20), 1 << 20);
    tsr_attention_accumulate_i8_args v = {g_p0, g_values, g_acc0, v_zero, count, hs};
    ok = 1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_attention_accumulate_i8_ref(&v, c, cores) == TSR_KERNEL_OK;
    v.acc = g_acc1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_attention_accumulate_i8_mve(&v, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(g_acc0, g_acc1, sizeof g_acc0) == 0, "attention_accumulate_i8");
}

/* The elementwise kernels: add with its two requantizations (shifts on the vector path
 * and above 22), SwiGLU across softmax scales, RMSNorm rows of several sizes, in place too. */
static void elementwise_case(uint32_t count, uint32_t cores)
{
    fill(g_x, count), fill(g_w, count);
    const int32_t sa = next() % 8u ? in_range(-10, 2) : in_range(-31, 30), sb = next() % 8u ? in_range(-10, 2) : in_range(-31, 30);
    tsr_add_i8_args add = {g_x, g_w, g_y0, (int32_t)(0x40000000u + (next() >> 2)), sa,
                           next() % 9u ? (int32_t)(0x40000000u + (next() >> 2)) : 0, sb, count};
    memset(g_y0, 0x5a, sizeof g_y0), memset(g_y1, 0x5a, sizeof g_y1);
    int ok = 1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_add_i8(&add, c, cores) == TSR_KERNEL_OK;
    add.y = g_y1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_add_i8_mve(&add, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(g_y0, g_y1, sizeof g_y0) == 0, "add_i8");

    tsr_iexp_constants k;
    const double scales[] = {1.0 / 2048.0, 0.01, 0.05, 0.3, 2.0, 15.9};
    tsr_iexp_constants_for(scales[next() % 6u], &k);
    tsr_swiglu_i8_args sw = {g_x, g_w, g_y0, in_range(-128, 127), in_range(-128, 127), in_range(-128, 127), k,
                             (int32_t)(0x40000000u + (next() >> 2)), next() % 5u ? in_range(-20, -2) : in_range(-31, 30), count};
    memset(g_y0, 0x5a, sizeof g_y0), memset(g_y1, 0x5a, sizeof g_y1);
    ok = 1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_swiglu_i8(&sw, c, cores) == TSR_KERNEL_OK;
    sw.y = g_y1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_swiglu_i8_mve(&sw, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(g_y0, g_y1, sizeof g_y0) == 0, "swiglu_i8");

    const uint32_t dim = count % 97u + 1u, rows = count / dim < 3u ? count / dim : 3u;
    if (rows == 0u) return;
    tsr_rmsnorm_i8_args rn = {g_x, g_w + 512, g_y0, in_range(-128, 127), in_range(-128, 127),
                              (uint32_t)in_range(0, 1 << 20), in_range(1 << 14, (1 << 15) - 1),
                              next() % 2u ? in_range(0, 3) : in_range(0, 20), rows, dim};
    fill(g_w + 512, dim);
    memset(g_y0, 0x5a, sizeof g_y0), memset(g_y1, 0x5a, sizeof g_y1);
    ok = 1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_rmsnorm_i8(&rn, c, cores) == TSR_KERNEL_OK;
    rn.y = g_y1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_rmsnorm_i8_mve(&rn, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(g_y0, g_y1, sizeof g_y0) == 0, "rmsnorm_i8");
    /* in place: y = x */
    memcpy(g_y1, g_x, rows * dim);
    rn.x = g_y1, rn.y = g_y1;
    for (uint32_t c = 0; c < cores; ++c) ok &= tsr_rmsnorm_i8_mve(&rn, c, cores) == TSR_KERNEL_OK;
    check(ok && memcmp(g_y0, g_y1, rows * dim) == 0, "rmsnorm_i8 in place");
}

/* RoPE: q and k rotated by the portable kernel and by Helium's complex products; heads
 * of 2 to 64 columns (a vector's four pairs, a head's predicated tail), k a prefix of q's
 * heads, the table's ends (+-16384) now and then, rows and pairs split over cores. */
static int8_t g_rq[2][kMaxRows * 256], g_rk[2][kMaxRows * 256];
static int16_t g_rope_table[(3 + kMaxRows) * 64];
static void rope_case(uint32_t rows, uint32_t head_size, uint32_t heads, uint32_t kv_heads, uint32_t cores)
{
    const uint32_t dim = head_size * heads, kv_dim = head_size * kv_heads, pos = next() % 4u;
    fill(g_rq[0], rows * dim), fill(g_rk[0], rows * kv_dim);
    memcpy(g_rq[1], g_rq[0], sizeof g_rq[0]), memcpy(g_rk[1], g_rk[0], sizeof g_rk[0]);
    for (uint32_t i = 0; i < (pos + rows) * head_size; ++i)
        g_rope_table[i] = (int16_t)(next() % 9u == 0u ? (next() % 2u ? 16384 : -16384) : in_range(-16384, 16384));
    int ok = 1;
    for (uint32_t c = 0; c < cores; ++c) {
        ok &= tsr_rope_i8(g_rq[0], g_rk[0], g_rope_table, rows, pos, dim, kv_dim, head_size, c, cores) == TSR_KERNEL_OK;
        ok &= tsr_rope_i8_mve(g_rq[1], g_rk[1], g_rope_table, rows, pos, dim, kv_dim, head_size, c, cores) == TSR_KERNEL_OK;
    }
    check(ok && memcmp(g_rq[0], g_rq[1], sizeof g_rq[0]) == 0 && memcmp(g_rk[0], g_rk[1], sizeof g_rk[0]) == 0, "rope_i8");
}

int main(void)
{
    static const uint32_t ks[] = {1, 7, 16, 17, 64, 172, 300};
    static const uint32_t ns[] = {1, 3, 4, 5, 8, 13, 64};
    static const uint32_t rows[] = {1, 2, 5};
    for (uint32_t r = 0; r < 3; ++r)
        for (uint32_t ki = 0; ki < 7; ++ki)
            for (uint32_t ni = 0; ni < 7; ++ni)
                for (uint32_t variant = 0; variant < 4; ++variant)
                    matmul_case(rows[r], ks[ki], ns[ni], variant & 1u ? in_range(-128, 127) : 0, (variant & 2u) != 0,
                                variant == 0, 1u + (ni % 3u == 2u ? 2u : 0u));
    for (uint32_t r = 0; r < 3; ++r)
        for (uint32_t ki = 0; ki < 7; ++ki)
            for (uint32_t ni = 0; ni < 7; ++ni)
                for (uint32_t again = 0; again < 3; ++again) rqs_case(rows[r], ks[ki], ns[ni], again == 2 ? 3u : 1u);
    for (uint32_t n = 1; n <= 300; n += n < 24 ? 1u : 13u) softmax_f32_case(n);
    static const uint32_t fheads[] = {1, 4, 5, 8, 12, 16, 48};
    for (uint32_t n = 1; n <= 300; n += n < 12 ? 1u : 37u)
        for (uint32_t h = 0; h < 7; ++h)
            if (n * fheads[h] <= kMaxRows * kMaxK) attention_f32_case(n, fheads[h], h % 3u == 2u ? 3u : 1u);
    static const uint32_t frows[] = {1, 2, 4, 5};
    for (uint32_t r = 0; r < 4; ++r)
        for (uint32_t ki = 0; ki < 7; ++ki)
            for (uint32_t ni = 0; ni < 7; ++ni) f32_case(frows[r], ks[ki], ns[ni], ni % 3u == 2u ? 3u : 1u);
    for (uint32_t n = 1; n <= 9; ++n)
        for (int which = 0; which < 4; ++which) refused_case(n, which);
    for (uint32_t count = 1; count <= 300; count += count < 20 ? 1u : 17u)
        for (uint32_t again = 0; again < 4; ++again) elementwise_case(count, again == 3 ? 3u : 1u);
    static const uint32_t counts[] = {1, 2, 3, 4, 5, 7, 8, 16, 33, 129, 300};
    static const uint32_t heads[] = {1, 4, 8, 12, 16, 32, 48};
    for (uint32_t ci = 0; ci < 11; ++ci)
        for (uint32_t hi = 0; hi < 7; ++hi)
            for (uint32_t variant = 0; variant < 3; ++variant)
                attention_case(counts[ci], heads[hi], variant == 2 ? in_range(-128, 127) : 0,
                               variant ? in_range(-128, 127) : 0, variant ? in_range(-128, 127) : 0,
                               variant == 1 && counts[ci] > 4 ? 3u : 1u);
    static const uint32_t rope_heads[] = {2, 4, 6, 8, 10, 16, 18, 64};
    for (uint32_t r = 1; r <= 3; r += 2)
        for (uint32_t h = 0; h < 8; ++h)
            for (uint32_t nh = 1; nh <= 4 && nh * rope_heads[h] <= 256; ++nh)
                rope_case(r, rope_heads[h], nh, 1u + (nh - 1u) * (h % 2u), 1u + (h + nh) % 3u);
    tsr_m55_puts("kernels: arm-mve against the portable references: ");
    tsr_m55_put_u64(g_cases - g_failed);
    tsr_m55_puts(" cases equal, ");
    tsr_m55_put_u64(g_failed);
    tsr_m55_puts(" differ");
    if (g_failed) {
        tsr_m55_puts(" (first: ");
        tsr_m55_puts(g_first_failure);
        tsr_m55_puts(")");
    }
    tsr_m55_puts("\n");
    return g_failed ? 1 : 0;
}
