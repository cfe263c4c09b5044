/* The mps3-an547 board: the Tessera HAL on one Cortex-M55, bare metal, start-up included. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>
#endif

#include "tessera/div_u64.h"
#include "tessera/mps3_an547.h"
#include "tessera/op_labels.h"

#define UART0_BASE 0x59303000u /* CMSDK APB UART0, secure alias (the core starts secure) */
#define UART_DATA (*(volatile uint32_t *)(UART0_BASE + 0x00u))
#define UART_STATE (*(volatile uint32_t *)(UART0_BASE + 0x04u)) /* bit 0: TX buffer full */
#define UART_CTRL (*(volatile uint32_t *)(UART0_BASE + 0x08u))  /* bit 0: TX enable */
#define UART_BAUDDIV (*(volatile uint32_t *)(UART0_BASE + 0x10u))
#define CPACR (*(volatile uint32_t *)0xE000ED88u)
#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

/* From the linker script. */
extern uint8_t __bss_start[], __bss_end[], __l1_start[], __l2_start[], __stack_top[];
extern uint8_t __tdata_start[], __tdata_end[], __tbss_start[], __tbss_end[];

int main(void);

/* ---- console and exit ------------------------------------------------------- */

static void uart_putc(char c)
{
    while (UART_STATE & 1u) {
    }
    UART_DATA = (uint8_t)c;
}

void tsr_m55_puts(const char *text)
{
    while (*text) uart_putc(*text++);
}

void tsr_m55_put_u64(uint64_t v)
{
    char text[21];
    tsr_m55_puts(tsr_u64_decimal(v, text));
}

/* Semihosting (bkpt 0xab) SYS_EXIT_EXTENDED: QEMU exits with `status`. */
void tsr_m55_exit(int status)
{
    static uint32_t block[2];
    block[0] = 0x20026u; /* ADP_Stopped_ApplicationExit */
    block[1] = (uint32_t)status;
    register uint32_t op __asm__("r0") = 0x20u;
    register uint32_t *arg __asm__("r1") = block;
    __asm__ volatile("bkpt 0xab" : "+r"(op) : "r"(arg) : "memory");
    for (;;) {
    }
}

/* ---- the cycle counter --------------------------------------------------------- */

static bool g_dwt; /* the DWT counts (silicon, FVPs); else SysTick's wraps are counted */
static volatile uint32_t g_systick_wraps;

void tsr_m55_systick(void) { ++g_systick_wraps; }

static void start_counter(void)
{
    DEMCR |= 1u << 24; /* TRCENA */
    DWT_CYCCNT = 0u;
    DWT_CTRL |= 1u; /* CYCCNTENA */
    const uint32_t before = DWT_CYCCNT;
    for (volatile int i = 0; i < 100; ++i) {
    }
    g_dwt = DWT_CYCCNT != before;
    if (!g_dwt) { /* the processor clock, 24 bits at a time */
        SYST_RVR = 0xFFFFFFu;
        SYST_CVR = 0u;
        SYST_CSR = 7u; /* processor clock, interrupt on wrap, enabled */
    }
}

static uint64_t cycles(void *ctx)
{
    (void)ctx;
    if (g_dwt) {
        static uint32_t last, high; /* extended to 64 bits: one reader, the core */
        const uint32_t now = DWT_CYCCNT;
        if (now < last) ++high;
        last = now;
        return ((uint64_t)high << 32) | now;
    }
    uint32_t wraps, value;
    do {
        wraps = g_systick_wraps;
        value = SYST_CVR;
    } while (wraps != g_systick_wraps);
    return ((uint64_t)wraps << 24) + (0xFFFFFFu - value);
}

/* ---- the HAL: one core, copies done by it --------------------------------------- */

static tsr_hal_status cluster_fork(void *ctx, tsr_cluster_task task, void *arg)
{
    (void)ctx;
    if (task == NULL) return TSR_HAL_INVALID;
    task(arg, 0u, 1u);
    return TSR_HAL_OK;
}

static void cluster_barrier(void *ctx) { (void)ctx; }

static uint32_t g_issued; /* the last handle given; handles run 1, 2, ... skipping 0 */

