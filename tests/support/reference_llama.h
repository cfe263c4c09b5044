// A slow, plain, double-precision Llama forward pass written separately from the
// runtime (no shared code), used as the independent reference for its logits.
#ifndef TESSERA_TESTS_REFERENCE_LLAMA_H
#define TESSERA_TESTS_REFERENCE_LLAMA_H

#include <vector>

#include "synthetic_model.h"

namespace tessera::test {

class ReferenceLlama {
public:
    ReferenceLlama(const SyntheticConfig &c, const SyntheticWeights &w);
    // Feeds `token` at the next position; returns the logits.
    std::vector<double> forward(int token);

private:
    SyntheticConfig c_;
    const SyntheticWeights &w_;
    int pos_ = 0;
    std::vector<std::vector<double>> k_cache_, v_cache_; // per layer: positions x kv_dim
};

} // namespace tessera::test

#endif
