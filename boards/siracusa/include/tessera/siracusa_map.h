/*
 * The addresses of GVSoC's Siracusa model that the siracusa firmware uses (its memory map
 * in src/pulp/pulp/chips/siracusa/{soc,cluster}.json, its peripherals' registers in the
 * models themselves: event_unit/archi/eu_v3.h, mchan/archi/mchan_v7.h,
 * chips/siracusa/archi/apb_soc.h, stdout/stdout_v3_impl.cpp; ../shared/gvsoc).
 */
#ifndef TESSERA_SIRACUSA_MAP_H
#define TESSERA_SIRACUSA_MAP_H

#define SIRACUSA_L1_BASE 0x10000000u  /* cluster TCDM, 256 KiB */
#define SIRACUSA_L1_BYTES 0x00040000u
#define SIRACUSA_WMEM_BASE 0x10400000u /* N-EUREKA's weight memory (the NMS), 8 MiB in the model */
#define SIRACUSA_WMEM_BYTES 0x00800000u
#define SIRACUSA_L2_BASE 0x1C010000u  /* L2 shared banks; the private ones (0x1C000000, 64 KiB) are not used */
#define SIRACUSA_L2_BYTES 0x001F0000u

#define SIRACUSA_FC_HARTID 0x3E0u /* mhartid of the fabric controller: cluster 31, core 0 */

/* SoC control: bit 31 ends the simulation with bits 30:0 as its status. */
#define SIRACUSA_CORESTATUS 0x1A1040A0u
/* stdout peripheral: a byte stored at BASE + (cluster << 7) + (core << 3) is that core's output. */
#define SIRACUSA_STDOUT 0x1A10F000u

/* Cluster control unit: fetch enable (a core mask), each core's boot address. */
#define SIRACUSA_CLUSTER_FETCH_EN 0x10200008u
#define SIRACUSA_CLUSTER_BOOT_ADDR(core) (0x10200040u + 4u * (core))
/* Instruction cache control: a store of all ones enables the cluster's cache. */
#define SIRACUSA_ICACHE_ENABLE 0x10201400u

/* Event unit, through each core's demux alias (the model leaves the global area's barriers
 * unimplemented: a barrier is configured through the demux too). */
#define SIRACUSA_EU_BARRIER(b) (0x10204000u + 0x200u + 0x20u * (b))
#define SIRACUSA_EU_BARR_TRIGGER_MASK 0x00u
#define SIRACUSA_EU_BARR_TARGET_MASK 0x0Cu
#define SIRACUSA_EU_DEMUX 0x10204000u
#define SIRACUSA_EU_CORE_MASK 0x00u                 /* this core's event mask */
#define SIRACUSA_EU_CORE_EVENT_WAIT_CLEAR 0x3Cu     /* load: sleep until a masked event, clear it */
#define SIRACUSA_EU_SW_EVENT(e) (0x100u + 4u * (e)) /* store a core mask: software event e to them */
#define SIRACUSA_EU_BARRIER_WAIT_CLEAR(b) (0x200u + 0x20u * (b) + 0x1Cu) /* load: arrive, sleep, clear */
#define SIRACUSA_EVENT_SW_FORK 0u  /* the software event that starts a fork */
#define SIRACUSA_EVENT_DMA 8u      /* the cluster DMA's completion event to the core that issued */
#define SIRACUSA_EVENT_NEUREKA 12u /* N-EUREKA's end of a job (acc_0), to every core */
#define SIRACUSA_EVENT_BARRIER 16u /* the hardware barriers' event */

/* Cluster DMA (mchan v7), each core's own channel through the demux alias. */
/* N-EUREKA (a HWPE: pulp-nnx util/hwpe.c; GVSoC cluster.json peripherals.neureka) */
#define SIRACUSA_NEUREKA 0x10201000u
#define SIRACUSA_NEUREKA_TRIGGER 0x00u /* store 0: commit the programmed job and run */
#define SIRACUSA_NEUREKA_ACQUIRE 0x04u /* load: a context to program (a job id), or >= 256 if none is free */
#define SIRACUSA_NEUREKA_STATUS 0x0Cu  /* load: bit 0, bit 8 set while context 0, 1 holds a job */
#define SIRACUSA_NEUREKA_JOB 0x20u     /* the job's 24 registers */

