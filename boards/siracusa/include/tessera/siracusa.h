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
 *    program, the image and the L2 arena, the weight memory (wmem) is the NMS region.
 *  - NPU: a queue of the description's depth whose jobs run on the core that waits (the
 *    N-EUREKA driver is issue 44's).
 *  - Cycles: mcycle of each core. Console: the SoC's stdout peripheral; exit: its
 *    CORESTATUS register; a trap on any core prints the core, mcause, mepc and mtval.
 * The API the PULP boards share is tessera/pulp_board.h.
 */
#ifndef TESSERA_SIRACUSA_H
#define TESSERA_SIRACUSA_H

#include "tessera/pulp_board.h"
#include "tessera/siracusa_map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "gvsoc: N measured runs: C cycles per run ...", after main() returns (the runs marked by
 * tsr_pulp_mark_begin / _end). */
void tsr_siracusa_report_runs(void);

#ifdef __cplusplus
}
#endif

#endif
