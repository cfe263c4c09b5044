/* The kernel conformance program: one source for every kernel set and every board.
 *
 * For each tuned set this build has and the board's cores run (tsr_hal_board.isa), and for
 * each variant the set registers (its rows in kernels/<set>/tuned_variants.def, read here
 * through the generated tuned_all.def exactly as the runtime's operator files read them),
 * it runs the set's kernels and the portable ones on the same pseudo-random operands over a
 * sweep of shapes (odd sizes, one row, tails of every vector width, each core count's
 * split run share by share, in place where the kernel allows it, constants that take every
 * path: fast and slow shifts, zero multipliers, wide RequantShifts, softmax scales across
 * their range, tables out of range that both must refuse) and compares their outputs byte
 * for byte, guard bytes past each output included. Before the tuned sets, the portable
 * kernels are held the same way against their plain definitions (the *_ref kernels), over
 * the sweeps only (the headline shapes, timed, are the tuned sets').
 *
 * It reaches the board through boards/common/demo/demo_board.h (the firmware boards' own
 * src/demo_board.c; kernel_conformance_host.cpp on the host): the board's L1 region holds
 * the operands, its HAL counter times each kernel. It prints a line per variant (cases,
 * differences, the counter's ticks a unit over the sweep), a timed line per headline shape
 * of a tuned set, and a last line
 *
 *   kernel conformance on pulp-rtl (portable, xpulpv2): 25 variants, 934 cases equal, 0 differ
 *
 * and returns 1 when any output differs. Built for every firmware board by
 * boards/common/demo/firmware_demos.cmake (tessera-kernel-conformance.elf) and for the host
 * (kernel_conformance_host): ctest -R "kernel_conformance|kernels_1core|m55_kernels|firmware_kernels".
 */
#include <stdint.h>
#include <string.h>

#include "demo_board.h"
#include "tessera/kernel_sets.h"
#include "tessera/kernels.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"
#include "tessera/kernels_quantlib.h"

/* ---- operands, the counter, the tallies ---------------------------------------------- */

static uint32_t g_seed = 12345u;
static uint32_t next(void) { return g_seed = g_seed * 1664525u + 1013904223u; }
static int32_t in_range(int32_t lo, int32_t hi) { return lo + (int32_t)((next() >> 8) % (uint32_t)(hi - lo + 1)); }
static void fill(void *p, uint32_t n) /* four bytes a draw: the simulators pay for every instruction */
{
    uint32_t r = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (i % 4u == 0u) r = next();
        ((uint8_t *)p)[i] = (uint8_t)(r >> (8u * (i % 4u)));
    }
}
static float uniform(void) { return (float)((int32_t)(next() >> 8) - (1 << 23)) / (float)(1 << 23); }
static int32_t q31_multiplier(void) { return (int32_t)(0x40000000u + (next() >> 2)); }

static const tsr_hal_board *g_board;
static uint64_t now(void) { return g_board->ops->cycles(g_board->ctx); }

/* Operands: a bump allocation in the board's L1, word-aligned, emptied at each case. */
static uint8_t *g_arena, *g_top, *g_end;
static int g_arena_short;
static void *take(uint32_t bytes)
{
    uint8_t *p = g_top;
    const uint32_t rounded = (bytes + 3u) & ~3u;
    if ((uint32_t)(g_end - g_top) < rounded + 4u) { /* the sweeps fit 64 KiB: a board with less L1 says so */
        g_arena_short = 1;
        return g_arena;
    }
    g_top += rounded;
    return p;
}
#define GUARD 8u /* bytes past each output, which no kernel may write */
/* Two outputs of `bytes`, every byte and the guards past them 0x5a. */
static void outputs(uint32_t bytes, void **a, void **b)
{
    *a = take(bytes + GUARD), *b = take(bytes + GUARD);
    memset(*a, 0x5a, bytes + GUARD), memset(*b, 0x5a, bytes + GUARD);
}
static int same(const void *a, const void *b, uint32_t bytes)
{
    const uint8_t *ga = (const uint8_t *)a + bytes;
    for (uint32_t i = 0; i < GUARD; ++i)
        if (ga[i] != 0x5au) return 0;
    return memcmp(a, b, bytes + GUARD) == 0;
}

static const char *g_set = "portable", *g_against = "reference", *g_variant, *g_unit;
static int g_headlines;
/* Each variant's sweep runs this many times, on new operands (a board whose simulator is
 * slow builds it with 1); its headline shapes once. */
#ifndef TSR_KERNEL_CONFORMANCE_REPEATS
#define TSR_KERNEL_CONFORMANCE_REPEATS 1
#endif
static uint32_t g_repeat;
static int headlines(void) { return g_headlines && g_repeat == 0u; }
static uint32_t g_cases, g_differ, g_variants, g_all_cases, g_all_differ;
static uint64_t g_ref_ticks, g_dut_ticks, g_units;

static void put_per_unit(uint64_t ticks, uint64_t units)
{
    const uint64_t hundredths = tsr_demo_div_u64(ticks * 100u, units);
    tsr_demo_put_u64(tsr_demo_div_u64(hundredths, 100u));
    tsr_demo_puts(".");
    const uint64_t frac = hundredths - tsr_demo_div_u64(hundredths, 100u) * 100u;
    tsr_demo_put_u64(frac / 10u);
    tsr_demo_put_u64(frac % 10u);
}

static void begin_variant(const char *variant, const char *unit)
{
    if (g_repeat) return; /* the same variant again: one tally */
    g_variant = variant, g_unit = unit;
    g_cases = g_differ = 0;
    g_ref_ticks = g_dut_ticks = g_units = 0;
}

/* One case: the reference's ticks, the kernel's, the units of work, whether every output is
 * the same. A headline case of a tuned set prints its own line. */
static void record(const char *headline, uint64_t ref_ticks, uint64_t dut_ticks, uint64_t units, int equal)
{
    ++g_cases;
    if (!equal) ++g_differ;
    g_ref_ticks += ref_ticks, g_dut_ticks += dut_ticks, g_units += units;
    if (!headline || !g_headlines) return;
    tsr_demo_puts("kernel ");
    tsr_demo_puts(headline);
    const uint64_t ticks[2] = {ref_ticks, dut_ticks};
    for (int i = 0; i < 2; ++i) {
        tsr_demo_puts(i ? ", " : ": ");
        tsr_demo_puts(i ? g_set : g_against);
        tsr_demo_puts(" ");
        tsr_demo_put_u64(ticks[i]);
        tsr_demo_puts(" ticks (");
        put_per_unit(ticks[i], units);
        tsr_demo_puts(" per ");
        tsr_demo_puts(g_unit);
        tsr_demo_puts(")");
    }
    tsr_demo_puts(equal ? ", outputs equal\n" : ", outputs DIFFER\n");
}

static void end_variant(void)
{
    if (g_repeat + 1u < TSR_KERNEL_CONFORMANCE_REPEATS) return;
    ++g_variants;
    g_all_cases += g_cases, g_all_differ += g_differ;
    tsr_demo_puts("variant ");
    tsr_demo_puts(g_variant);
    tsr_demo_puts(", ");
    tsr_demo_puts(g_set);
    tsr_demo_puts(" against ");
    tsr_demo_puts(g_against);
    tsr_demo_puts(": ");
    tsr_demo_put_u64(g_cases - g_differ);
    tsr_demo_puts(" cases equal, ");
    tsr_demo_put_u64(g_differ);
    tsr_demo_puts(" differ; ");
    put_per_unit(g_ref_ticks, g_units);
    tsr_demo_puts(" against ");
    put_per_unit(g_dut_ticks, g_units);
    tsr_demo_puts(" ticks per ");
    tsr_demo_puts(g_unit);
    tsr_demo_puts(" over them\n");
}

/* Runs CALL (of core c_ of cores_) for each core in turn, adding its ticks to TICKS and
 * clearing OK when a share fails. */
#define SPLIT(ok, ticks, cores, CALL)                                                                                  \
    do {                                                                                                               \
        const uint32_t cores_ = (cores);                                                                               \
        const uint64_t t0_ = now();                                                                                    \
        for (uint32_t c_ = 0; c_ < cores_; ++c_) (ok) &= (CALL) == TSR_KERNEL_OK;                                      \
        (ticks) += now() - t0_;                                                                                        \
    } while (0)
/* The sweeps' core counts, in turn. */
static uint32_t some_cores(uint32_t i)
{
    static const uint32_t counts[] = {1u, 3u, 8u, 2u};
    return counts[i % 4u];
}

/* ---- matmuls ---------------------------------------------------------------------------- */

typedef struct shape3 {
    uint32_t rows, k, n;
} shape3;
static const shape3 k_matmul_sweep[] = {{1, 1, 1},  {1, 7, 5},  {1, 16, 4}, {1, 17, 13}, {1, 64, 8},   {1, 172, 3},
                                        {2, 33, 7}, {3, 16, 4}, {5, 17, 5}, {1, 300, 3}, {2, 40, 13}, {4, 32, 8}};
#define SWEEP_COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef tsr_kernel_status (*matmul_i8_fn)(const tsr_matmul_i8_args *, uint32_t, uint32_t);

/* Tables: multipliers in [2^30, 2^31) with now and then 0 or the range's ends; shifts on
 * the fast path (<= -2) or, unless fast_only, anywhere in [-31, 30]. */
static void i8_tables(uint32_t n, int32_t *mult, int8_t *shift, int32_t *bias, int fast_only)
{
    for (uint32_t i = 0; i < n; ++i) {
        mult[i] = next() % 11u == 0u ? 0 : q31_multiplier();
        if (next() % 13u == 0u) mult[i] = next() % 2u ? 0x7FFFFFFF : 0x40000000;
        shift[i] = (int8_t)(fast_only || next() % 3u ? in_range(-14, -2) : in_range(-31, 30));
        bias[i] = in_range(-(1 << 26), 1 << 26);
    }
}

typedef struct matmul_i8_case {
    const char *headline;
    shape3 s;
    int32_t x_zero;
    int bias, fast_only, checked_tables;
    uint32_t cores, ldy_pad;
} matmul_i8_case;

