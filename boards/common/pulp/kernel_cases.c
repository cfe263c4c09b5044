/* The tuned kernel set against the portable kernels on a PULP cluster board (pulp-rtl: the
 * RTL; siracusa: GVSoC's model), one core, every operand
 * in L1: each pair runs on the same pseudo-random data, their outputs must be equal byte
 * for byte, and mcycle gives each one's cycles (per multiply-accumulate for the matmuls,
 * per position for the attention, per element for the rest). The elementwise kernels and
 * iRMSNorm also run split over 8 cores (each core's share in turn), and with constants
 * whose 32-bit RequantShift does not hold (the tuned kernels take the portable path).
 * Exits 1 when any output differs.
 *
 *   kernel matmul_i8 1x256x64: portable 34567 cycles (2.10 a MAC), xpulpv2 9876 (0.60 a MAC), outputs equal
 */
#include <stdint.h>
#include <string.h>

#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/pulp_board.h"
#if TSR_PULP_ISA != 0
#include "tessera/kernels_xpulpv2.h"
#define TUNED(name) name##_xpulpv2
#define SET_NAME "xpulpv2"
#else
#define TUNED(name) name
#define SET_NAME "portable (no tuned set built)"
#endif

static uint32_t g_seed = 12345u;
static uint32_t next(void) { return g_seed = g_seed * 1664525u + 1013904223u; }
static void fill(int8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) p[i] = (int8_t)(next() >> 24);
}

static uint32_t mcycle(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, mcycle" : "=r"(v));
    return v;
}

static int g_failed;

/* "name: portable N cycles (a.bc a UNIT), SET M (d.ef a UNIT), outputs equal|DIFFER" */
static void report(const char *name, uint32_t portable, uint32_t tuned, uint32_t units, const char *unit, int equal)
{
    tsr_pulp_puts("kernel ");
    tsr_pulp_puts(name);
    const uint32_t cycles[2] = {portable, tuned};
    for (int i = 0; i < 2; ++i) {
        tsr_pulp_puts(i ? ", " SET_NAME " " : ": portable ");
        tsr_pulp_put_u64(cycles[i]);
        tsr_pulp_puts(" cycles (");
        const uint32_t hundredths = (uint32_t)tsr_pulp_div_u64((uint64_t)cycles[i] * 100u, units);
        tsr_pulp_put_u64(hundredths / 100u);
        tsr_pulp_puts(".");
        tsr_pulp_put_u64(hundredths / 10u % 10u);
        tsr_pulp_put_u64(hundredths % 10u);
        tsr_pulp_puts(" a ");
        tsr_pulp_puts(unit);
        tsr_pulp_puts(")");
    }
    tsr_pulp_puts(equal ? ", outputs equal\n" : ", outputs DIFFER\n");
    if (!equal) g_failed = 1;
}

/* Bump allocation in the L1 arena, word-aligned. */
static uint8_t *g_l1;
static void *l1(uint32_t bytes)
{
    void *p = g_l1;
    g_l1 += (bytes + 3u) & ~3u;
    return p;
}

/* x_zero: the activations' zero point (Deeploy's graphs may have one; Tessera's own int8
 * images have none, and the kernels then skip the weight rows' sums). */
