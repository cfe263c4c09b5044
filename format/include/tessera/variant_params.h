/*
 * Each variant's parameters, as an image's step holds them (tsr_step.params, a
 * tsr_param_record): the struct its row of tessera/variants.def names (its params column), and
 * nothing else. A struct begins with its operator's shape (what every variant of the
 * operator has, and what its geometry reads: TSR_<OP>_SHAPE), followed by what the
 * variant alone needs. What picks a variant (a form, a non-linearity, an exponential,
 * a matmul's weight and output types) is the variant itself, not a field.
 *
 * Every field is 32 bits, so a struct reads the same on every little-endian target.
 * An operator's device file (runtime/src/ops/<name>.cpp) checks every value it reads;
 * its host file (tools/pack/src/ops/<name>.cpp) writes them.
 *
 * int8 operators requantize by a Q31 multiplier and a shift (tessera/kernels_i8.h);
 * per-channel ones keep theirs in a weight tensor the struct names.
 */
#ifndef TESSERA_VARIANT_PARAMS_H
#define TESSERA_VARIANT_PARAMS_H

#include <stdint.h>

#include "tessera/requant_params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- EMBED: y[r] = table[x[r]] ------------------------------------------------------- */
#define TSR_EMBED_SHAPE uint32_t vocab, dim; /* the table is vocab rows of dim */
typedef struct tsr_embed_shape { TSR_EMBED_SHAPE } tsr_embed_shape;
/* embed: rows of the output's element type copied as they are (I8: the same scale). */
typedef struct tsr_embed_copy_params { TSR_EMBED_SHAPE } tsr_embed_copy_params;
/* embed.i8.rows, embed.i8.w4: per-channel int8 (or W4_G32) rows, each rescaled to the output's
 * scale; requant: an I32 weight tensor of vocab Q31 multipliers (int32) then vocab shifts (int8),
 * row r's scale_w[r] / scale_y. */
typedef struct tsr_embed_rescaled_params { TSR_EMBED_SHAPE uint32_t requant; } tsr_embed_rescaled_params;

/* ---- KV_APPEND: the run's K and V rows into the caches at the run's position --------- */
#define TSR_KV_APPEND_SHAPE uint32_t kv_dim, context;
typedef struct tsr_kv_append_shape { TSR_KV_APPEND_SHAPE } tsr_kv_append_shape;
typedef struct tsr_kv_append_params { TSR_KV_APPEND_SHAPE } tsr_kv_append_params;

/* ---- LAST_ROW: the run's last row of n ----------------------------------------------- */
#define TSR_LAST_ROW_SHAPE uint32_t n;
typedef struct tsr_last_row_shape { TSR_LAST_ROW_SHAPE } tsr_last_row_shape;
typedef struct tsr_last_row_params { TSR_LAST_ROW_SHAPE } tsr_last_row_params;

/* ---- ADD: y = a + b over rows of n ---------------------------------------------------- */
#define TSR_ADD_SHAPE uint32_t n;
typedef struct tsr_add_shape { TSR_ADD_SHAPE } tsr_add_shape;
typedef struct tsr_add_float_params { TSR_ADD_SHAPE } tsr_add_float_params; /* add.f32, add.bf16 */
/* add.i8: each input's factor to the output's scale (scale_a / scale_y, scale_b / scale_y). */
typedef struct tsr_add_i8_params { TSR_ADD_SHAPE tsr_requant_params a, b; } tsr_add_i8_params;
/* add.i8.rqs: y = rqs_y(rqs_a(a) + rqs_b(b)) (QuantLib). */
typedef struct tsr_add_rqs_params { TSR_ADD_SHAPE tsr_rqs_params rqs_a, rqs_b, rqs_y; } tsr_add_rqs_params;

/* ---- RMSNORM: y = weight x / sqrt(mean(x^2) + eps) over rows of dim ------------------ */
#define TSR_RMSNORM_SHAPE uint32_t dim;
typedef struct tsr_rmsnorm_shape { TSR_RMSNORM_SHAPE } tsr_rmsnorm_shape;
typedef struct tsr_rmsnorm_float_params { TSR_RMSNORM_SHAPE float eps; } tsr_rmsnorm_float_params; /* f32, bf16 */
/* rmsnorm.i8.integer (tsr_rmsnorm_i8_args): eps_q8 = round(256 eps / scale_x^2); the gain
 * 16 scale_g / scale_y as a 15-bit multiplier and a shift. */
