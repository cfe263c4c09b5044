/* The siracusa board: the Tessera HAL on GVSoC's Siracusa model (tessera/siracusa.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hyperram.h"
#include "neureka.h"
#include "semihosting.h"
#include "tessera/div_u64.h"
#include "tessera/riscv_tls.h"
#include "tessera/siracusa.h"

#define REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

extern uint8_t __bss_start[], __bss_end[], __l1_state_start[], __l1_state_end[];
extern uint8_t __l1_start[], __l2_start[], __nms_start[];

/* State every step touches, in TCDM (the linker script's .l1_state, cleared at start-up). */
#define L1_STATE __attribute__((section(".l1_state")))

int main(void);

/* The cores a run uses: a word of its own section, the description's cores unless the
 * runner wrote another (tests/rtl/run.cmake: objcopy --update-section .tessera_cores). */
__attribute__((section(".tessera_cores"), used)) volatile const uint32_t tsr_siracusa_run_cores = TSR_SIRACUSA_CORES;

static inline uint32_t this_core(void)
{
    uint32_t id;
    __asm__ volatile("csrr %0, mhartid" : "=r"(id));
    return id & 0x1Fu;
}

/* ---- console, exit, marks ----------------------------------------------------- */

static void put_bytes(const char *text, size_t len)
{
    volatile uint32_t *out = (volatile uint32_t *)(uintptr_t)(SIRACUSA_STDOUT + (this_core() << 3));
    for (size_t i = 0; i < len; ++i) *out = (uint8_t)text[i];
}

void tsr_pulp_puts(const char *text) { put_bytes(text, strlen(text)); }

uint64_t tsr_pulp_div_u64(uint64_t n, uint64_t d) { return tsr_div_u64(n, d); }

void tsr_pulp_put_u64(uint64_t v)
{
    char text[21];
    tsr_pulp_puts(tsr_u64_decimal(v, text));
}

void tsr_pulp_exit(int status)
{
    REG(SIRACUSA_CORESTATUS) = 0x80000000u | ((uint32_t)status & 0x7FFFFFFFu);
    for (;;) {
    }
}

/* GVSoC's cores have no mcycleh: the high word is this core's count of mcycle's wraps, seen
 * at least once every 2^32 cycles (a run reads it far more often). */
uint64_t tsr_pulp_mcycle(void)
{
    static uint32_t last[TSR_SIRACUSA_CORES] L1_STATE, wraps[TSR_SIRACUSA_CORES] L1_STATE;
    const uint32_t core = this_core();
    uint32_t lo;
    __asm__ volatile("csrr %0, mcycle" : "=r"(lo));
    if (lo < last[core]) ++wraps[core];
    last[core] = lo;
    return ((uint64_t)wraps[core] << 32) | lo;
}

/* A measured run: cluster core 0's cycles from its begin to its end, a line a run
 * ("gvsoc: run N: C cycles ..."); core 0 forks and joins every step, so its span is the run's. */
static uint64_t g_mark_begin;
static uint32_t g_runs;
static uint64_t g_run_cycles;

/* With TSR_SIRACUSA_POWER_MARKS each mark is also GVSoC's syscall stop, at which the energy
 * launcher (tools/gvsoc_energy) reads the power report; other launchers carry on. */
static inline void power_mark(void)
{
#ifdef TSR_SIRACUSA_POWER_MARKS
    semihost(SH_SYSCALL_STOP, 0);
#endif
}

void tsr_pulp_mark_begin(void)
{
    power_mark();
    g_mark_begin = tsr_pulp_mcycle();
}

void tsr_pulp_mark_end(void)
{
    const uint64_t cycles = tsr_pulp_mcycle() - g_mark_begin;
    power_mark();
    g_run_cycles += cycles;
    ++g_runs;
    tsr_pulp_puts("gvsoc: run ");
    tsr_pulp_put_u64(g_runs);
    tsr_pulp_puts(": ");
    tsr_pulp_put_u64(cycles);
    tsr_pulp_puts(" cycles of cluster core 0\n");
}

void tsr_siracusa_report_runs(void)
{
    if (g_runs == 0u) return;
    tsr_pulp_puts("gvsoc: ");
    tsr_pulp_put_u64(g_runs);
    tsr_pulp_puts(" measured runs: ");
    tsr_pulp_put_u64(tsr_div_u64(g_run_cycles, g_runs));
    tsr_pulp_puts(" cycles per run (cluster core 0, which forks and joins every step)\n");
}

/* ---- the cluster: the event unit --------------------------------------------------- */

static uint32_t g_cores L1_STATE; /* set at start-up */
static volatile tsr_cluster_task g_task;
static void *volatile g_arg;
static volatile uint32_t g_fork_generation;

/* Sleep until event E: this core's mask holds E alone while it waits, so an event meant
 * for another wait stays pending, never consumed by this one. */
static inline void wait_event(uint32_t event)
{
    REG(SIRACUSA_EU_DEMUX + SIRACUSA_EU_CORE_MASK) = 1u << event;
    (void)REG(SIRACUSA_EU_DEMUX + SIRACUSA_EU_CORE_EVENT_WAIT_CLEAR);
}

static void cluster_barrier(void *ctx)
{
    (void)ctx;
    if (g_cores == 1u) return;
    REG(SIRACUSA_EU_DEMUX + SIRACUSA_EU_CORE_MASK) = 1u << SIRACUSA_EVENT_BARRIER;
    (void)REG(SIRACUSA_EU_DEMUX + SIRACUSA_EU_BARRIER_WAIT_CLEAR(0));
}

