/* Firmware demo: greedy generation from the image linked into this ELF (or, with
 * TESSERA_DEMO_OFFCHIP_IMAGE="path", the one the board loads into its off-chip memory), then what it
 * cost: per token the runs, forks and DMA traffic, and a profile by operator and by
 * layer. Each forward pass is marked for the hart-counter plugin, which counts the
 * instructions of every hart between the marks (the board's cycle counters, where it
 * has them). The measured runs run as an application runs them, without the profiler;
 * the profile comes from the last of them run again with it attached.
 *
 * With TESSERA_DEMO_MEASURE_POS=P, it generates up to position P and marks only the
 * forward pass at P, with each hart's instructions labelled by layer: the plugin
 * then reports the busiest hart's instructions per layer for that one token.
 *
 * With TESSERA_DEMO_DEPTH=D, it starts at position D over a cache of D zero positions (as
 * tessera-generate --depth D): BOS at D, unmeasured, then TESSERA_DEMO_STEPS tokens at D + 1
 * on, each marked: a token deep in the context without the prompt that would fill it.
 *
 * With TESSERA_DEMO_PROMPT="text", the device encodes the text (BOS first) and runs it in
 * prompt mode, unmeasured; then TESSERA_DEMO_STEPS tokens in autoregressive mode, each
 * sampled greedily and fed back whatever it is (a fixed workload, as a benchmark's: an
 * end of text does not stop it), marked as one run. */
#include <stdint.h>

#include "tessera/image_format.h"
#include "demo_board.h"
#include "tessera/tessera.h"
#include "profile_report.h"

#ifdef TESSERA_DEMO_MEASURE_POS
#define TESSERA_DEMO_STEPS (TESSERA_DEMO_MEASURE_POS + 1)
#define MEASURED(pos) ((pos) == TESSERA_DEMO_MEASURE_POS)
#else
#ifndef TESSERA_DEMO_STEPS
#define TESSERA_DEMO_STEPS 200
#endif
#ifdef TESSERA_DEMO_DEPTH
#define MEASURED(pos) ((pos) > TESSERA_DEMO_DEPTH)
#else
#define MEASURED(pos) 1
#endif
#endif
#ifdef TESSERA_DEMO_DEPTH /* the positions run: BOS at the depth, then the measured tokens */
#define FIRST_POS TESSERA_DEMO_DEPTH
#define END_POS (TESSERA_DEMO_DEPTH + 1 + TESSERA_DEMO_STEPS)
#else
#define FIRST_POS 0
#define END_POS TESSERA_DEMO_STEPS
#endif
#define PROFILE_STEPS 512u

#ifndef TESSERA_DEMO_OFFCHIP_IMAGE
extern const uint8_t tessera_image[];
extern const uint8_t tessera_image_end[];
#endif

static tessera_session session;
static int32_t ids[TESSERA_DEMO_STEPS + 64]; /* with a prompt: its ids (BOS excluded) first, as tessera-generate --ids */
static tessera_step_profile profile[PROFILE_STEPS];

static void fail(const char *what, tessera_status st)
{
    tsr_demo_puts("error: ");
    tsr_demo_puts(what);
    tsr_demo_puts(": ");
    tsr_demo_puts(tessera_status_string(st));
    tsr_demo_puts(": ");
    tsr_demo_puts(tessera_last_error(&session));
    tsr_demo_puts("\n");
    tsr_demo_exit(1);
}

static void put(const char *label, uint64_t value)
{
    tsr_demo_puts(label);
    tsr_demo_put_u64(value);
}

#ifdef TESSERA_DEMO_DEPTH
/* The cache's first TESSERA_DEMO_DEPTH positions zero in every layer (keys and values), a few
 * rows a write; the session at that position. */
