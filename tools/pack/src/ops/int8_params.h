// What the int8 variants' derivations share (OpHost::variants): the scales of a step's
// operands, a weight's per-channel scales, the integer exponential's constants.
#ifndef TESSERA_PACK_OPS_INT8_PARAMS_H
#define TESSERA_PACK_OPS_INT8_PARAMS_H

#include <string>
#include <vector>

#include "tessera/models/graph.h"
#include "tessera/kernels_i8.h"
#include "tessera/models/quantize.h"

namespace tessera {

// The per-tensor scale of step s's operand k: real = scale * q.
double operand_scale(const Graph &g, const GraphStep &s, uint32_t k);
// The per-channel scales of a weight (its quant_params tensor's floats).
std::vector<float> channel_scales(const Graph &g, uint32_t weight);
// A derived constant: added to g, or an identical tensor of the same name already there
// (the other schedule's step derived it: both read one copy).
uint32_t add_constant(Graph &g, GraphTensor t);
// A table of factors as the int8 kernels take them (n Q31 multipliers (int32), then n
// shifts (int8)), a weight tensor named `name` (`what` names the step in errors), added
// as add_constant does.
uint32_t add_requant_table(Graph &g, const std::string &name, const std::vector<double> &factors,
                           const std::string &what);
// A derived constant of one row, `values` as `dtype` (its element type's width), added as
// add_constant does.
template <typename T> uint32_t add_constant_row(Graph &g, const std::string &name, uint32_t dtype, const std::vector<T> &values)
{
    GraphTensor t;
    t.name = name;
    t.dtype = dtype;
    t.kind = TSR_TENSOR_WEIGHT;
    t.rows = 1;
    t.cols = uint32_t(values.size());
    t.bytes = values.size() * sizeof(T);
    t.data = raw_bytes(values);
    return add_constant(g, std::move(t));
}
// The integer exponential's constants for inputs of `scale`; throws std::range_error
// naming `what` outside [2^-11, 16).
tsr_iexp_params iexp_params(double scale, const std::string &what);
// The kernels' form of them.
inline tsr_iexp_constants iexp_constants(const tsr_iexp_params &p) { return tsr_iexp_constants{p.shift, p.ln2, p.b, p.c}; }

} // namespace tessera

#endif
