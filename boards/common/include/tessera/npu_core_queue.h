/*
 * The NPU job queue of a board whose NPU is not modelled (pulp-rtl): jobs queue as on a
 * real NPU, up to the description's depth (BUSY beyond), and run in order, with every
 * board's bit-serial execution (tessera/npu.h), on the core that waits for or polls one.
 * The three calls are the HAL's NPU operations with the queue as ctx.
 */
#ifndef TESSERA_NPU_CORE_QUEUE_H
#define TESSERA_NPU_CORE_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/hal.h"
#include "tessera/npu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsr_npu_core_queue {
    tsr_npu_job *jobs;              /* depth of them */
    uint32_t depth;
    const tsr_hal_region *regions;  /* the board's: where a job's operands must lie */
    uint32_t issued, done;          /* handles 1, 2, ...: submitted, run */
} tsr_npu_core_queue;

tsr_hal_status tsr_npu_core_submit(void *queue, const tsr_npu_job *job, tsr_npu_handle *out);
tsr_hal_status tsr_npu_core_poll(void *queue, tsr_npu_handle handle, bool *done);
tsr_hal_status tsr_npu_core_wait(void *queue, tsr_npu_handle handle);

#ifdef __cplusplus
}
#endif

#endif