static void start_at_depth(void)
{
    static uint8_t zeros[2048];
    tessera_image_summary s;
    tessera_status st = tessera_image_summary_of(&session, &s);
    if (st != TESSERA_OK) fail("summary", st);
    const uint32_t row = s.n_heads ? s.dim / s.n_heads * s.n_kv_heads * tsr_dtype_bytes(s.precision) : 0u;
    const uint32_t per_write = row && row <= sizeof zeros ? (uint32_t)(sizeof zeros / row) : 0u;
    if (per_write == 0u) fail("depth: no cache rows, or one larger than the demo's buffer of zeros", TESSERA_ERR_INVALID_ARGUMENT);
    for (uint32_t layer = 0; layer < s.n_layers; ++layer)
        for (uint32_t kind = 0; kind < 2u; ++kind)
            for (uint32_t first = 0; first < TESSERA_DEMO_DEPTH; first += per_write) {
                const uint32_t count = TESSERA_DEMO_DEPTH - first < per_write ? TESSERA_DEMO_DEPTH - first : per_write;
                st = tessera_kv_write(&session, layer, kind, first, count, zeros);
                if (st != TESSERA_OK) fail("depth: kv_write", st);
            }
    st = tessera_set_position(&session, TESSERA_DEMO_DEPTH);
    if (st != TESSERA_OK) fail("depth: set_position", st);
    put("depth: the cache's first ", TESSERA_DEMO_DEPTH);
    tsr_demo_puts(" positions zero\n");
}
#endif

