#include "op.h"

namespace tsr {

// ---- StepChecker ----------------------------------------------------------------------

namespace {
// "rmsnorm", or "op 99" for an id the table does not know.
void op_label(Message &err, uint32_t op)
{
    if (op_device(op)) err.str(tsr_op_name(op));
    else err.str("op ").num(op);
}
// "matmul.i8", or "?" for an id the variant table does not know.
const char *variant_name(uint32_t id)
{
    tsr_variant_row row;
    return tsr_variant_lookup(id, &row) ? row.name : "?";
}
} // namespace

tessera_status StepChecker::fail(const char *what, uint32_t operand)
{
    err.str(schedule).str(" schedule step ").num(index).str(" (");
    op_label(err, step.op);
    err.str(")");
    if (operand != 0xFFFFFFFFu) err.str(" operand ").num(operand);
    err.str(": ").str(what);
    return TESSERA_ERR_IMAGE_BAD_SCHEDULE;
}

tessera_status StepChecker::operand(uint32_t i, uint32_t dtype, uint64_t bytes, bool written)
{
    const uint32_t id = step.operands[i];
    if (id >= h.tensor_count) return fail("names no tensor", i);
    const tsr_tensor &t = tensors[id];
    // The table of resolved steps holds the pointers every run follows: no step reads or
    // writes it, whatever element type and size the image gives it.
    if (t.kind == TSR_TENSOR_STEP_TABLE) return fail("is the runtime's step table", i);
    if (t.dtype != dtype) return fail("has the wrong element type", i);
    if (t.size < bytes) return fail("is smaller than the operator reads or writes", i);
    if (written && (t.region == TSR_REGION_IMAGE || t.kind == TSR_TENSOR_WEIGHT))
        return fail("is written but is a weight", i);
    return TESSERA_OK;
}

tessera_status StepChecker::pinned(uint32_t i, uint32_t id, const char *what)
{
    if (step.operands[i] != id) {
        err.str(schedule).str(" schedule step ").num(index).str(" (");
        op_label(err, step.op);
        err.str(") operand ").num(i).str(": names tensor ").num(step.operands[i]).str(", must be ").str(what)
            .str(" tensor ").num(id);
        return TESSERA_ERR_IMAGE_BAD_SCHEDULE;
    }
    return TESSERA_OK;
}

tessera_status StepChecker::of_kind(uint32_t i, uint32_t kind, const char *what)
{
    return tensors[step.operands[i]].kind == kind ? TESSERA_OK : fail(what, i);
}

tessera_status StepChecker::no_variant()
{
    err.str(schedule).str(" schedule step ").num(index).str(" (");
    op_label(err, step.op);
    err.str("): variant ").str(variant_name(step.variant)).str(" is not in this runtime");
    return TESSERA_ERR_IMAGE_UNSUPPORTED;
}

tessera_status StepChecker::symmetric(uint32_t i)
{
    const uint32_t id = step.operands[i];
    if (id < h.tensor_count && tensors[id].zero_point != 0) {
        err.str(schedule).str(" schedule step ").num(index).str(" (");
        op_label(err, step.op);
        err.str(") operand ").num(i).str(": zero point ").str(tensors[id].zero_point < 0 ? "-" : "")
            .num((uint32_t)(tensors[id].zero_point < 0 ? -tensors[id].zero_point : tensors[id].zero_point))
            .str("; variant ").str(variant_name(step.variant)).str(" takes symmetric int8 (zero point 0)");
        return TESSERA_ERR_IMAGE_UNSUPPORTED;
    }
    return TESSERA_OK;
}

tessera_status StepChecker::same_zero(uint32_t i, uint32_t j)
{
    const uint32_t a = step.operands[i], b = step.operands[j];
    if (a < h.tensor_count && b < h.tensor_count && tensors[a].zero_point != tensors[b].zero_point)
        return fail("copies between tensors of different zero points", j);
    return TESSERA_OK;
}

tessera_status StepChecker::dtype_in(uint32_t allowed)
{
    if (step.dtype >= 32u || !(allowed & dtype_bit(step.dtype))) return fail("element type not supported by the operator");
    return TESSERA_OK;
}

tessera_status StepChecker::constant(uint32_t id, uint32_t dtype, uint64_t bytes, const char *what)
{
    if (id >= h.tensor_count || tensors[id].kind != TSR_TENSOR_WEIGHT || tensors[id].dtype != dtype ||
        tensors[id].size < bytes)
        return fail(what);
    return TESSERA_OK;
}

tessera_status StepChecker::requant(const tsr_requant_params &r, const char *what)
{
    if (r.multiplier < 0 || (r.multiplier != 0 && r.multiplier < (1 << 30)) || r.shift < -31 || r.shift > 30)
        return fail(what);
    return TESSERA_OK;
}

// ---- Dma ---------------------------------------------------------------------------------

void Dma::gather_slow(uint8_t *d, const uint8_t *s, uint32_t bytes)
{
    Gather &g = gather_;
    if (g.rows == 1u && bytes == g.bytes) { // the second sets the strides: forward, rows apart, within 32 bits
        const uintptr_t dd = (uintptr_t)d - (uintptr_t)g.dst, ds = (uintptr_t)s - (uintptr_t)g.src;
        if (d > g.dst && s > g.src && dd >= bytes && ds >= bytes && dd <= 0xFFFFFFFFu && ds <= 0xFFFFFFFFu) {
            g.dst_stride = (uint32_t)dd;
            g.src_stride = (uint32_t)ds;
            g.rows = 2u;
            g.next_dst = d + dd;
            g.next_src = s + ds;
            return;
        }
    }
    flush();
    g = Gather{d, nullptr, s, nullptr, bytes, 1u, bytes, bytes};
}

void Dma::flush_gather()
{
    const Gather g = gather_;
    gather_.rows = 0u;
    gather_.next_dst = nullptr; // no row follows
    issue(g.dst, g.dst_stride, g.src, g.src_stride, g.bytes, g.rows);
}

void Dma::issue(void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride, uint32_t row_bytes, uint32_t rows)
{
    if (failed() || rows == 0u || row_bytes == 0u) return;
    tsr_dma_handle h = 0;
    tsr_hal_status st = copy_2d_(ctx_, dst, dst_stride, src, src_stride, row_bytes, rows, &h);
    if (st != TSR_HAL_OK) {
        if (st == TSR_HAL_BUSY && last_) { // a full queue: everything queued completes, then there is room
            wait(last_); // (no gather pending: issue's callers flushed it)
            st = copy_2d_(ctx_, dst, dst_stride, src, src_stride, row_bytes, rows, &h);
        }
        if (st != TSR_HAL_OK) {
            status_ = st;
            return;
        }
    }
    last_ = needed_ = h;
    bytes += row_bytes * rows; // within a region: fits 32 bits
    ++transfers;
}

void Dma::copy_planes(const tsr_dma_planes &c)
{
    flush();
    if (failed() || c.planes == 0u || c.rows == 0u || c.row_bytes == 0u) return;
    if (planes_ && c.planes > 1u) { // (one plane: dma_copy_2d's short paths)
        tsr_dma_handle h = 0;
        tsr_hal_status st = planes_(ctx_, &c, &h);
        if (st == TSR_HAL_BUSY && last_) { // a full queue: everything queued completes, then there is room
            wait(last_);
            st = planes_(ctx_, &c, &h);
        }
        if (st == TSR_HAL_OK) {
            last_ = needed_ = h;
            bytes += c.row_bytes * c.rows * c.planes; // within a region: fits 32 bits
            ++transfers;
            return;
        }
        if (st != TSR_HAL_UNSUPPORTED) {
            status_ = st;
            return;
        }
    }
    for (uint32_t p = 0; p < c.planes; ++p)
        issue(static_cast<uint8_t *>(c.dst) + (size_t)p * c.dst_plane, c.dst_stride,
              static_cast<const uint8_t *>(c.src) + (size_t)p * c.src_plane, c.src_stride, c.row_bytes, c.rows);
}

void Dma::wait_hal(tsr_dma_handle h)
{
    const uint64_t t0 = timed ? board_->ops->cycles(board_->ctx) : 0u;
    const tsr_hal_status st = wait_(ctx_, h);
    if (timed) wait_cycles += board_->ops->cycles(board_->ctx) - t0;
    if (st != TSR_HAL_OK) status_ = st;
    else if (h == last_) drained_ = h; // transfers complete in order: all of them are done
    else waited_ = h;
}

// ---- Npu ---------------------------------------------------------------------------------

tsr_npu_handle Npu::submit(const tsr_npu_job &job, uint32_t step, uint32_t join)
{
    if (failed()) return 0u;
    if (count_ >= full_) wait(pending_[head_].handle); // the board's queue is full: the oldest frees a slot
    tsr_npu_handle h = 0;
    tsr_hal_status st;
    while ((st = board_->ops->npu_submit(board_->ctx, &job, &h)) == TSR_HAL_BUSY && count_ > 0u && !failed()) {
        full_ = count_;
        wait(pending_[head_].handle);
    }
    if (st != TSR_HAL_OK || failed()) {
        if (!failed()) status_ = st, failed_step_ = step;
        return 0u;
    }
    pending_[(head_ + count_) % kPending] = Pending{h, join, step};
    ++count_;
    ++jobs;
    return h;
}

void Npu::pop_through(uint32_t count)
{
    head_ = (head_ + count) % kPending;
    count_ -= count;
}

void Npu::wait(tsr_npu_handle handle)
{
    for (uint32_t i = 0; i < count_; ++i)
        if (pending_[(head_ + i) % kPending].handle == handle) return wait_at(i);
}

void Npu::wait_at(uint32_t i)
{
    if (failed()) return;
    const uint64_t t0 = timed ? board_->ops->cycles(board_->ctx) : 0u;
    const tsr_hal_status st = board_->ops->npu_wait(board_->ctx, pending_[(head_ + i) % kPending].handle);
    if (timed) wait_cycles += board_->ops->cycles(board_->ctx) - t0;
    if (st != TSR_HAL_OK) status_ = st;
    pop_through(i + 1u);
}

uint32_t Npu::join(uint32_t index)
{
    uint32_t newest = count_;
    for (uint32_t i = 0; i < count_; ++i)
        if (pending_[(head_ + i) % kPending].join <= index) newest = i;
    if (newest == count_) return kNoStep;
    const uint32_t step = pending_[(head_ + newest) % kPending].step;
    wait_at(newest);
    return step;
}

// ---- StepRun -----------------------------------------------------------------------------

namespace {
uint8_t *address(const ImageView &img, const tsr_hal_board *board, uint32_t id)
{
    return id < img.header->tensor_count ? tensor_address(img, board, id) : nullptr;
}
} // namespace

namespace {

// Whether [p, p + bytes) meets any memory step `s` (resolved as `r`) reads or writes: its
// operands and their staging.
bool meets_step(const ImageView &img, const tsr_step &s, const ResolvedStep &r, const uint8_t *p, uint32_t bytes)
{
    const uintptr_t lo = (uintptr_t)p, hi = lo + bytes; // addresses: the ranges lie in different regions
    auto meets = [&](const uint8_t *q, uint64_t n) { return q && n && (uintptr_t)q < hi && lo < (uintptr_t)q + n; };
    for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
        if (meets(r.stage[k], (uint64_t)r.slots[k] * r.slot_bytes[k])) return true;
        if (s.operands[k] < img.header->tensor_count && meets(r.addr[k], img.tensors[s.operands[k]].size)) return true;
    }
    return false;
}

// Step j of a schedule's `steps` (resolved as `resolved`, the steps before it already):
// the operand its first tile copies from a constant (OpDevice::ahead), fetched ahead by an
// earlier step i (ResolvedStep::fetches): the earliest such that the staging it goes to holds
// nothing of steps i to j - 1, none of them runs on core 0 alone, steps i + 1 to j - 1 move
// nothing of their own (no staging: a fetch would go before their transfers, which complete
// in order), and i is not before the step fetched ahead last (`after`: one fetch ahead in flight
// at a time). None where step j - 1 does not qualify.
void resolve_ahead(const ImageView &img, const tsr_step *steps, ResolvedStep *resolved, uint32_t j, uint32_t after)
{
    ResolvedStep &r = resolved[j];
    const tsr_step &s = steps[j];
    r.ahead_operand = 0u;
    r.ahead_bytes = 0u;
    const OpDevice *op = op_device(s.op);
    if (j == 0u || !op->ahead || r.alone) return;
    uint32_t k = 0;
    const uint32_t bytes = op->ahead(s, &k);
    if (!bytes || k >= TSR_MAX_OPERANDS || !r.stage[k] || bytes > r.slot_bytes[k] || s.operands[k] >= img.header->tensor_count)
        return;
    const tsr_tensor &t = img.tensors[s.operands[k]];
    if (t.kind != TSR_TENSOR_WEIGHT || bytes > t.size) return;
    uint32_t issuer = j;
    for (uint32_t m = j; m-- > 0u && j - m <= 255u;) {
        if (resolved[m].alone || meets_step(img, steps[m], resolved[m], r.stage[k], bytes)) break;
        issuer = m;
        if (m <= after || resolved[m].staged) break; // the step fetched ahead last; one with transfers
    }
    if (issuer == j) return;
    r.ahead_operand = (uint8_t)k;
    r.ahead_bytes = bytes;
    resolved[issuer].fetches = (uint8_t)(j - issuer);
}

// Step j of a schedule's `steps`: read ahead off chip (prefetch_for) on a board that takes the
// hint and whose image only the DMA reads.
void resolve_prefetch(const ImageView &img, const tsr_hal_board *board, const tsr_step *steps, ResolvedStep *resolved,
                      uint32_t j)
{
    if (!board->image_dma_only || !board->ops->dma_prefetch) return;
    const Prefetch p = prefetch_for(img.tensors, img.header->tensor_count, steps, j);
    if (p.issuer != j) resolved[p.issuer].prefetches = (uint8_t)(j - p.issuer);
}

bool is_weight(const ImageView &img, uint32_t id)
{
    return id < img.header->tensor_count && img.tensors[id].kind == TSR_TENSOR_WEIGHT;
}

// Whether two steps read the same constants the same way: one operator, variant, layer and
// parameters, and the same weight tensor wherever either takes one (a token step and its
// prompt twin differ in their activations only).
bool same_constants(const ImageView &img, const tsr_step &a, const tsr_step &b)
{
    if (a.op != b.op || a.engine != b.engine || a.variant != b.variant || a.layer != b.layer ||
        memcmp(&a.params, &b.params, sizeof a.params) != 0)
        return false;
    for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k)
        if ((is_weight(img, a.operands[k]) || is_weight(img, b.operands[k])) && a.operands[k] != b.operands[k])
            return false;
    return true;
}

