// What the image fuzzers do with an input: open it as a model image on the fuzz
// board and, when it opens, drive every entry point of the C API a little (encode,
// prompt, sample, step, logits, decode). Refusals must come with a one-line message;
// anything else wrong is a crash the fuzzer reports.
#ifndef TESSERA_FUZZ_IMAGE_TARGET_H
#define TESSERA_FUZZ_IMAGE_TARGET_H

#include <cstddef>
#include <cstdint>

namespace tessera::fuzz {

void run_image(const uint8_t *data, size_t size);

} // namespace tessera::fuzz

#endif
