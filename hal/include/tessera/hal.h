/*
 * Tessera hardware abstraction layer: the contract between the runtime and a board.
 *
 * C-compatible on purpose: firmware authors implement it in C or C++, and one
 * process may hold several boards (the host emulation opens a board per test), so
 * the HAL is a table of operations plus a context pointer rather than link-time
 * globals. Every call that can fail returns a tsr_hal_status.
 *
 * Threading contract:
 *  - the controller (core 0, the caller of cluster_fork) and, inside a cluster
 *    task, any core may call cluster_barrier, cycles, trace and
 *    check_kernel_operand;
 *  - the DMA operations (dma_copy_1d, dma_copy_2d, dma_copy_planes, dma_wait) are called by one core
 *    at a time: the controller outside tasks, core 0 inside them. A board's DMA
 *    engine must accept them from core 0 while the other cores compute;
 *  - the NPU queue (npu_submit, npu_poll, npu_wait): one core at a time, like the
 *    DMA engine (the controller outside tasks, core 0 inside them);
 *  - console_write: the controller, outside cluster tasks.
 */
#ifndef TESSERA_HAL_H
#define TESSERA_HAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Memory regions a plan can place a buffer in. IMAGE is the model image itself
 * (flash/MRAM on a chip): read-only, used in place. */
typedef enum tsr_region_id {
    TSR_REGION_IMAGE = 0,
    TSR_REGION_L1 = 1,  /* cluster scratchpad, tightly coupled */
    TSR_REGION_L2 = 2,  /* on-chip memory shared by controller, cluster and DMA */
    TSR_REGION_NMS = 3, /* NPU weight memory */
    TSR_REGION_COUNT = 4
} tsr_region_id;

typedef enum tsr_hal_status {
    TSR_HAL_OK = 0,
    TSR_HAL_BUSY = 1,        /* a bounded queue is full: wait on an older handle, then retry */
    TSR_HAL_INVALID = 2,     /* bad argument (unknown handle, range outside memory) */
    TSR_HAL_UNSUPPORTED = 3, /* the board has no such engine */
    TSR_HAL_FAULT = 4,       /* the engine reported an error */
    TSR_HAL_MISALIGNED = 5,  /* a descriptor, or an address or stride in it, breaks the engine's alignment */
    TSR_HAL_OUT_OF_REGION = 6 /* an operand lies outside the memory the engine may use for it
                                 (NPU: input or output outside L1, NMS weights outside NMS) */
} tsr_hal_status;

/* One memory region of the board. size 0 means the board has no such region. */
typedef struct tsr_hal_region {
    const char *name; /* "L1", "L2", "NMS" */
    uint8_t *base;
    uint32_t size;
} tsr_hal_region;

/* A cluster task runs once on every core of the fork: core_id in [0, core_count).
 * core_count is at most the board's core_count and may differ between forks (the
 * host board runs each fork on the count it measured fastest); a task splits its
 * work by the core_count it is given. */
typedef void (*tsr_cluster_task)(void *arg, uint32_t core_id, uint32_t core_count);

/* Handles are never 0, so 0 can mean "no transfer". They complete in order per engine. */
typedef uint32_t tsr_dma_handle;
typedef uint32_t tsr_npu_handle;

/* NPU job descriptor: the engine's own format, defined with its weight layout in
 * tessera/npu.h (pulp-nnx lifecycle: the runtime inits a descriptor, dispatches it
 * with npu_submit, waits, and resolves its status). */
typedef struct tsr_npu_job tsr_npu_job;

/* A copy of `planes` 2D blocks, plane p from src + p src_plane to dst + p dst_plane, each
 * as dma_copy_2d's (rows of row_bytes, a stride apart on either side): the columns of
 * several heads gathered from a KV cache, each head into a buffer of its own. */
typedef struct tsr_dma_planes {
    void *dst;
    const void *src;
    uint32_t dst_stride, src_stride, row_bytes, rows;
    uint32_t dst_plane, src_plane, planes;
} tsr_dma_planes;

