// SWIGLU    in: gate (rows x n), up (rows x n)   out: y = silu(gate) * up (rows x n)   tiles: rows
//           params (tsr_swiglu_params): n; BF16: the exponential (tsr_exp_kind);
//           I8: integer (sigmoid constants, out factor) or float (gate_scale, out_scale) variant.
#include "row_tiles.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"

namespace tsr {
namespace {

const tsr_swiglu_params &P(const tsr_step &s) { return s.params.swiglu; }

tessera_status validate(StepChecker &c)
{
    const tsr_swiglu_params &p = P(c.step);
    if (c.step.dtype == TSR_DTYPE_BF16 && p.exp != TSR_EXP_ACCURATE && p.exp != TSR_EXP_SCHRAUDOLPH)
        return c.fail("unknown exponential");
    if (c.step.dtype == TSR_DTYPE_I8) {
        TSR_TRY(c.nonlinear(p.exp));
        if (p.exp == TSR_NONLINEAR_FLOAT ? !(p.gate_scale > 0.0f) || !(p.out_scale > 0.0f)
                                         : !tsr_iexp_constants_valid(iexp_constants(p.sigmoid)))
            return c.fail("activation constants out of range");
        if (p.exp == TSR_NONLINEAR_INTEGER) TSR_TRY(c.requant(p.out, "output factor out of range"));
    }
    if (p.n != c.h.hidden_dim) return c.fail("width differs from the header's hidden_dim");
    return binary_validate(c, p.n);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t) { return binary_geometry(s, rows, P(s).n); }

void run(StepRun &r)
{
    const tsr_swiglu_params &p = P(r.step);
    binary_run(r, p.n, [&](uint8_t *g, uint8_t *u, uint8_t *y, uint32_t count) {
        switch (r.step.dtype) {
        case TSR_DTYPE_F32: return tsr_swiglu_f32((float *)g, (float *)u, (float *)y, count, r.worker, r.workers);
        case TSR_DTYPE_BF16:
            return tsr_swiglu_bf16((tsr_bf16 *)g, (tsr_bf16 *)u, (tsr_bf16 *)y, count, (tsr_exp_kind)p.exp, r.worker,
                                   r.workers);
        default:
            if (p.exp == TSR_NONLINEAR_FLOAT)
                return tsr_swiglu_i8_float((int8_t *)g, (int8_t *)u, (int8_t *)y, count, p.gate_scale, p.out_scale,
                                           r.worker, r.workers);
            tsr_swiglu_i8_args a = {(int8_t *)g, (int8_t *)u, (int8_t *)y, 0, 0, 0, iexp_constants(p.sigmoid),
                                    p.out.multiplier, p.out.shift, count};
            return tsr_swiglu_i8(&a, r.worker, r.workers);
        }
    });
}

} // namespace

extern const OpDevice op_SWIGLU = {validate, geometry, run, false};

} // namespace tsr
