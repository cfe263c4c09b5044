// ROPE      inout: q (rows x dim), k (rows x kv_dim)
//           in: table (context x head_size: a {cos, sin} pair per 2 columns; F32, or
//               I16 in Q14 for I8 steps)
//           params (tsr_rope_params): dim, kv_dim, head_size, context (the angle table's
//             rows)                                                          tiles: rows
//           rope.i8.matrix, rope.f32.matrix: the table is the run's rotations, a head_size x
//             head_size I8 matrix per row (a side input, rows from the run's first), and each
//             head is requantized after its product (I8: tsr_rope_matrix_i8_params, q and k)
#include "row_tiles.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernel_sets.h"

namespace tsr {
namespace {

const tsr_rope_shape &S(const tsr_step &s) { return tsr_params_as<tsr_rope_shape>(s); }
const tsr_rope_params &P(const tsr_step &s) { return tsr_params_as<tsr_rope_params>(s); }

using Kernel = tsr_kernel_status (*)(const StepRun &r, uint8_t **t, uint32_t n);

// The table tile starts at the tile's first position: position 0 relative to it.
tsr_kernel_status rope_f32(const StepRun &r, uint8_t **t, uint32_t n)
{
    const tsr_rope_params &p = P(r.step);
    return tsr_rope_f32((float *)t[0], (float *)t[1], (const float *)t[2], n, 0, p.dim, p.kv_dim, p.head_size, r.worker,
                        r.workers);
}

// Its call made at open (a step in place): the table's row at the run's position.
struct PreparedRopeF32 {
    float *q, *k;
    const float *table; // context x head_size (validated)
    uint32_t dim, kv_dim, head_size;
};
tsr_kernel_status rope_f32_call(const PreparedCall &c, uint32_t rows, uint32_t pos, uint32_t worker, uint32_t workers)
{
    const PreparedRopeF32 &p = c.as<PreparedRopeF32>();
    return tsr_rope_f32(p.q, p.k, p.table + (size_t)pos * p.head_size, rows, 0, p.dim, p.kv_dim, p.head_size, worker, workers);
}
bool rope_f32_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_rope_params &p = P(c.step);
    c.check(0, (uint64_t)c.rows * p.dim * 4u);
    c.check(1, (uint64_t)c.rows * p.kv_dim * 4u);
    c.check(2, (uint64_t)p.context * p.head_size * 4u); // the rows a run may read: any position's
    out.set(rope_f32_call, PreparedRopeF32{(float *)c.at(0), (float *)c.at(1), (const float *)c.at(2), p.dim, p.kv_dim,
                                           p.head_size});
    return true;
}

tsr_kernel_status rope_bf16(const StepRun &r, uint8_t **t, uint32_t n)
{
    const tsr_rope_params &p = P(r.step);
    return tsr_rope_bf16((tsr_bf16 *)t[0], (tsr_bf16 *)t[1], (const float *)t[2], n, 0, p.dim, p.kv_dim, p.head_size,
                         r.worker, r.workers);
}

using RopeI8 = tsr_kernel_status (*)(int8_t *, int8_t *, const int16_t *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                                     uint32_t, uint32_t);
template <RopeI8 Rope> tsr_kernel_status rope_i8(const StepRun &r, uint8_t **t, uint32_t n)
{
    const tsr_rope_params &p = P(r.step);
    return Rope((int8_t *)t[0], (int8_t *)t[1], (const int16_t *)t[2], n, 0, p.dim, p.kv_dim, p.head_size,
                       r.worker, r.workers);
}

// Its call made at open (a token's step in place): the table's row at the run's position.
struct PreparedRope {
    int8_t *q, *k;
    const int16_t *table; // context x head_size int16 (validated)
    uint32_t dim, kv_dim, head_size;
};
template <RopeI8 Rope> tsr_kernel_status rope_i8_call(const PreparedCall &c, uint32_t rows, uint32_t pos, uint32_t worker, uint32_t workers)
{
    const PreparedRope &p = c.as<PreparedRope>();
    return Rope(p.q, p.k, p.table + (size_t)pos * p.head_size, rows, 0, p.dim, p.kv_dim, p.head_size, worker, workers);
}
template <RopeI8 Rope> bool rope_i8_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_rope_params &p = P(c.step);
    c.check(0, (uint64_t)c.rows * p.dim);
    c.check(1, (uint64_t)c.rows * p.kv_dim);
    c.check(2, (uint64_t)p.context * p.head_size * 2u); // the rows a run may read: any position's
    out.set(rope_i8_call<Rope>, PreparedRope{(int8_t *)c.at(0), (int8_t *)c.at(1), (const int16_t *)c.at(2), p.dim,
                                             p.kv_dim, p.head_size});
    return true;
}