static void matmul_i8_run(matmul_i8_fn ref, matmul_i8_fn dut, const matmul_i8_case *c)
{
    g_top = g_arena;
    const uint32_t rows = c->s.rows, k = c->s.k, n = c->s.n, ldy = n + c->ldy_pad;
    int8_t *x = take(rows * k), *w = take(n * k), *shift = take(n);
    int32_t *mult = take(4u * n), *bias = take(4u * n);
    void *y0, *y1;
    outputs(rows * ldy, &y0, &y1);
    fill(x, rows * k), fill(w, n * k);
    i8_tables(n, mult, shift, bias, c->fast_only);
    const int32_t y_min = next() % 2u ? -128 : in_range(-128, 0), y_max = next() % 2u ? 127 : in_range(y_min, 127);
    tsr_matmul_i8_args a = {x, w, c->bias ? bias : NULL, mult, shift, y0, c->x_zero, in_range(-128, 127),
                            y_min, y_max, rows, k, n, ldy, 0};
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, c->cores, ref(&a, c_, cores_));
    if (c->checked_tables) ok &= tsr_matmul_i8_tables_ok(mult, shift, a.bias, n, &a.flags);
    a.y = y1;
    SPLIT(ok, t_dut, c->cores, dut(&a, c_, cores_));
    record(c->headline, t_ref, t_dut, (uint64_t)rows * k * n, ok && same(y0, y1, rows * ldy));
}

/* One table entry out of its range: both refuse with the same status, neither writes. */
static void matmul_i8_refusal(matmul_i8_fn ref, matmul_i8_fn dut, uint32_t n, int which)
{
    g_top = g_arena;
    int8_t *x = take(16u), *w = take(16u * n), *shift = take(n);
    int32_t *mult = take(4u * n), *bias = take(4u * n);
    void *y0, *y1;
    outputs(n, &y0, &y1);
    fill(x, 16u), fill(w, 16u * n);
    i8_tables(n, mult, shift, bias, 0);
    const uint32_t at = next() % n;
    if (which == 0) mult[at] = in_range(1, (1 << 30) - 1);
    if (which == 1) mult[at] = -in_range(1, 1 << 30);
    if (which == 2) shift[at] = (int8_t)(next() % 2u ? 31 : -32);
    if (which == 3) bias[at] = next() % 2u ? (1 << 26) + 1 : -(1 << 26) - 1;
    tsr_matmul_i8_args a = {x, w, bias, mult, shift, y0, 0, 0, -128, 127, 1, 16, n, n, 0};
    const tsr_kernel_status r0 = ref(&a, 0, 1);
    a.y = y1;
    const tsr_kernel_status r1 = dut(&a, 0, 1);
    uint32_t flags = 0;
    record(NULL, 0, 0, 16u * n,
           r0 != TSR_KERNEL_OK && r1 == r0 && same(y0, y1, n) && ((uint8_t *)y1)[0] == 0x5au &&
               !tsr_matmul_i8_tables_ok(mult, shift, bias, n, &flags) && flags == 0u);
}

static void check_matmul_i8(matmul_i8_fn ref, matmul_i8_fn dut)
{
    begin_variant("MATMUL_I8", "MAC");
    static const matmul_i8_case timed[] = {
        {"matmul_i8 1x256x64", {1, 256, 64}, 3, 1, 1, 0, 1, 0},
        {"matmul_i8 4x256x64", {4, 256, 64}, 3, 1, 1, 0, 1, 0},
        {"matmul_i8 1x256x64, no zero point", {1, 256, 64}, 0, 1, 1, 0, 1, 0},
        {"matmul_i8 1x256x64, tables checked at open", {1, 256, 64}, 0, 0, 1, 1, 1, 0},
    };
    for (uint32_t i = 0; headlines() && i < SWEEP_COUNT(timed); ++i) matmul_i8_run(ref, dut, &timed[i]);
    uint32_t i = 0;
    for (uint32_t s = 0; s < SWEEP_COUNT(k_matmul_sweep); ++s)
        for (uint32_t flavour = 0; flavour < 6u; ++flavour, ++i) {
            /* flavours: x's zero point or none, a bias or none, fast shifts or any, the
             * tables checked beforehand (the runtime's way) */
            const matmul_i8_case c = {NULL, k_matmul_sweep[s], flavour & 1u ? in_range(-128, 127) : 0,
                                      (flavour & 2u) != 0, flavour < 2u, flavour >= 4u, some_cores(i), i % 3u};
            matmul_i8_run(ref, dut, &c);
        }
    for (uint32_t n = 1; n <= 9u; ++n)
        for (int which = 0; which < 4; ++which) matmul_i8_refusal(ref, dut, n, which);
    end_variant();
}

typedef tsr_kernel_status (*matmul_i8_f32_fn)(const tsr_matmul_i8_f32_args *, uint32_t, uint32_t);
static void matmul_i8_f32_run(matmul_i8_f32_fn ref, matmul_i8_f32_fn dut, const char *headline, shape3 s, uint32_t cores,
                              uint32_t pad)
{
    g_top = g_arena;
    const uint32_t ldy = s.n + pad;
    int8_t *x = take(s.rows * s.k), *w = take(s.n * s.k);
    float *scale = take(4u * s.n);
    void *y0, *y1;
    outputs(4u * s.rows * ldy, &y0, &y1);
    fill(x, s.rows * s.k), fill(w, s.n * s.k);
    for (uint32_t i = 0; i < s.n; ++i) scale[i] = (float)in_range(1, 1 << 20) * 1.0e-9f;
    tsr_matmul_i8_f32_args a = {x, w, scale, y0, s.rows, s.k, s.n, ldy};
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(&a, c_, cores_));
    a.y = y1;
    SPLIT(ok, t_dut, cores, dut(&a, c_, cores_));
    record(headline, t_ref, t_dut, (uint64_t)s.rows * s.k * s.n, ok && same(y0, y1, 4u * s.rows * ldy));
}
static void check_matmul_i8_f32(matmul_i8_f32_fn ref, matmul_i8_f32_fn dut)
{
    begin_variant("MATMUL_I8_F32_OUT", "MAC");
    if (headlines()) matmul_i8_f32_run(ref, dut, "matmul_i8_f32 1x256x64", (shape3){1, 256, 64}, 1, 0);
    for (uint32_t s = 0; s < SWEEP_COUNT(k_matmul_sweep); ++s)
        for (uint32_t again = 0; again < 2u; ++again)
            matmul_i8_f32_run(ref, dut, NULL, k_matmul_sweep[s], some_cores(2u * s + again), again);
    end_variant();
}

typedef tsr_kernel_status (*matmul_f32_fn)(const float *, const float *, float *, uint32_t, uint32_t, uint32_t, uint32_t,
                                           uint32_t, uint32_t);
static void matmul_f32_run(matmul_f32_fn ref, matmul_f32_fn dut, const char *headline, shape3 s, uint32_t cores, uint32_t pad)
{
    g_top = g_arena;
    const uint32_t ldy = s.n + pad;
    float *x = take(4u * s.rows * s.k), *w = take(4u * s.n * s.k);
    void *y0, *y1;
    outputs(4u * s.rows * ldy, &y0, &y1);
    for (uint32_t i = 0; i < s.rows * s.k; ++i) x[i] = uniform();
    for (uint32_t i = 0; i < s.n * s.k; ++i) w[i] = uniform();
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(x, w, y0, s.rows, s.k, s.n, ldy, c_, cores_));
    SPLIT(ok, t_dut, cores, dut(x, w, y1, s.rows, s.k, s.n, ldy, c_, cores_));
    record(headline, t_ref, t_dut, (uint64_t)s.rows * s.k * s.n, ok && same(y0, y1, 4u * s.rows * ldy));
}
static void check_matmul_f32(matmul_f32_fn ref, matmul_f32_fn dut)
{
    begin_variant("MATMUL_F32", "MAC");
    if (headlines()) matmul_f32_run(ref, dut, "matmul_f32 1x256x32", (shape3){1, 256, 32}, 1, 0);
    for (uint32_t s = 0; s < SWEEP_COUNT(k_matmul_sweep); ++s) /* a core without an FPU: about 200 cycles a MAC */
        matmul_f32_run(ref, dut, NULL, k_matmul_sweep[s], some_cores(s), s % 2u);
    end_variant();
}

typedef tsr_kernel_status (*matmul_rqs_fn)(const tsr_matmul_i8_rqs_args *, uint32_t, uint32_t);
/* Multipliers and addends of the sizes Deeploy's graphs have and, now and then (wide),
 * ones whose 32-bit form does not hold; shifts across 0..62. */
static void matmul_rqs_run(matmul_rqs_fn ref, matmul_rqs_fn dut, const char *headline, shape3 s, uint32_t cores, int wide)
{
    g_top = g_arena;
    int8_t *x = take(s.rows * s.k), *w = take(s.n * s.k);
    int32_t *mul = take(4u * s.n), *add = take(4u * s.n);
    void *y0, *y1;
    outputs(s.rows * s.n, &y0, &y1);
    fill(x, s.rows * s.k), fill(w, s.n * s.k);
    const int32_t shift = headline ? 16 : next() % 6u ? in_range(8, 24) : in_range(0, 62);
    for (uint32_t i = 0; i < s.n; ++i) {
        mul[i] = !wide || next() % 4u ? in_range(-512, 512) : (int32_t)next();
        add[i] = !wide || next() % 4u ? in_range(-(1 << 20), 1 << 20) : (int32_t)next();
    }
    const tsr_rqs_params range = {0, 0, shift, next() % 2u ? -128 : in_range(-128, 0), next() % 2u ? 127 : in_range(1, 127)};
    tsr_matmul_i8_rqs_args a = {x, w, mul, add, y0, range, s.rows, s.k, s.n, s.n, 0u};
    /* Half the cases whose weights allow it say so, as the runtime does at open: the tuned
     * kernels' unchecked 32-bit form against the reference, which ignores the flag. */
    if (next() % 2u && tsr_matmul_i8_rqs_fits_32(w, mul, add, s.n, s.k, shift)) a.flags = TSR_MATMUL_I8_RQS_FITS_32;
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(&a, c_, cores_));
    a.y = y1;
    SPLIT(ok, t_dut, cores, dut(&a, c_, cores_));
    record(headline, t_ref, t_dut, (uint64_t)s.rows * s.k * s.n, ok && same(y0, y1, s.rows * s.n));
}
static void check_matmul_rqs(matmul_rqs_fn ref, matmul_rqs_fn dut)
{
    begin_variant("MATMUL_I8_RQS", "MAC");
    if (headlines()) matmul_rqs_run(ref, dut, "matmul_i8_rqs 1x256x64", (shape3){1, 256, 64}, 1, 0);
    if (headlines()) matmul_rqs_run(ref, dut, "matmul_i8_rqs 4x256x64", (shape3){4, 256, 64}, 1, 0);
    for (uint32_t s = 0; s < SWEEP_COUNT(k_matmul_sweep); ++s)
        for (uint32_t wide = 0; wide < 2u; ++wide)
            matmul_rqs_run(ref, dut, NULL, k_matmul_sweep[s], some_cores(2u * s + wide), (int)wide);
    end_variant();
}