static tsr_hal_status cluster_fork(void *ctx, tsr_cluster_task task, void *arg)
{
    if (task == NULL) return TSR_HAL_INVALID;
    if (g_cores == 1u) {
        task(arg, 0u, 1u);
        return TSR_HAL_OK;
    }
    g_task = task;
    g_arg = arg;
    __atomic_store_n(&g_fork_generation, g_fork_generation + 1u, __ATOMIC_RELEASE);
    REG(SIRACUSA_EU_DEMUX + SIRACUSA_EU_SW_EVENT(SIRACUSA_EVENT_SW_FORK)) = ((1u << g_cores) - 1u) & ~1u;
    task(arg, 0u, g_cores);
    cluster_barrier(ctx); /* the join */
    return TSR_HAL_OK;
}

static void worker_loop(uint32_t core) __attribute__((noreturn));
static void worker_loop(uint32_t core)
{
    uint32_t seen = 0u;
    for (;;) {
        while (__atomic_load_n(&g_fork_generation, __ATOMIC_ACQUIRE) == seen) wait_event(SIRACUSA_EVENT_SW_FORK);
        seen = g_fork_generation;
        g_task(g_arg, core, g_cores);
        cluster_barrier(NULL);
    }
}

/* ---- DMA: the cluster DMA (mchan) ------------------------------------------------ */

/* A transfer between TCDM and any other address is the engine's (a TCDM side in rows is
 * a command a row, the other side's rows the engine's 2D mode); one that does not touch
 * TCDM, or lies in it on both sides, the calling core copies at once (the engine moves data
 * between TCDM and the cluster's bus only); one with a side in HyperRAM goes through the uDMA
 * (offchip_copy, far_start). A handle is a counter of the engine's that its
 * commands count on; DMA_SLOTS handles are in flight at most (BUSY beyond), one counter each. */
#define DMA_SLOTS SIRACUSA_DMA_COUNTERS
static uint32_t g_dma_issued L1_STATE, g_dma_retired L1_STATE; /* handles 1, 2, ...; retired: waited for, in order */
static int8_t g_dma_counter[DMA_SLOTS] L1_STATE; /* each handle's counter; -1: copied by the core; FAR_READ: g_far */
#define FAR_READ (-2)

/* A new handle for a transfer counted on `counter` (-1: done by the core; FAR_READ). */
static tsr_dma_handle issued(int8_t counter)
{
    g_dma_counter[g_dma_issued % DMA_SLOTS] = counter;
    return ++g_dma_issued;
}

static inline uint32_t dma_reg(uint32_t offset) { return SIRACUSA_DMA_DEMUX + offset; }

static bool in_l1(uintptr_t a, uint32_t bytes)
{
    return a >= SIRACUSA_L1_BASE && a - SIRACUSA_L1_BASE <= SIRACUSA_L1_BYTES &&
           bytes <= SIRACUSA_L1_BYTES - (a - SIRACUSA_L1_BASE);
}

/* The off-chip window (tessera/siracusa_map.h): HyperRAM, reached through the uDMA. */
#define OFFCHIP_BYTES TSR_SIRACUSA_OFFCHIP_BYTES
typedef enum { NEAR, FAR, ACROSS } far_part; /* outside the window, inside it, across its edge */

#define MAYBE_FAR(a, span) ((a) + (span) > SIRACUSA_OFFCHIP_WINDOW && (a) < SIRACUSA_OFFCHIP_WINDOW + OFFCHIP_BYTES)

static far_part offchip_part(uintptr_t a, uint64_t span)
{
    const uint64_t lo = SIRACUSA_OFFCHIP_WINDOW, hi = lo + OFFCHIP_BYTES;
    if (span == 0u || a + span <= lo || a >= hi) return NEAR;
    return a >= lo && a + span <= hi ? FAR : ACROSS;
}

static void dma_push(uint32_t cmd, uint32_t loc, uint32_t ext, bool two_d, uint32_t count, uint32_t stride)
{
    REG(dma_reg(SIRACUSA_DMA_CMD)) = cmd | SIRACUSA_DMA_INC | SIRACUSA_DMA_EVENT | (two_d ? SIRACUSA_DMA_2D_EXT : 0u);
    REG(dma_reg(SIRACUSA_DMA_CMD)) = loc;
    REG(dma_reg(SIRACUSA_DMA_CMD)) = ext;
    if (two_d) {
        REG(dma_reg(SIRACUSA_DMA_CMD)) = count;
        REG(dma_reg(SIRACUSA_DMA_CMD)) = stride;
    }
}

/* A contiguous block, in commands of the length field's size. */
static void dma_push_1d(uint32_t dir, uint32_t loc, uint32_t ext, uint32_t bytes)
{
    for (uint32_t done = 0; done < bytes;) {
        const uint32_t n = bytes - done < SIRACUSA_DMA_LEN_MAX ? bytes - done : SIRACUSA_DMA_LEN_MAX;
        dma_push(dir | n, loc + done, ext + done, false, 0u, 0u);
        done += n;
    }
}

/* The read ahead the runtime asks for (dma_prefetch, below). */
static struct {
    bool live;       /* a window: [offset, offset + read) of HyperRAM is in `buffer` */
    bool reading;    /* a part in flight: [offset + read, offset + issued) */
    uint8_t *buffer; /* the runtime's */
    uint32_t offset, bytes, issued, read;
} g_pre L1_STATE; /* in TCDM: a DMA wait reads `reading` (a load from L2 costs fifteen cycles) */
static void pre_pump(void);

/* Sleeps on the DMA's event until `counter`'s bytes have moved, then frees it. Before each
 * sleep, the read ahead's next part is started if the uDMA is done with the one before (the
 * core would sleep: what this costs is waited anyway). */
static void dma_counter_wait(uint32_t counter)
{
    while (REG(dma_reg(SIRACUSA_DMA_STATUS)) & (1u << counter)) {
        if (g_pre.reading) pre_pump();
        wait_event(SIRACUSA_EVENT_DMA);
    }
    REG(dma_reg(SIRACUSA_DMA_STATUS)) = 1u << counter;
}

/* The cluster DMA's one block from `src` into TCDM, waited for on a counter of its own
 * (HyperRAM's staging buffer into L1); elsewhere the core copies. */