template <tsr_kernel_status (*RopeMatrix)(const tsr_rope_matrix_i8_args *, uint32_t, uint32_t)>
tsr_kernel_status rope_matrix(const StepRun &r, uint8_t **t, uint32_t n)
{
    const tsr_rope_matrix_i8_params &p = tsr_params_as<tsr_rope_matrix_i8_params>(r.step);
    const tsr_rope_matrix_i8_args a = {(int8_t *)t[0], (int8_t *)t[1], (const int8_t *)t[2], &p.q, &p.k, n, p.dim, p.kv_dim,
                                       p.head_size};
    return RopeMatrix(&a, r.worker, r.workers);
}

tsr_kernel_status rope_matrix_f32(const StepRun &r, uint8_t **t, uint32_t n)
{
    const tsr_rope_params &p = P(r.step);
    return tsr_rope_matrix_f32((float *)t[0], (float *)t[1], (const float *)t[2], n, p.dim, p.kv_dim, p.head_size, r.worker,
                               r.workers);
}

tessera_status check_matrix_f32(StepChecker &c)
{
    return S(c.step).head_size > 64u ? c.fail("head size above 64") : TESSERA_OK;
}

tessera_status check_matrix(StepChecker &c)
{
    const tsr_rope_matrix_i8_params &p = tsr_params_as<tsr_rope_matrix_i8_params>(c.step);
    TSR_TRY(c.symmetric(0));
    TSR_TRY(c.symmetric(1));
    if (p.head_size > 64u) return c.fail("head size above 64");
    const tsr_rqs_params *const all[] = {&p.q, &p.k};
    for (const tsr_rqs_params *r : all)
        if (!tsr_rqs_valid(r) || r->lo < -128 || r->hi > 127) return c.fail("RequantShift constants out of range");
    return TESSERA_OK;
}

// A rotation of symmetric int8 values (a zero point would rotate too).
tessera_status check_i8(StepChecker &c)
{
    TSR_TRY(c.symmetric(0));
    return c.symmetric(1);
}

// A variant's row also says its table's element type (F32, or I16 in Q14 for int8) and
// whether the table is indexed by position (angles) or is the run's rows (matrices).
struct RopeVariant {
    Kernel kernel;
    uint32_t table_dtype;
    bool per_run_row;
    Prepare prepare = nullptr; // its call made at open, where it has one
};

} // namespace

// Its variants' row (OpRow, variant_rows.h).
template <> struct OpRow<TSR_OP_ROPE> : RopeVariant {};

