#include "logits_argmax.h"

#include "ops/dma.h"
#include "tessera/kernels.h"

namespace tsr {

namespace {

// The first largest non-NaN value of a share: `at` its index (kNone: every value NaN).
constexpr uint32_t kNone = 0xFFFFFFFFu;
struct Largest {
    float top;
    uint32_t at;
};

// A core's share x[0..n), its first index first_index: its first largest non-NaN value (a
// strictly larger value replaces the one before; a NaN never does, nor starts the scan).
Largest scan(const float *x, uint32_t n, uint32_t first_index)
{
    uint32_t i = 0;
    while (i < n && x[i] != x[i]) ++i; // the first non-NaN value starts it
    if (i == n) return Largest{0.0f, kNone};
    float top = x[i];
    uint32_t at = first_index + i;
    for (++i; i < n; ++i)
        if (x[i] > top) top = x[i], at = first_index + i;
    return Largest{top, at};
}

// A chunk shared out among the cores: core c scans its part, then the controller merges
// the parts in core order (an earlier part's value wins a tie).
constexpr uint32_t kMostCores = 64;
struct ChunkTask {
    const float *x;
    uint32_t n, first_index, cores;
    Largest part[kMostCores];
};

void scan_part(void *arg, uint32_t core, uint32_t cores)
{
    ChunkTask &t = *static_cast<ChunkTask *>(arg);
    if (core == 0u) t.cores = cores;
    if (core >= kMostCores) return;
    const uint32_t per = t.n / cores, extra = t.n - per * cores; // 32-bit (a 64-bit division is a call on RV32)
    const uint32_t begin = core * per + (core < extra ? core : extra), end = begin + per + (core < extra ? 1u : 0u);
    t.part[core] = scan(t.x + begin, end - begin, t.first_index + begin);
}

// x[0..n) on the cluster after `run`; false where the fork fails.
bool scan_on_cluster(const tsr_hal_board *board, const float *x, uint32_t n, uint32_t first_index, Largest *run)
{
    ChunkTask t;
    t.x = x, t.n = n, t.first_index = first_index, t.cores = 0u;
    if (board->ops->cluster_fork(board->ctx, scan_part, &t) != TSR_HAL_OK || t.cores == 0u) return false;
    for (uint32_t c = 0; c < t.cores && c < kMostCores; ++c) {
        const Largest &p = t.part[c];
        if (p.at != kNone && (run->at == kNone || p.top > run->top)) *run = p;
    }
    return true;
}

// The sequential definition's answer from the non-NaN one: a NaN first is kept.
uint32_t answer(const float *logits, const Largest &run) { return logits[0] != logits[0] || run.at == kNone ? 0u : run.at; }

} // namespace

void resolve_between_runs(ImageView &img, const tsr_hal_board *board)
{
    img.between_runs = nullptr;
    img.between_runs_bytes = 0u;
    const tsr_hal_region &l1 = board->regions[TSR_REGION_L1];
    if ((img.header->flags & TSR_IMAGE_OPERANDS_IN_PLACE) || !board->ops->dma_copy_2d || !board->ops->dma_wait ||
        !l1.base || !l1.size)
        return;
    uint64_t low = 0;
    for (uint32_t i = 0; i < img.header->tensor_count; ++i) {
        const tsr_tensor &t = img.tensors[i];
        const bool dies = t.kind == TSR_TENSOR_ACTIVATION || t.kind == TSR_TENSOR_STAGING ||
                          (t.kind == TSR_TENSOR_SCRATCH && i != img.header->sampler_scratch_tensor);
        if (t.region == TSR_REGION_L1 && t.size && !dies && (uint64_t)t.offset + t.size > low)
            low = (uint64_t)t.offset + t.size;
    }
    low = (low + 3u) & ~(uint64_t)3u;
    if (low >= l1.size) return;
    img.between_runs = l1.base + low;
    img.between_runs_bytes = (uint32_t)((l1.size - low) & ~(uint64_t)3u);
}

uint32_t argmax_logits(const tsr_hal_board *board, const float *logits, uint32_t vocab, uint8_t *buffer,
                       uint32_t buffer_bytes)
{
    if (vocab == 0u) return 0u;
    if (board->sample_on_cluster_from == 0u || vocab < board->sample_on_cluster_from || board->core_count > kMostCores)
        return tsr_argmax_f32(logits, vocab); // the controller, where they lie
    Largest run = {0.0f, kNone};
    const uint32_t chunk = buffer_bytes / 8u; // logits a chunk: two chunks in the buffer
    const uint8_t *from = reinterpret_cast<const uint8_t *>(logits), *l1 = board->regions[TSR_REGION_L1].base;
    const bool apart = from + (uint64_t)vocab * 4u <= buffer || buffer + buffer_bytes <= from;
    const bool in_l1 = l1 && from >= l1 && from < l1 + board->regions[TSR_REGION_L1].size; // as fast as the buffer
    if (chunk < 64u || !apart || in_l1) // the cores, where they lie
        return scan_on_cluster(board, logits, vocab, 0u, &run) ? answer(logits, run) : tsr_argmax_f32(logits, vocab);
    float *const half[2] = {reinterpret_cast<float *>(buffer), reinterpret_cast<float *>(buffer) + chunk};
    Dma dma(board);
    auto count_at = [&](uint32_t first) { return vocab - first < chunk ? vocab - first : chunk; };
    dma.copy(half[0], logits, count_at(0) * 4u);
    tsr_dma_handle moving = dma.last();
    bool ok = true;
    for (uint32_t first = 0, k = 0; first < vocab && ok; first += chunk, k ^= 1u) {
        dma.wait(moving);
        if (dma.failed()) break;
        const uint32_t next = first + chunk;
        if (next < vocab) {
            dma.copy(half[k ^ 1u], logits + next, count_at(next) * 4u);
            moving = dma.last();
        }
        ok = scan_on_cluster(board, half[k], count_at(first), first, &run);
    }
    dma.drain_all(); // nothing left in flight into the buffer (a failed engine: a no-op)
    return ok && !dma.failed() ? answer(logits, run) : tsr_argmax_f32(logits, vocab);
}

} // namespace tsr
