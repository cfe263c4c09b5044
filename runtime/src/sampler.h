// Token sampling as run.c does it: greedy, temperature, top-p, xorshift generator.
#ifndef TESSERA_SAMPLER_H
#define TESSERA_SAMPLER_H

#include <stdint.h>

#include "tessera/tessera.h"

namespace tsr {

uint32_t random_u32(uint64_t *state);
float random_f32(uint64_t *state);

// `scratch` holds 3 * vocab words (probabilities, then (prob, index) pairs); the
// logits are only read.
int32_t sample_token(tessera_sampler *sampler, const float *logits, uint32_t vocab, float *scratch);

} // namespace tsr

#endif
