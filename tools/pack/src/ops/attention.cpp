// attention on the host: chunks of cached positions (every halving of the context)
// and cores sharing the heads (every halving of the cluster: fewer cores, less scratch,
// more rounds). Its traffic depends on the run's position: the plan assumes half the
// context cached.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "shapes.h"
#include "tessera/variants.h"
#include "int8_params.h"
#include "tessera/kernels.h"
#include "tessera/kernels_i8.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

std::vector<Tile> candidates(const StepShape &s)
{
    std::vector<Tile> out;
    for (uint32_t tc : halvings(s.step.params.attention.context))
        for (uint32_t ac : halvings(s.cores)) out.push_back({tc, ac, 0});
    return out;
}

TileCost cost(const StepShape &s, const Tile &tile, const OperandsInL1 &in_l1)
{
    const tsr_attention_attrs &p = s.step.params.attention;
    const uint64_t nh = p.n_heads, hs = p.head_size, ctx = p.context, R = s.rows, heads = R * nh;
    const uint64_t keys = ctx / 2 + 1, chunks = (keys + tile[0] - 1) / tile[0], e = tsr_dtype_bytes(s.step.dtype);
    TileCost c;
    c.dma_bytes = 2 * heads * keys * hs * e; // keys and values of every (row, head)
    c.dma_transfers = 2 * heads * chunks;
    for (size_t k : {0u, 4u}) // q and y, a head at a time, when not in L1
        if (!in_l1[k]) {
            c.dma_bytes += heads * hs * e;
            c.dma_transfers += heads;
        }
    c.tiles = (heads + tile[1] - 1) / tile[1] * 2 * chunks; // fewer cores: more rounds
    // The work itself (scores and weighted sums, two cycles a multiply-add), spread
    // over the cores that share it: fewer cores save scratch, not time.
    c.compute_cycles = 2.0 * double(2 * heads * keys * hs) / double(tile[1]);
    return c;
}

// Also records the scores' range ("<label>.scores"): the int8 softmax's input scale.
void evaluate(const GraphStep &s, Evaluation &e)
{
    const tsr_attention_attrs &p = s.params.attention;
    const uint32_t hs = p.head_size, kv_dim = p.n_kv_heads * hs, n = e.pos() + 1, group = p.n_heads / p.n_kv_heads;
    const float *q = e.values(s.operands[0]), *kc = e.values(s.operands[1]), *vc = e.values(s.operands[2]);
    float *y = e.values(s.operands[4]);
    std::vector<float> scores(n), keys(size_t(n) * hs);
    for (uint32_t h = 0; h < p.n_heads; ++h) {
        const uint32_t kvh = h / group;
        for (uint32_t t = 0; t < n; ++t) std::copy_n(kc + size_t(t) * kv_dim + kvh * hs, hs, keys.data() + size_t(t) * hs);
        tsr_attention_scores_f32(q + size_t(h) * hs, keys.data(), scores.data(), n, hs, 0, 1);
        e.record(s.label + ".scores", scores.data(), n);
        const uint32_t first = tsr_attention_window_first(n, p.window); // a local window's
        tsr_softmax_f32(scores.data() + first, n - first);
        std::fill_n(scores.data(), first, 0.0f);
        for (uint32_t t = 0; t < n; ++t) std::copy_n(vc + size_t(t) * kv_dim + kvh * hs, hs, keys.data() + size_t(t) * hs);
        std::fill_n(y + size_t(h) * hs, hs, 0.0f);
        tsr_attention_accumulate_f32(scores.data(), keys.data(), y + size_t(h) * hs, n, hs, 0, 1);
    }
}

// Scores and weighted sums over the cached positions every (row, head) reads, the
// softmax's exponentials; the keys and values of every head stream from the KV cache.
// Row i of a run from `pos` reads pos + i + 1 positions (pos + (rows + 1) / 2 on
// average); with QuantLib's arithmetic every row reads the whole chunk, pos + rows (the
// later rows' positions masked, as Deeploy's graphs apply their causal mask). Its
// calls are the runtime's passes (runtime/src/ops/attention.cpp): rounds of (row, head)
// items over the cores (at most tile[1]; a token of one chunk: tile[1], its cores taking
// several where the run has fewer), keys then values, chunk by chunk (a round whose
// positions are one chunk is one tile of both passes). A round's chunk is gathered once for its cores
// whose items share a KV head, the positions the last row sees, and kept for the next
// round of the same head: a token gathers each KV head's once a pass and chunk; a
// prompt about twice where the chunk is the whole context, else once a round. A prompt
// whose positions are one chunk, with q and y not staged, is a tile a KV head instead,
// its keys and values gathered once; its calls are its (row, head) items, each a call of the
// kernels with a softmax of its own (as tiles, a microLlama8_parallel on 8 cores was
// predicted 10.9 % short: 128 items, 16 tiles).
Work work(const tsr_step &s, uint32_t rows, uint32_t pos, uint32_t cores)
{
    const tsr_attention_shape &p = tsr_params_as<tsr_attention_shape>(s);
    const double heads = double(rows) * p.n_heads, e = tsr_dtype_bytes(s.dtype);
    const bool whole_chunk = s.variant == TSR_VARIANT_ATTENTION_I8_QUANTLIB;
    const double kv = whole_chunk ? double(pos) + rows : double(pos) + (rows + 1) / 2;
    const uint64_t tc = std::max<uint32_t>(s.tile[0], 1u), chunks = (uint64_t(pos) + rows + tc - 1) / tc;
    auto staged = [&](uint32_t k) { return s.staging[k] != TSR_NO_TENSOR ? 1.0 : 0.0; };
    // A token of one chunk, q and y in place: rounds of the plan's heads, whatever the cores.
    const bool token_round = rows == 1u && chunks == 1u && !staged(0) && !staged(4);
    const uint64_t ac = std::max(1u, token_round ? s.tile[1] : std::min<uint32_t>(s.tile[1], cores));
    const uint64_t rounds = (uint64_t(rows) * p.n_heads + ac - 1) / ac;
    const double nkv = std::max(1u, p.n_kv_heads), seen = double(pos) + rows; // positions a gather holds, all chunks
    if (rows > 1u && chunks == 1u && !staged(0) && !staged(4)) // a tile a KV head
        return Work{2.0 * heads * kv * p.head_size, heads * kv, staged(1) * 2.0 * nkv * seen * p.head_size * e, heads,
                    staged(1) * 2.0 * nkv};
    const double gathers = rows == 1u ? nkv : chunks == 1u ? std::min(double(rounds), 2.0 * nkv) : double(rounds);
    // Transfers: a gather a KV head (or round) and pass in each chunk, where the caches are
    // staged (not read in place); the queries in and the outputs out where staged, a
    // transfer a round each (the runtime's merged gathers).
    const double transfers = staged(1) * 2.0 * gathers * double(rows == 1u ? chunks : 1u) +
                             (staged(0) + staged(4)) * double(rounds);
    return Work{2.0 * heads * kv * p.head_size, heads * kv, 2.0 * gathers * seen * p.head_size * e + 2.0 * heads * p.head_size * e,
                double(rounds * 2 * chunks), transfers};
}