static void move_from_stage(void *dst, const void *src, uint32_t bytes)
{
    if (!in_l1((uintptr_t)dst, bytes)) {
        memcpy(dst, src, bytes);
        return;
    }
    const uint32_t counter = REG(dma_reg(SIRACUSA_DMA_CMD));
    dma_push_1d(SIRACUSA_DMA_EXT2LOC, (uint32_t)(uintptr_t)dst, (uint32_t)(uintptr_t)src, bytes);
    dma_counter_wait(counter);
}

/* A HyperRAM read into L1 in flight while the cores compute: the uDMA fills one half of the
 * L2 that the program and the L2 arena leave (linker symbols) while the cluster DMA moves the
 * read before it out of the other half. One uDMA read at a time: the next one's start (or
 * its handle's wait) first waits for it and hands its move to the cluster DMA, on a counter
 * that becomes its handle's (waited for as any other); a half is filled again only once
 * the handle whose move reads it is retired.
 * Then the uDMA reads ahead into the other half (when its last move is done) the bytes that
 * follow, as many as the read before: a weight's tiles, and the weights a token reads one
 * after another, lie in a row in the image, so that the next read (the next tile, or a step's
 * first, asked for once the steps between have run) often begins inside it, and only the rest
 * is read then. A read that does not waits for it and drops it. (Reading ahead all a half
 * holds cost more in dropped reads than it saved: stories15M int8 from HyperRAM 16.5 -> 19.5 M
 * cycles a token.)
 * A read larger than a half goes in parts: the first (or what of it was read ahead) like any
 * read; the rest when it is settled, each part's uDMA read while the cluster DMA moves the
 * part before out of the other half (stories15M W4A8 at position 128: 9.99 -> 8.89 M cycles,
 * its w13 and wqkv tiles and the classifier's being larger than a half). */
extern uint8_t __l2_free_start[], __l2_free_end[];
static struct {
    bool live;
    uint8_t *dst;
    uint32_t dst_stride, row_bytes, rows;
    tsr_dma_handle handle; /* its handle: FAR_READ in g_dma_counter until it is settled */
    uint32_t half;         /* the half of the free L2 it fills */
    uint32_t offset, skip; /* its HyperRAM offset; where in the half it begins */
    uint32_t first;        /* its bytes in the first part (all of them unless it is read in parts) */
} g_far;
static tsr_dma_handle g_half_handle[2]; /* per half, the handle whose move reads it (0: none) */
static uint32_t g_next_half;
static struct {
    bool live;              /* in flight, or there and not yet asked for */
    uint32_t offset, bytes; /* HyperRAM bytes [offset, offset + bytes), at the start of `half` */
    uint32_t half;
} g_ahead;

static tsr_hal_status dma_wait(void *ctx, tsr_dma_handle handle);

static uint32_t far_half_bytes(void) { return (uint32_t)(__l2_free_end - __l2_free_start) / 2u & ~3u; }
static uint8_t *far_half(uint32_t half) { return __l2_free_start + half * far_half_bytes(); }

static uint32_t g_last_bytes; /* the last read's: as many are read ahead */

/* The bytes from `offset` into the next half, where its last move is done (retired: nothing
 * waits here). */
static void far_read_ahead(uint32_t offset)
{
    const uint32_t half = g_next_half;
    if (offset >= OFFCHIP_BYTES || (g_half_handle[half] != 0u && (int32_t)(g_dma_retired - g_half_handle[half]) < 0))
        return;
    uint32_t bytes = OFFCHIP_BYTES - offset < g_last_bytes ? OFFCHIP_BYTES - offset : g_last_bytes;
    bytes = (bytes < far_half_bytes() - 4u ? bytes : far_half_bytes() - 4u) & ~3u; /* a read in parts: a half's */
    if (bytes == 0u) return;
    g_next_half = half ^ 1u;
    g_half_handle[half] = 0u;
    tsr_hyperram_start_read(offset, far_half(half), bytes);
    g_ahead.live = true;
    g_ahead.offset = offset;
    g_ahead.bytes = bytes;
    g_ahead.half = half;
}

/* The read ahead, dropped (not asked for, or HyperRAM is to be read or written otherwise). */
static void far_drop_ahead(void)
{
    if (!g_ahead.live) return;
    g_ahead.live = false;
    tsr_hyperram_wait();
}

/* The rest of a read larger than a half (its first part is in): part by part through the
 * two halves, each part's uDMA read while the cluster DMA moves the part before into L1;
 * the last part's move is left in flight on `counter`. */
static __attribute__((noinline)) uint32_t far_rest(uint32_t counter, uint32_t *half)
{
    const uint32_t total = g_far.row_bytes * g_far.rows, most = far_half_bytes() - 4u;
    g_half_handle[*half] = 0u; /* its parts' moves: waited for here, on `counter` */
    for (uint32_t done = g_far.first; done < total;) {
        *half ^= 1u;
        if (g_half_handle[*half] != 0u) { /* an earlier read's move out of it */
            dma_wait(NULL, g_half_handle[*half]);
            g_half_handle[*half] = 0u;
        }
        const uint32_t n = total - done < most ? total - done : most;
        tsr_hyperram_start_read(g_far.offset + done, far_half(*half), n);
        tsr_hyperram_wait();
        dma_counter_wait(counter); /* the part before: its half is the next part's */
        counter = REG(dma_reg(SIRACUSA_DMA_CMD));
        dma_push_1d(SIRACUSA_DMA_EXT2LOC, (uint32_t)(uintptr_t)(g_far.dst + done), (uint32_t)(uintptr_t)far_half(*half), n);
        done += n;
    }
    g_half_handle[*half ^ 1u] = 0u;
    g_half_handle[*half] = g_far.handle;
    g_next_half = *half ^ 1u;
    return counter;
}

