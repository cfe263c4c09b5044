#include "row_tiles.h"

namespace tsr {

StepGeometry row_geometry(const tsr_step &s, uint32_t rows, const RowOperand *ops, uint32_t count)
{
    StepGeometry g = StepGeometry::none();
    const uint32_t tr = s.tile[0];
    if (tr == 0u || tr > rows) return g;
    g.tiles = ceil_div(rows, tr);
    for (uint32_t i = 0; i < count; ++i) {
        const RowOperand &o = ops[i];
        const uint32_t ways = (o.read ? 1u : 0u) + (o.write ? 1u : 0u); // ROPE's q and k go in and out
        if (o.whole) {
            g.stream(o.k, o.row_bytes, 1u);
            g.traffic(o.k, o.row_bytes, 1u);
        } else {
            g.stream(o.k, (uint64_t)tr * o.row_bytes, g.tiles);
            g.traffic(o.k, (uint64_t)ways * rows * o.row_bytes, (uint64_t)ways * g.tiles);
        }
    }
    g.valid = true;
    return g;
}

namespace {

void binary_operands(const tsr_step &s, RowOperand out[3])
{
    const uint32_t row = s.params[0] * 4u;
    out[0] = {0, row, 0, false, true, false};
    out[1] = {1, row, 0, false, true, false};
    out[2] = {2, row, 0, false, false, true};
}

} // namespace

tessera_status binary_validate(StepChecker &c)
{
    const uint64_t bytes = (uint64_t)c.rows * c.step.params[0] * 4u;
    if (!c.step.params[0]) return c.fail("n is 0");
    TSR_TRY(c.operand(0, TSR_DTYPE_F32, bytes, false));
    TSR_TRY(c.operand(1, TSR_DTYPE_F32, bytes, false));
    return c.operand(2, TSR_DTYPE_F32, bytes, true);
}

StepGeometry binary_geometry(const tsr_step &s, uint32_t rows, uint32_t)
{
    RowOperand ops[3];
    binary_operands(s, ops);
    return row_geometry(s, rows, ops, 3);
}

void binary_run(StepRun &r, BinaryKernel kernel)
{
    RowOperand ops[3];
    binary_operands(r.step, ops);
    const uint32_t n = r.step.params[0];
    run_rows(r, ops, 3, [&](uint8_t **p, uint32_t rows) {
        return kernel((const float *)p[0], (const float *)p[1], (float *)p[2], rows * n, r.worker, r.workers);
    });
}

} // namespace tsr
