/*
 * Tessera public C API (C99). Runs a model image on a board.
 *
 *   tessera_session s;                               // caller-owned storage, no heap
 *   if (tessera_open(&s, image, image_size, board) != TESSERA_OK)
 *       puts(tessera_last_error(&s));                 // one line: what and where
 *   tessera_encode(&s, "Once upon", true, false, ids, cap, &n);
 *   tessera_prompt(&s, ids, n);                       // prompt (parallel) mode, fills the KV cache
 *   tessera_sample(&s, &sampler, &next);              // from the last position's logits
 *   tessera_step(&s, next);                           // autoregressive mode, one token
 *
 * Every fallible call returns a tessera_status; after a failure,
 * tessera_last_error() says what failed and where, naming the call that failed
 * ("tessera_step: ..."). It always describes the last call made on the session:
 * "" after one that succeeded, tessera_close included; a call on a session that is
 * not open says so. A failed call leaves the session as it was before the call
 * (position, KV cache contents it had).
 * The image must stay valid and unchanged while the session is open.
 */
#ifndef TESSERA_H
#define TESSERA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessera/hal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tessera_status {
    TESSERA_OK = 0,
    TESSERA_ERR_INVALID_ARGUMENT = 1, /* null pointer, bad option value */
    TESSERA_ERR_NOT_OPEN = 2,         /* session not opened, or closed */

    /* opening an image */
    TESSERA_ERR_IMAGE_TRUNCATED = 10,      /* fewer bytes than the image says it has */
    TESSERA_ERR_IMAGE_BAD_MAGIC = 11,      /* not a Tessera image */
    TESSERA_ERR_IMAGE_BAD_VERSION = 12,    /* format version this runtime does not read */
    TESSERA_ERR_IMAGE_BAD_CHECKSUM = 13,   /* header or section CRC-32 mismatch */
    TESSERA_ERR_IMAGE_BAD_HEADER = 14,     /* a header field out of range */
    TESSERA_ERR_IMAGE_BAD_SECTION = 15,    /* section table entry out of bounds or duplicated */
    TESSERA_ERR_IMAGE_BAD_PLACEMENT = 16,  /* a buffer outside its region or misaligned */
    TESSERA_ERR_IMAGE_BAD_SCHEDULE = 17,   /* a step with unknown op or operands that do not fit */
    TESSERA_ERR_IMAGE_BAD_TOKENIZER = 18,  /* tokenizer section malformed */
    TESSERA_ERR_IMAGE_MISALIGNED = 19,     /* image buffer not 16-byte aligned in memory */
    TESSERA_ERR_WRONG_BOARD = 20,          /* image planned for another board */
    TESSERA_ERR_BOARD_TOO_SMALL = 21,      /* board region or core count below the plan */
    TESSERA_ERR_HAL = 22,                  /* a HAL call failed */
    TESSERA_ERR_IMAGE_UNSUPPORTED = 23,    /* the image needs a feature this runtime lacks (required_features) */

    /* running */
    TESSERA_ERR_CONTEXT_FULL = 30,   /* the tokens would run past the KV cache */
    TESSERA_ERR_BAD_TOKEN = 31,      /* token id outside the vocabulary */
    TESSERA_ERR_BUFFER_TOO_SMALL = 32, /* caller's output array too short */
    TESSERA_ERR_NO_LOGITS = 33,      /* nothing has run since open/reset, or row out of range */
    TESSERA_ERR_KERNEL = 34,         /* a kernel refused its arguments */
    TESSERA_ERR_UNENCODABLE_TEXT = 35 /* a character with no piece and no byte-fallback piece */
} tessera_status;

/* Caller-owned session storage; its contents are private. */
#define TESSERA_SESSION_WORDS 160
typedef struct tessera_session {
    uint64_t opaque_[TESSERA_SESSION_WORDS];
} tessera_session;

/* What an image says about itself, readable before choosing a board. */
typedef struct tessera_image_summary {
    uint32_t format_version;
    char board_name[32];
    uint32_t board_fingerprint;
    uint32_t planned_cores;
    uint32_t dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
    uint32_t context;
    uint32_t prompt_chunk;
    uint32_t precision; /* tsr_dtype */
    uint32_t region_bytes[4]; /* per tsr_region_id; [IMAGE] = file size */
    uint32_t bos_id, eos_id;  /* the tokens that begin and end a text */
} tessera_image_summary;

