/*
 * The qemu-virt-rv32 DMA engine: a hart of its own serves a bounded, in-order queue
 * of 2D copies, as the cluster DMA of a PULP chip does, so compute harts never copy
 * tensors. Core 0 queues a job and wakes the engine with a software interrupt; the
 * engine wakes a waiter when a job completes. Everything else sleeps in wfi.
 *
 * It moves 64 bits a beat (fld/fsd, eight to a block) where the cores have the D
 * registers, else 32: this hart models an engine, not a compute core, and is built
 * for the wider ISA when the toolchain allows (CMakeLists). Rows of a 2D job are
 * strided in here, not one call per row. The queue itself is engine_queue.h.
 */
#include "dma_engine.h"

#include <stddef.h>

#include "engine_queue.h"

typedef struct {
    uint8_t *dst;
    const uint8_t *src;
    uint32_t dst_stride, src_stride, row_bytes, rows;
} job_t;

_Static_assert((TSR_QEMU_DMA_DEPTH & (TSR_QEMU_DMA_DEPTH - 1u)) == 0u, "slots stay in step across the wrap");
static job_t g_jobs[TSR_QEMU_DMA_DEPTH];
static tsr_engine_queue g_queue;

void tsr_dma_set_hart(bool present, uint32_t hart)
{
    g_queue.present = present;
    g_queue.hart = hart;
}

static void copy_row(uint8_t *dst, const uint8_t *src, uint32_t n)
{
    const uintptr_t both = (uintptr_t)dst | (uintptr_t)src;
#if defined(__riscv_flen) && __riscv_flen >= 64
    if ((both & 7u) == 0u) {
        for (; n >= 64u; n -= 64u, dst += 64, src += 64)
            __asm__ volatile("fld ft0, 0(%1)\n fld ft1, 8(%1)\n fld ft2, 16(%1)\n fld ft3, 24(%1)\n"
                             "fld ft4, 32(%1)\n fld ft5, 40(%1)\n fld ft6, 48(%1)\n fld ft7, 56(%1)\n"
                             "fsd ft0, 0(%0)\n fsd ft1, 8(%0)\n fsd ft2, 16(%0)\n fsd ft3, 24(%0)\n"
                             "fsd ft4, 32(%0)\n fsd ft5, 40(%0)\n fsd ft6, 48(%0)\n fsd ft7, 56(%0)\n"
                             :
                             : "r"(dst), "r"(src)
                             : "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "memory");
        for (; n >= 8u; n -= 8u, dst += 8, src += 8)
            __asm__ volatile("fld ft0, 0(%1)\n fsd ft0, 0(%0)\n" : : "r"(dst), "r"(src) : "ft0", "memory");
    }
#endif
    if ((both & 3u) == 0u) {
        uint32_t *d = (uint32_t *)dst;
        const uint32_t *s = (const uint32_t *)src;
        for (; n >= 32u; n -= 32u, d += 8, s += 8) {
            const uint32_t a = s[0], b = s[1], c = s[2], e = s[3], f = s[4], g = s[5], h = s[6], i = s[7];
            d[0] = a, d[1] = b, d[2] = c, d[3] = e, d[4] = f, d[5] = g, d[6] = h, d[7] = i;
        }
        for (; n >= 4u; n -= 4u) *d++ = *s++;
        dst = (uint8_t *)d;
        src = (const uint8_t *)s;
    }
    while (n--) *dst++ = *src++;
}

static void run_job(const job_t *j)
{
    uint8_t *dst = j->dst;
    const uint8_t *src = j->src;
    uint32_t rows = j->rows;
#if defined(__riscv_flen) && __riscv_flen >= 64
    /* Gathers of short rows (a head's keys or values: 16 or 32 bytes a position):
     * one tight loop over the rows, no call per row. */
    const uintptr_t all = (uintptr_t)dst | (uintptr_t)src | j->dst_stride | j->src_stride;
    if ((all & 7u) == 0u && j->row_bytes == 32u) {
        for (; rows; --rows, dst += j->dst_stride, src += j->src_stride)
            __asm__ volatile("fld ft0, 0(%1)\n fld ft1, 8(%1)\n fld ft2, 16(%1)\n fld ft3, 24(%1)\n"
                             "fsd ft0, 0(%0)\n fsd ft1, 8(%0)\n fsd ft2, 16(%0)\n fsd ft3, 24(%0)\n"
                             :
                             : "r"(dst), "r"(src)
                             : "ft0", "ft1", "ft2", "ft3", "memory");
        return;
    }
    if ((all & 7u) == 0u && j->row_bytes == 16u) {
        for (; rows; --rows, dst += j->dst_stride, src += j->src_stride)
            __asm__ volatile("fld ft0, 0(%1)\n fld ft1, 8(%1)\n fsd ft0, 0(%0)\n fsd ft1, 8(%0)\n"
                             :
                             : "r"(dst), "r"(src)
                             : "ft0", "ft1", "memory");
        return;
    }
#endif
    for (; rows; --rows, dst += j->dst_stride, src += j->src_stride) copy_row(dst, src, j->row_bytes);
}

void tsr_dma_serve(void)
{
    for (uint32_t next = 0;; ++next) {
        tsr_engine_await_job(&g_queue, next);
        run_job(&g_jobs[next % TSR_QEMU_DMA_DEPTH]);
        tsr_engine_complete(&g_queue, next + 1u);
    }
}

tsr_hal_status tsr_dma_submit(void *ctx, void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride,
                              uint32_t row_bytes, uint32_t rows, tsr_dma_handle *out)
{
    (void)ctx;
    if (dst == NULL || src == NULL || out == NULL) return TSR_HAL_INVALID;
    uint32_t tail = g_queue.tail;
    const bool skip = tail + 1u == 0u; /* the next handle would be 0: an empty job takes it */
    if (!g_queue.present) { /* no engine hart: the caller copies, and the job is done at once */
        const job_t job = {(uint8_t *)dst, (const uint8_t *)src, dst_stride, src_stride, row_bytes, rows};
        run_job(&job);
        *out = g_queue.tail = g_queue.done = tail + (skip ? 2u : 1u);
        return TSR_HAL_OK;
    }
    if (tsr_engine_full(&g_queue, TSR_QEMU_DMA_DEPTH, skip)) return TSR_HAL_BUSY;
    if (skip) {
        job_t *empty = &g_jobs[tail % TSR_QEMU_DMA_DEPTH];
        empty->dst = (uint8_t *)dst, empty->src = (const uint8_t *)src, empty->rows = 0u;
        tsr_engine_publish(&g_queue, tail++);
    }
    job_t *j = &g_jobs[tail % TSR_QEMU_DMA_DEPTH];
    j->dst = (uint8_t *)dst, j->src = (const uint8_t *)src;
    j->dst_stride = dst_stride, j->src_stride = src_stride, j->row_bytes = row_bytes, j->rows = rows;
    tsr_engine_publish(&g_queue, tail);
    *out = tail + 1u;
    return TSR_HAL_OK;
}

tsr_hal_status tsr_dma_submit_1d(void *ctx, void *dst, const void *src, uint32_t bytes, tsr_dma_handle *out)
{
    return tsr_dma_submit(ctx, dst, bytes, src, bytes, bytes, 1u, out);
}

tsr_hal_status tsr_dma_wait(void *ctx, tsr_dma_handle handle)
{
    (void)ctx;
    return tsr_engine_wait(&g_queue, handle);
}
