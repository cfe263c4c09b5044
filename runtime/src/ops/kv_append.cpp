// KV_APPEND in: k (rows x kv_dim), v (rows x kv_dim)   inout: k_cache, v_cache (context x kv_dim)
//           params (tsr_kv_append_params): kv_dim, context; all of the step's element type
//           (I8: k and its cache share a scale, v and its cache)
//           data movement: the run's rows into the caches at its position; into each
//           head's block of a head-major cache (TSR_LAYOUT_KV_HEAD_MAJOR), a head at a time.
#include "op.h"

namespace tsr {
namespace {

tessera_status validate(StepChecker &c)
{
    const tsr_kv_append_params &p = tsr_params_as<tsr_kv_append_params>(c.step);
    const uint32_t T = c.step.dtype;
    const uint64_t R = c.rows, row = (uint64_t)p.kv_dim * act_bytes(c.step), cache = p.context * row;
    TSR_TRY(c.dtype_in(kAllTypes));
    if (!p.kv_dim) return c.fail("kv_dim is 0");
    // A run's positions are below the header's context: the caches hold every one.
    if (p.context < c.h.context) return c.fail("the KV caches hold fewer positions than the context");
    TSR_TRY(c.operand(0, T, R * row, false));
    TSR_TRY(c.operand(1, T, R * row, false));
    TSR_TRY(c.operand(2, T, cache, true));
    TSR_TRY(c.operand(3, T, cache, true));
    TSR_TRY(c.of_kind(2, TSR_TENSOR_KV_CACHE, "is not a KV cache"));
    TSR_TRY(c.of_kind(3, TSR_TENSOR_KV_CACHE, "is not a KV cache"));
    TSR_TRY(c.same_zero(0, 2)); // rows copied as they are
    TSR_TRY(c.same_zero(1, 3));
    const uint32_t layout = c.tensors[c.step.operands[2]].layout;
    if (c.tensors[c.step.operands[3]].layout != layout) return c.fail("keys' and values' caches in different layouts");
    if (layout != TSR_LAYOUT_ROW_MAJOR && p.kv_dim % c.h.n_kv_heads != 0u) // image_reader: whole heads
        return c.fail("kv_dim is not whole heads");
    return TESSERA_OK;
}

void run(StepRun &r)
{
    const tsr_kv_append_params &p = tsr_params_as<tsr_kv_append_params>(r.step);
    const uint32_t row = p.kv_dim * act_bytes(r.step), bytes = r.rows * row;
    if (r.run.img.tensors[r.step.operands[2]].layout == TSR_LAYOUT_KV_HEAD_MAJOR) { // validated: both caches
        const uint32_t heads = r.run.img.header->n_kv_heads, head = row / heads; // whole heads
        if (r.rows == 1u) { // the row's heads, each into its block: one 2D transfer a cache
            const size_t at = (size_t)r.pos * head; // pos < context: checked by the API
            r.run.dma.copy_2d(r.addr[2] + at, p.context * head, r.addr[0], head, head, heads);
            r.run.dma.copy_2d(r.addr[3] + at, p.context * head, r.addr[1], head, head, heads);
            return;
        }
        for (uint32_t h = 0; h < heads; ++h) {
            const size_t at = ((size_t)h * p.context + r.pos) * head; // pos + rows <= context: checked by the API
            r.run.dma.copy_2d(r.addr[2] + at, head, r.addr[0] + (size_t)h * head, row, head, r.rows);
            r.run.dma.copy_2d(r.addr[3] + at, head, r.addr[1] + (size_t)h * head, row, head, r.rows);
        }
        return;
    }
    const size_t at = (size_t)r.pos * row; // pos + rows <= context: checked by the API
    r.run.dma.copy(r.addr[2] + at, r.addr[0], bytes);
    r.run.dma.copy(r.addr[3] + at, r.addr[1], bytes);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t cores)
{
    StepGeometry g = move_geometry(s, rows, cores);
    const uint64_t bytes = (uint64_t)rows * tsr_params_as<tsr_kv_append_params>(s).kv_dim * act_bytes(s);
    g.traffic(2, bytes, 1u);
    g.traffic(3, bytes, 1u);
    return g;
}

} // namespace

// Its one variant: a move of bytes, for every element type.
extern "C" const tsr_variant_impl TSR_VARIANT_IMPL(KV_APPEND) = {TSR_VARIANT_KV_APPEND, 0u, nullptr, nullptr};

extern const OpDevice op_KV_APPEND = {validate, geometry, run, false, nullptr, nullptr, nullptr, nullptr};

} // namespace tsr
