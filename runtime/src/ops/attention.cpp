// ATTENTION in: q (rows x dim), k_cache, v_cache (context x kv_dim)   out: y (rows x dim)
//           scratch: operand 3, no tensor: per attention core, a scores row and what the
//             element type needs besides (Scratch below), from the plan
//           params: n_heads, n_kv_heads, head_size, context, kv_layout, window;
//             BF16: the exponential is the variant's; I8: its factors (integer,
//             tsr_attention_i8_params: and its table of exponentials, exps; float,
//             tsr_attention_i8_float_params); QuantLib (tsr_attention_quantlib_params): its tables
//           (tessera/kernels_quantlib.h), and a row sees the whole chunk: the later rows' positions
//           as masked ones, as Deeploy's graphs apply their causal mask
//           tiles: tile[0] cached positions per chunk, tile[1] cores sharing the heads
//
//           kv_layout: the caches' (both TSR_LAYOUT_ROW_MAJOR, or both KV_HEAD_MAJOR)
//
// Causal grouped-query attention over the KV cache. The work items are (row, head)
// pairs in head-major order (a head's rows together), spread over the attention cores
// (all of them: the items are coarse) in rounds: in a round, core j owns item
// round * cores + j, its own scores row and its own buffers. A round streams the keys
// of its heads chunk by chunk (the DMA gathers a head's columns, once for the cores
// whose items share the KV head) and each core scores them; after its last chunk a core
// takes the softmax of its scores; then the values stream the same way and each core
// sums them into its head of y. q and y, when not in L1, are staged a head at a time,
// two buffers a core (one per round). A buffer that already holds the rows a tile needs
// (the next rows of the same head, a round after the other) is not copied again. A
// head-major cache (TSR_LAYOUT_KV_HEAD_MAJOR) holds a head's positions together: a chunk
// is one contiguous copy, or, on a board whose kernels read operands where they lie, no copy.
#include "op.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"
#include "tessera/kernels_i8_float.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/kernel_sets.h"

