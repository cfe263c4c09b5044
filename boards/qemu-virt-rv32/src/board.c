/* The qemu-virt-rv32 board: the Tessera HAL on bare-metal harts. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dma_engine.h"
#include "npu_engine.h"
#include "tessera/div_u64.h"
#include "tessera/image_format.h"
#include "tessera/op_labels.h"
#include "tessera/qemu_virt_rv32.h"
#include "tessera/riscv_tls.h"

#define UART_BASE 0x10000000u
#define TEST_DEVICE 0x00100000u
#define CLINT_MSIP(h) ((volatile uint32_t *)(0x02000000u + 4u * (h)))
#define MIE_MSIE (1u << 3)
#define MIE_MTIE (1u << 7)
#define CLINT_MTIMECMP_LO(h) ((volatile uint32_t *)(0x02004000u + 8u * (h)))
#define CLINT_MTIMECMP_HI(h) ((volatile uint32_t *)(0x02004004u + 8u * (h)))
#define CLINT_MTIME_LO ((volatile uint32_t *)0x0200BFF8u)
#define CLINT_MTIME_HI ((volatile uint32_t *)0x0200BFFCu)
#define CHECK_IN_TICKS 100000u /* 10 ms of the 10 MHz machine timer */

/* From the linker script. */
extern uint8_t __bss_start[], __bss_end[];
extern uint8_t __l1_start[], __l2_start[], __nms_start[], __offchip_window_start[];

int main(void);

/* ---- console and exit ------------------------------------------------------- */

static void uart_putc(char c)
{
    volatile uint8_t *uart = (volatile uint8_t *)UART_BASE;
    while ((uart[5] & 0x20u) == 0u) {
    }
    uart[0] = (uint8_t)c;
}

void tsr_qemu_puts(const char *text)
{
    while (*text) uart_putc(*text++);
}

uint64_t tsr_qemu_div_u64(uint64_t n, uint64_t d) { return tsr_div_u64(n, d); }

/* Each digit by subtracting its power of ten (no 64-bit division). */
void tsr_qemu_put_u64(uint64_t v)
{
    uint64_t power = 1;
    int digits = 1;
    while (digits < 20 && v >= power && v - power >= 9u * power) power *= 10u, ++digits; /* v >= 10 power */
    for (; digits; --digits) {
        char digit = '0';
        while (v >= power) v -= power, ++digit;
        uart_putc(digit);
        power = tsr_qemu_div_u64(power, 10u);
    }
}

void tsr_qemu_exit(int status)
{
    *(volatile uint32_t *)TEST_DEVICE = status == 0 ? 0x5555u : (((uint32_t)status << 16) | 0x3333u);
    for (;;) __asm__ volatile("wfi");
}

static void put_hex(uint32_t v)
{
    tsr_qemu_puts("0x");
    for (int shift = 28; shift >= 0; shift -= 4) uart_putc("0123456789abcdef"[(v >> shift) & 15u]);
}

/* start.S's trap vector: every trap ends the program (no interrupt is enabled to trap). */
void tsr_qemu_trap(uint32_t cause, uint32_t tval, uint32_t epc, uint32_t hart) __attribute__((noreturn));
void tsr_qemu_trap(uint32_t cause, uint32_t tval, uint32_t epc, uint32_t hart)
{
    tsr_qemu_puts(cause == 5u ? "trap: load access fault" : cause == 7u ? "trap: store access fault" : "trap");
    tsr_qemu_puts(" (mcause ");
    tsr_qemu_put_u64(cause);
    tsr_qemu_puts(") at ");
    put_hex(tval);
    tsr_qemu_puts(", pc ");
    put_hex(epc);
    tsr_qemu_puts(", hart ");
    tsr_qemu_put_u64(hart);
    tsr_qemu_puts("\n");
    tsr_qemu_exit(4);
}

/* ---- the off-chip memory only the DMA hart reads --------------------------------- */

