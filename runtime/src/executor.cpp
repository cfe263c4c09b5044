// The executor: a schedule runs as one cluster task. Every core walks the steps and
// runs each compute step's tile loop (ops/op.h); data-movement steps are core 0's
// alone. One fork per run; barriers between tiles.
#include "executor.h"

#include "ops/op.h"

namespace tsr {
namespace {

struct Task {
    RunState run;
    tessera_step_profile *profile; // core 0
    uint64_t clock;                // core 0, profiling: when the current step began
};

void trace(const RunState &run, uint32_t core, const tsr_step &step, bool begin)
{
    const tsr_hal_board *b = run.board;
    if (b->ops->trace) b->ops->trace(b->ctx, core, tsr_op_name(step.op), step.layer, run.pos, begin);
}

void run_task(void *arg, uint32_t core, uint32_t cores)
{
    Task &task = *static_cast<Task *>(arg);
    RunState &run = task.run;
    const tsr_hal_ops *ops = run.board->ops;
    for (uint32_t i = 0; i < run.schedule.header->step_count; ++i) {
        const tsr_step &step = run.schedule.steps[i];
        // Data movement and NPU steps are core 0's alone: it drives the DMA engine and
        // the NPU queue; the other cores go on to the next cluster step and wait at its
        // first barrier. Before any step, core 0 waits for the NPU jobs it reads.
        const bool controller_only = run.resolved[i].controller_only; // resolve_steps
        if (core == 0u && run.npu.pending()) {
            run.npu.join(i);
            run.settle_npu();
        }
        if (controller_only && (core != 0u || run.status != TESSERA_OK)) continue;
        uint32_t bytes = 0, transfers = 0, jobs = 0; // core 0's: only it drives (and counts) the DMA engine and NPU
        if (core == 0u && task.profile) bytes = run.dma.bytes, transfers = run.dma.transfers, jobs = run.npu.jobs;
        StepRun r(run, i, core, cores);
        if (ops->trace) trace(run, core, step, true);
        op_device(step.op)->run(r);
        if (ops->trace) trace(run, core, step, false);
        if (core == 0u && task.profile) { // one clock read a step: a step ends where the next begins
            const uint64_t now = ops->cycles(run.board->ctx);
            tessera_step_profile &p = task.profile[i];
            p.runs += 1u;
            p.forks += i == 0u ? 1u : 0u; // the run's one fork, opened for its first step
            p.cycles += now - task.clock;
            p.dma_bytes += run.dma.bytes - bytes;
            p.dma_transfers += run.dma.transfers - transfers;
            p.npu_jobs += run.npu.jobs - jobs;
            task.clock = now;
        }
        if (r.stopped) break; // every core stops at the same step
    }
    if (core == 0u) {
        run.npu.drain();
        run.settle_npu();
        run.dma.drain();
        run.settle(run.schedule.header->step_count - 1u);
    }
}

} // namespace

tessera_status run_schedule(const ImageView &img, const tsr_hal_board *board, const ScheduleView &schedule,
                            uint32_t rows, uint32_t pos, Message &err, tessera_step_profile *profile,
                            RunCounters *counters)
{
    Task task{RunState(img, board, schedule, rows, pos, err), profile,
              profile ? board->ops->cycles(board->ctx) : 0u};
    if (board->ops->cluster_fork(board->ctx, run_task, &task) != TSR_HAL_OK) {
        err.str("cluster fork failed");
        return TESSERA_ERR_HAL;
    }
    if (counters) {
        counters->forks += 1u;
        counters->dma_bytes += task.run.dma.bytes;
        counters->dma_transfers += task.run.dma.transfers;
        counters->npu_jobs += task.run.npu.jobs;
    }
    return (tessera_status)task.run.status;
}

} // namespace tsr
