/* The qemu-virt-rv32 DMA engine (see dma_engine.c). */
#ifndef TESSERA_QEMU_DMA_ENGINE_H
#define TESSERA_QEMU_DMA_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/hal.h"

#ifndef TSR_QEMU_DMA_DEPTH /* the description's dma.queue_depth (the board's CMake target) */
#define TSR_QEMU_DMA_DEPTH 16u
#endif

/* The hart that serves the queue; without one (a single hart), the caller copies. */
void tsr_dma_set_hart(bool present, uint32_t hart);
/* The engine's loop, on its hart. Never returns. */
void tsr_dma_serve(void) __attribute__((noreturn));

/* The HAL's DMA operations (tsr_hal_ops: dma_copy_2d, dma_copy_1d, dma_wait). */
tsr_hal_status tsr_dma_submit(void *ctx, void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride,
                              uint32_t row_bytes, uint32_t rows, tsr_dma_handle *out);
tsr_hal_status tsr_dma_submit_1d(void *ctx, void *dst, const void *src, uint32_t bytes, tsr_dma_handle *out);
tsr_hal_status tsr_dma_wait(void *ctx, tsr_dma_handle handle);

#endif
