/* The qemu-virt-rv32 NPU (see npu_engine.c). */
#ifndef TESSERA_QEMU_NPU_ENGINE_H
#define TESSERA_QEMU_NPU_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/hal.h"

/* The hart that serves the queue (present), or none: then the submitting hart runs
 * each job as it is submitted. `regions`: the board's table, which jobs are checked
 * against. */
void tsr_npu_set_hart(bool present, uint32_t hart, const tsr_hal_region *regions);
/* The engine's loop, on its hart. Never returns. */
void tsr_npu_serve(void) __attribute__((noreturn));

/* The HAL's NPU operations (tsr_hal_ops: npu_submit, npu_poll, npu_wait). */
tsr_hal_status tsr_npu_submit(void *ctx, const tsr_npu_job *job, tsr_npu_handle *out);
tsr_hal_status tsr_npu_poll(void *ctx, tsr_npu_handle handle, bool *done);
tsr_hal_status tsr_npu_wait(void *ctx, tsr_npu_handle handle);

#endif
