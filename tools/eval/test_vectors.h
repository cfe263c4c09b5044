// tessera-eval's test-vector mode: a decoder-only image run on the inputs of another
// system's test (Deeploy's inputs.npz: hidden state, mask, rotations, each layer's past K
// and V), its outputs in the same names and shapes (outputs.npz: hidden state, then each
// layer's K and V with the new rows), compared with the expected ones.
#ifndef TESSERA_EVAL_TEST_VECTORS_H
#define TESSERA_EVAL_TEST_VECTORS_H

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/tessera.h"
#include "tessera/tools/npz.h"

namespace tessera {

struct VectorRun {
    uint32_t rows = 0, past = 0;        // S and S_past
    const char *mode = "autoregressive"; // or "parallel"
    std::vector<NpyArray> outputs;       // output_0 ...
};

// Throws InputError when the arrays do not match the image (names, shapes, values outside
// int8, a mask that is not causal), std::runtime_error naming the call when the run fails.
VectorRun run_vectors(tessera_session *session, const tessera_image_summary &image, const std::vector<NpyArray> &inputs,
                      const std::string &what);

struct OutputDiff {
    std::string name;
    uint64_t values = 0, differing = 0;
    double max_abs_diff = 0;
};
// Each expected array against the output of its name (shapes must match: InputError).
std::vector<OutputDiff> compare_outputs(const std::vector<NpyArray> &got, const std::vector<NpyArray> &expected,
                                        const std::string &what);

} // namespace tessera

#endif
