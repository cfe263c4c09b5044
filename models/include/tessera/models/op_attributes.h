/*
 * The attributes of each operator as the model layer and the packer describe a step
 * (GraphStep.params, the member named after its op): everything any of its variants
 * needs, host-side only. The image holds none of this: the packer encodes each step's
 * variant's own parameters (tessera/variant_params.h) from it, in the operator's host
 * file (tools/pack/src/ops/<name>.cpp), and the fields that pick the variant (a form, a
 * non-linearity, an exponential, a matmul's types) become the variant itself.
 */
#ifndef TESSERA_MODELS_OP_ATTRIBUTES_H
#define TESSERA_MODELS_OP_ATTRIBUTES_H

#include <stdint.h>

#include "tessera/variants.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsr_embed_attrs {
    uint32_t vocab, dim; /* form 0: the table is vocab x dim of the output's element type */
    uint32_t form;       /* 0: rows copied as they are; I8 steps reading a per-channel table
                          * (an int8 classifier's, shared): TSR_EMBED_I8_ROWS (int8 rows) or
                          * TSR_EMBED_W4_ROWS (W4_G32 rows), each rescaled to the output's scale */
    uint32_t requant;    /* the rescaled forms: an I32 weight tensor of vocab Q31 multipliers
                          * (int32) then vocab shifts (int8), row r's scale_w[r] / scale_x */
} tsr_embed_attrs;

typedef struct tsr_rmsnorm_attrs {
    uint32_t dim;
    uint32_t nonlinear;   /* I8: tsr_nonlinear */
    float eps;            /* F32, BF16: eps; I8 float variant: eps / scale_x^2 */
    float out_scale;      /* I8 float variant: scale_g / scale_y */
    uint32_t eps_q8;      /* I8 integer variant: round(256 eps / scale_x^2) */
    int32_t gain;         /* I8 integer variant (tsr_rmsnorm_i8_args) */
    int32_t gain_shift;
    int32_t log2_d;       /* I8 QuantLib variant (iRMSNorm): log2 of D; the weight is I32 */
    int32_t lo, hi;       /* I8 QuantLib variant: the output range */
} tsr_rmsnorm_attrs;

/* What a matmul's `requant` tensor is (tsr_matmul_attrs.requant_form). */
typedef enum tsr_requant_form {
    TSR_REQUANT_Q31 = 0,       /* I8 out: n Q31 multipliers (int32), then n shifts (int8); F32 out: n factors */
    TSR_REQUANT_RQS = 1,       /* I8: QuantLib's RequantShift, n multipliers then n addends (int32) */
    TSR_REQUANT_BIAS = 2,      /* F32, BF16: n biases (F32), added before the output's rounding */
    TSR_REQUANT_RQS_STAGE = 3  /* NPU: RequantShift with the rounding in its addends (N-EUREKA's stage) */
} tsr_requant_form;

typedef struct tsr_matmul_attrs {
    uint32_t k, n;
    uint32_t weight_dtype; /* F32 or BF16 with F32 activations; BF16 with BF16 ones; I8 with I8 ones */
    uint32_t out_dtype;    /* the activations' type, or F32 (the logits) */
    uint32_t requant;      /* I8: the I32 weight tensor of n multipliers (int32) then n shifts (int8) (I8 output),
                              or the F32 one of n dequantization factors (F32 output) */
    uint32_t npu_desc;     /* NPU steps: the step's descriptor in the NPU_JOBS section */
    uint32_t join;         /* NPU steps with weights in NMS: the index of the step (of the same schedule) before
                              which the job must be done, the first that uses its output; others: unused */
    uint32_t weight_bits;  /* I8 cluster steps: 4 for W4A8 (weights in layout W4_G32), else 0 */
    uint32_t requant_form; /* tsr_requant_form. I8 out: Q31 (requant as above); RQS, QuantLib's RequantShift:
                              requant is the I32 tensor of n multipliers then n addends (the bias folded in), with
                              the shift and output range below; RQS_STAGE (NPU steps) the same with the rounding
                              2^(rqs_shift-1) in the addends, rqs_shift <= 31, as N-EUREKA's stage takes it
                              (TSR_NPU_GEMM_I8_RQS_STAGE). F32, BF16: BIAS, requant the F32 tensor of n biases */
    int32_t rqs_shift, rqs_lo, rqs_hi;
    /* Cluster steps: where the output columns go. split[0] == 0: all n to y (operand 2;
       operands 3 and 4 name no tensor). Else the first split[0] to operand 2, the next
       split[1] to operand 3 and the rest to operand 4 (split[1] == 0: the rest to operand
       3, operand 4 names no tensor): one step for the matmuls that read the same input
       (Q, K and V; W1 and W3), each output its own rows x columns tensor in L1. */
    uint32_t split[2];
} tsr_matmul_attrs;