// What open finds of step `step`'s constants (OpDevice::facts): those of an earlier step
// (of the first `done` of `steps`, resolved as `resolved`) that reads the same constants,
// rather than reading them again (a RequantShift matmul's facts read every weight it has).
uint8_t facts_of(const ImageView &img, const tsr_hal_board *board, const tsr_step &step, const tsr_step *steps,
                 const ResolvedStep *resolved, uint32_t done)
{
    const OpDevice *op = op_device(step.op);
    if (!op->facts) return 0u;
    for (uint32_t j = 0; j < done; ++j)
        if (same_constants(img, step, steps[j])) return resolved[j].facts;
    return op->facts(img, board, step);
}

// The steps of schedule `s` (resolved as `resolved`) that run as one tile on every core,
// with every operand in place but the constant one a step before fetches ahead whole, get
// their kernel call made now (OpDevice::prepare), once nothing reads their staging layout
// any more (resolve_ahead reads the steps before's); so do the NPU steps of one job with
// nothing staged (OpDevice::prepare_npu).
void prepare_steps(const ImageView &img, const tsr_hal_board *board, const ScheduleView &s, ResolvedStep *resolved)
{
    for (uint32_t i = 0; i < s.header->step_count; ++i) {
        const tsr_step &step = s.steps[i];
        ResolvedStep &r = resolved[i];
        const OpDevice *op = op_device(step.op);
        const uint32_t rows = step_rows(step, s.header->max_rows);
        r.one_row = (step.flags & TSR_STEP_ONE_ROW) ? 1u : 0u;
        r.chained = 0u;
        bool staged_ahead_only = true; // one tile: the operand fetched ahead is fetched whole
        for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k)
            if (r.stage[k] && !(r.ahead_bytes && k == r.ahead_operand)) staged_ahead_only = false;
        if (step.engine == TSR_ENGINE_NPU) {
            PreparedNpuJob job;
            if (op->prepare_npu && !r.staged && op->prepare_npu(PrepareContext{img, board, step, r, rows}, job)) {
                r.npu_job = job;
                r.prepared = ResolvedStep::kNpuJob;
            }
            continue;
        }
        if (!op->prepare || r.alone || !staged_ahead_only || step.engine != TSR_ENGINE_CLUSTER ||
            op->geometry(step, rows, img.header->planned_cores).tiles != 1u)
            continue;
        PreparedCall call;
        if (!op->prepare(PrepareContext{img, board, step, r, rows}, call)) continue;
        r.call = call;
        r.prepared = ResolvedStep::kCall;
        // The step before ended at a barrier with nothing left in flight for it (a prepared
        // step moves nothing but fetches ahead), so the cores go on to its call at once.
        r.chained = i > 0u && resolved[i - 1u].prepared == ResolvedStep::kCall && !r.ahead_bytes ? 1u : 0u;
    }
}

} // namespace