namespace tsr {
namespace {

const tsr_attention_shape &S(const tsr_step &s) { return tsr_params_as<tsr_attention_shape>(s); }
const tsr_attention_i8_params &P_i8(const tsr_step &s) { return tsr_params_as<tsr_attention_i8_params>(s); }
const tsr_attention_i8_float_params &P_i8_float(const tsr_step &s) { return tsr_params_as<tsr_attention_i8_float_params>(s); }
const tsr_attention_quantlib_params &P_quantlib(const tsr_step &s) { return tsr_params_as<tsr_attention_quantlib_params>(s); }

struct Shape {
    uint32_t nh, nkv, hs, ctx, dim, kv_dim, group;
};
Shape sizes_of(const tsr_step &s)
{
    const tsr_attention_shape &p = S(s);
    return Shape{p.n_heads, p.n_kv_heads, p.head_size, p.context, p.n_heads * p.head_size, p.n_kv_heads * p.head_size,
                 p.n_kv_heads ? p.n_heads / p.n_kv_heads : 0u};
}

// One attention core's scratch: its scores row (I8 integer: int8 scores, 12-bit
// probabilities, the exponentials; else fp32 scores, then probabilities in place),
// and the accumulators of its head (fp32 or int32; F32 sums straight into y). QuantLib:
// then room for its tables (tsr_quantlib_attention, 1,840 bytes), which the step's first
// tile copies from the image into core 0's scratch, where every core reads them: the
// kernels look one up for each position and score, and the image may sit in slow memory
// (pulp-rtl: L2, 8 cycles a load).
struct Scratch {
    uint32_t probs, exps, acc, bytes; // offsets in the core's buffer, and its size
    uint32_t tables = 0;              // offset of the tables' copy (0: none)
    uint32_t table_bytes = 0;         // its size
};
// Each layout as its kernels state it (their scratch queries): the plan sizes the
// scratch from these.
Scratch scratch_f32(const Shape &a) { return Scratch{0u, 0u, 4u * a.ctx, tsr_attention_f32_scratch_bytes(a.ctx)}; }
Scratch scratch_bf16(const Shape &a) { return Scratch{0u, 0u, 4u * a.ctx, tsr_attention_bf16_scratch_bytes(a.ctx, a.hs)}; }
Scratch scratch_i8_float(const Shape &a)
{
    return Scratch{0u, 0u, 4u * a.ctx, tsr_attention_i8_float_scratch_bytes(a.ctx, a.hs)};
}
Scratch scratch_quantlib(const Shape &a)
{
    const tsr_quantlib_attention_layout l = tsr_quantlib_attention_scratch_layout(a.ctx, a.hs);
    const uint32_t tables = (l.bytes + 3u) & ~3u;
    return Scratch{l.probs, l.exps, l.acc, tables + (uint32_t)sizeof(tsr_quantlib_attention), tables,
                   (uint32_t)sizeof(tsr_quantlib_attention)};
}
// The integer variant's: then room for its table of exponentials (1 KiB), copied as
// QuantLib's tables are where the plan does not hold it in L1 (tables_copy): a step's copy
// takes staging room only while it runs.
Scratch scratch_integer(const Shape &a)
{
    const tsr_attention_i8_layout l = tsr_attention_i8_scratch_layout(a.ctx, a.hs);
    const uint32_t tables = (l.bytes + 3u) & ~3u, bytes = TSR_SOFTMAX_I8_EXP_ENTRIES * 4u;
    return Scratch{l.probs, l.exps, l.acc, tables + bytes, tables, bytes};
}

// ---- the variants' own checks and kernels --------------------------------------------

tessera_status check_i8(StepChecker &c)
{
    const tsr_attention_i8_params &p = P_i8(c.step);
    const Shape a = sizes_of(c.step);
    if (a.ctx > 1024u || a.hs > 1024u) return c.fail("context or head size above the integer softmax's 1024");
    TSR_TRY(c.requant(p.scores, "scores factor out of range"));
    TSR_TRY(c.requant(p.out, "output factor out of range"));
    TSR_TRY(c.constant(p.exps, TSR_DTYPE_I32, TSR_SOFTMAX_I8_EXP_ENTRIES * 4u, "softmax table does not fit"));
    return tsr_iexp_constants_valid(iexp_constants(p.softmax)) ? TESSERA_OK : c.fail("softmax constants out of range");
}

// What open finds of the integer variant's table of exponentials: in range
// (tsr_softmax_i8_exp_table_ok) where the cores may read it, so its kernels read it (else
// they compute each exponential).
constexpr uint8_t kExpsInRange = 1u;
uint8_t facts(const ImageView &img, const tsr_hal_board *board, const tsr_step &s)
{
    if (s.variant != TSR_VARIANT_ATTENTION_I8) return 0u;
    const uint32_t id = P_i8(s).exps; // validated: I32, 256 entries
    if (board->image_dma_only && img.tensors[id].region == TSR_REGION_IMAGE) return 0u; // the DMA engine's alone
    return tsr_softmax_i8_exp_table_ok((const uint32_t *)tensor_address(img, board, id)) ? kExpsInRange : 0u;
}

tessera_status check_quantlib(StepChecker &c)
{
    const tsr_attention_quantlib_params &p = P_quantlib(c.step);
    if (p.context > TSR_QUANTLIB_MAX_CONTEXT) return c.fail("context above QuantLib attention's 2048");
    const uint32_t operands[] = {0u, 1u, 2u, 4u};
    for (uint32_t i : operands) TSR_TRY(c.symmetric(i));
    return c.constant(p.tables, TSR_DTYPE_I32, sizeof(tsr_quantlib_attention), "QuantLib tables do not fit");
}

tessera_status check_i8_float(StepChecker &c)
{
    const tsr_attention_i8_float_params &p = P_i8_float(c.step);
    TSR_TRY(c.symmetric(0)); // q, the caches, the output
    TSR_TRY(c.symmetric(1));
    TSR_TRY(c.symmetric(2));
    TSR_TRY(c.symmetric(4));
    return p.score_scale > 0.0f && p.out_scale > 0.0f ? TESSERA_OK : c.fail("scores or output scale not positive");
}

// Keys pass, one chunk of one (row, head): its scores; after the row's last chunk, the
// softmax over all n of them and clean accumulators.
struct ScoreArgs {
    const uint8_t *q, *keys;
    uint8_t *mine; // the core's scratch
    const Scratch &sx;
    uint32_t first, count, n; // the chunk's positions, and the row's
    bool last_chunk;
    uint8_t *y;
    const int8_t *zero; // the operands' zero points (ResolvedStep::zero)
    uint32_t row_pos;   // the row's own position (the last it sees unmasked)
    const uint8_t *tables; // QuantLib: its constants; integer: its exponentials (tables_of)
    uint32_t kv_stride = 0; // bytes from a position's key to the next's (0: the head's size; integer variant)
};
// Values pass, one chunk: the weighted sum into the accumulators; after the row's last
// chunk, the head of y from them.
struct AccumulateArgs {
    const uint8_t *values;
    uint8_t *mine;
    const Scratch &sx;
    uint32_t first, count;
    bool last_chunk;
    uint8_t *y;
    const int8_t *zero; // the operands' zero points (ResolvedStep::zero)
    const uint8_t *tables; // QuantLib: its constants
    uint32_t kv_stride = 0; // as ScoreArgs'
};

void clear(float *acc, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) acc[i] = 0.0f;
}

// The fp32 variant's passes, over the kernels of a set (as the integer variant's below).
using ScoresF32 = tsr_kernel_status (*)(const float *, const float *, float *, uint32_t, uint32_t, uint32_t, uint32_t);
using SoftmaxF32 = void (*)(float *, uint32_t);
using AccumulateF32 = tsr_kernel_status (*)(const float *, const float *, float *, uint32_t, uint32_t, uint32_t, uint32_t);
template <ScoresF32 Scores, SoftmaxF32 Softmax> tsr_kernel_status score_f32(const tsr_step &s, const ScoreArgs &x)
{
    const uint32_t hs = S(s).head_size;
    float *scores = (float *)x.mine;
    const tsr_kernel_status st = Scores((const float *)x.q, (const float *)x.keys, scores + x.first, x.count, hs, 0, 1);
    if (st == TSR_KERNEL_OK && x.last_chunk) {
        // A local window: the softmax of the positions it sees, probability 0 for the others.
        const uint32_t first = tsr_attention_window_first(x.n, S(s).window);
        Softmax(scores + first, x.n - first);
        clear(scores, first);
        clear((float *)x.y, hs); // F32 sums straight into y
    }
    return st;
}

// Exp: the variant's exponential.
template <tsr_exp_kind Exp> tsr_kernel_status score_bf16(const tsr_step &s, const ScoreArgs &x)
{
    const tsr_attention_shape &p = S(s);
    float *scores = (float *)x.mine;
    tsr_kernel_status st = tsr_attention_scores_bf16((const tsr_bf16 *)x.q, (const tsr_bf16 *)x.keys, scores + x.first,
                                                     x.count, p.head_size);
    if (st == TSR_KERNEL_OK && x.last_chunk) { // as the fp32 variant's: a local window's positions alone
        const uint32_t first = tsr_attention_window_first(x.n, p.window);
        st = tsr_softmax_f32_exp(scores + first, x.n - first, Exp);
        clear(scores, first);
    }
    if (st == TSR_KERNEL_OK && x.last_chunk) clear((float *)(x.mine + x.sx.acc), p.head_size);
    return st;
}

tsr_kernel_status score_i8_float(const tsr_step &s, const ScoreArgs &x)
{
    const tsr_attention_i8_float_params &p = P_i8_float(s);
    float *scores = (float *)x.mine;
    const tsr_kernel_status st = tsr_attention_scores_i8_float((const int8_t *)x.q, (const int8_t *)x.keys,
                                                               scores + x.first, x.count, p.head_size, p.score_scale);
    if (st == TSR_KERNEL_OK && x.last_chunk) { // as the fp32 variant's: a local window's positions alone
        const uint32_t first = tsr_attention_window_first(x.n, p.window);
        tsr_softmax_f32(scores + first, x.n - first);
        clear(scores, first);
        clear((float *)(x.mine + x.sx.acc), p.head_size);
    }
    return st;
}

// The integer variant's passes, over the kernels of a set (the portable ones, or an
// instruction set's: TSR_REGISTER_TUNED_VARIANT).
using ScoresI8 = tsr_kernel_status (*)(const tsr_attention_scores_i8_args *, uint32_t, uint32_t);
using SoftmaxI8 = tsr_kernel_status (*)(const tsr_softmax_i8_args *, uint32_t *);
using AccumulateI8 = tsr_kernel_status (*)(const tsr_attention_accumulate_i8_args *, uint32_t, uint32_t);

template <ScoresI8 Scores, SoftmaxI8 Softmax> tsr_kernel_status score_i8(const tsr_step &s, const ScoreArgs &x)
{
    const tsr_attention_i8_params &p = P_i8(s);
    const tsr_attention_scores_i8_args a = {(const int8_t *)x.q, (const int8_t *)x.keys, (int8_t *)x.mine + x.first, x.zero[0], x.zero[1],
                                            p.scores.multiplier, p.scores.shift, x.count, p.head_size, x.kv_stride};
    tsr_kernel_status st = Scores(&a, 0, 1);
    if (st == TSR_KERNEL_OK && x.last_chunk) { // a local window's positions alone; probability 0 for the others
        const uint32_t first = tsr_attention_window_first(x.n, p.window);
        uint16_t *probs = (uint16_t *)(x.mine + x.sx.probs);
        const tsr_softmax_i8_args sm = {(const int8_t *)x.mine + first, probs + first, x.n - first,
                                        iexp_constants(p.softmax), (const uint32_t *)(const void *)x.tables};
        st = Softmax(&sm, (uint32_t *)(x.mine + x.sx.exps));
        for (uint32_t i = 0; i < first; ++i) probs[i] = 0u;
    }
    if (st == TSR_KERNEL_OK && x.last_chunk)
        for (uint32_t i = 0; i < p.head_size; ++i) ((int32_t *)(x.mine + x.sx.acc))[i] = 0;
    return st;
}

template <AccumulateF32 Accumulate> tsr_kernel_status accumulate_f32(const tsr_step &s, const AccumulateArgs &x)
{
    return Accumulate((const float *)x.mine + x.first, (const float *)x.values, (float *)x.y, x.count, S(s).head_size, 0,
                      1);
}

tsr_kernel_status accumulate_bf16(const tsr_step &s, const AccumulateArgs &x)
{
    const uint32_t hs = S(s).head_size;
    float *acc = (float *)(x.mine + x.sx.acc);
    const tsr_kernel_status st =
        tsr_attention_accumulate_bf16((const float *)x.mine + x.first, (const tsr_bf16 *)x.values, acc, x.count, hs);
    if (st == TSR_KERNEL_OK && x.last_chunk)
        for (uint32_t i = 0; i < hs; ++i) ((tsr_bf16 *)x.y)[i] = tsr_bf16_from_f32(acc[i]);
    return st;
}

tsr_kernel_status accumulate_i8_float(const tsr_step &s, const AccumulateArgs &x)
{
    const tsr_attention_i8_float_params &p = P_i8_float(s);
    float *acc = (float *)(x.mine + x.sx.acc);
    const tsr_kernel_status st = tsr_attention_accumulate_i8_float((const float *)x.mine + x.first,
                                                                   (const int8_t *)x.values, acc, x.count, p.head_size);
    if (st == TSR_KERNEL_OK && x.last_chunk) tsr_attention_output_i8_float(acc, (int8_t *)x.y, p.head_size, p.out_scale);
    return st;
}

template <AccumulateI8 Accumulate> tsr_kernel_status accumulate_i8(const tsr_step &s, const AccumulateArgs &x)
{
    const tsr_attention_i8_params &p = P_i8(s);
    const tsr_attention_accumulate_i8_args a = {(const uint16_t *)(x.mine + x.sx.probs) + x.first, (const int8_t *)x.values,
                                                (int32_t *)(x.mine + x.sx.acc), x.zero[2], x.count, p.head_size, x.kv_stride};
    const tsr_kernel_status st = Accumulate(&a, 0, 1);
    if (st == TSR_KERNEL_OK && x.last_chunk)
        tsr_attention_output_i8((const int32_t *)(x.mine + x.sx.acc), (int8_t *)x.y, p.head_size, p.out.multiplier,
                                p.out.shift, x.zero[4]);
    return st;
}

using QuantlibScores = tsr_kernel_status (*)(const int8_t *, const int8_t *, int8_t *, uint32_t, uint32_t, uint32_t,
                                             uint32_t, const tsr_quantlib_attention *);
using QuantlibSoftmax = tsr_kernel_status (*)(const int8_t *, int8_t *, int32_t *, uint32_t, const tsr_quantlib_attention *);
using QuantlibAccumulate = tsr_kernel_status (*)(const int8_t *, const int8_t *, int32_t *, uint32_t, uint32_t);

template <QuantlibScores Scores, QuantlibSoftmax Softmax>
tsr_kernel_status score_quantlib(const tsr_step &s, const ScoreArgs &x)
{
    const uint32_t hs = S(s).head_size;
    const tsr_quantlib_attention *t = (const tsr_quantlib_attention *)x.tables;
    tsr_kernel_status st = Scores((const int8_t *)x.q, (const int8_t *)x.keys, (int8_t *)x.mine + x.first, x.count, hs,
                                  x.first, x.row_pos, t);
    if (st == TSR_KERNEL_OK && x.last_chunk)
        st = Softmax((const int8_t *)x.mine, (int8_t *)(x.mine + x.sx.probs), (int32_t *)(x.mine + x.sx.exps), x.n, t);
    if (st == TSR_KERNEL_OK && x.last_chunk)
        for (uint32_t i = 0; i < hs; ++i) ((int32_t *)(x.mine + x.sx.acc))[i] = 0;
    return st;
}

template <QuantlibAccumulate Accumulate> tsr_kernel_status accumulate_quantlib(const tsr_step &s, const AccumulateArgs &x)
{
    const uint32_t hs = S(s).head_size;
    int32_t *acc = (int32_t *)(x.mine + x.sx.acc);
    const tsr_kernel_status st =
        Accumulate((const int8_t *)(x.mine + x.sx.probs) + x.first, (const int8_t *)x.values, acc, x.count, hs);
    if (st == TSR_KERNEL_OK && x.last_chunk)
        return tsr_quantlib_output(acc, (int8_t *)x.y, hs, (const tsr_quantlib_attention *)x.tables);
    return st;
}

// Several rows of one head whose positions are all in one buffer (a prompt's chunk), for a
// variant that has a kernel for them: rows..., each q and y `stride` bytes after the one
// before, row r at position row_pos + r pos_step; a position's key and value kv_stride
// bytes after the one before (0: the head's size, one after the other).
struct RowsArgs {
    const uint8_t *q, *keys, *values;
    uint8_t *y, *mine;
    const uint8_t *tables;
    uint32_t rows, n, stride, row_pos, pos_step;
    uint32_t kv_stride = 0;
};

template <tsr_kernel_status (*Rows)(const tsr_quantlib_rows_args *)>
tsr_kernel_status rows_quantlib(const tsr_step &s, const RowsArgs &x)
{
    const tsr_quantlib_rows_args a = {(const int8_t *)x.q, (const int8_t *)x.keys, (const int8_t *)x.values, (int8_t *)x.y,
                                      x.mine, (const tsr_quantlib_attention *)x.tables, x.rows, x.n, S(s).head_size,
                                      x.stride, x.stride, x.row_pos, x.pos_step, x.kv_stride};
    return Rows(&a);
}

// A variant's row: its two passes' kernels, its scratch layout, what a row sees (the
// positions up to its own, causal, or the whole chunk, the later rows' masked), its
// kernel for several rows of a head at once (nullptr: the passes a row at a time), and
// whether its kernels read keys and values a stride apart at no cost (the set's
// TSR_ATTENTION_KV_STRIDE_FREE_<suffix>: XpulpV2's register post-increment; elsewhere a
// stride costs, or takes the portable kernel), so that a token's round is gathered as one
// block (run_token); and whether its softmax reads the image's table of exponentials (a set
// that computes them is given none, and no step copies it).
struct AttentionVariant {
    tsr_kernel_status (*score)(const tsr_step &s, const ScoreArgs &x);
    tsr_kernel_status (*accumulate)(const tsr_step &s, const AccumulateArgs &x);
    Scratch (*scratch)(const Shape &a);
    bool sees_chunk;
    tsr_kernel_status (*rows)(const tsr_step &s, const RowsArgs &x) = nullptr;
    bool kv_stride_free = false;
    bool reads_exps = false; // integer: its softmax reads the table of exponentials (TSR_SOFTMAX_I8_READS_TABLE_<suffix>)
};

} // namespace