int main(void)
{
    const tsr_hal_board *board = tsr_demo_board();
#ifdef TESSERA_DEMO_OFFCHIP_IMAGE /* the board loads it into its off-chip memory */
    size_t image_bytes = 0;
    const uint8_t *image = tsr_demo_offchip_image(TESSERA_DEMO_OFFCHIP_IMAGE, &image_bytes);
    if (image == NULL) tsr_demo_exit(2);
#else
    const uint8_t *image = tessera_image;
    const size_t image_bytes = (size_t)(tessera_image_end - tessera_image);
#endif
    tsr_demo_puts("tessera firmware demo on board '");
    tsr_demo_puts(board->name);
    tsr_demo_puts("': ");
    tsr_demo_put_u64(board->core_count);
    tsr_demo_puts(" compute harts, ");
    tsr_demo_put_engines(board);
    put(", image ", (uint64_t)image_bytes);
    tsr_demo_puts(" bytes\n");
    tessera_status st = tessera_open(&session, image, image_bytes, board);
    if (st != TESSERA_OK) fail("open", st);
#ifdef TESSERA_DEMO_MEASURE_POS
    tsr_demo_label_layers(true);
    put("measured: the forward pass at position ", TESSERA_DEMO_MEASURE_POS);
    tsr_demo_puts(", instructions labelled by layer\n");
#endif

    tessera_image_summary summary;
    st = tessera_image_peek(image, image_bytes, &summary, NULL, 0);
    if (st != TESSERA_OK) fail("peek", st);
    const int32_t bos = (int32_t)summary.bos_id, eos = (int32_t)summary.eos_id; /* the image's: Llama 1 and 2 */
    tessera_sampler greedy;
    tessera_sampler_init(&greedy, 0.0f, 0.0f, 1);
    int32_t token = bos;
    int n = 0, runs = 0, first_measured = -1, last_measured = -1;
    int32_t last_token = bos; /* the last measured run's: its input token and position */
    uint32_t last_pos = 0;
#ifdef TESSERA_DEMO_PROMPT
    int32_t prompt[64];
    uint32_t prompt_count = 0;
    st = tessera_encode(&session, TESSERA_DEMO_PROMPT, true, false, prompt, 64u, &prompt_count);
    if (st != TESSERA_OK) fail("encode", st);
    st = tessera_prompt(&session, prompt, prompt_count);
    if (st != TESSERA_OK) fail("prompt", st);
    for (uint32_t i = 1; i < prompt_count; ++i) ids[n++] = prompt[i];
    st = tessera_sample(&session, &greedy, &token);
    if (st != TESSERA_OK) fail("sample", st);
    ids[n++] = token;
    tsr_demo_mark_begin();
    for (int i = 0; i < TESSERA_DEMO_STEPS; ++i) {
        last_token = token;
        last_pos = prompt_count + (uint32_t)i;
        st = tessera_step(&session, token);
        if (st != TESSERA_OK) fail("step", st);
        st = tessera_sample(&session, &greedy, &token);
        if (st != TESSERA_OK) fail("sample", st);
        ids[n++] = token;
    }
    tsr_demo_mark_end();
    runs = TESSERA_DEMO_STEPS;
#else
#ifdef TESSERA_DEMO_DEPTH
    start_at_depth();
#endif
    for (int pos = FIRST_POS; pos < END_POS; ++pos) {
        ++runs;
        if (MEASURED(pos)) {
            if (first_measured < 0) first_measured = pos;
            last_measured = pos;
            tsr_demo_mark_begin();
        }
        last_token = token;
        last_pos = (uint32_t)pos;
        st = pos == FIRST_POS ? tessera_prompt(&session, &token, 1) : tessera_step(&session, token);
        if (MEASURED(pos)) tsr_demo_mark_end();
        if (st != TESSERA_OK) fail(pos == FIRST_POS ? "prompt" : "step", st);
        int32_t next;
        st = tessera_sample(&session, &greedy, &next);
        if (st != TESSERA_OK) fail("sample", st);
        if (next == bos || next == eos) {
#ifdef TESSERA_DEMO_MEASURE_POS
            if (pos < TESSERA_DEMO_MEASURE_POS) {
                put("error: the model ended the text at position ", (uint64_t)pos);
                put(", before the measured position ", TESSERA_DEMO_MEASURE_POS);
                tsr_demo_puts("\n");
                tsr_demo_exit(1);
            }
#endif
            break;
        }
        ids[n++] = next;
        token = next;
    }
#endif

    tsr_demo_puts("text: ");
    int32_t prev = bos;
    for (int i = 0; i < n; ++i) {
        uint32_t len = 0;
        const char *piece = tessera_decode(&session, prev, ids[i], &len);
        for (uint32_t k = 0; k < len; ++k) {
            const char c[2] = {piece[k], 0};
            if ((unsigned char)c[0] >= 0x20u || c[0] == '\n' || c[0] == '\t' || len > 1) tsr_demo_puts(c);
        }
        prev = ids[i];
    }
    tsr_demo_puts("\nids:");
    for (int i = 0; i < n; ++i) put(" ", (uint64_t)ids[i]);
    tsr_demo_puts("\n");
#ifdef TESSERA_DEMO_PROMPT
    put("measured: ", (uint64_t)TESSERA_DEMO_STEPS);
    put(" tokens after a prompt of ", prompt_count);
    tsr_demo_puts(" (BOS included), as one run\n");
#endif
    if (first_measured >= 0) { /* what the marks enclose: a token at each position */
        put("measured: a token at each position from ", (uint64_t)first_measured);
        put(" to ", (uint64_t)last_measured);
        tsr_demo_puts("\n");
    }

    tessera_stats stats;
    tessera_get_stats(&session, &stats);
    const uint64_t tokens = stats.runs ? stats.runs : 1u;

    /* The profile: the last run again, at its position with its token, the profiler attached
     * (it rewrites the same cache entries with the same values). */
#ifdef TESSERA_DEMO_MEASURE_POS
    tsr_demo_label_layers(false);
#endif
    int profiled = runs > 0 && tessera_set_position(&session, last_pos) == TESSERA_OK &&
                   tessera_profile(&session, profile, PROFILE_STEPS) == TESSERA_OK;
    if (profiled) {
        st = last_pos == 0u ? tessera_prompt(&session, &last_token, 1) : tessera_step(&session, last_token);
        if (st != TESSERA_OK) fail("profiled run", st);
        profiled = tessera_profile(&session, NULL, 0) == TESSERA_OK;
    }
    put("per token: forks ", tsr_demo_per(stats.forks, tokens));
    put(", DMA transfers ", tsr_demo_per(stats.dma_transfers, tokens));
    put(", DMA bytes ", tsr_demo_per(stats.dma_bytes, tokens));
    put(", NPU jobs ", tsr_demo_per(stats.npu_jobs, tokens));
    put(" (over ", stats.runs);
    tsr_demo_puts(" tokens)\n");
    if (profiled) tsr_demo_print_profile(&session, profile, 1u);
    tsr_demo_put_op_labels();
    return 0;
}
