// Quantization arithmetic of the packer: symmetric int8 scales, per tensor and per
// output channel, and real factors as the Q31 multiplier and shift the int8 kernels
// requantize with (tessera/kernels_i8.h).
#ifndef TESSERA_MODELS_QUANTIZE_H
#define TESSERA_MODELS_QUANTIZE_H

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/models/op_attributes.h"

namespace tessera {

// The largest magnitude of n values (0 for none).
double absmax(const float *v, size_t n);

// The int8 scale that maps [-absmax, absmax] onto [-127, 127] (a zero range gets 1/127).
double int8_scale(double absmax);

// round(v / scale), saturated to [-127, 127].
int8_t quantize_value(double v, double scale);

// factor = multiplier * 2^(shift - 31), multiplier in [2^30, 2^31) (0 for a factor
// below 2^-32); throws std::range_error naming `what` for a negative factor, NaN, or
// one of 2^30 or more.
tsr_requant_params requant_factor(double factor, const std::string &what);

// Symmetric per-row (output channel) integers of `bits` bits (8: [-127, 127], 4:
// [-7, 7]), held as int8: q[i][j] = round(w[i][j] / scale[i]), scale[i] = absmax of
// row i / qmax.
struct QuantizedRows {
    std::vector<int8_t> q;
    std::vector<float> scales;
};
QuantizedRows quantize_rows(const float *w, uint32_t rows, uint32_t cols, uint32_t bits = 8);

// W4A8's weights (tsr_matmul_w4a8_args, tessera/kernels_i8.h): per row i, groups of 32
// along the columns, each with its scale s_g = absmax / 7 held as an 8-bit multiple
// gs[i][g] = round(s_g / scale[i]) in 1..255 of the row's scale[i] = max_g s_g / 255,
// and each weight round(w / (gs scale[i])) in [-8, 7]. `bytes`: rows of
// tsr_w4_row_bytes(cols), the weights two to a byte (the low nibble first), then the
// group multipliers.
struct W4Rows {
    std::vector<uint8_t> bytes;
    std::vector<float> scales;
};
W4Rows quantize_w4_groups(const float *w, uint32_t rows, uint32_t cols);

} // namespace tessera

#endif