/* The firmware's image (boards/common/demo/image.S.in), if it has one. */
extern const uint8_t tessera_image[] __attribute__((weak));
static uintptr_t g_dma_only_begin, g_dma_only_end; /* the weights the image keeps off chip */

/* On a board whose off-chip memory (the image's) only the DMA engine reads: the bytes of
 * the weights section the image keeps in place, from its section table (read here,
 * before anything is locked). Nothing for an image without one. */
static void find_dma_only_range(void)
{
    if (!TSR_QEMU_DMA_ONLY || tessera_image == NULL) return;
    const tsr_image_header *h = (const tsr_image_header *)tessera_image;
    if (h->magic != TSR_IMAGE_MAGIC) return;
    const tsr_section *s = (const tsr_section *)(tessera_image + h->section_table_offset);
    for (uint32_t i = 0; i < h->section_count && i < 64u; ++i)
        if (s[i].kind == TSR_SECTION_WEIGHTS && s[i].region == TSR_REGION_IMAGE && s[i].size > 0u) {
            g_dma_only_begin = (uintptr_t)(tessera_image + s[i].file_offset) & ~(uintptr_t)3u;
            g_dma_only_end = ((uintptr_t)(tessera_image + s[i].file_offset + s[i].size) + 3u) & ~(uintptr_t)3u;
        }
}

/* A compute hart locks PMP entry 1 (top of range, entry 0 its bottom) over that range
 * with no permission: locked, it binds machine mode too, so a load there traps. */
static void lock_dma_only_range(void)
{
    if (g_dma_only_end == 0u) return;
    __asm__ volatile("csrw pmpaddr0, %0" : : "r"(g_dma_only_begin >> 2));
    __asm__ volatile("csrw pmpaddr1, %0" : : "r"(g_dma_only_end >> 2));
    __asm__ volatile("csrw pmpcfg0, %0" : : "r"(0x8800u)); /* entry 1: L | A=TOR, R=W=X=0; entry 0: off */
}

const void *tsr_qemu_dma_only_begin(void) { return (const void *)g_dma_only_begin; }

/* ---- counters ---------------------------------------------------------------- */

/* A 64-bit counter CSR on RV32: high half, low half, high half again until stable. */
#define READ_CSR64(lo_name, hi_name)                                       \
    do {                                                                   \
        uint32_t hi_, lo_, hi2_;                                           \
        do {                                                               \
            __asm__ volatile("csrr %0, " hi_name : "=r"(hi_));             \
            __asm__ volatile("csrr %0, " lo_name : "=r"(lo_));             \
            __asm__ volatile("csrr %0, " hi_name : "=r"(hi2_));            \
        } while (hi_ != hi2_);                                             \
        return ((uint64_t)hi_ << 32) | lo_;                                \
    } while (0)

static uint64_t read_csr64_cycle(void) { READ_CSR64("mcycle", "mcycleh"); }

static uint64_t read_mtime(void)
{
    uint32_t hi, lo;
    do {
        hi = *CLINT_MTIME_HI;
        lo = *CLINT_MTIME_LO;
    } while (hi != *CLINT_MTIME_HI);
    return ((uint64_t)hi << 32) | lo;
}

static void set_timer(uint64_t when)
{
    *CLINT_MTIMECMP_HI(0) = 0xFFFFFFFFu; /* no spurious match while the halves change */
    *CLINT_MTIMECMP_LO(0) = (uint32_t)when;
    *CLINT_MTIMECMP_HI(0) = (uint32_t)(when >> 32);
}

/* ---- the cluster: harts woken by software interrupts ------------------------- */

static volatile uint32_t g_boot_ready = 1u; /* in .data: valid before .bss is cleared */
static uint32_t g_harts_up;                  /* bit per hart that checked in */
static uint32_t g_cores = 1u;
static uint32_t g_dma_hart = TSR_QEMU_NO_DMA_HART;
static uint32_t g_npu_hart = TSR_QEMU_NO_NPU_HART;
static uint32_t g_sealed;                    /* set once hart 0 has counted the cluster */
static tsr_cluster_task g_task;
static void *g_arg;
static uint32_t g_generation;
static uint32_t g_remaining;
static uint32_t g_barrier_arrived, g_barrier_phase;

