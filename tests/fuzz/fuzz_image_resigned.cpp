// Fuzzer (b): the same target behind a structure-aware mutator that signs every
// checksum again after each mutation, so inputs reach the deep checks (placement,
// schedules, tiles, the tokenizer) and the executor.
#include "image_mutator.h"
#include "image_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tessera::fuzz::run_image(data, size);
    return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    return tessera::fuzz::mutate_image(data, size, max_size, seed);
}
