// MATMUL    in: x (rows x k), w (n x k, row-major)   out: y (rows x n)
//           params: k, n, the weights' element type (F32, or BF16: stored and
//           streamed at half the bytes, widened in the kernel; x and y stay F32)
//           tiles: rows x output columns (tile[0], tile[1]); a row tile's x is
//           loaded once, the weights stream tile by tile.
#include "op.h"
#include "tessera/kernels_bf16.h"

namespace tsr {
namespace {

// Bytes of a weight element: 4 (F32) or 2 (BF16); validate refuses any other type.
uint32_t weight_bytes(const tsr_step &s) { return s.params[2] == TSR_DTYPE_BF16 ? 2u : 4u; }

tessera_status validate(StepChecker &c)
{
    const uint32_t *p = c.step.params;
    const uint64_t R = c.rows;
    if (!p[0] || !p[1]) return c.fail("k or n is 0");
    if (p[2] != TSR_DTYPE_F32 && p[2] != TSR_DTYPE_BF16) return c.fail("weight element type is neither F32 nor BF16");
    TSR_TRY(c.operand(0, TSR_DTYPE_F32, R * p[0] * 4u, false));
    TSR_TRY(c.operand(1, p[2], (uint64_t)p[0] * p[1] * weight_bytes(c.step), false));
    return c.operand(2, TSR_DTYPE_F32, R * p[1] * 4u, true);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t)
{
    StepGeometry g = StepGeometry::none();
    const uint32_t tr = s.tile[0], tn = s.tile[1], K = s.params[0], N = s.params[1], wb = weight_bytes(s);
    if (!tr || tr > rows || !tn || tn > N) return g;
    const uint32_t rt = ceil_div(rows, tr), ct = ceil_div(N, tn);
    g.tiles = rt * ct;
    g.stream(0, (uint64_t)tr * K * 4u, rt);
    g.stream(1, (uint64_t)tn * K * wb, g.tiles);
    g.stream(2, (uint64_t)tr * tn * 4u, g.tiles);
    g.traffic(0, (uint64_t)rows * K * 4u, rt);               // x: once per row tile
    g.traffic(1, (uint64_t)rt * N * K * wb, g.tiles);        // w: every row tile again
    g.traffic(2, (uint64_t)rows * N * 4u, g.tiles);
    g.valid = true;
    return g;
}

void run(StepRun &r)
{
    const uint32_t K = r.step.params[0], N = r.step.params[1], wb = weight_bytes(r.step);
    const bool w16 = wb == 2u;
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
            if (r.stage[0] && t % ct == 0u) r.run.dma.copy(r.slot(0, x.ri), r.addr[0] + (size_t)x.r0 * K * 4u, x.m * K * 4u);
            if (r.stage[1]) r.run.dma.copy(r.slot(1, t), r.addr[1] + (size_t)x.c0 * K * wb, x.n * K * wb);
        },
        [&](uint32_t t) {
            if (!r.fine) return;
            const Tile x = tile(t);
            const float *in = (const float *)r.at(0, x.ri, (size_t)x.r0 * K * 4u);
            const uint8_t *w = r.at(1, t, (size_t)x.c0 * K * wb);
            float *y = (float *)r.at(2, t, ((size_t)x.r0 * N + x.c0) * 4u);
            const uint32_t ldy = r.stage[2] ? tn : N;
            if (r.worker == 0u) {
                r.check(in, (uint64_t)x.m * K * 4u, 0);
                r.check(w, (uint64_t)x.n * K * wb, 1);
                r.check(y, ((uint64_t)(x.m - 1u) * ldy + x.n) * 4u, 2);
            }
            r.kernel(w16 ? tsr_matmul_f32_w16(in, (const tsr_bf16 *)w, y, x.m, K, x.n, ldy, r.worker, r.workers)
                         : tsr_matmul_f32(in, (const float *)w, y, x.m, K, x.n, ldy, r.worker, r.workers));
        },
        [&](uint32_t t) {
            const Tile x = tile(t);
            if (r.stage[2])
                r.run.dma.copy_2d(r.addr[2] + ((size_t)x.r0 * N + x.c0) * 4u, N * 4u, r.slot(2, t), tn * 4u, x.n * 4u,
                                  x.m);
        });
}

} // namespace

extern const OpDevice op_MATMUL = {validate, geometry, run};

} // namespace tsr
