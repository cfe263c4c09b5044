// ADD       in: a (rows x n), b (rows x n)   out: y = a + b (rows x n)   tiles: rows
//           params: n; add.i8 (tsr_add_i8_params): each input's factor to y's scale; add.i8.rqs
//           (tsr_add_rqs_params): QuantLib's RequantShift of each input and of their sum.
#include "row_tiles.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernel_sets.h"

namespace tsr {
namespace {

const tsr_add_shape &S(const tsr_step &s) { return tsr_params_as<tsr_add_shape>(s); }

tessera_status check_i8(StepChecker &c)
{
    for (uint32_t i = 0; i < 3u; ++i) TSR_TRY(c.symmetric(i)); // the residual stream is symmetric
    const tsr_add_i8_params &p = tsr_params_as<tsr_add_i8_params>(c.step);
    TSR_TRY(c.requant(p.a, "first input's factor out of range"));
    return c.requant(p.b, "second input's factor out of range");
}

using Kernel = tsr_kernel_status (*)(const StepRun &r, uint8_t *a, uint8_t *b, uint8_t *y, uint32_t count);

} // namespace

// Its variants' row (OpRow, variant_rows.h).
template <> struct OpRow<TSR_OP_ADD> : Variant<Kernel> {};

namespace {

tsr_kernel_status add_f32(const StepRun &r, uint8_t *a, uint8_t *b, uint8_t *y, uint32_t count)
{
    return tsr_add_f32((float *)a, (float *)b, (float *)y, count, r.worker, r.workers);
}

bool add_f32_prepare(const PrepareContext &c, PreparedCall &out) { return binary_f32_prepare<tsr_add_f32>(c, out, S(c.step).n); }

tsr_kernel_status add_bf16(const StepRun &r, uint8_t *a, uint8_t *b, uint8_t *y, uint32_t count)
{
    return tsr_add_bf16((tsr_bf16 *)a, (tsr_bf16 *)b, (tsr_bf16 *)y, count, r.worker, r.workers);
}

using AddI8 = tsr_kernel_status (*)(const tsr_add_i8_args *, uint32_t, uint32_t);
template <AddI8 Add> tsr_kernel_status add_i8(const StepRun &r, uint8_t *a, uint8_t *b, uint8_t *y, uint32_t count)
{
    const tsr_add_i8_params &p = tsr_params_as<tsr_add_i8_params>(r.step);
    const tsr_add_i8_args args = {(int8_t *)a, (int8_t *)b, (int8_t *)y, p.a.multiplier, p.a.shift,
                                  p.b.multiplier, p.b.shift, count};
    return Add(&args, r.worker, r.workers);
}

// Its call made at open (a step in place: rows x n elements where they lie).
template <AddI8 Add> bool add_i8_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_add_i8_params &p = tsr_params_as<tsr_add_i8_params>(c.step);
    for (uint32_t k = 0; k < 3u; ++k) c.check(k, (uint64_t)c.rows * p.n); // validated: the operands hold it
    out.set(count_rows_call<tsr_add_i8_args, Add>, tsr_add_i8_args{(const int8_t *)c.at(0), (const int8_t *)c.at(1),
                                              (int8_t *)c.at(2), p.a.multiplier, p.a.shift, p.b.multiplier,
                                              p.b.shift, p.n});
    return true;
}

tessera_status check_rqs(StepChecker &c)
{
    const tsr_add_rqs_params &p = tsr_params_as<tsr_add_rqs_params>(c.step);
    const tsr_rqs_params *const all[] = {&p.rqs_a, &p.rqs_b, &p.rqs_y};
    for (const tsr_rqs_params *r : all)
        if (!tsr_rqs_valid(r) || r->lo < -128 || r->hi > 127) return c.fail("RequantShift constants out of range");
    return TESSERA_OK;
}

template <tsr_kernel_status (*AddRqs)(const tsr_add_i8_rqs_args *, uint32_t, uint32_t)>
tsr_kernel_status add_rqs(const StepRun &r, uint8_t *a, uint8_t *b, uint8_t *y, uint32_t count)
{
    const tsr_add_rqs_params &p = tsr_params_as<tsr_add_rqs_params>(r.step);
    const tsr_add_i8_rqs_args args = {(int8_t *)a, (int8_t *)b, (int8_t *)y, &p.rqs_a, &p.rqs_b, &p.rqs_y, count};
    return AddRqs(&args, r.worker, r.workers);
}
template <tsr_kernel_status (*AddRqs)(const tsr_add_i8_rqs_args *, uint32_t, uint32_t)>
bool add_rqs_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_add_rqs_params &p = tsr_params_as<tsr_add_rqs_params>(c.step); // its constants where the image holds the step
    for (uint32_t k = 0; k < 3u; ++k) c.check(k, (uint64_t)c.rows * p.n);
    out.set(count_rows_call<tsr_add_i8_rqs_args, AddRqs>, tsr_add_i8_rqs_args{(const int8_t *)c.at(0), (const int8_t *)c.at(1),
                                                      (int8_t *)c.at(2), &p.rqs_a, &p.rqs_b, &p.rqs_y, p.n});
    return true;
}

tessera_status validate(StepChecker &c)
{
    return binary_validate(c, S(c.step).n);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t) { return binary_geometry(s, rows, S(s).n); }

void run(StepRun &r)
{
    const Kernel kernel = variant_row<TSR_OP_ADD>(r.resolved.variant).kernel;
    binary_run(r, S(r.step).n, [&](uint8_t *a, uint8_t *b, uint8_t *y, uint32_t count) { return kernel(r, a, b, y, count); });
}

} // namespace

// The variants it registers (tessera/variants.def).
TSR_REGISTER_VARIANT(ADD_F32, nullptr, Variant<Kernel>{add_f32, add_f32_prepare})
TSR_REGISTER_VARIANT(ADD_BF16, nullptr, Variant<Kernel>{add_bf16})
TSR_REGISTER_VARIANT(ADD_I8, check_i8, Variant<Kernel>{add_i8<tsr_add_i8>, add_i8_prepare<tsr_add_i8>})
TSR_REGISTER_VARIANT(ADD_I8_RQS, check_rqs, Variant<Kernel>{add_rqs<tsr_add_i8_rqs>, add_rqs_prepare<tsr_add_i8_rqs>})
// The tuned kernel sets' (kernels/<set>/tuned_variants.def).
#define TSR_TUNED_ADD_I8(SET, sfx) TSR_REGISTER_TUNED_VARIANT(SET, ADD_I8, check_i8, Variant<Kernel>{add_i8<tsr_add_i8_##sfx>, add_i8_prepare<tsr_add_i8_##sfx>})
#define TSR_TUNED_ADD_I8_RQS(SET, sfx) TSR_REGISTER_TUNED_VARIANT(SET, ADD_I8_RQS, check_rqs, Variant<Kernel>{add_rqs<tsr_add_i8_rqs_##sfx>, add_rqs_prepare<tsr_add_i8_rqs_##sfx>})
#define TSR_TUNED TSR_TUNED_ROW
#if __has_include("tessera/tuned_ADD.def")
#include "tessera/tuned_ADD.def"
#endif
#undef TSR_TUNED

extern const OpDevice op_ADD = {validate, geometry, run, false, nullptr, nullptr, prepare_row<TSR_OP_ADD>, nullptr};

} // namespace tsr
