#include "int8_params.h"

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

tsr_iexp_params iexp_params(double scale, const std::string &what)
{
    tsr_iexp_constants k;
    if (!tsr_iexp_constants_for(scale, &k))
        throw std::range_error(what + ": scale " + std::to_string(scale) + " outside the integer exponential's [2^-11, 16)");
    return tsr_iexp_params{k.shift, k.ln2, k.b, k.c};
}

} // namespace tessera