typedef struct tsr_rmsnorm_i8_params {
    TSR_RMSNORM_SHAPE
    uint32_t eps_q8;
    int32_t gain, gain_shift;
} tsr_rmsnorm_i8_params;
/* rmsnorm.i8.float: eps / scale_x^2 and scale_g / scale_y. */
typedef struct tsr_rmsnorm_i8_float_params { TSR_RMSNORM_SHAPE float eps, out_scale; } tsr_rmsnorm_i8_float_params;
/* rmsnorm.i8.quantlib (iRMSNorm): log2 of D and the output range; the weight is I32. */
typedef struct tsr_rmsnorm_quantlib_params { TSR_RMSNORM_SHAPE int32_t log2_d, lo, hi; } tsr_rmsnorm_quantlib_params;

/* ---- MATMUL: y = x W^T (+ bias) ------------------------------------------------------- */
/* Cluster steps: where the output columns go. split[0] == 0: all n to y (operand 2;
 * operands 3 and 4 name no tensor). Else the first split[0] to operand 2, the next
 * split[1] to operand 3 and the rest to operand 4 (split[1] == 0: the rest to operand
 * 3, operand 4 names no tensor): one step for the matmuls that read the same input
 * (Q, K and V; W1 and W3), each output its own rows x columns tensor in L1. NPU steps: 0. */
#define TSR_MATMUL_SHAPE uint32_t k, n; uint32_t split[2];
typedef struct tsr_matmul_shape { TSR_MATMUL_SHAPE } tsr_matmul_shape;
/* matmul.f32, .f32.w16, .bf16, .bf16.f32out: the weight and output types are the row's. */
typedef struct tsr_matmul_float_params { TSR_MATMUL_SHAPE } tsr_matmul_float_params;
/* matmul.f32.bias, .bf16.bias: bias, the F32 weight tensor of n biases, added before the
 * output's rounding. */
typedef struct tsr_matmul_bias_params { TSR_MATMUL_SHAPE uint32_t bias; } tsr_matmul_bias_params;
/* matmul.i8, .i8.w4 (I8 out): requant, the I32 weight tensor of n Q31 multipliers (int32) then n
 * shifts (int8); .i8.f32out, .i8.w4.f32out: the F32 one of n dequantization factors. */
typedef struct tsr_matmul_i8_params { TSR_MATMUL_SHAPE uint32_t requant; } tsr_matmul_i8_params;
/* matmul.i8.rqs (QuantLib's RequantShift): requant, the I32 weight tensor of n multipliers then
 * n addends (the bias folded in), with one shift and the output range. */
typedef struct tsr_matmul_rqs_params {
    TSR_MATMUL_SHAPE
    uint32_t requant;
    int32_t rqs_shift, rqs_lo, rqs_hi;
} tsr_matmul_rqs_params;
/* NPU steps: requant as the cluster's; npu_desc, the step's descriptor in the NPU_JOBS
 * section; join, for weights in NMS the index of the step (of the same schedule) before which
 * the job must be done, the first that uses its output (0: done before the next step). */
#define TSR_MATMUL_NPU_HEAD TSR_MATMUL_SHAPE uint32_t requant, npu_desc, join;
/* matmul.i8.npu: requant as matmul.i8's. */
typedef struct tsr_matmul_npu_params { TSR_MATMUL_NPU_HEAD } tsr_matmul_npu_params;
/* matmul.i8.rqs.npu: RequantShift as matmul.i8.rqs's; matmul.i8.rqs.stage.npu the same with the
 * rounding 2^(rqs_shift-1) in the addends, rqs_shift <= 31, as N-EUREKA's stage takes it. Both
 * begin as tsr_matmul_npu_params. */
typedef struct tsr_matmul_rqs_npu_params {
    TSR_MATMUL_NPU_HEAD
    int32_t rqs_shift, rqs_lo, rqs_hi;
} tsr_matmul_rqs_npu_params;

/* ---- ROPE: each head's pairs of q and k rotated by the position's angles -------------- */
#define TSR_ROPE_SHAPE uint32_t dim, kv_dim, head_size, context;
typedef struct tsr_rope_shape { TSR_ROPE_SHAPE } tsr_rope_shape;
/* rope.f32, .bf16, .i8 (the table I16 {cos, sin} in Q14), .f32.matrix (each head times its
 * row's head_size x head_size matrix, a side input). */
