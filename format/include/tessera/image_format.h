/*
 * The Tessera model image: the binary contract between the packer (host) and the
 * runtime (device). One definition, included by both, so the two can never drift.
 *
 * Layout (little-endian, every section aligned to TSR_IMAGE_ALIGN in the file):
 *
 *   tsr_image_header                      at offset 0
 *   tsr_section[section_count]            at header.section_table_offset
 *   sections                              TOKENIZER, TENSORS, SCHEDULE_PROMPT,
 *                                         SCHEDULE_TOKEN, WEIGHTS, NPU_JOBS (images with
 *                                         NPU steps)
 *
 * Nothing in the image is trusted: the runtime checks every field, offset, size
 * and checksum before anything runs (runtime/src/image_reader.cpp).
 */
#ifndef TESSERA_IMAGE_FORMAT_H
#define TESSERA_IMAGE_FORMAT_H

#include <stdint.h>

#include "tessera/variant_params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_IMAGE_MAGIC 0x53534554u /* "TESS" read as a little-endian uint32 */
#define TSR_IMAGE_VERSION 9u         /* 9: each step's parameters its variant's own record */
#define TSR_IMAGE_ALIGN 64u         /* file alignment of sections; buffer alignment in regions */
#define TSR_NO_TENSOR 0xFFFFu
#define TSR_BOARD_NAME_BYTES 32u
#define TSR_MAX_OPERANDS 6u
#define TSR_MAX_DIMS 4u
#define TSR_MAX_TILES 3u
#define TSR_MAX_SEQ_LEN (1u << 20) /* most positions a model may say it was trained for */
#define TSR_MAX_TOKEN_BYTES 64u     /* longest vocabulary piece the device tokenizer accepts */
#define TSR_SAMPLER_BYTES_PER_TOKEN 12u /* sampler scratch per vocabulary entry: probability, (prob, index) */
#define TSR_ENCODE_BYTES_PER_SYMBOL 24u /* tokenizer work area per symbol of the text before merging */
#define TSR_STEP_TABLE_ENTRY_BYTES 160u /* the runtime's resolved form of a step (addresses, staging layout) */

typedef enum tsr_dtype {
    TSR_DTYPE_F32 = 1,
    TSR_DTYPE_I32 = 2,
    TSR_DTYPE_BF16 = 3,
    TSR_DTYPE_I8 = 4,
    TSR_DTYPE_U8 = 5,
    TSR_DTYPE_I16 = 6
} tsr_dtype;

/* Bytes of one element of `dtype`; 0 for a value that is no tsr_dtype. */
static inline uint32_t tsr_dtype_bytes(uint32_t dtype)
{
    /* A nibble a type, from 0 (no type) up: 0, F32 4, I32 4, BF16 2, I8 1, U8 1, I16 2.
     * (Runtimes ask it at every step: a switch is a table load and a jump, here a shift.) */
    return dtype <= TSR_DTYPE_I16 ? (0x2112440u >> (dtype * 4u)) & 0xFu : 0u;
}

static inline const char *tsr_dtype_name(uint32_t dtype)
{
    switch (dtype) {
    case TSR_DTYPE_F32: return "f32";
    case TSR_DTYPE_I32: return "i32";
    case TSR_DTYPE_BF16: return "bf16";
    case TSR_DTYPE_I8: return "i8";
    case TSR_DTYPE_U8: return "u8";
    case TSR_DTYPE_I16: return "i16";
    default: return "?";
    }
}

/* The front end that lowered the model (tsr_image_header.arch): for tools and people.
 * The runtime does not check it: it checks the image's operators, variants, features
 * and the tensors the generation loop uses, whatever graph they make. */
typedef enum tsr_arch { TSR_ARCH_LLAMA = 1, TSR_ARCH_GPT2 = 2 } tsr_arch; /* informative: the steps say what runs */