/* Rows of a copy: sixteen bytes a vector load and store (Helium), a row's tail predicated;
 * a row of at most sixteen bytes (a head of the KV cache) one predicated load and store.
 * memmove where the two ranges overlap (the HAL's copies never do; a hostile caller might). */
static void copy_rows(uint8_t *dst, uint32_t ds, const uint8_t *src, uint32_t ss, uint32_t bytes, uint32_t rows)
{
#if defined(__ARM_FEATURE_MVE)
    const size_t dspan = rows ? (size_t)(rows - 1u) * ds + bytes : 0, sspan = rows ? (size_t)(rows - 1u) * ss + bytes : 0;
    if (dst + dspan <= src || src + sspan <= dst) {
        if (bytes <= 16u) {
            const mve_pred16_t p = vctp8q(bytes);
            for (uint32_t r = 0; r < rows; ++r, dst += ds, src += ss) vstrbq_p_u8(dst, vldrbq_z_u8(src, p), p);
            return;
        }
        for (uint32_t r = 0; r < rows; ++r, dst += ds, src += ss)
            for (uint32_t j = 0; j < bytes; j += 16u) {
                const mve_pred16_t p = vctp8q(bytes - j);
                vstrbq_p_u8(dst + j, vldrbq_z_u8(src + j, p), p);
            }
        return;
    }
#endif
    for (uint32_t r = 0; r < rows; ++r) memmove(dst + (size_t)r * ds, src + (size_t)r * ss, bytes);
}

static tsr_hal_status dma_copy_2d(void *ctx, void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride,
                                  uint32_t row_bytes, uint32_t rows, tsr_dma_handle *out)
{
    (void)ctx;
    if (dst == NULL || src == NULL || out == NULL) return TSR_HAL_INVALID;
    copy_rows((uint8_t *)dst, dst_stride, (const uint8_t *)src, src_stride, row_bytes, rows);
    if (++g_issued == 0u) ++g_issued;
    *out = g_issued;
    return TSR_HAL_OK;
}

static tsr_hal_status dma_copy_1d(void *ctx, void *dst, const void *src, uint32_t bytes, tsr_dma_handle *out)
{
    return dma_copy_2d(ctx, dst, bytes, src, bytes, bytes, 1u, out);
}

/* Done at submit: a handle is valid once issued (the last 2^31 of them). */
static tsr_hal_status dma_wait(void *ctx, tsr_dma_handle handle)
{
    (void)ctx;
    return handle != 0u && g_issued - handle < (1u << 31) ? TSR_HAL_OK : TSR_HAL_INVALID;
}

static tsr_hal_status npu_submit(void *ctx, const tsr_npu_job *job, tsr_npu_handle *out)
{
    (void)ctx, (void)job, (void)out;
    return TSR_HAL_UNSUPPORTED;
}

static tsr_hal_status npu_poll(void *ctx, tsr_npu_handle handle, bool *done)
{
    (void)ctx, (void)handle, (void)done;
    return TSR_HAL_UNSUPPORTED;
}

static tsr_hal_status npu_wait(void *ctx, tsr_npu_handle handle)
{
    (void)ctx, (void)handle;
    return TSR_HAL_UNSUPPORTED;
}

static void console_write(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; ++i) uart_putc(text[i]);
}

/* Each step's operator (always) and layer (with tsr_m55_label_layers) labelled for the
 * plugin: entries of src/labels.S, called with the Thumb bit set. */
extern const char tsr_m55_op_label_table[], tsr_m55_label_table[];
static tsr_op_labels g_op_labels;

static void call_label(const char *table, uint32_t label) { ((void (*)(void))(table + 8u * label + 1u))(); }

static void label_ops(void *ctx, uint32_t core, const char *name, uint32_t layer, uint32_t pos, bool begin)
{
    (void)ctx, (void)core, (void)layer, (void)pos;
    call_label(tsr_m55_op_label_table, begin ? tsr_op_label(&g_op_labels, name) : TSR_NO_OP_LABEL);
}

static void label_ops_and_layers(void *ctx, uint32_t core, const char *name, uint32_t layer, uint32_t pos, bool begin)
{
    label_ops(ctx, core, name, layer, pos, begin);
    call_label(tsr_m55_label_table, begin && layer < 255u ? layer : 255u);
}

