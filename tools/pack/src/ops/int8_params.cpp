#include "int8_params.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "tessera/kernels_i8.h"

namespace tessera {

double operand_scale(const Graph &g, const GraphStep &s, uint32_t k)
{
    const GraphTensor &t = g.tensors.at(s.operands[k]);
    if (t.quant != TSR_QUANT_PER_TENSOR)
        throw std::logic_error(s.label + ": operand " + std::to_string(k) + " (" + t.name + ") has no per-tensor scale");
    return t.scale;
}

std::vector<float> channel_scales(const Graph &g, uint32_t weight)
{
    const GraphTensor &w = g.tensors.at(weight);
    if (w.quant != TSR_QUANT_PER_CHANNEL) throw std::logic_error(w.name + " has no per-channel scales");
    const GraphTensor &t = g.tensors.at(w.quant_params);
    std::vector<float> scales(t.data.size() / sizeof(float));
    std::memcpy(scales.data(), t.data.data(), scales.size() * sizeof(float));
    return scales;
}

uint32_t add_requant_table(Graph &g, const std::string &name, const std::vector<double> &factors,
                           const std::string &what)
{
    const uint32_t n = uint32_t(factors.size());
    std::vector<uint8_t> bytes(size_t(n) * 5);
    for (uint32_t i = 0; i < n; ++i) {
        const tsr_requant_params r = requant_factor(factors[i], what);
        std::memcpy(bytes.data() + 4 * size_t(i), &r.multiplier, 4);
        bytes[4 * size_t(n) + i] = uint8_t(int8_t(r.shift));
    }
    GraphTensor t;
    t.name = name;
    t.dtype = TSR_DTYPE_I32;
    t.kind = TSR_TENSOR_WEIGHT;
    t.rows = 1;
    t.cols = (n * 5 + 3) / 4;
    t.bytes = std::max<uint64_t>(bytes.size(), uint64_t(t.cols) * 4u);
    t.data = std::move(bytes);
    return add_constant(g, std::move(t));
}

uint32_t add_constant(Graph &g, GraphTensor t)
{
    for (uint32_t i = 0; i < g.tensors.size(); ++i)
        if (g.tensors[i].name == t.name && g.tensors[i].data == t.data) return i;
    return g.add(std::move(t));
}

tsr_iexp_params iexp_params(double scale, const std::string &what)
{
    tsr_iexp_constants k;
    if (!tsr_iexp_constants_for(scale, &k))
        throw std::range_error(what + ": scale " + std::to_string(scale) + " outside the integer exponential's [2^-11, 16)");
    return tsr_iexp_params{k.shift, k.ln2, k.b, k.c};
}

} // namespace tessera