/* W4A8: k a multiple of 32 or not (rows of tsr_w4_row_bytes(k): word-aligned for 256, not
 * for 288 or odd k), n past the last block of four channels. */
static const shape3 k_w4_sweep[] = {{1, 1, 1},  {1, 31, 3},  {1, 32, 4},  {1, 33, 5}, {2, 64, 7},
                                    {3, 65, 4}, {1, 96, 13}, {1, 288, 6}, {2, 17, 9}, {1, 128, 8}};
typedef tsr_kernel_status (*w4a8_fn)(const tsr_matmul_w4a8_args *, uint32_t, uint32_t);
static void w4a8_run(w4a8_fn ref, w4a8_fn dut, const char *headline, shape3 s, int32_t x_zero, uint32_t cores)
{
    g_top = g_arena;
    const uint32_t stride = tsr_w4_row_bytes(s.k);
    int8_t *x = take(s.rows * s.k), *shift = take(s.n);
    uint8_t *w = take(s.n * stride);
    int32_t *mult = take(4u * s.n), *bias = take(4u * s.n);
    void *y0, *y1;
    outputs(s.rows * s.n, &y0, &y1);
    fill(x, s.rows * s.k), fill(w, s.n * stride);
    i8_tables(s.n, mult, shift, bias, 0);
    for (uint32_t i = 0; i < s.n; ++i) /* group scales: larger sums */
        if (shift[i] > -27) shift[i] = (int8_t)(shift[i] - 4);
    tsr_matmul_w4a8_args a = {x, w, mult, shift, y0, x_zero, in_range(-128, 127), s.rows, s.k, s.n, s.n};
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(&a, c_, cores_));
    a.y = y1;
    SPLIT(ok, t_dut, cores, dut(&a, c_, cores_));
    record(headline, t_ref, t_dut, (uint64_t)s.rows * s.k * s.n, ok && same(y0, y1, s.rows * s.n));
}
static void check_w4a8(w4a8_fn ref, w4a8_fn dut)
{
    begin_variant("MATMUL_I8_W4", "MAC");
    if (headlines()) w4a8_run(ref, dut, "matmul_w4a8 1x256x64, 1 core", (shape3){1, 256, 64}, 0, 1);
    if (headlines()) w4a8_run(ref, dut, "matmul_w4a8 1x288x66, 1 core", (shape3){1, 288, 66}, 0, 1);
    if (headlines()) w4a8_run(ref, dut, "matmul_w4a8 1x288x66, 8 cores", (shape3){1, 288, 66}, 0, 8);
    if (headlines()) w4a8_run(ref, dut, "matmul_w4a8 3x256x64, zero point, 1 core", (shape3){3, 256, 64}, 3, 1);
    for (uint32_t s = 0; s < SWEEP_COUNT(k_w4_sweep); ++s)
        for (uint32_t zero = 0; zero < 2u; ++zero)
            w4a8_run(ref, dut, NULL, k_w4_sweep[s], zero ? in_range(-128, 127) : 0, some_cores(2u * s + zero));
    end_variant();
}

typedef tsr_kernel_status (*w4a8_f32_fn)(const tsr_matmul_w4a8_f32_args *, uint32_t, uint32_t);
static void w4a8_f32_run(w4a8_f32_fn ref, w4a8_f32_fn dut, const char *headline, shape3 s, uint32_t cores)
{
    g_top = g_arena;
    const uint32_t stride = tsr_w4_row_bytes(s.k);
    int8_t *x = take(s.rows * s.k);
    uint8_t *w = take(s.n * stride);
    float *scale = take(4u * s.n);
    void *y0, *y1;
    outputs(4u * s.rows * s.n, &y0, &y1);
    fill(x, s.rows * s.k), fill(w, s.n * stride);
    for (uint32_t i = 0; i < s.n; ++i) scale[i] = (float)in_range(1, 1 << 20) * 1.0e-9f;
    tsr_matmul_w4a8_f32_args a = {x, w, scale, y0, s.rows, s.k, s.n, s.n};
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(&a, c_, cores_));
    a.y = y1;
    SPLIT(ok, t_dut, cores, dut(&a, c_, cores_));
    record(headline, t_ref, t_dut, (uint64_t)s.rows * s.k * s.n, ok && same(y0, y1, 4u * s.rows * s.n));
}
static void check_w4a8_f32(w4a8_f32_fn ref, w4a8_f32_fn dut)
{
    begin_variant("MATMUL_I8_W4_F32_OUT", "MAC");
    if (headlines()) w4a8_f32_run(ref, dut, "matmul_w4a8_f32 1x256x64, 1 core", (shape3){1, 256, 64}, 1);
    if (headlines()) w4a8_f32_run(ref, dut, "matmul_w4a8_f32 1x288x66, 1 core", (shape3){1, 288, 66}, 1);
    if (headlines()) w4a8_f32_run(ref, dut, "matmul_w4a8_f32 1x288x66, 8 cores", (shape3){1, 288, 66}, 8);
    for (uint32_t s = 0; s < SWEEP_COUNT(k_w4_sweep); ++s) w4a8_f32_run(ref, dut, NULL, k_w4_sweep[s], some_cores(s));
    end_variant();
}

/* ---- attention ------------------------------------------------------------------------- */

/* The integer exponential's constants at scales across their range (the packer gives
 * them for a score's or a gate's scale), computed once: double arithmetic costs a core
 * without an FPU thousands of cycles. */
static tsr_iexp_constants g_iexp[6];
static void compute_iexp_constants(void)
{
    static const double scales[] = {1.0 / 2048.0, 0.01, 0.05, 0.3, 2.0, 15.9};
    for (uint32_t i = 0; i < 6u; ++i) tsr_iexp_constants_for(scales[i], &g_iexp[i]);
}

static const uint32_t k_counts[] = {1, 2, 3, 4, 5, 7, 8, 16, 33};
static const uint32_t k_heads[] = {1, 4, 8, 12, 16, 48};

typedef struct attention_i8_fns {
    tsr_kernel_status (*scores)(const tsr_attention_scores_i8_args *, uint32_t, uint32_t);
    tsr_kernel_status (*softmax)(const tsr_softmax_i8_args *, uint32_t *);
    tsr_kernel_status (*accumulate)(const tsr_attention_accumulate_i8_args *, uint32_t, uint32_t);
} attention_i8_fns;

/* One (row, head): scores of `count` keys, their softmax at a scale the packer could give,
 * the weighted sum of the values into accumulators that already hold a chunk, the output.
 * table: 0 neither softmax reads the table of exponentials, 1 both do (as images' steps), 2
 * the reference computes and the kernel under test reads it. */
