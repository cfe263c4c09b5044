/* HyperRAM behind the uDMA's HyperBus peripheral (hyperram.h), on the model's registers
 * (GVSoC src/pulp/pulp/udma/hyper/udma_hyper_v3.cpp; the PULP SDK's hyperbus-v3 driver
 * programs the same ones). One transfer at a time on transaction id 0, polled to its end. */
#include "hyperram.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "tessera/siracusa_map.h"

#define REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))
#define HYPER(offset) REG(SIRACUSA_HYPER + (offset))

/* A uDMA transfer's size field is 20 bits on the silicon: a direct transfer moves at most this. */
#define DIRECT_MAX 0x80000u

/* The staging buffer: the top of the L2 the program and the L2 arena leave (the linker
 * script keeps room for it), four bytes of slack past it: the uDMA's last word into L2 is
 * whole whatever the size. */
extern uint8_t __l2_stage[];
static uint8_t *const g_stage = __l2_stage;

uint8_t *tsr_hyperram_stage(void) { return g_stage; }

void tsr_hyperram_init(void)
{
    REG(SIRACUSA_UDMA_CG) |= 1u << SIRACUSA_UDMA_HYPER_PERIPH;
    HYPER(SIRACUSA_HYPER_MEM_SEL) = 0u;       /* chip select 0: the RAM */
    HYPER(SIRACUSA_HYPER_T_LATENCY) = 6u;     /* HyperRAM's initial latency, 6 clocks, */
    HYPER(SIRACUSA_HYPER_EN_LATENCY_ADD) = 1u; /* doubled (fixed latency mode) */
    HYPER(SIRACUSA_HYPER_TWD_ACT) = 0u;
    HYPER(SIRACUSA_HYPER_TWD_ACT_L2) = 0u;
}

bool tsr_hyperram_busy(void) { return (HYPER(SIRACUSA_HYPER_STATUS) & 1u) != 0u; }

void tsr_hyperram_wait(void)
{
    while (HYPER(SIRACUSA_HYPER_STATUS) & 1u) {
    }
}

/* One linear transfer between HyperRAM and word-aligned L2, started. */
static void start(bool read, uint32_t offset, uintptr_t l2, uint32_t bytes)
{
    tsr_hyperram_wait(); /* one at a time */
    HYPER(SIRACUSA_HYPER_CA_SETUP) = read ? 0x5u : 0x1u;
    HYPER(SIRACUSA_HYPER_ADDR) = offset;
    if (read) { /* the address register first: it tells the model the direction */
        HYPER(SIRACUSA_HYPER_RX_SADDR) = (uint32_t)l2;
        HYPER(SIRACUSA_HYPER_RX_SIZE) = bytes;
        HYPER(SIRACUSA_HYPER_RX_CFG) = SIRACUSA_UDMA_CFG_EN;
    } else {
        HYPER(SIRACUSA_HYPER_TX_SADDR) = (uint32_t)l2;
        HYPER(SIRACUSA_HYPER_TX_SIZE) = bytes;
        HYPER(SIRACUSA_HYPER_TX_CFG) = SIRACUSA_UDMA_CFG_EN;
    }
}

/* One linear transfer, waited for. */
static void transfer(bool read, uint32_t offset, uintptr_t l2, uint32_t bytes)
{
    start(read, offset, l2, bytes);
    tsr_hyperram_wait();
}

void tsr_hyperram_start_read(uint32_t offset, void *l2, uint32_t bytes)
{
    start(true, offset, (uintptr_t)l2, bytes);
}

static bool word_aligned_l2(uintptr_t a, uint32_t bytes)
{
    return a % 4u == 0u && a >= SIRACUSA_L2_BASE && a - SIRACUSA_L2_BASE <= SIRACUSA_L2_BYTES &&
           bytes <= SIRACUSA_L2_BYTES - (a - SIRACUSA_L2_BASE);
}

void tsr_hyperram_read(uint32_t offset, void *dst, uint32_t bytes, tsr_hyperram_move move)
{
    for (uint32_t done = 0; done < bytes;) {
        const uintptr_t d = (uintptr_t)dst + done;
        const uint32_t left = bytes - done;
        uint32_t n;
        if (left >= 4u && word_aligned_l2(d, left)) { /* straight into L2, whole words */
            n = (left < DIRECT_MAX ? left : DIRECT_MAX) & ~3u;
            transfer(true, offset + done, d, n);
        } else {
            n = left < TSR_HYPERRAM_STAGE_BYTES ? left : TSR_HYPERRAM_STAGE_BYTES;
            transfer(true, offset + done, (uintptr_t)g_stage, n);
            move((void *)d, g_stage, n);
        }
        done += n;
    }
}

void tsr_hyperram_write(uint32_t offset, const void *src, uint32_t bytes)
{
    for (uint32_t done = 0; done < bytes;) {
        const uintptr_t s = (uintptr_t)src + done;
        const uint32_t left = bytes - done;
        uint32_t n;
        if (word_aligned_l2(s, left)) { /* straight out of L2 (it reads whole words, sends `n` bytes) */
            n = left < DIRECT_MAX ? left : DIRECT_MAX;
            transfer(false, offset + done, s, n);
        } else {
            n = left < TSR_HYPERRAM_STAGE_BYTES ? left : TSR_HYPERRAM_STAGE_BYTES;
            memmove(g_stage, (const void *)s, n); /* s may lie in the stage itself */
            transfer(false, offset + done, (uintptr_t)g_stage, n);
        }
        done += n;
    }
}
