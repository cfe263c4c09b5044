// MATMUL    in: x (rows x k), w (n x k, row-major)   out: y (rows x n)
//           params: k, n, split (tsr_matmul_shape); the weights' and the output's element
//             types are the variant's:
//             F32 steps: F32 or BF16 weights (BF16: half the bytes, widened in the kernel), F32 out;
//             BF16 steps: BF16 weights, BF16 out or F32 out (the logits), fp32 sums;
//             I8 steps (tsr_matmul_i8_params): I8 weights per output channel, I8 out (requant:
//               n Q31 multipliers (int32) then n shifts (int8), an I32 tensor) or F32 out (requant:
//               n dequantization factors, F32);
//               QuantLib's RequantShift (tsr_matmul_rqs_params; on the NPU .rqs.npu, and
//               .rqs.stage.npu with the rounding in the addends): requant holds n multipliers
//               then n addends (I32), rqs_shift, rqs_lo and rqs_hi the rest.
//             F32 and BF16 steps with a bias (tsr_matmul_bias_params): bias names the F32 tensor
//               of n biases.
//           split (cluster steps): the output columns in up to three tensors, operands 2, 3
//             and 4 (split: Q, K and V as one step, or W1 and W3), each
//             rows x its columns; staged, they share operand 2's buffer (a tile's outputs),
//             from which each goes to its tensor; every core computes a run of the columns
//             of each tile, cut where one output ends.
//           tiles: rows x output columns (tile[0], tile[1]); a row tile's x is
//           loaded once, the weights stream tile by tile.
//           NPU steps (engine NPU, I8 only): the weights are in the NPU's layout (tensor layout
//             NPU_W8 or NPU_W4, tessera/npu.h), x and y live in L1, npu_desc names the
//             step's descriptor; every job covers all rows and tile[1] output channels (a multiple
//             of 32, or all n). join != 0: the weights are read in place from NMS and the last job
//             need only be done before step `join`; join == 0: they stream from L2 or the image
//             through L1 staging, a tile a job, and the step waits for its jobs.
#include "op.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernel_sets.h"

