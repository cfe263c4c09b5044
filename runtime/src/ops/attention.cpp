// ATTENTION in: q (rows x dim), k_cache, v_cache (context x kv_dim)   out: y (rows x dim)
//           scratch: operand 3, no tensor: a scores row per attention core, from the plan
//           params: n_heads, n_kv_heads, head_size, context
//           tiles: tile[0] cached positions per chunk, tile[1] cores sharing the heads
//
// Causal grouped-query attention over the KV cache. The work items are (row, head)
// pairs, spread over the attention cores (all of them: the items are coarse) in
// rounds: in a round, core j owns item
// round * cores + j, its own scores row and its own buffers. A round streams the keys
// of each core's head chunk by chunk (the DMA gathers the head's columns) and each
// core scores them; after its last chunk a core takes the softmax of its scores; then
// the values stream the same way and each core sums them into its head of y. q and y,
// when not in L1, are staged a head at a time, two buffers a core (one per round).
#include "op.h"

namespace tsr {
namespace {

struct Shape {
    uint32_t nh, nkv, hs, ctx, dim, kv_dim, group;
};
Shape shape_of(const tsr_step &s)
{
    const uint32_t *p = s.params;
    return Shape{p[0], p[1], p[2], p[3], p[0] * p[2], p[1] * p[2], p[1] ? p[0] / p[1] : 0u};
}

tessera_status validate(StepChecker &c)
{
    const Shape a = shape_of(c.step);
    if (!a.nh || !a.nkv || a.nh % a.nkv || !a.hs || a.ctx != c.h.context) return c.fail("heads or context do not fit");
    const uint64_t R = c.rows, cache = (uint64_t)a.ctx * a.nkv * a.hs * 4u, io = R * a.nh * a.hs * 4u;
    TSR_TRY(c.operand(0, TSR_DTYPE_F32, io, false));
    TSR_TRY(c.operand(1, TSR_DTYPE_F32, cache, false));
    TSR_TRY(c.operand(2, TSR_DTYPE_F32, cache, false));
    TSR_TRY(c.of_kind(1, TSR_TENSOR_KV_CACHE, "is not a KV cache"));
    TSR_TRY(c.of_kind(2, TSR_TENSOR_KV_CACHE, "is not a KV cache"));
    return c.operand(4, TSR_DTYPE_F32, io, true);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t cores)
{
    StepGeometry g = StepGeometry::none();
    const Shape a = shape_of(s);
    const uint32_t tc = s.tile[0], ac = s.tile[1];
    if (!tc || tc > a.ctx || !ac || ac > cores) return g;
    const uint32_t chunks = ceil_div(a.ctx, tc);
    const uint64_t heads = (uint64_t)rows * a.nh;
    g.tiles = (uint32_t)((heads + ac - 1u) / ac) * 2u * chunks;
    auto per_core = [&](uint32_t k, uint64_t bytes, OperandUse use) { // two buffers a core
        g.stream(k, bytes, 2u, use);
        g.operand[k].slots = 2u * ac;
    };
    per_core(0, a.hs * 4u, OperandUse::kStreamed);
    per_core(1, (uint64_t)tc * a.hs * 4u, OperandUse::kStaged); // keys, then values in the same buffers
    g.operand[2] = g.operand[1];
    g.operand[2].shares = 1u;
    g.operand[3] = OperandGeometry{OperandUse::kScratch, 3u, a.ctx * 4u, ac, 0u, 0u};
    per_core(4, a.hs * 4u, OperandUse::kStreamed);
    // Traffic with the whole context cached (the most a run moves).
    g.traffic(0, heads * a.hs * 4u, heads);
    g.traffic(1, heads * a.ctx * a.hs * 4u, heads * chunks);
    g.traffic(2, heads * a.ctx * a.hs * 4u, heads * chunks);
    g.traffic(4, heads * a.hs * 4u, heads);
    g.valid = true;
    return g;
}

void run(StepRun &r)
{
    const Shape a = shape_of(r.step);
    const uint32_t tc = r.step.tile[0], ac = r.step.tile[1] < r.cores ? r.step.tile[1] : r.cores;
    const uint32_t items = r.rows * a.nh, chunks = ceil_div(r.pos + r.rows, tc), rounds = ceil_div(items, ac);
    const uint32_t tiles = rounds * 2u * chunks, head = a.hs * 4u;
    // Tile t: round, pass (0 keys, 1 values) and chunk.
    struct Tile {
        uint32_t round, pass, chunk;
        bool last_of_round;
    };
    auto tile = [&](uint32_t t) {
        const Tile x{t / (2u * chunks), (t / chunks) % 2u, t % chunks, false};
        return Tile{x.round, x.pass, x.chunk, x.pass == 1u && x.chunk + 1u == chunks};
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
        it.row = i / a.nh;
        it.head = i % a.nh;
        it.last = r.pos + it.row;
        it.first = x.chunk * tc;
        if (it.first > it.last) return it;
        it.count = it.last + 1u - it.first < tc ? it.last + 1u - it.first : tc;
        it.live = true;
        return it;
    };
    auto kv_buffer = [&](uint32_t j, uint32_t t) { return r.stage[1] + (size_t)(2u * j + t % 2u) * r.resolved.slot_bytes[1]; };
    auto head_offset = [&](const Item &it) { return ((size_t)it.row * a.dim + (size_t)it.head * a.hs) * 4u; };
    auto head_of = [&](uint32_t k, const Item &it, uint32_t round, uint32_t j) { // q or y: staged, or in place
        return r.stage[k] ? r.stage[k] + (size_t)(2u * j + round % 2u) * head : r.addr[k] + head_offset(it);
    };
    r.tiles(
        tiles,
        [&](uint32_t t) {
            const Tile x = tile(t);
            for (uint32_t j = 0; j < ac; ++j) {
                const Item it = item(x, j);
                if (!it.exists) continue;
                if (x.pass == 0u && x.chunk == 0u && r.stage[0])
                    r.run.dma.copy(head_of(0, it, x.round, j), r.addr[0] + head_offset(it), head);
                if (!it.live) continue;
                const uint8_t *cache = r.addr[1 + x.pass] + (size_t)it.first * a.kv_dim * 4u +
                                       (size_t)(it.head / a.group) * head;
                r.run.dma.copy_2d(kv_buffer(j, t), head, cache, a.kv_dim * 4u, head, it.count); // the head's columns
            }
        },
        [&](uint32_t t) {
            const Tile x = tile(t);
            const Item it = item(x, r.core);
            if (!it.live) return;
            float *scores = (float *)r.stage[3] + (size_t)r.core * a.ctx;
            const float *kv = (const float *)kv_buffer(r.core, t);
            float *q = (float *)head_of(0, it, x.round, r.core), *y = (float *)head_of(4, it, x.round, r.core);
            r.check(kv, (uint64_t)it.count * head, 1 + x.pass);
            r.check(scores, (uint64_t)(it.last + 1u) * 4u, 3);
            r.check(x.pass ? y : q, head, x.pass ? 4 : 0);
            if (x.pass == 0u) {
                r.kernel(tsr_attention_scores_f32(q, kv, scores + it.first, it.count, a.hs, 0, 1));
                if (it.first + it.count == it.last + 1u) { // its last chunk: the weights, and a clean head of y
                    tsr_softmax_f32(scores, it.last + 1u);
                    for (uint32_t i = 0; i < a.hs; ++i) y[i] = 0.0f;
                }
            } else {
                r.kernel(tsr_attention_accumulate_f32(scores + it.first, kv, y, it.count, a.hs, 0, 1));
            }
        },
        [&](uint32_t t) {
            const Tile x = tile(t);
            if (!x.last_of_round || !r.stage[4]) return;
            for (uint32_t j = 0; j < ac; ++j) {
                const Item it = item(x, j);
                if (it.exists) r.run.dma.copy(r.addr[4] + head_offset(it), head_of(4, it, x.round, j), head);
            }
        });
}

} // namespace

extern const OpDevice op_ATTENTION = {validate, geometry, run};

} // namespace tsr
