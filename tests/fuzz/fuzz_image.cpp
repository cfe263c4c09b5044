// Fuzzer (a): any bytes as a model image, opened and run through the C API on the
// host board. Most inputs die at the checksums; this one guards the outer checks.
#include "image_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tessera::fuzz::run_image(data, size);
    return 0;
}
