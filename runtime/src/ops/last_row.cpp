// LAST_ROW  in: x (rows x n)   out: y (1 x n)   params (tsr_last_row_params): n
//           data movement: the run's last row, so what follows (the classifier)
//           runs on one row (TSR_STEP_ONE_ROW) instead of every row of a prompt chunk.
#include "op.h"

namespace tsr {
namespace {

tessera_status validate(StepChecker &c)
{
    const uint64_t row = (uint64_t)tsr_params_as<tsr_last_row_params>(c.step).n * act_bytes(c.step);
    TSR_TRY(c.dtype_in(kAllTypes));
    if (!row) return c.fail("n is 0");
    TSR_TRY(c.operand(0, c.step.dtype, c.rows * row, false));
    TSR_TRY(c.operand(1, c.step.dtype, row, true));
    return c.same_zero(0, 1); // a row copied as it is
}

void run(StepRun &r)
{
    const uint32_t bytes = tsr_params_as<tsr_last_row_params>(r.step).n * act_bytes(r.step);
    r.run.dma.copy(r.addr[1], r.addr[0] + (size_t)(r.rows - 1u) * bytes, bytes);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t cores)
{
    StepGeometry g = move_geometry(s, rows, cores);
    g.traffic(1, (uint64_t)tsr_params_as<tsr_last_row_params>(s).n * act_bytes(s), 1u);
    return g;
}

} // namespace

// Its one variant: a move of bytes, for every element type.
extern "C" const tsr_variant_impl TSR_VARIANT_IMPL(LAST_ROW) = {TSR_VARIANT_LAST_ROW, 0u, nullptr, nullptr};

extern const OpDevice op_LAST_ROW = {validate, geometry, run, false, nullptr, nullptr, nullptr, nullptr};

} // namespace tsr
