/* Generate text with a Tessera model image on the host emulation board: open the
 * image, encode a prompt, run it in prompt mode, then sample and stream tokens. */
#include <stdio.h>
#include <stdlib.h>

#include "tessera/host_board.h"
#include "tessera/tessera.h"

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: %s IMAGE.tess [PROMPT]\n", argv[0]), 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) return perror(argv[1]), 1;
    const size_t size = (size_t)ftell(f);
    void *image = aligned_alloc(64, (size + 63) / 64 * 64); /* as flash holds it: 64-byte aligned */
    rewind(f);
    if (!image || fread(image, 1, size, f) != size) return fprintf(stderr, "%s: cannot read\n", argv[1]), 1;
    fclose(f);

    char error[256];
    tessera_host_board *board;
    if (tessera_host_board_create_for_image(image, size, 0, &board, error, sizeof error)) return fprintf(stderr, "%s\n", error), 1;
    static tessera_session s; /* the caller owns the session: no heap in the runtime */
    if (tessera_open(&s, image, size, tessera_host_board_hal(board)) != TESSERA_OK)
        return fprintf(stderr, "%s\n", tessera_last_error(&s)), 1;

    int32_t ids[256], next;
    uint32_t n = 0;
    tessera_sampler sampler;
    tessera_sampler_init(&sampler, 0.0f, 0.9f, 42); /* temperature 0: greedy */
    if (tessera_encode(&s, argc > 2 ? argv[2] : "Once upon a time", true, false, ids, 256, &n) != TESSERA_OK ||
        tessera_prompt(&s, ids, n) != TESSERA_OK)
        return fprintf(stderr, "%s\n", tessera_last_error(&s)), 1;
    for (int32_t prev = ids[n - 1]; n < 100 && tessera_sample(&s, &sampler, &next) == TESSERA_OK && next > 2; ++n) {
        uint32_t len;
        const char *piece = tessera_decode(&s, prev, next, &len);
        fwrite(piece, 1, len, stdout), fflush(stdout);
        if (tessera_step(&s, next) != TESSERA_OK) break;
        prev = next;
    }
    printf("\n");
    tessera_close(&s);
    tessera_host_board_destroy(board);
    free(image);
    return 0;
}
