// RMSNORM   in: x (rows x dim), weight (dim)   out: y (rows x dim)   tiles: rows
//           params: dim; F32, BF16 (tsr_rmsnorm_float_params): eps; I8: the weight is I8 too,
//           integer (tsr_rmsnorm_i8_params) or float (tsr_rmsnorm_i8_float_params) variant;
//           QuantLib's iRMSNorm (tsr_rmsnorm_quantlib_params): the weight is I32.
#include "row_tiles.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernel_sets.h"

namespace tsr {
namespace {

const tsr_rmsnorm_shape &S(const tsr_step &s) { return tsr_params_as<tsr_rmsnorm_shape>(s); }

using Kernel = tsr_kernel_status (*)(const StepRun &r, uint8_t **p, uint32_t n);

// A variant's row also says its weight's element type (0: the step's).
struct RmsVariant {
    Kernel kernel;
    uint32_t weight_dtype;
    Prepare prepare = nullptr; // its call made at open, where it has one
};

} // namespace

// Its variants' row (OpRow, variant_rows.h).
template <> struct OpRow<TSR_OP_RMSNORM> : RmsVariant {};

namespace {
// The weight's element type of variant index v (registered_variant) for step s.
uint32_t weight_dtype(const tsr_step &s, uint8_t v)
{
    const uint32_t w = v == kNoVariant ? 0u : variant_row<TSR_OP_RMSNORM>(v).weight_dtype;
    return w ? w : s.dtype;
}
uint32_t weight_dtype(const tsr_step &s) { return weight_dtype(s, registered_variant(s.variant)); }

void operands(const tsr_step &s, uint32_t wdtype, RowOperand out[3])
{
    const uint32_t row = S(s).dim * act_bytes(s);
    out[0] = {0, row, 0, false, true, false};
    out[1] = {1, S(s).dim * tsr_dtype_bytes(wdtype), 0, true, true, false};
    out[2] = {2, row, 0, false, false, true};
}

tessera_status check_eps(StepChecker &c)
{
    return tsr_params_as<tsr_rmsnorm_float_params>(c.step).eps > 0.0f ? TESSERA_OK : c.fail("eps not positive");
}

tessera_status check_i8(StepChecker &c)
{
    const tsr_rmsnorm_i8_params &p = tsr_params_as<tsr_rmsnorm_i8_params>(c.step);
    TSR_TRY(c.symmetric(1)); // the gain; x's and y's zero points are the kernel's
    if (p.dim > 16384u) return c.fail("dim above 16384");
    return p.eps_q8 > (1u << 24) || p.gain < (1 << 14) || p.gain >= (1 << 15) || p.gain_shift < 0 || p.gain_shift > 30
               ? c.fail("normalization constants out of range")
               : TESSERA_OK;
}

tessera_status check_i8_float(StepChecker &c)
{
    const tsr_rmsnorm_i8_float_params &p = tsr_params_as<tsr_rmsnorm_i8_float_params>(c.step);
    TSR_TRY(c.symmetric(0));
    TSR_TRY(c.symmetric(1));
    TSR_TRY(c.symmetric(2));
    if (p.dim > 16384u) return c.fail("dim above 16384");
    return p.eps > 0.0f && p.out_scale > 0.0f ? TESSERA_OK : c.fail("normalization constants out of range");
}

tessera_status check_quantlib(StepChecker &c)
{
    const tsr_rmsnorm_quantlib_params &p = tsr_params_as<tsr_rmsnorm_quantlib_params>(c.step);
    if (p.dim > 16384u) return c.fail("dim above 16384");
    return p.log2_d < 0 || p.log2_d > 31 || p.lo > p.hi || p.lo < -128 || p.hi > 127
               ? c.fail("iRMSNorm constants out of range")
               : TESSERA_OK; // the weights' range: the kernel, on every call
}

tsr_kernel_status rms_f32(const StepRun &r, uint8_t **p, uint32_t n)
{
    const tsr_rmsnorm_float_params &q = tsr_params_as<tsr_rmsnorm_float_params>(r.step);
    return tsr_rmsnorm_f32((const float *)p[0], (const float *)p[1], (float *)p[2], n, q.dim, q.eps, r.worker, r.workers);
}

// Its call made at open (a step in place).
struct PreparedRmsF32 {
    const float *x, *weight;
    float *y;
    uint32_t dim;
    float eps;
};
tsr_kernel_status rms_f32_call(const PreparedCall &c, uint32_t rows, uint32_t, uint32_t worker, uint32_t workers)
{
    const PreparedRmsF32 &p = c.as<PreparedRmsF32>();
    return tsr_rmsnorm_f32(p.x, p.weight, p.y, rows, p.dim, p.eps, worker, workers);
}
bool rms_f32_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_rmsnorm_float_params &q = tsr_params_as<tsr_rmsnorm_float_params>(c.step);
    c.check(0, (uint64_t)c.rows * q.dim * 4u);
    c.check(1, (uint64_t)q.dim * 4u);
    c.check(2, (uint64_t)c.rows * q.dim * 4u);
    out.set(rms_f32_call, PreparedRmsF32{(const float *)c.at(0), (const float *)c.at(1), (float *)c.at(2), q.dim, q.eps});
    return true;
}

tsr_kernel_status rms_bf16(const StepRun &r, uint8_t **p, uint32_t n)
{
    const tsr_rmsnorm_float_params &q = tsr_params_as<tsr_rmsnorm_float_params>(r.step);
    return tsr_rmsnorm_bf16((const tsr_bf16 *)p[0], (const tsr_bf16 *)p[1], (tsr_bf16 *)p[2], n, q.dim, q.eps, r.worker,
                            r.workers);
}

// The integer variant over the kernel of a set (portable, or TSR_REGISTER_TUNED_VARIANT's).
template <tsr_kernel_status (*Rmsnorm)(const tsr_rmsnorm_i8_args *, uint32_t, uint32_t)>
tsr_kernel_status rms_i8(const StepRun &r, uint8_t **p, uint32_t n)
{
    const tsr_rmsnorm_i8_params &q = tsr_params_as<tsr_rmsnorm_i8_params>(r.step);
    tsr_rmsnorm_i8_args a = {(const int8_t *)p[0], (const int8_t *)p[1], (int8_t *)p[2], r.resolved.zero[0], r.resolved.zero[2], q.eps_q8, q.gain,
                             q.gain_shift, n, q.dim};
    return Rmsnorm(&a, r.worker, r.workers);
}

// Its call made at open (a token's step in place).
template <tsr_kernel_status (*Rmsnorm)(const tsr_rmsnorm_i8_args *, uint32_t, uint32_t)>
bool rms_i8_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_rmsnorm_i8_params &q = tsr_params_as<tsr_rmsnorm_i8_params>(c.step);
    const ResolvedStep &r = c.resolved;
    const uint32_t bytes = c.rows * q.dim; // validated: the operands hold it
    c.check(0, bytes);
    c.check(1, q.dim);
    c.check(2, bytes);
    out.set(rows_call<tsr_rmsnorm_i8_args, Rmsnorm>, tsr_rmsnorm_i8_args{(const int8_t *)c.at(0), (const int8_t *)c.at(1),
                                                      (int8_t *)c.at(2), r.zero[0], r.zero[2], q.eps_q8, q.gain,
                                                      q.gain_shift, c.rows, q.dim});
    return true;
}

