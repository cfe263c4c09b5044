// swiglu on the host: tiles of rows; its traffic is its geometry's.
#include <cstring>

#include "shapes.h"
#include "tessera/variants.h"
#include "int8_params.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    tsr_swiglu_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), s.params.swiglu.n, 0, 1);
}

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * s.params.swiglu.n, -1}; }

// int8, integer arithmetic: the integer sigmoid for the gate's scale, the output factor
// (the sigmoid in Q4 of the product's scale).
void derive_i8(GraphStep &s, Graph &g)
{
    const double sg = operand_scale(g, s, 0), su = operand_scale(g, s, 1), sy = operand_scale(g, s, 2);
    s.params.swiglu.sigmoid = iexp_params(sg, s.label + " gate");
    s.params.swiglu.out = requant_factor(sg * su / (16.0 * sy), s.label);
}

// int8, float arithmetic: the gate's scale and the output factor.
void derive_i8_float(GraphStep &s, Graph &g)
{
    const double sg = operand_scale(g, s, 0);
    s.params.swiglu.gate_scale = float(sg);
    s.params.swiglu.out_scale = float(sg * operand_scale(g, s, 1) / operand_scale(g, s, 2));
}

const HostVariant kVariants[] = {{TSR_VARIANT_SWIGLU_I8, derive_i8}, {TSR_VARIANT_SWIGLU_I8_FLOAT, derive_i8_float}};

} // namespace

extern const OpHost op_host_SWIGLU = {row_tiles, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