namespace tsr {
namespace {

const tsr_matmul_shape &S(const tsr_step &s) { return tsr_params_as<tsr_matmul_shape>(s); }
// The struct of the variants each kernel below serves.
const tsr_matmul_bias_params &P_bias(const tsr_step &s) { return tsr_params_as<tsr_matmul_bias_params>(s); }
const tsr_matmul_i8_params &P_i8(const tsr_step &s) { return tsr_params_as<tsr_matmul_i8_params>(s); }
const tsr_matmul_rqs_params &P_rqs(const tsr_step &s) { return tsr_params_as<tsr_matmul_rqs_params>(s); }
const tsr_matmul_npu_params &P_npu(const tsr_step &s) { return tsr_params_as<tsr_matmul_npu_params>(s); } // every NPU variant's
const tsr_matmul_rqs_npu_params &P_rqs_npu(const tsr_step &s) { return tsr_params_as<tsr_matmul_rqs_npu_params>(s); }

// The weights' and the output's element types, and whether the weights are 4-bit (W4_G32):
// the variant's, as its row of tessera/variants.def says (TSR_MATMUL_TYPES, TSR_MATMUL_W4).
struct Types {
    uint32_t weights, out;
    bool w4;
};
Types types(const tsr_step &s)
{
    tsr_variant_row row;
    if (!tsr_variant_lookup(s.variant, &row) || row.op != TSR_OP_MATMUL) return Types{0u, 0u, false};
    return Types{(row.arithmetic >> 4) & 15u, row.arithmetic & 15u, (row.arithmetic & TSR_MATMUL_W4) != 0u};
}
// Bytes of one output channel's weights: k elements of the weights' type, or a W4A8 row
// (4-bit weights and their group scales, tessera/kernels_i8.h); 64-bit, since the
// geometry is asked before validate has bounded k.
uint64_t weight_row_bytes(const tsr_step &s, const Types &t)
{
    return t.w4 ? (uint64_t)tsr_w4_row_bytes(S(s).k) : (uint64_t)S(s).k * tsr_dtype_bytes(t.weights);
}

// Where the output columns go (tsr_matmul_shape.split): `count` outputs, operand 2 + i
// taking columns first[i] .. first[i] + cols[i] - 1. 0 outputs: a split out of range.
struct Outputs {
    uint32_t count, first[3], cols[3];
};
inline Outputs outputs(uint32_t n, uint32_t split0, uint32_t split1)
{
    Outputs o = {1u, {0u, 0u, 0u}, {n, 0u, 0u}};
    if (split0 == 0u) return split1 == 0u ? o : Outputs{0u, {}, {}};
    const uint64_t used = (uint64_t)split0 + split1;
    if (used >= n) return Outputs{0u, {}, {}};
    o.count = split1 ? 3u : 2u;
    o.cols[0] = split0;
    o.first[1] = split0;
    o.cols[1] = split1 ? split1 : n - split0;
    o.first[2] = (uint32_t)used;
    o.cols[2] = split1 ? n - (uint32_t)used : 0u;
    return o;
}
inline Outputs outputs(const tsr_matmul_shape &p) { return outputs(p.n, p.split[0], p.split[1]); }

// A split step's columns c0 .. c0 + n - 1 (a tile's) that worker of workers computes, in whole
// groups of four (the kernels' blocks), cut where an output ends: part(i, lo, hi) for each
// output i its run reaches, columns lo .. hi - 1 of the whole matrix.
template <typename Part> void split_columns(const Outputs &o, uint32_t c0, uint32_t n, uint32_t worker, uint32_t workers, Part part)
{
    // (32-bit: a wrapped product only shortens a core's run, never leaves the tile.)
    const uint32_t per = (quotient(n + workers - 1u, workers) + 3u) & ~3u;
    const uint32_t a = c0 + (worker * per < n ? worker * per : n);
    const uint32_t b = c0 + ((worker + 1u) * per < n ? (worker + 1u) * per : n);
    for (uint32_t i = 0; i < o.count; ++i) {
        const uint32_t lo = a > o.first[i] ? a : o.first[i], end = o.first[i] + o.cols[i], hi = b < end ? b : end;
        if (lo < hi) part(i, lo, hi);
    }
}

tessera_status validate_npu(StepChecker &c)
{
    const tsr_matmul_npu_params &p = P_npu(c.step);
    const tsr_step &s = c.step;
    // Its variant (matmul.i8.npu, checked by validate_steps) is int8 in, int8 weights, int8 out,
    // all symmetric.
    TSR_TRY(c.symmetric(0));
    TSR_TRY(c.symmetric(2));
    if (!p.k || !p.n || p.k > TSR_NPU_MAX_K) return c.fail("k or n out of the NPU's range");
    if (p.split[0] || p.split[1]) return c.fail("an NPU job writes one output (split)");
    // matmul.i8.rqs.npu and .rqs.stage.npu: n multipliers and n addends
    const bool stage = s.variant == TSR_VARIANT_MATMUL_I8_RQS_STAGE_NPU, rqs = s.variant == TSR_VARIANT_MATMUL_I8_RQS_NPU || stage;
    TSR_TRY(c.constant(p.requant, TSR_DTYPE_I32, (uint64_t)p.n * (rqs ? 8u : 5u), "requantization table does not fit"));
    if (rqs) {
        const tsr_matmul_rqs_npu_params &q = P_rqs_npu(s);
        if (q.rqs_shift < 0 || q.rqs_shift > (stage ? 31 : 62) || q.rqs_lo != -128 || q.rqs_hi != 127)
            return c.fail("NPU RequantShift's shift or range out of range");
    }
    TSR_TRY(c.operand(0, TSR_DTYPE_I8, (uint64_t)c.rows * p.k, false));
    TSR_TRY(c.operand(2, TSR_DTYPE_I8, (uint64_t)c.rows * p.n, true));
    if (c.tensors[s.operands[0]].region != TSR_REGION_L1 || c.tensors[s.operands[2]].region != TSR_REGION_L1)
        return c.fail("NPU input and output must live in L1");
    const tsr_tensor &w = c.tensors[s.operands[1]];
    const uint32_t bits = tsr_layout_npu_bits(w.layout);
    if (!bits || w.dims[0] != p.n || w.dims[1] != p.k) return c.fail("weights are not n x k in an NPU layout", 1);
    if (!c.image || p.npu_desc >= c.image->npu_desc_count) return c.fail("names no NPU descriptor");
    const tsr_npu_desc &d = c.image->npu_descs[p.npu_desc];
    const bool nms = p.join != 0u;
    const uint32_t kind = stage ? TSR_NPU_GEMM_I8_RQS_STAGE : rqs ? TSR_NPU_GEMM_I8_RQS : TSR_NPU_GEMM_I8;
    if (d.kind != kind || d.flags != (nms ? TSR_NPU_WEIGHTS_NMS : 0u) || d.weight_bits != bits ||
        d.k != p.k || d.m != c.rows || d.ldx != p.k || d.ldy != p.n || d.n != s.tile[1] ||
        d.jobs != ceil_div(p.n, d.n ? d.n : 1u))
        return c.fail("NPU descriptor does not match the step");
    if (nms) {
        if (w.region != TSR_REGION_NMS) return c.fail("NPU weights flagged for NMS lie outside NMS", 1);
        if (p.join <= c.index || p.join > c.step_count) return c.fail("NPU join is not a later step of the schedule");
    }
    return TESSERA_OK;
}

// ---- the cluster's variants ----------------------------------------------------------

tessera_status check_i8(StepChecker &c)
{
    const tsr_matmul_i8_params &p = P_i8(c.step);
    if (p.k > 32768u) return c.fail("k above 32768");
    // The multipliers and shifts are data: the kernels check their ranges on every call,
    // but where facts() found them in range at open and says so (the Helium kernel).
    return c.constant(p.requant, TSR_DTYPE_I32, (uint64_t)p.n * 5u, "requantization table does not fit");
}

// W4A8: k within the accumulator's range, the weights in their layout.
tessera_status check_w4_layout(StepChecker &c)
{
    const tsr_matmul_shape &p = S(c.step);
    if (p.k > 2048u) return c.fail("k above 2048 (W4A8)");
    const uint32_t w = c.step.operands[1];
    if (w < c.h.tensor_count && (c.tensors[w].layout != TSR_LAYOUT_W4_G32 || c.tensors[w].dims[0] != p.n ||
                                 c.tensors[w].dims[1] != p.k))
        return c.fail("4-bit weights are not n x k in layout W4_G32", 1);
    return TESSERA_OK;
}

// ... and the same requantization table as int8 weights.
tessera_status check_i8_w4(StepChecker &c)
{
    TSR_TRY(check_w4_layout(c));
    return c.constant(P_i8(c.step).requant, TSR_DTYPE_I32, (uint64_t)P_i8(c.step).n * 5u, "requantization table does not fit");
}

// ... or the dequantizing classifier's (a table shared with the embedding).
tessera_status check_i8_w4_f32_out(StepChecker &c)
{
    TSR_TRY(check_w4_layout(c));
    TSR_TRY(c.symmetric(0));
    return c.constant(P_i8(c.step).requant, TSR_DTYPE_F32, (uint64_t)P_i8(c.step).n * 4u, "dequantization table does not fit");
}

tsr_rqs_params rqs_range(const tsr_matmul_rqs_params &p) { return tsr_rqs_params{0, 0, p.rqs_shift, p.rqs_lo, p.rqs_hi}; }

tessera_status check_i8_rqs(StepChecker &c)
{
    const tsr_matmul_rqs_params &p = P_rqs(c.step);
    if (p.k > 32768u) return c.fail("k above 32768");
    const tsr_rqs_params r = rqs_range(p);
    if (!tsr_rqs_valid(&r) || r.lo < -128 || r.hi > 127) return c.fail("RequantShift's shift or range out of range");
    return c.constant(p.requant, TSR_DTYPE_I32, (uint64_t)p.n * 8u, "RequantShift table does not fit");
}

tessera_status check_f32_bias(StepChecker &c)
{
    const tsr_matmul_bias_params &p = P_bias(c.step);
    return c.constant(p.bias, TSR_DTYPE_F32, (uint64_t)p.n * 4u, "bias does not fit");
}

tessera_status check_i8_f32_out(StepChecker &c)
{
    const tsr_matmul_i8_params &p = P_i8(c.step);
    if (p.k > 32768u) return c.fail("k above 32768");
    TSR_TRY(c.symmetric(0)); // the dequantizing kernel takes symmetric inputs
    return c.constant(p.requant, TSR_DTYPE_F32, (uint64_t)p.n * 4u, "dequantization table does not fit");
}

// One tile's product: m rows of x (k each) times n weight rows into y (row stride ldy),
// output channels c0.. of the whole matrix (the requantization tables' index).
struct Product {
    const uint8_t *x, *w;
    uint8_t *y;
    uint32_t m, n, ldy, c0;
};
using Kernel = tsr_kernel_status (*)(const StepRun &r, const Product &t);

template <tsr_kernel_status (*Matmul)(const float *, const float *, float *, uint32_t, uint32_t, uint32_t, uint32_t,
                                      uint32_t, uint32_t)>
tsr_kernel_status mm_f32(const StepRun &r, const Product &t)
{
    return Matmul((const float *)t.x, (const float *)t.w, (float *)t.y, t.m, S(r.step).k, t.n, t.ldy, r.worker, r.workers);
}

tsr_kernel_status mm_f32_bias(const StepRun &r, const Product &t)
{
    const float *bias = (const float *)r.constant(P_bias(r.step).bias) + t.c0;
    return tsr_matmul_f32_bias((const float *)t.x, (const float *)t.w, bias, (float *)t.y, t.m, S(r.step).k, t.n, t.ldy,
                               r.worker, r.workers);
}

tsr_kernel_status mm_f32_w16(const StepRun &r, const Product &t)
{
    return tsr_matmul_f32_w16((const float *)t.x, (const tsr_bf16 *)t.w, (float *)t.y, t.m, S(r.step).k, t.n, t.ldy,
                              r.worker, r.workers);
}

tsr_kernel_status mm_bf16(const StepRun &r, const Product &t)
{
    tsr_matmul_bf16_args a = {(const tsr_bf16 *)t.x, (const tsr_bf16 *)t.w, (tsr_bf16 *)t.y, t.m, S(r.step).k, t.n,
                              t.ldy, nullptr, nullptr};
    return tsr_matmul_bf16(&a, r.worker, r.workers);
}

tsr_kernel_status mm_bf16_bias(const StepRun &r, const Product &t)
{
    tsr_matmul_bf16_args a = {(const tsr_bf16 *)t.x, (const tsr_bf16 *)t.w, (tsr_bf16 *)t.y, t.m, S(r.step).k, t.n,
                              t.ldy, nullptr, (const float *)r.constant(P_bias(r.step).bias) + t.c0};
    return tsr_matmul_bf16(&a, r.worker, r.workers);
}

tsr_kernel_status mm_bf16_f32_out(const StepRun &r, const Product &t)
{
    tsr_matmul_bf16_args a = {(const tsr_bf16 *)t.x, (const tsr_bf16 *)t.w, nullptr, t.m, S(r.step).k, t.n, t.ldy,
                              (float *)t.y, nullptr};
    return tsr_matmul_bf16(&a, r.worker, r.workers);
}

// The int8 variants over the kernels of a set (the portable ones, or an instruction
// set's: TSR_REGISTER_TUNED_VARIANT).
using MatmulI8 = tsr_kernel_status (*)(const tsr_matmul_i8_args *, uint32_t, uint32_t);
using MatmulI8F32 = tsr_kernel_status (*)(const tsr_matmul_i8_f32_args *, uint32_t, uint32_t);

template <MatmulI8 Matmul> tsr_kernel_status mm_i8(const StepRun &r, const Product &t)
{
    const tsr_matmul_i8_params &p = P_i8(r.step);
    const int32_t *mult = (const int32_t *)r.constant(p.requant);
    tsr_matmul_i8_args a = {};
    a.x = (const int8_t *)t.x;
    a.w = (const int8_t *)t.w;
    a.multiplier = mult + t.c0;
    a.shift = (const int8_t *)(mult + p.n) + t.c0;
    a.y = (int8_t *)t.y;
    a.x_zero = r.resolved.zero[0];
    a.y_zero = r.resolved.zero[2];
    a.y_min = -128;
    a.y_max = 127;
    a.rows = t.m;
    a.k = p.k;
    a.n = t.n;
    a.ldy = t.ldy;
    a.flags = r.resolved.facts; // facts(): the table's ranges, known at open
    return Matmul(&a, r.worker, r.workers);
}

// Its call made at open (a token's step of one tile in place): the product whole, or a
// split step's columns cut where each output ends, each part a whole call (compute_split).
struct PreparedProduct {
    const uint8_t *x, *w;
    const int32_t *table; // the requantization's (requant): n, then n shifts (int8) or n addends
    uint8_t *y[3];        // each output's first column (split: its own columns)
    uint32_t k, n, split[2];
    uint8_t flags, yb; // yb: an output element's bytes
    int8_t x_zero, y_zero, rqs_shift, rqs_lo, rqs_hi;
};
// part(c0, n, y, ldy, worker, workers): the kernel's call for channels c0.. c0 + n - 1.
template <typename Part>
tsr_kernel_status prepared_columns(const PreparedProduct &p, uint32_t worker, uint32_t workers, Part part)
{
    if (!p.split[0]) return part(0u, p.n, p.y[0], p.n, worker, workers);
    const Outputs o = outputs(p.n, p.split[0], p.split[1]);
    tsr_kernel_status st = TSR_KERNEL_OK;
    split_columns(o, 0u, p.n, worker, workers, [&](uint32_t i, uint32_t lo, uint32_t hi) {
        if (part(lo, hi - lo, p.y[i] + (size_t)(lo - o.first[i]) * p.yb, o.cols[i], 0u, 1u) != TSR_KERNEL_OK)
            st = TSR_KERNEL_BAD_ARGUMENT;
    });
    return st;
}
// table: the requantization's (none for fp32); range: RequantShift's (validated).
bool prepare_product(const PrepareContext &c, PreparedCall &out,
                     tsr_kernel_status (*call)(const PreparedCall &, uint32_t, uint32_t, uint32_t, uint32_t),
                     const int32_t *table, const tsr_rqs_params &range)
{
    const tsr_matmul_shape &q = S(c.step);
    const ResolvedStep &r = c.resolved;
    const Outputs o = outputs(q); // validated: 1 to 3 (the variants that prepare)
    const Types ty = types(c.step);
    PreparedProduct p = {c.at(0), c.at(1), table, {nullptr, nullptr, nullptr},
                         q.k, q.n, {q.split[0], q.split[1]}, r.facts, (uint8_t)tsr_dtype_bytes(ty.out), r.zero[0], r.zero[2],
                         (int8_t)range.shift, (int8_t)range.lo, (int8_t)range.hi};
    c.check(0, (uint64_t)c.rows * q.k * act_bytes(c.step));
    c.check(1, (uint64_t)q.n * weight_row_bytes(c.step, ty));
    for (uint32_t i = 0; i < o.count; ++i) {
        p.y[i] = c.at(2u + i);
        c.check(2u + i, (uint64_t)c.rows * o.cols[i] * p.yb);
    }
    out.set(call, p);
    return true;
}
template <MatmulI8 Matmul> tsr_kernel_status mm_i8_call(const PreparedCall &c, uint32_t rows, uint32_t, uint32_t worker, uint32_t workers)
{
    const PreparedProduct &p = c.as<PreparedProduct>();
    return prepared_columns(p, worker, workers, [&p, rows](uint32_t c0, uint32_t n, uint8_t *y, uint32_t ldy, uint32_t w, uint32_t ws) {
        tsr_matmul_i8_args a = {};
        a.x = (const int8_t *)p.x;
        a.w = (const int8_t *)p.w + (size_t)c0 * p.k;
        a.multiplier = p.table + c0;
        a.shift = (const int8_t *)(p.table + p.n) + c0;
        a.y = (int8_t *)y;
        a.x_zero = p.x_zero;
        a.y_zero = p.y_zero;
        a.y_min = -128;
        a.y_max = 127;
        a.rows = rows;
        a.k = p.k;
        a.n = n;
        a.ldy = ldy;
        a.flags = p.flags;
        return Matmul(&a, w, ws);
    });
}
template <MatmulI8 Matmul> bool mm_i8_prepare(const PrepareContext &c, PreparedCall &out)
{
    return prepare_product(c, out, mm_i8_call<Matmul>, (const int32_t *)c.constant(P_i8(c.step).requant), tsr_rqs_params{});
}

using MatmulF32 = tsr_kernel_status (*)(const float *, const float *, float *, uint32_t, uint32_t, uint32_t, uint32_t,
                                        uint32_t, uint32_t);
template <MatmulF32 Matmul> tsr_kernel_status mm_f32_call(const PreparedCall &c, uint32_t rows, uint32_t, uint32_t worker, uint32_t workers)
{
    const PreparedProduct &p = c.as<PreparedProduct>();
    return prepared_columns(p, worker, workers, [&p, rows](uint32_t c0, uint32_t n, uint8_t *y, uint32_t ldy, uint32_t w, uint32_t ws) {
        return Matmul((const float *)p.x, (const float *)p.w + (size_t)c0 * p.k, (float *)y, rows, p.k, n, ldy, w, ws);
    });
}
template <MatmulF32 Matmul> bool mm_f32_prepare(const PrepareContext &c, PreparedCall &out)
{
    return prepare_product(c, out, mm_f32_call<Matmul>, nullptr, tsr_rqs_params{});
}

using MatmulW4 = tsr_kernel_status (*)(const tsr_matmul_w4a8_args *, uint32_t, uint32_t);
using MatmulW4F32 = tsr_kernel_status (*)(const tsr_matmul_w4a8_f32_args *, uint32_t, uint32_t);

template <MatmulW4 Matmul> tsr_kernel_status mm_i8_w4(const StepRun &r, const Product &t)
{
    const tsr_matmul_i8_params &p = P_i8(r.step);
    const int32_t *mult = (const int32_t *)r.constant(p.requant);
    const tsr_matmul_w4a8_args a = {(const int8_t *)t.x, t.w, mult + t.c0, (const int8_t *)(mult + p.n) + t.c0,
                                    (int8_t *)t.y, r.resolved.zero[0], r.resolved.zero[2], t.m, p.k, t.n, t.ldy};
    return Matmul(&a, r.worker, r.workers);
}

template <MatmulW4F32 Matmul> tsr_kernel_status mm_i8_w4_f32_out(const StepRun &r, const Product &t)
{
    const float *scales = (const float *)r.constant(P_i8(r.step).requant) + t.c0;
    const tsr_matmul_w4a8_f32_args a = {(const int8_t *)t.x, t.w, scales, (float *)t.y, t.m, S(r.step).k, t.n, t.ldy};
    return Matmul(&a, r.worker, r.workers);
}

using MatmulI8Rqs = tsr_kernel_status (*)(const tsr_matmul_i8_rqs_args *, uint32_t, uint32_t);
template <MatmulI8Rqs Matmul> tsr_kernel_status mm_i8_rqs(const StepRun &r, const Product &t)
{
    const tsr_matmul_rqs_params &p = P_rqs(r.step);
    const int32_t *table = (const int32_t *)r.constant(p.requant);
    const tsr_matmul_i8_rqs_args a = {(const int8_t *)t.x, (const int8_t *)t.w, table + t.c0, table + p.n + t.c0,
                                      (int8_t *)t.y, rqs_range(p), t.m, p.k, t.n, t.ldy,
                                      r.resolved.facts}; // facts(): TSR_MATMUL_I8_RQS_FITS_32, known at open
    return Matmul(&a, r.worker, r.workers);
}

template <MatmulI8Rqs Matmul> tsr_kernel_status mm_i8_rqs_call(const PreparedCall &c, uint32_t rows, uint32_t, uint32_t worker, uint32_t workers)
{
    const PreparedProduct &p = c.as<PreparedProduct>();
    return prepared_columns(p, worker, workers, [&p, rows](uint32_t c0, uint32_t n, uint8_t *y, uint32_t ldy, uint32_t w, uint32_t ws) {
        const tsr_matmul_i8_rqs_args a = {(const int8_t *)p.x, (const int8_t *)p.w + (size_t)c0 * p.k, p.table + c0,
                                          p.table + p.n + c0, (int8_t *)y, tsr_rqs_params{0, 0, p.rqs_shift, p.rqs_lo, p.rqs_hi},
                                          rows, p.k, n, ldy, p.flags};
        return Matmul(&a, w, ws);
    });
}
template <MatmulI8Rqs Matmul> bool mm_i8_rqs_prepare(const PrepareContext &c, PreparedCall &out)
{
    const tsr_matmul_rqs_params &q = P_rqs(c.step);
    return prepare_product(c, out, mm_i8_rqs_call<Matmul>, (const int32_t *)c.constant(q.requant), rqs_range(q));
}

template <MatmulI8F32 Matmul> tsr_kernel_status mm_i8_f32_out(const StepRun &r, const Product &t)
{
    const float *scales = (const float *)r.constant(P_i8(r.step).requant) + t.c0;
    tsr_matmul_i8_f32_args a = {(const int8_t *)t.x, (const int8_t *)t.w, scales, (float *)t.y, t.m, S(r.step).k, t.n, t.ldy};
    return Matmul(&a, r.worker, r.workers);
}

// The NPU's form is its variant's row (matmul.i8.npu): a runtime that does not register
// that variant carries none of its code. The engine's steps reach it through the
// registration (validate and geometry are asked only once it is found: check_step).
struct NpuForm {
    tessera_status (*validate)(StepChecker &c);
    StepGeometry (*geometry)(const tsr_step &s, uint32_t rows);
    void (*run)(StepRun &r);
};

} // namespace

// Its variants' row (OpRow, variant_rows.h): a cluster variant's kernels, or an NPU
// variant's form.
template <> struct OpRow<TSR_OP_MATMUL> {
    Variant<Kernel> cluster{};
    NpuForm npu{};
    constexpr OpRow(const Variant<Kernel> &v) : cluster(v) {}
    constexpr OpRow(const NpuForm &f) : npu(f) {}
    Prepare prepare = cluster.prepare; // prepare_row's
};

namespace {
const NpuForm *npu_form(const tsr_step &s)
{
    const uint8_t v = registered_variant(s.variant);
    return v == kNoVariant ? nullptr : &variant_row<TSR_OP_MATMUL>(v).npu;
}

tessera_status validate(StepChecker &c)
{
    if (c.step.engine == TSR_ENGINE_NPU) return npu_form(c.step)->validate(c); // registered: check_step
    const tsr_matmul_shape &p = S(c.step);
    const Types ty = types(c.step);
    if (!p.k || !p.n) return c.fail("k or n is 0");
    if (!tsr_dtype_bytes(ty.weights) || !tsr_dtype_bytes(ty.out)) return c.fail("weight or output element type unknown");
    const Outputs o = outputs(p);
    if (o.count == 0u) return c.fail("output split (split) out of range");
    const uint64_t R = c.rows;
    TSR_TRY(c.operand(0, c.step.dtype, R * p.k * act_bytes(c.step), false));
    TSR_TRY(c.operand(1, ty.weights, (uint64_t)p.n * weight_row_bytes(c.step, ty), false));
    for (uint32_t i = 0; i < o.count; ++i) {
        TSR_TRY(c.operand(2u + i, ty.out, R * o.cols[i] * tsr_dtype_bytes(ty.out), true));
        if (i) TSR_TRY(c.same_zero(2, 2u + i)); // the kernels take one zero point
        // Unstaged, each output is written where it lies (staged, all of them go through
        // operand 2's buffer: the geometry has them share it).
        if (o.count > 1u && c.step.staging[2] == TSR_NO_TENSOR && c.tensors[c.step.operands[2u + i]].region != TSR_REGION_L1 &&
            !(c.h.flags & TSR_IMAGE_OPERANDS_IN_PLACE))
            return c.fail("is an output of a split matmul outside L1 and not staged", 2u + i);
    }
    return TESSERA_OK;
}

// NPU steps: x and y whole in L1; the weights in NMS (not staged) or streamed a job's
// channels at a time. The channel bytes follow from k and the weight bits; the bits
// are the weight tensor's, which the geometry does not see, so a tile's slot is sized
// for 8 bits (4-bit weights take the same room: tessera/npu.h).
StepGeometry geometry_npu(const tsr_step &s, uint32_t rows)
{
    StepGeometry g = StepGeometry::none();
    const uint32_t tn = s.tile[1], K = S(s).k, N = S(s).n;
    if (!tn || tn > N || (tn % TSR_NPU_BLOCK_N != 0u && tn != N) || s.tile[0] < rows || !K || K > TSR_NPU_MAX_K)
        return g;
    g.tiles = ceil_div(N, tn);
    g.stream(0, (uint64_t)rows * K, 1);
    g.stream(2, (uint64_t)rows * N, 1);
    if (P_npu(s).join == 0u) {
        const uint64_t cb = tsr_npu_channel_bytes(K, 8u);
        g.stream(1, (uint64_t)tn * cb, g.tiles);
        g.traffic(1, (uint64_t)N * cb, g.tiles);
    }
    g.valid = true;
    return g;
}

// The cluster's tiles (an invalid geometry: the caller marks the outputs a split does
// not name absent).
StepGeometry cluster_geometry(const tsr_step &s, uint32_t rows, const Outputs &o)
{
    StepGeometry g = StepGeometry::none();
    const Types ty = types(s);
    const uint32_t tr = s.tile[0], tn = s.tile[1], K = S(s).k, N = S(s).n, xb = act_bytes(s), yb = tsr_dtype_bytes(ty.out);
    const uint64_t wrow = weight_row_bytes(s, ty);
    if (!tr || tr > rows || !tn || tn > N || !wrow || !xb || !yb || o.count == 0u) return g;
    const uint32_t rt = ceil_div(rows, tr), ct = ceil_div(N, tn);
    g.tiles = rt * ct;
    g.stream(0, (uint64_t)tr * K * xb, rt);
    g.stream(1, (uint64_t)tn * wrow, g.tiles);
    g.traffic(0, (uint64_t)rows * K * xb, rt);               // x: once per row tile
    g.traffic(1, (uint64_t)rt * N * wrow, g.tiles);        // w: every row tile again
    for (uint32_t i = 0; i < o.count; ++i) {
        g.stream(2u + i, (uint64_t)tr * tn * yb, g.tiles); // a tile's outputs, whichever tensors they go to
        g.operand[2u + i].shares = 2u;
        g.traffic(2u + i, (uint64_t)rows * o.cols[i] * yb, g.tiles);
    }
    g.valid = true;
    return g;
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t)
{
    const Outputs o = outputs(S(s));
    StepGeometry g = StepGeometry::none();
    if (s.engine != TSR_ENGINE_NPU) g = cluster_geometry(s, rows, o);
    else if (const NpuForm *npu = npu_form(s)) g = npu->geometry(s, rows);
    if (o.count) // (a split out of range: validate says so)
        for (uint32_t i = o.count; i < 3u; ++i) g.operand[2u + i].use = OperandUse::kAbsent; // named by no split
    return g;
}

// A validated NPU step's job but for its rows, channels and addresses, from its descriptor
// and its requantization tables (where the step's `requant` lies).
PreparedNpuJob npu_job_of(const tsr_step &s, const tsr_npu_desc &d, const uint8_t *tables)
{
    PreparedNpuJob t;
    t.multiplier = (const int32_t *)tables;
    t.kind = d.kind;
    t.flags = d.flags;
    t.weight_bits = d.weight_bits;
    t.n = S(s).n;
    t.k = d.k;
    t.ldx = d.ldx;
    t.ldy = d.ldy;
    t.rqs_shift = d.kind != TSR_NPU_GEMM_I8 ? (uint32_t)P_rqs_npu(s).rqs_shift : 0u; // validated: the step's form
    t.tag = s.layer;
    t.join = P_npu(s).join;
    return t;
}

// Core 0 alone: one job per tile of output channels. Streamed weights are
// double-buffered: tile t + 1 is copied in while job t runs, once job t - 1, which
// read that buffer, is done.
void run_npu(StepRun &r)
{
    const tsr_matmul_npu_params &p = P_npu(r.step);
    const tsr_npu_desc &d = r.run.img.npu_descs[p.npu_desc];
    const uint32_t N = p.n, tn = d.n, jobs = d.jobs;
    const uint32_t cb = (uint32_t)tsr_npu_channel_bytes(d.k, d.weight_bits);
    const bool nms = p.join != 0u;
    const PreparedNpuJob job = npu_job_of(r.step, d, r.constant(p.requant));
    Dma &dma = r.run.dma;
    Npu &npu = r.run.npu;
    dma.drain();
    tsr_dma_handle ready[2] = {0, 0};
    tsr_npu_handle done[2] = {0, 0};
    auto channels = [&](uint32_t t) { return N - t * tn < tn ? N - t * tn : tn; };
    if (!nms) {
        dma.copy(r.slot(1, 0), r.addr[1], channels(0) * cb);
        ready[0] = dma.last();
    }
    for (uint32_t t = 0; t < jobs && !dma.failed() && !npu.failed(); ++t) {
        const uint32_t c0 = t * tn;
        if (!nms) dma.wait(ready[t % 2u]);
        const uint8_t *w = nms ? r.addr[1] + (size_t)c0 * cb : r.slot(1, t);
        done[t % 2u] = npu.submit(job.job(r.rows, r.addr[0], w, r.addr[2], c0, channels(t)), r.index, nms ? p.join : r.index);
        if (!nms && t + 1u < jobs) {
            npu.wait(done[(t + 1u) % 2u]);
            dma.copy(r.slot(1, t + 1u), r.addr[1] + (size_t)(c0 + tn) * cb, channels(t + 1u) * cb);
            ready[(t + 1u) % 2u] = dma.last();
        }
    }
    if (!nms) npu.wait(done[(jobs - 1u) % 2u]);
    r.run.settle(r.index);
    r.run.settle_npu();
}

// At open: a step of one job on weights in NMS, as run_npu submits it but for its rows and
// its operands' addresses (PreparedNpuJob; the executor's run_npu_job).
bool prepare_npu(const PrepareContext &c, PreparedNpuJob &out)
{
    const tsr_matmul_npu_params &p = P_npu(c.step);
    const tsr_npu_desc &d = c.img.npu_descs[p.npu_desc]; // validated
    if (d.jobs != 1u || p.join == 0u) return false;
    out = npu_job_of(c.step, d, c.constant(p.requant));
    return true;
}

// A split step's compute of tile (rows r0.., m; columns c0.., n) on this core: its run of
// the tile's columns, in whole groups of four (the kernels' blocks), cut where an output
// ends, each part on its own. Out of the common path.
__attribute__((noinline)) void compute_split(StepRun &r, Kernel kernel, const uint8_t *in, const uint8_t *w, size_t wrow,
                                             uint32_t t, uint32_t r0, uint32_t m, uint32_t c0, uint32_t n, uint32_t tn,
                                             uint32_t yb)
{
    const Outputs o = outputs(S(r.step)); // validated: 2 or 3, one zero point (the kernels take operand 2's)
    StepRun part = r; // each part is the kernel's whole call: worker 0 of 1
    part.worker = 0u;
    part.workers = 1u;
    const bool staged = r.stage[2] != nullptr;
    split_columns(o, c0, n, r.worker, r.workers, [&](uint32_t i, uint32_t lo, uint32_t hi) {
        uint8_t *y = staged ? r.slot(2, t) + (size_t)(lo - c0) * yb
                            : r.addr[2u + i] + ((size_t)r0 * o.cols[i] + (lo - o.first[i])) * yb;
        const uint32_t ldy = staged ? tn : o.cols[i];
        r.check(y, ((uint64_t)(m - 1u) * ldy + (hi - lo)) * yb, staged ? 2u : 2u + i);
        r.kernel(kernel(part, Product{in, w + (size_t)(lo - c0) * wrow, y, m, hi - lo, ldy, lo}));
    });
}

// Core 0: a split step's staged tile to its outputs, each output's columns of it.
__attribute__((noinline)) void out_split(StepRun &r, uint32_t t, uint32_t r0, uint32_t m, uint32_t c0, uint32_t n,
                                         uint32_t tn, uint32_t yb)
{
    const Outputs o = outputs(S(r.step));
    for (uint32_t i = 0; i < o.count; ++i) {
        const uint32_t end = o.first[i] + o.cols[i], lo = c0 > o.first[i] ? c0 : o.first[i], hi = c0 + n < end ? c0 + n : end;
        if (lo < hi)
            r.run.dma.copy_2d(r.addr[2u + i] + ((size_t)r0 * o.cols[i] + (lo - o.first[i])) * yb, o.cols[i] * yb,
                              r.slot(2, t) + (size_t)(lo - c0) * yb, tn * yb, (hi - lo) * yb, m);
    }
}

void run(StepRun &r)
{
    if (r.step.engine == TSR_ENGINE_NPU) return variant_row<TSR_OP_MATMUL>(r.resolved.variant).npu.run(r);
    const Types ty = types(r.step); // one look at the variant's row a run
    const uint32_t K = S(r.step).k, N = S(r.step).n, xb = act_bytes(r.step), yb = tsr_dtype_bytes(ty.out);
    const size_t wrow = (size_t)weight_row_bytes(r.step, ty); // validated: the tensor holds n of them
    const uint32_t tr = r.step.tile[0], tn = r.step.tile[1], ct = ceil_div(N, tn);
    const Kernel kernel = variant_row<TSR_OP_MATMUL>(r.resolved.variant).cluster.kernel;
    const bool split = S(r.step).split[0] != 0u; // several outputs (validated)
    struct Tile {
        uint32_t ri, r0, m, c0, n;
    };
    // Core 0 decodes a tile three times (in, compute, out; quotient: a token's one row of
    // tiles needs no division).
    auto tile = [&](uint32_t t) {
        Tile x;
        x.ri = quotient(t, ct);
        x.r0 = x.ri * tr;
        x.m = r.rows - x.r0 < tr ? r.rows - x.r0 : tr;
        x.c0 = (t - x.ri * ct) * tn;
        x.n = N - x.c0 < tn ? N - x.c0 : tn;
        return x;
    };
    r.tiles(
        ceil_div(r.rows, tr) * ct,
        [&](uint32_t t) {
            const Tile x = tile(t);
            if (r.stage[0] && x.c0 == 0u) r.run.dma.copy(r.slot(0, x.ri), r.addr[0] + (size_t)x.r0 * K * xb, x.m * K * xb);
            if (r.stage[1] && (t != 0u || r.run.ahead != r.index)) // tile 0's: fetched ahead (ahead())
                r.run.dma.copy(r.slot(1, t), r.addr[1] + (size_t)x.c0 * wrow, (uint32_t)(x.n * wrow));
        },
        [&](uint32_t t) {
            if (!r.fine) return;
            const Tile x = tile(t);
            const uint8_t *in = r.at(0, x.ri, (size_t)x.r0 * K * xb);
            const uint8_t *w = r.at(1, t, (size_t)x.c0 * wrow);
            if (r.worker == 0u) {
                r.check(in, (uint64_t)x.m * K * xb, 0);
                r.check(w, (uint64_t)x.n * wrow, 1);
            }
            if (split) return compute_split(r, kernel, in, w, wrow, t, x.r0, x.m, x.c0, x.n, tn, yb);
            uint8_t *y = r.at(2, t, ((size_t)x.r0 * N + x.c0) * yb);
            const uint32_t ldy = r.stage[2] ? tn : N;
            if (r.worker == 0u) r.check(y, ((uint64_t)(x.m - 1u) * ldy + x.n) * yb, 2);
            r.kernel(kernel(r, Product{in, w, y, x.m, x.n, ldy, x.c0}));
        },
        [&](uint32_t t) {
            if (!r.stage[2]) return;
            const Tile x = tile(t);
            if (split) return out_split(r, t, x.r0, x.m, x.c0, x.n, tn, yb);
            r.run.dma.copy_2d(r.addr[2] + ((size_t)x.r0 * N + x.c0) * yb, N * yb, r.slot(2, t), tn * yb, x.n * yb, x.m);
        });
}

// Tile 0's weights (rows 0.. of the first column tile), which the step before may fetch
// ahead; not an NPU step's (its jobs move their own).
uint32_t ahead(const tsr_step &s, uint32_t *operand)
{
    if (s.engine == TSR_ENGINE_NPU) return 0u;
    const uint64_t bytes = (uint64_t)(S(s).n < s.tile[1] ? S(s).n : s.tile[1]) * weight_row_bytes(s, types(s));
    *operand = 1u;
    return bytes <= 0xFFFFFFFFu ? (uint32_t)bytes : 0u;
}

} // namespace

// The variants it registers (tessera/variants.def).
TSR_REGISTER_VARIANT(MATMUL_F32, nullptr, Variant<Kernel>{mm_f32<tsr_matmul_f32>, mm_f32_prepare<tsr_matmul_f32>})
TSR_REGISTER_VARIANT(MATMUL_F32_W16, nullptr, Variant<Kernel>{mm_f32_w16})
TSR_REGISTER_VARIANT(MATMUL_F32_BIAS, check_f32_bias, Variant<Kernel>{mm_f32_bias})
TSR_REGISTER_VARIANT(MATMUL_BF16, nullptr, Variant<Kernel>{mm_bf16})
TSR_REGISTER_VARIANT(MATMUL_BF16_F32_OUT, nullptr, Variant<Kernel>{mm_bf16_f32_out})
TSR_REGISTER_VARIANT(MATMUL_BF16_BIAS, check_f32_bias, Variant<Kernel>{mm_bf16_bias})
TSR_REGISTER_VARIANT(MATMUL_I8, check_i8, Variant<Kernel>{mm_i8<tsr_matmul_i8>, mm_i8_prepare<tsr_matmul_i8>})
TSR_REGISTER_VARIANT(MATMUL_I8_F32_OUT, check_i8_f32_out, Variant<Kernel>{mm_i8_f32_out<tsr_matmul_i8_f32>})
TSR_REGISTER_VARIANT(MATMUL_I8_W4, check_i8_w4, Variant<Kernel>{mm_i8_w4<tsr_matmul_w4a8>})
TSR_REGISTER_VARIANT(MATMUL_I8_W4_F32_OUT, check_i8_w4_f32_out, Variant<Kernel>{mm_i8_w4_f32_out<tsr_matmul_w4a8_f32>})
TSR_REGISTER_VARIANT(MATMUL_I8_RQS, check_i8_rqs, Variant<Kernel>{mm_i8_rqs<tsr_matmul_i8_rqs>, mm_i8_rqs_prepare<tsr_matmul_i8_rqs>})
// The tuned kernel sets' (kernels/<set>/tuned_variants.def): the portable kernel's name
// with the set's suffix, in the portable variant's row.
#define TSR_TUNED_MATMUL_F32(SET, sfx) TSR_REGISTER_TUNED_VARIANT(SET, MATMUL_F32, nullptr, Variant<Kernel>{mm_f32<tsr_matmul_f32_##sfx>, mm_f32_prepare<tsr_matmul_f32_##sfx>})
#define TSR_TUNED_MATMUL_I8(SET, sfx) TSR_REGISTER_TUNED_VARIANT(SET, MATMUL_I8, check_i8, Variant<Kernel>{mm_i8<tsr_matmul_i8_##sfx>, mm_i8_prepare<tsr_matmul_i8_##sfx>})
#define TSR_TUNED_MATMUL_I8_F32_OUT(SET, sfx)                                                                          \
    TSR_REGISTER_TUNED_VARIANT(SET, MATMUL_I8_F32_OUT, check_i8_f32_out, Variant<Kernel>{mm_i8_f32_out<tsr_matmul_i8_f32_##sfx>})
#define TSR_TUNED_MATMUL_I8_W4(SET, sfx)                                                                               \
    TSR_REGISTER_TUNED_VARIANT(SET, MATMUL_I8_W4, check_i8_w4, Variant<Kernel>{mm_i8_w4<tsr_matmul_w4a8_##sfx>})
#define TSR_TUNED_MATMUL_I8_W4_F32_OUT(SET, sfx)                                                                       \
    TSR_REGISTER_TUNED_VARIANT(SET, MATMUL_I8_W4_F32_OUT, check_i8_w4_f32_out,                                         \
                               Variant<Kernel>{mm_i8_w4_f32_out<tsr_matmul_w4a8_f32_##sfx>})
#define TSR_TUNED_MATMUL_I8_RQS(SET, sfx)                                                                              \
    TSR_REGISTER_TUNED_VARIANT(SET, MATMUL_I8_RQS, check_i8_rqs, Variant<Kernel>{mm_i8_rqs<tsr_matmul_i8_rqs_##sfx>, mm_i8_rqs_prepare<tsr_matmul_i8_rqs_##sfx>})
#define TSR_TUNED TSR_TUNED_ROW
#if __has_include("tessera/tuned_MATMUL.def")
#include "tessera/tuned_MATMUL.def"
#endif
#undef TSR_TUNED
// The NPU's form: its checks, geometry and jobs.
TSR_REGISTER_VARIANT(MATMUL_I8_NPU, nullptr, NpuForm{validate_npu, geometry_npu, run_npu})
TSR_REGISTER_VARIANT(MATMUL_I8_RQS_NPU, nullptr, NpuForm{validate_npu, geometry_npu, run_npu})
TSR_REGISTER_VARIANT(MATMUL_I8_RQS_STAGE_NPU, nullptr, NpuForm{validate_npu, geometry_npu, run_npu})

namespace {
// The int8 requantization table of a cluster step, checked once: tsr_matmul_i8_args.flags.
// A cluster RequantShift step's: whether every channel's 32-bit form holds, from its weights
// (tsr_matmul_i8_rqs_fits_32), where the cores may read them.
uint8_t rqs_facts(const ImageView &img, const tsr_hal_board *board, const tsr_step &s)
{
    const tsr_matmul_rqs_params &p = P_rqs(s);
    const uint32_t w = s.operands[1];
    if (board->image_dma_only && img.tensors[w].region == TSR_REGION_IMAGE) return 0u; // the DMA engine's alone
    const int32_t *table = (const int32_t *)tensor_address(img, board, p.requant); // validated: n x 8 bytes
    return tsr_matmul_i8_rqs_fits_32((const int8_t *)tensor_address(img, board, w), table, table + p.n, p.n, p.k,
                                     p.rqs_shift)
               ? (uint8_t)TSR_MATMUL_I8_RQS_FITS_32
               : 0u;
}

uint8_t facts(const ImageView &img, const tsr_hal_board *board, const tsr_step &s)
{
    if (s.engine == TSR_ENGINE_CLUSTER && s.variant == TSR_VARIANT_MATMUL_I8_RQS) return rqs_facts(img, board, s);
    if (s.engine != TSR_ENGINE_CLUSTER || s.variant != TSR_VARIANT_MATMUL_I8) return 0u;
    const tsr_matmul_i8_params &p = P_i8(s);
    const int32_t *mult = (const int32_t *)tensor_address(img, board, p.requant); // validated: n x 5 bytes
    uint32_t flags = 0;
    return tsr_matmul_i8_tables_ok(mult, (const int8_t *)(mult + p.n), nullptr, p.n, &flags) ? (uint8_t)flags : 0u;
}

} // namespace

// prepare: a cluster step's kernel call; prepare_npu: an NPU step's job (prepare_steps).
extern const OpDevice op_MATMUL = {validate, geometry, run, true, facts, ahead, prepare_row<TSR_OP_MATMUL>, prepare_npu};

} // namespace tsr