uint8_t *PrepareContext::at(uint32_t k) const { return resolved.stage[k] ? resolved.stage[k] : resolved.addr[k]; }

void PrepareContext::check(uint32_t k, uint64_t bytes) const
{
    const auto check_operand = board->ops->check_kernel_operand;
    if (check_operand && (resolved.stage[k] || !(img.header->flags & TSR_IMAGE_OPERANDS_IN_PLACE)))
        check_operand(board->ctx, at(k), (uint32_t)bytes, step.op, k);
}

void resolve_steps(const ImageView &img, const tsr_hal_board *board)
{
    ResolvedStep *const table = (ResolvedStep *)tensor_address(img, board, img.header->step_table_tensor);
    ResolvedStep *out = table;
    const ResolvedStep *const prompt = table; // the prompt schedule's, resolved first
    const ScheduleView *schedules[2] = {&img.prompt, &img.token};
    for (const ScheduleView *s : schedules) {
        uint32_t last_ahead = 0; // the last step of the schedule fetched ahead (resolve_ahead)
        for (uint32_t i = 0; i < s->header->step_count; ++i, ++out) {
            const tsr_step &step = s->steps[i];
            const StepGeometry g = op_device(step.op)->geometry(step, step_rows(step, s->header->max_rows),
                                                                img.header->planned_cores);
            for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
                out->addr[k] = address(img, board, step.operands[k]);
                out->stage[k] = step.staging[k] == TSR_NO_TENSOR ? nullptr : address(img, board, step.staging[k]);
                out->slot_bytes[k] = g.operand[k].slot_bytes;
                out->slots[k] = (uint8_t)(g.operand[k].slots ? g.operand[k].slots : 1u);
                out->zero[k] = step.operands[k] < img.header->tensor_count
                                   ? (int8_t)img.tensors[step.operands[k]].zero_point // validated: [-128, 127]
                                   : (int8_t)0;
            }
            const bool controller_only = tsr_op_tile_kind(step.op) == TSR_TILE_MOVE || step.engine == TSR_ENGINE_NPU;
            uint64_t bytes = 0; // the tensors its kernels touch (a KV cache whole: its size at the last position)
            for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k)
                if (g.operand[k].use != OperandUse::kNone && step.operands[k] != TSR_NO_TENSOR)
                    bytes += img.tensors[step.operands[k]].size;
            out->alone = controller_only                  ? ResolvedStep::kControllerOnly
                       : bytes < board->solo_bytes ? ResolvedStep::kSolo
                                                   : 0u;
            out->variant = registered_variant_for(step.variant, board->isa); // validated: one the board runs is there
            const OpDevice *op = op_device(step.op);
            out->run = op->run;
            out->staged = 0u;
            for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k)
                if (out->stage[k]) out->staged = 1u;
            out->facts = facts_of(img, board, step, img.prompt.steps, prompt,
                                  s == &img.prompt ? 0u : img.prompt.header->step_count);
            out->fetches = 0u;
            out->prepared = 0u;
            out->prefetches = 0u;
            resolve_ahead(img, s->steps, out - i, i, last_ahead);
            resolve_prefetch(img, board, s->steps, out - i, i);
            if (out->ahead_bytes) last_ahead = i;
        }
    }
    prepare_steps(img, board, img.prompt, table);
    prepare_steps(img, board, img.token, table + img.prompt.header->step_count);
}