typedef enum tsr_section_kind {
    TSR_SECTION_TOKENIZER = 1,
    TSR_SECTION_TENSORS = 2,
    TSR_SECTION_SCHEDULE_PROMPT = 3,
    TSR_SECTION_SCHEDULE_TOKEN = 4,
    TSR_SECTION_WEIGHTS = 5,
    TSR_SECTION_NPU_JOBS = 6, /* tsr_npu_desc[]: the NPU steps' job descriptors, encoded by the packer */
    TSR_SECTION_BOARD = 7,    /* the board description planned for, JSON text (host tools read it; the runtime does not) */
    TSR_SECTION_NAMES = 8     /* the tensors' names, each NUL-terminated, in tensor order (host tools; the runtime does not) */
} tsr_section_kind;
#define TSR_SECTION_KIND_LAST_ 8u

/* The names host tools print and reports use, one table each. */
static inline const char *tsr_section_kind_name(uint32_t kind)
{
    static const char *const names[] = {"?", "tokenizer", "tensors", "schedule:prompt", "schedule:token",
                                        "weights", "npu-jobs", "board", "names"};
    return kind <= TSR_SECTION_KIND_LAST_ ? names[kind] : "?";
}

/* What a tensor is; the runtime uses it to refuse writes into weights. */
typedef enum tsr_tensor_kind {
    TSR_TENSOR_WEIGHT = 1,     /* constant, from the WEIGHTS section */
    TSR_TENSOR_ACTIVATION = 2, /* lives within one schedule run */
    TSR_TENSOR_KV_CACHE = 3,   /* lives across both schedules */
    TSR_TENSOR_IO = 4,         /* written or read by the runtime around a run (tokens, logits) */
    TSR_TENSOR_SCRATCH = 5,    /* attention scores, sampler scratch */
    TSR_TENSOR_STAGING = 6,    /* L1 tile slots of one step's streamed operand */
    TSR_TENSOR_STEP_TABLE = 7  /* the runtime's resolved steps: written once at open, overlapping nothing */
} tsr_tensor_kind;
#define TSR_TENSOR_KIND_LAST_ 7u

static inline const char *tsr_tensor_kind_name(uint32_t kind)
{
    static const char *const names[] = {"?", "weight", "activation", "kv_cache", "io", "scratch", "staging", "step_table"};
    return kind <= TSR_TENSOR_KIND_LAST_ ? names[kind] : "?";
}

/* tsr_tensor.layout: how the elements lie in memory. */
typedef enum tsr_layout {
    TSR_LAYOUT_ROW_MAJOR = 0, /* dims[ndims - 1] varies fastest; engine-specific layouts take later values */
    TSR_LAYOUT_NPU_W8 = 1,    /* I8 weights {n, k} in the NPU's layout (tessera/npu.h: N-EUREKA's 1x1 mode), 8 bits */
    TSR_LAYOUT_NPU_W4 = 2,    /* the same with 4-bit weights (values in [-8, 7]) */
    TSR_LAYOUT_W4_G32 = 3,    /* I8 weights {n, k} for the cluster's W4A8 matmul: n rows of ceil(k/2) bytes of
                                 4-bit weights and ceil(k/32) group scales (tessera/kernels_i8.h) */
    TSR_LAYOUT_KV_HEAD_MAJOR = 4 /* a KV cache {context, kv_dim} stored head by head: n_kv_heads (the header's)
                                    blocks of context x head_size, so that a head's positions lie together
                                    (kernels read them where they lie: TSR_IMAGE_OPERANDS_IN_PLACE) */
} tsr_layout;
#define TSR_LAYOUT_LAST_ 4u

static inline const char *tsr_layout_name(uint32_t layout)
{
    static const char *const names[] = {"row_major", "npu_w8", "npu_w4", "w4_g32", "kv_head_major"};
    return layout <= TSR_LAYOUT_LAST_ ? names[layout] : "?";
}