static void matmul(uint32_t rows, uint32_t k, uint32_t n, int32_t x_zero)
{
    int8_t *x = l1(rows * k), *w = l1(n * k), *y0 = l1(rows * n), *y1 = l1(rows * n);
    int32_t *bias = l1(4u * n), *mult = l1(4u * n);
    int8_t *shift = l1(n);
    fill(x, rows * k), fill(w, n * k);
    for (uint32_t i = 0; i < n; ++i) {
        bias[i] = (int32_t)(next() >> 12) - (1 << 19);
        mult[i] = (int32_t)(0x40000000u + (next() >> 2));
        shift[i] = (int8_t)(-8 - (int32_t)(next() >> 30));
    }
    tsr_matmul_i8_args a = {x, w, bias, mult, shift, y0, x_zero, -2, -128, 127, rows, k, n, n, 0};
    uint32_t t0 = mcycle();
    tsr_matmul_i8(&a, 0, 1);
    const uint32_t portable = mcycle() - t0;
    a.y = y1;
    t0 = mcycle();
    TUNED(tsr_matmul_i8)(&a, 0, 1);
    const uint32_t tuned = mcycle() - t0;
    report(x_zero == 0 ? "matmul_i8 1x256x64, no zero point" : rows == 1u ? "matmul_i8 1x256x64" : "matmul_i8 4x256x64",
           portable, tuned, rows * k * n, "MAC", memcmp(y0, y1, rows * n) == 0);
    if (x_zero == 0) {
        /* As the runtime calls it: no bias, the tables checked once at open (the flags). */
        a.bias = NULL;
        a.y = y0;
        t0 = mcycle();
        tsr_matmul_i8(&a, 0, 1);
        const uint32_t portable_open = mcycle() - t0;
        a.y = y1;
        if (!tsr_matmul_i8_tables_ok(mult, shift, NULL, n, &a.flags)) g_failed = 1;
        t0 = mcycle();
        TUNED(tsr_matmul_i8)(&a, 0, 1);
        const uint32_t tuned_open = mcycle() - t0;
        report("matmul_i8 1x256x64, tables checked at open", portable_open, tuned_open, rows * k * n, "MAC",
               memcmp(y0, y1, rows * n) == 0);

        /* The dequantizing classifier's form: float outputs. */
        float *scale = l1(4u * n), *f0 = l1(4u * n * rows), *f1 = l1(4u * n * rows);
        for (uint32_t i = 0; i < n; ++i) scale[i] = (float)(next() >> 8) * 1.0e-9f;
        tsr_matmul_i8_f32_args f = {x, w, scale, f0, rows, k, n, n};
        t0 = mcycle();
        tsr_matmul_i8_f32(&f, 0, 1);
        const uint32_t portable_f32 = mcycle() - t0;
        f.y = f1;
        t0 = mcycle();
        TUNED(tsr_matmul_i8_f32)(&f, 0, 1);
        const uint32_t tuned_f32 = mcycle() - t0;
        report("matmul_i8_f32 1x256x64", portable_f32, tuned_f32, rows * k * n, "MAC", memcmp(f0, f1, 4u * rows * n) == 0);
        return; /* the RequantShift matmul has no zero point */
    }

    int32_t *mul = l1(4u * n), *add = l1(4u * n);
    for (uint32_t i = 0; i < n; ++i) mul[i] = (int32_t)(next() >> 22), add[i] = (int32_t)(next() >> 8) - (1 << 23);
    tsr_matmul_i8_rqs_args q = {x, w, mul, add, y0, {0, 0, 16, -128, 127}, rows, k, n, n};
    t0 = mcycle();
    tsr_matmul_i8_rqs(&q, 0, 1);
    const uint32_t portable_rqs = mcycle() - t0;
    q.y = y1;
    t0 = mcycle();
    TUNED(tsr_matmul_i8_rqs)(&q, 0, 1);
    const uint32_t tuned_rqs = mcycle() - t0;
    report(rows == 1u ? "matmul_i8_rqs 1x256x64" : "matmul_i8_rqs 4x256x64", portable_rqs, tuned_rqs, rows * k * n,
           "MAC", memcmp(y0, y1, rows * n) == 0);
}

