// What the structure-aware mutators (fuzz_onnx, fuzz_npz) share: libFuzzer's own byte
// mutator, and writing a mutated input back in its place.
#ifndef TESSERA_FUZZ_STRUCTURED_MUTATION_H
#define TESSERA_FUZZ_STRUCTURED_MUTATION_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

namespace tessera::fuzz {

// `mutated` written over the input and its size returned; when there is none (a parse
// or a rebuild failed) or it does not fit, libFuzzer's own mutation of the bytes instead.
inline size_t write_mutation(uint8_t *data, size_t size, size_t max_size, const std::string &mutated)
{
    if (mutated.empty() || mutated.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
    std::memcpy(data, mutated.data(), mutated.size());
    return mutated.size();
}

} // namespace tessera::fuzz

#endif