/* Rows of `row_bytes` read into L2 at `from` (one after the other), into L1 at `dst` (rows a
 * `dst_stride` apart) by the cluster DMA: `first` bytes of them where `dst` is contiguous, every
 * row otherwise. */
static void move_in(uint8_t *dst, uint32_t dst_stride, const uint8_t *from, uint32_t row_bytes, uint32_t rows,
                    uint32_t first)
{
    if (dst_stride == row_bytes || rows == 1u)
        dma_push_1d(SIRACUSA_DMA_EXT2LOC, (uint32_t)(uintptr_t)dst, (uint32_t)(uintptr_t)from, first);
    else
        for (uint32_t r = 0; r < rows; ++r)
            dma_push_1d(SIRACUSA_DMA_EXT2LOC, (uint32_t)(uintptr_t)(dst + (size_t)r * dst_stride),
                        (uint32_t)(uintptr_t)(from + (size_t)r * row_bytes), row_bytes);
}

/* The live read is in L2: its move into L1 is the cluster DMA's, on one counter, which
 * becomes its handle's. */
static void far_settle(void)
{
    if (!g_far.live) return;
    g_far.live = false;
    tsr_hyperram_wait();
    const uint8_t *stage = far_half(g_far.half) + g_far.skip;
    uint32_t counter = REG(dma_reg(SIRACUSA_DMA_CMD));
    move_in(g_far.dst, g_far.dst_stride, stage, g_far.row_bytes, g_far.rows, g_far.first);
    if (g_far.first < g_far.row_bytes * g_far.rows) {
        uint32_t half = g_far.half;
        counter = far_rest(counter, &half);
    }
    g_dma_counter[(g_far.handle - 1u) % DMA_SLOTS] = (int8_t)counter;
    far_read_ahead(g_far.offset + g_far.row_bytes * g_far.rows);
}

/* A read from HyperRAM with contiguous rows into L1: started, not waited for; its handle
 * (FAR_READ until settled). One larger than half the free L2 (contiguous in L1 too) is read
 * in parts: its first (a half's) now, the rest when it is settled (far_rest). */
static bool far_start(uint8_t *dst, uint32_t dst_stride, const uint8_t *src, uint32_t src_stride, uint32_t row_bytes,
                      uint32_t rows, tsr_dma_handle *out)
{
    const uint64_t bytes = (uint64_t)row_bytes * rows, dst_span = (uint64_t)(rows - 1u) * dst_stride + row_bytes;
    const bool parts = bytes + 4u > far_half_bytes();
    if ((rows > 1u && src_stride != row_bytes) || !in_l1((uintptr_t)dst, (uint32_t)dst_span) ||
        (parts && rows > 1u && dst_stride != row_bytes))
        return false;
    const uint32_t offset = (uint32_t)((uintptr_t)src - SIRACUSA_OFFCHIP_WINDOW);
    const uint32_t skip = g_ahead.live ? offset - g_ahead.offset : 0u; /* where it begins in the read ahead */
    uint32_t half;
    g_far.first = parts ? far_half_bytes() - 4u : (uint32_t)bytes;
    if (g_ahead.live && offset >= g_ahead.offset && skip < g_ahead.bytes &&
        (parts || skip + bytes + 4u <= far_half_bytes())) {
        g_ahead.live = false; /* in flight or there: the rest, if any, after it (in parts: far_rest's) */
        half = g_ahead.half;
        g_far.skip = skip;
        if (parts)
            g_far.first = g_ahead.bytes - skip;
        else if (skip + bytes > g_ahead.bytes)
            tsr_hyperram_start_read(g_ahead.offset + g_ahead.bytes, far_half(half) + g_ahead.bytes,
                                    (uint32_t)(skip + bytes - g_ahead.bytes));
    } else {
        far_drop_ahead();
        half = g_next_half;
        if (g_half_handle[half] != 0u) dma_wait(NULL, g_half_handle[half]); /* its last move out of this half is done */
        g_next_half = half ^ 1u;
        g_far.skip = 0u;
        tsr_hyperram_start_read(offset, far_half(half), g_far.first);
    }
    g_far.live = true;
    g_far.offset = offset;
    g_last_bytes = (uint32_t)bytes;
    g_far.dst = dst;
    g_far.dst_stride = dst_stride;
    g_far.row_bytes = row_bytes;
    g_far.rows = rows;
    g_far.half = half;
    g_far.handle = *out = issued(FAR_READ);
    g_half_handle[half] = g_far.handle;
    return true;
}

/* A transfer with one side in HyperRAM: through the uDMA, a row at a time unless both
 * sides are contiguous, done before it returns. */
static void offchip_copy(uint8_t *dst, uint32_t dst_stride, const uint8_t *src, uint32_t src_stride,
                         uint32_t row_bytes, uint32_t rows, bool src_far)
{
    if (rows == 1u || (dst_stride == row_bytes && src_stride == row_bytes)) {
        row_bytes *= rows;
        rows = 1u;
    }
    for (uint32_t r = 0; r < rows; ++r) {
        uint8_t *d = dst + (size_t)r * dst_stride;
        const uint8_t *s = src + (size_t)r * src_stride;
        if (src_far) tsr_hyperram_read((uint32_t)((uintptr_t)s - SIRACUSA_OFFCHIP_WINDOW), d, row_bytes, move_from_stage);
        else tsr_hyperram_write((uint32_t)((uintptr_t)d - SIRACUSA_OFFCHIP_WINDOW), s, row_bytes);
    }
}

static inline bool within(uintptr_t a, uint32_t bytes, uintptr_t base, uint32_t size)
{
    return a - base < size && bytes <= size - (a - base);
}

