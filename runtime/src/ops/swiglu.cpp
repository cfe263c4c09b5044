// SWIGLU    in: gate (rows x n), up (rows x n)   out: y = silu(gate) * up (rows x n)   tiles: rows
//           params: n; BF16: the exponential is the variant's (tsr_exp_kind);
//           I8: integer (tsr_swiglu_i8_params: sigmoid constants, out factor, the silu16 table),
//           float (tsr_swiglu_i8_float_params: gate_scale, out_scale) or QuantLib's iHardswish
//           (tsr_swiglu_hardswish_params) variant.
#include "row_tiles.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernel_sets.h"

namespace tsr {
namespace {

const tsr_swiglu_shape &S(const tsr_step &s) { return tsr_params_as<tsr_swiglu_shape>(s); }

tessera_status check_i8(StepChecker &c)
{
    const tsr_swiglu_i8_params &p = tsr_params_as<tsr_swiglu_i8_params>(c.step);
    if (!tsr_iexp_constants_valid(iexp_constants(p.sigmoid))) return c.fail("activation constants out of range");
    TSR_TRY(c.constant(p.silu, TSR_DTYPE_I16, TSR_SWIGLU_I8_SILU_ENTRIES * 2u, "SiLU table does not fit"));
    return c.requant(p.out, "output factor out of range");
}

tessera_status check_i8_float(StepChecker &c)
{
    const tsr_swiglu_i8_float_params &p = tsr_params_as<tsr_swiglu_i8_float_params>(c.step);
    for (uint32_t i = 0; i < 3u; ++i) TSR_TRY(c.symmetric(i));
    return p.gate_scale > 0.0f && p.out_scale > 0.0f ? TESSERA_OK : c.fail("activation constants out of range");
}

using Kernel = tsr_kernel_status (*)(const StepRun &r, uint8_t *g, uint8_t *u, uint8_t *y, uint32_t count);

} // namespace

// Its variants' row (OpRow, variant_rows.h).
template <> struct OpRow<TSR_OP_SWIGLU> : Variant<Kernel> {};

namespace {

tsr_kernel_status swiglu_f32(const StepRun &r, uint8_t *g, uint8_t *u, uint8_t *y, uint32_t count)
{
    return tsr_swiglu_f32((float *)g, (float *)u, (float *)y, count, r.worker, r.workers);
}

bool swiglu_f32_prepare(const PrepareContext &c, PreparedCall &out)
{
    return binary_f32_prepare<tsr_swiglu_f32>(c, out, S(c.step).n);
}

// Exp: the variant's exponential.
template <tsr_exp_kind Exp> tsr_kernel_status swiglu_bf16(const StepRun &r, uint8_t *g, uint8_t *u, uint8_t *y, uint32_t count)
{
    return tsr_swiglu_bf16((tsr_bf16 *)g, (tsr_bf16 *)u, (tsr_bf16 *)y, count, Exp, r.worker, r.workers);
}

// The integer variant over the kernel of a set (portable, or TSR_REGISTER_TUNED_VARIANT's).
template <tsr_kernel_status (*Swiglu)(const tsr_swiglu_i8_args *, uint32_t, uint32_t)>
tsr_kernel_status swiglu_i8(const StepRun &r, uint8_t *g, uint8_t *u, uint8_t *y, uint32_t count)
{
    const tsr_swiglu_i8_params &p = tsr_params_as<tsr_swiglu_i8_params>(r.step);
    tsr_swiglu_i8_args a = {(int8_t *)g, (int8_t *)u, (int8_t *)y, r.resolved.zero[0], r.resolved.zero[1], r.resolved.zero[2], iexp_constants(p.sigmoid),
                            p.out.multiplier, p.out.shift, count, (const int16_t *)r.constant(p.silu)};
    return Swiglu(&a, r.worker, r.workers);
}

// Its call made at open (a token's step in place: rows x n elements where they lie).
template <tsr_kernel_status (*Swiglu)(const tsr_swiglu_i8_args *, uint32_t, uint32_t)>
bool swiglu_i8_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_swiglu_i8_params &p = tsr_params_as<tsr_swiglu_i8_params>(c.step);
    const ResolvedStep &r = c.resolved;
    for (uint32_t k = 0; k < 3u; ++k) c.check(k, (uint64_t)c.rows * p.n); // validated: the operands hold it
    out.set(count_rows_call<tsr_swiglu_i8_args, Swiglu>, tsr_swiglu_i8_args{(const int8_t *)c.at(0), (const int8_t *)c.at(1),
                                                       (int8_t *)c.at(2), r.zero[0], r.zero[1], r.zero[2],
                                                       iexp_constants(p.sigmoid), p.out.multiplier, p.out.shift, p.n,
                                                       (const int16_t *)c.constant(p.silu)});
    return true;
}

tsr_kernel_status swiglu_i8_float(const StepRun &r, uint8_t *g, uint8_t *u, uint8_t *y, uint32_t count)
{
    const tsr_swiglu_i8_float_params &p = tsr_params_as<tsr_swiglu_i8_float_params>(r.step);
    return tsr_swiglu_i8_float((int8_t *)g, (int8_t *)u, (int8_t *)y, count, p.gate_scale, p.out_scale, r.worker,
                               r.workers);
}

tessera_status validate(StepChecker &c)
{
    return binary_validate(c, S(c.step).n);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t) { return binary_geometry(s, rows, S(s).n); }

// The feed-forward's inner width.
void model_shape(const tsr_step &s, ModelShape &out) { out.hidden_dim = S(s).n; }

// QuantLib's gated unit: iHardswish for SiLU, a RequantShift after it and after the product.
tessera_status check_hardswish(StepChecker &c)
{
    const tsr_swiglu_hardswish_params &p = tsr_params_as<tsr_swiglu_hardswish_params>(c.step);
    const tsr_rqs_params *const all[] = {&p.rqs_act, &p.rqs_y};
    for (const tsr_rqs_params *r : all)
        if (!tsr_rqs_valid(r) || r->lo < -128 || r->hi > 127) return c.fail("RequantShift constants out of range");
    return p.three < 0 || p.three > 32768 || p.six < 0 || p.six > 32768 || p.one_over_six < 0 || p.one_over_six > 32768
               ? c.fail("iHardswish constants out of range")
               : TESSERA_OK;
}

template <tsr_kernel_status (*Hardswish)(const tsr_hardswish_i8_args *, uint32_t, uint32_t)>
tsr_kernel_status swiglu_hardswish(const StepRun &r, uint8_t *g, uint8_t *u, uint8_t *y, uint32_t count)
{
    const tsr_swiglu_hardswish_params &p = tsr_params_as<tsr_swiglu_hardswish_params>(r.step);
    const tsr_hardswish_i8_args a = {(const int8_t *)g, (const int8_t *)u, (int8_t *)y, p.three, p.six, p.one_over_six,
                                     &p.rqs_act, &p.rqs_y, count};
    return Hardswish(&a, r.worker, r.workers);
}
template <tsr_kernel_status (*Hardswish)(const tsr_hardswish_i8_args *, uint32_t, uint32_t)>
bool hardswish_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_swiglu_hardswish_params &p = tsr_params_as<tsr_swiglu_hardswish_params>(c.step); // its constants where the image holds the step
    for (uint32_t k = 0; k < 3u; ++k) c.check(k, (uint64_t)c.rows * p.n);
    out.set(count_rows_call<tsr_hardswish_i8_args, Hardswish>, tsr_hardswish_i8_args{(const int8_t *)c.at(0), (const int8_t *)c.at(1),
                                                             (int8_t *)c.at(2), p.three, p.six, p.one_over_six,
                                                             &p.rqs_act, &p.rqs_y, p.n});
    return true;
}