void resolve_loan(ImageView &img, const tsr_hal_board *board)
{
    img.loan = nullptr;
    img.loan_bytes = 0u;
    if (!board->image_dma_only || !board->ops->dma_prefetch) return;
    uint64_t first = 0, end = 0;
    loan_range(img.tensors, img.header->tensor_count, img.header->sampler_scratch_tensor, &first, &end);
    if (end - first < 4u) return;
    img.loan = board->regions[TSR_REGION_L2].base + first;
    img.loan_bytes = (uint32_t)(end - first);
}

StepRun::StepRun(RunState &r, uint32_t i, uint32_t c, uint32_t n)
    : run(r), step(r.schedule.steps[i]), index(i), rows(step_rows(step, r.rows)), pos(r.pos), core(c), cores(n),
      fine(n < kControllerOnlyFrom || c > 0u), worker(0), workers(n < kControllerOnlyFrom ? n : n - 1u),
      resolved(r.resolved[i]), addr(resolved.addr), stage(resolved.stage)
{
    if (fine) worker = remainder_by_cores((n < kControllerOnlyFrom ? c : c - 1u) + i, workers);
}

void StepRun::kernel(tsr_kernel_status st)
{
    if (st != TSR_KERNEL_OK) __atomic_store_n(&run.refused, index + 1u, __ATOMIC_RELAXED);
}