static void attention(uint32_t count)
{
    tsr_quantlib_attention *t = l1(sizeof *t);
    t->scores = (tsr_rqs_params){93, 1 << 11, 12, -128, 127};
    t->out = (tsr_rqs_params){37, 1 << 12, 13, -128, 127};
    t->levels = 255;
    fill(t->visible, 256), fill(t->masked, 256), fill(t->prob, 256);
    for (uint32_t i = 0; i < 256u; ++i) t->exp[i] = (int32_t)((1u << 20) >> (i / 16u));
    int8_t *q = l1(4), *keys = l1(4u * count), *values = l1(4u * count);
    int8_t *u0 = l1(count), *u1 = l1(count), *p0 = l1(count), *p1 = l1(count);
    int32_t *e = l1(4u * count), *acc0 = l1(16), *acc1 = l1(16);
    fill(q, 4), fill(keys, 4u * count), fill(values, 4u * count);
    uint32_t t0 = mcycle();
    tsr_quantlib_scores(q, keys, u0, count, 4u, 0u, count - 9u, t);
    tsr_quantlib_softmax(u0, p0, e, count, t);
    memset(acc0, 0, 16);
    tsr_quantlib_accumulate(p0, values, acc0, count, 4u);
    const uint32_t portable = mcycle() - t0;
    t0 = mcycle();
    TUNED(tsr_quantlib_scores)(q, keys, u1, count, 4u, 0u, count - 9u, t);
    TUNED(tsr_quantlib_softmax)(u1, p1, e, count, t);
    memset(acc1, 0, 16);
    TUNED(tsr_quantlib_accumulate)(p1, values, acc1, count, 4u);
    const uint32_t tuned = mcycle() - t0;
    report("quantlib attention, head size 4, 129 positions", portable, tuned, count, "position",
           memcmp(u0, u1, count) == 0 && memcmp(p0, p1, count) == 0 && memcmp(acc0, acc1, 16) == 0);
}

/* Runs KERNEL(args, core, cores) for every core of `cores` in turn; its cycles. */
#define SPLIT(kernel, args, cores)                                                                                     \
    ({                                                                                                                 \
        const uint32_t t0_ = mcycle();                                                                                 \
        for (uint32_t c_ = 0; c_ < (cores); ++c_) kernel((args), c_, (cores));                                         \
        mcycle() - t0_;                                                                                                \
    })

/* W4A8: rows of k (a multiple of 32: weight rows of tsr_w4_row_bytes(k), word-aligned for
 * k = 256, not for k = 288) against n channels, split over `cores` in turn (n = 66: two channels past the
 * last block of four on one core); the requantizing form and the dequantizing one. */
static void matmul_w4(uint32_t rows, uint32_t k, uint32_t n, int32_t x_zero, uint32_t cores)
{
    const uint32_t stride = tsr_w4_row_bytes(k);
    int8_t *x = l1(rows * k), *y0 = l1(rows * n), *y1 = l1(rows * n);
    uint8_t *w = l1(n * stride);
    int32_t *mult = l1(4u * n);
    int8_t *shift = l1(n);
    float *scale = l1(4u * n), *f0 = l1(4u * rows * n), *f1 = l1(4u * rows * n);
    fill(x, rows * k), fill((int8_t *)w, n * stride);
    for (uint32_t i = 0; i < n; ++i) {
        mult[i] = (int32_t)(0x40000000u + (next() >> 2));
        shift[i] = (int8_t)(-12 - (int32_t)(next() >> 30));
        scale[i] = (float)(next() >> 8) * 1.0e-9f;
    }
    char shape[48], name[64];
    strcpy(shape, rows == 1u ? "1x" : "3x");
    strcat(shape, k == 288u ? "288" : "256");
    strcat(shape, n == 66u ? "x66" : "x64");
    strcat(shape, x_zero ? ", zero point" : "");
    strcat(shape, cores == 1u ? ", 1 core" : ", 8 cores");
    strcpy(name, "matmul_w4a8 "), strcat(name, shape);
    tsr_matmul_w4a8_args a = {x, w, mult, shift, y0, x_zero, -2, rows, k, n, n};
    const uint32_t portable = SPLIT(tsr_matmul_w4a8, &a, cores);
    a.y = y1;
    const uint32_t tuned = SPLIT(TUNED(tsr_matmul_w4a8), &a, cores);
    report(name, portable, tuned, rows * k * n, "MAC", memcmp(y0, y1, rows * n) == 0);
    if (x_zero) return; /* the dequantizing form takes symmetric inputs */
    tsr_matmul_w4a8_f32_args f = {x, w, scale, f0, rows, k, n, n};
    const uint32_t portable_f32 = SPLIT(tsr_matmul_w4a8_f32, &f, cores);
    f.y = f1;
    const uint32_t tuned_f32 = SPLIT(TUNED(tsr_matmul_w4a8_f32), &f, cores);
    strcpy(name, "matmul_w4a8_f32 "), strcat(name, shape);
    report(name, portable_f32, tuned_f32, rows * k * n, "MAC", memcmp(f0, f1, 4u * rows * n) == 0);
}

