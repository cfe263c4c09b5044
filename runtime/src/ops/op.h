// What each operator's device file provides (OpDevice: validate, geometry, run). What
// they share is a header each: operand checks (op_checks.h: StepChecker), the DMA engine
// as the tile loops use it (dma.h), the NPU's queue (npu_queue.h), what open makes of a
// step (prepared_step.h), a schedule's run (run_state.h), one step's run on one core
// (step_run.h: StepRun), variants and their registration (variant_rows.h). StepRun's
// tile loop is the execution model:
//
//   A schedule runs as one cluster task. Every core walks the steps; a step runs
//   tile by tile. Before each tile, core 0 alone moves data: it issues the next
//   tile's inputs (prefetch, into the other buffer), issues the previous tile's
//   outputs and waits for this tile's inputs; a barrier; every core computes its
//   share of the tile; a barrier. Only core 0 ever calls the DMA engine, and it
//   changes the run's status only between barriers, so every core reads the same
//   status after one and they stop together.
#ifndef TESSERA_OPS_OP_H
#define TESSERA_OPS_OP_H

#include "variant_rows.h"

namespace tsr {

// ---- the operators ------------------------------------------------------------------

// What a step's shape says of the model its image's header describes, in the header's
// terms (0: nothing): the vocabulary and width an embedding maps, an attention's heads,
// a feed-forward's inner width. An operator checks only its shapes and what its kernels
// need; the header is held to every step's shape in one place (validate.cpp).
struct ModelShape {
    uint32_t vocab_size, dim, hidden_dim, n_heads, n_kv_heads;
};

struct OpDevice {
    tessera_status (*validate)(StepChecker &c);
    StepGeometry (*geometry)(const tsr_step &s, uint32_t rows, uint32_t cores);
    void (*run)(StepRun &r); // every core; data-movement operators and NPU steps: core 0 alone
    bool npu;                // whether it has an NPU form (engine NPU): run by core 0 without barriers
    // At open, once the image is bound (its constants where kernels read them): what
    // its run may take as known of a validated step's constants (ResolvedStep::facts),
    // or nullptr.
    uint8_t (*facts)(const ImageView &img, const tsr_hal_board *board, const tsr_step &s);
    // Where its first tile copies a constant operand from the tensor's start into staging:
    // that operand (*operand) and the bytes (0: none), which the step before may fetch
    // ahead (resolve_steps: where nothing of that step's lies there), or nullptr.
    uint32_t (*ahead)(const tsr_step &s, uint32_t *operand);
    // At open, for a step of one tile with every operand in place run by every core (a
    // token's usual step): its kernel call (PreparedCall), or false where its variant has
    // none; nullptr: none of its variants has one.
    bool (*prepare)(const PrepareContext &c, PreparedCall &out);
    // At open, for an NPU step with no staging: its one job (PreparedNpuJob), or false where
    // it runs several or streams its weights; nullptr: it has no NPU form.
    bool (*prepare_npu)(const PrepareContext &c, PreparedNpuJob &out);
    // What its step's shape says of the model (ModelShape), or nullptr: nothing.
    void (*model_shape)(const tsr_step &s, ModelShape &out) = nullptr;
};

// Data-movement operators: no kernel touches an operand, there are no tiles.
StepGeometry move_geometry(const tsr_step &s, uint32_t rows, uint32_t cores);

// The operator with id `op`, or null.
const OpDevice *op_device(uint32_t op);

} // namespace tsr

#endif