/* A read ahead the runtime asked for (tsr_hal_ops.dma_prefetch): HyperRAM bytes [offset,
 * offset + bytes) into the L2 buffer it lends (g_pre), in parts of PREFETCH_PART bytes, each
 * started when the uDMA is free (where core 0 sleeps for the cluster DMA, or at a read the
 * window holds), while the cores run the steps that read no HyperRAM; a read the window holds
 * is then the cluster DMA's move out of the buffer, once the parts it lies in are there. A read elsewhere stops the reading (the
 * parts read stay the window); a write to HyperRAM, a new hint or the loan's end end it.
 * Why: TinyLLama-v0's classifier (2 MB from HyperRAM a token, `shared`) was read only once
 * its step began, after the layers, which read none: 2,446,268 -> 2,127,086 cycles a token on
 * 8 cores (parts of 32 KiB started at every DMA wait: 2,156,160, and every wait paid a check;
 * 64 KiB where core 0 sleeps: 2,169,544; 192 KiB: 2,131,515). */
#define PREFETCH_PART 131072u
/* The part in flight, if done, counted; the next one started where the uDMA is free. */
static void pre_pump(void)
{
    if (g_pre.reading) {
        if (tsr_hyperram_busy()) return;
        g_pre.reading = false;
        g_pre.read = g_pre.issued;
    }
    if (g_pre.issued < g_pre.bytes) {
        const uint32_t left = g_pre.bytes - g_pre.issued, n = left < PREFETCH_PART ? left : PREFETCH_PART;
        tsr_hyperram_start_read(g_pre.offset + g_pre.issued, g_pre.buffer + g_pre.issued, n);
        g_pre.issued += n;
        g_pre.reading = true;
    }
}

/* No more parts: the one in flight waited for; the window is what is read. */
static void pre_stop(void)
{
    if (g_pre.reading) {
        tsr_hyperram_wait();
        g_pre.reading = false;
        g_pre.read = g_pre.issued;
    }
    g_pre.bytes = g_pre.read;
}

/* A read of HyperRAM bytes from `offset` that the window holds (or will, once its parts are
 * in): moved out of the buffer into L1 on a counter, its handle's. Whether it was. */
static bool pre_serve(uint8_t *dst, uint32_t dst_stride, uint32_t offset, uint32_t src_stride, uint32_t row_bytes,
                      uint32_t rows, tsr_dma_handle *out)
{
    const uint64_t bytes = (uint64_t)row_bytes * rows, dst_span = (uint64_t)(rows - 1u) * dst_stride + row_bytes;
    if (!g_pre.live || offset < g_pre.offset || offset - g_pre.offset + bytes > g_pre.bytes ||
        (rows > 1u && src_stride != row_bytes) || dst_span > SIRACUSA_L1_BYTES || !in_l1((uintptr_t)dst, (uint32_t)dst_span))
        return false;
    const uint32_t at = offset - g_pre.offset, end = at + (uint32_t)bytes;
    while (g_pre.read < end) { /* its parts: in flight or to come */
        tsr_hyperram_wait();
        pre_pump();
    }
    const uint32_t counter = REG(dma_reg(SIRACUSA_DMA_CMD));
    move_in(dst, dst_stride, g_pre.buffer + at, row_bytes, rows, (uint32_t)bytes);
    *out = issued((int8_t)counter);
    pre_pump();
    if (end == g_pre.bytes && g_pre.read == g_pre.bytes) { /* the window's last: the read after it goes on ahead */
        g_last_bytes = (uint32_t)bytes;
        far_read_ahead(g_pre.offset + end);
    }
    return true;
}

static tsr_hal_status dma_prefetch(void *ctx, const void *src, uint32_t bytes, void *buffer, uint32_t buffer_bytes)
{
    (void)ctx;
    if (buffer != NULL && ((uintptr_t)buffer % 4u != 0u ||
                           !within((uintptr_t)buffer, buffer_bytes, SIRACUSA_L2_BASE, SIRACUSA_L2_BYTES)))
        return TSR_HAL_INVALID;
    pre_stop(); /* a window before: ended (its buffer is no longer the board's, or is lent anew) */
    g_pre.live = false;
    if (buffer == NULL || src == NULL || offchip_part((uintptr_t)src, bytes) != FAR || g_far.live) return TSR_HAL_OK;
    const uint32_t offset = (uint32_t)((uintptr_t)src - SIRACUSA_OFFCHIP_WINDOW);
    if (g_ahead.live) { /* read ahead already, or still reading what the hint says is not next: left be */
        if ((offset >= g_ahead.offset && offset - g_ahead.offset < g_ahead.bytes) || tsr_hyperram_busy()) return TSR_HAL_OK;
        far_drop_ahead();
    }
    g_pre.buffer = (uint8_t *)buffer;
    g_pre.offset = offset;
    g_pre.bytes = bytes < (buffer_bytes & ~3u) ? bytes : buffer_bytes & ~3u;
    g_pre.issued = g_pre.read = 0u;
    g_pre.live = g_pre.bytes != 0u;
    pre_pump();
    return TSR_HAL_OK;
}

/* A transfer with a side in HyperRAM (or across the window's edge: INVALID), out of the
 * common path: its handle, already done or a read in flight (FAR_READ). */
static __attribute__((noinline)) tsr_hal_status far_copy(void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride,
                                                        uint32_t row_bytes, uint32_t rows, uint64_t dst_span, uint64_t src_span,
                                                        tsr_dma_handle *out)
{
    const far_part src_far = offchip_part((uintptr_t)src, src_span), dst_far = offchip_part((uintptr_t)dst, dst_span);
    if (src_far == ACROSS || dst_far == ACROSS || src_far == dst_far) return TSR_HAL_INVALID;
    far_settle();
    if (src_far == FAR && pre_serve((uint8_t *)dst, dst_stride, (uint32_t)((uintptr_t)src - SIRACUSA_OFFCHIP_WINDOW),
                                    src_stride, row_bytes, rows, out))
        return TSR_HAL_OK;
    pre_stop();
    if (dst_far == FAR) g_pre.live = false; /* a write: the window may no longer be HyperRAM's bytes */
    if (src_far == FAR && far_start((uint8_t *)dst, dst_stride, (const uint8_t *)src, src_stride, row_bytes, rows, out))
        return TSR_HAL_OK;
    far_drop_ahead();
    offchip_copy((uint8_t *)dst, dst_stride, (const uint8_t *)src, src_stride, row_bytes, rows, src_far == FAR);
    *out = issued(-1);
    return TSR_HAL_OK;
}