typedef struct tsr_rope_attrs {
    uint32_t dim, kv_dim, head_size, context; /* I8: the table is I16 {cos, sin} in Q14 */
    uint32_t form;           /* 0: pairs rotated by the table's angles; TSR_ROPE_MATRIX: each head times
                                its row's head_size x head_size I8 matrix (a side input), then requantized */
    tsr_rqs_params q, k;     /* TSR_ROPE_MATRIX */
} tsr_rope_attrs;

/* REQUANT: y = RequantShift(x), element-wise, scalar constants. */
typedef struct tsr_requant_step_attrs {
    uint32_t n;
    tsr_rqs_params rqs;
} tsr_requant_step_attrs;

typedef struct tsr_kv_append_attrs {
    uint32_t kv_dim, context;
} tsr_kv_append_attrs;

typedef struct tsr_attention_attrs {
    uint32_t n_heads, n_kv_heads, head_size, context;
    uint32_t exp;                  /* BF16: tsr_exp_kind; I8: tsr_nonlinear */
    tsr_requant_params scores;     /* I8 integer: scale_q scale_k / (sqrt(head_size) scale_scores) */
    tsr_iexp_params softmax;       /* I8 integer: for scale_scores */
    tsr_requant_params out;        /* I8 integer: scale_v / (4096 scale_out) */
    float score_scale;             /* I8 float: scale_q scale_k / sqrt(head_size) */
    float out_scale;               /* I8 float: scale_v / scale_out */
    uint32_t tables;               /* I8 QuantLib: the I32 tensor of its constants (tsr_quantlib_attention) */
    uint32_t kv_layout;            /* its caches' tsr_layout: ROW_MAJOR (0) or KV_HEAD_MAJOR */
    uint32_t exps;                 /* I8 integer: the I32 tensor of its softmax's exponentials, u = max - score
                                      at u (tsr_softmax_i8_exp_table) */
    uint32_t window;               /* F32, BF16, I8 integer and float: a row sees only the last `window`
                                      positions, its own included (GPT-Neo's local attention); 0: every
                                      earlier one */
} tsr_attention_attrs;

typedef struct tsr_add_attrs {
    uint32_t n;
    tsr_requant_params a, b;       /* I8: scale_a / scale_y and scale_b / scale_y */
    uint32_t form;                 /* I8: 0 Q31 factors; TSR_ADD_RQS: y = rqs_y(rqs_a(a) + rqs_b(b)) */
    tsr_rqs_params rqs_a, rqs_b, rqs_y;
} tsr_add_attrs;

typedef struct tsr_swiglu_attrs {
    uint32_t n;
    uint32_t exp;                  /* BF16: tsr_exp_kind; I8: tsr_nonlinear */
    tsr_iexp_params sigmoid;       /* I8 integer: for scale_gate */
    tsr_requant_params out;        /* I8 integer: scale_gate scale_up / (16 scale_y) */
    float gate_scale;              /* I8 float: scale_gate */
    float out_scale;               /* I8 float: scale_gate scale_up / scale_y */
    int32_t three, six, one_over_six; /* I8 QuantLib (iHardswish): y = rqs_y(rqs_act(g clamp(g + three, 0, six)
                                         one_over_six) up) */
    tsr_rqs_params rqs_act, rqs_y;
    uint32_t silu;                 /* I8 integer: the I16 tensor of silu16 for each gate value v, at v + 128
                                      (tsr_swiglu_i8_silu_table) */
} tsr_swiglu_attrs;

typedef struct tsr_last_row_attrs {
    uint32_t n;
} tsr_last_row_attrs;

/* LAYERNORM: y = weight (x - mean) / sqrt(var + eps) + bias over each row of dim.
 * I8 (tsr_layernorm_i8, integers only): the weight is I16 of scale scale_g, the bias I32
 * of scale scale_g / 256. */
typedef struct tsr_layernorm_attrs {
    uint32_t dim;
    float eps;              /* F32, BF16: eps, positive (I8: the model's, unused) */
    uint32_t eps_q16;       /* I8: round(65536 eps / scale_x^2), the variance's units */
    tsr_requant_params out; /* I8: scale_g / (256 scale_y) */
} tsr_layernorm_attrs;

/* GELU: y = GELU(x) over each row of n. */
typedef struct tsr_gelu_attrs {
    uint32_t n;
    uint32_t form;  /* 0 exact (erf); TSR_GELU_TANH the tanh approximation */
    uint32_t table; /* I8: the I8 tensor of GELU's 256 outputs, input v at v + 128, at the
                       output's scale (the host computes it for the input's scale: tsr_lut_i8) */
} tsr_gelu_attrs;