typedef struct tsr_rope_params { TSR_ROPE_SHAPE } tsr_rope_params;
/* rope.i8.matrix: the same, q and k then requantized (QuantLib). */
typedef struct tsr_rope_matrix_i8_params { TSR_ROPE_SHAPE tsr_rqs_params q, k; } tsr_rope_matrix_i8_params;

/* ---- REQUANT: y = RequantShift(x), element-wise, scalar constants --------------------- */
#define TSR_REQUANT_SHAPE uint32_t n;
typedef struct tsr_requant_shape { TSR_REQUANT_SHAPE } tsr_requant_shape;
typedef struct tsr_requant_i8_params { TSR_REQUANT_SHAPE tsr_rqs_params rqs; } tsr_requant_i8_params;

/* ---- ATTENTION: softmax(q k^T [/ sqrt(head_size)]) v per head over the cached positions */
/* kv_layout: its caches' tsr_layout, ROW_MAJOR (0) or KV_HEAD_MAJOR; window: a row sees only
 * the last `window` positions, its own included (GPT-Neo's local attention); 0: every earlier
 * one. */
#define TSR_ATTENTION_SHAPE uint32_t n_heads, n_kv_heads, head_size, context, kv_layout, window;
typedef struct tsr_attention_shape { TSR_ATTENTION_SHAPE } tsr_attention_shape;
/* attention.f32, .bf16.accurate, .bf16.schraudolph (the exponential is the row's). */
typedef struct tsr_attention_float_params { TSR_ATTENTION_SHAPE } tsr_attention_float_params;
/* attention.i8.integer: scores, scale_q scale_k / (sqrt(head_size) scale_scores); softmax, the
 * integer exponential for scale_scores; out, scale_v / (4096 scale_out); exps, the I32 tensor of
 * its softmax's exponentials, u = max - score at u (tsr_softmax_i8_exp_table). */
typedef struct tsr_attention_i8_params {
    TSR_ATTENTION_SHAPE
    tsr_requant_params scores;
    tsr_iexp_params softmax;
    tsr_requant_params out;
    uint32_t exps;
} tsr_attention_i8_params;
/* attention.i8.float: scale_q scale_k / sqrt(head_size) and scale_v / scale_out. */
typedef struct tsr_attention_i8_float_params {
    TSR_ATTENTION_SHAPE
    float score_scale, out_scale;
} tsr_attention_i8_float_params;
/* attention.i8.quantlib: tables, the I32 tensor of its constants (tsr_quantlib_attention). */
typedef struct tsr_attention_quantlib_params { TSR_ATTENTION_SHAPE uint32_t tables; } tsr_attention_quantlib_params;

/* ---- SWIGLU: y = act(gate) up over rows of n ------------------------------------------ */
#define TSR_SWIGLU_SHAPE uint32_t n;
typedef struct tsr_swiglu_shape { TSR_SWIGLU_SHAPE } tsr_swiglu_shape;
/* swiglu.f32, .bf16.accurate, .bf16.schraudolph, .f32.hardswish. */
typedef struct tsr_swiglu_float_params { TSR_SWIGLU_SHAPE } tsr_swiglu_float_params;
/* swiglu.i8.integer: sigmoid, the integer exponential for scale_gate; out, scale_gate scale_up /
 * (16 scale_y); silu, the I16 tensor of silu16 for each gate value v, at v + 128
 * (tsr_swiglu_i8_silu_table). */
typedef struct tsr_swiglu_i8_params {
    TSR_SWIGLU_SHAPE
    tsr_iexp_params sigmoid;
    tsr_requant_params out;
    uint32_t silu;
} tsr_swiglu_i8_params;
/* swiglu.i8.float: scale_gate and scale_gate scale_up / scale_y. */
typedef struct tsr_swiglu_i8_float_params { TSR_SWIGLU_SHAPE float gate_scale, out_scale; } tsr_swiglu_i8_float_params;
/* swiglu.i8.hardswish (QuantLib's iHardswish): y = rqs_y(rqs_act(g clamp(g + three, 0, six)
 * one_over_six) up). */
typedef struct tsr_swiglu_hardswish_params {
    TSR_SWIGLU_SHAPE
    int32_t three, six, one_over_six;
    tsr_rqs_params rqs_act, rqs_y;
} tsr_swiglu_hardswish_params;