static inline void wait_for_interrupt(uint32_t hart)
{
    __asm__ volatile("wfi");
    *CLINT_MSIP(hart) = 0u; /* the wake-up is consumed; the caller re-checks its condition */
}

static void worker_loop(uint32_t hart) __attribute__((noreturn));
static void worker_loop(uint32_t hart)
{
    uint32_t seen = 0u; /* no fork happens before the cluster is sealed */
    for (;;) {
        while (__atomic_load_n(&g_generation, __ATOMIC_ACQUIRE) == seen) wait_for_interrupt(hart);
        seen = __atomic_load_n(&g_generation, __ATOMIC_ACQUIRE);
        g_task(g_arg, hart, g_cores);
        if (__atomic_sub_fetch(&g_remaining, 1u, __ATOMIC_ACQ_REL) == 0u) *CLINT_MSIP(0) = 1u;
    }
}

static tsr_hal_status cluster_fork(void *ctx, tsr_cluster_task task, void *arg)
{
    (void)ctx;
    if (task == NULL) return TSR_HAL_INVALID;
    if (g_cores == 1u) {
        task(arg, 0u, 1u);
        return TSR_HAL_OK;
    }
    g_task = task;
    g_arg = arg;
    __atomic_store_n(&g_remaining, g_cores - 1u, __ATOMIC_RELEASE);
    __atomic_add_fetch(&g_generation, 1u, __ATOMIC_RELEASE);
    for (uint32_t h = 1; h < g_cores; ++h) *CLINT_MSIP(h) = 1u;
    task(arg, 0u, g_cores);
    while (__atomic_load_n(&g_remaining, __ATOMIC_ACQUIRE) != 0u) wait_for_interrupt(0u);
    return TSR_HAL_OK;
}

static inline uint32_t this_hart(void)
{
    uint32_t hart;
    __asm__ volatile("csrr %0, mhartid" : "=r"(hart));
    return hart;
}

/* Sense-reversing barrier; waiters sleep in wfi and the last to arrive wakes them,
 * so a waiting hart retires no instructions (and gives QEMU's round robin away). */
static void cluster_barrier(void *ctx)
{
    (void)ctx;
    const uint32_t phase = __atomic_load_n(&g_barrier_phase, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&g_barrier_arrived, 1u, __ATOMIC_ACQ_REL) == g_cores) {
        __atomic_store_n(&g_barrier_arrived, 0u, __ATOMIC_RELAXED);
        __atomic_add_fetch(&g_barrier_phase, 1u, __ATOMIC_RELEASE);
        const uint32_t me = this_hart();
        for (uint32_t h = 0; h < g_cores; ++h)
            if (h != me) *CLINT_MSIP(h) = 1u;
    } else {
        const uint32_t me = this_hart();
        while (__atomic_load_n(&g_barrier_phase, __ATOMIC_ACQUIRE) == phase) wait_for_interrupt(me);
    }
}

static uint64_t cycles(void *ctx)
{
    (void)ctx;
    return read_csr64_cycle();
}

static void console_write(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; ++i) uart_putc(text[i]);
}

/* Labels each core's instructions with the operator of the step it works on (always)
 * and its layer (with tsr_qemu_label_layers), for the plugin (start.S:
 * tsr_qemu_op_label_table, tsr_qemu_label_table; tessera/op_labels.h). */
extern const char tsr_qemu_label_table[];
extern const char tsr_qemu_op_label_table[];
static tsr_op_labels g_op_labels;

static void label_ops(void *ctx, uint32_t core, const char *name, uint32_t layer, uint32_t pos, bool begin)
{
    (void)ctx, (void)core, (void)layer, (void)pos;
    ((void (*)(void))(tsr_qemu_op_label_table + 8u * (begin ? tsr_op_label(&g_op_labels, name) : TSR_NO_OP_LABEL)))();
}

