// The executor: walks a schedule step by step. Each step is a tile loop run by the
// controller: DMA the next tile's operands into L1 while the cluster computes the
// current tile from L1, then DMA results back. Kernels only ever get L1 pointers.
#include "executor.h"

#include <string.h>

#include "tessera/kernels.h"
#include "tessera/tile_geometry.h"

namespace tsr {
namespace {

// ---- the DMA engine, as the tile loops use it ---------------------------------

class Dma {
public:
    explicit Dma(const tsr_hal_board *board) : board_(board) {}

    // Queues a copy; when the bounded queue is full, waits for everything queued
    // (handles complete in order) and tries again.
    tsr_dma_handle copy_2d(void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride, uint32_t row_bytes,
                           uint32_t rows)
    {
        if (failed_ || rows == 0u || row_bytes == 0u) return 0;
        tsr_dma_handle h = 0;
        tsr_hal_status st = board_->ops->dma_copy_2d(board_->ctx, dst, dst_stride, src, src_stride, row_bytes, rows, &h);
        if (st == TSR_HAL_BUSY && last_) {
            wait(last_);
            st = board_->ops->dma_copy_2d(board_->ctx, dst, dst_stride, src, src_stride, row_bytes, rows, &h);
        }
        if (st != TSR_HAL_OK) {
            failed_ = true;
            status_ = st;
            return 0;
        }
        last_ = h;
        return h;
    }
    tsr_dma_handle copy_1d(void *dst, const void *src, uint32_t bytes) { return copy_2d(dst, bytes, src, bytes, bytes, 1u); }
    void wait(tsr_dma_handle h)
    {
        if (h == 0u || failed_) return;
        const tsr_hal_status st = board_->ops->dma_wait(board_->ctx, h);
        if (st != TSR_HAL_OK) {
            failed_ = true;
            status_ = st;
        }
    }
    void drain() { wait(last_); }
    bool failed() const { return failed_; }
    tsr_hal_status status() const { return status_; }

private:
    const tsr_hal_board *board_;
    tsr_dma_handle last_ = 0;
    bool failed_ = false;
    tsr_hal_status status_ = TSR_HAL_OK;
};

// ---- one kernel call forked on the cluster --------------------------------------

struct KernelCall;
typedef tsr_kernel_status (*KernelFn)(const KernelCall &c, uint32_t core, uint32_t cores);

struct KernelCall {
    KernelFn fn;
    const float *in[3];
    float *out[2];
    const int32_t *tokens;
    uint32_t n[6];
    float eps;
    uint32_t failed;
};

void run_kernel_on_core(void *arg, uint32_t core, uint32_t cores)
{
    KernelCall &c = *static_cast<KernelCall *>(arg);
    if (c.fn(c, core, cores) != TSR_KERNEL_OK) __atomic_store_n(&c.failed, 1u, __ATOMIC_RELAXED);
}

// Everything a step's tile loop needs, resolved once.
struct Step {
    const tsr_hal_board *board;
    const tsr_step *step;
    uint32_t index;
    uint32_t rows, pos;
    uint8_t *addr[TSR_MAX_OPERANDS];  // the tensors themselves (any region)
    uint8_t *stage[TSR_MAX_OPERANDS]; // their L1 staging, or null when the tensor is in L1
    StepGeometry geo;
    Dma dma;
    Message &err;
    tessera_status status;

    Step(const ImageView &img, const tsr_hal_board *b, const tsr_step *s, uint32_t max_rows, uint32_t i, uint32_t r,
         uint32_t p, Message &e)
        : board(b), step(s), index(i), rows(r), pos(p), addr(), stage(), geo(step_geometry(*s, max_rows)), dma(b),
          err(e), status(TESSERA_OK)
    {
        for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
            if (s->operands[k] < img.header->tensor_count) addr[k] = tensor_address(img, b, s->operands[k]);
            if (s->staging[k] < img.header->tensor_count) stage[k] = tensor_address(img, b, s->staging[k]);
        }
    }

    // Slot `tile` of operand k's staging (alternating when it has two).
    uint8_t *slot(uint32_t k, uint32_t tile) const
    {
        const OperandStream &o = geo.operand[k];
        return stage[k] + (size_t)(tile % o.slots) * o.slot_bytes;
    }

    // Boards that check (the host board in test builds) see every kernel operand range.
    void check(const void *p, uint32_t bytes, uint32_t operand) const
    {
        if (board->ops->check_kernel_operand)
            board->ops->check_kernel_operand(board->ctx, p, bytes, step->op, operand);
    }