/* ---- LAYERNORM: y = weight (x - mean) / sqrt(var + eps) + bias over rows of dim -------- */
#define TSR_LAYERNORM_SHAPE uint32_t dim;
typedef struct tsr_layernorm_shape { TSR_LAYERNORM_SHAPE } tsr_layernorm_shape;
typedef struct tsr_layernorm_float_params { TSR_LAYERNORM_SHAPE float eps; } tsr_layernorm_float_params; /* f32, bf16 */
/* layernorm.i8 (tsr_layernorm_i8, integers only): eps_q16 = round(65536 eps / scale_x^2), the
 * variance's units; out, scale_g / (256 scale_y). The weight is I16 of scale scale_g, the bias
 * I32 of scale scale_g / 256. */
typedef struct tsr_layernorm_i8_params {
    TSR_LAYERNORM_SHAPE
    uint32_t eps_q16;
    tsr_requant_params out;
} tsr_layernorm_i8_params;

/* ---- GELU: y = GELU(x) over rows of n (the exact or the tanh form: the row's) --------- */
#define TSR_GELU_SHAPE uint32_t n;
typedef struct tsr_gelu_shape { TSR_GELU_SHAPE } tsr_gelu_shape;
typedef struct tsr_gelu_float_params { TSR_GELU_SHAPE } tsr_gelu_float_params; /* f32, bf16 */
/* gelu.i8.tanh, gelu.i8.erf: table, the I8 tensor of GELU's 256 outputs, input v at v + 128, at
 * the output's scale (the host computes it for the input's scale: tsr_lut_i8). */
typedef struct tsr_gelu_i8_params { TSR_GELU_SHAPE uint32_t table; } tsr_gelu_i8_params;

/* ---- POSITIONS: y[r] = x[r] + table[pos + r], a learned absolute position embedding ---- */
/* positions: rows of the table, every position a run may have. */
#define TSR_POSITIONS_SHAPE uint32_t dim, positions;
typedef struct tsr_positions_shape { TSR_POSITIONS_SHAPE } tsr_positions_shape;
typedef struct tsr_positions_float_params { TSR_POSITIONS_SHAPE } tsr_positions_float_params; /* f32, bf16 */
/* positions.i8 (the table per tensor): scale_x / scale_y and scale_table / scale_y. */
typedef struct tsr_positions_i8_params { TSR_POSITIONS_SHAPE tsr_requant_params a, b; } tsr_positions_i8_params;

/* ---- The record a step holds ---------------------------------------------------------- */
#define TSR_PARAM_BYTES 96u /* a record: its tag and length, then at most TSR_PARAM_DATA_BYTES */
#define TSR_PARAM_DATA_BYTES (TSR_PARAM_BYTES - 4u)

/* A step's parameters: the struct of `variant` (its row of tessera/variants.def), `bytes` long,
 * then zeros. The runtime refuses a record whose variant is not the step's, whose length
 * is not that struct's, or whose remaining bytes are not zero. */
typedef struct tsr_param_record {
    uint16_t variant; /* tsr_variant_id, the step's */
    uint16_t bytes;   /* sizeof its struct */
    uint32_t data[TSR_PARAM_DATA_BYTES / 4u];
} tsr_param_record;

/* The bytes of variant `id`'s struct, or 0 for an id that is no row. */
static inline uint32_t tsr_variant_params_bytes(uint32_t id)
{
    switch (id) {
#define TSR_VARIANT(NAME, id_, name, op, engine, dtype, arithmetic, feature, type) case id_: return (uint32_t)sizeof(type);
#include "tessera/variants.def"
#undef TSR_VARIANT
    default: return 0u;
    }
}

#ifdef __cplusplus
} /* extern "C" */

/* The struct of variant V (C++): tsr_variant_params_t<TSR_VARIANT_X>. */
template <unsigned V> struct tsr_variant_params_of;
#define TSR_VARIANT(NAME, id_, name, op, engine, dtype, arithmetic, feature, type) \
    template <> struct tsr_variant_params_of<id_> { typedef type type_; };
#include "tessera/variants.def"
#undef TSR_VARIANT
template <unsigned V> using tsr_variant_params_t = typename tsr_variant_params_of<V>::type_;

#define TSR_VARIANT(NAME, id_, name, op, engine, dtype, arithmetic, feature, type) \
    static_assert(sizeof(type) <= TSR_PARAM_DATA_BYTES && sizeof(type) % 4u == 0u, #type " fits a record");
#include "tessera/variants.def"
#undef TSR_VARIANT
#endif

#endif /* TESSERA_VARIANT_PARAMS_H */
