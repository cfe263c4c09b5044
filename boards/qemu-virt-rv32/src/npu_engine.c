/*
 * The qemu-virt-rv32 NPU: a hart of its own serves a bounded, in-order queue of NPU
 * jobs (tessera/npu.h), as N-EUREKA does beside Siracusa's cluster. It reads the
 * weights in the bit-plane layout the packer wrote, from NMS or L1, and the inputs
 * and outputs in L1, with tsr_npu_run_job: the same bit-serial execution as the host
 * board's NPU thread, so the two boards agree bit for bit. Its instructions are its
 * own hart's, apart from the cluster's.
 *
 * submit checks a job against the board's regions and copies the descriptor: a job
 * the engine cannot run is refused with its status and not queued; a full queue
 * answers TSR_HAL_BUSY. The queue is engine_queue.h.
 */
#include "npu_engine.h"

#include <stddef.h>

#include "engine_queue.h"
#include "tessera/npu.h"

_Static_assert((TSR_QEMU_NPU_DEPTH & (TSR_QEMU_NPU_DEPTH - 1u)) == 0u, "slots stay in step across the wrap");
static tsr_npu_job g_jobs[TSR_QEMU_NPU_DEPTH];
static tsr_engine_queue g_queue;
static const tsr_hal_region *g_regions;

void tsr_npu_set_hart(bool present, uint32_t hart, const tsr_hal_region *regions)
{
    g_queue.present = present;
    g_queue.hart = hart;
    g_regions = regions;
}

void tsr_npu_serve(void)
{
    for (uint32_t next = 0;; ++next) {
        tsr_engine_await_job(&g_queue, next);
        const tsr_npu_job *job = &g_jobs[next % TSR_QEMU_NPU_DEPTH];
        if (job->m) tsr_npu_run_job(job); /* m = 0: the empty job that takes handle 0 */
        tsr_engine_complete(&g_queue, next + 1u);
    }
}

tsr_hal_status tsr_npu_submit(void *ctx, const tsr_npu_job *job, tsr_npu_handle *out)
{
    (void)ctx;
    if (!TSR_QEMU_HAS_NPU) return TSR_HAL_UNSUPPORTED; /* a description without an NPU */
    if (out == NULL) return TSR_HAL_INVALID;
    const tsr_hal_status st = tsr_npu_check_job(job, g_regions);
    if (st != TSR_HAL_OK) return st;
    uint32_t tail = g_queue.tail;
    const bool skip = tail + 1u == 0u; /* the next handle would be 0: an empty job takes it */
    if (!g_queue.present) { /* no engine hart: the submitter runs the job, done at once */
        tsr_npu_run_job(job);
        *out = g_queue.tail = g_queue.done = tail + (skip ? 2u : 1u);
        return TSR_HAL_OK;
    }
    if (tsr_engine_full(&g_queue, TSR_QEMU_NPU_DEPTH, skip)) return TSR_HAL_BUSY;
    if (skip) {
        g_jobs[tail % TSR_QEMU_NPU_DEPTH].m = 0u;
        tsr_engine_publish(&g_queue, tail++);
    }
    g_jobs[tail % TSR_QEMU_NPU_DEPTH] = *job;
    tsr_engine_publish(&g_queue, tail);
    *out = tail + 1u;
    return TSR_HAL_OK;
}

tsr_hal_status tsr_npu_poll(void *ctx, tsr_npu_handle handle, bool *done)
{
    (void)ctx;
    if (done == NULL || !tsr_engine_issued(&g_queue, handle)) return TSR_HAL_INVALID;
    *done = tsr_engine_is_done(handle, __atomic_load_n(&g_queue.done, __ATOMIC_ACQUIRE));
    return TSR_HAL_OK;
}

tsr_hal_status tsr_npu_wait(void *ctx, tsr_npu_handle handle)
{
    (void)ctx;
    return tsr_engine_wait(&g_queue, handle);
}
