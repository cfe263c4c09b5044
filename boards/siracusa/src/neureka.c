/* neureka.h: the HAL's NPU job queue on N-EUREKA. */
#include "neureka.h"

#include "tessera/siracusa_map.h"

#define REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* ---- the device: its registers (pulp-nnx neureka/hal, util/hwpe.c) ---------------------- */

enum {
    W_PTR, X_PTR, Y_PTR, SCALE_PTR, SHIFT_PTR, BIAS_PTR, X_D0, X_D1, X_D2, Y_D0, Y_D1, Y_D2, W_D0, W_D1, W_D2,
    REM_KO_KI, REM_HO_WO, REM_HI_WI, NB_KO_KI, NB_HO_WO, PADDING, WEIGHT_OFFSET, FILTER_MASK, CONF0, JOB_REGS
};

#define CONF0_INPUT_SIGNED (1u << 26)
#define CONF0_NORM_BIAS (1u << 25)
#define CONF0_NORM_SHIFT (1u << 24)       /* a shift a channel */
#define CONF0_QUANT_IDENTITY (1u << 23)   /* no ReLU: clamped to -128..127 */
#define CONF0_SHIFT_AT 16u                /* the layer's shift, 5 bits (without CONF0_NORM_SHIFT) */
#define CONF0_NORM_32BIT (2u << 12)       /* 32-bit scales */
#define CONF0_PREFETCH (1u << 10)         /* the next block's activations load while a block computes */
#define CONF0_WEIGHTS_WMEM (1u << 9)      /* weights from the weight memory; else from TCDM */
#define CONF0_MODE_1X1 (2u << 5)
#define CONF0_NORM_QUANT (1u << 4)
#define CONF0_WEIGHT_BITS_8 7u            /* bits - 1: eight planes a block (tessera/npu.h) */
#define OUT_SUBTILE 6u                    /* output rows (and columns) of a spatial subtile */

static inline uint32_t reg(uint32_t offset) { return SIRACUSA_NEUREKA + offset; }
static inline uint32_t half(uint32_t hi, uint32_t lo) { return hi << 16 | lo; }

/* Jobs the engine holds, programmed and not finished. */
static uint32_t in_flight(void)
{
    const uint32_t status = REG(reg(SIRACUSA_NEUREKA_STATUS));
    return (status & 1u) + ((status >> 8) & 1u);
}

/* Chunks the engine has finished, in order. */
static uint32_t engine_done(const tsr_neureka_queue *q) { return q->engine_issued - in_flight(); }

/* Sleep until the engine ends a job (its event; a stale one only wakes the caller early). */
static void sleep_on_engine(void)
{
    REG(SIRACUSA_EU_DEMUX + SIRACUSA_EU_CORE_MASK) = 1u << SIRACUSA_EVENT_NEUREKA;
    (void)REG(SIRACUSA_EU_DEMUX + SIRACUSA_EU_CORE_EVENT_WAIT_CLEAR);
}

/* Whether a job's stage-form tables lie where the engine reads them (TCDM), so that one
 * engine job takes all of its output channels with no table of the board's. */
static bool tables_in_place(const tsr_neureka_queue *q, const tsr_npu_job *j)
{
    const tsr_hal_region *l1 = &q->regions[TSR_REGION_L1];
    return j->kind == TSR_NPU_GEMM_I8_RQS_STAGE && tsr_npu_inside(l1, j->multiplier, 4ull * j->n) &&
           tsr_npu_inside(l1, j->addend, 4ull * j->n);
}

/* Job register r of the context being programmed. */
#define JOB_REG(r) REG(reg(SIRACUSA_NEUREKA_JOB + 4u * (uint32_t)(r)))

/* The registers but the pointers of a job of m rows, k input and nc output channels, strides
 * ldx and ldy, configured `conf`, into the context being programmed, which last ran a job of
 * shape `last` (conf 0: none; then the registers every job has alike too). Out of the common
 * path: a context that last ran a job of this shape keeps them (start_chunk). */