static void attention_i8_run(const attention_i8_fns *ref, const attention_i8_fns *dut, const char *headline,
                             uint32_t count, uint32_t hs, int32_t q_zero, int32_t k_zero, int32_t v_zero, uint32_t cores,
                             int scale_index, int table)
{
    g_top = g_arena;
    int8_t *q = take(hs), *keys = take(count * hs), *values = take(count * hs);
    uint32_t *e = take(4u * count);
    int32_t *acc0 = take(4u * hs), *acc1 = take(4u * hs);
    void *s0, *s1, *p0, *p1, *y0, *y1;
    outputs(count, &s0, &s1), outputs(2u * count, &p0, &p1), outputs(hs, &y0, &y1);
    fill(q, hs), fill(keys, count * hs), fill(values, count * hs);
    tsr_iexp_constants k = {7, 887, 1731, 1572132}; /* tsr_iexp_constants_for(0.1) */
    if (scale_index >= 0) k = g_iexp[scale_index % 6];
    const int32_t acc_start = headline ? 0 : in_range(-(1 << 20), 1 << 20);
    for (uint32_t d = 0; d < hs; ++d) acc0[d] = acc1[d] = acc_start + (int32_t)d;
    const int32_t shift = headline ? -7 : next() % 5u ? in_range(-14, -2) : in_range(-31, 3);
    tsr_attention_scores_i8_args sa = {q, keys, s0, q_zero, k_zero, headline ? 0x5A000000 : q31_multiplier(), shift, count, hs};
    uint32_t *exps = take(4u * TSR_SOFTMAX_I8_EXP_ENTRIES);
    if (table && (tsr_softmax_i8_exp_table(&k, exps) != TSR_KERNEL_OK || !tsr_softmax_i8_exp_table_ok(exps))) table = 0;
    tsr_softmax_i8_args sm = {s0, p0, count, k, table == 1 ? exps : NULL};
    tsr_attention_accumulate_i8_args ac = {p0, values, acc0, v_zero, count, hs};
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref->scores(&sa, c_, cores_));
    uint64_t t0 = now();
    ok &= ref->softmax(&sm, e) == TSR_KERNEL_OK;
    t_ref += now() - t0;
    SPLIT(ok, t_ref, cores, ref->accumulate(&ac, c_, cores_));
    tsr_attention_output_i8(acc0, y0, hs, 0x6C000000, -9, 2);
    sa.scores = s1, sm.x = s1, sm.y = p1, ac.probs = p1, ac.acc = acc1, sm.exps = table ? exps : NULL;
    SPLIT(ok, t_dut, cores, dut->scores(&sa, c_, cores_));
    t0 = now();
    ok &= dut->softmax(&sm, e) == TSR_KERNEL_OK;
    t_dut += now() - t0;
    SPLIT(ok, t_dut, cores, dut->accumulate(&ac, c_, cores_));
    tsr_attention_output_i8(acc1, y1, hs, 0x6C000000, -9, 2);
    /* Again with the keys and values a head's column of a block of rows kv_stride bytes long
     * (word-aligned, the rest of a row noise): the same scores and sums. */
    const uint32_t column = 4u * ((hs + 3u) / 4u), stride = 2u * column + 4u, at = stride - column;
    int8_t *k_block = take(stride * count), *v_block = take(stride * count);
    int32_t *acc2 = take(4u * hs);
    void *s2, *s3;
    outputs(count, &s2, &s3);
    fill(k_block, stride * count), fill(v_block, stride * count);
    for (uint32_t t = 0; t < count; ++t) {
        memcpy(k_block + t * stride + at, keys + t * hs, hs);
        memcpy(v_block + t * stride + at, values + t * hs, hs);
    }
    memcpy(s2, s0, count);
    for (uint32_t d = 0; d < hs; ++d) acc2[d] = acc_start + (int32_t)d;
    sa.keys = k_block + at, sa.scores = s3, sa.kv_stride = stride;
    ac.values = v_block + at, ac.probs = p0, ac.acc = acc2, ac.kv_stride = stride;
    uint64_t t_strided = 0;
    SPLIT(ok, t_strided, cores, dut->scores(&sa, c_, cores_));
    SPLIT(ok, t_strided, cores, dut->accumulate(&ac, c_, cores_));
    record(headline, t_ref, t_dut, count,
           ok && same(s0, s1, count) && same(p0, p1, 2u * count) && memcmp(acc0, acc1, 4u * hs) == 0 && same(y0, y1, hs) &&
               same(s2, s3, count) && memcmp(acc0, acc2, 4u * hs) == 0);
}
static void check_attention_i8(const attention_i8_fns *ref, const attention_i8_fns *dut)
{
    begin_variant("ATTENTION_I8", "position");
    if (headlines()) attention_i8_run(ref, dut, "attention_i8, head size 8, 129 positions", 129, 8, 0, 0, -3, 1, -1, 1);
    if (headlines()) attention_i8_run(ref, dut, "attention_i8, head size 8, 129 positions, keys' zero point", 129, 8, 0, 5, -3, 1, -1, 1);
    if (headlines()) attention_i8_run(ref, dut, "attention_i8, head size 4, 129 positions", 129, 4, 0, 0, -3, 1, -1, 1);
    if (headlines()) attention_i8_run(ref, dut, "attention_i8, head size 4, 129 positions, softmax computed", 129, 4, 0, 0, -3, 1, -1, 0);
    if (headlines()) attention_i8_run(ref, dut, "attention_i8, head size 48, 129 positions", 129, 48, 0, 0, -3, 1, -1, 1);
    uint32_t i = 0;
    for (uint32_t c = 0; c < SWEEP_COUNT(k_counts); ++c)
        for (uint32_t h = 0; h < SWEEP_COUNT(k_heads); ++h, ++i) {
            const uint32_t zeros = i % 3u; /* none; keys' and values'; all three */
            attention_i8_run(ref, dut, NULL, k_counts[c], k_heads[h], zeros == 2u ? in_range(-128, 127) : 0,
                             zeros ? in_range(-128, 127) : 0, zeros ? in_range(-128, 127) : 0, some_cores(i), (int)i,
                             (int)((i / 3u) % 3u));
        }
    end_variant();
}

typedef struct attention_f32_fns {
    tsr_kernel_status (*scores)(const float *, const float *, float *, uint32_t, uint32_t, uint32_t, uint32_t);
    void (*softmax)(float *, uint32_t);
    tsr_kernel_status (*accumulate)(const float *, const float *, float *, uint32_t, uint32_t, uint32_t, uint32_t);
} attention_f32_fns;
/* Scores across the exponential's range (its clamps included), their softmax in place, the
 * weighted sum into outputs that already hold a chunk. */
static void attention_f32_run(const attention_f32_fns *ref, const attention_f32_fns *dut, const char *headline,
                              uint32_t count, uint32_t hs, uint32_t cores)
{
    g_top = g_arena;
    float *q = take(4u * hs), *keys = take(4u * count * hs), *values = take(4u * count * hs);
    void *s0, *s1, *o0, *o1;
    outputs(4u * count, &s0, &s1), outputs(4u * hs, &o0, &o1);
    for (uint32_t i = 0; i < hs; ++i) q[i] = uniform();
    for (uint32_t i = 0; i < count * hs; ++i) keys[i] = 4.0f * uniform(), values[i] = uniform();
    for (uint32_t d = 0; d < hs; ++d) ((float *)o0)[d] = ((float *)o1)[d] = uniform();
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref->scores(q, keys, s0, count, hs, c_, cores_));
    SPLIT(ok, t_dut, cores, dut->scores(q, keys, s1, count, hs, c_, cores_));
    ok &= same(s0, s1, 4u * count);
    for (uint32_t t = 0; t < count; ++t) { /* the softmax's own cases: its clamps */
        const uint32_t kind = next() % 16u;
        if (kind < 2u) ((float *)s0)[t] = ((float *)s1)[t] = kind ? 95.0f + uniform() : -150.0f + uniform();
    }
    uint64_t t0 = now();
    ref->softmax(s0, count);
    t_ref += now() - t0;
    t0 = now();
    dut->softmax(s1, count);
    t_dut += now() - t0;
    ok &= same(s0, s1, 4u * count);
    SPLIT(ok, t_ref, cores, ref->accumulate(s0, values, o0, count, hs, c_, cores_));
    SPLIT(ok, t_dut, cores, dut->accumulate(s0, values, o1, count, hs, c_, cores_));
    record(headline, t_ref, t_dut, count, ok && same(o0, o1, 4u * hs));
}
static void check_attention_f32(const attention_f32_fns *ref, const attention_f32_fns *dut)
{
    begin_variant("ATTENTION_F32", "position");
    if (headlines()) attention_f32_run(ref, dut, "attention_f32, head size 8, 129 positions", 129, 8, 1);
    uint32_t i = 0;
    for (uint32_t c = 0; c < SWEEP_COUNT(k_counts); ++c)
        for (uint32_t h = 0; h < SWEEP_COUNT(k_heads); ++h, ++i)
            attention_f32_run(ref, dut, NULL, k_counts[c], k_heads[h], some_cores(i));
    end_variant();
}

typedef struct quantlib_attention_fns {
    tsr_kernel_status (*scores)(const int8_t *, const int8_t *, int8_t *, uint32_t, uint32_t, uint32_t, uint32_t,
                                const tsr_quantlib_attention *);
    tsr_kernel_status (*softmax)(const int8_t *, int8_t *, int32_t *, uint32_t, const tsr_quantlib_attention *);
    tsr_kernel_status (*accumulate)(const int8_t *, const int8_t *, int32_t *, uint32_t, uint32_t);
    tsr_kernel_status (*rows)(const tsr_quantlib_rows_args *);
} quantlib_attention_fns;
/* The rows kernel: three rows of a head (strides that leave gaps, an odd one for q), the
 * first seeing positions up to row_pos, each next one more; against the reference's
 * per-row kernels and tsr_quantlib_output; then again with the keys and values a head's
 * column of a block of rows kv_stride bytes long (word-aligned, the rest of a row noise). */
static int quantlib_rows_same(const quantlib_attention_fns *ref, const quantlib_attention_fns *dut,
                              const tsr_quantlib_attention *t, const int8_t *keys, const int8_t *values, uint32_t count,
                              uint32_t hs, uint32_t row_pos)
{
    enum { ROWS = 3 };
    const uint32_t qs = 2u * hs + 1u, ys = hs + 2u;
    int8_t *q = take(ROWS * qs), *u = take(count), *p = take(count);
    int32_t *e = take(4u * count), *acc = take(4u * hs);
    uint8_t *scratch = take(tsr_quantlib_attention_scratch_layout(count, hs).bytes);
    void *y0, *y1;
    outputs(ROWS * ys, &y0, &y1);
    fill(q, ROWS * qs);
    int ok = 1;
    for (uint32_t r = 0; r < ROWS; ++r) {
        memset(acc, 0, 4u * hs);
        ok &= ref->scores(q + r * qs, keys, u, count, hs, 0u, row_pos + r, t) == TSR_KERNEL_OK;
        ok &= ref->softmax(u, p, e, count, t) == TSR_KERNEL_OK;
        ok &= ref->accumulate(p, values, acc, count, hs) == TSR_KERNEL_OK;
        ok &= tsr_quantlib_output(acc, (int8_t *)y0 + r * ys, hs, t) == TSR_KERNEL_OK;
    }
    const tsr_quantlib_rows_args a = {q, keys, values, y1, scratch, t, ROWS, count, hs, qs, ys, row_pos, 1u, 0u};
    ok &= dut->rows(&a) == TSR_KERNEL_OK;
    ok &= same(y0, y1, ROWS * ys);
    const uint32_t column = 4u * ((hs + 3u) / 4u), stride = 2u * column + 4u, at = stride - column;
    int8_t *k_block = take(stride * count), *v_block = take(stride * count);
    fill(k_block, stride * count), fill(v_block, stride * count);
    for (uint32_t j = 0; j < count; ++j) {
        memcpy(k_block + j * stride + at, keys + j * hs, hs);
        memcpy(v_block + j * stride + at, values + j * hs, hs);
    }
    void *y2, *y3;
    outputs(ROWS * ys, &y2, &y3);
    memcpy(y2, y0, ROWS * ys);
    const tsr_quantlib_rows_args b = {q, k_block + at, v_block + at, y3, scratch, t, ROWS, count, hs, qs, ys, row_pos, 1u,
                                      stride};
    ok &= dut->rows(&b) == TSR_KERNEL_OK;
    return ok && same(y2, y3, ROWS * ys);
}
/* QuantLib's attention for one (row, head): the positions up to row_pos visible, the rest
 * masked (a chunk's later rows); then the rows kernel over the same keys and values. */