static tsr_rqs_params rqs_for(int wide)
{
    /* Narrow: what Deeploy's graphs hold; wide: a multiplier whose products overflow
     * 32 bits for the largest inputs. */
    tsr_rqs_params r = {(int32_t)(next() >> 25) + 1, (int32_t)(next() >> 14) - (1 << 17), 10, -128, 127};
    if (wide) r.mul = 0x01000000 + (int32_t)(next() >> 8), r.shift = 30;
    return r;
}

static void elementwise(uint32_t count, uint32_t cores, int wide)
{
    int8_t *a = l1(count), *b = l1(count), *y0 = l1(count), *y1 = l1(count);
    fill(a, count), fill(b, count);
    tsr_rqs_params *r = l1(3u * sizeof *r);
    r[0] = rqs_for(wide), r[1] = rqs_for(0), r[2] = rqs_for(0);
    const char *what = wide ? "wide" : cores == 1u ? "1 core" : "8 cores";
    char name[64];
    uint32_t portable, tuned;

    portable = mcycle();
    for (uint32_t c = 0; c < cores; ++c) tsr_requant_i8(a, y0, count, &r[0], c, cores);
    portable = mcycle() - portable;
    tuned = mcycle();
    for (uint32_t c = 0; c < cores; ++c) TUNED(tsr_requant_i8)(a, y1, count, &r[0], c, cores);
    tuned = mcycle() - tuned;
    strcpy(name, "requant_i8 "), strcat(name, what);
    report(name, portable, tuned, count, "element", memcmp(y0, y1, count) == 0);

    tsr_add_i8_rqs_args add = {a, b, y0, &r[0], &r[1], &r[2], count};
    portable = SPLIT(tsr_add_i8_rqs, &add, cores);
    add.y = y1;
    tuned = SPLIT(TUNED(tsr_add_i8_rqs), &add, cores);
    strcpy(name, "add_i8_rqs "), strcat(name, what);
    report(name, portable, tuned, count, "element", memcmp(y0, y1, count) == 0);

    tsr_rqs_params act = rqs_for(0);
    act.mul = (int32_t)(next() >> 28) + 1, act.shift = 16; /* |g gate one_over_six| mul within 2^31 */
    tsr_hardswish_i8_args hs = {a, b, y0, 3 << 4, 6 << 4, wide ? 30000 : 2731, &act, &r[wide ? 0 : 2], count};
    portable = SPLIT(tsr_hardswish_i8, &hs, cores);
    hs.y = y1;
    tuned = SPLIT(TUNED(tsr_hardswish_i8), &hs, cores);
    strcpy(name, "hardswish_i8 "), strcat(name, what);
    report(name, portable, tuned, count, "element", memcmp(y0, y1, count) == 0);

    const uint32_t dim = 64u, rows = count / dim;
    int32_t *w = l1(4u * dim);
    for (uint32_t i = 0; i < dim; ++i) w[i] = (int32_t)(next() >> 12) - (1 << 19);
    tsr_irmsnorm_i8_args rms = {a, w, y0, rows, dim, 4, -128, 127};
    portable = SPLIT(tsr_irmsnorm_i8, &rms, cores);
    rms.y = y1;
    tuned = SPLIT(TUNED(tsr_irmsnorm_i8), &rms, cores);
    strcpy(name, "irmsnorm_i8 "), strcat(name, what);
    report(name, portable, tuned, count, "element", memcmp(y0, y1, count) == 0);
    if (!wide) { /* in place: each core's rows whole */
        memcpy(y0, a, count), memcpy(y1, a, count);
        rms.x = rms.y = y0;
        portable = SPLIT(tsr_irmsnorm_i8, &rms, cores);
        rms.x = rms.y = y1;
        tuned = SPLIT(TUNED(tsr_irmsnorm_i8), &rms, cores);
        strcpy(name, "irmsnorm_i8 in place "), strcat(name, what);
        report(name, portable, tuned, count, "element", memcmp(y0, y1, count) == 0);
    }
}

