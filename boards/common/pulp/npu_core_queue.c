/* tessera/npu_core_queue.h: an NPU job queue run by the core that waits. */
#include "tessera/npu_core_queue.h"

#include <stddef.h>

tsr_hal_status tsr_npu_core_submit(void *queue, const tsr_npu_job *job, tsr_npu_handle *out)
{
    tsr_npu_core_queue *q = (tsr_npu_core_queue *)queue;
    if (out == NULL) return TSR_HAL_INVALID;
    const tsr_hal_status st = tsr_npu_check_job(job, q->regions);
    if (st != TSR_HAL_OK) return st;
    if (q->issued - q->done >= q->depth) return TSR_HAL_BUSY;
    q->jobs[q->issued % q->depth] = *job;
    *out = ++q->issued; /* handles 1, 2, ...: never 0 within 2^32 jobs */
    return TSR_HAL_OK;
}

static bool issued(const tsr_npu_core_queue *q, tsr_npu_handle handle) { return handle != 0u && handle <= q->issued; }

static void run_until(tsr_npu_core_queue *q, tsr_npu_handle handle)
{
    while (q->done < handle) tsr_npu_run_job(&q->jobs[q->done++ % q->depth]);
}

tsr_hal_status tsr_npu_core_poll(void *queue, tsr_npu_handle handle, bool *done)
{
    tsr_npu_core_queue *q = (tsr_npu_core_queue *)queue;
    if (done == NULL || !issued(q, handle)) return TSR_HAL_INVALID;
    run_until(q, handle);
    *done = true;
    return TSR_HAL_OK;
}

tsr_hal_status tsr_npu_core_wait(void *queue, tsr_npu_handle handle)
{
    tsr_npu_core_queue *q = (tsr_npu_core_queue *)queue;
    if (!issued(q, handle)) return TSR_HAL_INVALID;
    run_until(q, handle);
    return TSR_HAL_OK;
}
