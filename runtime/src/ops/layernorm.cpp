// LAYERNORM in: x (rows x dim), weight (dim), bias (dim)   out: y (rows x dim)   tiles: rows
//           params: dim; F32, BF16 (tsr_layernorm_float_params): eps; I8 (tsr_layernorm_i8_params):
//           eps_q16 and the output factor, the weight I16 and the bias I32 (tsr_layernorm_i8,
//           integers only).
//           GPT-2's and GPT-Neo's norm: the row's mean taken out, its deviation scaled,
//           then a gain and a bias.
#include "row_tiles.h"
#include "tessera/kernel_sets.h"
#include "tessera/kernels_bf16.h"

namespace tsr {
namespace {

const tsr_layernorm_shape &S(const tsr_step &s) { return tsr_params_as<tsr_layernorm_shape>(s); }
const tsr_layernorm_float_params &P_float(const tsr_step &s) { return tsr_params_as<tsr_layernorm_float_params>(s); }
const tsr_layernorm_i8_params &P_i8(const tsr_step &s) { return tsr_params_as<tsr_layernorm_i8_params>(s); }

using Kernel = tsr_kernel_status (*)(const StepRun &r, uint8_t **p, uint32_t n);

} // namespace

// Its variants' row (OpRow, variant_rows.h).
template <> struct OpRow<TSR_OP_LAYERNORM> : Variant<Kernel> {};

namespace {

// The weight's and the bias's element types: the activations', or I16 and I32 beside int8 ones.
uint32_t weight_dtype(const tsr_step &s) { return s.dtype == TSR_DTYPE_I8 ? (uint32_t)TSR_DTYPE_I16 : s.dtype; }
uint32_t bias_dtype(const tsr_step &s) { return s.dtype == TSR_DTYPE_I8 ? (uint32_t)TSR_DTYPE_I32 : s.dtype; }

void operands(const tsr_step &s, RowOperand out[4])
{
    const uint32_t dim = S(s).dim, row = dim * act_bytes(s);
    out[0] = {0, row, 0, false, true, false};
    out[1] = {1, dim * tsr_dtype_bytes(weight_dtype(s)), 0, true, true, false};
    out[2] = {2, dim * tsr_dtype_bytes(bias_dtype(s)), 0, true, true, false};
    out[3] = {3, row, 0, false, false, true};
}

tessera_status check_eps(StepChecker &c)
{
    return P_float(c.step).eps > 0.0f ? TESSERA_OK : c.fail("eps not positive");
}

tsr_kernel_status layernorm_f32(const StepRun &r, uint8_t **p, uint32_t n)
{
    const tsr_layernorm_float_params &q = P_float(r.step);
    return tsr_layernorm_f32((const float *)p[0], (const float *)p[1], (const float *)p[2], (float *)p[3], n, q.dim,
                             q.eps, r.worker, r.workers);
}

tsr_kernel_status layernorm_bf16(const StepRun &r, uint8_t **p, uint32_t n)
{
    const tsr_layernorm_float_params &q = P_float(r.step);
    return tsr_layernorm_bf16((const tsr_bf16 *)p[0], (const tsr_bf16 *)p[1], (const tsr_bf16 *)p[2], (tsr_bf16 *)p[3], n,
                              q.dim, q.eps, r.worker, r.workers);
}

tessera_status check_i8(StepChecker &c)
{
    if (S(c.step).dim > 16384u) return c.fail("dim above 16384");
    TSR_TRY(c.symmetric(0));
    TSR_TRY(c.symmetric(3));
    return c.requant(P_i8(c.step).out, "output factor out of range");
}

// Over the kernel of a set (portable, or TSR_REGISTER_TUNED_VARIANT's).
template <tsr_kernel_status (*LayerNorm)(const tsr_layernorm_i8_args *, uint32_t, uint32_t)>
tsr_kernel_status layernorm_i8(const StepRun &r, uint8_t **p, uint32_t n)
{
    const tsr_layernorm_i8_params &q = P_i8(r.step);
    const tsr_layernorm_i8_args a = {(const int8_t *)p[0], (const int16_t *)p[1], (const int32_t *)p[2], (int8_t *)p[3],
                                     q.eps_q16, q.out.multiplier, q.out.shift, n, q.dim};
    return LayerNorm(&a, r.worker, r.workers);
}

// Its call made at open (a step in place).
struct PreparedLayerNormF32 {
    const float *x, *weight, *bias;
    float *y;
    uint32_t dim;
    float eps;
};
tsr_kernel_status layernorm_f32_call(const PreparedCall &c, uint32_t rows, uint32_t, uint32_t worker, uint32_t workers)
{
    const PreparedLayerNormF32 &p = c.as<PreparedLayerNormF32>();
    return tsr_layernorm_f32(p.x, p.weight, p.bias, p.y, rows, p.dim, p.eps, worker, workers);
}
bool layernorm_f32_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_layernorm_float_params &q = P_float(c.step);
    c.check(0, (uint64_t)c.rows * q.dim * 4u);
    c.check(1, (uint64_t)q.dim * 4u);
    c.check(2, (uint64_t)q.dim * 4u);
    c.check(3, (uint64_t)c.rows * q.dim * 4u);
    out.set(layernorm_f32_call, PreparedLayerNormF32{(const float *)c.at(0), (const float *)c.at(1),
                                                     (const float *)c.at(2), (float *)c.at(3), q.dim, q.eps});
    return true;
}

tessera_status validate(StepChecker &c)
{
    const tsr_layernorm_shape &p = S(c.step);
    if (!p.dim) return c.fail("dim is 0");
    const uint64_t R = c.rows, row = (uint64_t)p.dim * act_bytes(c.step);
    TSR_TRY(c.operand(0, c.step.dtype, R * row, false));
    TSR_TRY(c.operand(1, weight_dtype(c.step), (uint64_t)p.dim * tsr_dtype_bytes(weight_dtype(c.step)), false));
    TSR_TRY(c.operand(2, bias_dtype(c.step), (uint64_t)p.dim * tsr_dtype_bytes(bias_dtype(c.step)), false));
    return c.operand(3, c.step.dtype, R * row, true);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t)
{
    RowOperand ops[4];
    operands(s, ops);
    return row_geometry(s, rows, ops, 4);
}

void run(StepRun &r)
{
    RowOperand ops[4];
    operands(r.step, ops);
    const Kernel kernel = variant_row<TSR_OP_LAYERNORM>(r.resolved.variant).kernel;
    run_rows(r, ops, 4, [&](uint8_t **p, uint32_t n) { return kernel(r, p, n); });
}

} // namespace

// The variants it registers (tessera/variants.def).
TSR_REGISTER_VARIANT(LAYERNORM_F32, check_eps, Variant<Kernel>{layernorm_f32, layernorm_f32_prepare})
TSR_REGISTER_VARIANT(LAYERNORM_BF16, check_eps, Variant<Kernel>{layernorm_bf16})
TSR_REGISTER_VARIANT(LAYERNORM_I8, check_i8, Variant<Kernel>{layernorm_i8<tsr_layernorm_i8>})
// The tuned kernel sets' (kernels/<set>/tuned_variants.def).
#define TSR_TUNED_LAYERNORM_I8(SET, sfx) TSR_REGISTER_TUNED_VARIANT(SET, LAYERNORM_I8, check_i8, Variant<Kernel>{layernorm_i8<tsr_layernorm_i8_##sfx>})
#define TSR_TUNED TSR_TUNED_ROW
#if __has_include("tessera/tuned_LAYERNORM.def")
#include "tessera/tuned_LAYERNORM.def"
#endif
#undef TSR_TUNED

extern const OpDevice op_LAYERNORM = {validate, geometry, run, false, nullptr, nullptr, prepare_row<TSR_OP_LAYERNORM>, nullptr};

} // namespace tsr