/* Tessera's integer attention for one head of size hs (8: stories260K's, 4: TinyLLama-v0's,
 * 48: stories15M's)
 * over `count` positions: scores,
 * softmax, accumulation and output, as the runtime runs them (one core a head). */
static void attention_i8(uint32_t hs, uint32_t count, int32_t k_zero)
{
    int8_t *q = l1(hs), *keys = l1(hs * count), *values = l1(hs * count), *s0 = l1(count), *s1 = l1(count);
    uint16_t *p0 = l1(2u * count), *p1 = l1(2u * count);
    uint32_t *e = l1(4u * count);
    int32_t *acc0 = l1(4u * hs), *acc1 = l1(4u * hs);
    int8_t *y0 = l1(hs), *y1 = l1(hs);
    fill(q, hs), fill(keys, hs * count), fill(values, hs * count);
    const tsr_iexp_constants k = {7, 887, 1731, 1572132}; /* tsr_iexp_constants_for(0.1) */
    tsr_attention_scores_i8_args sa = {q, keys, s0, 0, k_zero, 0x5A000000, -7, count, hs};
    tsr_softmax_i8_args sm = {s0, p0, count, k};
    tsr_attention_accumulate_i8_args ac = {p0, values, acc0, -3, count, hs};
    uint32_t t0 = mcycle();
    tsr_attention_scores_i8(&sa, 0, 1);
    tsr_softmax_i8(&sm, e);
    memset(acc0, 0, 4u * hs);
    tsr_attention_accumulate_i8(&ac, 0, 1);
    tsr_attention_output_i8(acc0, y0, hs, 0x6C000000, -9, 2);
    const uint32_t portable = mcycle() - t0;
    sa.scores = s1, sm.x = s1, sm.y = p1, ac.probs = p1, ac.acc = acc1;
    t0 = mcycle();
    TUNED(tsr_attention_scores_i8)(&sa, 0, 1);
    TUNED(tsr_softmax_i8)(&sm, e);
    memset(acc1, 0, 4u * hs);
    TUNED(tsr_attention_accumulate_i8)(&ac, 0, 1);
    tsr_attention_output_i8(acc1, y1, hs, 0x6C000000, -9, 2);
    const uint32_t tuned = mcycle() - t0;
    report(hs == 4u ? "attention_i8, head size 4, 129 positions"
           : hs == 48u ? "attention_i8, head size 48, 129 positions"
           : k_zero ? "attention_i8, head size 8, 129 positions, keys' zero point" : "attention_i8, head size 8, 129 positions",
           portable, tuned, count, "position",
           memcmp(s0, s1, count) == 0 && memcmp(p0, p1, 2u * count) == 0 && memcmp(acc0, acc1, 4u * hs) == 0 &&
               memcmp(y0, y1, hs) == 0);
}

/* Tessera's integer RMSNorm: rows x 64, split over `cores` (one row: its elements). */
static void rmsnorm(uint32_t rows, uint32_t cores, int32_t x_zero, int in_place)
{
    const uint32_t dim = 64u, n = rows * dim;
    int8_t *x0 = l1(n), *x1 = l1(n), *g = l1(dim), *y0 = l1(n), *y1 = l1(n);
    fill(x0, n), fill(g, dim);
    memcpy(x1, x0, n);
    tsr_rmsnorm_i8_args a = {x0, g, in_place ? x0 : y0, x_zero, -3, 1200u, 23000, 9, rows, dim};
    const uint32_t portable = SPLIT(tsr_rmsnorm_i8, &a, cores);
    a.x = x1, a.y = in_place ? x1 : y1;
    const uint32_t tuned = SPLIT(TUNED(tsr_rmsnorm_i8), &a, cores);
    char name[64];
    strcpy(name, rows == 1u ? "rmsnorm_i8 1x64" : "rmsnorm_i8 4x64");
    strcat(name, x_zero ? ", zero point" : "");
    strcat(name, in_place ? ", in place" : "");
    strcat(name, cores == 1u ? ", 1 core" : ", 8 cores");
    report(name, portable, tuned, n, "element", in_place ? memcmp(x0, x1, n) == 0 : memcmp(y0, y1, n) == 0);

}

