// GELU      in: x (rows x n)   out: y = GELU(x) (rows x n)   tiles: rows
//           params: n; the variant says the form, the tanh approximation (gelu.*.tanh,
//           GPT-2's "gelu_new") or the exact, erf form (gelu.*.erf, "gelu"); I8
//           (tsr_gelu_i8_params): table, GELU's 256 outputs for the input's and output's
//           scales (integers only).
#include "row_tiles.h"
#include "tessera/kernel_sets.h"
#include "tessera/kernels_bf16.h"

namespace tsr {
namespace {

const tsr_gelu_shape &S(const tsr_step &s) { return tsr_params_as<tsr_gelu_shape>(s); }
const tsr_gelu_i8_params &P_i8(const tsr_step &s) { return tsr_params_as<tsr_gelu_i8_params>(s); }

using Kernel = tsr_kernel_status (*)(const StepRun &r, uint8_t *x, uint8_t *y, uint32_t count);

} // namespace

// Its variants' row (OpRow, variant_rows.h).
template <> struct OpRow<TSR_OP_GELU> : Variant<Kernel> {};

namespace {

tsr_kernel_status gelu_tanh_f32(const StepRun &r, uint8_t *x, uint8_t *y, uint32_t count)
{
    return tsr_gelu_tanh_f32((const float *)x, (float *)y, count, r.worker, r.workers);
}

tsr_kernel_status gelu_tanh_bf16(const StepRun &r, uint8_t *x, uint8_t *y, uint32_t count)
{
    return tsr_gelu_tanh_bf16((const tsr_bf16 *)x, (tsr_bf16 *)y, count, r.worker, r.workers);
}

tsr_kernel_status gelu_erf_f32(const StepRun &r, uint8_t *x, uint8_t *y, uint32_t count)
{
    return tsr_gelu_erf_f32((const float *)x, (float *)y, count, r.worker, r.workers);
}

tsr_kernel_status gelu_erf_bf16(const StepRun &r, uint8_t *x, uint8_t *y, uint32_t count)
{
    return tsr_gelu_erf_bf16((const tsr_bf16 *)x, (tsr_bf16 *)y, count, r.worker, r.workers);
}

tessera_status check_i8(StepChecker &c)
{
    TSR_TRY(c.symmetric(0)); // the host's table is for zero points 0
    TSR_TRY(c.symmetric(1));
    return c.constant(P_i8(c.step).table, TSR_DTYPE_I8, 256u, "GELU table does not fit");
}

tsr_kernel_status gelu_i8(const StepRun &r, uint8_t *x, uint8_t *y, uint32_t count)
{
    return tsr_lut_i8((const int8_t *)x, (const int8_t *)r.constant(P_i8(r.step).table), (int8_t *)y, count, r.worker,
                      r.workers);
}

// Its call made at open (a step in place).
struct PreparedGeluF32 {
    const float *x;
    float *y;
    uint32_t n; // a row's
};
tsr_kernel_status gelu_tanh_f32_call(const PreparedCall &c, uint32_t rows, uint32_t, uint32_t worker, uint32_t workers)
{
    const PreparedGeluF32 &p = c.as<PreparedGeluF32>();
    return tsr_gelu_tanh_f32(p.x, p.y, rows * p.n, worker, workers);
}
bool gelu_tanh_f32_prepare(const PrepareContext &c, PreparedCall &out)
{
    const uint32_t n = S(c.step).n;
    c.check(0, (uint64_t)c.rows * n * 4u);
    c.check(1, (uint64_t)c.rows * n * 4u);
    out.set(gelu_tanh_f32_call, PreparedGeluF32{(const float *)c.at(0), (float *)c.at(1), n});
    return true;
}

tessera_status validate(StepChecker &c) { return unary_validate(c, S(c.step).n); }

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t) { return unary_geometry(s, rows, S(s).n); }

// The feed-forward's inner width.
void model_shape(const tsr_step &s, ModelShape &out) { out.hidden_dim = S(s).n; }

void run(StepRun &r)
{
    const Kernel kernel = variant_row<TSR_OP_GELU>(r.resolved.variant).kernel;
    unary_run(r, S(r.step).n, [&](uint8_t *x, uint8_t *y, uint32_t count) { return kernel(r, x, y, count); });
}

} // namespace

// The variants it registers (tessera/variants.def).
TSR_REGISTER_VARIANT(GELU_F32_TANH, nullptr, Variant<Kernel>{gelu_tanh_f32, gelu_tanh_f32_prepare})
TSR_REGISTER_VARIANT(GELU_BF16_TANH, nullptr, Variant<Kernel>{gelu_tanh_bf16})
TSR_REGISTER_VARIANT(GELU_I8_TANH, check_i8, Variant<Kernel>{gelu_i8})
TSR_REGISTER_VARIANT(GELU_F32_ERF, nullptr, Variant<Kernel>{gelu_erf_f32})
TSR_REGISTER_VARIANT(GELU_BF16_ERF, nullptr, Variant<Kernel>{gelu_erf_bf16})
TSR_REGISTER_VARIANT(GELU_I8_ERF, check_i8, Variant<Kernel>{gelu_i8}) // the same lookup: the table is the form's

extern const OpDevice op_GELU = {validate, geometry, run, false, nullptr, nullptr, prepare_row<TSR_OP_GELU>, nullptr, model_shape};

} // namespace tsr
