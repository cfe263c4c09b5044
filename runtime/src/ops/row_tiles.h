// Operators tiled by rows of the run (TSR_TILE_ROWS): the geometry and the run they
// share. Each operand is a run of rows (its own row bytes, starting at row_base:
// ROPE's table starts at the run's position), or a block read whole once (RMSNORM's
// weight).
#ifndef TESSERA_OPS_ROW_TILES_H
#define TESSERA_OPS_ROW_TILES_H

#include "op.h"

namespace tsr {

struct RowOperand {
    uint32_t k;         // operand index
    uint32_t row_bytes; // bytes per row (whole: the block's bytes)
    uint32_t row_base;  // first row of the run
    bool whole, read, write;
};

// tile[0] rows per tile, 1..rows.
StepGeometry row_geometry(const tsr_step &s, uint32_t rows, const RowOperand *ops, uint32_t count);

// kernel(p, n): p[k] is operand k's first row of the tile, n the tile's rows; it
// runs on every core and returns the kernel's status.
template <typename Kernel> void run_rows(StepRun &r, const RowOperand *ops, uint32_t count, Kernel kernel)
{
    const uint32_t tr = r.step.tile[0], tiles = ceil_div(r.rows, tr);
    auto rows_in = [&](uint32_t t) { return r.rows - t * tr < tr ? r.rows - t * tr : tr; };
    auto source = [&](const RowOperand &o, uint32_t t) {
        return r.addr[o.k] + (o.whole ? 0u : (size_t)(o.row_base + t * tr) * o.row_bytes);
    };
    auto bytes = [&](const RowOperand &o, uint32_t t) { return o.whole ? o.row_bytes : rows_in(t) * o.row_bytes; };
    if (tiles == 1u && !r.resolved.staged) // a token's usual step: its operands where they lie
        return r.tile_in_place([&] {
            uint8_t *p[TSR_MAX_OPERANDS] = {};
            for (uint32_t i = 0; i < count; ++i) {
                const RowOperand &o = ops[i];
                p[o.k] = source(o, 0u);
                if (r.worker == 0u) r.check(p[o.k], bytes(o, 0u), o.k);
            }
            r.kernel(kernel(p, r.rows));
        });
    r.tiles(
        tiles,
        [&](uint32_t t) {
            for (uint32_t i = 0; i < count; ++i) {
                const RowOperand &o = ops[i];
                if (r.stage[o.k] && o.read && !(o.whole && t > 0u))
                    r.run.dma.copy(r.slot(o.k, o.whole ? 0u : t), source(o, t), bytes(o, t));
            }
        },
        [&](uint32_t t) {
            if (!r.fine) return;
            uint8_t *p[TSR_MAX_OPERANDS] = {};
            for (uint32_t i = 0; i < count; ++i) {
                const RowOperand &o = ops[i];
                p[o.k] = r.stage[o.k] ? r.slot(o.k, o.whole ? 0u : t) : source(o, t);
                if (r.worker == 0u) r.check(p[o.k], bytes(o, t), o.k);
            }
            r.kernel(kernel(p, rows_in(t)));
        },
        [&](uint32_t t) {
            for (uint32_t i = 0; i < count; ++i) {
                const RowOperand &o = ops[i];
                if (r.stage[o.k] && o.write) r.run.dma.copy(source(o, t), r.slot(o.k, t), bytes(o, t));
            }
        });
}

// A prepared call (OpDevice::prepare) of an element-wise kernel of two fp32 inputs: its
// operands where the call reads them and a row's elements.
struct PreparedBinaryF32 {
    const float *a, *b;
    float *y;
    uint32_t n;
};
using BinaryF32 = tsr_kernel_status (*)(const float *, const float *, float *, uint32_t, uint32_t, uint32_t);
template <BinaryF32 Kernel>
tsr_kernel_status binary_f32_call(const PreparedCall &c, uint32_t rows, uint32_t, uint32_t worker, uint32_t workers)
{
    const PreparedBinaryF32 &p = c.as<PreparedBinaryF32>();
    return Kernel(p.a, p.b, p.y, rows * p.n, worker, workers);
}
template <BinaryF32 Kernel> bool binary_f32_prepare(const PrepareContext &c, PreparedCall &out, uint32_t n)
{
    for (uint32_t k = 0; k < 3u; ++k) c.check(k, (uint64_t)c.rows * n * 4u); // validated: the operands hold it
    out.set(binary_f32_call<Kernel>, PreparedBinaryF32{(const float *)c.at(0), (const float *)c.at(1), (float *)c.at(2), n});
    return true;
}

// Element-wise operators of two inputs: in a (rows x n), b (rows x n); out y (rows x
// n); n is the first word of their params. kernel(a, b, y, count) runs on every core.
tessera_status binary_validate(StepChecker &c, uint32_t n);
StepGeometry binary_geometry(const tsr_step &s, uint32_t rows, uint32_t n);
template <typename Kernel> void binary_run(StepRun &r, uint32_t n, Kernel kernel)
{
    const uint32_t row = n * act_bytes(r.step);
    const RowOperand ops[3] = {{0, row, 0, false, true, false}, {1, row, 0, false, true, false}, {2, row, 0, false, false, true}};
    run_rows(r, ops, 3, [&](uint8_t **p, uint32_t rows) { return kernel(p[0], p[1], p[2], rows * n); });
}

// Element-wise operators of one input: in x (rows x n); out y (rows x n) (GELU, REQUANT).
// kernel(x, y, count) runs on every core.
void unary_operands(const tsr_step &s, uint32_t n, RowOperand out[2]);
tessera_status unary_validate(StepChecker &c, uint32_t n);
StepGeometry unary_geometry(const tsr_step &s, uint32_t rows, uint32_t n);
template <typename Kernel> void unary_run(StepRun &r, uint32_t n, Kernel kernel)
{
    RowOperand ops[2];
    unary_operands(r.step, n, ops);
    run_rows(r, ops, 2, [&](uint8_t **p, uint32_t rows) { return kernel(p[0], p[1], rows * n); });
}

} // namespace tsr

#endif