// ---- RunState -----------------------------------------------------------------------------

void RunState::fetch_ahead(uint32_t index)
{
    fetch(index + resolved[index].fetches); // resolve_steps: a later step of this schedule, ahead_bytes > 0
}

void RunState::fetch(uint32_t index)
{
    const ResolvedStep &r = resolved[index];
    if (status != TESSERA_OK) return;
    // A prepared step keeps no staging layout: its staging tensor's address, from the image.
    uint8_t *to = r.prepared ? address(img, board, schedule.steps[index].staging[r.ahead_operand]) : r.stage[r.ahead_operand];
    ahead_handle = dma.fetch(to, r.addr[r.ahead_operand], r.ahead_bytes);
    ahead = index;
}

void RunState::prefetch(uint32_t index)
{
    const uint32_t j = index + resolved[index].prefetches;
    const tsr_step &s = schedule.steps[j];
    uint32_t k = 0;
    const uint32_t tile = op_device(s.op)->ahead(s, &k); // resolve_prefetch's
    // Whole tiles: the board serves a read that its window holds whole.
    const uint32_t bytes = prefetch_bytes(img.tensors[s.operands[k]].size, tile, img.loan_bytes);
    if (status != TESSERA_OK || !img.loan || !bytes) return;
    if (board->ops->dma_prefetch(ctx, resolved[j].addr[k], bytes, img.loan, img.loan_bytes) == TSR_HAL_OK) lent = true;
}

