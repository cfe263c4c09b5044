#include "executor.h"

#include <string.h>

#include "tessera/kernels.h"

namespace tsr {
namespace {

// Everything one step needs, resolved once on the controller and read by all cores.
struct StepCall {
    const tsr_step *step;
    uint8_t *operand[TSR_MAX_OPERANDS];
    uint32_t rows;
    uint32_t pos;
    uint32_t failed; // set (atomically) by any core whose kernel refused its arguments
};

float param_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

void run_step_on_core(void *arg, uint32_t core, uint32_t cores)
{
    StepCall &c = *static_cast<StepCall *>(arg);
    const uint32_t *p = c.step->params;
    uint8_t *const *o = c.operand;
    auto f = [&](int i) { return reinterpret_cast<float *>(o[i]); };
    tsr_kernel_status st = TSR_KERNEL_OK;
    switch (c.step->op) {
    case TSR_OP_EMBED:
        st = tsr_embed_f32(reinterpret_cast<const int32_t *>(o[0]), f(1), f(2), c.rows, p[1], core, cores);
        break;
    case TSR_OP_RMSNORM:
        st = tsr_rmsnorm_f32(f(0), f(1), f(2), c.rows, p[0], param_float(p[1]), core, cores);
        break;
    case TSR_OP_MATMUL:
        st = tsr_matmul_f32(f(0), f(1), f(2), c.rows, p[0], p[1], core, cores);
        break;
    case TSR_OP_ROPE:
        st = tsr_rope_f32(f(0), f(1), f(2), c.rows, c.pos, p[0], p[1], p[2], core, cores);
        break;
    case TSR_OP_ATTENTION:
        st = tsr_attention_f32(f(0), f(1), f(2), f(3), f(4), c.rows, c.pos, p[0], p[1], p[2], p[3], core, cores);
        break;
    case TSR_OP_ADD:
        st = tsr_add_f32(f(0), f(1), f(2), c.rows * p[0], core, cores);
        break;
    case TSR_OP_SWIGLU:
        st = tsr_swiglu_f32(f(0), f(1), f(2), c.rows * p[0], core, cores);
        break;
    default:
        st = TSR_KERNEL_BAD_ARGUMENT;
        break;
    }
    if (st != TSR_KERNEL_OK) __atomic_store_n(&c.failed, 1u, __ATOMIC_RELAXED);
}

// KV_APPEND is data movement: the DMA engine copies the new rows into the caches.
tessera_status kv_append(const tsr_hal_board *board, const StepCall &c, Message &err)
{
    const uint32_t kv_dim = c.step->params[0];
    const uint32_t bytes = c.rows * kv_dim * 4u;
    const size_t at = (size_t)c.pos * kv_dim * 4u;
    tsr_dma_handle hk = 0, hv = 0;
    tsr_hal_status st = board->ops->dma_copy_1d(board->ctx, c.operand[2] + at, c.operand[0], bytes, &hk);
    if (st == TSR_HAL_OK) st = board->ops->dma_copy_1d(board->ctx, c.operand[3] + at, c.operand[1], bytes, &hv);
    if (st == TSR_HAL_OK) st = board->ops->dma_wait(board->ctx, hv ? hv : hk);
    if (st != TSR_HAL_OK) {
        err.str("DMA into the KV cache failed (HAL status ").num(st).str(")");
        return TESSERA_ERR_HAL;
    }
    return TESSERA_OK;
}

} // namespace

tessera_status run_schedule(const ImageView &img, const tsr_hal_board *board, const ScheduleView &schedule,
                            uint32_t rows, uint32_t pos, Message &err)
{
    for (uint32_t i = 0; i < schedule.header->step_count; ++i) {
        StepCall call;
        call.step = &schedule.steps[i];
        call.rows = rows;
        call.pos = pos;
        call.failed = 0;
        for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
            const uint32_t id = call.step->operands[k];
            call.operand[k] = id < img.header->tensor_count ? tensor_address(img, board, id) : nullptr;
        }
        if (call.step->op == TSR_OP_KV_APPEND) {
            const tessera_status st = kv_append(board, call, err);
            if (st != TESSERA_OK) return st;
            continue;
        }
        if (board->ops->cluster_fork(board->ctx, run_step_on_core, &call) != TSR_HAL_OK) {
            err.str("cluster fork failed at step ").num(i);
            return TESSERA_ERR_HAL;
        }
        if (call.failed) {
            err.str("kernel of step ").num(i).str(" (op ").num(call.step->op).str(") refused its arguments");
            return TESSERA_ERR_KERNEL;
        }
    }
    return TESSERA_OK;
}

} // namespace tsr
