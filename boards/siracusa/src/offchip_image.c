/* An image in HyperRAM (tsr_siracusa_load_image in tessera/siracusa.h): read from the
 * simulator's host through GVSoC's semihosting calls (its ISS: src/core/models/cpu/iss/src/
 * syscalls.cpp, the ARM semihosting numbers), its head into the weight memory's top, its
 * weights through the L2 staging buffer into HyperRAM. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "demo_board.h"
#include "hyperram.h"
#include "semihosting.h"
#include "tessera/image_format.h"
#include "tessera/siracusa.h"

/* Reads `bytes` at the file's current position into `to`: true when all came. */
static bool read_all(long fd, void *to, uint32_t bytes)
{
    long args[3] = {fd, (long)(uintptr_t)to, (long)bytes};
    return semihost(SH_READ, (long)(uintptr_t)args) == 0; /* the bytes not read */
}

static const uint8_t *refuse(const char *path, const char *why, long fd)
{
    if (fd >= 0) semihost(SH_CLOSE, fd);
    tsr_pulp_puts("error: image ");
    tsr_pulp_puts(path);
    tsr_pulp_puts(": ");
    tsr_pulp_puts(why);
    tsr_pulp_puts("\n");
    return NULL;
}

const uint8_t *tsr_siracusa_load_image(const char *path, size_t *bytes)
{
    long args[3] = {(long)(uintptr_t)path, 1 /* "rb" */, (long)strlen(path)};
    const long fd = semihost(SH_OPEN, (long)(uintptr_t)args);
    if (fd < 0) return refuse(path, "cannot be opened on the simulator's host (semihosting)", -1);
    const long size = semihost(SH_FLEN, fd);
    const uint32_t far_max = TSR_SIRACUSA_OFFCHIP_BYTES - TSR_SIRACUSA_OFFCHIP_SCRATCH;
    const uint32_t head_max = SIRACUSA_OFFCHIP_WINDOW - SIRACUSA_IMAGE_HEAD_BASE;
    if (size < (long)sizeof(tsr_image_header) || (uint64_t)size > (uint64_t)head_max + far_max)
        return refuse(path, "its size is not that of an image that fits the weight memory's top and HyperRAM", fd);

    /* The header and the section table, from the file's first bytes. */
    uint8_t *stage = tsr_hyperram_stage();
    const uint32_t first = (uint32_t)size < TSR_HYPERRAM_STAGE_BYTES ? (uint32_t)size : TSR_HYPERRAM_STAGE_BYTES;
    if (!read_all(fd, stage, first)) return refuse(path, "reading its first bytes failed", fd);
    tsr_image_header h;
    memcpy(&h, stage, sizeof h);
    if (h.magic != TSR_IMAGE_MAGIC || h.file_size != (uint32_t)size || h.section_table_offset > first ||
        h.section_count > (first - h.section_table_offset) / sizeof(tsr_section))
        return refuse(path, "not a Tessera image, or its section table lies past its first 16 KiB", fd);
    /* Its head: every byte before the first weights section; nothing but weights after it. */
    uint32_t head = h.file_size;
    uint64_t others_end = 0; /* where the last section other than weights ends */
    for (uint32_t i = 0; i < h.section_count; ++i) {
        tsr_section s;
        memcpy(&s, stage + h.section_table_offset + i * sizeof s, sizeof s);
        if (s.kind == TSR_SECTION_WEIGHTS && s.file_offset < head) head = s.file_offset;
        if (s.kind != TSR_SECTION_WEIGHTS && (uint64_t)s.file_offset + s.size > others_end)
            others_end = (uint64_t)s.file_offset + s.size;
    }
    if (others_end > head)
        return refuse(path, "a section other than weights lies after its weights (pack it again: the packer lays "
                            "the weights out last)", fd);
    if (head > head_max || h.file_size - head > far_max)
        return refuse(path, "its head (what the cores read) exceeds the weight memory's 3.5 MiB past the program, or its weights "
                            "HyperRAM (less the last 64 KiB)", fd);

    const uint64_t start = tsr_pulp_mcycle();
    uint8_t *const base = (uint8_t *)(uintptr_t)(SIRACUSA_OFFCHIP_WINDOW - head);
    uint32_t done = first;
    if (first > head) { /* a small image: its first bytes hold weights already */
        memcpy(base, stage, head);
        tsr_hyperram_write(0u, stage + head, first - head);
    } else {
        memcpy(base, stage, first);
        if (!read_all(fd, base + first, head - first)) return refuse(path, "reading its head failed", fd);
        done = head;
    }
    while (done < h.file_size) {
        const uint32_t n = h.file_size - done < TSR_HYPERRAM_STAGE_BYTES ? h.file_size - done : TSR_HYPERRAM_STAGE_BYTES;
        if (!read_all(fd, stage, n)) return refuse(path, "reading its weights failed", fd);
        tsr_hyperram_write(done - head, stage, n);
        done += n;
    }
    semihost(SH_CLOSE, fd);
    tsr_siracusa_image_offchip();
    tsr_pulp_puts("siracusa: image ");
    tsr_pulp_puts(path);
    tsr_pulp_puts(": ");
    tsr_pulp_put_u64(head);
    tsr_pulp_puts(" bytes of head in the weight memory, ");
    tsr_pulp_put_u64(h.file_size - head);
    tsr_pulp_puts(" bytes of weights in HyperRAM, in ");
    tsr_pulp_put_u64(tsr_pulp_mcycle() - start);
    tsr_pulp_puts(" cycles\n");
    *bytes = h.file_size;
    return base;
}

/* The firmware demos' off-chip images (boards/common/demo/demo_board.h). */
const uint8_t *tsr_demo_offchip_image(const char *path, size_t *bytes) { return tsr_siracusa_load_image(path, bytes); }
