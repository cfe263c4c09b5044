// POSITIONS in: x (rows x dim), table (positions x dim)   out: y (rows x dim)   tiles: rows
//           y[r] = x[r] + table[pos + r]: a learned absolute position embedding (GPT-2's
//           wpe) added to the run's rows, pos the run's first position.
//           params: dim, positions (the table's rows: at least the context, so that every
//           run's rows are in it); I8 (tsr_positions_i8_params): each input's factor to y's
//           scale (as ADD's).
#include "row_tiles.h"
#include "tessera/kernel_sets.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"

namespace tsr {
namespace {

const tsr_positions_shape &S(const tsr_step &s) { return tsr_params_as<tsr_positions_shape>(s); }
const tsr_positions_i8_params &P_i8(const tsr_step &s) { return tsr_params_as<tsr_positions_i8_params>(s); }

using Kernel = tsr_kernel_status (*)(const StepRun &r, uint8_t **p, uint32_t count);

} // namespace

// Its variants' row (OpRow, variant_rows.h).
template <> struct OpRow<TSR_OP_POSITIONS> : Variant<Kernel> {};

namespace {

tsr_kernel_status positions_f32(const StepRun &r, uint8_t **p, uint32_t count)
{
    return tsr_add_f32((const float *)p[0], (const float *)p[1], (float *)p[2], count, r.worker, r.workers);
}

tsr_kernel_status positions_bf16(const StepRun &r, uint8_t **p, uint32_t count)
{
    return tsr_add_bf16((const tsr_bf16 *)p[0], (const tsr_bf16 *)p[1], (tsr_bf16 *)p[2], count, r.worker, r.workers);
}

tessera_status check_i8(StepChecker &c)
{
    for (uint32_t i = 0; i < 3u; ++i) TSR_TRY(c.symmetric(i));
    TSR_TRY(c.requant(P_i8(c.step).a, "input's factor out of range"));
    return c.requant(P_i8(c.step).b, "table's factor out of range");
}

using AddI8 = tsr_kernel_status (*)(const tsr_add_i8_args *, uint32_t, uint32_t);
template <AddI8 Add> tsr_kernel_status positions_i8(const StepRun &r, uint8_t **p, uint32_t count)
{
    const tsr_positions_i8_params &q = P_i8(r.step);
    const tsr_add_i8_args a = {(const int8_t *)p[0], (const int8_t *)p[1], (int8_t *)p[2], q.a.multiplier, q.a.shift,
                               q.b.multiplier, q.b.shift, count};
    return Add(&a, r.worker, r.workers);
}

// Its call made at open (a step in place): the table's row at the run's position.
struct PreparedPositionsF32 {
    const float *x, *table;
    float *y;
    uint32_t dim;
};
tsr_kernel_status positions_f32_call(const PreparedCall &c, uint32_t rows, uint32_t pos, uint32_t worker,
                                     uint32_t workers)
{
    const PreparedPositionsF32 &p = c.as<PreparedPositionsF32>();
    return tsr_add_f32(p.x, p.table + (size_t)pos * p.dim, p.y, rows * p.dim, worker, workers);
}
bool positions_f32_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_positions_shape &q = S(c.step);
    c.check(0, (uint64_t)c.rows * q.dim * 4u);
    c.check(1, (uint64_t)q.positions * q.dim * 4u); // the rows a run may read: any position's
    c.check(2, (uint64_t)c.rows * q.dim * 4u);
    out.set(positions_f32_call, PreparedPositionsF32{(const float *)c.at(0), (const float *)c.at(1), (float *)c.at(2), q.dim});
    return true;
}

void operands(const tsr_step &s, uint32_t pos, RowOperand out[3])
{
    const uint32_t row = S(s).dim * act_bytes(s);
    out[0] = {0, row, 0, false, true, false};
    out[1] = {1, row, pos, false, true, false}; // rows from the run's position
    out[2] = {2, row, 0, false, false, true};
}

tessera_status validate(StepChecker &c)
{
    const tsr_positions_shape &p = S(c.step);
    if (!p.dim) return c.fail("dim is 0");
    // A run's rows are positions below the context: the table must hold each of them.
    if (p.positions < c.h.context) return c.fail("the position table has fewer rows than the context");
    const uint64_t R = c.rows, row = (uint64_t)p.dim * act_bytes(c.step);
    TSR_TRY(c.operand(0, c.step.dtype, R * row, false));
    TSR_TRY(c.operand(1, c.step.dtype, (uint64_t)p.positions * row, false));
    return c.operand(2, c.step.dtype, R * row, true);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t)
{
    RowOperand ops[3];
    operands(s, 0, ops);
    return row_geometry(s, rows, ops, 3);
}

void run(StepRun &r)
{
    RowOperand ops[3];
    operands(r.step, r.pos, ops);
    const Kernel kernel = variant_row<TSR_OP_POSITIONS>(r.resolved.variant).kernel;
    const uint32_t dim = S(r.step).dim;
    run_rows(r, ops, 3, [&](uint8_t **p, uint32_t rows) { return kernel(r, p, rows * dim); });
}

} // namespace

// The variants it registers (tessera/variants.def).
TSR_REGISTER_VARIANT(POSITIONS_F32, nullptr, Variant<Kernel>{positions_f32, positions_f32_prepare})
TSR_REGISTER_VARIANT(POSITIONS_BF16, nullptr, Variant<Kernel>{positions_bf16})
TSR_REGISTER_VARIANT(POSITIONS_I8, check_i8, Variant<Kernel>{positions_i8<tsr_add_i8>})
// The tuned kernel sets' (kernels/<set>/tuned_variants.def): their ADD's kernel.
#define TSR_TUNED_POSITIONS_I8(SET, sfx) TSR_REGISTER_TUNED_VARIANT(SET, POSITIONS_I8, check_i8, Variant<Kernel>{positions_i8<tsr_add_i8_##sfx>})
#define TSR_TUNED TSR_TUNED_ROW
#if __has_include("tessera/tuned_POSITIONS.def")
#include "tessera/tuned_POSITIONS.def"
#endif
#undef TSR_TUNED

extern const OpDevice op_POSITIONS = {validate, geometry, run, false, nullptr, nullptr, prepare_row<TSR_OP_POSITIONS>, nullptr};

} // namespace tsr
