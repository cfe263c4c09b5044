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

// Core 0, profiling: what step i's entry gets since the clock last read, from the
// counters as they were then (`before`). A step ends where the next begins.
struct Counters {
    uint32_t bytes, transfers, jobs;
    uint64_t dma_wait, npu_wait;
};

Counters counters(const RunState &run)
{
    return Counters{run.dma.bytes, run.dma.transfers, run.npu.jobs, run.dma.wait_cycles, run.npu.wait_cycles};
}

// The caller's profile may sit in slow memory (pulp-rtl: L2, 8 cycles a load or store):
// a field is read and written only when it changes, which most do not in most steps.
template <typename T> void add(uint64_t &field, T delta)
{
    if (delta) field += delta;
}

void charge(Task &task, uint32_t i, const Counters &before, bool ran)
{
    const RunState &run = task.run;
    const uint64_t now = run.board->ops->cycles(run.board->ctx);
    tessera_step_profile &p = task.profile[i];
    add(p.runs, ran ? 1u : 0u);
    add(p.forks, ran && i == 0u ? 1u : 0u); // the run's one fork, opened for its first step
    add(p.cycles, now - task.clock);
    add(p.dma_bytes, run.dma.bytes - before.bytes);
    add(p.dma_transfers, run.dma.transfers - before.transfers);
    add(p.npu_jobs, run.npu.jobs - before.jobs);
    add(p.dma_wait_cycles, run.dma.wait_cycles - before.dma_wait);
    add(p.npu_wait_cycles, run.npu.wait_cycles - before.npu_wait);
    task.clock = now;
}

// Core 0, profiling: waiting for the NPU jobs of step `waited` (Npu::join's, or kNoStep: none)
// is that step's time, not the one that waits (from `before` on, which starts again after it).
__attribute__((noinline)) void charge_wait(Task &task, uint32_t waited, Counters &before)
{
    if (waited == Npu::kNoStep) return;
    charge(task, waited, before, false);
    before = counters(task.run);
}

// A step whose kernel call open made (ResolvedStep::prepared: one tile, every operand in
// place but one fetched ahead, every core): tile_in_place's two barriers around the call (a
// chained step's second only), with the run's rows for the step and its position, each core
// worker (core + turn) % cores of them as StepRun numbers it. Whether the run stopped.
// (Inlined in both run_task loops: a call a step and core costs the Deeploy graphs 1 to 2 %.)
__attribute__((always_inline)) inline bool run_prepared(RunState &run, const ResolvedStep &resolved, uint32_t i,
                                                        uint32_t core, uint32_t cores, uint32_t turn)
{
    if (core == 0u) {
        if (resolved.ahead_bytes && run.ahead != i) run.fetch(i); // not fetched ahead (the run's first step)
        run.start(i); // what earlier steps left in flight, its operand fetched ahead among them
        if (resolved.fetches) run.fetch_ahead(i);
    }
    // A chained step's cores go on from the step before's barrier: a failure core 0 settles
    // now stops them all at the next step's first barrier.
    if (!resolved.chained) {
        if (cores > 1u) run.barrier(run.ctx);
        if (__atomic_load_n(&run.status, __ATOMIC_ACQUIRE) != TESSERA_OK) return true;
    }
    const uint32_t worker = core + turn < cores ? core + turn : core + turn - cores;
    if (resolved.call.call(resolved.call, resolved.one_row ? 1u : run.rows, run.pos, worker, cores) != TSR_KERNEL_OK)
        __atomic_store_n(&run.refused, i + 1u, __ATOMIC_RELAXED);
    if (cores > 1u) run.barrier(run.ctx);
    return false;
}

// Core 0 alone: an NPU step whose one job open made (ResolvedStep::prepared kNpuJob; matmul's
// prepare_npu), submitted as run_npu submits it, with the run's rows and the step's operands.
inline void run_npu_job(RunState &run, const ResolvedStep &resolved, uint32_t i)
{
    const PreparedNpuJob &t = resolved.npu_job;
    const uint32_t rows = resolved.one_row ? 1u : run.rows;
    const tsr_npu_job job = t.job(rows, resolved.addr[0], resolved.addr[1], resolved.addr[2], 0u, t.n);
    run.dma.drain(); // what it reads, where a transfer wrote it
    run.npu.submit(job, i, t.join);
    run.settle(i);
    run.settle_npu();
}