static void label_ops_and_layers(void *ctx, uint32_t core, const char *name, uint32_t layer, uint32_t pos, bool begin)
{
    label_ops(ctx, core, name, layer, pos, begin);
    const uint32_t label = begin && layer < 255u ? layer : 255u;
    ((void (*)(void))(tsr_qemu_label_table + 8u * label))();
}

void tsr_qemu_put_op_labels(void) { tsr_op_labels_put(&g_op_labels, tsr_qemu_puts, tsr_qemu_put_u64); }

/* The engines, each on a hart of its own: DMA (dma_engine.c) and NPU (npu_engine.c). */
static const tsr_hal_ops g_ops = {cluster_fork,   cluster_barrier, tsr_dma_submit_1d, tsr_dma_submit,
                                  tsr_dma_wait,   tsr_npu_submit,  tsr_npu_poll,      tsr_npu_wait,
                                  cycles,         console_write,   NULL,              label_ops};
static const tsr_hal_ops g_ops_labelling = {cluster_fork,   cluster_barrier, tsr_dma_submit_1d, tsr_dma_submit,
                                            tsr_dma_wait,   tsr_npu_submit,  tsr_npu_poll,      tsr_npu_wait,
                                            cycles,         console_write,   NULL,              label_ops_and_layers};
static tsr_hal_board g_board;

void tsr_qemu_label_layers(bool on) { g_board.ops = on ? &g_ops_labelling : &g_ops; }

const tsr_hal_board *tsr_qemu_board(void) { return &g_board; }

uint32_t tsr_qemu_dma_hart(void) { return g_dma_hart; }

uint32_t tsr_qemu_npu_hart(void) { return g_npu_hart; }

/* ---- start-up --------------------------------------------------------------- */

/* Each hart's thread-local block (tessera/riscv_tls.h). */
#define TLS_BYTES 256u
static uint8_t g_tls[TSR_QEMU_BOOT_HARTS][TLS_BYTES] __attribute__((aligned(64)));

static void init_tls(uint32_t hart)
{
    if (!tsr_riscv_init_tls(g_tls[hart], TLS_BYTES)) tsr_qemu_exit(3);
}

static void init_board(void)
{
    static const uint32_t sizes[TSR_REGION_COUNT] = {TSR_QEMU_FLASH_BYTES, TSR_QEMU_L1_BYTES, TSR_QEMU_L2_BYTES,
                                                     TSR_QEMU_NMS_BYTES};
    g_board.abi = TSR_HAL_ABI;
    g_board.name = TSR_QEMU_BOARD_NAME; /* the emulated description's */
    g_board.fingerprint = tsr_board_fingerprint(g_board.name, TSR_QEMU_MAX_HARTS, sizes, TSR_QEMU_HAS_NPU != 0u);
    g_board.core_count = g_cores;
    g_board.has_npu = TSR_QEMU_HAS_NPU != 0u; /* served by a hart of its own, or by the submitting hart */
    g_board.solo_bytes = 0u; /* harts wake each other in a few hundred instructions: share every step */
    g_board.image_dma_only = g_dma_only_end != 0u; /* set only with a DMA hart to read it */
    g_board.regions[TSR_REGION_L1] = (tsr_hal_region){"L1", __l1_start, TSR_QEMU_L1_BYTES};
    g_board.regions[TSR_REGION_L2] = (tsr_hal_region){"L2", __l2_start, TSR_QEMU_L2_BYTES};
    g_board.regions[TSR_REGION_NMS] = (tsr_hal_region){"NMS", __nms_start, TSR_QEMU_NMS_BYTES};
    /* With off-chip memory: a window of it beside the image (the HAL conformance suite's) */
    g_board.regions[TSR_REGION_IMAGE] = (tsr_hal_region){"off-chip", __offchip_window_start, TSR_QEMU_OFFCHIP_WINDOW};
    g_board.ops = &g_ops;
    g_board.ctx = NULL;
}

