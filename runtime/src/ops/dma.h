// The DMA engine as the tile loops use it (core 0 alone).
#ifndef TESSERA_OPS_DMA_H
#define TESSERA_OPS_DMA_H

#include "op_checks.h"

namespace tsr {

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

} // namespace tsr

#endif