void tsr_m55_put_op_labels(void) { tsr_op_labels_put(&g_op_labels, tsr_m55_puts, tsr_m55_put_u64); }

static const tsr_hal_ops g_ops = {cluster_fork, cluster_barrier, dma_copy_1d, dma_copy_2d, dma_wait, npu_submit,
                                  npu_poll,     npu_wait,        cycles,      console_write, NULL,    label_ops};
static const tsr_hal_ops g_ops_labelling = {cluster_fork, cluster_barrier, dma_copy_1d, dma_copy_2d,
                                            dma_wait,     npu_submit,      npu_poll,    npu_wait,
                                            cycles,       console_write,   NULL,        label_ops_and_layers};
static tsr_hal_board g_board;

void tsr_m55_label_layers(bool on) { g_board.ops = on ? &g_ops_labelling : &g_ops; }

const tsr_hal_board *tsr_m55_board(void) { return &g_board; }

/* ---- start-up ---------------------------------------------------------------- */

/* picolibc keeps errno in thread-local storage: one block, for the one core. */
static uint8_t g_tls[256] __attribute__((aligned(8)));

void tsr_m55_fault(void) __attribute__((noreturn));
void tsr_m55_fault(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    tsr_m55_puts("fault: exception ");
    tsr_m55_put_u64(ipsr & 0x1FFu);
    tsr_m55_puts("\n");
    tsr_m55_exit(4);
}

void tsr_m55_reset(void) __attribute__((noreturn));
void tsr_m55_reset(void)
{
    CPACR |= 0xFu << 20; /* CP10 and CP11: the FPU and Helium */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    memset(__bss_start, 0, (size_t)(__bss_end - __bss_start));
    const size_t tdata = (size_t)(__tdata_end - __tdata_start), tbss = (size_t)(__tbss_end - __tbss_start);
    if (tdata + tbss > sizeof g_tls) tsr_m55_exit(3);
    memcpy(g_tls, __tdata_start, tdata);
    memset(g_tls + tdata, 0, tbss);
    extern void _set_tls(void *tls);
    _set_tls(g_tls);
    UART_BAUDDIV = 16u;
    UART_CTRL = 1u; /* TX */
    start_counter();
    static const uint32_t sizes[TSR_REGION_COUNT] = {0u, TSR_M55_L1_BYTES, TSR_M55_L2_BYTES, 0u};
    g_board.abi = TSR_HAL_ABI;
    g_board.name = TSR_M55_BOARD_NAME;
    g_board.fingerprint = tsr_board_fingerprint(g_board.name, 1u, sizes, false);
    g_board.core_count = 1u;
    g_board.has_npu = false;
    g_board.solo_bytes = 0u;
    g_board.isa = TSR_M55_ISA; /* Helium's kernels (kernels/arm-mve) when this build has them */
    g_board.regions[TSR_REGION_L1] = (tsr_hal_region){"L1", __l1_start, TSR_M55_L1_BYTES};
    g_board.regions[TSR_REGION_L2] = (tsr_hal_region){"L2", __l2_start, TSR_M55_L2_BYTES};
    g_board.ops = &g_ops;
    tsr_m55_exit(main());
}

/* The vector table: the initial stack, reset, the faults; SysTick counts wraps. */
typedef void (*tsr_m55_vector)(void);
__attribute__((section(".vectors"), used)) static const tsr_m55_vector g_vectors[16] = {
    (tsr_m55_vector)(uintptr_t)__stack_top,
    tsr_m55_reset,
    tsr_m55_fault, /* NMI */
    tsr_m55_fault, /* HardFault */
    tsr_m55_fault, /* MemManage */
    tsr_m55_fault, /* BusFault */
    tsr_m55_fault, /* UsageFault */
    tsr_m55_fault, /* SecureFault */
    0, 0, 0,
    tsr_m55_fault, /* SVCall */
    tsr_m55_fault, /* DebugMonitor */
    0,
    tsr_m55_fault, /* PendSV */
    tsr_m55_systick,
};