namespace {

uint32_t table_row_bytes(const tsr_rope_shape &p, const RopeVariant &v)
{
    return (v.per_run_row ? p.head_size * p.head_size : p.head_size) * tsr_dtype_bytes(v.table_dtype);
}

void operands(const tsr_step &s, const RopeVariant &v, uint32_t pos, RowOperand out[3])
{
    const tsr_rope_shape &p = S(s);
    const uint32_t e = act_bytes(s);
    out[0] = {0, p.dim * e, 0, false, true, true};
    out[1] = {1, p.kv_dim * e, 0, false, true, true};
    out[2] = {2, table_row_bytes(p, v), v.per_run_row ? 0u : pos, false, true, false}; // rows from the run's position
}

tessera_status validate(StepChecker &c)
{
    const tsr_rope_shape &p = S(c.step);
    const RopeVariant &v = variant_row<TSR_OP_ROPE>(registered_variant(c.step.variant));
    const uint64_t R = c.rows, e = act_bytes(c.step);
    if (!p.head_size || p.head_size % 2u || !p.dim || p.dim % p.head_size || !p.kv_dim || p.kv_dim % p.head_size ||
        p.kv_dim > p.dim)
        return c.fail("dim or kv_dim is not whole heads of an even head_size");
    // A run's rows are positions below the context: an angle table must hold each of them.
    if (!v.per_run_row && p.context < c.h.context) return c.fail("the angle table has fewer rows than the context");
    TSR_TRY(c.operand(0, c.step.dtype, R * p.dim * e, true));
    TSR_TRY(c.operand(1, c.step.dtype, R * p.kv_dim * e, true));
    if (p.head_size > 1024u) return c.fail("head size above 1024");
    return c.operand(2, v.table_dtype, (uint64_t)(v.per_run_row ? R : p.context) * table_row_bytes(p, v), false);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t)
{
    const uint8_t v = registered_variant(s.variant);
    if (v == kNoVariant) return StepGeometry::none();
    RowOperand ops[3];
    operands(s, variant_row<TSR_OP_ROPE>(v), 0, ops);
    return row_geometry(s, rows, ops, 3);
}

void run(StepRun &r)
{
    const RopeVariant &v = variant_row<TSR_OP_ROPE>(r.resolved.variant);
    RowOperand ops[3];
    operands(r.step, v, r.pos, ops);
    run_rows(r, ops, 3, [&](uint8_t **t, uint32_t n) { return v.kernel(r, t, n); });
}

} // namespace

// The variants it registers (tessera/variants.def).
TSR_REGISTER_VARIANT(ROPE_F32, nullptr, RopeVariant{rope_f32, TSR_DTYPE_F32, false, rope_f32_prepare})
TSR_REGISTER_VARIANT(ROPE_BF16, nullptr, RopeVariant{rope_bf16, TSR_DTYPE_F32, false})
TSR_REGISTER_VARIANT(ROPE_I8, check_i8, RopeVariant{rope_i8<tsr_rope_i8>, TSR_DTYPE_I16, false, rope_i8_prepare<tsr_rope_i8>})
TSR_REGISTER_VARIANT(ROPE_I8_MATRIX, check_matrix, RopeVariant{rope_matrix<tsr_rope_matrix_i8>, TSR_DTYPE_I8, true})
// The tuned kernel sets' (kernels/<set>/tuned_variants.def).
#define TSR_TUNED_ROPE_I8(SET, sfx)                                                                                    \
    TSR_REGISTER_TUNED_VARIANT(SET, ROPE_I8, check_i8, RopeVariant{rope_i8<tsr_rope_i8_##sfx>, TSR_DTYPE_I16, false, rope_i8_prepare<tsr_rope_i8_##sfx>})
#define TSR_TUNED_ROPE_I8_MATRIX(SET, sfx)                                                                             \
    TSR_REGISTER_TUNED_VARIANT(SET, ROPE_I8_MATRIX, check_matrix, RopeVariant{rope_matrix<tsr_rope_matrix_i8_##sfx>, TSR_DTYPE_I8, true})
#define TSR_TUNED TSR_TUNED_ROW
#if __has_include("tessera/tuned_ROPE.def")
#include "tessera/tuned_ROPE.def"
#endif
#undef TSR_TUNED
TSR_REGISTER_VARIANT(ROPE_F32_MATRIX, check_matrix_f32, RopeVariant{rope_matrix_f32, TSR_DTYPE_F32, true})

extern const OpDevice op_ROPE = {validate, geometry, run, false, nullptr, nullptr, prepare_row<TSR_OP_ROPE>, nullptr};

} // namespace tsr