typedef struct tsr_hal_ops {
    /* Fork `task` on the cluster's cores (all of them, or fewer: see tsr_cluster_task)
     * and return when all have finished (join). */
    tsr_hal_status (*cluster_fork)(void *ctx, tsr_cluster_task task, void *arg);
    /* Barrier among the cores of the running task. */
    void (*cluster_barrier)(void *ctx);

    /* Asynchronous copies; completion is observed only through dma_wait. */
    tsr_hal_status (*dma_copy_1d)(void *ctx, void *dst, const void *src, uint32_t bytes,
                                  tsr_dma_handle *out);
    tsr_hal_status (*dma_copy_2d)(void *ctx, void *dst, uint32_t dst_stride, const void *src,
                                  uint32_t src_stride, uint32_t row_bytes, uint32_t rows,
                                  tsr_dma_handle *out);
    tsr_hal_status (*dma_wait)(void *ctx, tsr_dma_handle handle);

    /* NPU job queue (tessera/npu.h), a bounded queue of the board's depth whose jobs
     * complete in order: submit copies the descriptor and returns at once (BUSY when the
     * queue is full: wait on an older handle, then retry; MISALIGNED or OUT_OF_REGION
     * for a job the engine cannot run, which is not queued); poll says whether a job is
     * done, wait returns when it is. A board without an NPU returns TSR_HAL_UNSUPPORTED. */
    tsr_hal_status (*npu_submit)(void *ctx, const tsr_npu_job *job, tsr_npu_handle *out);
    tsr_hal_status (*npu_poll)(void *ctx, tsr_npu_handle handle, bool *done);
    tsr_hal_status (*npu_wait)(void *ctx, tsr_npu_handle handle);

    /* Free-running cycle counter of the controller (host board: nanoseconds). */
    uint64_t (*cycles)(void *ctx);
    /* Console output, not NUL-terminated. */
    void (*console_write)(void *ctx, const char *text, size_t len);

    /* Optional (NULL on boards that do not check): called before a kernel runs for
     * every operand range it will touch. Kernels may only touch L1 (but the operands
     * an image planned with TSR_IMAGE_OPERANDS_IN_PLACE leaves unstaged, which are not
     * passed here); a checking board stops the program loudly on a range outside L1. */
    void (*check_kernel_operand)(void *ctx, const void *addr, uint32_t bytes, uint32_t op, uint32_t operand);

    /* Optional (NULL: not recorded): `core` begins (begin = true) or ends a span of
     * work on operator `name` (a static string) of model layer `layer` (0xFFFF:
     * none) for the run starting at position `pos`. Called by every core around
     * each step it takes part in, for a board's timeline. */
    void (*trace)(void *ctx, uint32_t core, const char *name, uint32_t layer, uint32_t pos, bool begin);

    /* Optional (NULL: the runtime issues each plane as a dma_copy_2d): every plane of `copy`
     * as one asynchronous transfer, one handle for all of them, where the board's engine
     * takes them at less cost than a call a plane. TSR_HAL_UNSUPPORTED for a copy it does
     * not take that way (the runtime then copies plane by plane), BUSY and INVALID as
     * dma_copy_2d; a DMA operation (the threading contract's). */
    tsr_hal_status (*dma_copy_planes)(void *ctx, const tsr_dma_planes *copy, tsr_dma_handle *out);

    /* Optional (NULL: no hint taken). A hint, and a loan: the next reads of the image's
     * off-chip memory begin at `src` and go on in order through `bytes`, and the board may
     * read them ahead into `buffer` (`buffer_bytes` of L2, word-aligned, that the runtime
     * neither reads nor writes until it ends the loan), so that those reads, when they come,
     * are moved out of L2 instead of off chip. Reads elsewhere stay correct (the board drops
     * what it read ahead first); results never depend on the hint. The runtime ends the loan
     * with src, buffer NULL and bytes, buffer_bytes 0, once every transfer it issued since is
     * waited for: the board then writes the buffer no more. TSR_HAL_OK (taken or ignored),
     * TSR_HAL_INVALID for a buffer outside L2; a DMA operation (the threading contract's). */
    tsr_hal_status (*dma_prefetch)(void *ctx, const void *src, uint32_t bytes, void *buffer, uint32_t buffer_bytes);
} tsr_hal_ops;

/* A board as the runtime sees it. */
#define TSR_HAL_ABI 0x38414854u /* "THA8": tsr_hal_board.abi of this layout (sample_on_cluster_from added) */

