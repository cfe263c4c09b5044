// swiglu on the host: tiles of rows; its traffic is its geometry's.
#include <cstring>
#include <stdexcept>
#include <vector>

#include "shapes.h"
#include "tessera/variants.h"
#include "int8_params.h"
#include "tessera/kernels.h"
#include "tessera/kernels_i8.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    tsr_swiglu_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), s.params.swiglu.n, 0, 1);
}

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * s.params.swiglu.n, -1}; }

// int8, integer arithmetic: the integer sigmoid for the gate's scale, the output factor
// (the sigmoid in Q4 of the product's scale), and silu16 of each of the gate's 256 values
// (zero point 0, as every tensor the packer makes), so that the kernels look it up.
void derive_i8(GraphStep &s, Graph &g)
{
    const double sg = operand_scale(g, s, 0), su = operand_scale(g, s, 1), sy = operand_scale(g, s, 2);
    tsr_swiglu_params &p = s.params.swiglu;
    p.sigmoid = iexp_params(sg, s.label + " gate");
    p.out = requant_factor(sg * su / (16.0 * sy), s.label);
    const tsr_iexp_constants k = iexp_constants(p.sigmoid);
    std::vector<int16_t> silu(TSR_SWIGLU_I8_SILU_ENTRIES);
    if (tsr_swiglu_i8_silu_table(&k, 0, silu.data()) != TSR_KERNEL_OK)
        throw std::logic_error(s.label + ": no SiLU table for its gate's constants");
    p.silu = add_constant_row(g, s.label + ".silu", TSR_DTYPE_I16, silu);
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