/* The usual transfer, on a short path (a step's weights, a row of activations): one block of
 * at most the engine's length between TCDM and L2 or the weight memory, a command of three
 * words. Whether it is one: the first check of dma_copy_2d. */
static inline bool dma_block(uintptr_t d, uintptr_t s, uint32_t bytes, tsr_dma_handle *out)
{
    const bool d_l1 = in_l1(d, bytes), s_l1 = in_l1(s, bytes);
    const uintptr_t ext = d_l1 ? s : d;
    if (d_l1 == s_l1 || !(within(ext, bytes, SIRACUSA_L2_BASE, SIRACUSA_L2_BYTES) ||
                          within(ext, bytes, SIRACUSA_WMEM_BASE, SIRACUSA_WMEM_BYTES)))
        return false;
    const int8_t counter = (int8_t)REG(dma_reg(SIRACUSA_DMA_CMD)); /* a free counter: 16 handles hold 16 at most */
    dma_push((d_l1 ? SIRACUSA_DMA_EXT2LOC : 0u) | bytes, (uint32_t)(d_l1 ? d : s), (uint32_t)ext, false, 0u, 0u);
    *out = issued(counter);
    return true;
}

/* ... and a gather on a short path too: rows of L2 or the weight memory (a stride apart: a
 * head's keys in a KV cache) into a contiguous block of TCDM, at most the engine's length in
 * all, one 2D command. Whether it is one: dma_copy_2d's second check. */
static bool dma_gather_block(uintptr_t d, uintptr_t s, uint32_t src_stride, uint32_t row_bytes, uint32_t rows,
                             tsr_dma_handle *out)
{
    const uint64_t bytes = (uint64_t)rows * row_bytes, span = (uint64_t)(rows - 1u) * src_stride + row_bytes;
    if (bytes > SIRACUSA_DMA_LEN_MAX || span > SIRACUSA_L2_BYTES || !in_l1(d, (uint32_t)bytes) ||
        !(within(s, (uint32_t)span, SIRACUSA_L2_BASE, SIRACUSA_L2_BYTES) ||
          within(s, (uint32_t)span, SIRACUSA_WMEM_BASE, SIRACUSA_WMEM_BYTES)))
        return false;
    const int8_t counter = (int8_t)REG(dma_reg(SIRACUSA_DMA_CMD)); /* a free counter: 16 handles hold 16 at most */
    dma_push(SIRACUSA_DMA_EXT2LOC | (uint32_t)bytes, (uint32_t)d, (uint32_t)s, true, row_bytes, src_stride);
    *out = issued(counter);
    return true;
}

/* Every transfer the short paths of dma_copy_2d do not take: out of their way (their code
 * stays a few instruction-cache lines). */
static __attribute__((noinline)) tsr_hal_status dma_copy_any(void *dst, uint32_t dst_stride, const void *src,
                                                             uint32_t src_stride, uint32_t row_bytes, uint32_t rows,
                                                             tsr_dma_handle *out)
{
    const bool empty = rows == 0u || row_bytes == 0u;
    const uint64_t dst_span = empty ? 0u : (uint64_t)(rows - 1u) * dst_stride + row_bytes;
    const uint64_t src_span = empty ? 0u : (uint64_t)(rows - 1u) * src_stride + row_bytes;
    if (dst_span > 0xFFFFFFFFu || src_span > 0xFFFFFFFFu) return TSR_HAL_INVALID;
    if (g_dma_issued - g_dma_retired >= DMA_SLOTS) return TSR_HAL_BUSY;
    const uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    const bool dst_l1 = !empty && in_l1(d, (uint32_t)dst_span), src_l1 = !empty && in_l1(s, (uint32_t)src_span);
    if (!empty && (MAYBE_FAR(s, src_span) || MAYBE_FAR(d, dst_span)))
        return far_copy(dst, dst_stride, src, src_stride, row_bytes, rows, dst_span, src_span, out); /* HyperRAM */
    int8_t counter = -1;
    if (empty || dst_l1 == src_l1) {
        for (uint32_t r = 0; r < rows; ++r)
            memmove((uint8_t *)dst + (size_t)r * dst_stride, (const uint8_t *)src + (size_t)r * src_stride, row_bytes);
    } else {
        counter = (int8_t)REG(dma_reg(SIRACUSA_DMA_CMD)); /* a free counter: 16 handles hold 16 at most */
        const uint32_t dir = src_l1 ? 0u : SIRACUSA_DMA_EXT2LOC;
        const uint32_t loc = (uint32_t)(src_l1 ? s : d), ext = (uint32_t)(src_l1 ? d : s);
        const uint32_t loc_stride = src_l1 ? src_stride : dst_stride, ext_stride = src_l1 ? dst_stride : src_stride;
        const bool loc_rows = rows > 1u && loc_stride != row_bytes, ext_rows = rows > 1u && ext_stride != row_bytes;
        if (!loc_rows && !ext_rows) {
            dma_push_1d(dir, loc, ext, row_bytes * rows); /* one block */
        } else if (!loc_rows && row_bytes <= SIRACUSA_DMA_LEN_MAX) {
            const uint32_t per = SIRACUSA_DMA_LEN_MAX / row_bytes; /* the engine's 2D rows: as many a command as fit */
            for (uint32_t r = 0; r < rows; r += per) {
                const uint32_t n = rows - r < per ? rows - r : per;
                dma_push(dir | (n * row_bytes), loc + r * row_bytes, ext + r * ext_stride, true, row_bytes, ext_stride);
            }
        } else {
            for (uint32_t r = 0; r < rows; ++r) dma_push_1d(dir, loc + r * loc_stride, ext + r * ext_stride, row_bytes);
        }
    }
    *out = issued(counter);
    return TSR_HAL_OK;
}