__attribute__((noinline)) static void write_shape(const tsr_npu_job *j, uint32_t nc, uint32_t conf,
                                                  const tsr_neureka_shape *last)
{
    const uint32_t kob = (nc + TSR_NPU_BLOCK_N - 1u) >> 5, kb = (j->k + TSR_NPU_BLOCK_K - 1u) >> 5;
    const uint32_t rem_n = nc - (kob - 1u) * TSR_NPU_BLOCK_N, rem_k = j->k - (kb - 1u) * TSR_NPU_BLOCK_K;
    if (last->conf == 0u) {
        JOB_REG(X_D2) = 0u, JOB_REG(Y_D0) = 32u, JOB_REG(W_D0) = 32u, JOB_REG(W_D2) = 0u;
        JOB_REG(PADDING) = 0u;
        JOB_REG(WEIGHT_OFFSET) = (uint32_t)-TSR_NPU_W_OFFSET;
        JOB_REG(FILTER_MASK) = 0u;
    }
    if (last->conf == 0u || last->m != j->m) {
        const uint32_t hb = j->m <= OUT_SUBTILE ? 1u : (j->m + OUT_SUBTILE - 1u) / OUT_SUBTILE;
        const uint32_t rem_h = j->m - (hb - 1u) * OUT_SUBTILE;
        JOB_REG(REM_HO_WO) = half(rem_h, 1u);
        JOB_REG(REM_HI_WI) = half(rem_h, 1u);
        JOB_REG(NB_HO_WO) = half(hb, 1u);
    }
    JOB_REG(X_D0) = j->ldx, JOB_REG(X_D1) = j->ldx;  /* X_D1: rows */
    JOB_REG(Y_D1) = j->ldy, JOB_REG(Y_D2) = j->ldy;  /* Y_D2: rows */
    JOB_REG(W_D1) = 32u * kb;                        /* a channel */
    JOB_REG(REM_KO_KI) = half(rem_n, rem_k);
    JOB_REG(NB_KO_KI) = half(kob, kb);
    JOB_REG(CONF0) = conf;
}

/* Hands chunk i of slot s to the engine, if it has a free context; false if not. A chunk is
 * the whole job (tables in place: its shift the layer's) or its output channels 32 i..
 * (their requantization in the board's table of the context, a shift a channel). m rows as
 * a column of m pixels (a 1x1 convolution, m x 1). */
static bool start_chunk(tsr_neureka_queue *q, const tsr_npu_job *j, bool whole, uint32_t i)
{
    if (REG(reg(SIRACUSA_NEUREKA_ACQUIRE)) >= 256u) return false; /* both contexts taken */
    const uint32_t ctx = q->engine_issued & (TSR_NEUREKA_CONTEXTS - 1u);
    const uint32_t c0 = i * TSR_NPU_BLOCK_N;
    const uint32_t nc = whole ? j->n : j->n - c0 < TSR_NPU_BLOCK_N ? j->n - c0 : TSR_NPU_BLOCK_N;
    uint32_t conf = CONF0_INPUT_SIGNED | CONF0_NORM_BIAS | CONF0_QUANT_IDENTITY | CONF0_NORM_32BIT | CONF0_PREFETCH |
                    ((j->flags & TSR_NPU_WEIGHTS_NMS) ? CONF0_WEIGHTS_WMEM : 0u) | CONF0_MODE_1X1 | CONF0_NORM_QUANT |
                    CONF0_WEIGHT_BITS_8;
    if (whole) {
        JOB_REG(SCALE_PTR) = (uint32_t)(uintptr_t)j->multiplier;
        JOB_REG(SHIFT_PTR) = 0u;
        JOB_REG(BIAS_PTR) = (uint32_t)(uintptr_t)j->addend;
        conf |= j->rqs_shift << CONF0_SHIFT_AT;
    } else {
        tsr_neureka_params *p = &q->params[ctx];
        const uint64_t bound = tsr_neureka_acc_bound(j);
        for (uint32_t c = 0; c < nc; ++c) {
            tsr_neureka_requant r = {0u, 0, 0u};
            (void)tsr_neureka_requant_of(j, c0 + c, bound, &r); /* true: checked at submit */
            p->scale[c] = r.scale, p->bias[c] = r.bias, p->shift[c] = r.shift;
        }
        JOB_REG(SCALE_PTR) = (uint32_t)(uintptr_t)p->scale;
        JOB_REG(SHIFT_PTR) = (uint32_t)(uintptr_t)p->shift;
        JOB_REG(BIAS_PTR) = (uint32_t)(uintptr_t)p->bias;
        conf |= CONF0_NORM_SHIFT;
    }
    /* The engine adds the weight memory's base to the weights' address (TCDM's: masked off). */
    JOB_REG(W_PTR) = (uint32_t)((uintptr_t)(j->weights + (size_t)c0 * tsr_npu_channel_words(j->k, 8u)) - SIRACUSA_WMEM_BASE);
    JOB_REG(X_PTR) = (uint32_t)(uintptr_t)j->input;
    JOB_REG(Y_PTR) = (uint32_t)(uintptr_t)(j->output + c0);
    /* A context keeps its registers from job to job (GVSoC's model, as the RTL's register
     * file): a job of the shape its context last ran writes its pointers alone. */
    tsr_neureka_shape *last = &q->shape[ctx];
    if (last->conf != conf || last->m != j->m || last->k != j->k || last->n != nc || last->ldx != j->ldx ||
        last->ldy != j->ldy) {
        write_shape(j, nc, conf, last);
        last->m = j->m, last->k = j->k, last->n = nc, last->ldx = j->ldx, last->ldy = j->ldy, last->conf = conf;
    }
    REG(reg(SIRACUSA_NEUREKA_TRIGGER)) = 0u; /* commit and run */
    ++q->engine_issued;
    return true;
}

