#include "sampler.h"

#include <string.h>

#include "tessera/kernels.h"

namespace tsr {
namespace {

struct ProbIndex {
    float prob;
    int32_t index;
};

// Order of the nucleus: higher probability first, then lower index. Candidates
// arrive in index order, so this is what a stable descending sort gives.
bool before(const ProbIndex &a, const ProbIndex &b)
{
    return a.prob > b.prob || (a.prob == b.prob && a.index < b.index);
}

void sift_down(ProbIndex *a, uint32_t root, uint32_t n)
{
    for (;;) {
        uint32_t child = 2u * root + 1u;
        if (child >= n) return;
        if (child + 1u < n && before(a[child], a[child + 1u])) ++child;
        if (!before(a[root], a[child])) return;
        const ProbIndex tmp = a[root];
        a[root] = a[child];
        a[child] = tmp;
        root = child;
    }
}

// In-place heapsort (no heap memory, O(n log n) worst case) into `before` order.
void sort_candidates(ProbIndex *a, uint32_t n)
{
    for (uint32_t i = n / 2u; i-- > 0u;) sift_down(a, i, n);
    for (uint32_t end = n; end > 1u; --end) {
        const ProbIndex tmp = a[0];
        a[0] = a[end - 1u];
        a[end - 1u] = tmp;
        sift_down(a, 0, end - 1u);
    }
}

int32_t sample_mult(const float *probs, uint32_t n, float coin)
{
    float cdf = 0.0f;
    for (uint32_t i = 0; i < n; ++i) {
        cdf += probs[i];
        if (coin < cdf) return (int32_t)i;
    }
    return (int32_t)n - 1;
}

int32_t sample_topp(const float *probs, uint32_t n, float topp, ProbIndex *cand, float coin)
{
    // Tokens below this probability cannot be in the nucleus; dropping them first
    // keeps the sort short.
    const float cutoff = (1.0f - topp) / (float)(n - 1u);
    uint32_t n0 = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (probs[i] >= cutoff) {
            cand[n0].index = (int32_t)i;
            cand[n0].prob = probs[i];
            ++n0;
        }
    }
    if (n0 == 0u) return (int32_t)tsr_argmax_f32(probs, n); // topp below 1/n: only the mode qualifies
    sort_candidates(cand, n0);
    float cumulative = 0.0f;
    uint32_t last = n0 - 1u;
    for (uint32_t i = 0; i < n0; ++i) {
        cumulative += cand[i].prob;
        if (cumulative > topp) {
            last = i;
            break;
        }
    }
    const float r = coin * cumulative;
    float cdf = 0.0f;
    for (uint32_t i = 0; i <= last; ++i) {
        cdf += cand[i].prob;
        if (r < cdf) return cand[i].index;
    }
    return cand[last].index;
}

} // namespace

uint32_t random_u32(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (uint32_t)((*state * 0x2545F4914F6CDD1Dull) >> 32);
}

float random_f32(uint64_t *state) { return (float)(random_u32(state) >> 8) / 16777216.0f; }

int32_t sample_token(tessera_sampler *sampler, const float *logits, uint32_t vocab, float *scratch)
{
    if (sampler->temperature == 0.0f) return (int32_t)tsr_argmax_f32(logits, vocab);
    float *probs = scratch;
    for (uint32_t i = 0; i < vocab; ++i) probs[i] = logits[i] / sampler->temperature;
    tsr_softmax_f32(probs, vocab);
    const float coin = random_f32(&sampler->rng_state);
    if (sampler->topp <= 0.0f || sampler->topp >= 1.0f || vocab < 2u) return sample_mult(probs, vocab, coin);
    return sample_topp(probs, vocab, sampler->topp, reinterpret_cast<ProbIndex *>(scratch + vocab), coin);
}

} // namespace tsr
