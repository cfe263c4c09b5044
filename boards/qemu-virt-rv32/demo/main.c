/* Firmware demo: greedy generation from the image linked into this ELF, then the
 * instructions retired per token (minstret) on the busiest hart and on all harts. */
#include <stdint.h>

#include "tessera/qemu_virt_rv32.h"
#include "tessera/tessera.h"

#ifndef TESSERA_DEMO_STEPS
#define TESSERA_DEMO_STEPS 200
#endif

extern const uint8_t tessera_image[];
extern const uint8_t tessera_image_end[];

static tessera_session session;
static int32_t ids[TESSERA_DEMO_STEPS];
static uint64_t busiest[TESSERA_DEMO_STEPS], total[TESSERA_DEMO_STEPS];

static void fail(const char *what, tessera_status st)
{
    tsr_qemu_puts("error: ");
    tsr_qemu_puts(what);
    tsr_qemu_puts(": ");
    tsr_qemu_puts(tessera_status_string(st));
    tsr_qemu_puts(": ");
    tsr_qemu_puts(tessera_last_error(&session));
    tsr_qemu_puts("\n");
    tsr_qemu_exit(1);
}

/* Runs one forward pass (prompt or step) and records its instructions per hart. */
static void counted(int index, int32_t token, int prompt)
{
    uint64_t before[TSR_QEMU_MAX_HARTS], after[TSR_QEMU_MAX_HARTS];
    tsr_qemu_sample_instructions(before);
    const tessera_status st = prompt ? tessera_prompt(&session, &token, 1) : tessera_step(&session, token);
    tsr_qemu_sample_instructions(after);
    if (st != TESSERA_OK) fail(prompt ? "prompt" : "step", st);
    busiest[index] = total[index] = 0;
    for (uint32_t h = 0; h < TSR_QEMU_MAX_HARTS; ++h) {
        const uint64_t d = after[h] - before[h];
        total[index] += d;
        if (d > busiest[index]) busiest[index] = d;
    }
}

int main(void)
{
    const tsr_hal_board *board = tsr_qemu_board();
    tsr_qemu_puts("tessera firmware demo: ");
    tsr_qemu_put_u64(board->core_count);
    tsr_qemu_puts(" harts, image ");
    tsr_qemu_put_u64((uint64_t)(tessera_image_end - tessera_image));
    tsr_qemu_puts(" bytes\n");
    const tessera_status st = tessera_open(&session, tessera_image, (size_t)(tessera_image_end - tessera_image), board);
    if (st != TESSERA_OK) fail("open", st);

    tessera_sampler greedy;
    tessera_sampler_init(&greedy, 0.0f, 0.0f, 1);
    int32_t token = 1; /* BOS */
    int n = 0;
    for (int pos = 0; pos < TESSERA_DEMO_STEPS; ++pos) {
        counted(pos, token, pos == 0);
        int32_t next;
        if (tessera_sample(&session, &greedy, &next) != TESSERA_OK) fail("sample", TESSERA_ERR_NO_LOGITS);
        if (next == 1 || next == 2) break;
        ids[n++] = next;
        token = next;
    }

    tsr_qemu_puts("text: ");
    int32_t prev = 1;
    for (int i = 0; i < n; ++i) {
        uint32_t len = 0;
        const char *piece = tessera_decode(&session, prev, ids[i], &len);
        for (uint32_t k = 0; k < len; ++k) {
            const char c[2] = {piece[k], 0};
            if ((unsigned char)c[0] >= 0x20u || c[0] == '\n' || c[0] == '\t' || len > 1) tsr_qemu_puts(c);
        }
        prev = ids[i];
    }
    tsr_qemu_puts("\nids:");
    for (int i = 0; i < n; ++i) {
        tsr_qemu_puts(" ");
        tsr_qemu_put_u64((uint64_t)ids[i]);
    }
    tsr_qemu_puts("\n");
    uint64_t sum_busiest = 0, sum_total = 0;
    for (int i = 0; i < n; ++i) {
        tsr_qemu_puts("token ");
        tsr_qemu_put_u64((uint64_t)i);
        tsr_qemu_puts(": instructions busiest hart ");
        tsr_qemu_put_u64(busiest[i]);
        tsr_qemu_puts(", all harts ");
        tsr_qemu_put_u64(total[i]);
        tsr_qemu_puts("\n");
        sum_busiest += busiest[i];
        sum_total += total[i];
    }
    tsr_qemu_puts("mean instructions per token: busiest hart ");
    tsr_qemu_put_u64(n ? sum_busiest / (uint64_t)n : 0u);
    tsr_qemu_puts(", all harts ");
    tsr_qemu_put_u64(n ? sum_total / (uint64_t)n : 0u);
    tsr_qemu_puts("\n");
    return 0;
}