/* ---- the HAL queue ------------------------------------------------------------------------ */

/* depth: a power of two (the board asserts it) */
static tsr_neureka_slot *slot_of(tsr_neureka_queue *q, tsr_npu_handle h) { return &q->slots[(h - 1u) & (q->depth - 1u)]; }

/* Hands the engine what it has room for: the unfinished jobs' chunks in order, up to the
 * first job that runs on a core (what follows it waits for it). */
static void pump(tsr_neureka_queue *q)
{
    for (tsr_npu_handle h = q->first_unstarted; (int32_t)(q->issued - h) >= 0; ++h) {
        tsr_neureka_slot *s = slot_of(q, h);
        if (s->chunks == 0u) return;
        for (; s->started < s->chunks; ++s->started) {
            if (!start_chunk(q, &s->job, s->whole, s->started)) return;
            s->last = q->engine_issued;
        }
        q->first_unstarted = h + 1u;
    }
}

/* Finishes jobs in order up to `handle`; sleeping on the engine when it must, or, when it
 * must not, returning what is done. */
static void advance(tsr_neureka_queue *q, tsr_npu_handle handle, bool sleep)
{
    while ((int32_t)(q->done - handle) < 0) {
        if ((int32_t)(q->issued - q->first_unstarted) >= 0) pump(q);
        tsr_neureka_slot *s = slot_of(q, q->done + 1u);
        const uint32_t finished = engine_done(q);
        if (s->chunks == 0u && finished == q->engine_issued) { /* its turn, the engine idle */
            tsr_npu_run_job(&s->job);
            ++q->core_jobs, ++q->done;
            q->first_unstarted = q->done + 1u;
        } else if (s->chunks != 0u && s->started == s->chunks && (int32_t)(finished - s->last) >= 0) {
            ++q->engine_jobs, ++q->done;
        } else if (sleep) {
            sleep_on_engine();
        } else {
            return;
        }
    }
}

/* Queues checked job h in its slot (its chunks started as the engine frees its contexts). */
__attribute__((noinline)) static void queue_job(tsr_neureka_queue *q, tsr_neureka_slot *s, const tsr_npu_job *job)
{
    s->job = *job;
    s->started = 0u;
    if (s->whole) {
        s->chunks = 1u; /* its producer's promise (tessera/npu.h): the stage gives its integers */
    } else {
        s->chunks = (job->n + TSR_NPU_BLOCK_N - 1u) / TSR_NPU_BLOCK_N;
        const uint64_t bound = tsr_neureka_acc_bound(job);
        for (uint32_t c = 0; c < job->n && s->chunks; ++c) {
            tsr_neureka_requant r;
            if (!tsr_neureka_requant_of(job, c, bound, &r)) s->chunks = 0u; /* the stage cannot: a core runs it */
        }
    }
    ++q->issued;
    pump(q);
}

tsr_hal_status tsr_neureka_submit(void *queue, const tsr_npu_job *job, tsr_npu_handle *out)
{
    tsr_neureka_queue *q = (tsr_neureka_queue *)queue;
    if (out == NULL) return TSR_HAL_INVALID;
    const tsr_hal_status st = tsr_npu_check_job(job, q->regions);
    if (st != TSR_HAL_OK) return st;
    if (q->issued - q->done >= q->depth) return TSR_HAL_BUSY;
    const tsr_npu_handle h = q->issued + 1u;
    tsr_neureka_slot *s = slot_of(q, h);
    s->whole = tables_in_place(q, job);
    if (s->whole && q->first_unstarted == h && start_chunk(q, job, true, 0u)) { /* straight to the engine */
        s->chunks = s->started = 1u;
        s->last = q->engine_issued;
        q->first_unstarted = h + 1u;
        q->issued = h;
    } else {
        queue_job(q, s, job);
    }
    *out = h;
    return TSR_HAL_OK;
}

static bool issued(const tsr_neureka_queue *q, tsr_npu_handle h) { return h != 0u && (int32_t)(q->issued - h) >= 0; }

tsr_hal_status tsr_neureka_poll(void *queue, tsr_npu_handle handle, bool *done)
{
    tsr_neureka_queue *q = (tsr_neureka_queue *)queue;
    if (done == NULL || !issued(q, handle)) return TSR_HAL_INVALID;
    advance(q, handle, false);
    *done = (int32_t)(q->done - handle) >= 0;
    return TSR_HAL_OK;
}

tsr_hal_status tsr_neureka_wait(void *queue, tsr_npu_handle handle)
{
    tsr_neureka_queue *q = (tsr_neureka_queue *)queue;
    if (!issued(q, handle)) return TSR_HAL_INVALID;
    advance(q, handle, true);
    return TSR_HAL_OK;
}
