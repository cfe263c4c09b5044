/*
 * run.c on the pulp-rtl board: llama2c_os.c's hooks (the console, the heap's regions,
 * mcycle as its clock), and expf and powf that divide nowhere (picolibc's use fdiv.s,
 * which never completes on the model of these cores: toolchain/riscv32-imfc-xpulpv2-elf.cmake):
 * expf is Tessera's, powf e^(y ln x) with ln x by Newton's method on e^t = x.
 */
#include <stdint.h>

#include "kernel_math.h" /* tsr_expf */
#include "llama2c_board.h"
#include "tessera/pulp_rtl.h"

void tsr_llama2c_puts(const char *text) { tsr_pulp_puts(text); }
void tsr_llama2c_put_u64(uint64_t value) { tsr_pulp_put_u64(value); }
uint64_t tsr_llama2c_div_u64(uint64_t n, uint64_t d) { return tsr_pulp_div_u64(n, d); }
void tsr_llama2c_exit(int status) { tsr_pulp_exit(status); }
const tsr_hal_board *tsr_llama2c_board(void) { return tsr_pulp_board(); }
uint64_t tsr_llama2c_clock(void) { return tsr_pulp_mcycle(); }
const char *tsr_llama2c_clock_unit(void) { return "cycles"; }
void tsr_llama2c_measure(int begin) { (void)begin; } /* the RTL counts cycles: mcycle */

float expf(float x)
{
    return tsr_expf(x);
}

/* ln x for finite x > 0 (run.c's one use: powf(10000, e) for RoPE): x = m 2^e with m in
 * [1, 2), ln m from two terms of its series, then Newton on e^t = m, t' = t + m e^-t - 1,
 * three steps (quadratic: far below a float's precision). */
static float log_positive(float x)
{
    union {
        float f;
        uint32_t u;
    } v = {x};
    const int32_t e = (int32_t)((v.u >> 23) & 0xFFu) - 127;
    v.u = (v.u & 0x7FFFFFu) | 0x3F800000u;
    const float m = v.f, d = m - 1.0f;
    float t = d - 0.5f * d * d;
    for (int i = 0; i < 3; ++i) {
        t = t + m * tsr_expf(-t) - 1.0f;
    }
    return t + (float)e * 0.693147180559945f;
}

float powf(float x, float y)
{
    if (y == 0.0f || x == 1.0f) {
        return 1.0f;
    }
    if (!(x > 0.0f) || x > 3.4e38f) { /* run.c never asks: no sign or special-case rules */
        return __builtin_nanf("");
    }
    return tsr_expf(y * log_positive(x));
}