static void quantlib_attention_run(const quantlib_attention_fns *ref, const quantlib_attention_fns *dut,
                                   const char *headline, uint32_t count, uint32_t hs, uint32_t row_pos)
{
    g_top = g_arena;
    tsr_quantlib_attention *t = take(sizeof *t);
    t->scores = (tsr_rqs_params){in_range(1, 127), in_range(0, 1 << 12), in_range(8, 14), -128, 127};
    t->out = (tsr_rqs_params){in_range(1, 63), in_range(0, 1 << 13), in_range(10, 16), -128, 127};
    t->levels = 255, t->reserved = 0;
    fill(t->visible, 256), fill(t->masked, 256), fill(t->prob, 256);
    /* Exponentials from the largest, 2^20, or from a small one (a row's sum below 2^8, as
     * microLlama's second layer has: the tuned softmax's other quotient path), or random. */
    const uint32_t shape = next() % 3u;
    for (uint32_t i = 0; i < 256u; ++i)
        t->exp[i] = shape == 0u ? (int32_t)((1u << 20) >> (i / 16u))
                  : shape == 1u ? (int32_t)(38u >> (i / 4u))
                                : (int32_t)(i ? next() >> 12 : 1u + (next() >> 12));
    int8_t *q = take(hs), *keys = take(hs * count), *values = take(hs * count);
    int32_t *e = take(4u * count), *acc0 = take(4u * hs), *acc1 = take(4u * hs);
    void *u0, *u1, *p0, *p1;
    outputs(count, &u0, &u1), outputs(count, &p0, &p1);
    fill(q, hs), fill(keys, hs * count), fill(values, hs * count);
    memset(acc0, 0, 4u * hs), memset(acc1, 0, 4u * hs);
    int ok = 1;
    uint64_t t0 = now();
    ok &= ref->scores(q, keys, u0, count, hs, 0u, row_pos, t) == TSR_KERNEL_OK;
    ok &= ref->softmax(u0, p0, e, count, t) == TSR_KERNEL_OK;
    ok &= ref->accumulate(p0, values, acc0, count, hs) == TSR_KERNEL_OK;
    const uint64_t t_ref = now() - t0;
    t0 = now();
    ok &= dut->scores(q, keys, u1, count, hs, 0u, row_pos, t) == TSR_KERNEL_OK;
    ok &= dut->softmax(u1, p1, e, count, t) == TSR_KERNEL_OK;
    ok &= dut->accumulate(p1, values, acc1, count, hs) == TSR_KERNEL_OK;
    const uint64_t t_dut = now() - t0;
    ok &= quantlib_rows_same(ref, dut, t, keys, values, count, hs, row_pos);
    record(headline, t_ref, t_dut, count,
           ok && same(u0, u1, count) && same(p0, p1, count) && memcmp(acc0, acc1, 4u * hs) == 0);
}
static void check_quantlib_attention(const quantlib_attention_fns *ref, const quantlib_attention_fns *dut)
{
    begin_variant("ATTENTION_I8_QUANTLIB", "position");
    if (headlines()) quantlib_attention_run(ref, dut, "quantlib attention, head size 4, 129 positions", 129, 4, 120);
    for (uint32_t c = 0; c < SWEEP_COUNT(k_counts); ++c)
        for (uint32_t h = 0; h < 4u; ++h) /* head sizes 1, 4, 8, 12 */
            quantlib_attention_run(ref, dut, NULL, k_counts[c], k_heads[h], h % 2u ? k_counts[c] - 1u : k_counts[c] / 2u);
    end_variant();
}

/* ---- norms, activations, adds ----------------------------------------------------------- */

static const uint32_t k_lengths[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 64, 97, 172};

static tsr_rqs_params rqs_for(int wide)
{
    /* Narrow: what Deeploy's graphs hold; wide: a multiplier whose products overflow 32
     * bits for the largest inputs (the tuned kernels take the portable path). */
    tsr_rqs_params r = {(int32_t)(next() >> 25) + 1, (int32_t)(next() >> 14) - (1 << 17), 10, -128, 127};
    if (wide) r.mul = 0x01000000 + (int32_t)(next() >> 8), r.shift = 30;
    return r;
}

typedef tsr_kernel_status (*rmsnorm_i8_fn)(const tsr_rmsnorm_i8_args *, uint32_t, uint32_t);
static void rmsnorm_i8_run(rmsnorm_i8_fn ref, rmsnorm_i8_fn dut, const char *headline, uint32_t rows, uint32_t dim,
                           int32_t x_zero, int in_place, uint32_t cores)
{
    g_top = g_arena;
    const uint32_t n = rows * dim;
    int8_t *x = take(n), *g = take(dim);
    void *y0, *y1;
    outputs(n, &y0, &y1);
    fill(x, n), fill(g, dim);
    if (in_place) memcpy(y0, x, n), memcpy(y1, x, n);
    tsr_rmsnorm_i8_args a = {in_place ? y0 : x, g, y0, x_zero, headline ? -3 : in_range(-128, 127),
                             headline ? 1200u : (uint32_t)in_range(0, 1 << 20),
                             headline ? 23000 : in_range(1 << 14, (1 << 15) - 1),
                             headline ? 9 : next() % 2u ? in_range(0, 3) : in_range(0, 20), rows, dim};
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(&a, c_, cores_));
    a.y = y1;
    if (in_place) a.x = y1;
    SPLIT(ok, t_dut, cores, dut(&a, c_, cores_));
    record(headline, t_ref, t_dut, n, ok && same(y0, y1, n));
}
static void check_rmsnorm_i8(rmsnorm_i8_fn ref, rmsnorm_i8_fn dut)
{
    begin_variant("RMSNORM_I8", "element");
    if (headlines()) rmsnorm_i8_run(ref, dut, "rmsnorm_i8 1x64, 1 core", 1, 64, 0, 0, 1);
    if (headlines()) rmsnorm_i8_run(ref, dut, "rmsnorm_i8 1x64, 8 cores", 1, 64, 0, 0, 8);
    if (headlines()) rmsnorm_i8_run(ref, dut, "rmsnorm_i8 4x64, zero point, 8 cores", 4, 64, 5, 0, 8);
    if (headlines()) rmsnorm_i8_run(ref, dut, "rmsnorm_i8 4x64, in place, 8 cores", 4, 64, 0, 1, 8);
    for (uint32_t i = 0; i < 2u * SWEEP_COUNT(k_lengths); ++i)
        rmsnorm_i8_run(ref, dut, NULL, 1u + i % 3u, k_lengths[i / 2u], i % 4u ? in_range(-128, 127) : 0, (int)(i % 2u),
                       some_cores(i));
    end_variant();
}

typedef tsr_kernel_status (*layernorm_i8_fn)(const tsr_layernorm_i8_args *, uint32_t, uint32_t);
/* flat 1: constant rows; flat 2: each row's values one step apart (deviations of half a step
 * and below: the reciprocal near and beyond 31 bits, the tuned kernels' portable path);
 * wide: biases whose sums saturate 32 bits. */
static void layernorm_i8_run(layernorm_i8_fn ref, layernorm_i8_fn dut, const char *headline, uint32_t rows, uint32_t dim,
                             int flat, int wide, uint32_t cores)
{
    g_top = g_arena;
    const uint32_t n = rows * dim;
    int8_t *x = take(n);
    int16_t *g = take(2u * dim);
    int32_t *b = take(4u * dim);
    void *y0, *y1;
    outputs(n, &y0, &y1);
    fill(x, n), fill(g, 2u * dim);
    if (flat)
        for (uint32_t i = 0; i < n; ++i) x[i] = (int8_t)(flat == 2 ? (x[i] & 1) - 37 : -37);
    for (uint32_t i = 0; i < dim; ++i) b[i] = wide ? (int32_t)next() : (int32_t)(next() >> 9) - (1 << 22);
    tsr_layernorm_i8_args a = {x, g, b, y0, headline ? 3000u : flat ? (uint32_t)in_range(0, 255) : (uint32_t)in_range(0, 1 << 16),
                               headline ? q31_multiplier() : (int32_t)next(), headline ? -15 : in_range(-31, 30), rows, dim};
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(&a, c_, cores_));
    a.y = y1;
    SPLIT(ok, t_dut, cores, dut(&a, c_, cores_));
    record(headline, t_ref, t_dut, n, ok && same(y0, y1, n));
}
static void check_layernorm_i8(layernorm_i8_fn ref, layernorm_i8_fn dut)
{
    begin_variant("LAYERNORM_I8", "element");
    if (headlines()) layernorm_i8_run(ref, dut, "layernorm_i8 1x64, 1 core", 1, 64, 0, 0, 1);
    if (headlines()) layernorm_i8_run(ref, dut, "layernorm_i8 1x64, 8 cores", 1, 64, 0, 0, 8);
    if (headlines()) layernorm_i8_run(ref, dut, "layernorm_i8 8x64, 8 cores", 8, 64, 0, 0, 8);
    for (uint32_t i = 0; i < 2u * SWEEP_COUNT(k_lengths); ++i)
        layernorm_i8_run(ref, dut, NULL, 1u + i % 3u, k_lengths[i / 2u], i % 5u == 1u ? 1 : i % 5u == 3u ? 2 : 0,
                         i % 7u == 3u, some_cores(i));
    end_variant();
}

