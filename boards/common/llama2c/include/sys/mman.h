/* The part of <sys/mman.h> run.c uses (picolibc has none): mmap of a file that
 * llama2c_shim.c serves from memory. */
#ifndef TESSERA_LLAMA2C_SYS_MMAN_H
#define TESSERA_LLAMA2C_SYS_MMAN_H

#include <stddef.h>
#include <sys/types.h>

#define PROT_READ 1
#define MAP_PRIVATE 2
#define MAP_FAILED ((void *)-1)

void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset);
int munmap(void *addr, size_t length);

#endif
