// What open makes of a step: its resolved variant and staging, its prepared kernel call
// or NPU job.
#ifndef TESSERA_OPS_PREPARED_STEP_H
#define TESSERA_OPS_PREPARED_STEP_H

#include "npu_queue.h"

namespace tsr {

// A step's kernel call made once, at open (OpDevice::prepare): its kernel's arguments,
// built from the step's parameters and operands where they lie, and the function that
// passes them to the kernel on each core (worker of workers: the step's split), with the
// run's rows for the step and its position (for what depends on them: a count of elements,
// RoPE's table row). What a step of one tile with every operand in place needs of its run
// (a token's usual step; a prompt's where L1 holds its rows): the executor calls it between
// the step's two barriers, with no tile loop, parameters or variant row read while the
// schedule runs (a token runs some sixty such steps).
struct PreparedCall {
    static constexpr uint32_t kArgBytes = 72; // what the step table's entry leaves (64-bit hosts)
    tsr_kernel_status (*call)(const PreparedCall &p, uint32_t rows, uint32_t pos, uint32_t worker, uint32_t workers);
    alignas(8) uint8_t args[kArgBytes];
    template <typename Args> const Args &as() const { return *reinterpret_cast<const Args *>(args); }
    template <typename Args>
    void set(tsr_kernel_status (*f)(const PreparedCall &, uint32_t, uint32_t, uint32_t, uint32_t), const Args &a)
    {
        static_assert(sizeof(Args) <= kArgBytes && alignof(Args) <= 8u, "a prepared call's arguments fit it");
        call = f;
        memcpy(args, &a, sizeof a);
    }
};

// An NPU step of one job whose weights the engine reads in place (TSR_NPU_WEIGHTS_NMS) and
// whose operands lie in place, made at open (OpDevice::prepare_npu) but for its rows, and its
// input, weights and output, which are the step's operands 0, 1 and 2 (ResolvedStep::addr):
// core 0 submits it with no tile, descriptor or parameter read while the schedule runs (a
// microLlama token runs 56 of them).
struct PreparedNpuJob {
    const int32_t *multiplier; // its n multipliers; the shifts (GEMM_I8) or addends follow them
    uint32_t kind, flags, weight_bits, n, k, ldx, ldy, rqs_shift, tag;
    uint32_t join; // the step that reads its output (Npu::submit)
    // The job of `rows` rows of input x for output channels c0 .. c0 + channels - 1, their
    // weights at w, into y's columns c0.. (every field set: a memset of a descriptor costs
    // core 0 some 200 cycles, picolibc's byte loop).
    tsr_npu_job job(uint32_t rows, const uint8_t *x, const uint8_t *w, uint8_t *y, uint32_t c0, uint32_t channels) const
    {
        const bool table = kind == TSR_NPU_GEMM_I8; // a shift a channel after the multipliers; else addends
        tsr_npu_job j;
        j.kind = kind;
        j.flags = flags;
        j.weight_bits = weight_bits;
        j.m = rows;
        j.n = channels;
        j.k = k;
        j.ldx = ldx;
        j.ldy = ldy;
        j.weights = (const uint32_t *)w;
        j.input = (const int8_t *)x;
        j.output = (int8_t *)y + c0;
        j.multiplier = multiplier + c0;
        j.shift = table ? (const int8_t *)(multiplier + n) + c0 : nullptr;
        j.tag = tag;
        j.addend = table ? nullptr : multiplier + n + c0;
        j.rqs_shift = rqs_shift;
        return j;
    }
};

struct ResolvedStep;
// What an operator's prepare reads of a step at open (OpDevice::prepare).
struct PrepareContext {
    const ImageView &img;
    const tsr_hal_board *board;
    const tsr_step &step;
    const ResolvedStep &resolved;
    uint32_t rows; // the most the step runs with (a token's: 1); a run's are its call's
    const uint8_t *constant(uint32_t id) const { return tensor_address(img, board, id); }
    // Where the call's kernel finds operand k: the tensor itself, or, for the constant operand
    // a step before fetches ahead whole (ResolvedStep::ahead_bytes), its staging.
    uint8_t *at(uint32_t k) const;
    // StepRun::check's, made once: `bytes` of operand k from at(k), which the kernel reads or writes.
    void check(uint32_t k, uint64_t bytes) const;
};
// A variant's prepare: fills `out` and says true, or says false (its run runs the step).
using Prepare = bool (*)(const PrepareContext &c, PreparedCall &out);

// A step as the executor runs it, resolved once at open (resolve_steps) into the
// image's step table, an entry of TSR_STEP_TABLE_ENTRY_BYTES per step: the prompt
// schedule's steps, then the token schedule's.
class StepRun;
struct ResolvedStep {
    void (*run)(StepRun &r);              // its operator's (OpDevice::run)
    uint8_t *addr[TSR_MAX_OPERANDS];      // the tensors themselves (any region)
    uint8_t alone;                         // kControllerOnly or kSolo: core 0 runs it alone (or 0: every core)
    uint8_t variant;                       // its variant's index in tsr_variants (registered_variant)
    int8_t zero[TSR_MAX_OPERANDS];         // each operand's zero point (int8 tensors; else 0)
    uint8_t facts;                         // what open found of its constants (OpDevice::facts; else 0)
    uint8_t staged;                        // whether any operand has staging (else every one lies in place)
    uint8_t ahead_operand;                 // with ahead_bytes: the operand fetched ahead
    uint8_t fetches;                       // n > 0: step index + n's ahead_bytes are fetched in this step (0: none)
    uint8_t prepared;                      // kCall: `call` holds its run, kNpuJob: `npu_job` does (the
                                           // staging layout below is not kept); 0: neither
    uint8_t one_row;                       // 1: it runs one row whatever the run's (TSR_STEP_ONE_ROW)
    uint8_t chained;                       // prepared after a prepared step, waiting for no fetch: no barrier before its call
    uint8_t prefetches;                    // n > 0: step index + n's off-chip constant is read ahead from this step on
                                           // (tsr_hal_ops.dma_prefetch; resolve_steps), 0: none
    uint32_t ahead_bytes;                  // its first tile's bytes, which a step before fetches into its
                                           // staging while it computes (OpDevice::ahead), or 0
    union {
        struct {
            uint8_t *stage[TSR_MAX_OPERANDS];     // their L1 staging, or null when used in place
            uint32_t slot_bytes[TSR_MAX_OPERANDS]; // the geometry's staging layout (as validated:
            uint8_t slots[TSR_MAX_OPERANDS];       // the step's most rows, the plan's cores)
        };
        PreparedCall call;      // prepared kCall: a step with no staging, which needs none of the above
        PreparedNpuJob npu_job; // prepared kNpuJob
    };
    static constexpr uint8_t kCall = 1;
    static constexpr uint8_t kNpuJob = 2;
    static constexpr uint8_t kControllerOnly = 1; // data movement or an NPU step
    static constexpr uint8_t kSolo = 2;           // a cluster step too small to share (tsr_hal_board.solo_bytes)
};
static_assert(sizeof(ResolvedStep) <= TSR_STEP_TABLE_ENTRY_BYTES, "a resolved step fits its table entry");

// Every step of a read image (read_image: its container is sound), checked by its
// operator (ops/validate.cpp).
tessera_status validate_steps(const ImageView &view, Message &err);

// Fills the step table of a validated image bound to `board`.
void resolve_steps(const ImageView &img, const tsr_hal_board *board);

// The L2 a run lends the board to read ahead in (ImageView::loan; none where the board takes
// no hint or its image is not off chip).
void resolve_loan(ImageView &img, const tsr_hal_board *board);

} // namespace tsr

#endif