tsr_kernel_status swiglu_hardswish_f32(const StepRun &r, uint8_t *g, uint8_t *u, uint8_t *y, uint32_t count)
{
    return tsr_hardswish_f32((const float *)g, (const float *)u, (float *)y, count, r.worker, r.workers);
}

void run(StepRun &r)
{
    const Kernel kernel = variant_row<TSR_OP_SWIGLU>(r.resolved.variant).kernel;
    binary_run(r, S(r.step).n, [&](uint8_t *g, uint8_t *u, uint8_t *y, uint32_t count) { return kernel(r, g, u, y, count); });
}

} // namespace

// The variants it registers (tessera/variants.def).
TSR_REGISTER_VARIANT(SWIGLU_F32, nullptr, Variant<Kernel>{swiglu_f32, swiglu_f32_prepare})
TSR_REGISTER_VARIANT(SWIGLU_BF16, nullptr, Variant<Kernel>{swiglu_bf16<TSR_EXP_ACCURATE>})
TSR_REGISTER_VARIANT(SWIGLU_BF16_SCHRAUDOLPH, nullptr, Variant<Kernel>{swiglu_bf16<TSR_EXP_SCHRAUDOLPH>})
TSR_REGISTER_VARIANT(SWIGLU_I8, check_i8, Variant<Kernel>{swiglu_i8<tsr_swiglu_i8>, swiglu_i8_prepare<tsr_swiglu_i8>})
// The tuned kernel sets' (kernels/<set>/tuned_variants.def).
#define TSR_TUNED_SWIGLU_I8(SET, sfx) TSR_REGISTER_TUNED_VARIANT(SET, SWIGLU_I8, check_i8, Variant<Kernel>{swiglu_i8<tsr_swiglu_i8_##sfx>, swiglu_i8_prepare<tsr_swiglu_i8_##sfx>})
#define TSR_TUNED_SWIGLU_I8_HARDSWISH(SET, sfx)                                                                        \
    TSR_REGISTER_TUNED_VARIANT(SET, SWIGLU_I8_HARDSWISH, check_hardswish, Variant<Kernel>{swiglu_hardswish<tsr_hardswish_i8_##sfx>, hardswish_prepare<tsr_hardswish_i8_##sfx>})
#define TSR_TUNED TSR_TUNED_ROW
#if __has_include("tessera/tuned_SWIGLU.def")
#include "tessera/tuned_SWIGLU.def"
#endif
#undef TSR_TUNED
TSR_REGISTER_VARIANT(SWIGLU_I8_FLOAT, check_i8_float, Variant<Kernel>{swiglu_i8_float})
TSR_REGISTER_VARIANT(SWIGLU_I8_HARDSWISH, check_hardswish, Variant<Kernel>{swiglu_hardswish<tsr_hardswish_i8>, hardswish_prepare<tsr_hardswish_i8>})
TSR_REGISTER_VARIANT(SWIGLU_F32_HARDSWISH, nullptr, Variant<Kernel>{swiglu_hardswish_f32})

extern const OpDevice op_SWIGLU = {validate, geometry, run, false, nullptr, nullptr, prepare_row<TSR_OP_SWIGLU>, nullptr, model_shape};

} // namespace tsr
