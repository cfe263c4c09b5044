/* A user's firmware: links the installed Tessera runtime and board, checks that the
 * runtime refuses a bogus image, and reports. */
#include <stdint.h>

#include "tessera/qemu_virt_rv32.h"
#include "tessera/tessera.h"

static uint8_t not_an_image[256] __attribute__((aligned(64)));
static tessera_session session;

int main(void)
{
    const tessera_status st = tessera_open(&session, not_an_image, sizeof not_an_image, tsr_qemu_board());
    tsr_qemu_puts("consumer: ");
    tsr_qemu_put_u64(tsr_qemu_board()->core_count);
    tsr_qemu_puts(" harts; opening zeros: ");
    tsr_qemu_puts(tessera_status_string(st));
    tsr_qemu_puts(" (");
    tsr_qemu_puts(tessera_last_error(&session));
    tsr_qemu_puts(")\n");
    return st == TESSERA_ERR_IMAGE_BAD_MAGIC ? 0 : 1;
}
