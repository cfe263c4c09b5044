/* Firmware for a decoder-only image: the test vectors linked beside it (another
 * system's inputs and expected outputs, tessera/test_vectors.h) run once. It loads
 * the past K and V into the cache, sets the position, runs the rows (one: the
 * autoregressive step; more: the prompt chunk) between the hart counter's marks, as an
 * application runs them (no profiler), compares the hidden state out and every cache row
 * with the expected values, and runs them again with the profiler for the profile:
 *
 *   vectors: all: 0 of 9280 values differ
 *
 * It exits 1 when any differs. */
#include <stdint.h>
#include <string.h>

#include "demo_board.h"
#include "tessera/tessera.h"
#include "tessera/test_vectors.h"
#include "profile_report.h"

extern const uint8_t tessera_image[];
extern const uint8_t tessera_image_end[];
extern const uint8_t tessera_vectors[];
extern const uint8_t tessera_vectors_end[];

static tessera_session session;
static int8_t rows_out[64 * 1024];
static int8_t cache_rows[64 * 1024];
#define PROFILE_STEPS 512u
static tessera_step_profile profile[PROFILE_STEPS];

static void fail(const char *what, tessera_status st)
{
    tsr_demo_puts("error: ");
    tsr_demo_puts(what);
    if (st != TESSERA_OK) {
        tsr_demo_puts(": ");
        tsr_demo_puts(tessera_status_string(st));
        tsr_demo_puts(": ");
        tsr_demo_puts(tessera_last_error(&session));
    }
    tsr_demo_puts("\n");
    tsr_demo_exit(1);
}

static void put(const char *label, uint64_t value)
{
    tsr_demo_puts(label);
    tsr_demo_put_u64(value);
}

/* Values of `got` that differ from `want`. */
static uint32_t differing(const int8_t *got, const int8_t *want, uint32_t count)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; ++i) n += got[i] != want[i];
    return n;
}

int main(void)
{
    const tsr_hal_board *board = tsr_demo_board();
    const tsr_vectors_header *h = (const tsr_vectors_header *)tessera_vectors;
    const uint32_t blob = (uint32_t)(tessera_vectors_end - tessera_vectors);
    if (blob < sizeof *h || h->magic != TSR_VECTORS_MAGIC || h->version != TSR_VECTORS_VERSION)
        fail("the linked vectors are not tessera test vectors (version 1)", TESSERA_OK);
    const tsr_vectors_layout l = tsr_vectors_layout_of(h);
    const uint32_t S = h->rows, P = h->past, T = P + S, D = h->dim;
    if (!l.bytes || l.bytes > blob || !S || (uint64_t)S * D > sizeof rows_out || (uint64_t)T * D > sizeof cache_rows)
        fail("the linked vectors are larger than their blob or this firmware's buffers", TESSERA_OK);
    tsr_demo_puts("tessera vectors firmware on board '");
    tsr_demo_puts(board->name);
    tsr_demo_puts("': ");
    tsr_demo_put_u64(board->core_count);
    put(" compute harts; ", S);
    put(" rows at S_past ", P);
    put(", ", h->n_layers);
    tsr_demo_puts(" layers\n");
    tessera_status st = tessera_open(&session, tessera_image, (size_t)(tessera_image_end - tessera_image), board);
    if (st != TESSERA_OK) fail("open", st);
    tessera_image_summary model;
    tessera_image_summary_of(&session, &model);
    if (model.dim != D || model.n_layers != h->n_layers || model.dim / model.n_heads != h->head_size)
        fail("the vectors do not match the image's dim, layers or head size", TESSERA_OK);
    for (uint32_t layer = 0; layer < h->n_layers; ++layer)
        for (uint32_t kind = 0; kind < 2u; ++kind) {
            st = tessera_kv_write(&session, layer, kind, 0, P, tessera_vectors + l.past + (2u * layer + kind) * P * D);
            if (st != TESSERA_OK) fail("kv_write", st);
        }
    st = tessera_set_position(&session, P);
    if (st != TESSERA_OK) fail("set_position", st);
    put("measured: one run of ", S);
    tsr_demo_puts(S == 1u ? " row (autoregressive)" : " rows (prompt)");
    put(" from position ", P);
    tsr_demo_puts("\n");
    tsr_demo_mark_begin();
    st = tessera_forward_rows(&session, tessera_vectors + l.rows_in, (const int8_t *)(tessera_vectors + l.rotations), S,
                              rows_out);
    tsr_demo_mark_end();
    if (st != TESSERA_OK) fail("forward_rows", st);
    uint32_t values = S * D, differ = differing(rows_out, (const int8_t *)(tessera_vectors + l.want_rows), S * D);
    put("vectors: output_0: ", differ);
    put(" of ", S * D);
    tsr_demo_puts(" values differ\n");
    for (uint32_t layer = 0; layer < h->n_layers; ++layer)
        for (uint32_t kind = 0; kind < 2u; ++kind) {
            st = tessera_kv_read(&session, layer, kind, 0, T, cache_rows);
            if (st != TESSERA_OK) fail("kv_read", st);
            const uint32_t d = differing(cache_rows, (const int8_t *)(tessera_vectors + l.want_cache + (2u * layer + kind) * T * D), T * D);
            put("vectors: output_", 1u + 2u * layer + kind);
            put(": ", d);
            put(" of ", T * D);
            tsr_demo_puts(" values differ\n");
            differ += d;
            values += T * D;
        }
    tessera_stats stats;
    tessera_get_stats(&session, &stats);
    put("per token: forks ", stats.forks);
    put(", DMA transfers ", stats.dma_transfers);
    put(", DMA bytes ", stats.dma_bytes);
    put(", NPU jobs ", stats.npu_jobs);
    put(" (one run of ", S);
    tsr_demo_puts(" rows)\n");
    /* The profile: the run again from its position (it writes the same cache rows), the
     * profiler attached; the measured run ran as an application runs it, without. */
    int profiled = tessera_set_position(&session, P) == TESSERA_OK &&
                   tessera_profile(&session, profile, PROFILE_STEPS) == TESSERA_OK;
    if (profiled) {
        st = tessera_forward_rows(&session, tessera_vectors + l.rows_in, (const int8_t *)(tessera_vectors + l.rotations),
                                  S, rows_out);
        if (st != TESSERA_OK) fail("profiled run", st);
        profiled = tessera_profile(&session, NULL, 0) == TESSERA_OK;
    }
    if (profiled) tsr_demo_print_profile(&session, profile, 1u);
    tsr_demo_put_op_labels();
    put("vectors: all: ", differ);
    put(" of ", values);
    tsr_demo_puts(" values differ\n");
    return differ ? 1 : 0;
}