#define SIRACUSA_DMA_DEMUX 0x10204400u
#define SIRACUSA_DMA_CMD 0x0u    /* load: a transfer id (its counter); stores: a command's words */
#define SIRACUSA_DMA_STATUS 0x4u /* load: bit t set while counter t has bytes to move; store: free counters */
#define SIRACUSA_DMA_LEN_MAX 0x1FFFFu /* 17 bits of length */
#define SIRACUSA_DMA_EXT2LOC (1u << 17) /* L2 (or any address outside L1) into TCDM; 0: TCDM out */
#define SIRACUSA_DMA_INC (1u << 18)
#define SIRACUSA_DMA_2D_EXT (1u << 19) /* the outside side in rows: a count (bytes a row) and a stride */
#define SIRACUSA_DMA_EVENT (1u << 20)  /* an event to the issuing core when done */
#define SIRACUSA_DMA_COUNTERS 16u

/* uDMA (udma_v3) and its HyperBus peripheral (udma_hyper_v3: periph 4, tran id 0), which
 * reaches the HyperRAM on chip select 0 (the board's "ram", 8 MiB unless the run sets its
 * size: tests/rtl/run.cmake gives it the description's offchip.bytes). */
#define SIRACUSA_UDMA_CG 0x1A102000u           /* clock enable, a bit a peripheral */
#define SIRACUSA_UDMA_HYPER_PERIPH 4u
#define SIRACUSA_HYPER 0x1A102280u             /* its registers: uDMA + (4 << 7) + 0x80 */
#define SIRACUSA_HYPER_RX_SADDR 0x00u          /* L2 address the bytes read go to */
#define SIRACUSA_HYPER_RX_SIZE 0x04u
#define SIRACUSA_HYPER_RX_CFG 0x08u            /* store EN: the read starts */
#define SIRACUSA_HYPER_TX_SADDR 0x0Cu          /* L2 address the bytes written come from */
#define SIRACUSA_HYPER_TX_SIZE 0x10u
#define SIRACUSA_HYPER_TX_CFG 0x14u            /* store EN: the write starts */
#define SIRACUSA_HYPER_CA_SETUP 0x18u          /* bit 2 read, bit 0 linear burst */
#define SIRACUSA_HYPER_ADDR 0x1Cu              /* the HyperRAM's byte address */
#define SIRACUSA_HYPER_STATUS 0x24u            /* bit 0: busy */
#define SIRACUSA_HYPER_TWD_ACT 0x28u           /* 2D on the HyperRAM side: off */
#define SIRACUSA_HYPER_TWD_ACT_L2 0x34u        /* 2D on the L2 side: off */
#define SIRACUSA_HYPER_T_LATENCY 0x104u        /* common: initial latency, clocks */
#define SIRACUSA_HYPER_EN_LATENCY_ADD 0x108u   /* common: 1 = fixed double latency */
#define SIRACUSA_HYPER_MEM_SEL 0x120u          /* common: chip select (0: the RAM) */
#define SIRACUSA_UDMA_CFG_EN 0x10u             /* a channel's CFG: enable, 8-bit words */

/* The off-chip window: HyperRAM byte N has the address SIRACUSA_OFFCHIP_WINDOW + N, which no
 * core can load from (it lies past the cluster's map and outside the SoC's); only the HAL's
 * DMA, which moves it through the uDMA, understands it. The weight memory ends there, so an
 * image's head (what the cores read of it) loaded into the weight memory's top runs on into
 * its weights in HyperRAM at one address. */
#define SIRACUSA_OFFCHIP_WINDOW 0x10C00000u
/* The weight memory's upper 4 MiB: the program (siracusa.ld.in), then an image's head. */
#define SIRACUSA_PROGRAM_BASE 0x10800000u
#define SIRACUSA_PROGRAM_BYTES 0x00080000u
#define SIRACUSA_IMAGE_HEAD_BASE (SIRACUSA_PROGRAM_BASE + SIRACUSA_PROGRAM_BYTES)

#endif
