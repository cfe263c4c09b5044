// What each operator's device file provides (OpDevice: validate, geometry, run) and
// what they share: operand checks (StepChecker), the DMA engine as the tile loops
// use it (Dma), and one step's run on one core (StepRun), whose tile loop is the
// execution model:
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

#include <string.h>

#include "../image_reader.h"
#include "tessera/kernels.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"
#include "tessera/npu.h"
#include "tessera/step_geometry.h"
#include "../variants/registry.h"

namespace tsr {

// ---- validation -------------------------------------------------------------------

// Operand requirements of one step, checked against the tensors it names.
struct StepChecker {
    const tsr_image_header &h;
    const tsr_tensor *tensors;
    const tsr_step &step;
    uint32_t rows; // the most rows the step runs with
    Message &err;
    uint32_t index;
    const char *schedule;
    uint32_t tokens; // the schedule's token input tensor
    const ImageView *image; // its NPU descriptors
    uint32_t step_count;    // of the schedule

    tessera_status fail(const char *what, uint32_t operand = 0xFFFFFFFFu);
    // Operand i is a tensor of `dtype` with at least `bytes` bytes; written ones must
    // be writable memory.
    tessera_status operand(uint32_t i, uint32_t dtype, uint64_t bytes, bool written);
    // Operands with a fixed role: the tensor itself (id) or its kind.
    tessera_status pinned(uint32_t i, uint32_t id, const char *what);
    tessera_status of_kind(uint32_t i, uint32_t kind, const char *what);
    // The step's element type is one of `allowed` (TSR_DTYPE_* bits: 1u << dtype).
    tessera_status dtype_in(uint32_t allowed);
    // A constant the params name (requantization tables): a weight of `dtype` and at
    // least `bytes` bytes.
    tessera_status constant(uint32_t id, uint32_t dtype, uint64_t bytes, const char *what);
    // A requantization factor (multiplier, shift) in the kernels' ranges.
    tessera_status requant(const tsr_requant_params &r, const char *what);
    tessera_status nonlinear(uint32_t v);
    // Zero points: operand i's is 0 (the variant computes with symmetric int8 only), or
    // operands i and j share theirs (a copy).
    tessera_status symmetric(uint32_t i);
    tessera_status same_zero(uint32_t i, uint32_t j);
    // The step's variant is not in this runtime (validate_steps checked that it is a row
    // of tessera/variants.def that runs the step).
    tessera_status no_variant();
};

constexpr uint32_t dtype_bit(uint32_t dtype) { return 1u << dtype; }
constexpr uint32_t kFloatTypes = dtype_bit(TSR_DTYPE_F32) | dtype_bit(TSR_DTYPE_BF16);
constexpr uint32_t kAllTypes = kFloatTypes | dtype_bit(TSR_DTYPE_I8);
// The integer exponential's constants as the int8 kernels take them (tessera/kernels_i8.h).
inline tsr_iexp_constants iexp_constants(const tsr_iexp_params &p) { return tsr_iexp_constants{p.shift, p.ln2, p.b, p.c}; }
// Bytes of one activation element of step s.
inline uint32_t act_bytes(const tsr_step &s) { return tsr_dtype_bytes(s.dtype); }

// ---- running ----------------------------------------------------------------------

// The DMA engine as core 0 uses it: a full queue is waited out and retried; the
// first failure sticks and every later call is a no-op.
class Dma {
public:
    // The entry points it calls, read once a run: the board's tables may sit in slow memory
    // (siracusa: L2, about 15 cycles a load from a cluster core).
    explicit Dma(const tsr_hal_board *board)
        : board_(board), ctx_(board->ctx), copy_2d_(board->ops->dma_copy_2d), wait_(board->ops->dma_wait),
          planes_(board->ops->dma_copy_planes)
    {
    }
    void copy_2d(void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride, uint32_t row_bytes,
                 uint32_t rows)
    {
        flush();
        issue(dst, dst_stride, src, src_stride, row_bytes, rows);
    }
    void copy(void *dst, const void *src, uint32_t bytes) { copy_2d(dst, bytes, src, bytes, bytes, 1u); }
    // Every plane of `c` as one transfer where the board takes them so (tsr_hal_ops.
    // dma_copy_planes: one call, one handle), else plane by plane.
    void copy_planes(const tsr_dma_planes &c);
    // A copy that may join the gather before it: copies of the same bytes, each whose
    // source and destination lie as far on from the one before as that one's from its own
    // (a head of each KV group, a head of a head-major cache), go as the rows of one 2D
    // transfer, issued at the next other call. For memory the cores reach (the DMA's
    // strided rows: L1 and L2), not off-chip memory.
    void gather(void *dst, const void *src, uint32_t bytes)
    {
        Gather &g = gather_;
        if (dst == g.next_dst && src == g.next_src && bytes == g.bytes && g.rows > 1u) { // a third row or later
            ++g.rows;
            g.next_dst += g.dst_stride;
            g.next_src += g.src_stride;
            return;
        }
        gather_slow(static_cast<uint8_t *>(dst), static_cast<const uint8_t *>(src), bytes);
    }
    void wait(tsr_dma_handle h) // (inline: most waits find the transfer done already, or none)
    {
        if (h != 0u && h != drained_ && h != waited_ && !failed()) wait_hal(h);
    }
    // What a step waits for before it starts: every transfer issued so far but the fetches
    // ahead issued after the last of the others (they complete in order), which the steps
    // they are for wait for themselves (RunState::fetch).
    void drain() { wait(needed()); }
    void drain_all() { wait(last()); } // a no-op once it has waited for last_
    tsr_dma_handle last()
    {
        flush();
        return last_;
    }
    tsr_dma_handle needed()
    {
        flush();
        return needed_;
    }
    // A copy that no step but the one it is for waits for (a fetch ahead): its handle.
    tsr_dma_handle fetch(void *dst, const void *src, uint32_t bytes)
    {
        flush();
        const tsr_dma_handle before = needed_;
        issue(dst, bytes, src, bytes, bytes, 1u);
        needed_ = before;
        return last_;
    }
    void flush() // issues the gather, if any
    {
        if (gather_.rows) flush_gather();
    }
    bool failed() const { return status_ != TSR_HAL_OK; }
    tsr_hal_status status() const { return status_; }
    uint32_t bytes = 0, transfers = 0; // moved so far in this run
    bool timed = false;                // profiling: wait_cycles counts the board cycles spent waiting
    uint64_t wait_cycles = 0;

private:
    void wait_hal(tsr_dma_handle h);
    void issue(void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride, uint32_t row_bytes, uint32_t rows);
    void gather_slow(uint8_t *dst, const uint8_t *src, uint32_t bytes);
    void flush_gather();
    struct Gather {
        uint8_t *dst, *next_dst; // its first row, and where a next row would be
        const uint8_t *src, *next_src;
        uint32_t bytes, rows, dst_stride, src_stride;
    };
    Gather gather_ = {};
    const tsr_hal_board *board_;
    void *ctx_;
    tsr_hal_status (*copy_2d_)(void *, void *, uint32_t, const void *, uint32_t, uint32_t, uint32_t, tsr_dma_handle *);
    tsr_hal_status (*wait_)(void *, tsr_dma_handle);
    tsr_hal_status (*planes_)(void *, const tsr_dma_planes *, tsr_dma_handle *);
    tsr_dma_handle last_ = 0;
    tsr_dma_handle needed_ = 0;  // the last transfer but fetches ahead
    tsr_dma_handle drained_ = 0; // last_ when it was waited for: every transfer so far is done
    tsr_dma_handle waited_ = 0;  // the last handle waited for
    tsr_hal_status status_ = TSR_HAL_OK;
};

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

// ---- variants ---------------------------------------------------------------------------
//
// An operator's variants are rows of tessera/variants.def (the element type and
// arithmetic each runs). Its device file registers an implementation for each
// (TSR_REGISTER_VARIANT): the checks of the variant's own parameters and a row of the
// operator's own type with its kernels. A runtime runs the variants a list registers
// (tsr_variants, tessera/variant_registry.h): every one by default, or those an image
// needs. validate.cpp checks that the variant a step names runs it and is registered;
// a step is resolved to its registration once, at open (ResolvedStep::variant); while a
// schedule runs, the operator calls its row's kernel and nothing looks at an element
// type. A new precision or arithmetic is a new row of variants.def, a registration and
// the functions it names.

static_assert(TSR_BF16_EXP_ACCURATE == TSR_EXP_ACCURATE && TSR_BF16_EXP_SCHRAUDOLPH == TSR_EXP_SCHRAUDOLPH,
              "the format's bf16 exponentials are the kernels'");

// The row of registered variant `index` (a resolved step's, or registered_variant's).
template <typename Row> const Row &variant_row(uint8_t index) { return *static_cast<const Row *>(tsr_variants[index]->row); }

// A row for an operator with one kernel a variant.
template <typename Kernel> struct Variant {
    Kernel kernel;
    Prepare prepare = nullptr; // its call made at open, where it has one
};

// A prepared call of a kernel whose arguments (Args) hold a row's elements (`count`) or the
// rows themselves (`rows`): the run's, set in a copy of the arguments open made.
template <typename Args, tsr_kernel_status (*Kernel)(const Args *, uint32_t, uint32_t)>
tsr_kernel_status count_rows_call(const PreparedCall &c, uint32_t rows, uint32_t, uint32_t worker, uint32_t workers)
{
    Args a = c.as<Args>();
    a.count *= rows;
    return Kernel(&a, worker, workers);
}
template <typename Args, tsr_kernel_status (*Kernel)(const Args *, uint32_t, uint32_t)>
tsr_kernel_status rows_call(const PreparedCall &c, uint32_t rows, uint32_t, uint32_t worker, uint32_t workers)
{
    Args a = c.as<Args>();
    a.rows = rows;
    return Kernel(&a, worker, workers);
}

// OpDevice::prepare for an operator whose rows (Row) carry a prepare: the step's variant's.
template <typename Row> bool prepare_row(const PrepareContext &c, PreparedCall &out)
{
    const Prepare f = variant_row<Row>(c.resolved.variant).prepare;
    return f && f(c, out);
}

// Registers variant NAME of tessera/variants.def: `check` (or nullptr) and its row, an
// expression of the operator's row type. In namespace tsr, outside any unnamed one.
#define TSR_REGISTER_VARIANT(NAME, check, ...)                                                                     \
    namespace {                                                                                                    \
    const auto kVariantRow_##NAME = __VA_ARGS__;                                                                   \
    }                                                                                                              \
    extern "C" const tsr_variant_impl TSR_VARIANT_IMPL(NAME) = {TSR_VARIANT_##NAME, 0u, check, &kVariantRow_##NAME};

// Registers variant NAME's kernels from instruction set SET (kernels/<isa>/, TSR_ISA_SET):
// the same check and the same row type as its portable registration (a firmware's list
// for a board that runs the set may hold it instead: tessera-pack --emit-variants). Nothing when the runtime is built without that set
// (tessera/kernel_sets.h, generated by kernels/kernel_sets.cmake, says which sets are built).
#define TSR_REGISTER_TUNED_VARIANT(SET, NAME, check, ...) TSR_IF_KERNEL_SET_##SET(TSR_REGISTER_TUNED_(SET, NAME, check, __VA_ARGS__))
// The tuned rows of an operator: its file defines TSR_TUNED_<NAME>(SET, suffix) for each
// variant a set may tune, then
//   #define TSR_TUNED TSR_TUNED_ROW
//   #if __has_include("tessera/tuned_OP.def")   // generated by kernels/kernel_sets.cmake
//   #include "tessera/tuned_OP.def"              // the built sets' rows TSR_TUNED(OP, SET, NAME, suffix)
//   #endif
#define TSR_TUNED_ROW(OP, SET, NAME, suffix) TSR_TUNED_##NAME(SET, suffix)
#define TSR_REGISTER_TUNED_(SET, NAME, check, ...)                                                                 \
    namespace {                                                                                                    \
    const auto kVariantRow_##NAME##_##SET = __VA_ARGS__;                                                           \
    }                                                                                                              \
    extern "C" const tsr_variant_impl TSR_VARIANT_IMPL_TUNED(NAME, SET) = {TSR_VARIANT_##NAME, TSR_ISA_##SET, check,  \
                                                                           &kVariantRow_##NAME##_##SET};

// ---- the operators ------------------------------------------------------------------

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
};

// Data-movement operators: no kernel touches an operand, there are no tiles.
StepGeometry move_geometry(const tsr_step &s, uint32_t rows, uint32_t cores);

// The operator with id `op`, or null.
const OpDevice *op_device(uint32_t op);

} // namespace tsr

#endif
