// RMSNORM   in: x (rows x dim), weight (dim)   out: y (rows x dim)
//           params: dim, eps (float bits)       tiles: rows
#include "row_tiles.h"

namespace tsr {
namespace {

float eps_of(const tsr_step &s)
{
    float eps;
    __builtin_memcpy(&eps, &s.params[1], sizeof eps);
    return eps;
}

void operands(const tsr_step &s, RowOperand out[3])
{
    const uint32_t row = s.params[0] * 4u;
    out[0] = {0, row, 0, false, true, false};
    out[1] = {1, row, 0, true, true, false};
    out[2] = {2, row, 0, false, false, true};
}

tessera_status validate(StepChecker &c)
{
    const uint32_t *p = c.step.params;
    const uint64_t R = c.rows;
    if (!p[0] || !(eps_of(c.step) > 0.0f)) return c.fail("dim is 0 or eps not positive");
    TSR_TRY(c.operand(0, TSR_DTYPE_F32, R * p[0] * 4u, false));
    TSR_TRY(c.operand(1, TSR_DTYPE_F32, (uint64_t)p[0] * 4u, false));
    return c.operand(2, TSR_DTYPE_F32, R * p[0] * 4u, true);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t)
{
    RowOperand ops[3];
    operands(s, ops);
    return row_geometry(s, rows, ops, 3);
}

void run(StepRun &r)
{
    RowOperand ops[3];
    operands(r.step, ops);
    const uint32_t dim = r.step.params[0];
    const float eps = eps_of(r.step);
    run_rows(r, ops, 3, [&](uint8_t **p, uint32_t n) {
        return tsr_rmsnorm_f32((const float *)p[0], (const float *)p[1], (float *)p[2], n, dim, eps, r.worker, r.workers);
    });
}

} // namespace

extern const OpDevice op_RMSNORM = {validate, geometry, run};

} // namespace tsr
