// add on the host: tiles of rows; its traffic is its geometry's.
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
    tsr_add_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), s.params.add.n, 0, 1);
}

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * tsr_params_as<tsr_add_shape>(s).n, -1}; }

// int8: each input's factor to the output's scale.
void derive_i8(GraphStep &s, Graph &g)
{
    const double sy = operand_scale(g, s, 2);
    s.params.add.a = requant_factor(operand_scale(g, s, 0) / sy, s.label);
    s.params.add.b = requant_factor(operand_scale(g, s, 1) / sy, s.label);
}

template <unsigned V> void encode_float(const GraphStep &s, tsr_param_record &out) { put_params<V>(out, {s.params.add.n}); }
void encode_i8(const GraphStep &s, tsr_param_record &out)
{
    const tsr_add_attrs &a = s.params.add;
    put_params<TSR_VARIANT_ADD_I8>(out, {a.n, a.a, a.b});
}
void encode_rqs(const GraphStep &s, tsr_param_record &out)
{
    const tsr_add_attrs &a = s.params.add;
    put_params<TSR_VARIANT_ADD_I8_RQS>(out, {a.n, a.rqs_a, a.rqs_b, a.rqs_y});
}

const HostVariant kVariants[] = {{TSR_VARIANT_ADD_F32, encode_float<TSR_VARIANT_ADD_F32>},
                                 {TSR_VARIANT_ADD_BF16, encode_float<TSR_VARIANT_ADD_BF16>},
                                 {TSR_VARIANT_ADD_I8, encode_i8, derive_i8},
                                 {TSR_VARIANT_ADD_I8_RQS, encode_rqs}};

} // namespace

extern const OpHost op_host_ADD = {row_tiles, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
