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

tessera_status binary_validate(StepChecker &c, uint32_t n)
{
    const uint64_t bytes = (uint64_t)c.rows * n * act_bytes(c.step);
    if (!n) return c.fail("n is 0"); // the element type: the operator's variant (checked first)
    TSR_TRY(c.operand(0, c.step.dtype, bytes, false));
    TSR_TRY(c.operand(1, c.step.dtype, bytes, false));
    return c.operand(2, c.step.dtype, bytes, true);
}

StepGeometry binary_geometry(const tsr_step &s, uint32_t rows, uint32_t n)
{
    const uint32_t row = n * act_bytes(s);
    const RowOperand ops[3] = {{0, row, 0, false, true, false}, {1, row, 0, false, true, false}, {2, row, 0, false, false, true}};
    return row_geometry(s, rows, ops, 3);
}

void unary_operands(const tsr_step &s, uint32_t n, RowOperand out[2])
{
    const uint32_t row = n * act_bytes(s);
    out[0] = {0, row, 0, false, true, false};
    out[1] = {1, row, 0, false, false, true};
}

tessera_status unary_validate(StepChecker &c, uint32_t n)
{
    if (!n) return c.fail("n is 0");
    const uint64_t bytes = (uint64_t)c.rows * n * act_bytes(c.step);
    TSR_TRY(c.operand(0, c.step.dtype, bytes, false));
    return c.operand(1, c.step.dtype, bytes, true);
}

StepGeometry unary_geometry(const tsr_step &s, uint32_t rows, uint32_t n)
{
    RowOperand ops[2];
    unary_operands(s, n, ops);
    return row_geometry(s, rows, ops, 2);
}

} // namespace tsr