void RunState::end_loan()
{
    if (lent) board->ops->dma_prefetch(ctx, nullptr, 0u, nullptr, 0u);
    lent = false;
}

Message *RunState::fail(tessera_status st)
{
    if (status != TESSERA_OK) return nullptr;
    __atomic_store_n(&status, (uint32_t)st, __ATOMIC_RELEASE);
    return &err;
}

namespace {
const char *npu_failure(tsr_hal_status st)
{
    switch (st) {
    case TSR_HAL_BUSY: return "the queue stayed full";
    case TSR_HAL_MISALIGNED: return "misaligned descriptor";
    case TSR_HAL_OUT_OF_REGION: return "an operand outside the engine's memory (weights outside NMS, or input or output outside L1)";
    case TSR_HAL_UNSUPPORTED: return "the board has no NPU";
    case TSR_HAL_FAULT: return "the engine reported a fault";
    default: return "invalid descriptor";
    }
}
} // namespace

void RunState::settle_npu_failure()
{
    if (Message *m = fail(TESSERA_ERR_HAL))
        m->str("NPU refused the job of step ").num(npu.failed_step()).str(" (")
            .str(tsr_op_name(schedule.steps[npu.failed_step()].op)).str("): ").str(npu_failure(npu.status()))
            .str(" (HAL status ").num(npu.status()).str(")");
}

