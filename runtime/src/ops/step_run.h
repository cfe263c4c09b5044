// One step's run on one core: the tile loop (the execution model in op.h).
#ifndef TESSERA_OPS_STEP_RUN_H
#define TESSERA_OPS_STEP_RUN_H

#include "run_state.h"

namespace tsr {

// One step's run on one core.
class StepRun {
public:
    StepRun(RunState &run, uint32_t index, uint32_t core, uint32_t cores);

    RunState &run;
    const tsr_step &step;
    uint32_t index;
    uint32_t rows, pos; // this run's rows for this step, and the first row's position
    uint32_t core, cores;
    // Who computes. Work in coarse items (attention's heads) runs on every core: (core,
    // cores). Work that splits finely (matmul columns, elements, rows) runs on the
    // workers: (worker, workers); from kControllerOnlyFrom cores on, core 0 is not one
    // of them (fine is false), since it also drives the DMA engine and walks the
    // schedule (about a hundred instructions a transfer, as many a step), which on top
    // of a full share would make it the slowest core.
    // The numbering of the workers turns with the step index: where a split is uneven
    // (64 columns over 7 workers), the spare items fall on a different worker each step.
    // A step of one tile is the exception: its transfers come before and after the
    // compute, so core 0 takes a share too (every_core_works, from tiles()).
    static constexpr uint32_t kControllerOnlyFrom = 5;
    bool fine;
    uint32_t worker, workers;
    const ResolvedStep &resolved;
    uint8_t *const *addr;  // resolved.addr
    uint8_t *const *stage; // resolved.stage
    // A tensor the params name (validated at open).
    const uint8_t *constant(uint32_t id) const { return tensor_address(run.img, run.board, id); }

    // Buffer `tile` of operand k's staging (alternating when it has two: without a
    // division, which costs RV32 cores up to 35 cycles).
    uint8_t *slot(uint32_t k, uint32_t tile) const
    {
        const uint32_t n = resolved.slots[k], i = n == 2u ? tile & 1u : n > 2u ? tile % n : 0u;
        return stage[k] + (size_t)i * resolved.slot_bytes[k];
    }
    // Operand k's tile: its staging buffer, or the tensor itself at byte `offset`.
    uint8_t *at(uint32_t k, uint32_t tile, size_t offset) const { return stage[k] ? slot(k, tile) : addr[k] + offset; }

    // Boards that check (the host board in tests) see every kernel operand range but
    // those an image planned with operands in place reads where they lie.
    void check(const void *p, uint64_t bytes, uint32_t operand) const
    {
        if (!run.check_operand) return;
        if ((run.img.header->flags & TSR_IMAGE_OPERANDS_IN_PLACE) && operand < TSR_MAX_OPERANDS && !stage[operand])
            return;
        run.check_operand(run.ctx, p, (uint32_t)bytes, step.op, operand);
    }
    void kernel(tsr_kernel_status st);
    void barrier() const
    {
        if (cores > 1u) run.barrier(run.ctx);
    }
    bool failed() const { return __atomic_load_n(&run.status, __ATOMIC_ACQUIRE) != TESSERA_OK; }
    Message *fail(tessera_status st) { return run.fail(st); }
    bool stopped = false; // the tile loop saw the run fail (every core sees it at the same barrier)

    // Fine work on every core, core 0 too (a step of one tile).
    void every_core_works()
    {
        fine = true;
        workers = cores;
        worker = remainder_by_cores(core + index, cores);
    }

    // The tile loop (every core): in(t) and out(t) run on core 0 and issue tile t's
    // transfers; compute(t) runs on every core. Status is read only right after the
    // barrier that follows core 0's part, where no core can be changing it. Tile t + 1's
    // inputs move while tile t computes, into buffers tile t does not read.
    template <typename In, typename Compute, typename Out>
    void tiles(uint32_t count, In in, Compute compute, Out out)
    {
        if (count == 1u) every_core_works(); // core 0 has no transfer to issue while the tile computes
        const uint32_t fetch_at = resolved.fetches ? count - 1u : count; // the tile that fetches ahead, if any
        tsr_dma_handle ready[2] = {0, 0};
        // The newest transfer a tile waits for: none while the step has issued none (the
        // drain below completed the earlier steps'), as where operands lie in place.
        uint32_t issued = 0;
        auto newest = [&] {
            const tsr_dma_handle last = run.dma.last(); // issues a gather in()'s last calls left
            return run.dma.transfers != issued ? last : 0u;
        };
        for (uint32_t t = 0; t < count; ++t) {
            if (core == 0u) {
                if (t == 0u) {
                    run.start(index); // what earlier steps left in flight
                    issued = run.dma.transfers;
                    if (!failed()) in(0u);
                    ready[0] = newest();
                } else if (!failed()) {
                    out(t - 1u);
                }
                if (t + 1u < count && !failed()) {
                    in(t + 1u);
                    ready[(t + 1u) % 2u] = newest();
                }
                run.dma.wait(ready[t % 2u]);
                run.settle(index);
                if (t == fetch_at) run.fetch_ahead(index);
            }
            barrier();
            if (failed()) {
                stopped = true;
                return;
            }
            compute(t);
            barrier();
        }
        if (core == 0u && count > 0u) out(count - 1u); // the next step waits for it
    }

    // A step of one tile whose operands all lie in place (resolved.staged is 0): compute()
    // on every core, with no transfer of its own; core 0 first waits for what earlier steps
    // left in flight. The tile loop's short form.
    template <typename Compute> void tile_in_place(Compute compute)
    {
        every_core_works();
        if (core == 0u) {
            run.start(index);
            if (resolved.fetches) run.fetch_ahead(index);
        }
        barrier();
        if (failed()) {
            stopped = true;
            return;
        }
        compute();
        barrier();
    }

    // The tile loop without prefetch: a tile's inputs move once the tile before has
    // computed (a tile that fills every buffer it has: attention's keys and values at once).
    template <typename In, typename Compute, typename Out>
    void tiles_in_turn(uint32_t count, In in, Compute compute, Out out)
    {
        if (count == 1u) every_core_works();
        for (uint32_t t = 0; t < count; ++t) {
            if (core == 0u) {
                if (t == 0u) {
                    run.start(index); // what earlier steps left in flight
                } else if (!failed()) {
                    out(t - 1u);
                }
                const uint32_t issued = run.dma.transfers;
                if (!failed()) in(t);
                const tsr_dma_handle last = run.dma.last(); // issues a gather in() left
                run.dma.wait(run.dma.transfers != issued ? last : 0u);
                run.settle(index);
                if (t + 1u == count && resolved.fetches) run.fetch_ahead(index);
            }
            barrier();
            if (failed()) {
                stopped = true;
                return;
            }
            compute(t);
            barrier();
        }
        if (core == 0u && count > 0u) out(count - 1u); // the next step waits for it
    }

};

} // namespace tsr

#endif