typedef tsr_kernel_status (*irmsnorm_fn)(const tsr_irmsnorm_i8_args *, uint32_t, uint32_t);
static void irmsnorm_run(irmsnorm_fn ref, irmsnorm_fn dut, const char *headline, uint32_t rows, uint32_t dim, int in_place,
                         uint32_t cores)
{
    g_top = g_arena;
    const uint32_t n = rows * dim;
    int8_t *x = take(n);
    int32_t *w = take(4u * dim);
    void *y0, *y1;
    outputs(n, &y0, &y1);
    fill(x, n);
    for (uint32_t i = 0; i < dim; ++i) w[i] = (int32_t)(next() >> 12) - (1 << 19);
    if (in_place) memcpy(y0, x, n), memcpy(y1, x, n);
    tsr_irmsnorm_i8_args a = {in_place ? y0 : x, w, y0, rows, dim, headline ? 4 : in_range(0, 12), -128, 127};
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(&a, c_, cores_));
    a.y = y1;
    if (in_place) a.x = y1;
    SPLIT(ok, t_dut, cores, dut(&a, c_, cores_));
    record(headline, t_ref, t_dut, n, ok && same(y0, y1, n));
}
static void check_irmsnorm(irmsnorm_fn ref, irmsnorm_fn dut)
{
    begin_variant("RMSNORM_I8_QUANTLIB", "element");
    if (headlines()) irmsnorm_run(ref, dut, "irmsnorm_i8 1 core", 2, 64, 0, 1);
    if (headlines()) irmsnorm_run(ref, dut, "irmsnorm_i8 in place 1 core", 2, 64, 1, 1);
    if (headlines()) irmsnorm_run(ref, dut, "irmsnorm_i8 8 cores", 2, 64, 0, 8);
    if (headlines()) irmsnorm_run(ref, dut, "irmsnorm_i8 in place 8 cores", 2, 64, 1, 8);
    for (uint32_t i = 0; i < 2u * SWEEP_COUNT(k_lengths); ++i)
        irmsnorm_run(ref, dut, NULL, 1u + i % 3u, k_lengths[i / 2u], (int)(i % 2u), some_cores(i));
    end_variant();
}

typedef tsr_kernel_status (*swiglu_i8_fn)(const tsr_swiglu_i8_args *, uint32_t, uint32_t);
/* in_place: 0 apart, 1 into gate, 2 into up. table: 0 neither reads the silu16 table, 1 both
 * do (as images' steps), 2 the reference computes and the kernel under test reads it. */
static void swiglu_i8_run(swiglu_i8_fn ref, swiglu_i8_fn dut, const char *headline, uint32_t n, int in_place,
                          int table, uint32_t cores)
{
    g_top = g_arena;
    int8_t *gate[2] = {take(n), take(n)}, *up[2] = {take(n), take(n)};
    void *y0, *y1;
    outputs(n, &y0, &y1);
    fill(gate[0], n), fill(up[0], n);
    memcpy(gate[1], gate[0], n), memcpy(up[1], up[0], n);
    tsr_iexp_constants k = {7, 887, 1731, 1572132};
    if (!headline) k = g_iexp[next() % 6u];
    tsr_swiglu_i8_args a = {gate[0], up[0], y0, headline ? 3 : in_range(-128, 127), headline ? -2 : in_range(-128, 127),
                            headline ? 1 : in_range(-128, 127), k, headline ? 0x51000000 : q31_multiplier(),
                            headline ? -9 : next() % 5u ? in_range(-20, -2) : in_range(-31, 30), n, NULL};
    int16_t *silu16 = (int16_t *)(void *)take(2u * TSR_SWIGLU_I8_SILU_ENTRIES);
    if (table && tsr_swiglu_i8_silu_table(&a.constants, a.gate_zero, silu16) != TSR_KERNEL_OK) table = 0;
    int8_t *outs[2] = {y0, y1};
    int ok = 1;
    uint64_t ticks[2] = {0, 0};
    for (int which = 0; which < 2; ++which) {
        a.gate = gate[which], a.up = up[which];
        a.silu16 = table == 1 || (table == 2 && which == 1) ? silu16 : NULL;
        a.y = in_place == 1 ? gate[which] : in_place == 2 ? up[which] : outs[which];
        if (which == 0) SPLIT(ok, ticks[0], cores, ref(&a, c_, cores_));
        else SPLIT(ok, ticks[1], cores, dut(&a, c_, cores_));
        if (in_place) memcpy(outs[which], a.y, n);
    }
    record(headline, ticks[0], ticks[1], n, ok && same(y0, y1, n));
}
static void check_swiglu_i8(swiglu_i8_fn ref, swiglu_i8_fn dut)
{
    begin_variant("SWIGLU_I8", "element");
    if (headlines()) swiglu_i8_run(ref, dut, "swiglu_i8 172, 1 core", 172, 0, 1, 1);
    if (headlines()) swiglu_i8_run(ref, dut, "swiglu_i8 172, 8 cores", 172, 0, 1, 8);
    if (headlines()) swiglu_i8_run(ref, dut, "swiglu_i8 172 computed, 8 cores", 172, 0, 0, 8);
    for (uint32_t i = 0; i < 3u * SWEEP_COUNT(k_lengths); ++i)
        swiglu_i8_run(ref, dut, NULL, k_lengths[i / 3u], (int)(i % 3u), (int)((i / 3u) % 3u), some_cores(i));
    end_variant();
}

typedef tsr_kernel_status (*add_i8_fn)(const tsr_add_i8_args *, uint32_t, uint32_t);
/* Shifts that take the 32-bit forms (fast: the product's high word; 0, both words) or ones
 * that do not (above 22); in place into a. */
static void add_i8_run(add_i8_fn ref, add_i8_fn dut, const char *headline, uint32_t n, int32_t a_shift, int32_t b_shift,
                       int in_place, uint32_t cores)
{
    g_top = g_arena;
    int8_t *a[2] = {take(n), take(n)}, *b = take(n);
    void *y0, *y1;
    outputs(n, &y0, &y1);
    fill(a[0], n), fill(b, n);
    memcpy(a[1], a[0], n);
    tsr_add_i8_args args = {a[0], b, y0, q31_multiplier(), a_shift, next() % 9u || headline ? q31_multiplier() : 0, b_shift, n};
    int8_t *outs[2] = {y0, y1};
    int ok = 1;
    uint64_t ticks[2] = {0, 0};
    for (int which = 0; which < 2; ++which) {
        args.a = a[which], args.y = in_place ? a[which] : outs[which];
        if (which == 0) SPLIT(ok, ticks[0], cores, ref(&args, c_, cores_));
        else SPLIT(ok, ticks[1], cores, dut(&args, c_, cores_));
        if (in_place) memcpy(outs[which], a[which], n);
    }
    record(headline, ticks[0], ticks[1], n, ok && same(y0, y1, n));
}
static void check_add_i8(add_i8_fn ref, add_i8_fn dut)
{
    begin_variant("ADD_I8", "element");
    if (headlines()) add_i8_run(ref, dut, "add_i8 64, 1 core", 64, -3, 0, 0, 1);
    if (headlines()) add_i8_run(ref, dut, "add_i8 64, 8 cores", 64, -3, 0, 0, 8);
    if (headlines()) add_i8_run(ref, dut, "add_i8 64, a shift of 30 (64-bit form)", 64, -3, 30, 0, 8);
    for (uint32_t i = 0; i < 3u * SWEEP_COUNT(k_lengths); ++i) {
        const int32_t sa = next() % 8u ? in_range(-10, 2) : in_range(-31, 30), sb = next() % 8u ? in_range(-10, 2) : in_range(-31, 30);
        add_i8_run(ref, dut, NULL, k_lengths[i / 3u], sa, sb, i % 3u == 2u, some_cores(i));
    }
    end_variant();
}

/* An elementwise RequantShift kernel's check: its timed shapes (128 elements on 1 core and
 * split over 8, and with a RequantShift too wide for the 32-bit forms) and its sweep, each
 * length narrow and wide. */
#define CHECK_RQS_ELEMENTWISE(check, VARIANT, name, run)                                                               \
    static void check(run##_fn ref, run##_fn dut)                                                                      \
    {                                                                                                                  \
        begin_variant(VARIANT, "element");                                                                             \
        if (headlines()) run##_run(ref, dut, name " 1 core", 128, 0, 1);                                               \
        if (headlines()) run##_run(ref, dut, name " 8 cores", 128, 0, 8);                                              \
        if (headlines()) run##_run(ref, dut, name " wide", 128, 1, 1);                                                 \
        for (uint32_t i = 0; i < 2u * SWEEP_COUNT(k_lengths); ++i)                                                     \
            run##_run(ref, dut, NULL, k_lengths[i / 2u], (int)(i % 2u), some_cores(i));                                \
        /* long enough a core for the tuned kernels' table paths (iHardswish's: 512 elements) */                      \
        run##_run(ref, dut, NULL, 1031, 0, 1);                                                                         \
        run##_run(ref, dut, NULL, 1501, 0, 2);                                                                         \
        end_variant();                                                                                                 \
    }

typedef tsr_kernel_status (*add_rqs_fn)(const tsr_add_i8_rqs_args *, uint32_t, uint32_t);
static void add_rqs_run(add_rqs_fn ref, add_rqs_fn dut, const char *headline, uint32_t n, int wide, uint32_t cores)
{
    g_top = g_arena;
    int8_t *a = take(n), *b = take(n);
    tsr_rqs_params *r = take(3u * sizeof *r);
    void *y0, *y1;
    outputs(n, &y0, &y1);
    fill(a, n), fill(b, n);
    r[0] = rqs_for(wide), r[1] = rqs_for(0), r[2] = rqs_for(0);
    tsr_add_i8_rqs_args args = {a, b, y0, &r[0], &r[1], &r[2], n};
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(&args, c_, cores_));
    args.y = y1;
    SPLIT(ok, t_dut, cores, dut(&args, c_, cores_));
    record(headline, t_ref, t_dut, n, ok && same(y0, y1, n));
}
CHECK_RQS_ELEMENTWISE(check_add_rqs, "ADD_I8_RQS", "add_i8_rqs", add_rqs)

typedef tsr_kernel_status (*requant_fn)(const int8_t *, int8_t *, uint32_t, const tsr_rqs_params *, uint32_t, uint32_t);
static void requant_run(requant_fn ref, requant_fn dut, const char *headline, uint32_t n, int wide, uint32_t cores)
{
    g_top = g_arena;
    int8_t *x = take(n);
    void *y0, *y1;
    outputs(n, &y0, &y1);
    fill(x, n);
    tsr_rqs_params r = rqs_for(wide);
    if (!headline && next() % 3u == 0u) r.lo = in_range(-128, 0), r.hi = in_range(r.lo, 127);
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(x, y0, n, &r, c_, cores_));
    SPLIT(ok, t_dut, cores, dut(x, y1, n, &r, c_, cores_));
    record(headline, t_ref, t_dut, n, ok && same(y0, y1, n));
}
CHECK_RQS_ELEMENTWISE(check_requant, "REQUANT_I8", "requant_i8", requant)

