/*
 * Operator variants (the table in tessera/variants.def) as both halves use them: the
 * packer finds a step's row from its attributes (tsr_variant_find_attrs,
 * tessera/models/op_attributes.h), writes its id into tsr_step.variant and its struct
 * into tsr_step.params; the runtime checks that the row the step names is the step's
 * (tsr_variant_matches), that the record is that row's struct (tsr_params_fit), and runs
 * the kernel its operator registered for it, or refuses the image naming the row when
 * it was built without it.
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
#define TSR_VARIANT(NAME, id, name, op, engine, dtype, arithmetic, feature, params) TSR_VARIANT_##NAME = id,
#include "tessera/variants.def"
#undef TSR_VARIANT
    TSR_VARIANT_ID_END
} tsr_variant_id;

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
#define TSR_VARIANT(NAME, id, name, op, engine, dtype, arithmetic, feature, params) {id, op, engine, dtype, arithmetic, feature, name},
#include "tessera/variants.def"
#undef TSR_VARIANT
    };
    const uint32_t count = (uint32_t)(sizeof rows / sizeof rows[0]);
    if (id - 1u < count && rows[id - 1u].id == id) { /* the table's ids run 1, 2, ...: the row at id - 1 */
        *out = rows[id - 1u];
        return 1;
    }
    for (uint32_t i = 0; i < count; ++i)
        if (rows[i].id == id) {
            *out = rows[i];
            return 1;
        }
    return 0;
}

/* Whether row `r` runs step `s`: its operator, its engine (a row of engine 0 moves data
 * on the cluster or the DMA engine) and its element type (0: any). What else tells the
 * rows of one operator apart is the row itself: the step's parameters are its struct
 * (tsr_params_fit). */
static inline int tsr_variant_matches(const tsr_variant_row *r, const tsr_step *s)
{
    const int engine = r->engine ? s->engine == r->engine
                                 : (s->engine == TSR_ENGINE_CLUSTER || s->engine == TSR_ENGINE_DMA);
    return r->op == s->op && engine && (r->dtype == 0u || r->dtype == s->dtype);
}

/* Whether step `s`'s parameter record is its variant's: tagged with the step's variant,
 * as long as that variant's struct, and zero after it. */
static inline int tsr_params_fit(const tsr_step *s)
{
    const uint32_t bytes = tsr_variant_params_bytes(s->variant);
    if (bytes == 0u || s->params.variant != s->variant || s->params.bytes != bytes) return 0;
    for (uint32_t i = bytes / 4u; i < TSR_PARAM_DATA_BYTES / 4u; ++i)
        if (s->params.data[i] != 0u) return 0;
    return 1;
}

#ifdef __cplusplus
} /* extern "C" */

/* A step's record as struct T: its variant's (tsr_variant_params_t), or its operator's
 * shape (tsr_<op>_shape, the first fields of every struct of the operator). The runtime
 * reads a record after tsr_params_fit held at open. */
template <class T> inline const T &tsr_params_as(const tsr_step &s)
{
    static_assert(sizeof(T) <= TSR_PARAM_DATA_BYTES, "a struct a record holds");
    return *reinterpret_cast<const T *>(s.params.data);
}
#endif

#endif /* TESSERA_VARIANTS_H */