/* Tessera's integer SwiGLU over a row of 172 (stories260K's hidden size). */
static void swiglu_i8(uint32_t cores)
{
    const uint32_t n = 172u;
    int8_t *gate = l1(n), *up = l1(n), *y0 = l1(n), *y1 = l1(n);
    fill(gate, n), fill(up, n);
    tsr_swiglu_i8_args a = {gate, up, y0, 3, -2, 1, {7, 887, 1731, 1572132}, 0x51000000, -9, n};
    const uint32_t portable = SPLIT(tsr_swiglu_i8, &a, cores);
    a.y = y1;
    const uint32_t tuned = SPLIT(TUNED(tsr_swiglu_i8), &a, cores);
    report(cores == 1u ? "swiglu_i8 172, 1 core" : "swiglu_i8 172, 8 cores", portable, tuned, n, "element",
           memcmp(y0, y1, n) == 0);
}

/* The residual add of two rows of 64, each requantized to the output's scale: shifts that
 * take the 32-bit forms (fast: -3, the product's high word; 0, both words) or one that
 * does not (30). */
static void add_i8(uint32_t cores, int fast)
{
    const uint32_t n = 64u;
    int8_t *a = l1(n), *b = l1(n), *y0 = l1(n), *y1 = l1(n);
    fill(a, n), fill(b, n);
    tsr_add_i8_args add = {a, b, y0, (int32_t)(0x40000000u + (next() >> 2)), -3, (int32_t)(0x40000000u + (next() >> 2)),
                           fast ? 0 : 30, n};
    const uint32_t portable = SPLIT(tsr_add_i8, &add, cores);
    add.y = y1;
    const uint32_t tuned = SPLIT(TUNED(tsr_add_i8), &add, cores);
    report(fast ? (cores == 1u ? "add_i8 64, 1 core" : "add_i8 64, 8 cores") : "add_i8 64, a shift of 30 (64-bit form)",
           portable, tuned, n, "element", memcmp(y0, y1, n) == 0);
}

static void rope(uint32_t rows, uint32_t cores, int wide)
{
    const uint32_t dim = 64u, n = rows * dim;
    int8_t *q0 = l1(n), *k0 = l1(n), *q1 = l1(n), *k1 = l1(n), *m = l1(16u * rows);
    fill(q0, n), fill(k0, n), fill(m, 16u * rows);
    memcpy(q1, q0, n), memcpy(k1, k0, n);
    tsr_rqs_params rq = rqs_for(wide), rk = rqs_for(0);
    tsr_rope_matrix_i8_args a = {q0, k0, m, &rq, &rk, rows, dim, dim, 4u};
    const uint32_t portable = SPLIT(tsr_rope_matrix_i8, &a, cores);
    a.q = q1, a.k = k1;
    const uint32_t tuned = SPLIT(TUNED(tsr_rope_matrix_i8), &a, cores);
    report(wide ? "rope_matrix_i8 wide" : cores == 1u ? "rope_matrix_i8 1 core" : "rope_matrix_i8 8 cores", portable,
           tuned, 2u * n, "element", memcmp(q0, q1, n) == 0 && memcmp(k0, k1, n) == 0);
}

/* Tessera's integer RoPE: rows of dim 64 (q) and 32 (k), head size 8, at position 5 of a
 * Q14 table; `extreme` puts -32768 and 32767 in it (a table is the image's: any value). */
