// ROPE      inout: q (rows x dim), k (rows x kv_dim)
//           in: table (context x head_size: a {cos, sin} pair per 2 columns)
//           params: dim, kv_dim, head_size, context        tiles: rows
#include "row_tiles.h"

namespace tsr {
namespace {

void operands(const tsr_step &s, uint32_t pos, RowOperand out[3])
{
    const uint32_t *p = s.params;
    out[0] = {0, p[0] * 4u, 0, false, true, true};
    out[1] = {1, p[1] * 4u, 0, false, true, true};
    out[2] = {2, p[2] * 4u, pos, false, true, false}; // the table's rows start at the run's position
}

tessera_status validate(StepChecker &c)
{
    const uint32_t *p = c.step.params;
    const uint32_t dim = p[0], kv_dim = p[1], hs = p[2];
    const uint64_t R = c.rows;
    if (!hs || hs % 2u || !dim || dim % hs || !kv_dim || kv_dim % hs || kv_dim > dim || p[3] != c.h.context)
        return c.fail("dims or context do not fit the model");
    TSR_TRY(c.operand(0, TSR_DTYPE_F32, R * dim * 4u, true));
    TSR_TRY(c.operand(1, TSR_DTYPE_F32, R * kv_dim * 4u, true));
    return c.operand(2, TSR_DTYPE_F32, (uint64_t)p[3] * hs * 4u, false);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t)
{
    RowOperand ops[3];
    operands(s, 0, ops);
    return row_geometry(s, rows, ops, 3);
}

void run(StepRun &r)
{
    RowOperand ops[3];
    operands(r.step, r.pos, ops);
    const uint32_t *p = r.step.params;
    run_rows(r, ops, 3, [&](uint8_t **t, uint32_t n) {
        // The table tile starts at the tile's first position: position 0 relative to it.
        return tsr_rope_f32((float *)t[0], (float *)t[1], (const float *)t[2], n, 0, p[0], p[1], p[2], r.worker, r.workers);
    });
}

} // namespace

extern const OpDevice op_ROPE = {validate, geometry, run};

} // namespace tsr
