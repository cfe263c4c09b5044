// MATMUL    in: x (rows x k), w (n x k, row-major)   out: y (rows x n)
//           params (tsr_matmul_params): k, n, the weights' and the output's element types:
//             F32 steps: F32 or BF16 weights (BF16: half the bytes, widened in the kernel), F32 out;
//             BF16 steps: BF16 weights, BF16 out or F32 out (the logits), fp32 sums;
//             I8 steps: I8 weights per output channel, I8 out (requant: n Q31 multipliers
//               (int32) then n shifts (int8), an I32 tensor) or F32 out (requant: n dequantization factors, F32).
//           tiles: rows x output columns (tile[0], tile[1]); a row tile's x is
//           loaded once, the weights stream tile by tile.
#include "op.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"

namespace tsr {
namespace {

const tsr_matmul_params &P(const tsr_step &s) { return s.params.matmul; }
uint32_t weight_bytes(const tsr_step &s) { return tsr_dtype_bytes(P(s).weight_dtype); }
uint32_t out_bytes(const tsr_step &s) { return tsr_dtype_bytes(P(s).out_dtype); }

tessera_status validate(StepChecker &c)
{
    const tsr_matmul_params &p = P(c.step);
    const uint64_t R = c.rows;
    const uint32_t T = c.step.dtype;
    TSR_TRY(c.dtype_in(kAllTypes));
    if (!p.k || !p.n) return c.fail("k or n is 0");
    const bool f32_weights_ok = T == TSR_DTYPE_F32 && (p.weight_dtype == TSR_DTYPE_F32 || p.weight_dtype == TSR_DTYPE_BF16);
    if (!f32_weights_ok && !(T != TSR_DTYPE_F32 && p.weight_dtype == T)) return c.fail("weight element type does not fit");
    if (p.out_dtype != T && p.out_dtype != TSR_DTYPE_F32) return c.fail("output element type does not fit");
    if (T == TSR_DTYPE_I8) {
        if (p.k > 32768u) return c.fail("k above 32768");
        if (p.out_dtype == TSR_DTYPE_I8) TSR_TRY(c.constant(p.requant, TSR_DTYPE_I32, (uint64_t)p.n * 5u, "requantization table does not fit"));
        else TSR_TRY(c.constant(p.requant, TSR_DTYPE_F32, (uint64_t)p.n * 4u, "dequantization table does not fit"));
        // The multipliers and shifts are data: the kernel checks their ranges on every call.
    }
    TSR_TRY(c.operand(0, T, R * p.k * act_bytes(c.step), false));
    TSR_TRY(c.operand(1, p.weight_dtype, (uint64_t)p.k * p.n * weight_bytes(c.step), false));
    return c.operand(2, p.out_dtype, R * p.n * out_bytes(c.step), true);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t)
{
    StepGeometry g = StepGeometry::none();
    const uint32_t tr = s.tile[0], tn = s.tile[1], K = P(s).k, N = P(s).n, wb = weight_bytes(s), xb = act_bytes(s),
                   yb = out_bytes(s);
    if (!tr || tr > rows || !tn || tn > N || !wb || !xb || !yb) return g;
    const uint32_t rt = ceil_div(rows, tr), ct = ceil_div(N, tn);
    g.tiles = rt * ct;
    g.stream(0, (uint64_t)tr * K * xb, rt);
    g.stream(1, (uint64_t)tn * K * wb, g.tiles);
    g.stream(2, (uint64_t)tr * tn * yb, g.tiles);
    g.traffic(0, (uint64_t)rows * K * xb, rt);               // x: once per row tile
    g.traffic(1, (uint64_t)rt * N * K * wb, g.tiles);        // w: every row tile again
    g.traffic(2, (uint64_t)rows * N * yb, g.tiles);
    g.valid = true;
    return g;
}

// One tile's product: m rows of x (k each) times n weight rows into y (row stride ldy),
// output channels c0.. of the whole matrix (the requantization tables' index).
tsr_kernel_status multiply(const StepRun &r, const uint8_t *x, const uint8_t *w, uint8_t *y, uint32_t m, uint32_t n,
                           uint32_t ldy, uint32_t c0)
{
    const tsr_step &s = r.step;
    const uint32_t K = P(s).k, N = P(s).n;
    switch (s.dtype) {
    case TSR_DTYPE_F32:
        return P(s).weight_dtype == TSR_DTYPE_BF16
                   ? tsr_matmul_f32_w16((const float *)x, (const tsr_bf16 *)w, (float *)y, m, K, n, ldy, r.worker, r.workers)
                   : tsr_matmul_f32((const float *)x, (const float *)w, (float *)y, m, K, n, ldy, r.worker, r.workers);
    case TSR_DTYPE_BF16: {
        const bool f32_out = P(s).out_dtype == TSR_DTYPE_F32;
        tsr_matmul_bf16_args a = {(const tsr_bf16 *)x, (const tsr_bf16 *)w, f32_out ? nullptr : (tsr_bf16 *)y, m, K, n,
                                  ldy, f32_out ? (float *)y : nullptr};
        return tsr_matmul_bf16(&a, r.worker, r.workers);
    }
    default: { // I8
        const uint8_t *table = r.constant(P(s).requant);
        if (P(s).out_dtype == TSR_DTYPE_F32) {
            tsr_matmul_i8_f32_args a = {(const int8_t *)x, (const int8_t *)w, (const float *)table + c0, (float *)y, m, K, n, ldy};
            return tsr_matmul_i8_f32(&a, r.worker, r.workers);
        }
        const int32_t *mult = (const int32_t *)table;
        tsr_matmul_i8_args a = {};
        a.x = (const int8_t *)x;
        a.w = (const int8_t *)w;
        a.multiplier = mult + c0;
        a.shift = (const int8_t *)(mult + N) + c0;
        a.y = (int8_t *)y;
        a.y_min = -128;
        a.y_max = 127;
        a.rows = m;
        a.k = K;
        a.n = n;
        a.ldy = ldy;
        return tsr_matmul_i8(&a, r.worker, r.workers);
    }
    }
}

void run(StepRun &r)
{
    const uint32_t K = P(r.step).k, N = P(r.step).n, wb = weight_bytes(r.step), xb = act_bytes(r.step),
                   yb = out_bytes(r.step);
    const uint32_t tr = r.step.tile[0], tn = r.step.tile[1], ct = ceil_div(N, tn);
    struct Tile {
        uint32_t ri, r0, m, c0, n;
    };
    auto tile = [&](uint32_t t) {
        Tile x;
        x.ri = t / ct;
        x.r0 = x.ri * tr;
        x.m = r.rows - x.r0 < tr ? r.rows - x.r0 : tr;
        x.c0 = (t % ct) * tn;
        x.n = N - x.c0 < tn ? N - x.c0 : tn;
        return x;
    };
    r.tiles(
        ceil_div(r.rows, tr) * ct,
        [&](uint32_t t) {
            const Tile x = tile(t);
            if (r.stage[0] && t % ct == 0u) r.run.dma.copy(r.slot(0, x.ri), r.addr[0] + (size_t)x.r0 * K * xb, x.m * K * xb);
            if (r.stage[1]) r.run.dma.copy(r.slot(1, t), r.addr[1] + (size_t)x.c0 * K * wb, x.n * K * wb);
        },
        [&](uint32_t t) {
            if (!r.fine) return;
            const Tile x = tile(t);
            const uint8_t *in = r.at(0, x.ri, (size_t)x.r0 * K * xb);
            const uint8_t *w = r.at(1, t, (size_t)x.c0 * K * wb);
            uint8_t *y = r.at(2, t, ((size_t)x.r0 * N + x.c0) * yb);
            const uint32_t ldy = r.stage[2] ? tn : N;
            if (r.worker == 0u) {
                r.check(in, (uint64_t)x.m * K * xb, 0);
                r.check(w, (uint64_t)x.n * K * wb, 1);
                r.check(y, ((uint64_t)(x.m - 1u) * ldy + x.n) * yb, 2);
            }
            r.kernel(multiply(r, in, w, y, x.m, x.n, ldy, x.c0));
        },
        [&](uint32_t t) {
            const Tile x = tile(t);
            if (r.stage[2])
                r.run.dma.copy_2d(r.addr[2] + ((size_t)x.r0 * N + x.c0) * yb, N * yb, r.slot(2, t), tn * yb, x.n * yb,
                                  x.m);
        });
}

} // namespace

extern const OpDevice op_MATMUL = {validate, geometry, run};

} // namespace tsr
