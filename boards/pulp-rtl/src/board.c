/* The pulp-rtl board: the Tessera HAL on the CV32E40P cluster RTL's testbench. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tessera/div_u64.h"
#include "tessera/npu_core_queue.h"
#include "tessera/pulp_rtl.h"
#include "tessera/riscv_tls.h"

#define DEV(offset) ((volatile uint32_t *)(PULP_RTL_DEV_BASE + (offset)))

extern uint8_t __bss_start[], __bss_end[];
extern uint8_t __l1_start[], __l2_start[], __nms_start[];

int main(void);

/* ---- console, exit, marks ----------------------------------------------------- */

void tsr_pulp_puts(const char *text)
{
    while (*text) *DEV(PULP_RTL_CONSOLE) = (uint8_t)*text++;
}

uint64_t tsr_pulp_div_u64(uint64_t n, uint64_t d) { return tsr_div_u64(n, d); }

void tsr_pulp_put_u64(uint64_t v)
{
    char text[21];
    tsr_pulp_puts(tsr_u64_decimal(v, text));
}

void tsr_pulp_exit(int status)
{
    *DEV(PULP_RTL_EXIT) = (uint32_t)status;
    for (;;) {
    }
}

static inline uint32_t read_mcycle(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, mcycle" : "=r"(v));
    return v;
}

static inline uint32_t read_minstret(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, minstret" : "=r"(v));
    return v;
}

static void report_counters(void)
{
    const uint32_t cycles = read_mcycle(), instructions = read_minstret();
    *DEV(PULP_RTL_COUNTERS) = cycles;
    *DEV(PULP_RTL_COUNTERS) = instructions;
}

void tsr_pulp_mark_begin(void)
{
    *DEV(PULP_RTL_MARK) = 1u;
    report_counters();
}

void tsr_pulp_mark_end(void)
{
    *DEV(PULP_RTL_MARK) = 2u;
    report_counters();
}

/* ---- the cluster: the testbench's event unit ----------------------------------- */

static uint32_t g_cores = 1u;
static volatile tsr_cluster_task g_task;
static void *volatile g_arg;

static inline uint32_t this_core(void)
{
    uint32_t id;
    __asm__ volatile("csrr %0, mhartid" : "=r"(id));
    return id;
}

static void cluster_barrier(void *ctx)
{
    (void)ctx;
    if (g_cores > 1u) (void)*DEV(PULP_RTL_EU_BARRIER);
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
    *DEV(PULP_RTL_EU_FORK_POST) = 1u;
    task(arg, 0u, g_cores);
    cluster_barrier(ctx); /* the join */
    return TSR_HAL_OK;
}

static void worker_loop(uint32_t core) __attribute__((noreturn));
static void worker_loop(uint32_t core)
{
    for (;;) {
        (void)*DEV(PULP_RTL_EU_FORK_WAIT);
        g_task(g_arg, core, g_cores);
        (void)*DEV(PULP_RTL_EU_BARRIER);
    }
}

/* ---- DMA: the testbench's engine ---------------------------------------------- */

static uint32_t g_dma_issued;

static tsr_hal_status dma_submit(void *ctx, void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride,
                                 uint32_t row_bytes, uint32_t rows, tsr_dma_handle *out)
{
    (void)ctx;
    if (dst == NULL || src == NULL || out == NULL) return TSR_HAL_INVALID;
    *DEV(PULP_RTL_DMA_SRC) = (uint32_t)(uintptr_t)src;
    *DEV(PULP_RTL_DMA_DST) = (uint32_t)(uintptr_t)dst;
    *DEV(PULP_RTL_DMA_ROW_BYTES) = row_bytes;
    *DEV(PULP_RTL_DMA_ROWS) = rows;
    *DEV(PULP_RTL_DMA_SRC_STRIDE) = src_stride;
    *DEV(PULP_RTL_DMA_DST_STRIDE) = dst_stride;
    const uint32_t handle = *DEV(PULP_RTL_DMA_PUSH);
    if (handle == 0u) return TSR_HAL_BUSY;
    g_dma_issued = handle;
    *out = handle;
    return TSR_HAL_OK;
}

static tsr_hal_status dma_submit_1d(void *ctx, void *dst, const void *src, uint32_t bytes, tsr_dma_handle *out)
{
    return dma_submit(ctx, dst, bytes, src, bytes, bytes, 1u, out);
}

static tsr_hal_status dma_wait(void *ctx, tsr_dma_handle handle)
{
    (void)ctx;
    if (handle == 0u || (int32_t)(g_dma_issued - handle) < 0) return TSR_HAL_INVALID; /* never issued */
    *DEV(PULP_RTL_DMA_WAIT_FOR) = handle;
    (void)*DEV(PULP_RTL_DMA_WAIT);
    return TSR_HAL_OK;
}

