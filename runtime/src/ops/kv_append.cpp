// KV_APPEND in: k (rows x kv_dim), v (rows x kv_dim)   inout: k_cache, v_cache (context x kv_dim)
//           params: kv_dim, context   data movement: the run's rows into the caches at its position.
#include "op.h"

namespace tsr {
namespace {

tessera_status validate(StepChecker &c)
{
    const uint32_t *p = c.step.params;
    const uint64_t R = c.rows, cache = (uint64_t)p[1] * p[0] * 4u;
    if (!p[0] || p[1] != c.h.context) return c.fail("kv_dim is 0 or context does not match");
    TSR_TRY(c.operand(0, TSR_DTYPE_F32, R * p[0] * 4u, false));
    TSR_TRY(c.operand(1, TSR_DTYPE_F32, R * p[0] * 4u, false));
    TSR_TRY(c.operand(2, TSR_DTYPE_F32, cache, true));
    TSR_TRY(c.operand(3, TSR_DTYPE_F32, cache, true));
    TSR_TRY(c.of_kind(2, TSR_TENSOR_KV_CACHE, "is not a KV cache"));
    return c.of_kind(3, TSR_TENSOR_KV_CACHE, "is not a KV cache");
}

void run(StepRun &r)
{
    const uint32_t bytes = r.rows * r.step.params[0] * 4u;
    const size_t at = (size_t)r.pos * r.step.params[0] * 4u; // pos + rows <= context: checked by the API
    r.run.dma.copy(r.addr[2] + at, r.addr[0], bytes);
    r.run.dma.copy(r.addr[3] + at, r.addr[1], bytes);
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t cores)
{
    StepGeometry g = move_geometry(s, rows, cores);
    g.traffic(2, (uint64_t)rows * s.params[0] * 4u, 1u);
    g.traffic(3, (uint64_t)rows * s.params[0] * 4u, 1u);
    return g;
}

} // namespace

extern const OpDevice op_KV_APPEND = {validate, geometry, run};

} // namespace tsr
