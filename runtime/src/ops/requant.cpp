// REQUANT   in: x (rows x n)   out: y = RequantShift(x) (rows x n)   tiles: rows
//           params (tsr_requant_i8_params): n, the RequantShift's scalar constants.
//           QuantLib's requantization between operators that Tessera does not fuse
//           (the caches' own scales before the KV append).
#include "row_tiles.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernel_sets.h"

namespace tsr {
namespace {

const tsr_requant_shape &S(const tsr_step &s) { return tsr_params_as<tsr_requant_shape>(s); }
const tsr_requant_i8_params &P(const tsr_step &s) { return tsr_params_as<tsr_requant_i8_params>(s); }

using Kernel = tsr_kernel_status (*)(const StepRun &r, uint8_t *x, uint8_t *y, uint32_t count);

} // namespace

// Its variants' row (OpRow, variant_rows.h).
template <> struct OpRow<TSR_OP_REQUANT> : Variant<Kernel> {};

namespace {

tessera_status check_i8(StepChecker &c)
{
    const tsr_rqs_params &r = P(c.step).rqs;
    return tsr_rqs_valid(&r) && r.lo >= -128 && r.hi <= 127 ? TESSERA_OK : c.fail("RequantShift constants out of range");
}

template <tsr_kernel_status (*Requant)(const int8_t *, int8_t *, uint32_t, const tsr_rqs_params *, uint32_t, uint32_t)>
tsr_kernel_status requant_i8(const StepRun &r, uint8_t *x, uint8_t *y, uint32_t count)
{
    return Requant((const int8_t *)x, (int8_t *)y, count, &P(r.step).rqs, r.worker, r.workers);
}

// Its call made at open (a token's step in place).
struct PreparedRequant {
    const int8_t *x;
    int8_t *y;
    const tsr_rqs_params *rqs; // where the image holds the step
    uint32_t count; // a row's
};
template <tsr_kernel_status (*Requant)(const int8_t *, int8_t *, uint32_t, const tsr_rqs_params *, uint32_t, uint32_t)>
tsr_kernel_status requant_i8_call(const PreparedCall &c, uint32_t rows, uint32_t, uint32_t worker, uint32_t workers)
{
    const PreparedRequant &p = c.as<PreparedRequant>();
    return Requant(p.x, p.y, rows * p.count, p.rqs, worker, workers);
}
template <tsr_kernel_status (*Requant)(const int8_t *, int8_t *, uint32_t, const tsr_rqs_params *, uint32_t, uint32_t)>
bool requant_i8_prepare(const PrepareContext &c, PreparedCall &out)
{
    const uint32_t n = S(c.step).n;
    c.check(0, (uint64_t)c.rows * n);
    c.check(1, (uint64_t)c.rows * n);
    out.set(requant_i8_call<Requant>, PreparedRequant{(const int8_t *)c.at(0), (int8_t *)c.at(1), &P(c.step).rqs, n});
    return true;
}

tessera_status validate(StepChecker &c) { return unary_validate(c, S(c.step).n); }

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t) { return unary_geometry(s, rows, S(s).n); }

void run(StepRun &r)
{
    const Kernel kernel = variant_row<TSR_OP_REQUANT>(r.resolved.variant).kernel;
    unary_run(r, S(r.step).n, [&](uint8_t *x, uint8_t *y, uint32_t count) { return kernel(r, x, y, count); });
}

} // namespace

// The variants it registers (tessera/variants.def).
TSR_REGISTER_VARIANT(REQUANT_I8, check_i8, Variant<Kernel>{requant_i8<tsr_requant_i8>, requant_i8_prepare<tsr_requant_i8>})
// The tuned kernel sets' (kernels/<set>/tuned_variants.def).
#define TSR_TUNED_REQUANT_I8(SET, sfx) TSR_REGISTER_TUNED_VARIANT(SET, REQUANT_I8, check_i8, Variant<Kernel>{requant_i8<tsr_requant_i8_##sfx>, requant_i8_prepare<tsr_requant_i8_##sfx>})
#define TSR_TUNED TSR_TUNED_ROW
#if __has_include("tessera/tuned_REQUANT.def")
#include "tessera/tuned_REQUANT.def"
#endif
#undef TSR_TUNED

extern const OpDevice op_REQUANT = {validate, geometry, run, false, nullptr, nullptr, prepare_row<TSR_OP_REQUANT>, nullptr};

} // namespace tsr
