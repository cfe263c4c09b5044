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

// The inputs as the runtime takes them: rows, rotations, and each layer's past K and V as
// cache rows (position after position, head after head).
struct VectorInputs {
    uint32_t rows = 0, past = 0;         // S and S_past
    std::vector<uint8_t> rows_in, rotations;          // elements of the image's precision (int8 or fp32)
    std::vector<std::vector<uint8_t>> past_rows;      // layer l: [2l] K, [2l + 1] V
};
// Throws InputError when the arrays do not match the image (names, shapes, values outside
// int8, a mask that is not causal).
VectorInputs read_vector_inputs(const tessera_image_summary &image, const std::vector<NpyArray> &inputs, const std::string &what);

// The blob of tessera/test_vectors.h: the inputs and the expected outputs (outputs.npz).
std::string vectors_blob(const tessera_image_summary &image, const VectorInputs &in, const std::vector<NpyArray> &expected,
                         const std::string &what);

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
    double max_abs_expected = 0; // the expected values' largest magnitude (the error's relative size)
};
// Each expected array against the output of its name (shapes must match: InputError); a
// value differs when it is further than `tolerance` from the expected one.
std::vector<OutputDiff> compare_outputs(const std::vector<NpyArray> &got, const std::vector<NpyArray> &expected,
                                        const std::string &what, double tolerance = 0.0);

} // namespace tessera

#endif
