#include "profile_report.h"

#include "tessera/image_format.h"
#include "demo_board.h"

uint64_t tsr_demo_per(uint64_t n, uint64_t d) { return tsr_demo_div_u64(n, d); }

static void put(const char *label, uint64_t value)
{
    tsr_demo_puts(label);
    tsr_demo_put_u64(value);
}

/* One line of the profile: the steps `sum` adds up, per token. */
static void profile_line(const char *name, const tessera_step_profile *sum, uint64_t total, uint64_t tokens)
{
    tsr_demo_puts("  ");
    tsr_demo_puts(name);
    put(": cycles/token ", tsr_demo_per(sum->cycles, tokens));
    put(", share ", tsr_demo_per(sum->cycles * 1000u, total));
    put("/1000, DMA bytes/token ", tsr_demo_per(sum->dma_bytes, tokens));
    put(", transfers/token ", tsr_demo_per(sum->dma_transfers, tokens));
    put(", NPU jobs/token ", tsr_demo_per(sum->npu_jobs, tokens));
    put(", forks/token ", tsr_demo_per(sum->forks, tokens));
    put(", DMA wait cycles/token ", tsr_demo_per(sum->dma_wait_cycles, tokens));
    tsr_demo_puts("\n");
}

void tsr_demo_print_profile(tessera_session *session, const tessera_step_profile *profile, uint64_t tokens)
{
    const uint32_t steps = tessera_profile_size(session);
    tessera_step_profile all, sum;
    tessera_profile_sum(profile, steps, TESSERA_PROFILE_ANY, TESSERA_PROFILE_ANY, &all);
    tsr_demo_puts("profile by operator (the last token run again, the profiler attached; core 0 ");
    tsr_demo_puts(tsr_demo_cycles_meaning());
    tsr_demo_puts("):\n");
    for (uint32_t op = 1; op < TSR_OP_COUNT_; ++op)
        if (tessera_profile_sum(profile, steps, op, TESSERA_PROFILE_ANY, &sum) && sum.runs)
            profile_line(tsr_op_name(op), &sum, all.cycles, tokens);
    tessera_image_summary model;
    tessera_image_summary_of(session, &model);
    tsr_demo_puts("profile by layer:\n");
    for (uint32_t layer = 0; layer < model.n_layers && layer < 100u; ++layer) {
        if (!tessera_profile_sum(profile, steps, TESSERA_PROFILE_ANY, layer, &sum) || !sum.runs) continue;
        char name[12] = "layer ";
        name[6] = (char)('0' + layer / 10u % 10u);
        name[7] = (char)('0' + layer % 10u);
        name[8] = 0;
        profile_line(name, &sum, all.cycles, tokens);
    }
    if (tessera_profile_sum(profile, steps, TESSERA_PROFILE_ANY, TSR_NO_LAYER, &sum) && sum.runs)
        profile_line("no layer", &sum, all.cycles, tokens);
    profile_line("all", &all, all.cycles, tokens);
}