/* Weight bits of an NPU layout; 0 for any other layout. */
static inline uint32_t tsr_layout_npu_bits(uint32_t layout)
{
    return layout == TSR_LAYOUT_NPU_W8 ? 8u : layout == TSR_LAYOUT_NPU_W4 ? 4u : 0u;
}

/* tsr_tensor.quant: what its scale and zero point say. */
typedef enum tsr_quant_kind {
    TSR_QUANT_NONE = 0,        /* a float or index tensor: scale 1, zero point 0 */
    TSR_QUANT_PER_TENSOR = 1,  /* real = scale * (q - zero_point) */
    TSR_QUANT_PER_CHANNEL = 2  /* real = scales[i] * q for channel i (dims[0]); scales: the F32
                                  tensor quant_params names (dims[0] entries), zero point 0 */
} tsr_quant_kind;

/* tsr_image_header.required_features: what the runtime must provide to run the
 * image; a runtime refuses an image that asks for a bit it lacks, by name. */
#define TSR_FEATURE_F32 1u          /* fp32 kernels */
#define TSR_FEATURE_BF16 2u         /* bf16 kernels */
#define TSR_FEATURE_I8 4u           /* integer-only int8 kernels */
#define TSR_FEATURE_I8_FLOAT_NONLINEAR 8u /* int8 with float non-linearities (boards with an FPU) */
#define TSR_FEATURE_NPU 16u         /* NPU jobs */
#define TSR_FEATURE_QUANTLIB 32u    /* QuantLib's integer operators (graphs that Deeploy runs) */
#define TSR_FEATURE_COUNT_ 6u

static inline const char *tsr_feature_name(uint32_t bit)
{
    switch (bit) {
    case TSR_FEATURE_F32: return "fp32 kernels";
    case TSR_FEATURE_BF16: return "bf16 kernels";
    case TSR_FEATURE_I8: return "int8 kernels";
    case TSR_FEATURE_I8_FLOAT_NONLINEAR: return "int8 float non-linearities";
    case TSR_FEATURE_NPU: return "NPU";
    case TSR_FEATURE_QUANTLIB: return "QuantLib integer operators";
    default: return 0;
    }
}

/* How an int8 operator computes its non-linearities (softmax, RMSNorm, SiLU). */
typedef enum tsr_nonlinear {
    TSR_NONLINEAR_INTEGER = 0, /* integer arithmetic only (I-BERT exp, integer division and square root) */
    TSR_NONLINEAR_FLOAT = 1,   /* dequantized, computed in float, requantized */
    TSR_NONLINEAR_QUANTLIB = 2 /* QuantLib's integer operators, bit for bit as Deeploy runs them
                                  (iRMSNorm, iSoftmax, iHardswish, RequantShift: tessera/kernels_quantlib.h) */
} tsr_nonlinear;

/* How a bf16 operator computes e^x (attention, SiLU): the kernels' tsr_exp_kind. */
#define TSR_BF16_EXP_ACCURATE 0u
#define TSR_BF16_EXP_SCHRAUDOLPH 1u

typedef enum tsr_engine { TSR_ENGINE_CLUSTER = 1, TSR_ENGINE_DMA = 2, TSR_ENGINE_NPU = 3 } tsr_engine;

/* Operators: the table in tessera/ops.def. `rows` is the number of tokens in the
 * current run (1 in the token schedule, 1..prompt_chunk in the prompt schedule);
 * `pos` is the position of the first of them. Each operator's operands, params and
 * tiles are documented in its device file, runtime/src/ops/<name>.cpp.
 *
 * Kernels only ever see L1: an operand that lives in L2 (or in the image) is
 * streamed through its staging tensor (in L1) tile by tile by the DMA engine,
 * double-buffered when it has more than one tile. staging[i] names that tensor for
 * operand i, or is TSR_NO_TENSOR when operand i is in L1 itself. */
typedef enum tsr_op {
#define TSR_OP(NAME, id, name, operands, tile_kind, arithmetic) TSR_OP_##NAME = id,
#include "tessera/ops.def"
#undef TSR_OP
    TSR_OP_COUNT_
} tsr_op;