// int8: the scores' real factor scale_q scale_k / sqrt(head_size); operands q, the K
// and V caches, the output (4).
double score_factor(const GraphStep &s, const Graph &g)
{
    return operand_scale(g, s, 0) * operand_scale(g, s, 1) / std::sqrt(double(s.params.attention.head_size));
}

// int8, integer arithmetic: the scores requantized to their own scale (inner_scale),
// the integer exponential for it, the output factor (probabilities in Q12).
void derive_i8(GraphStep &s, Graph &g)
{
    tsr_attention_attrs &p = s.params.attention;
    const double ss = s.inner_scale;
    if (!(ss > 0)) throw std::logic_error(s.label + ": integer attention needs its scores' scale");
    p.scores = requant_factor(score_factor(s, g) / ss, s.label + " scores");
    p.softmax = iexp_params(ss, s.label + " scores");
    p.out = requant_factor(operand_scale(g, s, 2) / (4096.0 * operand_scale(g, s, 4)), s.label + " output");
    const tsr_iexp_constants k = iexp_constants(p.softmax);
    std::vector<uint32_t> exps(TSR_SOFTMAX_I8_EXP_ENTRIES);
    if (tsr_softmax_i8_exp_table(&k, exps.data()) != TSR_KERNEL_OK)
        throw std::logic_error(s.label + ": no table of exponentials for its scores' constants");
    p.exps = add_constant_row(g, s.label + ".exps", TSR_DTYPE_I32, exps);
}

// int8, float arithmetic: the scores' real factor and the output factor.
void derive_i8_float(GraphStep &s, Graph &g)
{
    s.params.attention.score_scale = float(score_factor(s, g));
    s.params.attention.out_scale = float(operand_scale(g, s, 2) / operand_scale(g, s, 4));
}

// Each struct begins with the shape (TSR_ATTENTION_SHAPE).
#define TSR_ATTENTION_SHAPE_OF(a) a.n_heads, a.n_kv_heads, a.head_size, a.context, a.kv_layout, a.window
template <unsigned V> void encode_float(const GraphStep &s, tsr_param_record &out)
{
    put_params<V>(out, {TSR_ATTENTION_SHAPE_OF(s.params.attention)});
}
void encode_i8(const GraphStep &s, tsr_param_record &out)
{
    const tsr_attention_attrs &a = s.params.attention;
    put_params<TSR_VARIANT_ATTENTION_I8>(out, {TSR_ATTENTION_SHAPE_OF(a), a.scores, a.softmax, a.out, a.exps});
}
void encode_i8_float(const GraphStep &s, tsr_param_record &out)
{
    const tsr_attention_attrs &a = s.params.attention;
    put_params<TSR_VARIANT_ATTENTION_I8_FLOAT>(out, {TSR_ATTENTION_SHAPE_OF(a), a.score_scale, a.out_scale});
}
void encode_quantlib(const GraphStep &s, tsr_param_record &out)
{
    const tsr_attention_attrs &a = s.params.attention;
    put_params<TSR_VARIANT_ATTENTION_I8_QUANTLIB>(out, {TSR_ATTENTION_SHAPE_OF(a), a.tables});
}
#undef TSR_ATTENTION_SHAPE_OF

const HostVariant kVariants[] = {{TSR_VARIANT_ATTENTION_F32, encode_float<TSR_VARIANT_ATTENTION_F32>},
                                 {TSR_VARIANT_ATTENTION_BF16, encode_float<TSR_VARIANT_ATTENTION_BF16>},
                                 {TSR_VARIANT_ATTENTION_BF16_SCHRAUDOLPH, encode_float<TSR_VARIANT_ATTENTION_BF16_SCHRAUDOLPH>},
                                 {TSR_VARIANT_ATTENTION_I8, encode_i8, derive_i8},
                                 {TSR_VARIANT_ATTENTION_I8_FLOAT, encode_i8_float, derive_i8_float},
                                 {TSR_VARIANT_ATTENTION_I8_QUANTLIB, encode_quantlib}};

} // namespace

extern const OpHost op_host_ATTENTION = {candidates, cost, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