// Its variants' row (OpRow, variant_rows.h).
template <> struct OpRow<TSR_OP_ATTENTION> : AttentionVariant {};

namespace {

tessera_status validate(StepChecker &c)
{
    const Shape a = sizes_of(c.step);
    const uint32_t T = c.step.dtype, e = act_bytes(c.step);
    if (!a.nh || !a.nkv || a.nh % a.nkv || !a.hs) return c.fail("n_heads is not whole groups of n_kv_heads, or a size is 0");
    // A run's positions are below the header's context: the caches hold every one.
    if (a.ctx < c.h.context) return c.fail("the KV caches hold fewer positions than the context");
    const uint64_t R = c.rows, cache = (uint64_t)a.ctx * a.nkv * a.hs * e, io = R * a.nh * a.hs * e;
    TSR_TRY(c.operand(0, T, io, false));
    TSR_TRY(c.operand(1, T, cache, false));
    TSR_TRY(c.operand(2, T, cache, false));
    TSR_TRY(c.of_kind(1, TSR_TENSOR_KV_CACHE, "is not a KV cache"));
    TSR_TRY(c.of_kind(2, TSR_TENSOR_KV_CACHE, "is not a KV cache"));
    const uint32_t layout = S(c.step).kv_layout;
    if (layout != TSR_LAYOUT_ROW_MAJOR && layout != TSR_LAYOUT_KV_HEAD_MAJOR) return c.fail("unknown KV cache layout");
    if (c.tensors[c.step.operands[1]].layout != layout || c.tensors[c.step.operands[2]].layout != layout)
        return c.fail("KV caches not in the layout its params name");
    if (layout == TSR_LAYOUT_KV_HEAD_MAJOR && a.nkv != c.h.n_kv_heads) // the layout's heads (image_reader)
        return c.fail("n_kv_heads is not the head-major caches' (the header's)");
    if (S(c.step).window && c.step.variant == TSR_VARIANT_ATTENTION_I8_QUANTLIB)
        return c.fail("a local window is not QuantLib attention's");
    return c.operand(4, T, io, true);
}

// Its heads and the rows they make.
void model_shape(const tsr_step &s, ModelShape &out)
{
    const Shape a = sizes_of(s);
    out.n_heads = a.nh;
    out.n_kv_heads = a.nkv;
    out.dim = a.dim;
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t cores)
{
    StepGeometry g = StepGeometry::none();
    const Shape a = sizes_of(s);
    const uint32_t tc = s.tile[0], ac = s.tile[1], e = act_bytes(s);
    const uint8_t v = registered_variant(s.variant);
    if (!tc || tc > a.ctx || !ac || ac > cores || !e || v == kNoVariant) return g;
    const uint32_t chunks = ceil_div(a.ctx, tc);
    const uint64_t heads = (uint64_t)rows * a.nh;
    if (heads > 0xFFFFFFFFu) return g; // none such validates; 32-bit division below (64-bit is a library call on RV32)
    const uint32_t h = (uint32_t)heads;
    g.tiles = (h / ac + (h % ac != 0u)) * 2u * chunks;
    auto per_core = [&](uint32_t k, uint64_t bytes, OperandUse use) { // two buffers a core
        g.stream(k, bytes, 2u, use);
        g.operand[k].slots = 2u * ac;
    };
    per_core(0, a.hs * e, OperandUse::kStreamed);
    // Keys, then values, in the same buffers: gathered (a head's columns) from a
    // row-major cache; a head-major one's chunk is where it lies, so a kernel may read it
    // there (kStreamed: unstaged where the image plans operands in place).
    const bool head_major = S(s).kv_layout == TSR_LAYOUT_KV_HEAD_MAJOR;
    per_core(1, (uint64_t)tc * a.hs * e, head_major ? OperandUse::kStreamed : OperandUse::kStaged);
    g.operand[2] = g.operand[1];
    g.operand[2].shares = 1u;
    g.operand[3] = OperandGeometry{OperandUse::kScratch, 3u, variant_row<TSR_OP_ATTENTION>(v).scratch(a).bytes, ac, 0u, 0u};
    per_core(4, a.hs * e, OperandUse::kStreamed);
    // Traffic with the whole context cached (the most a run moves): a gathered chunk once a
    // round and KV head (run: gatherer): a token's round holds ac query heads, a prompt's
    // rows of one head (at most one copy a round; fewer where a round's buffer still holds
    // the chunk from the round before).
    const uint32_t rounds = h / ac + (h % ac != 0u);
    const uint64_t kv_copies = rows > 1u ? rounds : a.group > 1u && ac % a.group == 0u ? heads / a.group : heads;
    g.traffic(0, heads * a.hs * e, heads);
    g.traffic(1, kv_copies * a.ctx * a.hs * e, kv_copies * chunks);
    g.traffic(2, kv_copies * a.ctx * a.hs * e, kv_copies * chunks);
    g.traffic(4, heads * a.hs * e, heads);
    g.valid = true;
    return g;
}

// The constants a variant's kernels read (ScoreArgs::tables): QuantLib's tables; the integer
// variant's exponentials where open found them in range; else none.
uint32_t tables_id(const StepRun &r)
{
    if (r.step.variant == TSR_VARIANT_ATTENTION_I8_QUANTLIB) return P_quantlib(r.step).tables;
    if (r.step.variant != TSR_VARIANT_ATTENTION_I8) return TSR_NO_TENSOR;
    const bool read = (r.resolved.facts & kExpsInRange) && variant_row<TSR_OP_ATTENTION>(r.resolved.variant).reads_exps;
    return read ? P_i8(r.step).exps : TSR_NO_TENSOR;
}
const uint8_t *tables_of(const StepRun &r)
{
    const uint32_t id = tables_id(r);
    return id < r.run.img.header->tensor_count ? r.constant(id) : nullptr;
}
// Where its kernels read them: the copy in core 0's scratch that the step's first tile
// makes, unless the plan holds them in L1 (then where they lie: nullptr).
uint8_t *tables_copy(const StepRun &r, const Scratch &sx, const uint8_t *tables)
{
    if (!sx.tables || !tables || !r.stage[3] || r.run.img.tensors[tables_id(r)].region == TSR_REGION_L1) return nullptr;
    return r.stage[3] + sx.tables; // core 0's scratch
}

// A prompt whose cached positions are one chunk, with q and y where they lie: a tile a KV
// head, whose keys and values are gathered once (with two cores or more, into two of the
// four buffers of cores 0 and 1, the next head's under this one's compute), each core
// taking every ac-th of the head's items (the rows of its query heads, through the
// variant's rows kernel where it has one, else an item at a time).
void run_by_kv_head(StepRun &r, const Shape &a, uint32_t ac)
{
    const AttentionVariant &v = variant_row<TSR_OP_ATTENTION>(r.resolved.variant);
    const Scratch sx = v.scratch(a);
    const uint32_t e = act_bytes(r.step), head = a.hs * e, seen = r.pos + r.rows; // positions gathered
    const uint8_t *tables = tables_of(r);
    uint8_t *const tables_l1 = tables_copy(r, sx, tables);
    const bool head_major = S(r.step).kv_layout == TSR_LAYOUT_KV_HEAD_MAJOR, ahead = ac >= 2u;
    auto cache = [&](uint32_t pass, uint32_t kvh) {
        return r.addr[1 + pass] + (head_major ? (size_t)kvh * a.ctx * head : (size_t)kvh * head);
    };
    auto buffer = [&](uint32_t t, uint32_t pass) {
        return r.stage[1] + (size_t)(2u * (ahead ? t % 2u : 0u) + pass) * r.resolved.slot_bytes[1];
    };
    auto in = [&](uint32_t t) {
        if (t == 0u && tables_l1) r.run.dma.copy(tables_l1, tables, sx.table_bytes);
        if (!r.stage[1]) return; // head-major, read in place
        for (uint32_t pass = 0; pass < 2u; ++pass) {
            if (head_major) r.run.dma.gather(buffer(t, pass), cache(pass, t), seen * head);
            else r.run.dma.copy_2d(buffer(t, pass), head, cache(pass, t), a.kv_dim * e, head, seen);
        }
    };
    auto compute = [&](uint32_t t) {
        const uint32_t j = r.core;
        if (j >= ac) return;
        uint8_t *mine = r.stage[3] + (size_t)j * r.resolved.slot_bytes[3];
        r.check(mine, sx.bytes, 3);
        const uint8_t *keys = r.stage[1] ? buffer(t, 0u) : cache(0u, t), *values = r.stage[1] ? buffer(t, 1u) : cache(1u, t);
        r.check(keys, (uint64_t)seen * head, 1);
        r.check(values, (uint64_t)seen * head, 2);
        const uint8_t *const tabs = tables_l1 ? tables_l1 : tables;
        const uint32_t stride = ac * a.dim * e;
        // Item i of the KV head (query head t group + i / rows, row i % rows): this core's
        // are i = j, j + ac, ...; `first` is the next of them.
        uint32_t first = j;
        for (uint32_t g = 0, base = 0; g < a.group; ++g, base += r.rows) {
            const uint32_t row0 = first - base;
            if (row0 >= r.rows) continue;
            const uint32_t count = quotient(r.rows - row0 - 1u, ac) + 1u, h = t * a.group + g;
            first += count * ac;
            const size_t at = ((size_t)row0 * a.dim + (size_t)h * a.hs) * e;
            const uint8_t *q = r.addr[0] + at;
            uint8_t *y = r.addr[4] + at;
            r.check(q, (uint64_t)(count - 1u) * stride + head, 0);
            r.check(y, (uint64_t)(count - 1u) * stride + head, 4);
            if (v.rows) {
                const tsr_kernel_status st = v.rows(r.step, RowsArgs{q, keys, values, y, mine, tabs, count, seen, stride,
                                                                     r.pos + row0, ac});
                r.kernel(st);
                if (st != TSR_KERNEL_OK) return;
                continue;
            }
            for (uint32_t c = 0, row = row0; c < count; ++c, row += ac, q += stride, y += stride) {
                const uint32_t n = v.sees_chunk ? seen : r.pos + row + 1u; // the row's positions
                tsr_kernel_status st = v.score(r.step, ScoreArgs{q, keys, mine, sx, 0u, n, n, true, y, r.resolved.zero,
                                                                 r.pos + row, tabs});
                if (st == TSR_KERNEL_OK)
                    st = v.accumulate(r.step, AccumulateArgs{values, mine, sx, 0u, n, true, y, r.resolved.zero, tabs});
                r.kernel(st);
                if (st != TSR_KERNEL_OK) return;
            }
        }
    };
    auto out = [](uint32_t) {}; // y in place
    if (ahead) r.tiles(a.nkv, in, compute, out);
    else r.tiles_in_turn(a.nkv, in, compute, out);
}

// Whether a built kernel set's attention kernels read keys and values a stride apart at no
// cost (TSR_ATTENTION_KV_STRIDE_FREE_<suffix>): run_token's block path is compiled only then.
#define TSR_TUNED(OP, SET, NAME, sfx) || TSR_ATTENTION_KV_STRIDE_FREE_##sfx != 0
constexpr bool kAnyKvStrideFree = false
#if __has_include("tessera/tuned_ATTENTION.def")
#include "tessera/tuned_ATTENTION.def"
#endif
    ;
#undef TSR_TUNED

// A token whose cached positions are one chunk, with q and y where they lie: a tile a
// round of ac query heads (the plan's: it reserved buffers for as many), each of the round's
// KV heads gathered into the buffers of the round's first head that reads it (keys and
// values at once), then the cores compute head round ac + j over them, core c the heads
// j = c, c + cores, ... (through the variant's rows kernel, a row of one, where it has one):
// a run on fewer cores than the plan's moves its heads in as few transfers. A variant whose
// kernels read a stride apart at no cost reads a row-major cache's round as one block
// instead: the round's KV heads' columns of positions 0..pos, keys then values (each in
// the half of the buffers it would have had a head at a time), one 2D transfer each, its
// head a column of the block. Several: the run has fewer cores than a round has heads;
// Block: the round as one block. Each an instantiation of its own, a function of its own, so
// that the plan's cores keep their one head's code and the other variants theirs.
template <bool Several, bool Block> __attribute__((noinline)) void run_token(StepRun &r, const Shape &a, uint32_t ac)
{
    const AttentionVariant &v = variant_row<TSR_OP_ATTENTION>(r.resolved.variant);
    const Scratch sx = v.scratch(a);
    const uint32_t e = act_bytes(r.step), head = a.hs * e, n = r.pos + 1u; // the positions it sees
    const uint8_t *tables = tables_of(r);
    uint8_t *const tables_l1 = tables_copy(r, sx, tables);
    const bool head_major = S(r.step).kv_layout == TSR_LAYOUT_KV_HEAD_MAJOR;
    uint32_t group_log2 = 0; // a query head's KV head by a shift where the group is a power of two
    while (group_log2 < 31u && (1u << group_log2) < a.group) ++group_log2;
    const bool group_pow2 = (1u << group_log2) == a.group;
    auto kv_head = [&](uint32_t h) { return group_pow2 ? h >> group_log2 : quotient(h, a.group); };
    auto cache = [&](uint32_t pass, uint32_t kvh) {
        return r.addr[1 + pass] + (head_major ? (size_t)kvh * a.ctx * head : (size_t)kvh * head);
    };
    auto buffer = [&](uint32_t j, uint32_t pass) {
        return r.stage[1] + (size_t)(2u * j + pass) * r.resolved.slot_bytes[1];
    };
    // A round as one block: its KV heads kvh0.. (span of them), a position's row of them
    // `span head` bytes, in ac buffers' room (span <= ac, n <= the chunk).
    constexpr bool block = Block; // run(): v.kv_stride_free, a row-major cache, staged
    auto block_of = [&](uint32_t pass) { return r.stage[1] + (size_t)pass * ac * r.resolved.slot_bytes[1]; };
    auto round_kv = [&](uint32_t t, uint32_t *span) {
        const uint32_t h0 = t * ac, h_last = (a.nh - h0 < ac ? a.nh : h0 + ac) - 1u, kvh0 = kv_head(h0);
        *span = kv_head(h_last) - kvh0 + 1u;
        return kvh0;
    };
    uint32_t block_kvh = 0xFFFFFFFFu; // the KV heads the block holds (a round of the group before's)
    // The core of round t whose buffers hold KV head kvh: its first query head's, or core 0's.
    auto holder = [&](uint32_t t, uint32_t kvh) {
        const uint32_t first = kvh * a.group, h0 = t * ac;
        return first > h0 ? first - h0 : 0u;
    };
    // The KV head each of the first holders' buffers holds (a round of fewer cores than a
    // group's heads reads the round before's again).
    constexpr uint32_t kHeld = 8;
    uint32_t held[kHeld];
    for (uint32_t j = 0; j < kHeld; ++j) held[j] = 0xFFFFFFFFu;
    auto in = [&](uint32_t t) {
        if (t == 0u && tables_l1) r.run.dma.copy(tables_l1, tables, sx.table_bytes);
        if (!r.stage[1]) return; // head-major, read in place
        if (block) {
            uint32_t span;
            const uint32_t kvh0 = round_kv(t, &span), row = span * head;
            if (kvh0 == block_kvh) return;
            block_kvh = kvh0;
            for (uint32_t pass = 0; pass < 2u; ++pass)
                r.run.dma.copy_2d(block_of(pass), row, cache(pass, kvh0), a.kv_dim * e, row, n);
            return;
        }
        const uint32_t h0 = t * ac, h_last = (a.nh - h0 < ac ? a.nh : h0 + ac) - 1u;
        // A row-major cache's heads in runs of consecutive KV heads whose holders lie a
        // group apart (each its group's first query head), keys then values, a run's heads
        // as the planes of one transfer each (Dma::copy_planes).
        struct Run {
            uint32_t j, kvh, count;
        } run = {0u, 0u, 0u};
        auto issue = [&] {
            for (uint32_t pass = 0; pass < 2u && run.count; ++pass) {
                uint8_t *to = buffer(run.j, pass);
                const uint8_t *from = cache(pass, run.kvh);
                if (run.count == 1u) r.run.dma.copy_2d(to, head, from, a.kv_dim * e, head, n);
                else r.run.dma.copy_planes(tsr_dma_planes{to, from, head, a.kv_dim * e, head, n,
                                                          a.group * 2u * r.resolved.slot_bytes[1], head, run.count});
            }
            run.count = 0u;
        };
        for (uint32_t kvh = kv_head(h0), end = kv_head(h_last); kvh <= end; ++kvh) {
            const uint32_t j = holder(t, kvh);
            if (j < kHeld) {
                if (held[j] == kvh) continue;
                held[j] = kvh;
            }
            if (head_major) {
                for (uint32_t pass = 0; pass < 2u; ++pass) r.run.dma.gather(buffer(j, pass), cache(pass, kvh), n * head);
            } else if (run.count && kvh == run.kvh + run.count && j == run.j + run.count * a.group) {
                ++run.count;
            } else {
                issue();
                run = Run{j, kvh, 1u};
            }
        }
        issue();
    };
    // Core c computes the round's heads c, c + cores, ...: one each where the run has a core
    // for every head of a round (the plan's), several where it has fewer.
    auto compute_head = [&](uint32_t t, uint32_t j) {
        const uint32_t h = t * ac + j;
        if (j >= ac || h >= a.nh) return;
        const uint32_t kvh = kv_head(h);
        uint8_t *mine = r.stage[3] + (size_t)r.core * r.resolved.slot_bytes[3]; // its own scratch
        const uint8_t *keys, *values;
        uint32_t kv_stride = 0u; // one after the other
        if (block) {
            uint32_t span;
            const size_t column = (size_t)(kvh - round_kv(t, &span)) * head;
            kv_stride = span * head;
            keys = block_of(0u) + column, values = block_of(1u) + column;
            r.check(keys, (uint64_t)(n - 1u) * kv_stride + head, 1);
            r.check(values, (uint64_t)(n - 1u) * kv_stride + head, 2);
        } else {
            keys = r.stage[1] ? buffer(holder(t, kvh), 0u) : cache(0u, kvh);
            values = r.stage[1] ? buffer(holder(t, kvh), 1u) : cache(1u, kvh);
            r.check(keys, (uint64_t)n * head, 1);
            r.check(values, (uint64_t)n * head, 2);
        }
        uint8_t *q = r.addr[0] + (size_t)h * head, *y = r.addr[4] + (size_t)h * head;
        r.check(mine, sx.bytes, 3);
        r.check(q, head, 0);
        r.check(y, head, 4);
        const uint8_t *const tabs = tables_l1 ? tables_l1 : tables;
        tsr_kernel_status st;
        if (v.rows) { // a row of one
            st = v.rows(r.step, RowsArgs{q, keys, values, y, mine, tabs, 1u, n, head, r.pos, 0u, kv_stride});
        } else {
            st = v.score(r.step, ScoreArgs{q, keys, mine, sx, 0u, n, n, true, y, r.resolved.zero, r.pos, tabs, kv_stride});
            if (st == TSR_KERNEL_OK)
                st = v.accumulate(r.step,
                                  AccumulateArgs{values, mine, sx, 0u, n, true, y, r.resolved.zero, tabs, kv_stride});
        }
        r.kernel(st);
    };
    auto compute = [&](uint32_t t) {
        if constexpr (Several)
            for (uint32_t j = r.core; j < ac; j += r.cores) compute_head(t, j);
        else
            compute_head(t, r.core);
    };
    r.tiles_in_turn(ceil_div(a.nh, ac), in, compute, [](uint32_t) {}); // y in place
}

void run(StepRun &r)
{
    const Shape a = sizes_of(r.step);
    const uint32_t tc = r.step.tile[0], ac = r.step.tile[1] < r.cores ? r.step.tile[1] : r.cores;
    if (r.pos + r.rows <= tc && !r.stage[0] && !r.stage[4]) { // one chunk, q and y in place
        if (r.rows > 1u) return run_by_kv_head(r, a, ac);
        const bool several = r.step.tile[1] > r.cores; // a round: the plan's heads
        if constexpr (kAnyKvStrideFree)
            if (variant_row<TSR_OP_ATTENTION>(r.resolved.variant).kv_stride_free &&
                S(r.step).kv_layout != TSR_LAYOUT_KV_HEAD_MAJOR && r.stage[1])
                return several ? run_token<true, true>(r, a, r.step.tile[1]) : run_token<false, true>(r, a, ac);
        return several ? run_token<true, false>(r, a, r.step.tile[1]) : run_token<false, false>(r, a, ac);
    }
    const uint32_t items = r.rows * a.nh, chunks = ceil_div(r.pos + r.rows, tc), rounds = ceil_div(items, ac);
    // A round whose positions are one chunk is one tile (fused): its keys and values
    // gathered at once, each into a buffer of its own (a core's two), then every core scores
    // and accumulates its item; the tiles go in turn. Otherwise a round is two passes
    // (keys, then values) of chunks, a tile each, the next one's gather under this one's
    // compute.
    const bool fused = chunks == 1u;
    const uint32_t tiles = fused ? rounds : rounds * 2u * chunks, e = act_bytes(r.step), head = a.hs * e;
    const AttentionVariant &v = variant_row<TSR_OP_ATTENTION>(r.resolved.variant);
    const Scratch sx = v.scratch(a);
    const uint8_t *tables = tables_of(r);
    uint8_t *const tables_l1 = tables_copy(r, sx, tables);
    // The items in head-major order, item i (head i / rows, row i % rows): the cores of a
    // round take rows of one head (or of a few), which read the same keys and values, and a
    // core's next round the same head's next rows. A chunk is then gathered once a round and
    // KV head, not once a core, and a buffer that already holds it (the round before
    // gathered it) is not copied again. With one row (a token) item i is head i.
    const Divider per_head(r.rows), per_chunks(chunks);
    // Tile t: round, pass (0 keys, 1 values) and chunk, and the round's first item.
    struct Tile {
        uint32_t round, pass, chunk;
        bool last_of_round;
        uint32_t head0, row0;
    };
    // Core 0 decodes every core's tile and item once a tile (Divider: no division there; a
    // token's single chunk and single row need no multiplication either).
    auto tile = [&](uint32_t t) {
        const uint32_t q = fused ? 2u * t : per_chunks(t), chunk = t - q * chunks, round = q >> 1, i0 = round * ac;
        const uint32_t head0 = per_head(i0);
        return Tile{round, q & 1u, fused ? 0u : chunk, fused || ((q & 1u) == 1u && chunk + 1u == chunks), head0,
                    i0 - head0 * r.rows};
    };
    // Core j's item in a round: its row and head, its cached positions 0..last, and
    // the part of them in this tile's chunk (count positions from first).
    struct Item {
        bool exists, live;
        uint32_t row, head, last, first, count;
    };
    auto item = [&](const Tile &x, uint32_t j) {
        Item it = {};
        const uint32_t i = x.round * ac + j;
        if (j >= ac || i >= items) return it;
        it.exists = true;
        it.head = x.head0;
        it.row = x.row0 + j;
        if (r.rows == 1u) it.head += j, it.row = 0u;
        else
            while (it.row >= r.rows) it.row -= r.rows, ++it.head; // (j < ac <= 8 rows on)
        it.last = v.sees_chunk ? r.pos + r.rows - 1u : r.pos + it.row;
        it.first = x.chunk * tc;
        if (it.first > it.last) return it;
        it.count = it.last + 1u - it.first < tc ? it.last + 1u - it.first : tc;
        it.live = true;
        return it;
    };
    // Core j's buffer of a tile: the keys' (parity 0) or the values' (1) of a fused round;
    // else the tile's parity (t % 2), the other one's the next tile's.
    auto kv_buffer = [&](uint32_t j, uint32_t parity) {
        return r.stage[1] + (size_t)(2u * j + parity) * r.resolved.slot_bytes[1];
    };
    // A query head's KV head, by a shift where the group is a power of two (core 0 decodes
    // every item of a tile; a division costs RV32 cores up to 35 cycles).
    uint32_t group_log2 = 0;
    while (group_log2 < 31u && (1u << group_log2) < a.group) ++group_log2;
    const bool group_pow2 = (1u << group_log2) == a.group;
    auto kv_head = [&](uint32_t head) { return group_pow2 ? head >> group_log2 : quotient(head, a.group); };
    // The core that gathers an item's chunk (staged caches): the round's first whose item
    // has the same KV head; the others read its buffer. It gathers the positions of the
    // chunk the step's last row sees (every row of the round sees a part of them).
    auto gatherer = [&](const Tile &x, uint32_t kvh) {
        const uint32_t first_item = kvh * a.group * r.rows, i0 = x.round * ac;
        return first_item > i0 ? first_item - i0 : 0u;
    };
    const uint32_t last_seen = r.pos + r.rows - 1u; // by the last row, whichever the variant
    auto gathered = [&](const Tile &x) {
        const uint32_t first = x.chunk * tc;
        return first > last_seen ? 0u : last_seen + 1u - first < tc ? last_seen + 1u - first : tc;
    };
    // Where an item's chunk starts in the cache of a pass: its KV head's columns of row
    // `first` (row-major), or that head's block's row `first` (head-major).
    const bool head_major = S(r.step).kv_layout == TSR_LAYOUT_KV_HEAD_MAJOR;
    auto chunk_at = [&](uint32_t pass, size_t kvh, uint32_t first) {
        return r.addr[1 + pass] + (head_major ? (kvh * a.ctx + first) * head : (size_t)first * a.kv_dim * e + kvh * head);
    };
    auto chunk_of = [&](uint32_t pass, const Item &it) { return chunk_at(pass, kv_head(it.head), it.first); };
    // What each buffer of the gathering cores holds (the cache rows copied there).
    struct Held {
        const uint8_t *from;
        uint32_t count;
    };
    constexpr uint32_t kHeldCores = 8;
    Held held[2 * kHeldCores]; // entry i valid where bit i of `known` is set: no clearing on every core
    uint32_t known = 0;
    auto head_offset = [&](const Item &it) { return ((size_t)it.row * a.dim + (size_t)it.head * a.hs) * e; };
    auto head_of = [&](uint32_t k, const Item &it, uint32_t round, uint32_t j) { // q or y: staged, or in place
        return r.stage[k] ? r.stage[k] + (size_t)(2u * j + round % 2u) * head : r.addr[k] + head_offset(it);
    };
    // A pass's chunk for the round of tile x into the buffers of a parity: the round's KV
    // heads, from its first item's to its last's, each by the core of its first item in the
    // round (gatherer), unless that buffer holds it already.
    auto gather = [&](const Tile &x, uint32_t pass, uint32_t parity, uint32_t count) {
        const uint32_t i0 = x.round * ac, last = (items - i0 < ac ? items : i0 + ac) - 1u;
        for (uint32_t kvh = kv_head(x.head0), kv_end = kv_head(per_head(last)); kvh <= kv_end; ++kvh) {
            const uint32_t j = gatherer(x, kvh);
            const uint8_t *cache = chunk_at(pass, kvh, x.chunk * tc);
            if (j < kHeldCores) {
                const uint32_t slot = 2u * j + parity;
                Held &h = held[slot];
                if (((known >> slot) & 1u) && h.from == cache && h.count == count) continue;
                h = Held{cache, count};
                known |= 1u << slot;
            }
            if (head_major) r.run.dma.gather(kv_buffer(j, parity), cache, count * head); // the round's heads: one transfer
            else r.run.dma.copy_2d(kv_buffer(j, parity), head, cache, a.kv_dim * e, head, count); // the head's columns
        }
    };
    auto in = [&](uint32_t t) __attribute__((always_inline)) { // called twice in tiles(): kept in line
        const Tile x = tile(t);
        if (t == 0u && tables_l1) r.run.dma.copy(tables_l1, tables, sx.table_bytes);
        if (x.pass == 0u && x.chunk == 0u && r.stage[0])
            for (uint32_t j = 0; j < ac; ++j) {
                const Item it = item(x, j);
                if (it.exists) r.run.dma.gather(head_of(0, it, x.round, j), r.addr[0] + head_offset(it), head);
            }
        if (!r.stage[1]) return; // head-major, read in place
        const uint32_t count = gathered(x);
        if (!count) return; // a chunk past every row's positions
        if (fused) {
            gather(x, 0u, 0u, count);
            gather(x, 1u, 1u, count);
        } else {
            gather(x, x.pass, t % 2u, count);
        }
    };
    auto compute = [&](uint32_t t) {
        const Tile x = tile(t);
        const Item it = item(x, r.core);
        if (!it.live) return;
        uint8_t *mine = r.stage[3] + (size_t)r.core * r.resolved.slot_bytes[3];
        uint8_t *q = head_of(0, it, x.round, r.core), *y = head_of(4, it, x.round, r.core);
        const uint32_t n = it.last + 1u; // positions of the row's softmax
        const bool last_chunk = it.first + it.count == n;
        const uint8_t *const tabs = tables_l1 ? tables_l1 : tables;
        r.check(mine, sx.bytes, 3);
        for (uint32_t pass = fused ? 0u : x.pass, end = fused ? 2u : x.pass + 1u; pass < end; ++pass) {
            const uint8_t *kv = r.stage[1] ? kv_buffer(gatherer(x, kv_head(it.head)), fused ? pass : t % 2u) : chunk_of(pass, it);
            r.check(kv, (uint64_t)it.count * head, 1 + pass);
            r.check(pass ? y : q, head, pass ? 4 : 0);
            const tsr_kernel_status st =
                pass == 0u ? v.score(r.step, ScoreArgs{q, kv, mine, sx, it.first, it.count, n, last_chunk, y,
                                                       r.resolved.zero, r.pos + it.row, tabs})
                           : v.accumulate(r.step, AccumulateArgs{kv, mine, sx, it.first, it.count, last_chunk, y,
                                                                 r.resolved.zero, tabs});
            r.kernel(st);
            if (st != TSR_KERNEL_OK) return;
        }
    };
    auto out = [&](uint32_t t) {
        const Tile x = tile(t);
        if (!x.last_of_round || !r.stage[4]) return;
        for (uint32_t j = 0; j < ac; ++j) {
            const Item it = item(x, j);
            if (it.exists) r.run.dma.gather(r.addr[4] + head_offset(it), head_of(4, it, x.round, j), head);
        }
    };
    if (fused) r.tiles_in_turn(tiles, in, compute, out);
    else r.tiles(tiles, in, compute, out);
}

} // namespace