void RunState::settle_failure(uint32_t step)
{
    if (dma.failed()) {
        if (Message *m = fail(TESSERA_ERR_HAL))
            m->str("DMA failed at step ").num(step).str(" (HAL status ").num(dma.status()).str(")");
    }
    const uint32_t r = __atomic_load_n(&refused, __ATOMIC_RELAXED);
    if (r != 0u) {
        if (Message *m = fail(TESSERA_ERR_KERNEL))
            m->str("kernel of step ").num(r - 1u).str(" (").str(tsr_op_name(schedule.steps[r - 1u].op))
                .str(") refused its arguments");
    }
}

// ---- the table -----------------------------------------------------------------------------

#define TSR_OP(NAME, id, name, operands, tile_kind, arithmetic) extern const OpDevice op_##NAME;
#include "tessera/ops.def"
#undef TSR_OP

const OpDevice *op_device(uint32_t op)
{
    switch (op) {
#define TSR_OP(NAME, id, name, operands, tile_kind, arithmetic) case id: return &op_##NAME;
#include "tessera/ops.def"
#undef TSR_OP
    default: return nullptr;
    }
}

StepGeometry move_geometry(const tsr_step &, uint32_t, uint32_t)
{
    StepGeometry g = StepGeometry::none();
    g.valid = true;
    return g;
}

Prefetch prefetch_for(const tsr_tensor *tensors, uint32_t tensor_count, const tsr_step *steps, uint32_t j)
{
    auto off_chip = [&](uint32_t id) { return id < tensor_count && tensors[id].region == TSR_REGION_IMAGE; };
    const tsr_step &s = steps[j];
    const OpDevice *op = op_device(s.op);
    Prefetch p = {j, 0u, 0u};
    if (op == nullptr || !op->ahead || j < 2u) return p;
    p.tile_bytes = op->ahead(s, &p.operand);
    if (!p.tile_bytes || p.operand >= TSR_MAX_OPERANDS || s.staging[p.operand] == TSR_NO_TENSOR ||
        !off_chip(s.operands[p.operand]))
        return Prefetch{j, 0u, 0u};
    uint32_t issuer = j;
    for (uint32_t m = j; m-- > 0u && j - m <= 255u; issuer = m) {
        bool reads_off_chip = false;
        for (uint32_t o = 0; o < TSR_MAX_OPERANDS; ++o) reads_off_chip = reads_off_chip || off_chip(steps[m].operands[o]);
        if (reads_off_chip) break;
    }
    p.issuer = j - issuer >= 2u ? issuer : j;
    return p;
}

void loan_range(const tsr_tensor *tensors, uint32_t tensor_count, uint32_t scratch, uint64_t *first, uint64_t *end)
{
    *first = *end = 0u;
    if (scratch >= tensor_count || tensors[scratch].region != TSR_REGION_L2) return;
    const uint64_t top = (uint64_t)tensors[scratch].offset + tensors[scratch].size;
    uint64_t low = tensors[scratch].offset;
    for (uint32_t i = 0; i < tensor_count; ++i) {
        const tsr_tensor &t = tensors[i];
        if (i != scratch && t.region == TSR_REGION_L2 && t.size && t.offset < top && (uint64_t)t.offset + t.size > low)
            low = (uint64_t)t.offset + t.size;
    }
    low = (low + 3u) & ~(uint64_t)3u;
    if (low >= top) return;
    *first = low;
    *end = low + ((top - low) & ~(uint64_t)3u);
}

StepGeometry step_geometry(const tsr_step &step, uint32_t rows, uint32_t cores)
{
    const OpDevice *op = op_device(step.op);
    if (op == nullptr) return StepGeometry::none();
    return op->geometry(step, rows, cores);
}

} // namespace tsr