typedef struct tessera_stats {
    uint32_t position;         /* tokens in the KV cache */
    uint64_t prompt_tokens;    /* through prompt mode since open */
    uint64_t prompt_cycles;
    uint64_t step_tokens;      /* through autoregressive mode since open */
    uint64_t step_cycles;
    uint32_t region_bytes[4];  /* bytes of each region the plan uses; [IMAGE] = image size */
    uint32_t weights_in_place; /* 1: weights used from the image (all, or those not copied to L2), 0: all copied at open */
    uint64_t runs;             /* schedule runs (prompt chunks and steps) since open */
    uint64_t forks;            /* cluster forks they took */
    uint64_t dma_bytes;        /* bytes the DMA engine moved for them */
    uint64_t dma_transfers;
    uint64_t npu_jobs;         /* jobs the NPU ran for them */
} tessera_stats;

/* One step of a schedule, as a profile sees it (tessera_profile). */
typedef struct tessera_step_profile {
    uint32_t schedule;      /* 0: prompt, 1: token */
    uint32_t step;          /* index in its schedule */
    uint32_t op;            /* tsr_op; tsr_op_name() names it */
    uint32_t layer;         /* model layer, or 0xFFFF for none */
    uint64_t runs;          /* times it ran */
    uint64_t cycles;        /* board cycles it took (host board: ns), as core 0 saw them, waits
                             * included; the run's last step also holds its final drain */
    uint64_t dma_bytes;     /* the DMA transfers it issued */
    uint64_t dma_transfers;
    uint64_t forks;         /* cluster forks it opened: a run's one fork counts on its first step */
    uint64_t npu_jobs;      /* NPU jobs it submitted */
    uint64_t dma_wait_cycles; /* of `cycles`: core 0 waiting for the DMA engine (tiles' inputs, a full queue) */
    uint64_t npu_wait_cycles; /* of `cycles`: core 0 waiting for NPU jobs (results a step reads, a full queue) */
    uint32_t engine;        /* tsr_engine that runs it: 1 cluster, 2 DMA, 3 NPU */
    uint32_t reserved;
} tessera_step_profile;

/* Sampler configuration and state; run.c's algorithm and generator. */
typedef struct tessera_sampler {
    float temperature; /* 0: greedy (argmax) */
    float topp;        /* nucleus threshold; <= 0 or >= 1 samples the whole distribution */
    uint64_t rng_state;
} tessera_sampler;

/* Short name of a status, e.g. "image checksum mismatch". Never NULL. */
const char *tessera_status_string(tessera_status status);

/* Reads the header of an image without opening it (checks size, alignment, magic,
 * version, header CRC). On failure a one-line reason goes to `error` (if not NULL). */
tessera_status tessera_image_peek(const void *image, size_t image_size, tessera_image_summary *out, char *error,
                                  size_t error_size);

/* Validates the image completely, binds it to the board (copies sections that
 * want a board region) and makes the session ready at position 0. */
tessera_status tessera_open(tessera_session *session, const void *image, size_t image_size,
                            const tsr_hal_board *board);
void tessera_close(tessera_session *session);

/* One-line description of the last call on this session: "tessera_xxx: what and
 * where" when it failed, "" when it succeeded. */
const char *tessera_last_error(const tessera_session *session);

tessera_status tessera_image_summary_of(const tessera_session *session, tessera_image_summary *out);

/* Encodes UTF-8 text as run.c does (optional BOS, dummy-prefix space, byte
 * fallback, best-score merges, optional EOS) into ids[0..*count). capacity is the
 * room in `ids`; the tokens never exceed the image's context, so a context-sized
 * array always does. A text needing more tokens than the context is refused with
 * TESSERA_ERR_CONTEXT_FULL, early and in time linear in its length; merging takes
 * O(n log n). A character that has neither a piece nor a "<0xXX>" byte piece gives
 * TESSERA_ERR_UNENCODABLE_TEXT. Works in the image's sampler scratch, which holds
 * nothing between calls: logits and the KV cache are left as they were. */
tessera_status tessera_encode(tessera_session *session, const char *text, bool bos, bool eos,
                              int32_t *ids, uint32_t capacity, uint32_t *count);

/* The text of `token` after `prev` as run.c prints it (leading space dropped after
 * BOS, "<0xXX>" pieces as their byte). *len gets its length; NULL for a bad id. */
const char *tessera_decode(const tessera_session *session, int32_t prev, int32_t token, uint32_t *len);

