/*
 * The host emulation board, C interface (for C tests and host firmware stand-ins).
 * Emulates a board description on a workstation: each region a real buffer of the
 * described size, the cluster a pool of threads (waits spin a few microseconds, then
 * sleep), the DMA engine a bounded in-order queue whose copies run when waited for.
 */
#ifndef TESSERA_HOST_BOARD_H
#define TESSERA_HOST_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/hal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tessera_host_board tessera_host_board;

/* name_or_path: a board name ("host", "siracusa", "gap9", "qemu-virt-rv32") or a description .json.
 * threads: threads backing the cluster, 1..cores of the description; 0 = as many as
 * the machine has hardware threads, at most the cores. Results do not depend on it.
 * Returns 0 on success; otherwise non-zero with a one-line reason in `error`. */
int tessera_host_board_create(const char *name_or_path, uint32_t threads, tessera_host_board **out,
                              char *error, size_t error_size);
/* The board a model image is planned for: a built-in board by the name the image
 * gives, or else the description the image embeds (a custom board). Same threads and
 * return as tessera_host_board_create. */
int tessera_host_board_create_for_image(const void *image, size_t image_size, uint32_t threads,
                                        tessera_host_board **out, char *error, size_t error_size);
const tsr_hal_board *tessera_host_board_hal(const tessera_host_board *board);
/* Test builds: abort, with a message, when a kernel gets an operand outside L1. */
void tessera_host_board_check_l1(tessera_host_board *board, int on);
void tessera_host_board_destroy(tessera_host_board *board);

#ifdef __cplusplus
}
#endif

#endif