void tsr_qemu_hart_entry(uint32_t hart) __attribute__((noreturn));
void tsr_qemu_hart_entry(uint32_t hart)
{
    __asm__ volatile("csrs mie, %0" : : "r"(MIE_MSIE)); /* a software interrupt ends wfi (no trap: MIE stays 0) */
    if (hart == 0u) {
        g_boot_ready = 0u;
        memset(__bss_start, 0, (size_t)(__bss_end - __bss_start));
        init_tls(0u);
        __atomic_store_n(&g_harts_up, 1u, __ATOMIC_RELEASE);
        __atomic_store_n(&g_boot_ready, 2u, __ATOMIC_RELEASE);
        for (uint32_t h = 1; h < TSR_QEMU_BOOT_HARTS; ++h) *CLINT_MSIP(h) = 1u; /* the others wait in wfi */
        /* The cluster is the harts that check in before a timer deadline: hart 0
         * sleeps (so QEMU runs the others) until each check-in's interrupt or the
         * timer wakes it. Under -icount this is deterministic. */
        const uint64_t deadline = read_mtime() + CHECK_IN_TICKS;
        set_timer(deadline);
        __asm__ volatile("csrs mie, %0" : : "r"(MIE_MTIE));
        while (read_mtime() < deadline &&
               __atomic_load_n(&g_harts_up, __ATOMIC_ACQUIRE) != (1u << TSR_QEMU_BOOT_HARTS) - 1u)
            wait_for_interrupt(0u);
        __asm__ volatile("csrc mie, %0" : : "r"(MIE_MTIE));
        set_timer(UINT64_MAX);
        *CLINT_MSIP(0) = 0u;
        /* A contiguous set of harts from 0 (qemu_virt_rv32.h): with all of them, the
         * description's cores are the cluster, the next hart the DMA engine and, with
         * an NPU, the last the NPU; with fewer (2 or more), the last is the DMA engine
         * and the others the cluster; with one, it does everything. */
        const uint32_t up = __atomic_load_n(&g_harts_up, __ATOMIC_ACQUIRE);
        uint32_t harts = 1u;
        while (harts < TSR_QEMU_BOOT_HARTS && (up & (1u << harts))) ++harts;
        if (TSR_QEMU_HAS_NPU && harts == TSR_QEMU_BOOT_HARTS) g_npu_hart = --harts;
        g_cores = harts > 1u ? harts - 1u : 1u;
        g_dma_hart = harts > 1u ? harts - 1u : TSR_QEMU_NO_DMA_HART;
        if (g_dma_hart != TSR_QEMU_NO_DMA_HART) find_dma_only_range(); /* (one hart copies for itself) */
        init_board();
        tsr_dma_set_hart(g_dma_hart != TSR_QEMU_NO_DMA_HART, g_dma_hart);
        tsr_npu_set_hart(g_npu_hart != TSR_QEMU_NO_NPU_HART, g_npu_hart, g_board.regions);
        __atomic_store_n(&g_sealed, 1u, __ATOMIC_RELEASE);
        for (uint32_t h = 1; h < TSR_QEMU_BOOT_HARTS; ++h) *CLINT_MSIP(h) = 1u;
        lock_dma_only_range();
        tsr_qemu_exit(main());
    }
    while (__atomic_load_n(&g_boot_ready, __ATOMIC_ACQUIRE) != 2u) wait_for_interrupt(hart);
    init_tls(hart);
    __atomic_or_fetch(&g_harts_up, 1u << hart, __ATOMIC_ACQ_REL);
    *CLINT_MSIP(0) = 1u; /* tell hart 0 */
    while (__atomic_load_n(&g_sealed, __ATOMIC_ACQUIRE) == 0u) wait_for_interrupt(hart);
    if (hart == g_dma_hart) tsr_dma_serve();
    if (hart == g_npu_hart) tsr_npu_serve();
    if (hart >= g_cores) /* checked in too late to be counted: stay out of the cluster */
        for (;;) __asm__ volatile("wfi");
    lock_dma_only_range();
    worker_loop(hart);
}
