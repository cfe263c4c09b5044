/* A firmware of your own on qemu-virt-rv32: a real model image linked into the ELF
 * (image.S), greedy generation of 200 positions from BOS, text and ids on the UART. */
#include <stdint.h>

#include "tessera/qemu_virt_rv32.h"
#include "tessera/tessera.h"

extern const uint8_t tessera_image[], tessera_image_end[]; /* image.S: .incbin, 64-byte aligned */
static tessera_session session;                            /* no heap: the session is ours */

int main(void)
{
    tessera_status st = tessera_open(&session, tessera_image, (size_t)(tessera_image_end - tessera_image), tsr_qemu_board());
    if (st != TESSERA_OK) {
        tsr_qemu_puts("open: ");
        tsr_qemu_puts(tessera_last_error(&session));
        tsr_qemu_puts("\n");
        return 1;
    }
    static int32_t ids[200];
    int32_t token = 1, n = 0; /* BOS */
    tessera_sampler greedy;
    tessera_sampler_init(&greedy, 0.0f, 0.0f, 1);
    tsr_qemu_puts("text: ");
    for (int pos = 0; pos < 200; ++pos) {
        st = pos == 0 ? tessera_prompt(&session, &token, 1) : tessera_step(&session, token);
        int32_t next;
        if (st != TESSERA_OK || tessera_sample(&session, &greedy, &next) != TESSERA_OK || next == 1 || next == 2) break;
        uint32_t len;
        const char *piece = tessera_decode(&session, token, next, &len);
        for (uint32_t i = 0; i < len; ++i) {
            const char c[2] = {piece[i], 0};
            tsr_qemu_puts(c);
        }
        ids[n++] = token = next;
    }
    tsr_qemu_puts("\nids:");
    for (int i = 0; i < n; ++i) {
        tsr_qemu_puts(" ");
        tsr_qemu_put_u64((uint64_t)ids[i]);
    }
    tsr_qemu_puts("\n");
    return st == TESSERA_OK ? 0 : 1;
}
