#include "tessera/models/quantize.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tessera {

double absmax(const float *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(double(v[i])));
    return m;
}

double int8_scale(double a) { return a > 0 ? a / 127.0 : 1.0 / 127.0; }

int8_t quantize_value(double v, double scale)
{
    const double q = std::round(v / scale);
    return int8_t(q < -127 ? -127 : q > 127 ? 127 : q);
}

tsr_requant_params requant_factor(double factor, const std::string &what)
{
    if (!(factor >= 0) || factor >= 1073741824.0)
        throw std::range_error(what + ": requantization factor " + std::to_string(factor) + " outside [0, 2^30)");
    if (factor < std::ldexp(1.0, -32)) return tsr_requant_params{0, 0};
    int e = 0;
    const double f = std::frexp(factor, &e); // factor = f 2^e, f in [0.5, 1)
    int64_t m = std::llround(std::ldexp(f, 31));
    if (m == (int64_t(1) << 31)) m >>= 1, ++e;
    if (e < -31) return tsr_requant_params{0, 0};
    return tsr_requant_params{int32_t(m), e};
}

QuantizedRows quantize_rows(const float *w, uint32_t rows, uint32_t cols, uint32_t bits)
{
    if (bits < 2 || bits > 8) throw std::invalid_argument("quantize_rows: 2..8 bits");
    const double qmax = double((1 << (bits - 1)) - 1);
    QuantizedRows out;
    out.q.resize(size_t(rows) * cols);
    out.scales.resize(rows);
    for (uint32_t i = 0; i < rows; ++i) {
        const float *row = w + size_t(i) * cols;
        const double a = absmax(row, cols), s = a > 0 ? a / qmax : 1.0 / qmax;
        out.scales[i] = float(s);
        for (uint32_t j = 0; j < cols; ++j) {
            const double q = std::round(row[j] / s);
            out.q[size_t(i) * cols + j] = int8_t(q < -qmax ? -qmax : q > qmax ? qmax : q);
        }
    }
    return out;
}

W4Rows quantize_w4_groups(const float *w, uint32_t rows, uint32_t cols)
{
    const uint32_t half = (cols + 1) / 2, groups = (cols + 31) / 32, stride = half + groups;
    W4Rows out;
    out.bytes.assign(size_t(rows) * stride, 0);
    out.scales.resize(rows);
    for (uint32_t i = 0; i < rows; ++i) {
        const float *row = w + size_t(i) * cols;
        uint8_t *dst = out.bytes.data() + size_t(i) * stride;
        std::vector<double> group_scale(groups);
        double top = 0;
        for (uint32_t g = 0; g < groups; ++g) {
            const uint32_t n = std::min(32u, cols - 32 * g);
            group_scale[g] = absmax(row + 32 * g, n) / 7.0;
            top = std::max(top, group_scale[g]);
        }
        const double s = top > 0 ? top / 255.0 : 1.0 / (7.0 * 255.0);
        out.scales[i] = float(s);
        for (uint32_t g = 0; g < groups; ++g) {
            const double m = std::round(group_scale[g] / s);
            const uint8_t gs = uint8_t(m < 1 ? 1 : m > 255 ? 255 : m);
            dst[half + g] = gs;
            const double step = double(gs) * double(out.scales[i]); // as the kernel will see it
            for (uint32_t j = 32 * g; j < cols && j < 32 * g + 32; ++j) {
                const double q = std::round(row[j] / step);
                const int v = int(q < -8 ? -8 : q > 7 ? 7 : q);
                dst[j / 2] |= uint8_t((v & 15) << ((j & 1) * 4));
            }
        }
    }
    return out;
}

} // namespace tessera
