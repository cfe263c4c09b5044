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

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * tsr_params_as<tsr_swiglu_shape>(s).n, -1}; }

// int8, integer arithmetic: the integer sigmoid for the gate's scale, the output factor
// (the sigmoid in Q4 of the product's scale), and silu16 of each of the gate's 256 values
// (zero point 0, as every tensor the packer makes), so that the kernels look it up.
void derive_i8(GraphStep &s, Graph &g)
{
    const double sg = operand_scale(g, s, 0), su = operand_scale(g, s, 1), sy = operand_scale(g, s, 2);
    tsr_swiglu_attrs &p = s.params.swiglu;
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

template <unsigned V> void encode_float(const GraphStep &s, tsr_param_record &out) { put_params<V>(out, {s.params.swiglu.n}); }
void encode_i8(const GraphStep &s, tsr_param_record &out)
{
    const tsr_swiglu_attrs &a = s.params.swiglu;
    put_params<TSR_VARIANT_SWIGLU_I8>(out, {a.n, a.sigmoid, a.out, a.silu});
}
void encode_i8_float(const GraphStep &s, tsr_param_record &out)
{
    const tsr_swiglu_attrs &a = s.params.swiglu;
    put_params<TSR_VARIANT_SWIGLU_I8_FLOAT>(out, {a.n, a.gate_scale, a.out_scale});
}
void encode_hardswish(const GraphStep &s, tsr_param_record &out)
{
    const tsr_swiglu_attrs &a = s.params.swiglu;
    put_params<TSR_VARIANT_SWIGLU_I8_HARDSWISH>(out, {a.n, a.three, a.six, a.one_over_six, a.rqs_act, a.rqs_y});
}

const HostVariant kVariants[] = {{TSR_VARIANT_SWIGLU_F32, encode_float<TSR_VARIANT_SWIGLU_F32>},
                                 {TSR_VARIANT_SWIGLU_F32_HARDSWISH, encode_float<TSR_VARIANT_SWIGLU_F32_HARDSWISH>},
                                 {TSR_VARIANT_SWIGLU_BF16, encode_float<TSR_VARIANT_SWIGLU_BF16>},
                                 {TSR_VARIANT_SWIGLU_BF16_SCHRAUDOLPH, encode_float<TSR_VARIANT_SWIGLU_BF16_SCHRAUDOLPH>},
                                 {TSR_VARIANT_SWIGLU_I8, encode_i8, derive_i8},
                                 {TSR_VARIANT_SWIGLU_I8_FLOAT, encode_i8_float, derive_i8_float},
                                 {TSR_VARIANT_SWIGLU_I8_HARDSWISH, encode_hardswish}};

} // namespace

extern const OpHost op_host_SWIGLU = {row_tiles, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