typedef enum tsr_tile_kind {
    TSR_TILE_MOVE = 0,      /* no tiles: data movement */
    TSR_TILE_ROWS = 1,      /* tile[0] rows */
    TSR_TILE_MATMUL = 2,    /* tile[0] rows, tile[1] output columns */
    TSR_TILE_POSITIONS = 3  /* tile[0] cached positions, tile[1] cores sharing the work */
} tsr_tile_kind;

/* tsr_step.flags */
#define TSR_STEP_ONE_ROW 1u /* runs on one row whatever the run's rows (after LAST_ROW picked it) */
#define TSR_STEP_FLAGS_ 1u

#define TSR_NO_LAYER 0xFFFFu

/* tsr_image_header.flags */
#define TSR_IMAGE_PROMPT_LOGITS_ALL 1u /* prompt runs leave logits for every row, not only the last */
#define TSR_IMAGE_DECODER_ONLY 2u /* no embedding, classifier or tokenizer: hidden rows in (the tokens
                                     tensors: rows x dim of the precision), hidden rows out (the logits
                                     tensors, the same shape; every row), and a side input per row (the
                                     rotation tensors: rows x head_size^2, I8) */
#define TSR_IMAGE_OPERANDS_IN_PLACE 4u /* kernels read operands outside L1 where they lie (L2, the image)
                                          instead of through L1 staging: planned for a board whose DMA is
                                          its cores (board.json dma.by_core); a board whose cores cannot
                                          load the image refuses it */
#define TSR_IMAGE_FLAGS_ 7u

typedef struct tsr_image_header {
    uint32_t magic;
    uint32_t version;
    uint32_t header_size;  /* sizeof(tsr_image_header) */
    uint32_t file_size;    /* the whole image, bytes */
    uint32_t header_crc;   /* CRC-32 of this header with header_crc set to 0 */
    uint32_t flags;        /* TSR_IMAGE_* */

    /* model */
    uint32_t arch;         /* tsr_arch: informational, not checked by the runtime */
    uint32_t precision;    /* tsr_dtype of the activations (F32, BF16 or I8) */
    uint32_t dim;
    uint32_t hidden_dim;
    uint32_t n_layers;
    uint32_t n_heads;
    uint32_t n_kv_heads;
    uint32_t vocab_size;
    uint32_t seq_len;      /* what the model was trained for */
    uint32_t context;      /* positions the KV cache holds (<= seq_len) */
    uint32_t prompt_chunk; /* rows of the prompt schedule */
    uint32_t bos_id;
    uint32_t eos_id;
    float norm_eps;
    float rope_theta;

    /* board the plan was made for */
    char board_name[TSR_BOARD_NAME_BYTES]; /* NUL-terminated */
    uint32_t board_fingerprint;
    uint32_t planned_cores;                 /* per-core scratch is sized for this many */
    uint32_t region_bytes[4];               /* arena each region needs; [IMAGE] unused */

    /* tables */
    uint32_t section_count;
    uint32_t section_table_offset;
    uint32_t tensor_count;
    uint32_t logits_tensor_prompt; /* 1 x vocab, IO (prompt_chunk x vocab with TSR_IMAGE_PROMPT_LOGITS_ALL) */
    uint32_t logits_tensor_token;  /* 1 x vocab, IO */
    uint32_t tokens_tensor_prompt; /* I32 prompt_chunk, IO */
    uint32_t tokens_tensor_token;  /* I32 1, IO */
    uint32_t sampler_scratch_tensor; /* F32, >= vocab x TSR_SAMPLER_BYTES_PER_TOKEN; also the tokenizer's
                                        work area (see tsr_encode_work_bytes) */
    uint32_t section_table_crc;      /* CRC-32 of the section table */
    uint32_t step_table_tensor;      /* >= (prompt + token steps) x TSR_STEP_TABLE_ENTRY_BYTES, 8-aligned */
    uint32_t required_features;      /* TSR_FEATURE_* */
    uint32_t rotation_tensor_prompt; /* TSR_IMAGE_DECODER_ONLY: I8 prompt_chunk x head_size^2, IO; else 0 */
    uint32_t rotation_tensor_token;  /* TSR_IMAGE_DECODER_ONLY: I8 1 x head_size^2, IO; else 0 */
    uint32_t reserved[4];
} tsr_image_header;

