// One schedule run, shared by every core, and the divisions its tile loops take.
#ifndef TESSERA_OPS_RUN_STATE_H
#define TESSERA_OPS_RUN_STATE_H

#include "prepared_step.h"

namespace tsr {

// One schedule run, shared by every core of the task.
struct RunState {
    RunState(const ImageView &i, const tsr_hal_board *b, const ScheduleView &s, uint32_t r, uint32_t p, Message &e)
        : img(i), board(b), schedule(s), rows(r), pos(p), err(e), dma(b), npu(b), ctx(b->ctx),
          barrier(b->ops->cluster_barrier), check_operand(b->ops->check_kernel_operand)
    {
        resolved = (const ResolvedStep *)tensor_address(i, b, i.header->step_table_tensor);
        if (&s == &i.token) resolved += i.prompt.header->step_count;
    }
    const ResolvedStep *resolved; // this schedule's steps
    const ImageView &img;
    const tsr_hal_board *board;
    const ScheduleView &schedule;
    uint32_t rows, pos;
    Message &err;                  // core 0
    Dma dma;                       // core 0
    Npu npu;                       // core 0
    // What every core calls at every step, read once a run from the board's tables (which
    // may sit in slow memory: siracusa's L2).
    void *const ctx;
    void (*const barrier)(void *);
    void (*const check_operand)(void *, const void *, uint32_t, uint32_t, uint32_t);
    uint32_t status = TESSERA_OK;  // tessera_status: core 0 writes it between barriers only
    uint32_t refused = 0;          // 1 + index of a step whose kernel refused its arguments (any core)
    uint32_t ahead = 0xFFFFFFFFu;  // core 0: the step whose first tile's constant operand is fetched (fetch_ahead)
    tsr_dma_handle ahead_handle = 0; // core 0: that fetch's transfer

    // Core 0, in step `index`'s last tile once its own transfers are issued: a later step's
    // constant operand's first tile (ResolvedStep::fetches, ahead_bytes) into that step's
    // staging, so that it moves while this step and those up to it compute; that step's
    // tile loop skips it.
    void fetch_ahead(uint32_t index);
    // Core 0: step `index`'s fetch ahead (a prepared step's, where no step before made it:
    // a run's first step).
    void fetch(uint32_t index);
    // Core 0, as step `index` starts (ResolvedStep::prefetches): the board asked to read ahead
    // a later step's off-chip constant, as many of its tiles as the run's loan holds.
    void prefetch(uint32_t index);
    // Core 0, at the run's end, once every transfer is waited for: the loan, if made, ended.
    void end_loan();
    bool lent = false; // core 0: a prefetch lent the board img.loan
    // Core 0, as step `index` starts: waits for what earlier steps left in flight that it may
    // read (Dma::drain), its own fetch ahead among them, and settles the run's status.
    void start(uint32_t index)
    {
        dma.drain();
        if (ahead == index) dma.wait(ahead_handle);
        settle(index);
    }

    // Core 0: the run's first failure (nullptr once there is one: keep its message).
    Message *fail(tessera_status st);
    // Core 0: a DMA failure or a refused kernel becomes the run's status (between the
    // tiles of every step); settle_npu does the same for an NPU failure, where NPU
    // jobs are submitted or waited for.
    void settle(uint32_t step) // (inline: the usual case, nothing to settle)
    {
        if (dma.failed() || __atomic_load_n(&refused, __ATOMIC_RELAXED) != 0u) settle_failure(step);
    }
    void settle_npu() // (inline: the usual case, nothing to settle)
    {
        if (npu.failed()) settle_npu_failure();
    }
    void settle_npu_failure();
    void settle_failure(uint32_t step);
};

// n / d for d >= 1, without a division where the answer needs none (n < d, d == 1): a
// division costs RV32 cores up to 35 cycles, and core 0 decodes every tile of a step,
// most of them such cases in a token. (GCC at -O3 may fold the d == 1 path back into the
// division, n / 1 being n; an empty asm keeping it made the Deeploy prompts 3 % slower on
// GVSoC. A decoder that meets d = 1 on every tile takes a Divider.)
inline uint32_t quotient(uint32_t n, uint32_t d) { return n < d ? 0u : d == 1u ? n : n / d; }

// n % d for a core count d >= 1 (tsr_quotient_by_cores: no division for a cluster's).
inline uint32_t remainder_by_cores(uint32_t n, uint32_t d) { return n - tsr_quotient_by_cores(n, d) * d; }

// n / d for a d >= 1 fixed over many n: one division when made (none for d = 1), then a
// multiplication by floor((2^32 - 1) / d), whose product's high word is n / d or one less.
class Divider {
public:
    explicit Divider(uint32_t d) : d_(d), m_(d > 1u ? 0xFFFFFFFFu / d : 0u) {}
    uint32_t operator()(uint32_t n) const
    {
        if (d_ == 1u) return n;
        uint32_t q = (uint32_t)(((uint64_t)n * m_) >> 32);
        if (n - q * d_ >= d_) ++q;
        return q;
    }

private:
    uint32_t d_, m_;
};

} // namespace tsr

#endif