    bool fork(KernelCall &call)
    {
        if (dma.failed()) return fail_dma();
        call.failed = 0;
        if (board->ops->cluster_fork(board->ctx, run_kernel_on_core, &call) != TSR_HAL_OK) {
            err.str("cluster fork failed at step ").num(index);
            status = TESSERA_ERR_HAL;
            return false;
        }
        if (call.failed) {
            err.str("kernel of step ").num(index).str(" (op ").num(step->op).str(") refused its arguments");
            status = TESSERA_ERR_KERNEL;
            return false;
        }
        return true;
    }

    bool fail_dma()
    {
        if (status == TESSERA_OK) {
            err.str("DMA failed at step ").num(index).str(" (HAL status ").num(dma.status()).str(")");
            status = TESSERA_ERR_HAL;
        }
        return false;
    }

    tessera_status finish()
    {
        dma.drain();
        if (status == TESSERA_OK && dma.failed()) fail_dma();
        return status;
    }
};

// ---- row-tiled operators: RMSNORM, ADD, SWIGLU, ROPE ------------------------------

struct RowOperand {
    uint32_t k;          // operand index
    uint32_t row_bytes;  // bytes per row of this operand
    uint32_t row_base;   // first row of tile 0 (ROPE's table starts at pos)
    bool whole;          // the same bytes for every tile (RMSNORM's weight)
    bool read, write;
};

tsr_kernel_status k_rmsnorm(const KernelCall &c, uint32_t core, uint32_t cores)
{
    return tsr_rmsnorm_f32(c.in[0], c.in[1], c.out[0], c.n[0], c.n[1], c.eps, core, cores);
}
tsr_kernel_status k_add(const KernelCall &c, uint32_t core, uint32_t cores)
{
    return tsr_add_f32(c.in[0], c.in[1], c.out[0], c.n[0] * c.n[1], core, cores);
}
tsr_kernel_status k_swiglu(const KernelCall &c, uint32_t core, uint32_t cores)
{
    return tsr_swiglu_f32(c.in[0], c.in[1], c.out[0], c.n[0] * c.n[1], core, cores);
}
tsr_kernel_status k_rope(const KernelCall &c, uint32_t core, uint32_t cores)
{
    // The table tile starts at the tile's first position: pos 0 relative to it.
    return tsr_rope_f32(c.out[0], c.out[1], c.in[0], c.n[0], 0, c.n[1], c.n[2], c.n[3], core, cores);
}

tessera_status run_row_tiled(Step &s, const RowOperand *ops, uint32_t count)
{
    const uint32_t tr = s.step->tile[0];
    const uint32_t tiles = ceil_div(s.rows, tr);
    tsr_dma_handle in_done[2] = {0, 0}, out_done[2] = {0, 0};
    uint8_t *ptr[TSR_MAX_OPERANDS] = {};

    auto issue_inputs = [&](uint32_t t) {
        const uint32_t r0 = t * tr, n = s.rows - r0 < tr ? s.rows - r0 : tr;
        s.dma.wait(out_done[t % 2u]); // the slot's previous write-back must be out first
        for (uint32_t i = 0; i < count; ++i) {
            const RowOperand &o = ops[i];
            if (!s.stage[o.k] || !o.read || (o.whole && t > 0u)) continue;
            const uint32_t bytes = o.whole ? o.row_bytes : n * o.row_bytes;
            in_done[t % 2u] = s.dma.copy_1d(s.slot(o.k, o.whole ? 0u : t),
                                            s.addr[o.k] + (o.whole ? 0u : (size_t)(o.row_base + r0) * o.row_bytes), bytes);
        }
    };
    issue_inputs(0);
    for (uint32_t t = 0; t < tiles; ++t) {
        const uint32_t r0 = t * tr, n = s.rows - r0 < tr ? s.rows - r0 : tr;
        if (t + 1u < tiles) issue_inputs(t + 1u); // overlaps this tile's compute
        s.dma.wait(in_done[t % 2u]);
        s.dma.wait(out_done[t % 2u]);
        for (uint32_t i = 0; i < count; ++i) {
            const RowOperand &o = ops[i];
            ptr[o.k] = s.stage[o.k] ? s.slot(o.k, o.whole ? 0u : t)
                                    : s.addr[o.k] + (o.whole ? 0u : (size_t)(o.row_base + r0) * o.row_bytes);
            s.check(ptr[o.k], o.whole ? o.row_bytes : n * o.row_bytes, o.k);
        }
        KernelCall call = {};
        const uint32_t *p = s.step->params;
        switch (s.step->op) {
        case TSR_OP_RMSNORM: {
            call.fn = k_rmsnorm;
            call.in[0] = (const float *)ptr[0];
            call.in[1] = (const float *)ptr[1];
            call.out[0] = (float *)ptr[2];
            call.n[0] = n;
            call.n[1] = p[0];
            memcpy(&call.eps, &p[1], sizeof call.eps);
            break;
        }
        case TSR_OP_ADD:
        case TSR_OP_SWIGLU:
            call.fn = s.step->op == TSR_OP_ADD ? k_add : k_swiglu;
            call.in[0] = (const float *)ptr[0];
            call.in[1] = (const float *)ptr[1];
            call.out[0] = (float *)ptr[2];
            call.n[0] = n;
            call.n[1] = p[0];
            break;
        default: // TSR_OP_ROPE
            call.fn = k_rope;
            call.out[0] = (float *)ptr[0];
            call.out[1] = (float *)ptr[1];
            call.in[0] = (const float *)ptr[2];
            call.n[0] = n;
            call.n[1] = p[0];
            call.n[2] = p[1];
            call.n[3] = p[2];
            break;
        }
        if (!s.fork(call)) return s.finish();
        for (uint32_t i = 0; i < count; ++i) {
            const RowOperand &o = ops[i];
            if (s.stage[o.k] && o.write)
                out_done[t % 2u] = s.dma.copy_1d(s.addr[o.k] + (size_t)(o.row_base + r0) * o.row_bytes, ptr[o.k],
                                                 n * o.row_bytes);
        }
    }
    return s.finish();
}

// ---- MATMUL: tiles of rows x output columns ---------------------------------------

tsr_kernel_status k_matmul(const KernelCall &c, uint32_t core, uint32_t cores)
{
    return tsr_matmul_f32(c.in[0], c.in[1], c.out[0], c.n[0], c.n[1], c.n[2], c.n[3], core, cores);
}

tessera_status run_matmul(Step &s)
{
    const uint32_t K = s.step->params[0], N = s.step->params[1];
    const uint32_t tr = s.step->tile[0], tn = s.step->tile[1];
    const uint32_t rt = ceil_div(s.rows, tr), ct = ceil_div(N, tn), total = rt * ct;
    tsr_dma_handle x_done[2] = {0, 0}, w_done[2] = {0, 0}, y_done[2] = {0, 0};
    auto issue_x = [&](uint32_t ri) {
        const uint32_t r0 = ri * tr, m = s.rows - r0 < tr ? s.rows - r0 : tr;
        if (s.stage[0]) x_done[ri % 2u] = s.dma.copy_1d(s.slot(0, ri), s.addr[0] + (size_t)r0 * K * 4u, m * K * 4u);
    };
    auto issue_w = [&](uint32_t j) {
        const uint32_t c0 = (j % ct) * tn, n = N - c0 < tn ? N - c0 : tn;
        if (s.stage[1]) w_done[j % 2u] = s.dma.copy_1d(s.slot(1, j), s.addr[1] + (size_t)c0 * K * 4u, n * K * 4u);
    };
    issue_x(0);
    issue_w(0);
    for (uint32_t j = 0; j < total; ++j) {
        const uint32_t ri = j / ct, r0 = ri * tr, m = s.rows - r0 < tr ? s.rows - r0 : tr;
        const uint32_t c0 = (j % ct) * tn, n = N - c0 < tn ? N - c0 : tn;
        if (j % ct == 0u) {
            s.dma.wait(x_done[ri % 2u]);
            if (ri + 1u < rt) issue_x(ri + 1u); // its slot's last user, row tile ri - 1, is done
        }
        if (j + 1u < total) issue_w(j + 1u);
        s.dma.wait(w_done[j % 2u]);
        s.dma.wait(y_done[j % 2u]);
        KernelCall call = {};
        call.fn = k_matmul;
        call.in[0] = (const float *)(s.stage[0] ? s.slot(0, ri) : s.addr[0] + (size_t)r0 * K * 4u);
        call.in[1] = (const float *)(s.stage[1] ? s.slot(1, j) : s.addr[1] + (size_t)c0 * K * 4u);
        call.out[0] = (float *)(s.stage[2] ? s.slot(2, j) : s.addr[2] + ((size_t)r0 * N + c0) * 4u);
        const uint32_t ldy = s.stage[2] ? tn : N;
        call.n[0] = m;
        call.n[1] = K;
        call.n[2] = n;
        call.n[3] = ldy;
        s.check(call.in[0], m * K * 4u, 0);
        s.check(call.in[1], n * K * 4u, 1);
        s.check(call.out[0], ((m - 1u) * ldy + n) * 4u, 2);
        if (!s.fork(call)) return s.finish();
        if (s.stage[2])
            y_done[j % 2u] = s.dma.copy_2d(s.addr[2] + ((size_t)r0 * N + c0) * 4u, N * 4u, call.out[0], tn * 4u, n * 4u, m);
    }
    return s.finish();
}

// ---- ATTENTION: per row and head, keys then values in chunks of cached positions --

tsr_kernel_status k_scores(const KernelCall &c, uint32_t core, uint32_t cores)
{
    return tsr_attention_scores_f32(c.in[0], c.in[1], c.out[0], c.n[0], c.n[1], core, cores);
}
tsr_kernel_status k_accumulate(const KernelCall &c, uint32_t core, uint32_t cores)
{
    return tsr_attention_accumulate_f32(c.in[0], c.in[1], c.out[0], c.n[0], c.n[1], core, cores);
}
// Softmax is one reduction: core 0 does it (and clears the head's output).
tsr_kernel_status k_softmax(const KernelCall &c, uint32_t core, uint32_t)
{
    if (core == 0u) {
        tsr_softmax_f32(c.out[0], c.n[0]);
        memset(c.out[1], 0, c.n[1] * sizeof(float));
    }
    return TSR_KERNEL_OK;
}

tessera_status run_attention(Step &s)
{
    const uint32_t *p = s.step->params;
    const uint32_t nh = p[0], nkv = p[1], hs = p[2], tc = s.step->tile[0];
    const uint32_t D = nh * hs, KV = nkv * hs, group = nh / nkv;
    float *scores = (float *)s.addr[3];
    tsr_dma_handle q_done = 0, y_done[2] = {0, 0}, kv_done[2] = {0, 0};
    for (uint32_t r = 0; r < s.rows; ++r) {
        const uint32_t last = s.pos + r, chunks = ceil_div(last + 1u, tc);
        uint8_t *q = s.stage[0] ? s.slot(0, r) : s.addr[0] + (size_t)r * D * 4u;
        uint8_t *y = s.stage[4] ? s.slot(4, r) : s.addr[4] + (size_t)r * D * 4u;
        if (s.stage[0]) q_done = s.dma.copy_1d(q, s.addr[0] + (size_t)r * D * 4u, D * 4u);
        s.dma.wait(y_done[r % 2u]);
        s.dma.wait(q_done);
        s.check(q, D * 4u, 0);
        s.check(y, D * 4u, 4);
        s.check(scores, (last + 1u) * 4u, 3);
        for (uint32_t h = 0; h < nh; ++h) {
            const size_t kv_col = (size_t)(h / group) * hs * 4u;
            // Chunk c of the keys (pass 0) or values (pass 1) into staging slot c % 2.
            auto issue = [&](uint32_t pass, uint32_t c) -> uint8_t * {
                const uint32_t t0 = c * tc, n = last + 1u - t0 < tc ? last + 1u - t0 : tc;
                const uint8_t *cache = s.addr[1 + pass] + (size_t)t0 * KV * 4u + kv_col;
                kv_done[c % 2u] = s.dma.copy_2d(s.slot(1, c), hs * 4u, cache, KV * 4u, hs * 4u, n); // gather the head
                return s.slot(1, c);
                return s.slot(1, c);
            };
            for (uint32_t pass = 0; pass < 2u; ++pass) {
                if (pass == 1u) {
                    KernelCall sm = {};
                    sm.fn = k_softmax;
                    sm.out[0] = scores;
                    sm.out[1] = (float *)y + (size_t)h * hs;
                    sm.n[0] = last + 1u;
                    sm.n[1] = hs;
                    if (!s.fork(sm)) return s.finish();
                }
                uint8_t *chunk = issue(pass, 0);
                for (uint32_t c = 0; c < chunks; ++c) {
                    const uint32_t t0 = c * tc, n = last + 1u - t0 < tc ? last + 1u - t0 : tc;
                    uint8_t *next = c + 1u < chunks ? issue(pass, c + 1u) : nullptr;
                    s.dma.wait(kv_done[c % 2u]);
                    s.check(chunk, n * hs * 4u, 1 + pass);
                    KernelCall call = {};
                    call.fn = pass == 0u ? k_scores : k_accumulate;
                    call.in[0] = pass == 0u ? (const float *)q + (size_t)h * hs : scores + t0;
                    call.in[1] = (const float *)chunk;
                    call.out[0] = pass == 0u ? scores + t0 : (float *)y + (size_t)h * hs;
                    call.n[0] = n;
                    call.n[1] = hs;
                    if (!s.fork(call)) return s.finish();
                    chunk = next;
                }
            }
        }
        if (s.stage[4]) y_done[r % 2u] = s.dma.copy_1d(s.addr[4] + (size_t)r * D * 4u, y, D * 4u);
    }
    return s.finish();
}

// ---- data movement: EMBED and KV_APPEND ------------------------------------------

tessera_status run_embed(Step &s)
{
    const uint32_t V = s.step->params[0], D = s.step->params[1];
    const int32_t *tokens = (const int32_t *)s.addr[0];
    for (uint32_t r = 0; r < s.rows; ++r) {
        // A data-dependent index into a table: checked here, whatever wrote it.
        const int32_t id = tokens[r];
        if (id < 0 || (uint32_t)id >= V) {
            s.dma.drain();
            s.err.str("step ").num(s.index).str(" (EMBED): row ").num(r).str(" reads token id ")
                .str(id < 0 ? "-" : "").num(id < 0 ? 0u - (uint32_t)id : (uint32_t)id).str(", vocabulary is 0..")
                .num(V - 1u);
            return TESSERA_ERR_BAD_TOKEN;
        }
        s.dma.copy_1d(s.addr[2] + (size_t)r * D * 4u, s.addr[1] + (size_t)(uint32_t)id * D * 4u, D * 4u);
    }
    return s.finish();
}

tessera_status run_kv_append(Step &s)
{
    const uint32_t kv_dim = s.step->params[0];
    const uint32_t bytes = s.rows * kv_dim * 4u;
    const size_t at = (size_t)s.pos * kv_dim * 4u;
    s.dma.copy_1d(s.addr[2] + at, s.addr[0], bytes);
    s.dma.copy_1d(s.addr[3] + at, s.addr[1], bytes);
    return s.finish();
}

tessera_status run_step(Step &s)
{
    const uint32_t *p = s.step->params;
    switch (s.step->op) {
    case TSR_OP_EMBED: return run_embed(s);
    case TSR_OP_KV_APPEND: return run_kv_append(s);
    case TSR_OP_MATMUL: return run_matmul(s);
    case TSR_OP_ATTENTION: return run_attention(s);
    case TSR_OP_RMSNORM: {
        const RowOperand ops[] = {{0, p[0] * 4u, 0, false, true, false},
                                  {1, p[0] * 4u, 0, true, true, false},
                                  {2, p[0] * 4u, 0, false, false, true}};
        return run_row_tiled(s, ops, 3);
    }
    case TSR_OP_ADD:
    case TSR_OP_SWIGLU: {
        const RowOperand ops[] = {{0, p[0] * 4u, 0, false, true, false},
                                  {1, p[0] * 4u, 0, false, true, false},
                                  {2, p[0] * 4u, 0, false, false, true}};
        return run_row_tiled(s, ops, 3);
    }
    case TSR_OP_ROPE: {
        const RowOperand ops[] = {{0, p[0] * 4u, 0, false, true, true},
                                  {1, p[1] * 4u, 0, false, true, true},
                                  {2, p[2] * 4u, s.pos, false, true, false}};
        return run_row_tiled(s, ops, 3);
    }
    default:
        s.err.str("step ").num(s.index).str(": unknown operator ").num(s.step->op);
        return TESSERA_ERR_IMAGE_BAD_SCHEDULE;
    }
}

} // namespace

tessera_status run_schedule(const ImageView &img, const tsr_hal_board *board, const ScheduleView &schedule,
                            uint32_t rows, uint32_t pos, Message &err)
{
    for (uint32_t i = 0; i < schedule.header->step_count; ++i) {
        Step s(img, board, &schedule.steps[i], schedule.header->max_rows, i, rows, pos, err);
        const tessera_status st = run_step(s);
        if (st != TESSERA_OK) return st;
    }
    return TESSERA_OK;
}

} // namespace tsr
