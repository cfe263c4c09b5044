/*
 * Tessera on the siracusa board: GVSoC's model of the Siracusa SoC (../shared/gvsoc), the
 * simulator the Deeploy paper measured on (tessera/siracusa_map.h has its addresses).
 *
 *  - Boot: the fabric controller (FC) enables the cluster's instruction cache, starts the
 *    eight cluster cores and sleeps; the model's FC is rv32imc, without the F extension and
 *    so without the cluster's float ABI, so the controller (open, the generation loops,
 *    tokenizer, sampler) runs on cluster core 0, as many PULP applications do.
 *  - Cluster: the run's cores (the description's 8, or fewer: the .tessera_cores word). A
 *    fork is a software event of the event unit to the other cores, which sleep on it; a
 *    barrier is the event unit's hardware barrier 0 (a core sleeps in it).
 *  - DMA: the cluster DMA (mchan), each transfer on a counter of its own; a waiting core
 *    sleeps on the DMA's event. Copies that do not touch TCDM the calling core makes.
 *  - Memory: TCDM is L1 (the arena, then the cores' stacks), the L2 shared banks hold the
 *    FC's boot code and the L2 arena, the weight memory (wmem) the NMS region and, in its
 *    upper half, the program (the cluster's instruction cache refills from it in less than
 *    half L2's cycles) and an image linked into the firmware; a larger one lies in HyperRAM
 *    behind the uDMA (tsr_siracusa_load_image), which only the DMA reads: a transfer to or
 *    from it goes through the uDMA, staged in L2.
 *  - NPU: N-EUREKA, a queue of the description's depth; a job whose requantization its
 *    normalization stage cannot give runs on the core that waits (src/neureka.h).
 *  - Cycles: mcycle of each core. Console: the SoC's stdout peripheral; exit: its
 *    CORESTATUS register; a trap on any core prints the core, mcause, mepc and mtval.
 * The API the PULP boards share is tessera/pulp_board.h.
 */
#ifndef TESSERA_SIRACUSA_H
#define TESSERA_SIRACUSA_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/pulp_board.h"
#include "tessera/siracusa_map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "gvsoc: N measured runs: C cycles per run ...", after main() returns (the runs marked by
 * tsr_pulp_mark_begin / _end). */
void tsr_siracusa_report_runs(void);

/* HyperRAM's last bytes, which no image may use: the board's regions[TSR_REGION_IMAGE] (the
 * HAL conformance suite's off-chip scratch). */
#define TSR_SIRACUSA_OFFCHIP_SCRATCH 65536u

/* Loads the image file at `path` (on the simulator's host, through its semihosting calls, as
 * a flasher fills a board's external memory): its head (every section but the weights, which
 * the packer lays out last) into the weight memory's top 3.5 MiB, its weights into HyperRAM
 * (the description's offchip), run on at one address (tessera/siracusa_map.h). From then on
 * the board reads weights only through its DMA (tsr_hal_board.image_dma_only). Returns the
 * address to open it at and its size in *bytes, or NULL after printing why it cannot. */
const uint8_t *tsr_siracusa_load_image(const char *path, size_t *bytes);

/* The image lies in HyperRAM: the board's image_dma_only (tsr_siracusa_load_image sets it). */
void tsr_siracusa_image_offchip(void);

#ifdef __cplusplus
}
#endif

#endif