/* POSITIONS: y[r] = x[r] + table[pos + r], a learned absolute position embedding added to
 * the run's rows (pos: the run's first position). */
typedef struct tsr_positions_attrs {
    uint32_t dim;
    uint32_t positions;     /* rows of the table: every position a run may have */
    tsr_requant_params a, b; /* I8 (the table per tensor): scale_x / scale_y, scale_table / scale_y */
} tsr_positions_attrs;

typedef struct tsr_op_attrs {
    tsr_embed_attrs embed;
    tsr_rmsnorm_attrs rmsnorm;
    tsr_matmul_attrs matmul;
    tsr_rope_attrs rope;
    tsr_kv_append_attrs kv_append;
    tsr_attention_attrs attention;
    tsr_add_attrs add;
    tsr_swiglu_attrs swiglu;
    tsr_last_row_attrs last_row;
    tsr_requant_step_attrs requant;
    tsr_layernorm_attrs layernorm;
    tsr_gelu_attrs gelu;
    tsr_positions_attrs positions;
} tsr_op_attrs;


/* What of a step's attributes, beside its element type, picks its variant (ops.def's
 * arithmetic column; the packer's, the image holds the variant). A matmul's types are
 * masked to 4 bits each: a type of 16 or more matches no row. */
static inline uint32_t tsr_arithmetic_none(const tsr_op_attrs *a) { (void)a; return 0u; }
static inline uint32_t tsr_arithmetic_embed(const tsr_op_attrs *a) { return a->embed.form; }
static inline uint32_t tsr_arithmetic_rope(const tsr_op_attrs *a) { return a->rope.form; }
static inline uint32_t tsr_arithmetic_add(const tsr_op_attrs *a) { return a->add.form; }
static inline uint32_t tsr_arithmetic_rmsnorm(const tsr_op_attrs *a) { return a->rmsnorm.nonlinear; }
static inline uint32_t tsr_arithmetic_attention(const tsr_op_attrs *a) { return a->attention.exp; }
static inline uint32_t tsr_arithmetic_swiglu(const tsr_op_attrs *a) { return a->swiglu.exp; }
static inline uint32_t tsr_arithmetic_gelu(const tsr_op_attrs *a) { return a->gelu.form; }
static inline uint32_t tsr_arithmetic_matmul(const tsr_op_attrs *a)
{
    const tsr_matmul_attrs *p = &a->matmul;
    if (p->weight_dtype >= 16u || p->out_dtype >= 16u || (p->weight_bits != 0u && p->weight_bits != 4u))
        return 0xFFFFFFFFu;
    if (p->requant_form > TSR_REQUANT_RQS_STAGE) return 0xFFFFFFFFu;
    return TSR_MATMUL_TYPES(p->weight_dtype, p->out_dtype) | (p->weight_bits == 4u ? TSR_MATMUL_W4 : 0u) |
           (p->requant_form == TSR_REQUANT_RQS || p->requant_form == TSR_REQUANT_RQS_STAGE ? TSR_MATMUL_RQS : 0u) |
           (p->requant_form == TSR_REQUANT_RQS_STAGE ? TSR_MATMUL_RQS_STAGE : 0u) |
           (p->requant_form == TSR_REQUANT_BIAS ? TSR_MATMUL_BIAS : 0u);
}

static inline uint32_t tsr_attrs_arithmetic(uint32_t op, const tsr_op_attrs *a)
{
    switch (op) {
#define TSR_OP(NAME, id, name, operands, tile_kind, arithmetic) case id: return arithmetic(a);
#include "tessera/ops.def"
#undef TSR_OP
    default: return 0u;
    }
}

/* The id of the row that runs a step of operator `op` on `engine` with activations of
 * `dtype` and these attributes, or TSR_VARIANT_NONE. */
static inline uint32_t tsr_variant_find_attrs(uint32_t op, uint32_t engine, uint32_t dtype, const tsr_op_attrs *a)
{
    tsr_step s;
    tsr_variant_row r;
    s.op = (uint16_t)op, s.engine = (uint8_t)engine, s.dtype = (uint8_t)dtype;
    const uint32_t arithmetic = tsr_attrs_arithmetic(op, a);
    for (uint32_t id = 1; id < TSR_VARIANT_ID_END; ++id)
        if (tsr_variant_lookup(id, &r) && tsr_variant_matches(&r, &s) && r.arithmetic == arithmetic) return id;
    return TSR_VARIANT_NONE;
}

#ifdef __cplusplus
}
#endif

#endif
