#include <string.h>

#include "kernel_checks.h"

tsr_kernel_status tsr_embed_f32(const int32_t *tokens, const float *table, float *out,
                                uint32_t rows, uint32_t dim, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(tokens && table && out && rows && dim);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(rows, core_id, core_count, &begin, &end);
    for (uint32_t r = begin; r < end; ++r)
        memcpy(out + (size_t)r * dim, table + (size_t)(uint32_t)tokens[r] * dim, dim * sizeof(float));
    return TSR_KERNEL_OK;
}