/* ---- NPU: a queue of the description's depth, run by the core that waits ------ */

/* The RTL has no NPU: jobs queue as on one and run on the core that waits
 * (tessera/npu_core_queue.h), which keeps the runtime's queue discipline exercised. */
static tsr_npu_job g_npu_jobs[TSR_PULP_NPU_DEPTH];
static tsr_hal_board g_board;
static tsr_npu_core_queue g_npu = {g_npu_jobs, TSR_PULP_NPU_DEPTH, g_board.regions, 0u, 0u};

/* ---- counters, console, labels -------------------------------------------------- */

uint64_t tsr_pulp_mcycle(void)
{
    uint32_t hi, lo, hi2;
    do {
        __asm__ volatile("csrr %0, mcycleh" : "=r"(hi));
        __asm__ volatile("csrr %0, mcycle" : "=r"(lo));
        __asm__ volatile("csrr %0, mcycleh" : "=r"(hi2));
    } while (hi != hi2);
    return ((uint64_t)hi << 32) | lo;
}

static uint64_t cycles(void *ctx)
{
    (void)ctx;
    return tsr_pulp_mcycle();
}

static void console_write(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; ++i) *DEV(PULP_RTL_CONSOLE) = (uint8_t)text[i];
}

/* Each core tells the testbench which operator it works on: its per-operator profile. */
static void trace(void *ctx, uint32_t core, const char *name, uint32_t layer, uint32_t pos, bool begin)
{
    (void)ctx, (void)core, (void)layer, (void)pos;
    *DEV(PULP_RTL_LABEL) = begin ? (uint32_t)(uintptr_t)name : 0u;
}

/* ctx: the NPU queue (the other operations need none). */
static const tsr_hal_ops g_ops = {cluster_fork,       cluster_barrier,   dma_submit_1d, dma_submit, dma_wait,
                                  tsr_npu_core_submit, tsr_npu_core_poll, tsr_npu_core_wait, cycles, console_write,
                                  NULL,                trace};

const tsr_hal_board *tsr_pulp_board(void) { return &g_board; }

/* ---- start-up --------------------------------------------------------------- */

/* Each core's thread-local block (tessera/riscv_tls.h). */
#define TLS_BYTES 256u
static uint8_t g_tls[TSR_PULP_MAX_CORES][TLS_BYTES] __attribute__((aligned(64)));

static void init_tls(uint32_t core)
{
    if (!tsr_riscv_init_tls(g_tls[core], TLS_BYTES)) tsr_pulp_exit(3);
}

static volatile uint32_t g_boot_ready = 1u; /* in .data: valid before .bss is cleared */

void tsr_pulp_core_entry(uint32_t core) __attribute__((noreturn));
void tsr_pulp_core_entry(uint32_t core)
{
    if (core == 0u) {
        memset(__bss_start, 0, (size_t)(__bss_end - __bss_start));
        const uint32_t cores = *DEV(PULP_RTL_CORES);
        if (cores == 0u || cores > TSR_PULP_MAX_CORES) { /* the description's cores are the most it runs on */
            tsr_pulp_puts("error: the simulated cluster has more cores than the board description\n");
            tsr_pulp_exit(4);
        }
        g_cores = cores;
        init_tls(0u);
        static const uint32_t sizes[TSR_REGION_COUNT] = {0u, TSR_PULP_L1_BYTES, TSR_PULP_L2_BYTES, TSR_PULP_NMS_BYTES};
        g_board.abi = TSR_HAL_ABI;
        g_board.name = TSR_PULP_BOARD_NAME;
        g_board.fingerprint = tsr_board_fingerprint(g_board.name, TSR_PULP_MAX_CORES, sizes, true);
        g_board.core_count = g_cores;
        g_board.has_npu = true; /* jobs run by the submitting core */
        g_board.solo_bytes = 0u;
        g_board.isa = TSR_PULP_ISA;
        g_board.regions[TSR_REGION_L1] = (tsr_hal_region){"L1", __l1_start, TSR_PULP_L1_BYTES};
        g_board.regions[TSR_REGION_L2] = (tsr_hal_region){"L2", __l2_start, TSR_PULP_L2_BYTES};
        g_board.regions[TSR_REGION_NMS] = (tsr_hal_region){"NMS", __nms_start, TSR_PULP_NMS_BYTES};
        g_board.ops = &g_ops;
        g_board.ctx = &g_npu;
        __atomic_store_n(&g_boot_ready, 2u, __ATOMIC_RELEASE);
        tsr_pulp_exit(main());
    }
    while (__atomic_load_n(&g_boot_ready, __ATOMIC_ACQUIRE) != 2u) {
    }
    init_tls(core);
    worker_loop(core);
}
