/* The public C API, used from C as firmware authors would (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tessera/host_board.h"
#include "tessera/tessera.h"

/* Set from the command line: an image of stories260K packed for "host", and the golden ids. */
static const char *g_image_path;
static const char *g_golden_path;

typedef struct {
    uint8_t *image;
    size_t size;
    tessera_host_board *board;
    tessera_session session;
} fixture;

static uint8_t *read_aligned(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = aligned_alloc(64, (*size + 63) / 64 * 64);
    if (buf && fread(buf, 1, *size, f) != *size) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    char err[256];
    fx->image = read_aligned(g_image_path, &fx->size);
    if (!fx->image) {
        fprintf(stderr, "cannot read image %s\n", g_image_path);
        return -1;
    }
    if (tessera_host_board_create("host", 2, &fx->board, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    tessera_host_board_check_l1(fx->board, 1);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    tessera_close(&fx->session);
    tessera_host_board_destroy(fx->board);
    free(fx->image);
    free(fx);
    return 0;
}

static void status_strings_are_distinct_and_never_null(void **state)
{
    (void)state;
    const tessera_status all[] = {TESSERA_OK, TESSERA_ERR_INVALID_ARGUMENT, TESSERA_ERR_NOT_OPEN,
                                  TESSERA_ERR_IMAGE_TRUNCATED, TESSERA_ERR_IMAGE_BAD_MAGIC, TESSERA_ERR_IMAGE_BAD_VERSION,
                                  TESSERA_ERR_IMAGE_BAD_CHECKSUM, TESSERA_ERR_IMAGE_BAD_HEADER,
                                  TESSERA_ERR_IMAGE_BAD_SECTION, TESSERA_ERR_IMAGE_BAD_PLACEMENT,
                                  TESSERA_ERR_IMAGE_BAD_SCHEDULE, TESSERA_ERR_IMAGE_BAD_TOKENIZER,
                                  TESSERA_ERR_IMAGE_MISALIGNED, TESSERA_ERR_WRONG_BOARD, TESSERA_ERR_BOARD_TOO_SMALL,
                                  TESSERA_ERR_HAL, TESSERA_ERR_CONTEXT_FULL, TESSERA_ERR_BAD_TOKEN,
                                  TESSERA_ERR_BUFFER_TOO_SMALL, TESSERA_ERR_NO_LOGITS, TESSERA_ERR_KERNEL};
    const size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; i < n; ++i) {
        const char *s = tessera_status_string(all[i]);
        assert_non_null(s);
        assert_string_not_equal(s, "unknown status");
        for (size_t j = 0; j < i; ++j) assert_string_not_equal(s, tessera_status_string(all[j]));
    }
    assert_string_equal(tessera_status_string((tessera_status)999), "unknown status");
}

static void peek_reads_the_header(void **state)
{
    fixture *fx = *state;
    tessera_image_summary s;
    char err[128];
    assert_int_equal(tessera_image_peek(fx->image, fx->size, &s, err, sizeof err), TESSERA_OK);
    assert_string_equal(s.board_name, "host");
    assert_int_equal(s.dim, 64);
    assert_int_equal(s.n_layers, 5);
    assert_int_equal(s.n_kv_heads, 4);
    assert_int_equal(s.vocab_size, 512);
    assert_int_equal(s.context, 512);
    assert_int_equal(s.region_bytes[TSR_REGION_IMAGE], fx->size);
    assert_int_equal(tessera_image_peek(fx->image, 10, &s, err, sizeof err), TESSERA_ERR_IMAGE_TRUNCATED);
    assert_non_null(strstr(err, "10 bytes"));
}

static void greedy_generation_matches_golden(void **state)
{
    fixture *fx = *state;
    assert_int_equal(tessera_open(&fx->session, fx->image, fx->size, tessera_host_board_hal(fx->board)), TESSERA_OK);
    FILE *f = fopen(g_golden_path, "r");
    assert_non_null(f);
    int pos, want[200];
    double margin;
    for (int i = 0; i < 200; ++i) assert_int_equal(fscanf(f, "%d %d %lf", &pos, &want[i], &margin), 3);
    fclose(f);

    int32_t ids[8];
    uint32_t n = 0;
    assert_int_equal(tessera_encode(&fx->session, "", true, false, ids, 8, &n), TESSERA_OK);
    assert_int_equal(n, 1);
    assert_int_equal(tessera_prompt(&fx->session, ids, n), TESSERA_OK);
    tessera_sampler greedy;
    tessera_sampler_init(&greedy, 0.0f, 0.9f, 1);
    for (int i = 0; i < 200; ++i) {
        int32_t next = -1;
        assert_int_equal(tessera_sample(&fx->session, &greedy, &next), TESSERA_OK);
        assert_int_equal(next, want[i]);
        if (i < 199) assert_int_equal(tessera_step(&fx->session, next), TESSERA_OK);
    }
    tessera_stats stats;
    assert_int_equal(tessera_get_stats(&fx->session, &stats), TESSERA_OK);
    assert_int_equal(stats.position, 200);
    assert_int_equal(stats.prompt_tokens, 1);
    assert_int_equal(stats.step_tokens, 199);
    assert_true(stats.region_bytes[TSR_REGION_L2] > 0);
}

static void sampling_is_reproducible_by_seed(void **state)
{
    fixture *fx = *state;
    assert_int_equal(tessera_open(&fx->session, fx->image, fx->size, tessera_host_board_hal(fx->board)), TESSERA_OK);
    int32_t runs[2][30];
    for (int run = 0; run < 2; ++run) {
        const int32_t bos = 1;
        assert_int_equal(tessera_reset(&fx->session), TESSERA_OK);
        assert_int_equal(tessera_prompt(&fx->session, &bos, 1), TESSERA_OK);
        tessera_sampler s;
        tessera_sampler_init(&s, 1.0f, 0.9f, 1234);
        for (int i = 0; i < 30; ++i) {
            assert_int_equal(tessera_sample(&fx->session, &s, &runs[run][i]), TESSERA_OK);
            assert_int_equal(tessera_step(&fx->session, runs[run][i]), TESSERA_OK);
        }
    }
    assert_memory_equal(runs[0], runs[1], sizeof runs[0]);
}

static void decode_follows_run_c(void **state)
{
    fixture *fx = *state;
    assert_int_equal(tessera_open(&fx->session, fx->image, fx->size, tessera_host_board_hal(fx->board)), TESSERA_OK);
    int32_t ids[16];
    uint32_t n = 0;
    assert_int_equal(tessera_encode(&fx->session, "Lily and Tom", true, false, ids, 16, &n), TESSERA_OK);
    char text[64] = "";
    for (uint32_t i = 1; i < n; ++i) {
        uint32_t len = 0;
        const char *piece = tessera_decode(&fx->session, ids[i - 1], ids[i], &len);
        assert_non_null(piece);
        strncat(text, piece, len);
    }
    assert_string_equal(text, "Lily and Tom");
    uint32_t len = 0;
    assert_null(tessera_decode(&fx->session, 1, 512, &len));
}

static void errors_are_specific(void **state)
{
    fixture *fx = *state;
    const tsr_hal_board *hal = tessera_host_board_hal(fx->board);
    assert_int_equal(tessera_open(NULL, fx->image, fx->size, hal), TESSERA_ERR_INVALID_ARGUMENT);
    assert_int_equal(tessera_step(&fx->session, 1), TESSERA_ERR_NOT_OPEN);
    assert_int_equal(tessera_open(&fx->session, fx->image, fx->size, NULL), TESSERA_ERR_INVALID_ARGUMENT);
    /* The README's old mistake: the host board's handle where its HAL board belongs. */
    assert_int_equal(tessera_open(&fx->session, fx->image, fx->size, (const tsr_hal_board *)(const void *)fx->board),
                     TESSERA_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(tessera_last_error(&fx->session), "pass tessera_host_board_hal(board)"));

    /* A corrupted copy: one bit of the last section (the weights) flipped. */
    uint8_t *copy = aligned_alloc(64, (fx->size + 63) / 64 * 64);
    memcpy(copy, fx->image, fx->size);
    copy[fx->size - 7] ^= 1;
    assert_int_equal(tessera_open(&fx->session, copy, fx->size, hal), TESSERA_ERR_IMAGE_BAD_CHECKSUM);
    assert_non_null(strstr(tessera_last_error(&fx->session), "CRC-32"));
    free(copy);

    assert_int_equal(tessera_open(&fx->session, fx->image, fx->size, hal), TESSERA_OK);
    const float *logits;
    assert_int_equal(tessera_logits(&fx->session, 0, &logits, NULL), TESSERA_ERR_NO_LOGITS);
    assert_int_equal(tessera_step(&fx->session, 600), TESSERA_ERR_BAD_TOKEN);
    assert_non_null(strstr(tessera_last_error(&fx->session), "vocabulary is 0..511"));
    int32_t ids[2];
    uint32_t n;
    assert_int_equal(tessera_encode(&fx->session, "Once upon a time", true, false, ids, 2, &n),
                     TESSERA_ERR_BUFFER_TOO_SMALL);
    tessera_sampler bad;
    tessera_sampler_init(&bad, -1.0f, 0.9f, 1);
    const int32_t bos = 1;
    assert_int_equal(tessera_prompt(&fx->session, &bos, 1), TESSERA_OK);
    int32_t tok;
    assert_int_equal(tessera_sample(&fx->session, &bad, &tok), TESSERA_ERR_INVALID_ARGUMENT);
}

/* tessera_last_error describes the last call, on every call: each refusal names its own
 * function, a success clears it, tessera_close included, and a call on a closed session
 * says so (issue 29: after close it repeated the previous text; tessera_sample's refusal
 * named tessera_logits). */
static void last_error_describes_the_last_call(void **state)
{
    fixture *fx = *state;
    const tsr_hal_board *hal = tessera_host_board_hal(fx->board);
    assert_int_equal(tessera_open(&fx->session, fx->image, fx->size, hal), TESSERA_OK);
    assert_string_equal(tessera_last_error(&fx->session), "");
    assert_int_equal(tessera_step(&fx->session, 600), TESSERA_ERR_BAD_TOKEN);
    assert_non_null(strstr(tessera_last_error(&fx->session), "tessera_step: token 0 has id 600"));
    const int32_t bos = 1;
    assert_int_equal(tessera_prompt(&fx->session, &bos, 1), TESSERA_OK);
    assert_string_equal(tessera_last_error(&fx->session), ""); /* the step's refusal is not this call's */
    tessera_sampler bad;
    tessera_sampler_init(&bad, -1.0f, 0.9f, 1);
    int32_t tok;
    assert_int_equal(tessera_sample(&fx->session, &bad, &tok), TESSERA_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(tessera_last_error(&fx->session), "tessera_sample: "));
    assert_int_equal(tessera_reset(&fx->session), TESSERA_OK);
    tessera_sampler good;
    tessera_sampler_init(&good, 0.0f, 0.9f, 1);
    assert_int_equal(tessera_sample(&fx->session, &good, &tok), TESSERA_ERR_NO_LOGITS);
    const char *e = tessera_last_error(&fx->session);
    assert_non_null(strstr(e, "tessera_sample: no logits"));
    assert_null(strstr(e, "tessera_logits"));
    assert_int_equal(tessera_step(&fx->session, 600), TESSERA_ERR_BAD_TOKEN);
    tessera_close(&fx->session);
    assert_string_equal(tessera_last_error(&fx->session), "");
    assert_int_equal(tessera_step(&fx->session, 1), TESSERA_ERR_NOT_OPEN);
    assert_non_null(strstr(tessera_last_error(&fx->session), "tessera_step: the session is not open"));
    assert_int_equal(tessera_kv_write(&fx->session, 0, 0, 0, 0, NULL), TESSERA_ERR_NOT_OPEN);
    assert_non_null(strstr(tessera_last_error(&fx->session), "tessera_kv_write: the session is not open"));
}

static void unknown_board_is_named(void **state)
{
    (void)state;
    tessera_host_board *b = NULL;
    char err[256];
    assert_int_not_equal(tessera_host_board_create("esp32", 0, &b, err, sizeof err), 0);
    assert_non_null(strstr(err, "unknown board 'esp32'"));
    assert_null(b);
    static const uint8_t zeros[512];
    assert_int_not_equal(tessera_host_board_create_for_image(zeros, sizeof zeros, 0, &b, err, sizeof err), 0);
    assert_non_null(strstr(err, "not a known board"));
    assert_null(b);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s IMAGE GOLDEN_IDS\n", argv[0]);
        return 2;
    }
    g_image_path = argv[1];
    g_golden_path = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_strings_are_distinct_and_never_null),
        cmocka_unit_test_setup_teardown(peek_reads_the_header, setup, teardown),
        cmocka_unit_test_setup_teardown(greedy_generation_matches_golden, setup, teardown),
        cmocka_unit_test_setup_teardown(sampling_is_reproducible_by_seed, setup, teardown),
        cmocka_unit_test_setup_teardown(decode_follows_run_c, setup, teardown),
        cmocka_unit_test_setup_teardown(errors_are_specific, setup, teardown),
        cmocka_unit_test_setup_teardown(last_error_describes_the_last_call, setup, teardown),
        cmocka_unit_test(unknown_board_is_named),
    };
    return cmocka_run_group_tests_name("c_api", tests, NULL, NULL);
}
