/* The HAL conformance suite (tessera/hal_conformance.h). */
#include "tessera/hal_conformance.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "tessera/npu.h"

#define MAX_CORES 64u

typedef struct suite {
    const tsr_hal_board *board;
    tsr_conformance_print print;
    void *ctx;
    tsr_conformance_result result;
    char line[200];
    size_t n;
} suite;

/* ---- the report: one line per check ------------------------------------------ */

static void put(suite *s, const char *text)
{
    while (*text && s->n + 1 < sizeof s->line) s->line[s->n++] = *text++;
    s->line[s->n] = '\0';
}

static void num(suite *s, uint64_t v)
{
    char digits[21];
    int k = 0;
    do {
        digits[k++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    char text[22];
    for (int i = 0; i < k; ++i) text[i] = digits[k - 1 - i];
    text[k] = '\0';
    put(s, text);
}

/* Ends the line begun with begin(): passed, failed or (skip) not applicable. */
enum { FAILED = 0, PASSED = 1, SKIPPED = 2 };
static void begin(suite *s) { s->n = 5, s->line[5] = '\0'; }
static bool finish(suite *s, int outcome)
{
    memcpy(s->line, outcome == PASSED ? "ok   " : outcome == FAILED ? "FAIL " : "skip ", 5);
    if (outcome == PASSED) ++s->result.passed;
    else if (outcome == FAILED) ++s->result.failed;
    else ++s->result.skipped;
    s->print(s->ctx, s->line);
    return outcome == PASSED;
}

static uint8_t pattern(uint32_t i, uint32_t seed) { return (uint8_t)(i * 131u + seed * 7u + (i >> 8)); }

/* ---- regions ------------------------------------------------------------------- */

static bool overlaps(const tsr_hal_region *a, const tsr_hal_region *b)
{
    if (!a->size || !b->size) return false;
    const uintptr_t a0 = (uintptr_t)a->base, b0 = (uintptr_t)b->base;
    return a0 < b0 + b->size && b0 < a0 + a->size;
}

static void check_regions(suite *s)
{
    const tsr_hal_board *b = s->board;
    for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r) {
        const tsr_hal_region *reg = &b->regions[r];
        begin(s);
        put(s, "region ");
        put(s, tsr_region_name(r));
        if (reg->size == 0u) {
            put(s, r == TSR_REGION_NMS ? ": none (size 0)" : ": size 0");
            finish(s, r == TSR_REGION_NMS ? SKIPPED : (r == TSR_REGION_L1 ? SKIPPED : FAILED));
            continue;
        }
        put(s, ": ");
        num(s, reg->size);
        put(s, " bytes");
        if (!reg->base) {
            put(s, ", but no base address");
            finish(s, FAILED);
            continue;
        }
        bool ok = true; /* writable and readable at both ends */
        const uint32_t edge = reg->size < 64u ? reg->size : 64u;
        for (uint32_t i = 0; i < edge; ++i) reg->base[i] = pattern(i, r), reg->base[reg->size - edge + i] = pattern(i, r + 9u);
        for (uint32_t i = 0; i < edge; ++i)
            ok = ok && reg->base[i] == pattern(i, r) && reg->base[reg->size - edge + i] == pattern(i, r + 9u);
        if (!ok) put(s, ", not writable at both ends");
        for (uint32_t o = TSR_REGION_L1; o < r; ++o)
            if (overlaps(reg, &b->regions[o])) {
                put(s, ", overlaps ");
                put(s, tsr_region_name(o));
                ok = false;
            }
        finish(s, ok ? PASSED : FAILED);
    }
}

/* ---- cluster ----------------------------------------------------------------------- */

typedef struct fork_arg {
    volatile uint32_t seen[MAX_CORES];
    volatile uint32_t count[MAX_CORES];
    volatile uint32_t arrived[MAX_CORES];
    volatile uint32_t early[MAX_CORES]; /* cores seen short of a barrier they had passed */
    const tsr_hal_board *board;
    uint32_t rounds;
} fork_arg;

static void fork_task(void *p, uint32_t core, uint32_t count)
{
    fork_arg *a = (fork_arg *)p;
    if (core >= MAX_CORES) return;
    a->seen[core] = a->seen[core] + 1u;
    a->count[core] = count;
}

static void barrier_task(void *p, uint32_t core, uint32_t count)
{
    fork_arg *a = (fork_arg *)p;
    if (core >= MAX_CORES || count > MAX_CORES) return;
    for (uint32_t round = 1; round <= a->rounds; ++round) {
        a->arrived[core] = round;
        a->board->ops->cluster_barrier(a->board->ctx);
        for (uint32_t c = 0; c < count; ++c)
            if (a->arrived[c] < round) a->early[core] = a->early[core] + 1u;
        a->board->ops->cluster_barrier(a->board->ctx); /* nobody writes round + 1 before all have read */
    }
}

static void check_cluster(suite *s, fork_arg *a)
{
    const tsr_hal_board *b = s->board;
    const uint32_t forks = 50u;
    memset((void *)a, 0, sizeof *a);
    a->board = b;
    bool ok = b->core_count >= 1u && b->core_count <= MAX_CORES;
    uint32_t widest = 0, bad_ids = 0;
    for (uint32_t f = 0; f < forks && ok; ++f) {
        memset((void *)a->seen, 0, sizeof a->seen);
        memset((void *)a->count, 0, sizeof a->count);
        if (b->ops->cluster_fork(b->ctx, fork_task, a) != TSR_HAL_OK) {
            ok = false;
            break;
        }
        const uint32_t n = a->count[0];
        if (n == 0u || n > b->core_count) ok = false;
        for (uint32_t c = 0; c < MAX_CORES; ++c)
            if (a->seen[c] != (c < n ? 1u : 0u) || (c < n && a->count[c] != n)) ++bad_ids;
        if (n > widest) widest = n;
    }
    begin(s);
    put(s, "fork/join: ");
    num(s, forks);
    put(s, " forks, each core id once with the same count, up to ");
    num(s, widest);
    put(s, " of ");
    num(s, b->core_count);
    put(s, " cores");
    if (bad_ids) put(s, "; core ids missing, repeated or counted wrong");
    finish(s, ok && !bad_ids ? PASSED : FAILED);
    begin(s);
    put(s, "fork/join on every core: ");
    num(s, widest);
    put(s, " of ");
    num(s, b->core_count);
    finish(s, widest == b->core_count ? PASSED : FAILED);
    begin(s);
    put(s, "fork of a NULL task is refused");
    finish(s, b->ops->cluster_fork(b->ctx, NULL, a) == TSR_HAL_INVALID ? PASSED : FAILED);

    a->rounds = 200u;
    memset((void *)a->arrived, 0, sizeof a->arrived);
    memset((void *)a->early, 0, sizeof a->early);
    const bool forked = b->ops->cluster_fork(b->ctx, barrier_task, a) == TSR_HAL_OK;
    uint32_t early = 0;
    for (uint32_t c = 0; c < MAX_CORES; ++c) early += a->early[c];
    begin(s);
    put(s, "barrier: ");
    num(s, a->rounds);
    put(s, " rounds, no core past a barrier before all reached it");
    if (early) {
        put(s, "; ");
        num(s, early);
        put(s, " early passes");
    }
    finish(s, forked && !early ? PASSED : FAILED);
}

/* ---- DMA ------------------------------------------------------------------------------- */

static void check_dma(suite *s)
{
    const tsr_hal_board *b = s->board;
    const tsr_hal_ops *o = b->ops;
    const tsr_hal_region *l1 = &b->regions[TSR_REGION_L1], *l2 = &b->regions[TSR_REGION_L2];
    const uint32_t bytes = 4096u;
    if (l1->size < 2u * bytes || l2->size < 2u * bytes) {
        begin(s);
        put(s, "DMA: L1 and L2 need 8 KiB each for the checks");
        finish(s, SKIPPED);
        return;
    }
    uint8_t *src = l2->base, *dst = l1->base;
    for (uint32_t i = 0; i < bytes; ++i) src[i] = pattern(i, 1u), dst[i] = 0xEEu;

    /* 1D, aligned and at odd offsets and lengths */
    bool ok = true, nonzero = true;
    tsr_dma_handle h = 0;
    ok = o->dma_copy_1d(b->ctx, dst, src, bytes, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK;
    nonzero = nonzero && h != 0u;
    ok = ok && memcmp(dst, src, bytes) == 0;
    for (uint32_t off = 1; off < 8u && ok; off += 2u)
        for (uint32_t len = 1; len < 70u && ok; len += 11u) {
            memset(dst, 0xEE, 128u);
            ok = o->dma_copy_1d(b->ctx, dst + off, src + 3u * off, len, &h) == TSR_HAL_OK &&
                 o->dma_wait(b->ctx, h) == TSR_HAL_OK;
            nonzero = nonzero && h != 0u;
            ok = ok && memcmp(dst + off, src + 3u * off, len) == 0 && dst[off - 1u] == 0xEEu && dst[off + len] == 0xEEu;
        }
    begin(s);
    put(s, "DMA 1D: 4096 bytes, and 1..67 bytes at odd offsets, copied exactly and nothing beside");
    finish(s, ok ? PASSED : FAILED);

    /* 2D: 8 rows of 24 bytes, source stride 40, destination stride 32; the gaps stay */
    memset(dst, 0xEE, 512u);
    ok = o->dma_copy_2d(b->ctx, dst, 32u, src, 40u, 24u, 8u, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK;
    nonzero = nonzero && h != 0u;
    for (uint32_t r = 0; r < 8u && ok; ++r)
        for (uint32_t c = 0; c < 32u && ok; ++c)
            ok = dst[r * 32u + c] == (c < 24u ? src[r * 40u + c] : 0xEEu);
    ok = ok && dst[8u * 32u] == 0xEEu;
    begin(s);
    put(s, "DMA 2D: 8 rows of 24 bytes, strides 40 -> 32, rows exact and the gaps between them untouched");
    finish(s, ok ? PASSED : FAILED);

    /* Planes (optional): 5 planes of 9 rows of 4 bytes, a KV cache's heads gathered (source
     * rows 64 apart, plane p's columns 4 p on), each into a block of its own 80 bytes apart;
     * or, where the board declines the copy, UNSUPPORTED and nothing written */
    if (o->dma_copy_planes) {
        memset(dst, 0xEE, 512u);
        const tsr_dma_planes c = {dst, src, 4u, 64u, 4u, 9u, 80u, 4u, 5u};
        const tsr_hal_status st = o->dma_copy_planes(b->ctx, &c, &h);
        ok = st == TSR_HAL_OK || st == TSR_HAL_UNSUPPORTED;
        if (st == TSR_HAL_OK) ok = o->dma_wait(b->ctx, h) == TSR_HAL_OK && h != 0u;
        for (uint32_t i = 0; i < 512u && ok; ++i) {
            const uint32_t p = i / 80u, at = i % 80u;
            const bool copied = st == TSR_HAL_OK && p < 5u && at < 36u;
            ok = dst[i] == (copied ? src[(at / 4u) * 64u + 4u * p + at % 4u] : 0xEEu);
        }
        const tsr_dma_planes bad = {NULL, src, 4u, 64u, 4u, 9u, 80u, 4u, 5u};
        ok = ok && o->dma_copy_planes(b->ctx, &bad, &h) == TSR_HAL_INVALID &&
             o->dma_copy_planes(b->ctx, NULL, &h) == TSR_HAL_INVALID;
        begin(s);
        put(s, "DMA planes: 5 planes of 9 rows of 4 bytes (source stride 64, planes 4 and 80 apart) exact, or declined; a null copy INVALID");
        finish(s, ok ? PASSED : FAILED);
    }

    /* In order: 8 transfers, only the last waited for */
    memset(dst, 0xEE, bytes);
    tsr_dma_handle last = 0;
    ok = true;
    for (uint32_t k = 0; k < 8u && ok; ++k) {
        ok = o->dma_copy_1d(b->ctx, dst + k * 512u, src + k * 256u, 512u, &last) == TSR_HAL_OK;
        nonzero = nonzero && last != 0u;
    }
    ok = ok && o->dma_wait(b->ctx, last) == TSR_HAL_OK;
    for (uint32_t k = 0; k < 8u && ok; ++k) ok = memcmp(dst + k * 512u, src + k * 256u, 512u) == 0;
    begin(s);
    put(s, "DMA in order: 8 transfers, waiting for the last completes all of them");
    finish(s, ok ? PASSED : FAILED);
    begin(s);
    put(s, "DMA handles are never 0");
    finish(s, nonzero ? PASSED : FAILED);
    begin(s);
    put(s, "DMA wait on handle 0, and on one not issued yet, is INVALID");
    finish(s, o->dma_wait(b->ctx, 0u) == TSR_HAL_INVALID && o->dma_wait(b->ctx, last + 1000u) == TSR_HAL_INVALID
                  ? PASSED
                  : FAILED);

    /* Queue full: large transfers submitted without waiting, until BUSY */
    const uint32_t big = (l1->size < l2->size ? l1->size : l2->size) / 2u;
    uint32_t accepted = 0;
    tsr_hal_status st = TSR_HAL_OK;
    for (; accepted < 1024u; ++accepted) {
        st = o->dma_copy_1d(b->ctx, dst, src, big, &h);
        if (st != TSR_HAL_OK) break;
        last = h;
    }
    begin(s);
    if (st == TSR_HAL_BUSY) {
        const bool recovers = o->dma_wait(b->ctx, last) == TSR_HAL_OK && o->dma_copy_1d(b->ctx, dst, src, 64u, &h) == TSR_HAL_OK &&
                              o->dma_wait(b->ctx, h) == TSR_HAL_OK;
        put(s, "DMA queue full: BUSY after ");
        num(s, accepted);
        put(s, " transfers in flight, accepted again once waited for");
        finish(s, recovers && accepted > 0u ? PASSED : FAILED);
    } else if (st == TSR_HAL_OK) {
        o->dma_wait(b->ctx, last);
        put(s, "DMA queue full: 1024 transfers of ");
        num(s, big);
        put(s, " bytes accepted without a wait (the engine completes them as they are submitted)");
        finish(s, SKIPPED);
    } else {
        put(s, "DMA queue full: a valid transfer answered status ");
        num(s, (uint64_t)st);
        finish(s, FAILED);
    }
}

/* DMA to and from off-chip memory (the board's regions[TSR_REGION_IMAGE] window): 1D out
 * and back, and 2D into it and out of it with strides; the cores read only L1 and L2,
 * as on a board whose cores cannot load from that memory. */
static void check_offchip_dma(suite *s)
{
    const tsr_hal_board *b = s->board;
    const tsr_hal_ops *o = b->ops;
    const tsr_hal_region *l1 = &b->regions[TSR_REGION_L1], *l2 = &b->regions[TSR_REGION_L2];
    const tsr_hal_region *far = &b->regions[TSR_REGION_IMAGE];
    const uint32_t bytes = 4096u;
    begin(s);
    if (far->size == 0u || far->base == NULL) {
        put(s, "DMA off chip: the board describes no off-chip window (regions[IMAGE])");
        finish(s, SKIPPED);
        return;
    }
    if (far->size < bytes || l1->size < 2u * bytes || l2->size < 2u * bytes) {
        put(s, "DMA off chip: needs 4 KiB off chip and 8 KiB of L1 and L2");
        finish(s, SKIPPED);
        return;
    }
    uint8_t *src = l2->base, *back = l2->base + bytes, *dst = l1->base, *out = far->base;
    tsr_dma_handle h = 0;
    for (uint32_t i = 0; i < bytes; ++i) src[i] = pattern(i, 5u), back[i] = 0xEEu, dst[i] = 0xEEu;
    /* 1D: L2 -> off chip -> L1, and an odd piece back to L2 */
    bool ok = o->dma_copy_1d(b->ctx, out, src, bytes, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK &&
              o->dma_copy_1d(b->ctx, dst, out, bytes, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK &&
              memcmp(dst, src, bytes) == 0;
    ok = ok && o->dma_copy_1d(b->ctx, back + 3u, out + 101u, 67u, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK &&
         memcmp(back + 3u, src + 101u, 67u) == 0 && back[2] == 0xEEu && back[70] == 0xEEu;
    put(s, "DMA off chip 1D: 4096 bytes out of L2 and back into L1, 67 at odd offsets into L2, exact");
    finish(s, ok ? PASSED : FAILED);

    /* 2D: 8 rows of 24 bytes into off-chip memory (strides 40 -> 32) over a known fill, then
     * out of it (strides 32 -> 48) into L1; the gaps keep the fill both ways */
    memset(back, 0xEE, 512u);
    memset(dst, 0x77, 512u);
    ok = o->dma_copy_1d(b->ctx, out, back, 512u, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK &&
         o->dma_copy_2d(b->ctx, out, 32u, src, 40u, 24u, 8u, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK &&
         o->dma_copy_1d(b->ctx, back, out, 512u, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK &&
         o->dma_copy_2d(b->ctx, dst, 48u, out, 32u, 24u, 8u, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK;
    for (uint32_t r = 0; r < 8u && ok; ++r) {
        for (uint32_t c = 0; c < 32u && ok; ++c) ok = back[r * 32u + c] == (c < 24u ? src[r * 40u + c] : 0xEEu);
        for (uint32_t c = 0; c < 48u && ok; ++c) ok = dst[r * 48u + c] == (c < 24u ? src[r * 40u + c] : 0x77u);
    }
    begin(s);
    put(s, "DMA off chip 2D: 8 rows of 24 bytes into it (strides 40 -> 32) and out of it (32 -> 48), rows exact and "
           "gaps untouched");
    finish(s, ok ? PASSED : FAILED);
}

/* Reading ahead off chip (tsr_hal_ops.dma_prefetch): a loan outside L2 refused; then a hint
 * over 4 KiB of off-chip bytes with 3 KiB of L2 lent, read back into L1 as the runtime reads a
 * constant's tiles (1 KiB, then 2 KiB as two rows into a strided block, then the last KiB, past
 * the window), each exact; a read at an odd offset after the hint's window, exact; and, once
 * the loan is ended, the lent L2 written no more. */
static void check_offchip_prefetch(suite *s)
{
    const tsr_hal_board *b = s->board;
    const tsr_hal_ops *o = b->ops;
    const tsr_hal_region *l1 = &b->regions[TSR_REGION_L1], *l2 = &b->regions[TSR_REGION_L2];
    const tsr_hal_region *far = &b->regions[TSR_REGION_IMAGE];
    const uint32_t bytes = 4096u, lent = 3072u;
    begin(s);
    if (o->dma_prefetch == NULL || far->size < bytes || far->base == NULL || l1->size < 2u * bytes ||
        l2->size < 2u * bytes) {
        put(s, "DMA off chip read ahead: the board takes no hint (dma_prefetch NULL) or has no off-chip window");
        finish(s, SKIPPED);
        return;
    }
    uint8_t *src = l2->base, *loan = l2->base + bytes, *dst = l1->base, *out = far->base;
    tsr_dma_handle h = 0, h2 = 0;
    for (uint32_t i = 0; i < bytes; ++i) src[i] = pattern(i, 11u), dst[i] = 0xEEu, dst[bytes + i] = 0xEEu;
    bool ok = o->dma_copy_1d(b->ctx, out, src, bytes, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK;
    const bool refused = o->dma_prefetch(b->ctx, out, bytes, l1->base, 64u) == TSR_HAL_INVALID;
    ok = ok && o->dma_prefetch(b->ctx, out, bytes, loan, lent) == TSR_HAL_OK &&
         o->dma_copy_1d(b->ctx, dst, out, 1024u, &h) == TSR_HAL_OK &&
         o->dma_copy_2d(b->ctx, dst + 1024u, 1100u, out + 1024u, 1024u, 1024u, 2u, &h2) == TSR_HAL_OK &&
         o->dma_wait(b->ctx, h) == TSR_HAL_OK && o->dma_wait(b->ctx, h2) == TSR_HAL_OK &&
         o->dma_copy_1d(b->ctx, dst + 3200u, out + 3072u, 1024u, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK;
    ok = ok && memcmp(dst, src, 1024u) == 0 && memcmp(dst + 1024u, src + 1024u, 1024u) == 0 && dst[2048] == 0xEEu &&
         memcmp(dst + 2124u, src + 2048u, 1024u) == 0 && memcmp(dst + 3200u, src + 3072u, 1024u) == 0;
    ok = ok && o->dma_copy_1d(b->ctx, dst + 5001u, out + 777u, 333u, &h) == TSR_HAL_OK &&
         o->dma_wait(b->ctx, h) == TSR_HAL_OK && memcmp(dst + 5001u, src + 777u, 333u) == 0 && dst[5000] == 0xEEu &&
         dst[5334] == 0xEEu;
    ok = ok && o->dma_prefetch(b->ctx, NULL, 0u, NULL, 0u) == TSR_HAL_OK;
    memset(loan, 0x5A, lent);
    ok = ok && o->dma_copy_1d(b->ctx, dst, out, bytes, &h) == TSR_HAL_OK && o->dma_wait(b->ctx, h) == TSR_HAL_OK &&
         memcmp(dst, src, bytes) == 0;
    for (uint32_t i = 0; i < lent && ok; ++i) ok = loan[i] == 0x5Au;
    put(s, "DMA off chip read ahead: a loan outside L2 refused; 4 KiB hinted with 3 KiB lent, read in tiles "
           "(the last past the window) and at an odd offset, exact; the loan ended, its L2 untouched");
    finish(s, ok && refused ? PASSED : FAILED);
}

/* ---- NPU --------------------------------------------------------------------------------- */

/* The layout of tessera/npu.h, written here from its definition: U = W + 128; block
 * (c, kb) in eight words, word g's bit 4 b + t the bit b of U[c][kb * 32 + 4 g + t]; the
 * channels past k U = 128. (n is a multiple of 32 here.) */
static void npu_layout(const int8_t *w, uint32_t n, uint32_t k, uint32_t *out)
{
    const uint32_t kb_count = (k + 31u) / 32u;
    for (uint32_t c = 0; c < n; ++c)
        for (uint32_t kb = 0; kb < kb_count; ++kb)
            for (uint32_t g = 0; g < 8u; ++g) {
                uint32_t word = 0;
                for (uint32_t t = 0; t < 4u; ++t) {
                    const uint32_t j = kb * 32u + 4u * g + t;
                    const uint32_t u = j < k ? (uint32_t)(w[c * k + j] + 128) : 128u;
                    for (uint32_t b = 0; b < 8u; ++b)
                        if ((u >> b) & 1u) word |= 1u << (4u * b + t);
                }
                out[(c * kb_count + kb) * 8u + g] = word;
            }
}

static void check_npu(suite *s)
{
    const tsr_hal_board *b = s->board;
    const tsr_hal_ops *o = b->ops;
    tsr_npu_handle h = 0;
    if (!b->has_npu) {
        tsr_npu_job none;
        memset(&none, 0, sizeof none);
        begin(s);
        put(s, "NPU: the board has none, and its queue answers UNSUPPORTED");
        finish(s, o->npu_submit(b->ctx, &none, &h) == TSR_HAL_UNSUPPORTED ? PASSED : FAILED);
        return;
    }
    /* One job, m 3, n 32, k 40, weights in L1: its result against the definition. */
    enum { M = 3, N = 32, K = 40, KB = 2 };
    const tsr_hal_region *l1 = &b->regions[TSR_REGION_L1];
    const uint32_t need = 4u * N * KB * 8u + M * K + M * N + 4u * N + N + 64u + 4u * N * 8u + M * N + 64u;
    if (l1->size < need) {
        begin(s);
        put(s, "NPU: L1 too small for the checks");
        finish(s, SKIPPED);
        return;
    }
    uint32_t *weights = (uint32_t *)(void *)l1->base;
    int8_t *x = (int8_t *)(l1->base + 4u * N * KB * 8u), *y = x + M * K;
    int32_t *mult = (int32_t *)(void *)(l1->base + ((4u * N * KB * 8u + M * K + M * N + 3u) & ~3u));
    int8_t *shift = (int8_t *)(mult + N);
    static int8_t w[N * K];
    for (uint32_t i = 0; i < N * K; ++i) w[i] = (int8_t)(pattern(i, 5u) % 15u) - 7;
    for (uint32_t i = 0; i < M * K; ++i) x[i] = (int8_t)(pattern(i, 6u) % 31u) - 15;
    for (uint32_t c = 0; c < N; ++c) mult[c] = 1 << 30, shift[c] = (int8_t)(c % 3u) - 1;
    npu_layout(w, N, K, weights);
    tsr_npu_job job;
    memset(&job, 0, sizeof job);
    job.kind = TSR_NPU_GEMM_I8, job.weight_bits = 8u, job.m = M, job.n = N, job.k = K, job.ldx = K, job.ldy = N;
    job.weights = weights, job.input = x, job.output = y, job.multiplier = mult, job.shift = shift;
    memset(y, 0x55, M * N);
    bool ok = o->npu_submit(b->ctx, &job, &h) == TSR_HAL_OK && h != 0u && o->npu_wait(b->ctx, h) == TSR_HAL_OK;
    bool done = false;
    ok = ok && o->npu_poll(b->ctx, h, &done) == TSR_HAL_OK && done;
    for (uint32_t r = 0; r < M && ok; ++r)
        for (uint32_t c = 0; c < N && ok; ++c) {
            int32_t acc = 0;
            for (uint32_t j = 0; j < K; ++j) acc += (int32_t)x[r * K + j] * (int32_t)w[c * K + j];
            ok = y[r * N + c] == tsr_npu_requantize(acc, mult[c], shift[c]);
        }
    begin(s);
    put(s, "NPU job: 3 x 32 x 40 int8 GEMM, weights in L1, equals its definition; poll says done after wait");
    finish(s, ok ? PASSED : FAILED);

    /* Jobs in order: a second job reads the first's output (k 32); waiting for it alone
     * leaves both done. */
    uint32_t *weights2 = (uint32_t *)(void *)(l1->base + ((4u * N * KB * 8u + M * K + M * N + 3u) & ~3u) + 4u * N + N + 64u);
    int8_t *y2 = (int8_t *)(weights2 + N * 8u);
    static int8_t w2[N * N];
    for (uint32_t i = 0; i < N * N; ++i) w2[i] = (int8_t)(pattern(i, 7u) % 255u) - 127;
    npu_layout(w2, N, N, weights2);
    tsr_npu_job second = job;
    second.k = N, second.ldx = N, second.input = y, second.output = y2, second.weights = weights2;
    memset(y, 0x55, M * N);
    memset(y2, 0x55, M * N);
    tsr_npu_handle h1 = 0, h2 = 0;
    ok = o->npu_submit(b->ctx, &job, &h1) == TSR_HAL_OK && o->npu_submit(b->ctx, &second, &h2) == TSR_HAL_OK &&
         h2 != h1 && o->npu_wait(b->ctx, h2) == TSR_HAL_OK;
    done = false;
    ok = ok && o->npu_poll(b->ctx, h1, &done) == TSR_HAL_OK && done;
    for (uint32_t r = 0; r < M && ok; ++r)
        for (uint32_t c = 0; c < N && ok; ++c) {
            int32_t acc = 0, acc2 = 0;
            for (uint32_t j = 0; j < K; ++j) acc += (int32_t)x[r * K + j] * (int32_t)w[c * K + j];
            for (uint32_t j = 0; j < N; ++j) acc2 += (int32_t)y[r * N + j] * (int32_t)w2[c * N + j];
            ok = y[r * N + c] == tsr_npu_requantize(acc, mult[c], shift[c]) &&
                 y2[r * N + c] == tsr_npu_requantize(acc2, mult[c], shift[c]);
        }
    begin(s);
    put(s, "NPU jobs in order: the second reads the first's output; waited for alone, both equal their definitions");
    finish(s, ok ? PASSED : FAILED);

    /* Q31 factors anywhere in [2^30, 2^31): an engine whose own requantization cannot give
     * them still gives the job's integers (siracusa: the core finishes it). */
    int32_t saved[N];
    for (uint32_t c = 0; c < N; ++c) saved[c] = mult[c], mult[c] = (int32_t)(0x40000000u | ((pattern(c, 8u) * 0x01010101u) & 0x3FFFFFFFu));
    memset(y, 0x55, M * N);
    ok = o->npu_submit(b->ctx, &job, &h) == TSR_HAL_OK && o->npu_wait(b->ctx, h) == TSR_HAL_OK;
    for (uint32_t r = 0; r < M && ok; ++r)
        for (uint32_t c = 0; c < N && ok; ++c) {
            int32_t acc = 0;
            for (uint32_t j = 0; j < K; ++j) acc += (int32_t)x[r * K + j] * (int32_t)w[c * K + j];
            ok = y[r * N + c] == tsr_npu_requantize(acc, mult[c], shift[c]);
        }
    for (uint32_t c = 0; c < N; ++c) mult[c] = saved[c];
    begin(s);
    put(s, "NPU job with Q31 factors in [2^30, 2^31): equals its definition");
    finish(s, ok ? PASSED : FAILED);

    tsr_npu_job bad = job;
    bad.weights = (const uint32_t *)(const void *)((const uint8_t *)weights + 2);
    begin(s);
    put(s, "NPU misaligned weights: MISALIGNED");
    finish(s, o->npu_submit(b->ctx, &bad, &h) == TSR_HAL_MISALIGNED ? PASSED : FAILED);
    bad = job;
    bad.flags = TSR_NPU_WEIGHTS_NMS; /* but they are in L1 */
    begin(s);
    put(s, "NPU weights flagged NMS outside NMS: OUT_OF_REGION");
    finish(s, o->npu_submit(b->ctx, &bad, &h) == TSR_HAL_OUT_OF_REGION ? PASSED : FAILED);
    bad = job;
    bad.weight_bits = 3u;
    begin(s);
    put(s, "NPU 3-bit weights: INVALID");
    finish(s, o->npu_submit(b->ctx, &bad, &h) == TSR_HAL_INVALID ? PASSED : FAILED);

    /* Queue full: the same job, submitted without waiting, until BUSY */
    tsr_hal_status st = TSR_HAL_OK;
    uint32_t accepted = 0;
    tsr_npu_handle last = 0;
    for (; accepted < 256u; ++accepted) {
        st = o->npu_submit(b->ctx, &job, &h);
        if (st != TSR_HAL_OK) break;
        last = h;
    }
    begin(s);
    if (st == TSR_HAL_BUSY) {
        const bool recovers = o->npu_wait(b->ctx, last) == TSR_HAL_OK && o->npu_submit(b->ctx, &job, &h) == TSR_HAL_OK &&
                              o->npu_wait(b->ctx, h) == TSR_HAL_OK;
        put(s, "NPU queue full: BUSY after ");
        num(s, accepted);
        put(s, " jobs in flight, accepted again once waited for");
        finish(s, recovers && accepted > 0u ? PASSED : FAILED);
    } else if (st == TSR_HAL_OK) {
        o->npu_wait(b->ctx, last);
        put(s, "NPU queue full: 256 jobs accepted without a wait (the engine runs them as they are submitted)");
        finish(s, SKIPPED);
    } else {
        put(s, "NPU queue full: a valid job answered status ");
        num(s, (uint64_t)st);
        finish(s, FAILED);
    }
}

/* ---- the cycle counter ---------------------------------------------------------------------- */

static void check_cycles(suite *s)
{
    const tsr_hal_board *b = s->board;
    uint64_t prev = b->ops->cycles(b->ctx);
    const uint64_t first = prev;
    bool monotonic = true;
    volatile uint32_t sink = 0;
    for (uint32_t i = 0; i < 2000u; ++i) {
        for (uint32_t k = 0; k < 50u; ++k) sink = sink + k;
        const uint64_t now = b->ops->cycles(b->ctx);
        if (now < prev) monotonic = false;
        prev = now;
    }
    begin(s);
    put(s, "cycle counter: never back over 2000 reads, and ");
    num(s, prev - first);
    put(s, " ticks over the work between them");
    finish(s, monotonic && prev > first ? PASSED : FAILED);
}

tsr_conformance_result tsr_hal_conformance(const tsr_hal_board *board, tsr_conformance_print print, void *ctx)
{
    static fork_arg arg; /* the cores write it; not on a stack of the controller's */
    suite s;
    memset(&s, 0, sizeof s);
    s.board = board, s.print = print, s.ctx = ctx;
    if (!board || !board->ops || !print) {
        s.result.failed = 1;
        return s.result;
    }
    check_regions(&s);
    check_cluster(&s, &arg);
    check_dma(&s);
    check_offchip_dma(&s);
    check_offchip_prefetch(&s);
    check_npu(&s);
    check_cycles(&s);
    return s.result;
}
