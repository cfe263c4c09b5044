// ADD       in: a (rows x n), b (rows x n)   out: y = a + b (rows x n)   tiles: rows
//           params (tsr_add_params): n; I8: each input's factor to y's scale.
#include "row_tiles.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"

namespace tsr {
namespace {

const tsr_add_params &P(const tsr_step &s) { return s.params.add; }

tessera_status validate(StepChecker &c)
{
    if (c.step.dtype == TSR_DTYPE_I8) {
        TSR_TRY(c.requant(P(c.step).a, "first input's factor out of range"));
        TSR_TRY(c.requant(P(c.step).b, "second input's factor out of range"));
    }
    return binary_validate(c, P(c.step).n);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t) { return binary_geometry(s, rows, P(s).n); }

void run(StepRun &r)
{
    const tsr_add_params &p = P(r.step);
    binary_run(r, p.n, [&](uint8_t *a, uint8_t *b, uint8_t *y, uint32_t count) {
        switch (r.step.dtype) {
        case TSR_DTYPE_F32: return tsr_add_f32((float *)a, (float *)b, (float *)y, count, r.worker, r.workers);
        case TSR_DTYPE_BF16:
            return tsr_add_bf16((tsr_bf16 *)a, (tsr_bf16 *)b, (tsr_bf16 *)y, count, r.worker, r.workers);
        default: {
            const tsr_add_i8_args args = {(int8_t *)a, (int8_t *)b, (int8_t *)y, p.a.multiplier, p.a.shift,
                                          p.b.multiplier, p.b.shift, count};
            return tsr_add_i8(&args, r.worker, r.workers);
        }
        }
    });
}

} // namespace

extern const OpDevice op_ADD = {validate, geometry, run, false};

} // namespace tsr
