// The NPU's job queue as the runtime keeps it: submit, join by step, wait.
#ifndef TESSERA_OPS_NPU_QUEUE_H
#define TESSERA_OPS_NPU_QUEUE_H

#include "dma.h"

namespace tsr {

// The NPU queue as core 0 uses it. Jobs complete in order, so waiting for one waits
// for every older one. A full queue is waited out (its oldest job) and the submit
// retried; a job whose output a later step reads is waited for before that step
// (join); the first failure sticks and every later call is a no-op.
class Npu {
public:
    explicit Npu(const tsr_hal_board *board) : board_(board) {}
    // Queues `job` for step `step`; it must be done before step `join` begins. 0 on failure.
    tsr_npu_handle submit(const tsr_npu_job &job, uint32_t step, uint32_t join);
    // Waits for the job `handle` (and so for every older one).
    void wait(tsr_npu_handle handle);
    // Before step `index`: waits for the jobs that must be done by then. The step that
    // submitted the newest of them (the profiler charges it the wait), or kNoStep: none.
    uint32_t join(uint32_t index);
    uint32_t drain() { return join(0xFFFFFFFFu); }
    static constexpr uint32_t kNoStep = 0xFFFFFFFFu;
    bool pending() const { return count_ != 0u; }
    bool failed() const { return status_ != TSR_HAL_OK; }
    tsr_hal_status status() const { return status_; }
    uint32_t failed_step() const { return failed_step_; }
    uint32_t jobs = 0;         // submitted so far in this run
    bool timed = false;        // profiling: wait_cycles counts the board cycles spent waiting
    uint64_t wait_cycles = 0;

private:
    static constexpr uint32_t kPending = 32;
    struct Pending {
        tsr_npu_handle handle;
        uint32_t join; // the step that reads its output
        uint32_t step; // the step that submitted it
    };
    void wait_at(uint32_t i);         // waits for the i-th oldest pending job (and the older ones)
    void pop_through(uint32_t count); // the oldest `count` pending jobs are done
    const tsr_hal_board *board_;
    Pending pending_[kPending];
    uint32_t head_ = 0, count_ = 0;
    uint32_t full_ = kPending; // jobs pending when the board last said BUSY: its queue's depth
    tsr_hal_status status_ = TSR_HAL_OK;
    uint32_t failed_step_ = 0;
};

} // namespace tsr

#endif