/* Prompt mode: runs `count` tokens at the current position, in chunks of the
 * image's prompt_chunk. Afterwards logits exist for the last token, or for every
 * row of the last chunk when the image was packed with --prompt-logits all. */
tessera_status tessera_prompt(tessera_session *session, const int32_t *ids, uint32_t count);

/* Autoregressive mode: runs one token at the current position. */
tessera_status tessera_step(tessera_session *session, int32_t token);

#define TESSERA_LAST_ROW 0xFFFFFFFFu
/* Logits (vocab_size floats) of a row of the last run; TESSERA_LAST_ROW for its last
 * position. *rows, if not NULL, gets the number of rows the last run produced. */
tessera_status tessera_logits(const tessera_session *session, uint32_t row, const float **logits,
                              uint32_t *rows);

/* Sets up a sampler. temperature must be a finite number >= 0 and topp a finite
 * number, else TESSERA_ERR_INVALID_ARGUMENT (the sampler is still filled in, and
 * tessera_sample refuses it). */
tessera_status tessera_sampler_init(tessera_sampler *sampler, float temperature, float topp, uint64_t seed);
/* Samples the next token from the last position's logits (which it leaves intact). */
tessera_status tessera_sample(tessera_session *session, tessera_sampler *sampler, int32_t *token);

/* Entries a profile needs: one per step of both schedules. */
uint32_t tessera_profile_size(const tessera_session *session);
/* Profiles every later run into `steps` (capacity >= tessera_profile_size entries:
 * the prompt schedule's steps, then the token schedule's), which it first fills
 * with each step's identity and zeroes. NULL stops profiling. The array must stay
 * valid while profiling. */
tessera_status tessera_profile(tessera_session *session, tessera_step_profile *steps, uint32_t capacity);
#define TESSERA_PROFILE_ANY 0xFFFFFFFFu
/* The sum of the entries of a profile whose op and layer match (TESSERA_PROFILE_ANY
 * matches every one; TSR_NO_LAYER, 0xFFFF, the steps of no layer): the view by
 * operator kind or by layer. *sum gets op, layer and the sums; schedule, step and
 * engine 0 (the engine of the matched entries when they share one).
 * Returns the number of entries that matched. */
uint32_t tessera_profile_sum(const tessera_step_profile *steps, uint32_t count, uint32_t op, uint32_t layer,
                             tessera_step_profile *sum);

/*
 * Decoder-only images (an ONNX decoder's: vocab_size 0 in the summary): hidden rows in, hidden
 * rows out, with no embedding, classifier or tokenizer. Their schedules run the same prompt
 * (parallel) and autoregressive modes; tessera_prompt, tessera_step, tessera_logits,
 * tessera_sample and tessera_encode refuse them, and tessera_forward_rows refuses the others.
 *
 * Runs `count` rows (dim elements of the image's precision each) at the current position:
 * one row in autoregressive mode, more in chunks of prompt_chunk (the rows of a chunk see each
 * other as the graph's causal mask lets them). `rotations` holds each row's side input, its
 * RoPE matrix: head_size x head_size elements of the precision, row-major, count of them.
 * rows_out gets count rows.
 * On success the position advances by count.
 */
tessera_status tessera_forward_rows(tessera_session *session, const void *rows_in, const void *rotations,
                                    uint32_t count, void *rows_out);

/* The KV cache as rows: `count` cached positions from `first` of layer `layer`'s keys (kind 0)
 * or values (kind 1), kv_dim elements of the precision each. Reading needs first + count <=
 * the position; writing needs first + count <= the context and restores saved state (or loads
 * another system's cache): follow it with tessera_set_position. Every image has them, in
 * this order whatever the layout the image stores them in (head by head on a board whose
 * kernels read the cache in place). */
tessera_status tessera_kv_read(const tessera_session *session, uint32_t layer, uint32_t kind, uint32_t first,
                               uint32_t count, void *rows);
tessera_status tessera_kv_write(tessera_session *session, uint32_t layer, uint32_t kind, uint32_t first,
                                uint32_t count, const void *rows);
/* Sets the position (0..context): the cache below it is what the next run attends to. Forgets
 * the logits. */
tessera_status tessera_set_position(tessera_session *session, uint32_t position);

/* Forgets the sequence: position 0, no logits. */
tessera_status tessera_reset(tessera_session *session);
uint32_t tessera_position(const tessera_session *session);
tessera_status tessera_get_stats(const tessera_session *session, tessera_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_H */