static tsr_hal_status dma_copy_2d(void *ctx, void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride,
                                  uint32_t row_bytes, uint32_t rows, tsr_dma_handle *out)
{
    (void)ctx;
    if (dst == NULL || src == NULL || out == NULL) return TSR_HAL_INVALID;
    if (rows == 1u && row_bytes - 1u < SIRACUSA_DMA_LEN_MAX && g_dma_issued - g_dma_retired < DMA_SLOTS &&
        dma_block((uintptr_t)dst, (uintptr_t)src, row_bytes, out))
        return TSR_HAL_OK;
    if (rows > 1u && dst_stride == row_bytes && row_bytes != 0u && g_dma_issued - g_dma_retired < DMA_SLOTS &&
        dma_gather_block((uintptr_t)dst, (uintptr_t)src, src_stride, row_bytes, rows, out))
        return TSR_HAL_OK;
    return dma_copy_any(dst, dst_stride, src, src_stride, row_bytes, rows, out);
}

static tsr_hal_status dma_copy_1d(void *ctx, void *dst, const void *src, uint32_t bytes, tsr_dma_handle *out)
{
    return dma_copy_2d(ctx, dst, bytes, src, bytes, bytes, 1u, out);
}

/* Planes of gathers on the short path only (dma_gather_block's, a plane each: rows of L2 or
 * the weight memory into a contiguous block of TCDM), every plane's command on one counter:
 * a handle for them all, a command of five words a plane. Any other copy: UNSUPPORTED (the
 * runtime goes plane by plane). */
static tsr_hal_status dma_copy_planes(void *ctx, const tsr_dma_planes *c, tsr_dma_handle *out)
{
    (void)ctx;
    if (c == NULL || c->dst == NULL || c->src == NULL || out == NULL) return TSR_HAL_INVALID;
    if (c->planes == 0u || c->rows == 0u || c->row_bytes == 0u || (c->rows > 1u && c->dst_stride != c->row_bytes))
        return TSR_HAL_UNSUPPORTED;
    const uint64_t bytes = (uint64_t)c->rows * c->row_bytes, last = c->planes - 1u;
    const uint64_t dst_span = last * c->dst_plane + bytes;
    const uint64_t src_span = last * c->src_plane + (uint64_t)(c->rows - 1u) * c->src_stride + c->row_bytes;
    const uintptr_t d = (uintptr_t)c->dst, s = (uintptr_t)c->src;
    if (bytes > SIRACUSA_DMA_LEN_MAX || dst_span > SIRACUSA_L1_BYTES || src_span > SIRACUSA_L2_BYTES ||
        !in_l1(d, (uint32_t)dst_span) ||
        !(within(s, (uint32_t)src_span, SIRACUSA_L2_BASE, SIRACUSA_L2_BYTES) ||
          within(s, (uint32_t)src_span, SIRACUSA_WMEM_BASE, SIRACUSA_WMEM_BYTES)))
        return TSR_HAL_UNSUPPORTED;
    if (g_dma_issued - g_dma_retired >= DMA_SLOTS) return TSR_HAL_BUSY;
    const int8_t counter = (int8_t)REG(dma_reg(SIRACUSA_DMA_CMD)); /* a free counter: 16 handles hold 16 at most */
    const bool two_d = c->rows > 1u;
    const uint32_t cmd = SIRACUSA_DMA_EXT2LOC | (uint32_t)bytes;
    for (uint32_t p = 0, loc = (uint32_t)d, ext = (uint32_t)s; p < c->planes; ++p, loc += c->dst_plane, ext += c->src_plane)
        dma_push(cmd, loc, ext, two_d, c->row_bytes, c->src_stride);
    *out = issued(counter);
    return TSR_HAL_OK;
}

/* The oldest handle in flight is done: wait for its counter (asleep on the DMA's event), free it. */
static void dma_retire_one(void)
{
    if (g_dma_counter[g_dma_retired % DMA_SLOTS] == FAR_READ) far_settle(); /* its move: now on a counter */
    const int8_t counter = g_dma_counter[g_dma_retired % DMA_SLOTS];
    if (counter >= 0) dma_counter_wait((uint32_t)counter);
    ++g_dma_retired;
}

static tsr_hal_status dma_wait(void *ctx, tsr_dma_handle handle)
{
    (void)ctx;
    if (handle == 0u || (int32_t)(g_dma_issued - handle) < 0) return TSR_HAL_INVALID; /* never issued */
    while ((int32_t)(g_dma_retired - handle) < 0) dma_retire_one(); /* in order */
    return TSR_HAL_OK;
}

/* ---- NPU: N-EUREKA, a queue of the description's depth (neureka.h) ----------------------- */

/* In TCDM: the engine reads the parameters from there, core 0 the rest at every job. */
static tsr_neureka_slot g_npu_slots[TSR_SIRACUSA_NPU_DEPTH] L1_STATE;
static tsr_neureka_params g_npu_params[TSR_NEUREKA_CONTEXTS] L1_STATE;
static tsr_neureka_queue g_npu L1_STATE; /* set at start-up */
_Static_assert((TSR_SIRACUSA_NPU_DEPTH & (TSR_SIRACUSA_NPU_DEPTH - 1u)) == 0u, "siracusa: npu.queue_depth a power of two");
static tsr_hal_board g_board;

/* "npu: J jobs on N-EUREKA (E engine jobs), C on a core", after main() returns. */
static void report_npu(void)
{
    if (g_npu.engine_jobs + g_npu.core_jobs == 0u) return;
    tsr_pulp_puts("npu: ");
    tsr_pulp_put_u64(g_npu.engine_jobs);
    tsr_pulp_puts(" jobs on N-EUREKA (");
    tsr_pulp_put_u64(g_npu.engine_issued);
    tsr_pulp_puts(" engine jobs), ");
    tsr_pulp_put_u64(g_npu.core_jobs);
    tsr_pulp_puts(" on a core (requantization the engine cannot give)\n");
}

