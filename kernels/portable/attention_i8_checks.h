// The ranges the int8 attention arguments document, checked once per call (every version).
#ifndef TESSERA_ATTENTION_I8_CHECKS_H
#define TESSERA_ATTENTION_I8_CHECKS_H

#include "kernel_checks.h"
#include "tessera/kernels_i8.h"

static inline bool tsr_attention_scores_i8_args_ok(const tsr_attention_scores_i8_args *a)
{
    return a && a->q && a->keys && a->scores && a->count && a->head_size && a->head_size <= 1024u &&
           a->q_zero >= -128 && a->q_zero <= 127 && a->k_zero >= -128 && a->k_zero <= 127 &&
           (a->kv_stride == 0u || a->kv_stride >= a->head_size) && tsr_requant_ok(a->multiplier, a->shift);
}

static inline bool tsr_attention_accumulate_i8_args_ok(const tsr_attention_accumulate_i8_args *a)
{
    return a && a->probs && a->values && a->acc && a->count && a->count <= 1024u && a->head_size &&
           a->v_zero >= -128 && a->v_zero <= 127 && (a->kv_stride == 0u || a->kv_stride >= a->head_size);
}

#endif