static void rope_i8(uint32_t rows, uint32_t cores, int extreme)
{
    const uint32_t dim = 64u, kv_dim = 32u, hs = 8u, pos = 5u, n = rows * dim, nk = rows * kv_dim;
    const uint32_t entries = (pos + rows) * hs;
    int8_t *q0 = l1(n), *k0 = l1(nk), *q1 = l1(n), *k1 = l1(nk);
    int16_t *table = l1(2u * entries);
    fill(q0, n), fill(k0, nk);
    for (uint32_t i = 0; i < entries; ++i) table[i] = (int16_t)((int32_t)(next() >> 17) - (1 << 14));
    if (extreme) table[pos * hs + 1] = -32768, table[pos * hs + 2] = 32767, table[pos * hs + 5] = -32768;
    memcpy(q1, q0, n), memcpy(k1, k0, nk);
    uint32_t t0 = mcycle();
    for (uint32_t c = 0; c < cores; ++c) tsr_rope_i8(q0, k0, table, rows, pos, dim, kv_dim, hs, c, cores);
    const uint32_t portable = mcycle() - t0;
    t0 = mcycle();
    for (uint32_t c = 0; c < cores; ++c) TUNED(tsr_rope_i8)(q1, k1, table, rows, pos, dim, kv_dim, hs, c, cores);
    const uint32_t tuned = mcycle() - t0;
    report(extreme ? "rope_i8 2x64, a table's extremes" : cores == 1u ? "rope_i8 2x64, 1 core" : "rope_i8 2x64, 8 cores",
           portable, tuned, n + nk, "element", memcmp(q0, q1, n) == 0 && memcmp(k0, k1, nk) == 0);
}

/* A token's embedding row rescaled in place: int8 rows, and W4 rows (an odd width: the last
 * byte's one element), each from the same stored row for both kernels. */
static void embed_row(uint32_t dim, uint32_t w4)
{
    const uint32_t bytes = w4 ? (dim + 1u) / 2u : dim, groups = (dim + 31u) / 32u;
    int8_t *stored = l1(dim), *y0 = l1(dim), *y1 = l1(dim);
    uint8_t *gs = l1(groups);
    fill(stored, bytes), fill((int8_t *)gs, groups);
    memcpy(y0, stored, bytes), memcpy(y1, stored, bytes);
    tsr_embed_row_i8_args a = {y0, gs, (int32_t)(0x40000000u + (next() >> 2)), w4 ? -9 : -1, dim, w4};
    uint32_t t0 = mcycle();
    tsr_embed_row_i8(&a);
    const uint32_t portable = mcycle() - t0;
    a.y = y1;
    t0 = mcycle();
    TUNED(tsr_embed_row_i8)(&a);
    const uint32_t tuned = mcycle() - t0;
    report(!w4 ? "embed_row_i8 288" : dim == 288u ? "embed_row_i8 W4 288" : "embed_row_i8 W4 65", portable, tuned, dim,
           "element", memcmp(y0, y1, dim) == 0);
}

int main(void)
{
    const tsr_hal_board *board = tsr_pulp_board();
    g_l1 = board->regions[TSR_REGION_L1].base;
    tsr_pulp_puts("kernels on ");
    tsr_pulp_puts(board->name);
    tsr_pulp_puts(", one core, operands in L1: portable against " SET_NAME "\n");
    matmul(1u, 256u, 64u, 3);
    matmul(4u, 256u, 64u, 3);
    matmul(1u, 256u, 64u, 0);
    matmul_w4(1u, 256u, 64u, 0, 1u);
    matmul_w4(1u, 288u, 66u, 0, 1u);
    matmul_w4(1u, 288u, 66u, 0, 8u);
    matmul_w4(3u, 256u, 64u, 3, 1u);
    attention(129u);
    attention_i8(8u, 129u, 0);
    attention_i8(8u, 129u, 5);
    attention_i8(4u, 129u, 0);
    attention_i8(48u, 129u, 0);
    elementwise(128u, 1u, 0);
    elementwise(128u, 8u, 0);
    elementwise(128u, 1u, 1);
    rmsnorm(1u, 1u, 0, 0);
    rmsnorm(1u, 8u, 0, 0);
    rmsnorm(4u, 8u, 5, 0);
    rmsnorm(4u, 8u, 0, 1);
    swiglu_i8(1u);
    swiglu_i8(8u);
    add_i8(1u, 1);
    add_i8(8u, 1);
    add_i8(8u, 0);
    rope(2u, 1u, 0);
    rope(2u, 8u, 0);
    rope(2u, 1u, 1);
    rope_i8(2u, 1u, 0);
    rope_i8(2u, 8u, 0);
    rope_i8(2u, 1u, 1);
    embed_row(288u, 0u);
    embed_row(288u, 1u);
    embed_row(65u, 1u);
    return g_failed;
}
