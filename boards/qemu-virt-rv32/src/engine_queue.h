/*
 * What the qemu-virt-rv32 engine harts (DMA, NPU) share: a bounded queue of jobs
 * between one submitting hart and the engine's hart, completed in order.
 *
 * Job k (counting from 0) has handle k + 1; `tail` counts the jobs queued (the
 * submitter writes it), `done` the jobs completed (the engine writes it). Both wrap
 * at 2^32 and are compared as differences; the handle 0 ("none") is taken by an
 * empty job of the engine's own when the count reaches it. Whoever waits sleeps in
 * wfi and is woken by the engine's software interrupt; an idle engine sleeps until
 * a submit wakes it.
 */
#ifndef TESSERA_QEMU_ENGINE_QUEUE_H
#define TESSERA_QEMU_ENGINE_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/hal.h"

#define TSR_QEMU_CLINT_MSIP(h) ((volatile uint32_t *)(0x02000000u + 4u * (h)))

typedef struct tsr_engine_queue {
    uint32_t tail;    /* jobs queued */
    uint32_t done;    /* jobs completed: the handles up to `done` are done */
    uint32_t waiter;  /* 1 + the hart waiting for a completion, or 0 */
    uint32_t hart;    /* the engine's hart */
    bool present;     /* false: no hart serves the queue, the submitter runs each job at once */
} tsr_engine_queue;

static inline bool tsr_engine_is_done(uint32_t handle, uint32_t done) { return (int32_t)(done - handle) >= 0; }

static inline void tsr_engine_sleep(uint32_t hart)
{
    __asm__ volatile("wfi");
    *TSR_QEMU_CLINT_MSIP(hart) = 0u; /* the wake-up is consumed; the caller re-checks its condition */
}

/* Submitter: whether a job can be queued now (`skip`: an empty job goes first). A
 * slot frees when its job is done, as in hardware. */
static inline bool tsr_engine_full(const tsr_engine_queue *q, uint32_t depth, bool skip)
{
    return q->tail + (skip ? 1u : 0u) - __atomic_load_n(&q->done, __ATOMIC_ACQUIRE) >= depth;
}

/* Submitter: the job in slot `tail` is written; queue it and wake the engine. */
static inline void tsr_engine_publish(tsr_engine_queue *q, uint32_t tail)
{
    __atomic_store_n(&q->tail, tail + 1u, __ATOMIC_RELEASE);
    *TSR_QEMU_CLINT_MSIP(q->hart) = 1u;
}

/* Engine: sleeps until job `next` is queued. */
static inline void tsr_engine_await_job(tsr_engine_queue *q, uint32_t next)
{
    while (next == __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE)) tsr_engine_sleep(q->hart);
}

/* Engine: jobs up to `completed` are done; wake a waiter. Publish, then look for a
 * waiter: with the waiter's store-then-check in tsr_engine_wait, one of the two sees
 * the other. */
static inline void tsr_engine_complete(tsr_engine_queue *q, uint32_t completed)
{
    __atomic_store_n(&q->done, completed, __ATOMIC_SEQ_CST);
    const uint32_t waiter = __atomic_load_n(&q->waiter, __ATOMIC_SEQ_CST);
    if (waiter) *TSR_QEMU_CLINT_MSIP(waiter - 1u) = 1u;
}

/* Whether `handle` names an issued job (0 and future handles do not). */
static inline bool tsr_engine_issued(const tsr_engine_queue *q, uint32_t handle)
{
    return handle != 0u && (int32_t)(handle - q->tail) <= 0;
}

/* Submitter: returns once job `handle` is done. */
static inline tsr_hal_status tsr_engine_wait(tsr_engine_queue *q, uint32_t handle)
{
    if (!tsr_engine_issued(q, handle)) return TSR_HAL_INVALID;
    if (tsr_engine_is_done(handle, __atomic_load_n(&q->done, __ATOMIC_ACQUIRE))) return TSR_HAL_OK;
    uint32_t waiting_hart;
    __asm__ volatile("csrr %0, mhartid" : "=r"(waiting_hart));
    while (!tsr_engine_is_done(handle, __atomic_load_n(&q->done, __ATOMIC_ACQUIRE))) {
        __atomic_store_n(&q->waiter, waiting_hart + 1u, __ATOMIC_SEQ_CST);
        if (tsr_engine_is_done(handle, __atomic_load_n(&q->done, __ATOMIC_SEQ_CST))) break;
        tsr_engine_sleep(waiting_hart);
    }
    __atomic_store_n(&q->waiter, 0u, __ATOMIC_RELAXED);
    return TSR_HAL_OK;
}

#endif
