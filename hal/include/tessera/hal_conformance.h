/*
 * The HAL conformance suite: checks that a board's implementation of tessera/hal.h
 * keeps the contract the runtime relies on. Freestanding C, runnable on any board:
 * link it into a firmware (or a host program), hand it the board, read its lines.
 *
 * It takes the board over while it runs: it writes to the start of L1 and L2 (and
 * NMS), so run it before opening a model, not beside one.
 *
 * Checked: the region table (L1 and L2 present, writable at both ends, not
 * overlapping); fork and join on every core (each core id once, the count as
 * given, every core's work visible after the join); barriers (no core passes one
 * before all have reached it, many times over); DMA 1D and 2D with strides (bytes
 * copied exactly, the gaps between rows untouched), handles never 0, in-order
 * completion (waiting on the last waits for all), an unknown handle refused, and
 * the queue-full status (a full queue answers BUSY, and accepts again once a
 * transfer is waited for; an engine that completes transfers as they are
 * submitted never fills, which is reported); DMA 1D and 2D to and from off-chip
 * memory, where the board describes a window of it (regions[TSR_REGION_IMAGE]); the NPU queue (a job's result against
 * the bit-serial definition in tessera/npu.h, a misaligned job, weights outside
 * NMS, a full queue) or, without an NPU, UNSUPPORTED; the cycle counter (never goes
 * back, and advances over work).
 */
#ifndef TESSERA_HAL_CONFORMANCE_H_
#define TESSERA_HAL_CONFORMANCE_H_

#include <stdint.h>

#include "tessera/hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One line of the report, NUL-terminated, without a newline ("ok   ..." or "FAIL ..."). */
typedef void (*tsr_conformance_print)(void *ctx, const char *line);

typedef struct tsr_conformance_result {
    uint32_t passed, failed;
    uint32_t skipped; /* checks that do not apply to the board (said why in their line) */
} tsr_conformance_result;

/* Runs every check on `board` and reports each through `print`. */
tsr_conformance_result tsr_hal_conformance(const tsr_hal_board *board, tsr_conformance_print print, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