typedef tsr_kernel_status (*hardswish_fn)(const tsr_hardswish_i8_args *, uint32_t, uint32_t);
static void hardswish_run(hardswish_fn ref, hardswish_fn dut, const char *headline, uint32_t n, int wide, uint32_t cores)
{
    g_top = g_arena;
    int8_t *gate = take(n), *up = take(n);
    tsr_rqs_params *r = take(2u * sizeof *r);
    void *y0, *y1;
    outputs(n, &y0, &y1);
    fill(gate, n), fill(up, n);
    r[0] = rqs_for(0);
    r[0].mul = (int32_t)(next() >> 28) + 1, r[0].shift = 16; /* |g gate one_over_six| mul within 2^31 */
    r[1] = rqs_for(wide);
    tsr_hardswish_i8_args a = {gate, up, y0, 3 << 4, 6 << 4, wide ? 30000 : 2731, &r[0], &r[1], n};
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(&a, c_, cores_));
    a.y = y1;
    SPLIT(ok, t_dut, cores, dut(&a, c_, cores_));
    record(headline, t_ref, t_dut, n, ok && same(y0, y1, n));
}
CHECK_RQS_ELEMENTWISE(check_hardswish, "SWIGLU_I8_HARDSWISH", "hardswish_i8", hardswish)

/* ---- positions and embeddings -------------------------------------------------------------- */

typedef tsr_kernel_status (*rope_i8_fn)(int8_t *, int8_t *, const int16_t *, uint32_t, uint32_t, uint32_t, uint32_t,
                                        uint32_t, uint32_t, uint32_t);
/* Q14 tables; `extreme` puts -32768 and 32767 in them (a table is the image's: any value);
 * k a prefix of q's heads. */
static void rope_i8_run(rope_i8_fn ref, rope_i8_fn dut, const char *headline, uint32_t rows, uint32_t hs, uint32_t heads,
                        uint32_t kv_heads, int extreme, uint32_t cores)
{
    g_top = g_arena;
    const uint32_t dim = hs * heads, kv_dim = hs * kv_heads, pos = headline ? 5u : next() % 4u;
    const uint32_t entries = (pos + rows) * hs;
    int16_t *table = take(2u * entries);
    void *q0, *q1, *k0, *k1;
    outputs(rows * dim, &q0, &q1), outputs(rows * kv_dim, &k0, &k1);
    fill(q0, rows * dim), fill(k0, rows * kv_dim);
    memcpy(q1, q0, rows * dim), memcpy(k1, k0, rows * kv_dim);
    for (uint32_t i = 0; i < entries; ++i)
        table[i] = (int16_t)(next() % 9u == 0u ? (next() % 2u ? 16384 : -16384) : in_range(-16384, 16384));
    if (extreme) table[pos * hs + 1u % hs] = -32768, table[pos * hs] = 32767;
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(q0, k0, table, rows, pos, dim, kv_dim, hs, c_, cores_));
    SPLIT(ok, t_dut, cores, dut(q1, k1, table, rows, pos, dim, kv_dim, hs, c_, cores_));
    record(headline, t_ref, t_dut, rows * (dim + kv_dim), ok && same(q0, q1, rows * dim) && same(k0, k1, rows * kv_dim));
}
static void check_rope_i8(rope_i8_fn ref, rope_i8_fn dut)
{
    begin_variant("ROPE_I8", "element");
    if (headlines()) rope_i8_run(ref, dut, "rope_i8 2x64, 1 core", 2, 8, 8, 4, 0, 1);
    if (headlines()) rope_i8_run(ref, dut, "rope_i8 2x64, 8 cores", 2, 8, 8, 4, 0, 8);
    if (headlines()) rope_i8_run(ref, dut, "rope_i8 2x64, a table's extremes", 2, 8, 8, 4, 1, 1);
    static const uint32_t head_sizes[] = {2, 4, 6, 8, 10, 16, 18, 64};
    uint32_t i = 0;
    for (uint32_t rows = 1; rows <= 3u; rows += 2u)
        for (uint32_t h = 0; h < SWEEP_COUNT(head_sizes); ++h)
            for (uint32_t heads = 1; heads <= 3u; ++heads, ++i)
                rope_i8_run(ref, dut, NULL, rows, head_sizes[h], heads, 1u + (heads - 1u) * (h % 2u), i % 5u == 4u,
                            some_cores(i));
    end_variant();
}

typedef tsr_kernel_status (*rope_matrix_fn)(const tsr_rope_matrix_i8_args *, uint32_t, uint32_t);
static void rope_matrix_run(rope_matrix_fn ref, rope_matrix_fn dut, const char *headline, uint32_t rows, uint32_t hs,
                            uint32_t heads, uint32_t kv_heads, int wide, uint32_t cores)
{
    g_top = g_arena;
    const uint32_t dim = hs * heads, kv_dim = hs * kv_heads;
    int8_t *m = take(rows * hs * hs);
    void *q0, *q1, *k0, *k1;
    outputs(rows * dim, &q0, &q1), outputs(rows * kv_dim, &k0, &k1);
    fill(q0, rows * dim), fill(k0, rows * kv_dim), fill(m, rows * hs * hs);
    memcpy(q1, q0, rows * dim), memcpy(k1, k0, rows * kv_dim);
    tsr_rqs_params rq = rqs_for(wide), rk = rqs_for(0);
    tsr_rope_matrix_i8_args a = {q0, k0, m, &rq, &rk, rows, dim, kv_dim, hs};
    int ok = 1;
    uint64_t t_ref = 0, t_dut = 0;
    SPLIT(ok, t_ref, cores, ref(&a, c_, cores_));
    a.q = q1, a.k = k1;
    SPLIT(ok, t_dut, cores, dut(&a, c_, cores_));
    record(headline, t_ref, t_dut, rows * (dim + kv_dim), ok && same(q0, q1, rows * dim) && same(k0, k1, rows * kv_dim));
}
static void check_rope_matrix(rope_matrix_fn ref, rope_matrix_fn dut)
{
    begin_variant("ROPE_I8_MATRIX", "element");
    if (headlines()) rope_matrix_run(ref, dut, "rope_matrix_i8 1 core", 2, 4, 16, 16, 0, 1);
    if (headlines()) rope_matrix_run(ref, dut, "rope_matrix_i8 8 cores", 2, 4, 16, 16, 0, 8);
    if (headlines()) rope_matrix_run(ref, dut, "rope_matrix_i8 wide", 2, 4, 16, 16, 1, 1);
    static const uint32_t head_sizes[] = {1, 2, 3, 4, 5, 8, 16};
    uint32_t i = 0;
    for (uint32_t rows = 1; rows <= 3u; rows += 2u)
        for (uint32_t h = 0; h < SWEEP_COUNT(head_sizes); ++h)
            for (uint32_t heads = 1; heads <= 3u; ++heads, ++i)
                rope_matrix_run(ref, dut, NULL, rows, head_sizes[h], heads, 1u + (heads - 1u) * (h % 2u), i % 4u == 3u,
                                some_cores(i));
    end_variant();
}

typedef tsr_kernel_status (*embed_row_fn)(const tsr_embed_row_i8_args *);
/* A token's row rescaled in place, each kernel from the same stored row: int8 rows, or W4
 * rows (an odd width: the last byte's one element). */
static void embed_row_run(embed_row_fn ref, embed_row_fn dut, const char *headline, uint32_t dim, uint32_t w4)
{
    g_top = g_arena;
    const uint32_t bytes = w4 ? (dim + 1u) / 2u : dim, groups = (dim + 31u) / 32u;
    int8_t *stored = take(dim);
    uint8_t *gs = take(groups);
    void *y0, *y1;
    outputs(dim, &y0, &y1);
    fill(stored, bytes), fill(gs, groups);
    memcpy(y0, stored, bytes), memcpy(y1, stored, bytes);
    tsr_embed_row_i8_args a = {y0, gs, next() % 7u ? q31_multiplier() : 0,
                               headline ? (w4 ? -9 : -1) : w4 ? in_range(-14, -6) : in_range(-8, 2), dim, w4};
    uint64_t t0 = now();
    int ok = ref(&a) == TSR_KERNEL_OK;
    const uint64_t t_ref = now() - t0;
    a.y = y1;
    t0 = now();
    ok &= dut(&a) == TSR_KERNEL_OK;
    const uint64_t t_dut = now() - t0;
    record(headline, t_ref, t_dut, dim, ok && same(y0, y1, dim));
}
static const uint32_t k_embed_dims[] = {1, 2, 3, 4, 5, 31, 32, 33, 63, 64, 65, 97, 172};
static void check_embed_rows(embed_row_fn ref, embed_row_fn dut)
{
    begin_variant("EMBED_I8_ROWS", "element");
    if (headlines()) embed_row_run(ref, dut, "embed_row_i8 288", 288, 0);
    for (uint32_t i = 0; i < SWEEP_COUNT(k_embed_dims); ++i) embed_row_run(ref, dut, NULL, k_embed_dims[i], 0);
    end_variant();
}
static void check_embed_w4(embed_row_fn ref, embed_row_fn dut)
{
    begin_variant("EMBED_I8_W4", "element");
    if (headlines()) embed_row_run(ref, dut, "embed_row_i8 W4 288", 288, 1);
    if (headlines()) embed_row_run(ref, dut, "embed_row_i8 W4 65", 65, 1);
    for (uint32_t i = 0; i < SWEEP_COUNT(k_embed_dims); ++i) embed_row_run(ref, dut, NULL, k_embed_dims[i], 1);
    end_variant();
}

/* ---- the sets ---------------------------------------------------------------------------- */

/* Each variant's kernels, portable, against the set's: the portable kernels' names with
 * the set's suffix (kernels/kernel_sets.cmake), as the runtime's operator files name them. */
