/*
 * Operator variants (the table in tessera/variants.def) as both halves use them: the
 * packer finds a step's row (tsr_variant_find) and writes its id into tsr_step.variant;
 * the runtime checks that the row the step names is the step's (tsr_variant_matches)
 * and runs the kernel its operator registered for it, or refuses the image naming the
 * row when it was built without it.
 */
#ifndef TESSERA_VARIANTS_H
#define TESSERA_VARIANTS_H

#include <stdint.h>

#include "tessera/image_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A matmul's arithmetic: its weights' and its output's element types (each below 16). */
#define TSR_MATMUL_TYPES(weights, out) ((uint32_t)(weights) << 4 | (uint32_t)(out))
/* ... with 4-bit weights in groups (tsr_matmul_params.weight_bits 4). */
#define TSR_MATMUL_W4 0x100u
#define TSR_MATMUL_RQS 0x200u  /* QuantLib's RequantShift (mul, add, shift) instead of Q31 factors */
#define TSR_ROPE_MATRIX 1u     /* the rotation is a head_size^2 matrix per row, a side input */
#define TSR_ADD_RQS 1u         /* QuantLib's RequantShift of each input and of the sum */
#define TSR_MATMUL_BIAS 0x400u /* F32: plus a bias per output channel (QuantLib's float graphs) */
#define TSR_MATMUL_RQS_STAGE 0x800u /* with TSR_MATMUL_RQS: the rounding in the addend (N-EUREKA's stage, tessera/npu.h) */
#define TSR_SWIGLU_HARDSWISH 2u /* swiglu's exp: QuantLib's SiLU, Hardswish (= TSR_NONLINEAR_QUANTLIB for int8) */
#define TSR_EMBED_I8_ROWS 1u    /* embed: per-channel int8 rows, each rescaled to the output's scale */
#define TSR_EMBED_W4_ROWS 2u    /* embed: W4_G32 rows (4-bit, groups of 32), each rescaled */
#define TSR_GELU_TANH 1u        /* gelu: the tanh form (GPT-2's gelu_new); 0 is the exact, erf form */

typedef enum tsr_variant_id {
    TSR_VARIANT_NONE = 0,
#define TSR_VARIANT(NAME, id, name, op, engine, dtype, arithmetic, feature) TSR_VARIANT_##NAME = id,
#include "tessera/variants.def"
#undef TSR_VARIANT
    TSR_VARIANT_ID_END
} tsr_variant_id;

/* What of a step's params, beside its element type, picks its variant (ops.def's
 * arithmetic column). A matmul's types are masked to 4 bits each: a type of 16 or
 * more matches no row, and the operator refuses it by its own check. */
static inline uint32_t tsr_arithmetic_none(const tsr_step *s) { (void)s; return 0u; }
static inline uint32_t tsr_arithmetic_embed(const tsr_step *s) { return s->params.embed.form; }
static inline uint32_t tsr_arithmetic_rope(const tsr_step *s) { return s->params.rope.form; }
static inline uint32_t tsr_arithmetic_add(const tsr_step *s) { return s->params.add.form; }
static inline uint32_t tsr_arithmetic_rmsnorm(const tsr_step *s) { return s->params.rmsnorm.nonlinear; }
static inline uint32_t tsr_arithmetic_attention(const tsr_step *s) { return s->params.attention.exp; }
static inline uint32_t tsr_arithmetic_swiglu(const tsr_step *s) { return s->params.swiglu.exp; }
static inline uint32_t tsr_arithmetic_gelu(const tsr_step *s) { return s->params.gelu.form; }
static inline uint32_t tsr_arithmetic_matmul(const tsr_step *s)
{
    const tsr_matmul_params *p = &s->params.matmul;
    if (p->weight_dtype >= 16u || p->out_dtype >= 16u || (p->weight_bits != 0u && p->weight_bits != 4u))
        return 0xFFFFFFFFu;
    if (p->requant_form > TSR_REQUANT_RQS_STAGE) return 0xFFFFFFFFu;
    return TSR_MATMUL_TYPES(p->weight_dtype, p->out_dtype) | (p->weight_bits == 4u ? TSR_MATMUL_W4 : 0u) |
           (p->requant_form == TSR_REQUANT_RQS || p->requant_form == TSR_REQUANT_RQS_STAGE ? TSR_MATMUL_RQS : 0u) |
           (p->requant_form == TSR_REQUANT_RQS_STAGE ? TSR_MATMUL_RQS_STAGE : 0u) |
           (p->requant_form == TSR_REQUANT_BIAS ? TSR_MATMUL_BIAS : 0u);
}

static inline uint32_t tsr_step_arithmetic(const tsr_step *s)
{
    switch (s->op) {
#define TSR_OP(NAME, id, name, operands, tile_kind, arithmetic) case id: return arithmetic(s);
#include "tessera/ops.def"
#undef TSR_OP
    default: return 0u;
    }
}

/* The row with `id`: its name, operator, engine, element type, arithmetic and feature.
 * Returns 0 for an id that is no row. */
typedef struct tsr_variant_row {
    uint16_t id, op;
    uint8_t engine, dtype;
    uint32_t arithmetic;
    uint32_t feature; /* TSR_FEATURE_* */
    const char *name;
} tsr_variant_row;

static inline int tsr_variant_lookup(uint32_t id, tsr_variant_row *out)
{
    static const tsr_variant_row rows[] = {
#define TSR_VARIANT(NAME, id, name, op, engine, dtype, arithmetic, feature) {id, op, engine, dtype, arithmetic, feature, name},
#include "tessera/variants.def"
#undef TSR_VARIANT
    };
    for (uint32_t i = 0; i < sizeof rows / sizeof rows[0]; ++i)
        if (rows[i].id == id) {
            *out = rows[i];
            return 1;
        }
    return 0;
}

/* Whether row `r` runs step `s`: its operator, its engine (a row of engine 0 moves data
 * on the cluster or the DMA engine), its element type (0: any) and its arithmetic. */
static inline int tsr_variant_matches(const tsr_variant_row *r, const tsr_step *s)
{
    const int engine = r->engine ? s->engine == r->engine
                                 : (s->engine == TSR_ENGINE_CLUSTER || s->engine == TSR_ENGINE_DMA);
    return r->op == s->op && engine && (r->dtype == 0u || r->dtype == s->dtype) &&
           r->arithmetic == tsr_step_arithmetic(s);
}

/* The id of the row that runs step `s` (its variant field aside), or TSR_VARIANT_NONE. */
static inline uint32_t tsr_variant_find(const tsr_step *s)
{
    tsr_variant_row r;
    for (uint32_t id = 1; id < TSR_VARIANT_ID_END; ++id)
        if (tsr_variant_lookup(id, &r) && tsr_variant_matches(&r, s)) return id;
    return TSR_VARIANT_NONE;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_VARIANTS_H */
