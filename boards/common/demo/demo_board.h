/*
 * What the firmware demos (main.c, vectors.c) need of a bare-metal board beyond the
 * HAL: each board with demos implements it (boards/<board>/src/demo_board.c).
 */
#ifndef TESSERA_DEMO_BOARD_H
#define TESSERA_DEMO_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/hal.h"

/* The board, ready once main() runs. */
const tsr_hal_board *tsr_demo_board(void);
void tsr_demo_puts(const char *text);
void tsr_demo_put_u64(uint64_t value);
/* n / d (0 for d = 0) without 64-bit division (no libgcc __udivdi3 in the firmware). */
uint64_t tsr_demo_div_u64(uint64_t n, uint64_t d);
/* Ends the program with `status` (0 passes). */
void tsr_demo_exit(int status) __attribute__((noreturn));
/* The banner's engines: "DMA hart 8, NPU none" and the like. */
void tsr_demo_put_engines(const tsr_hal_board *board);
/* What the HAL's cycle counter counts, for the profile's heading. */
const char *tsr_demo_cycles_meaning(void);
/* A measured run (a token, a step) begins and ends: the board's measurement marks. */
void tsr_demo_mark_begin(void);
void tsr_demo_mark_end(void);
/* Label each core's work by model layer, where the board measures per layer. */
void tsr_demo_label_layers(bool on);
/* A board that puts an image in its off-chip memory at boot (a demo of
 * TESSERA_FIRMWARE_OFFCHIP_IMAGES, which links no image): loads the image file at `path`
 * there and returns the address to open it at, its size in *bytes; NULL after printing why. */
const uint8_t *tsr_demo_offchip_image(const char *path, size_t *bytes);
/* Where the board labels work by operator for an outside counter: print the labels'
 * names (after the measured runs). */
void tsr_demo_put_op_labels(void);

#endif
