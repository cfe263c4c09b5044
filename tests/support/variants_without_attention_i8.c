/* A variant list as a firmware links it (tessera/variant_registry.h): every fp32 and
 * integer int8 variant but attention.i8.integer, for variant_registry_test. */
#include "tessera/variant_registry.h"

const struct tsr_variant_impl *const tsr_variants[] = {
    &TSR_VARIANT_IMPL(EMBED),       &TSR_VARIANT_IMPL(KV_APPEND),   &TSR_VARIANT_IMPL(LAST_ROW),
    &TSR_VARIANT_IMPL(ADD_F32),     &TSR_VARIANT_IMPL(RMSNORM_F32), &TSR_VARIANT_IMPL(ROPE_F32),
    &TSR_VARIANT_IMPL(SWIGLU_F32),  &TSR_VARIANT_IMPL(ATTENTION_F32), &TSR_VARIANT_IMPL(MATMUL_F32),
    &TSR_VARIANT_IMPL(ADD_I8),      &TSR_VARIANT_IMPL(RMSNORM_I8),  &TSR_VARIANT_IMPL(ROPE_I8),
    &TSR_VARIANT_IMPL(SWIGLU_I8),   &TSR_VARIANT_IMPL(MATMUL_I8),   &TSR_VARIANT_IMPL(MATMUL_I8_F32_OUT),
};
const uint32_t tsr_variant_count = sizeof tsr_variants / sizeof tsr_variants[0];