/* Instruction-set extensions a board's cores run beyond the base ISA its firmware is
 * built for (tsr_hal_board.isa). The runtime runs a variant's tuned kernels (kernels/<isa>/)
 * only where the board has every bit they need; otherwise the portable ones. */
#include "tessera/isa_bits.h" /* generated from kernels/kernel_sets.cmake: TSR_ISA_<SET> */
typedef struct tsr_hal_board {
    uint32_t abi;              /* TSR_HAL_ABI, set by the board: the runtime refuses anything else (another
                                  struct passed by mistake, or a board built against another layout) */
    const char *name;          /* matches the board description's name */
    uint32_t fingerprint;      /* tsr_board_fingerprint() of its description */
    uint32_t core_count;       /* the most cores a cluster task runs on (>= 1) */
    bool has_npu;
    /* A cluster step whose operands total fewer bytes than this runs on core 0 alone:
     * on this board two barriers cost more than sharing so little work saves. The other
     * cores skip it and meet core 0 at the next step they share (a run of such steps
     * costs one barrier, not two a step). 0: every cluster step is shared. Results
     * never depend on it. */
    uint32_t solo_bytes;
    /* TSR_ISA_* bits: the tuned kernel sets the cores run (checked by the board, at run
     * time where the machine varies: the host board asks the CPU). 0: portable kernels only. */
    uint32_t isa;
    /* The image lies in memory only the DMA engine reads (off-chip memory the cores
     * cannot load from: board.json "offchip" with "cores_read": false). The runtime then
     * reads every weights section (those it copies to L2 or NMS at open, those it uses in
     * place) only through the DMA engine, checking their CRC-32 at open a chunk at a time
     * through L2; the other sections, which the packer lays out before them, it reads
     * directly. */
    bool image_dma_only;
    /* Greedy sampling (tessera_sample at temperature 0) takes the largest of a token's
     * logits on the cluster's cores, each a share, from a vocabulary of this many on, the
     * logits moved into L1 by the DMA engine a chunk at a time where L1 has room between
     * runs: on this board a core's loads from L2 are slow (a cluster behind a bus) and a
     * fork costs less than the loads it shares out. 0: the controller reads them where they
     * lie. Results never depend on it. */
    uint32_t sample_on_cluster_from;
    /* L1, L2 and NMS. Index TSR_REGION_IMAGE, optional (size 0: none): a window of the
     * off-chip memory the image lies in, holding no part of the image, that the DMA
     * engine reaches: the HAL conformance suite's scratch there (the runtime uses none). */
    tsr_hal_region regions[TSR_REGION_COUNT];
    const tsr_hal_ops *ops;
    void *ctx;
} tsr_hal_board;

/* Region names as board descriptions and messages spell them. */
static inline const char *tsr_region_name(uint32_t region)
{
    switch (region) {
    case TSR_REGION_IMAGE: return "IMAGE";
    case TSR_REGION_L1: return "L1";
    case TSR_REGION_L2: return "L2";
    case TSR_REGION_NMS: return "NMS";
    default: return "?";
    }
}

/* FNV-1a step used for board fingerprints: the packer and every board compute the
 * fingerprint of a description the same way (see boards/common). */
static inline uint32_t tsr_fnv1a(uint32_t hash, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    for (size_t i = 0; i < len; ++i) {
        hash ^= p[i];
        hash *= 16777619u;
    }
    return hash;
}

/* Fingerprint of a board description: name, cluster cores, region sizes, NPU. */
static inline uint32_t tsr_board_fingerprint(const char *name, uint32_t cores,
                                             const uint32_t region_sizes[TSR_REGION_COUNT],
                                             bool has_npu)
{
    uint32_t h = 2166136261u;
    size_t n = 0;
    while (name[n] != '\0') ++n;
    h = tsr_fnv1a(h, name, n);
    uint8_t le[4];
    for (int r = -1; r < (int)TSR_REGION_COUNT + 1; ++r) {
        uint32_t v = r < 0 ? cores : (r < (int)TSR_REGION_COUNT ? region_sizes[r] : (uint32_t)has_npu);
        le[0] = (uint8_t)v; le[1] = (uint8_t)(v >> 8); le[2] = (uint8_t)(v >> 16); le[3] = (uint8_t)(v >> 24);
        h = tsr_fnv1a(h, le, 4);
    }
    return h;
}

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_HAL_H */