/* One section of each kind, except WEIGHTS: one per region it targets (IMAGE, L1, L2,
 * NMS), each at most once. */
typedef struct tsr_section {
    uint32_t kind;          /* tsr_section_kind */
    uint32_t region;        /* where it is used: IMAGE = in place, else copied there at open */
    uint32_t file_offset;
    uint32_t size;
    uint32_t align;         /* power of two, <= TSR_IMAGE_ALIGN */
    uint32_t region_offset; /* destination when region != IMAGE */
    uint32_t crc32;         /* CRC-32 of the section's bytes */
    uint32_t reserved;
} tsr_section;

typedef struct tsr_tensor {
    uint8_t dtype;   /* tsr_dtype */
    uint8_t region;  /* tsr_region_id */
    uint8_t kind;    /* tsr_tensor_kind */
    uint8_t layout;  /* tsr_layout */
    uint32_t offset; /* within its region (IMAGE: within the file) */
    uint32_t size;   /* bytes */
    uint8_t ndims;   /* 1..TSR_MAX_DIMS */
    uint8_t quant;   /* tsr_quant_kind */
    uint16_t quant_params; /* PER_CHANNEL: the F32 weight tensor of its scales; else TSR_NO_TENSOR */
    uint32_t dims[TSR_MAX_DIMS]; /* outermost first; the elements fill at most `size` bytes; unused dims 1 */
    float scale;        /* PER_TENSOR: real = scale * (q - zero_point); else 1 */
    int32_t zero_point; /* PER_TENSOR I8: [-128, 127], honoured by every int8 variant or refused by it; else 0 */
} tsr_tensor;

/* The matrix view kernels take: cols the innermost dimension, rows all the others. */
static inline uint64_t tsr_tensor_cols(const tsr_tensor *t) { return t->ndims ? t->dims[t->ndims - 1u] : 0u; }
static inline uint64_t tsr_tensor_rows(const tsr_tensor *t)
{
    uint64_t r = 1u;
    for (uint32_t i = 0; i + 1u < t->ndims && i < TSR_MAX_DIMS; ++i) r *= t->dims[i];
    return r;
}

typedef struct tsr_step {
    uint16_t op;     /* tsr_op */
    uint8_t engine;  /* tsr_engine */
    uint8_t flags;   /* TSR_STEP_* */
    uint16_t operands[TSR_MAX_OPERANDS]; /* tensor ids in the order the op lists them */
    uint16_t variant;                   /* tsr_variant_id: the row of tessera/variants.def it runs as */
    uint8_t dtype;                      /* tsr_dtype of its activations: F32, BF16 or I8 (the variant says which) */
    uint8_t reserved0;
    uint16_t layer;                     /* the model layer it belongs to (profiles), or TSR_NO_LAYER */
    uint16_t reserved1;
    tsr_param_record params;            /* its variant's struct (tessera/variant_params.h) */
    uint32_t tile[TSR_MAX_TILES];       /* tile sizes, as the op's tile kind says */
    uint16_t staging[TSR_MAX_OPERANDS]; /* L1 staging tensor per operand, or TSR_NO_TENSOR */
    uint32_t reserved[4];               /* 0: room for what a later version adds */
} tsr_step;

/* An NPU step's job as the packer encodes it (section NPU_JOBS): the engine's
 * descriptor (tessera/npu.h) without its addresses, which the runtime binds from the
 * step's operands; per run it patches the row count m. A step runs `jobs` jobs, job j
 * on output channels [j n, min((j + 1) n, N)). */