#define TSR_CHECK_MATMUL_F32(sfx) check_matmul_f32(tsr_matmul_f32, tsr_matmul_f32_##sfx)
#define TSR_CHECK_MATMUL_I8(sfx) check_matmul_i8(tsr_matmul_i8, tsr_matmul_i8_##sfx)
#define TSR_CHECK_MATMUL_I8_F32_OUT(sfx) check_matmul_i8_f32(tsr_matmul_i8_f32, tsr_matmul_i8_f32_##sfx)
#define TSR_CHECK_MATMUL_I8_RQS(sfx) check_matmul_rqs(tsr_matmul_i8_rqs, tsr_matmul_i8_rqs_##sfx)
#define TSR_CHECK_MATMUL_I8_W4(sfx) check_w4a8(tsr_matmul_w4a8, tsr_matmul_w4a8_##sfx)
#define TSR_CHECK_MATMUL_I8_W4_F32_OUT(sfx) check_w4a8_f32(tsr_matmul_w4a8_f32, tsr_matmul_w4a8_f32_##sfx)
/* An attention variant's three kernels (scores, softmax, accumulation), portable and the set's. */
#define CHECK_ATTENTION(fns, check, scores, softmax, accumulate, sfx)                                                  \
    do {                                                                                                               \
        static const fns portable = {scores, softmax, accumulate};                                                     \
        static const fns tuned = {scores##_##sfx, softmax##_##sfx, accumulate##_##sfx};                                \
        check(&portable, &tuned);                                                                                      \
    } while (0)
#define TSR_CHECK_ATTENTION_F32(sfx)                                                                                   \
    CHECK_ATTENTION(attention_f32_fns, check_attention_f32, tsr_attention_scores_f32, tsr_softmax_f32,                 \
                    tsr_attention_accumulate_f32, sfx)
#define TSR_CHECK_ATTENTION_I8(sfx)                                                                                    \
    CHECK_ATTENTION(attention_i8_fns, check_attention_i8, tsr_attention_scores_i8, tsr_softmax_i8,                     \
                    tsr_attention_accumulate_i8, sfx)
#define TSR_CHECK_ATTENTION_I8_QUANTLIB(sfx)                                                                           \
    do {                                                                                                               \
        static const quantlib_attention_fns portable = {tsr_quantlib_scores, tsr_quantlib_softmax,                     \
                                                        tsr_quantlib_accumulate, tsr_quantlib_rows};                   \
        static const quantlib_attention_fns tuned = {tsr_quantlib_scores_##sfx, tsr_quantlib_softmax_##sfx,            \
                                                     tsr_quantlib_accumulate_##sfx, tsr_quantlib_rows_##sfx};          \
        check_quantlib_attention(&portable, &tuned);                                                                   \
    } while (0)
#define TSR_CHECK_RMSNORM_I8(sfx) check_rmsnorm_i8(tsr_rmsnorm_i8, tsr_rmsnorm_i8_##sfx)
#define TSR_CHECK_RMSNORM_I8_QUANTLIB(sfx) check_irmsnorm(tsr_irmsnorm_i8, tsr_irmsnorm_i8_##sfx)
#define TSR_CHECK_LAYERNORM_I8(sfx) check_layernorm_i8(tsr_layernorm_i8, tsr_layernorm_i8_##sfx)
#define TSR_CHECK_SWIGLU_I8(sfx) check_swiglu_i8(tsr_swiglu_i8, tsr_swiglu_i8_##sfx)
#define TSR_CHECK_SWIGLU_I8_HARDSWISH(sfx) check_hardswish(tsr_hardswish_i8, tsr_hardswish_i8_##sfx)
#define TSR_CHECK_ADD_I8(sfx) check_add_i8(tsr_add_i8, tsr_add_i8_##sfx)
#define TSR_CHECK_POSITIONS_I8(sfx) check_add_i8(tsr_add_i8, tsr_add_i8_##sfx) /* positions: the table's row added as ADD adds */
#define TSR_CHECK_ADD_I8_RQS(sfx) check_add_rqs(tsr_add_i8_rqs, tsr_add_i8_rqs_##sfx)
#define TSR_CHECK_REQUANT_I8(sfx) check_requant(tsr_requant_i8, tsr_requant_i8_##sfx)
#define TSR_CHECK_ROPE_I8(sfx) check_rope_i8(tsr_rope_i8, tsr_rope_i8_##sfx)
#define TSR_CHECK_ROPE_I8_MATRIX(sfx) check_rope_matrix(tsr_rope_matrix_i8, tsr_rope_matrix_i8_##sfx)
#define TSR_CHECK_EMBED_I8_ROWS(sfx) check_embed_rows(tsr_embed_row_i8, tsr_embed_row_i8_##sfx)
#define TSR_CHECK_EMBED_I8_W4(sfx) check_embed_w4(tsr_embed_row_i8, tsr_embed_row_i8_##sfx)

/* A variant's check, its sweep TSR_KERNEL_CONFORMANCE_REPEATS times over (one tally). */
#define REPEATED(call)                                                                                                 \
    for (g_repeat = 0; g_repeat < TSR_KERNEL_CONFORMANCE_REPEATS; ++g_repeat) call
/* The portable kernels against their definitions (the *_ref kernels), where they have one. */
static void check_portable(void)
{
    REPEATED(check_matmul_f32(tsr_matmul_f32_ref, tsr_matmul_f32));
    REPEATED(check_matmul_i8(tsr_matmul_i8_ref, tsr_matmul_i8));
    REPEATED(check_matmul_i8_f32(tsr_matmul_i8_f32_ref, tsr_matmul_i8_f32));
    REPEATED(check_matmul_rqs(tsr_matmul_i8_rqs_ref, tsr_matmul_i8_rqs));
    REPEATED(check_w4a8(tsr_matmul_w4a8_ref, tsr_matmul_w4a8));
    REPEATED(check_w4a8_f32(tsr_matmul_w4a8_f32_ref, tsr_matmul_w4a8_f32));
    static const attention_i8_fns ref = {tsr_attention_scores_i8_ref, tsr_softmax_i8_ref, tsr_attention_accumulate_i8_ref};
    static const attention_i8_fns portable = {tsr_attention_scores_i8, tsr_softmax_i8, tsr_attention_accumulate_i8};
    REPEATED(check_attention_i8(&ref, &portable));
}

/* The board description's name of the set of bit `isa` (TSR_KERNEL_SET_NAMES). */
static const char *set_name(uint32_t isa)
{
    static const struct {
        const char *name;
        uint32_t bit;
    } names[] = {TSR_KERNEL_SET_NAMES};
    for (uint32_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (names[i].bit == isa) return names[i].name;
    return "?";
}

/* The kernels' core split (tsr_quotient_by_cores: a product by a table's reciprocal where the cores divide slowly)
 * against the division: every core count 1 to 20, numerators from 0 and around 2^27 (the
 * table's edge), and the largest. */
static void check_core_split(void)
{
    uint32_t cases = 0, differ = 0;
    for (uint32_t d = 1; d <= 20u; ++d) {
        for (uint32_t i = 0; i < 1204u; ++i) {
            const uint32_t n = i < 600u ? i : i < 1200u ? (1u << 27) - 300u + (i - 600u) : 0xFFFFFFFFu - (i - 1200u);
            ++cases;
            if (tsr_quotient_by_cores(n, d) != n / d) ++differ;
        }
    }
    tsr_demo_puts("core split (tsr_quotient_by_cores): ");
    tsr_demo_put_u64(cases - differ);
    tsr_demo_puts(" cases equal the division, ");
    tsr_demo_put_u64(differ);
    tsr_demo_puts(" differ\n");
    g_all_cases += cases;
    g_all_differ += differ;
}

static char g_sets_run[96] = "portable";
static uint32_t g_set_skipped;
/* Whether the board's cores run the set of bit `isa`; the first time, its name is noted. */
static int enter_set(uint32_t isa)
{
    if (!(g_board->isa & isa)) {
        g_set_skipped |= isa;
        return 0;
    }
    g_set = set_name(isa), g_against = "portable", g_headlines = 1;
    if (!strstr(g_sets_run, g_set)) strcat(strcat(g_sets_run, ", "), g_set);
    return 1;
}

int main(void)
{
    g_board = tsr_demo_board();
    const tsr_hal_region *l1 = &g_board->regions[TSR_REGION_L1];
    g_arena = (uint8_t *)(((uintptr_t)l1->base + 3u) & ~(uintptr_t)3u);
    g_end = (uint8_t *)l1->base + l1->size;
    tsr_demo_puts("kernel conformance on ");
    tsr_demo_puts(g_board->name);
    tsr_demo_puts(": operands in L1, one core running each core's share in turn; ticks: ");
    tsr_demo_puts(tsr_demo_cycles_meaning());
    tsr_demo_puts("\n");

    compute_iexp_constants();
    check_core_split();
    check_portable();
#define TSR_TUNED(OP, SET, VARIANT, sfx)                                                                               \
    if (enter_set(TSR_ISA_##SET)) REPEATED(TSR_CHECK_##VARIANT(sfx));
#include "tessera/tuned_all.def"
#undef TSR_TUNED

    for (uint32_t bit = 0; bit < 32u; ++bit)
        if (g_set_skipped & (1u << bit)) {
            tsr_demo_puts("set ");
            tsr_demo_puts(set_name(1u << bit));
            tsr_demo_puts(": built, but not run here (the board's cores do not run it)\n");
        }
    if (g_arena_short) {
        tsr_demo_puts("kernel conformance: L1 is too small for the cases (64 KiB needed)\n");
        return 1;
    }
    tsr_demo_puts("kernel conformance on ");
    tsr_demo_puts(g_board->name);
    tsr_demo_puts(" (");
    tsr_demo_puts(g_sets_run);
    tsr_demo_puts("): ");
    tsr_demo_put_u64(g_variants);
    tsr_demo_puts(" variants, ");
    tsr_demo_put_u64(g_all_cases - g_all_differ);
    tsr_demo_puts(" cases equal, ");
    tsr_demo_put_u64(g_all_differ);
    tsr_demo_puts(" differ\n");
    return g_all_differ ? 1 : 0;
}