tsr_kernel_status rms_i8_float(const StepRun &r, uint8_t **p, uint32_t n)
{
    const tsr_rmsnorm_i8_float_params &q = tsr_params_as<tsr_rmsnorm_i8_float_params>(r.step);
    return tsr_rmsnorm_i8_float((const int8_t *)p[0], (const int8_t *)p[1], (int8_t *)p[2], n, q.dim, q.eps, q.out_scale,
                                r.worker, r.workers);
}

template <tsr_kernel_status (*IRmsNorm)(const tsr_irmsnorm_i8_args *, uint32_t, uint32_t)>
tsr_kernel_status rms_quantlib(const StepRun &r, uint8_t **p, uint32_t n)
{
    const tsr_rmsnorm_quantlib_params &q = tsr_params_as<tsr_rmsnorm_quantlib_params>(r.step);
    const tsr_irmsnorm_i8_args a = {(const int8_t *)p[0], (const int32_t *)p[1], (int8_t *)p[2], n, q.dim, q.log2_d, q.lo, q.hi};
    return IRmsNorm(&a, r.worker, r.workers);
}
template <tsr_kernel_status (*IRmsNorm)(const tsr_irmsnorm_i8_args *, uint32_t, uint32_t)>
bool rms_quantlib_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_rmsnorm_quantlib_params &q = tsr_params_as<tsr_rmsnorm_quantlib_params>(c.step);
    c.check(0, (uint64_t)c.rows * q.dim);
    c.check(1, (uint64_t)q.dim * 4u);
    c.check(2, (uint64_t)c.rows * q.dim);
    out.set(rows_call<tsr_irmsnorm_i8_args, IRmsNorm>, tsr_irmsnorm_i8_args{(const int8_t *)c.at(0), (const int32_t *)c.at(1),
                                                              (int8_t *)c.at(2), c.rows, q.dim, q.log2_d, q.lo, q.hi});
    return true;
}