typedef struct tsr_npu_desc {
    uint32_t kind;        /* tsr_npu_job_kind */
    uint32_t flags;       /* TSR_NPU_*: WEIGHTS_NMS when the weights are read in place from NMS */
    uint32_t weight_bits; /* 8 or 4, as the weight tensor's layout says */
    uint32_t m, n, k;     /* the schedule's most rows, output channels per job, input channels */
    uint32_t ldx, ldy;    /* input and output row strides, bytes */
    uint32_t jobs;        /* jobs the step runs */
    uint32_t reserved[3];
} tsr_npu_desc;

typedef struct tsr_schedule_header {
    uint32_t step_count;
    uint32_t max_rows;
    uint32_t reserved[6];
} tsr_schedule_header;

/* Tokenizer section: header, vocab entries, ids sorted by piece (strcmp order),
 * then the pieces, each NUL-terminated. */
typedef struct tsr_tokenizer_header {
    uint32_t vocab_size;
    uint32_t max_token_length;
    uint32_t entries_offset; /* from the section start */
    uint32_t sorted_offset;
    uint32_t strings_offset;
    uint32_t strings_size;
    uint32_t kind;       /* tsr_tokenizer_kind: how text becomes pieces */
    uint32_t bpe_offset; /* byte-level BPE: its tsr_bpe_header, from the section start, 4-byte aligned;
                            0: none (the device decodes, and refuses to encode text) */
} tsr_tokenizer_header;

typedef enum tsr_tokenizer_kind {
    TSR_TOKENIZER_SENTENCEPIECE = 0,  /* llama2.c's: pieces merged by score, byte fallback (the device encodes) */
    TSR_TOKENIZER_BYTE_LEVEL_BPE = 1, /* GPT-2's: the text split by its pre-tokenizer, each part's bytes merged
                                         by rank (bpe_offset's tables) */
} tsr_tokenizer_kind;

/* Byte-level BPE's encoding tables: the header, then (at its offsets, from the section
 * start, 4-byte aligned) each byte's token, the merges and the character classes the
 * pre-tokenizer reads. */
typedef struct tsr_bpe_header {
    uint32_t pretokenizer;       /* tsr_bpe_pretokenizer */
    uint32_t byte_tokens_offset; /* 256 uint32: the token of byte b, or TSR_BPE_NO_TOKEN */
    uint32_t merges_offset;      /* merge_count tsr_bpe_merge, by (left, right) ascending, no pair twice */
    uint32_t merge_count;
    uint32_t classes_offset;     /* class_count tsr_bpe_class_range, by first ascending, disjoint */
    uint32_t class_count;
    uint32_t reserved[2];
} tsr_bpe_header;

#define TSR_BPE_NO_TOKEN 0xFFFFFFFFu

typedef enum tsr_bpe_pretokenizer {
    /* GPT-2's pattern: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
       over code points (a byte that is not valid UTF-8 stands alone, of class OTHER) */
    TSR_BPE_PRETOKENIZER_GPT2 = 1
} tsr_bpe_pretokenizer;

/* Two adjacent tokens `left` and `right` of a part become `result`; the lowest rank first,
 * the leftmost of equal ranks. */
typedef struct tsr_bpe_merge {
    uint32_t left, right, result, rank;
} tsr_bpe_merge;

/* A code point's class for the pre-tokenizer: letters (Unicode's L), numbers (N), white
 * space (White_Space), or anything else (a code point no range holds). */
typedef enum tsr_char_class {
    TSR_CHAR_OTHER = 0,
    TSR_CHAR_LETTER = 1,
    TSR_CHAR_NUMBER = 2,
    TSR_CHAR_SPACE = 3
} tsr_char_class;

typedef struct tsr_bpe_class_range {
    uint32_t first, last; /* code points, first <= last <= 0x10FFFF */
    uint32_t char_class;  /* tsr_char_class, 1..3 */
} tsr_bpe_class_range;