// Lending: the image lends the board L2 to read ahead in (ImageView::loan), so that steps may
// ask it to (ResolvedStep::prefetches): a loop of its own, so that no other run checks.
template <bool Lending> void run_task(void *arg, uint32_t core, uint32_t cores)
{
    Task &task = *static_cast<Task *>(arg);
    RunState &run = task.run;
    const tsr_hal_board *board = run.board;
    const bool profiling = core == 0u && task.profile != nullptr; // core 0 drives (and counts) the DMA engine and NPU
    // Read once: the board's tables and the schedule may sit in slow memory (pulp-rtl: L2).
    const auto trace = board->ops->trace;
    const uint32_t steps = run.schedule.header->step_count;
    uint32_t last = 0;
    uint32_t turn = 0; // i % cores: where the numbering of a step's workers starts (StepRun)
    for (uint32_t i = 0; i < steps; ++i) {
        const tsr_step &step = run.schedule.steps[i];
        Counters before; // read only when profiling (zeroing it costs a memset a step on some cores)
        if (profiling) before = counters(run);
        // Data movement and NPU steps are core 0's alone: it drives the DMA engine and
        // the NPU queue; the other cores go on to the next shared step and wait at its
        // first barrier. So are cluster steps too small to share on this board (solo):
        // core 0 runs them as a cluster of one, without barriers. Before any step,
        // core 0 waits for the NPU jobs it reads.
        const ResolvedStep &resolved = run.resolved[i]; // resolve_steps
        const bool alone = resolved.alone != 0u, solo = resolved.alone == ResolvedStep::kSolo;
        if (core == 0u && run.npu.pending()) {
            const uint32_t waited = run.npu.join(i);
            run.settle_npu();
            if (profiling) charge_wait(task, waited, before);
        }
        if (alone && (core != 0u || run.status != TESSERA_OK)) {
            if (++turn == cores) turn = 0u;
            continue;
        }
        if constexpr (Lending)
            if (core == 0u && resolved.prefetches) run.prefetch(i);
        const char *label = trace ? tsr_op_name(step.op) : nullptr;
        if (trace) trace(board->ctx, core, label, step.layer, run.pos, true);
        bool stopped;
        if (resolved.prepared == ResolvedStep::kNpuJob) {
            run_npu_job(run, resolved, i);
            stopped = false; // alone: a failure stops the others at the next shared step
        } else if (resolved.prepared) {
            stopped = run_prepared(run, resolved, i, core, cores, turn);
        } else {
            StepRun r(run, i, core, solo ? 1u : cores);
            resolved.run(r);
            stopped = r.stopped;
        }
        if (core == 0u) run.dma.flush(); // a step's gathers are its own transfers
        if (trace) trace(board->ctx, core, label, step.layer, run.pos, false);
        if (profiling) charge(task, i, before, true);
        last = i;
        // Every core stops at the same step; core 0, alone in a step, stops the others
        // at the next shared step's first barrier (or at the run's end).
        if (stopped && !alone) break;
        if (++turn == cores) turn = 0u;
    }
    if (core == 0u) {
        Counters before;
        if (profiling) before = counters(run);
        const uint32_t waited = run.npu.drain();
        run.settle_npu();
        if (profiling) charge_wait(task, waited, before);
        run.dma.drain_all(); // a fetch ahead too, where the run stopped before the step it is for
        if constexpr (Lending) run.end_loan();
        run.settle(steps - 1u);
        if (profiling) charge(task, last, before, false); // the run's final drain: its last step's
    }
}

} // namespace

tessera_status run_schedule(const ImageView &img, const tsr_hal_board *board, const ScheduleView &schedule,
                            uint32_t rows, uint32_t pos, Message &err, tessera_step_profile *profile,
                            RunCounters *counters)
{
    Task task{RunState(img, board, schedule, rows, pos, err), profile,
              profile ? board->ops->cycles(board->ctx) : 0u};
    task.run.dma.timed = task.run.npu.timed = profile != nullptr;
    if (board->ops->cluster_fork(board->ctx, img.loan ? run_task<true> : run_task<false>, &task) != TSR_HAL_OK) {
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