tessera_status validate(StepChecker &c)
{
    const tsr_rmsnorm_shape &p = S(c.step);
    if (!p.dim) return c.fail("dim is 0");
    const uint64_t R = c.rows, row = (uint64_t)p.dim * act_bytes(c.step);
    TSR_TRY(c.operand(0, c.step.dtype, R * row, false));
    TSR_TRY(c.operand(1, weight_dtype(c.step), (uint64_t)p.dim * tsr_dtype_bytes(weight_dtype(c.step)), false));
    return c.operand(2, c.step.dtype, R * row, true);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t)
{
    RowOperand ops[3];
    operands(s, weight_dtype(s), ops);
    return row_geometry(s, rows, ops, 3);
}

void run(StepRun &r)
{
    RowOperand ops[3];
    operands(r.step, weight_dtype(r.step, r.resolved.variant), ops); // resolved at open
    const Kernel kernel = variant_row<TSR_OP_RMSNORM>(r.resolved.variant).kernel;
    run_rows(r, ops, 3, [&](uint8_t **p, uint32_t n) { return kernel(r, p, n); });
}

} // namespace

// The variants it registers (tessera/variants.def).
TSR_REGISTER_VARIANT(RMSNORM_F32, check_eps, RmsVariant{rms_f32, 0, rms_f32_prepare})
TSR_REGISTER_VARIANT(RMSNORM_BF16, check_eps, RmsVariant{rms_bf16, 0})
TSR_REGISTER_VARIANT(RMSNORM_I8, check_i8, RmsVariant{rms_i8<tsr_rmsnorm_i8>, 0, rms_i8_prepare<tsr_rmsnorm_i8>})
// The tuned kernel sets' (kernels/<set>/tuned_variants.def).
#define TSR_TUNED_RMSNORM_I8(SET, sfx) TSR_REGISTER_TUNED_VARIANT(SET, RMSNORM_I8, check_i8, RmsVariant{rms_i8<tsr_rmsnorm_i8_##sfx>, 0, rms_i8_prepare<tsr_rmsnorm_i8_##sfx>})
#define TSR_TUNED_RMSNORM_I8_QUANTLIB(SET, sfx)                                                                        \
    TSR_REGISTER_TUNED_VARIANT(SET, RMSNORM_I8_QUANTLIB, check_quantlib, RmsVariant{rms_quantlib<tsr_irmsnorm_i8_##sfx>, TSR_DTYPE_I32, rms_quantlib_prepare<tsr_irmsnorm_i8_##sfx>})
#define TSR_TUNED TSR_TUNED_ROW
#if __has_include("tessera/tuned_RMSNORM.def")
#include "tessera/tuned_RMSNORM.def"
#endif
#undef TSR_TUNED
TSR_REGISTER_VARIANT(RMSNORM_I8_FLOAT, check_i8_float, RmsVariant{rms_i8_float, 0})
TSR_REGISTER_VARIANT(RMSNORM_I8_QUANTLIB, check_quantlib, RmsVariant{rms_quantlib<tsr_irmsnorm_i8>, TSR_DTYPE_I32, rms_quantlib_prepare<tsr_irmsnorm_i8>})

extern const OpDevice op_RMSNORM = {validate, geometry, run, false, nullptr, nullptr, prepare_row<TSR_OP_RMSNORM>, nullptr};

} // namespace tsr