typedef struct tsr_token_entry {
    float score;
    uint32_t offset; /* into the strings block */
    uint32_t length; /* bytes, without the NUL */
} tsr_token_entry;

/* The operator table as functions: name, operand count and tile kind of `op`
 * ("?", 0 and TSR_TILE_MOVE for an unknown id). */
static inline const char *tsr_op_name(uint32_t op)
{
    switch (op) {
#define TSR_OP(NAME, id, name, operands, tile_kind, arithmetic) case id: return name;
#include "tessera/ops.def"
#undef TSR_OP
    default: return "?";
    }
}
static inline uint32_t tsr_op_operand_count(uint32_t op)
{
    switch (op) {
#define TSR_OP(NAME, id, name, operands, tile_kind, arithmetic) case id: return operands;
#include "tessera/ops.def"
#undef TSR_OP
    default: return 0;
    }
}
static inline tsr_tile_kind tsr_op_tile_kind(uint32_t op)
{
    switch (op) {
#define TSR_OP(NAME, id, name, operands, tile_kind, arithmetic) case id: return tile_kind;
#include "tessera/ops.def"
#undef TSR_OP
    default: return TSR_TILE_MOVE;
    }
}

/*
 * Whether a vocabulary piece is one the device tokenizer holds: at most `max_length`
 * bytes (TSR_MAX_TOKEN_BYTES, or an image's max_token_length) and no NUL, since the
 * image keeps pieces as C strings. The packer's checkpoint readers and the runtime's
 * image checks both ask this, so the packer writes no piece the runtime refuses.
 */
typedef enum tsr_piece_check {
    TSR_PIECE_OK = 0,
    TSR_PIECE_TOO_LONG = 1,
    TSR_PIECE_HAS_NUL = 2
} tsr_piece_check;

static inline tsr_piece_check tsr_check_token_piece(const char *piece, uint32_t length, uint32_t max_length)
{
    if (length > max_length) return TSR_PIECE_TOO_LONG;
    for (uint32_t i = 0; i < length; ++i)
        if (piece[i] == '\0') return TSR_PIECE_HAS_NUL;
    return TSR_PIECE_OK;
}

/*
 * Bytes of the sampler scratch tensor that let the device tokenizer encode any text
 * whose tokens fit `context`: a token is a piece of at most `max_token_length`
 * bytes, merged from at most that many symbols (code points or fallback bytes), so
 * such a text splits into at most context x max_token_length symbols. Encoding
 * works in this tensor between runs (it holds nothing then); a text that splits
 * into more symbols than the tensor holds is refused as too long for the context.
 */
static inline uint64_t tsr_encode_work_bytes(uint32_t context, uint32_t max_token_length)
{
    return (uint64_t)context * max_token_length * TSR_ENCODE_BYTES_PER_SYMBOL;
}

#ifdef __cplusplus
} /* extern "C" */
static_assert(sizeof(tsr_image_header) == 208, "image header layout");
static_assert(sizeof(tsr_section) == 32, "section layout");
static_assert(sizeof(tsr_tensor) == 40, "tensor layout");
static_assert(sizeof(tsr_step) == 160, "step layout");
static_assert(sizeof(tsr_param_record) == TSR_PARAM_BYTES, "params layout");
static_assert(sizeof(tsr_schedule_header) == 32, "schedule header layout");
static_assert(sizeof(tsr_npu_desc) == 48, "NPU descriptor layout");
static_assert(sizeof(tsr_tokenizer_header) == 32, "tokenizer header layout");
static_assert(sizeof(tsr_bpe_header) == 32, "BPE header layout");
static_assert(sizeof(tsr_bpe_merge) == 16, "BPE merge layout");
static_assert(sizeof(tsr_bpe_class_range) == 12, "character class range layout");
static_assert(sizeof(tsr_token_entry) == 12, "token entry layout");
#endif

#endif /* TESSERA_IMAGE_FORMAT_H */
