/*
 * The pulp-rtl board's address map, shared by its firmware (board.c, start.S) and its
 * testbench (sim/pulp_rtl_tb.cpp). Sizes and latencies are the board description's
 * (boards/pulp-rtl/board.json), passed to both by CMake.
 *
 *   0x1000_0000  L1: the cluster's tightly coupled data memory, PULP_RTL_L1_BANKS
 *                word-interleaved banks, one access a bank a cycle. The runtime's L1
 *                arena, then each core's stack.
 *   0x1A10_0000  the testbench's devices: console, exit, marks, event unit, DMA engine.
 *   0x1C00_0000  L2: program, image, the L2 and NMS arenas.
 */
#ifndef TESSERA_PULP_RTL_MAP_H
#define TESSERA_PULP_RTL_MAP_H

#define PULP_RTL_L1_BASE 0x10000000u
#define PULP_RTL_L2_BASE 0x1C000000u
#define PULP_RTL_L2_BYTES 0x01000000u /* 16 MiB: program, image, L2 and NMS arenas */
#define PULP_RTL_DEV_BASE 0x1A100000u
#define PULP_RTL_DEV_BYTES 0x1000u

/* Devices (32-bit registers; offsets from PULP_RTL_DEV_BASE). */
#define PULP_RTL_CONSOLE 0x000u      /* store: one character */
#define PULP_RTL_EXIT 0x004u         /* store: the program's exit status; the simulation ends */
#define PULP_RTL_MARK 0x008u         /* store (core 0): 1 a measured run begins, 2 it ends */
#define PULP_RTL_LABEL 0x00Cu        /* store: the address of the operator name this core works on, 0 none */
#define PULP_RTL_CORES 0x010u        /* load: the cluster's cores */
#define PULP_RTL_TRAP 0x014u         /* store, three times: mcause, mepc, mtval of a trap; the simulation ends */
#define PULP_RTL_COUNTERS 0x018u     /* store (core 0), twice after each mark: its mcycle, its minstret */
#define PULP_RTL_EU_BARRIER 0x040u   /* load: answered when every core has loaded it */
#define PULP_RTL_EU_FORK_POST 0x044u /* store (core 0): a fork for the other cores */
#define PULP_RTL_EU_FORK_WAIT 0x048u /* load (cores 1..): answered once a fork not yet taken is posted */
#define PULP_RTL_DMA_SRC 0x100u
#define PULP_RTL_DMA_DST 0x104u
#define PULP_RTL_DMA_ROW_BYTES 0x108u
#define PULP_RTL_DMA_ROWS 0x10Cu
#define PULP_RTL_DMA_SRC_STRIDE 0x110u
#define PULP_RTL_DMA_DST_STRIDE 0x114u
#define PULP_RTL_DMA_PUSH 0x118u      /* load: queues the job the registers describe; its handle, 0 when full */
#define PULP_RTL_DMA_DONE 0x11Cu      /* load: the jobs completed so far (handles are 1, 2, ...) */
#define PULP_RTL_DMA_WAIT_FOR 0x120u  /* store: a handle; then */
#define PULP_RTL_DMA_WAIT 0x124u      /* load: answered once that job is complete */

#endif