// The variants it registers (tessera/variants.def).
TSR_REGISTER_VARIANT(ATTENTION_F32, nullptr,
                     AttentionVariant{score_f32<tsr_attention_scores_f32, tsr_softmax_f32>,
                                      accumulate_f32<tsr_attention_accumulate_f32>, scratch_f32, false})
TSR_REGISTER_VARIANT(ATTENTION_BF16, nullptr, AttentionVariant{score_bf16<TSR_EXP_ACCURATE>, accumulate_bf16, scratch_bf16, false})
TSR_REGISTER_VARIANT(ATTENTION_BF16_SCHRAUDOLPH, nullptr,
                     AttentionVariant{score_bf16<TSR_EXP_SCHRAUDOLPH>, accumulate_bf16, scratch_bf16, false})
TSR_REGISTER_VARIANT(ATTENTION_I8, check_i8,
                     AttentionVariant{score_i8<tsr_attention_scores_i8, tsr_softmax_i8>,
                                      accumulate_i8<tsr_attention_accumulate_i8>, scratch_integer, false, nullptr, false,
                                      true})
// The tuned kernel sets' (kernels/<set>/tuned_variants.def): the portable kernels' names
// with the set's suffix.
#define TSR_TUNED_ATTENTION_F32(SET, sfx)                                                                              \
    TSR_REGISTER_TUNED_VARIANT(SET, ATTENTION_F32, nullptr,                                                            \
                               AttentionVariant{score_f32<tsr_attention_scores_f32_##sfx, tsr_softmax_f32_##sfx>,       \
                                                accumulate_f32<tsr_attention_accumulate_f32_##sfx>, scratch_f32, false})
#define TSR_TUNED_ATTENTION_I8(SET, sfx)                                                                               \
    TSR_REGISTER_TUNED_VARIANT(SET, ATTENTION_I8, check_i8,                                                        \
                               AttentionVariant{score_i8<tsr_attention_scores_i8_##sfx, tsr_softmax_i8_##sfx>,     \
                                                accumulate_i8<tsr_attention_accumulate_i8_##sfx>, scratch_integer, false, \
                                                nullptr, TSR_ATTENTION_KV_STRIDE_FREE_##sfx != 0,                \
                                                TSR_SOFTMAX_I8_READS_TABLE_##sfx != 0})
#define TSR_TUNED_ATTENTION_I8_QUANTLIB(SET, sfx)                                                                      \
    TSR_REGISTER_TUNED_VARIANT(SET, ATTENTION_I8_QUANTLIB, check_quantlib,                                         \
                               AttentionVariant{score_quantlib<tsr_quantlib_scores_##sfx, tsr_quantlib_softmax_##sfx>, \
                                                accumulate_quantlib<tsr_quantlib_accumulate_##sfx>, scratch_quantlib, true, \
                                                rows_quantlib<tsr_quantlib_rows_##sfx>,                          \
                                                TSR_ATTENTION_KV_STRIDE_FREE_##sfx != 0})
#define TSR_TUNED TSR_TUNED_ROW
#if __has_include("tessera/tuned_ATTENTION.def")
#include "tessera/tuned_ATTENTION.def"
#endif
#undef TSR_TUNED
TSR_REGISTER_VARIANT(ATTENTION_I8_FLOAT, check_i8_float,
                     AttentionVariant{score_i8_float, accumulate_i8_float, scratch_i8_float, false})
TSR_REGISTER_VARIANT(ATTENTION_I8_QUANTLIB, check_quantlib,
                     AttentionVariant{score_quantlib<tsr_quantlib_scores, tsr_quantlib_softmax>,
                                      accumulate_quantlib<tsr_quantlib_accumulate>, scratch_quantlib, true,
                                      rows_quantlib<tsr_quantlib_rows>})

extern const OpDevice op_ATTENTION = {validate, geometry, run, false, facts, nullptr, nullptr, nullptr, model_shape};

} // namespace tsr