/* ---- counters, console ------------------------------------------------------------ */

static uint64_t cycles(void *ctx)
{
    (void)ctx;
    return tsr_pulp_mcycle();
}

static void console_write(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    put_bytes(text, len);
}

/* ctx: the NPU queue (the other operations need none). */
static const tsr_hal_ops g_ops = {cluster_fork,       cluster_barrier,   dma_copy_1d,       dma_copy_2d, dma_wait,
                                  tsr_neureka_submit, tsr_neureka_poll, tsr_neureka_wait, cycles,      console_write,
                                  NULL,                NULL,              dma_copy_planes,   dma_prefetch};

const tsr_hal_board *tsr_pulp_board(void) { return &g_board; }

void tsr_siracusa_image_offchip(void) { g_board.image_dma_only = true; }

/* ---- start-up (cluster cores; the FC only starts them: start.S) ------------------------ */

/* Each core's thread-local block (tessera/riscv_tls.h). */
#define TLS_BYTES 256u
static uint8_t g_tls[TSR_SIRACUSA_CORES][TLS_BYTES] __attribute__((aligned(64)));

static void init_tls(uint32_t core)
{
    if (!tsr_riscv_init_tls(g_tls[core], TLS_BYTES)) tsr_pulp_exit(3);
}

static volatile uint32_t g_boot_ready = 1u; /* in .data: valid before .bss is cleared */

void tsr_siracusa_core_entry(uint32_t core) __attribute__((noreturn));
void tsr_siracusa_core_entry(uint32_t core)
{
    if (core == 0u) {
        memset(__bss_start, 0, (size_t)(__bss_end - __bss_start));
        memset(__l1_state_start, 0, (size_t)(__l1_state_end - __l1_state_start));
        const uint32_t cores = tsr_siracusa_run_cores;
        if (cores == 0u || cores > TSR_SIRACUSA_CORES) {
            tsr_pulp_puts("error: .tessera_cores asks for more cores than the board description's (or none)\n");
            tsr_pulp_exit(4);
        }
        g_cores = cores;
        init_tls(0u);
        /* Barrier 0: the run's cores arrive and are woken. */
        REG(SIRACUSA_EU_BARRIER(0) + SIRACUSA_EU_BARR_TRIGGER_MASK) = (1u << cores) - 1u;
        REG(SIRACUSA_EU_BARRIER(0) + SIRACUSA_EU_BARR_TARGET_MASK) = (1u << cores) - 1u;
        /* The description's regions, its off-chip memory (HyperRAM) as the image's. */
        static const uint32_t sizes[TSR_REGION_COUNT] = {TSR_SIRACUSA_OFFCHIP_BYTES, TSR_SIRACUSA_L1_BYTES, TSR_SIRACUSA_L2_BYTES,
                                                         TSR_SIRACUSA_NMS_BYTES};
        g_board.abi = TSR_HAL_ABI;
        g_board.name = TSR_SIRACUSA_BOARD_NAME;
        g_board.fingerprint = tsr_board_fingerprint(g_board.name, TSR_SIRACUSA_CORES, sizes, true);
        g_board.core_count = g_cores;
        g_board.has_npu = true; /* N-EUREKA */
        g_board.solo_bytes = 0u;
        /* A cluster core's float load from L2 and its compare take about 24 cycles a logit
         * (the controller's argmax over stories260K's 512: 12,311 cycles), from TCDM a few. */
        g_board.sample_on_cluster_from = 256u;
        g_board.isa = TSR_SIRACUSA_ISA;
        g_board.regions[TSR_REGION_L1] = (tsr_hal_region){"L1", __l1_start, TSR_SIRACUSA_L1_BYTES};
        g_board.regions[TSR_REGION_L2] = (tsr_hal_region){"L2", __l2_start, TSR_SIRACUSA_L2_BYTES};
        g_board.regions[TSR_REGION_NMS] = (tsr_hal_region){"NMS", __nms_start, TSR_SIRACUSA_NMS_BYTES};
        /* HyperRAM's last 64 KiB, which no image uses: the HAL conformance suite's off-chip scratch. */
        g_board.regions[TSR_REGION_IMAGE] =
            (tsr_hal_region){"off-chip", (uint8_t *)(uintptr_t)(SIRACUSA_OFFCHIP_WINDOW + OFFCHIP_BYTES - TSR_SIRACUSA_OFFCHIP_SCRATCH),
                             TSR_SIRACUSA_OFFCHIP_SCRATCH};
        tsr_hyperram_init();
        g_board.ops = &g_ops;
        g_npu.slots = g_npu_slots, g_npu.depth = TSR_SIRACUSA_NPU_DEPTH;
        for (uint32_t r = 0; r < TSR_REGION_COUNT; ++r) g_npu.regions[r] = g_board.regions[r];
        g_npu.params = g_npu_params, g_npu.first_unstarted = 1u; /* the rest: 0 (.l1_state is cleared) */
        g_board.ctx = &g_npu;
        __atomic_store_n(&g_boot_ready, 2u, __ATOMIC_RELEASE);
        REG(SIRACUSA_EU_DEMUX + SIRACUSA_EU_SW_EVENT(SIRACUSA_EVENT_SW_FORK)) = ((1u << TSR_SIRACUSA_CORES) - 1u) & ~1u;
        const int status = main();
        tsr_siracusa_report_runs();
        report_npu();
        tsr_pulp_exit(status);
    }
    while (__atomic_load_n(&g_boot_ready, __ATOMIC_ACQUIRE) != 2u) wait_event(SIRACUSA_EVENT_SW_FORK);
    init_tls(core);
    worker_loop(core);
}
