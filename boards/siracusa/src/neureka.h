/*
 * The siracusa board's NPU: the HAL's job queue on N-EUREKA, GVSoC's model of it
 * (src/pulp/pulp/neureka; registers as pulp-nnx's neureka/hal drives them).
 *
 * A HAL job (tessera/npu.h) runs on the engine as a 1x1 convolution: whole, when it is of
 * the stage's form with its tables in TCDM (TSR_NPU_GEMM_I8_RQS_STAGE, the engine reads them
 * in place); else as engine jobs of at most 32 output channels each (one of its output
 * subtiles), their requantization in the board's table, when its normalization/quantization
 * stage gives the job's integers (tessera/neureka_requant.h). Its weights are read from the
 * weight memory (TSR_NPU_WEIGHTS_NMS) or from L1 as the packer laid them out. A job whose
 * requantization the stage cannot give runs, in its turn, on the core that waits for it
 * (tsr_npu_run_job). Jobs finish in the order they were submitted, up to the queue's depth
 * in flight; the engine's two contexts are refilled by the core that submits, polls or waits.
 */
#ifndef TESSERA_SIRACUSA_NEUREKA_H
#define TESSERA_SIRACUSA_NEUREKA_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/hal.h"
#include "tessera/neureka_requant.h"
#include "tessera/npu.h"

#define TSR_NEUREKA_CONTEXTS 2u /* jobs the engine holds: one running, one programmed */

/* A chunk's requantization, where the stage reads it (TCDM), one per engine context. */
typedef struct tsr_neureka_params {
    uint32_t scale[TSR_NPU_BLOCK_N];
    int32_t bias[TSR_NPU_BLOCK_N];
    uint8_t shift[TSR_NPU_BLOCK_N];
} tsr_neureka_params;

/* What a job's registers but its pointers follow from: jobs of one shape differ in pointers alone. */
typedef struct tsr_neureka_shape {
    uint32_t m, k, n, ldx, ldy, conf;
} tsr_neureka_shape;

typedef struct tsr_neureka_slot {
    tsr_npu_job job;
    uint32_t chunks;  /* engine jobs: 1 (the whole job) or one a 32 output channels; 0: a core runs it */
    uint32_t started; /* of them, handed to the engine */
    uint32_t last;    /* the engine sequence number of its last chunk */
    bool whole;       /* one engine job reading the job's own tables (tessera/npu.h's stage form) */
} tsr_neureka_slot;

typedef struct tsr_neureka_queue {
    tsr_neureka_slot *slots; /* depth of them */
    uint32_t depth;
    tsr_hal_region regions[TSR_REGION_COUNT]; /* the board's, copied where a job's checks read them fast */
    tsr_neureka_params *params; /* TSR_NEUREKA_CONTEXTS of them, in TCDM */
    uint32_t issued, done;      /* HAL handles 1, 2, ...: submitted, finished */
    uint32_t engine_issued;     /* chunks handed to the engine */
    uint32_t first_unstarted;   /* the oldest handle with chunks not handed to the engine */
    tsr_neureka_shape shape[TSR_NEUREKA_CONTEXTS]; /* of the job each context holds (conf 0: none yet) */
    uint32_t engine_jobs, core_jobs; /* totals, for the run's report */
} tsr_neureka_queue;

tsr_hal_status tsr_neureka_submit(void *queue, const tsr_npu_job *job, tsr_npu_handle *out);
tsr_hal_status tsr_neureka_poll(void *queue, tsr_npu_handle handle, bool *done);
tsr_hal_status tsr_neureka_wait(void *queue, tsr_npu_handle handle);

#endif /* TESSERA_SIRACUSA_NEUREKA_H */
