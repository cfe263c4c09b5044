// positions on the host: tiles of rows; its traffic is its geometry's (the table's rows
// from the run's position).
#include "int8_params.h"
#include "shapes.h"
#include "tessera/variants.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    const uint32_t dim = s.params.positions.dim;
    tsr_add_f32(e.values(s.operands[0]), e.values(s.operands[1]) + size_t(e.pos()) * dim, e.values(s.operands[2]), dim, 0, 1);
}

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * tsr_params_as<tsr_positions_shape>(s).dim, -1}; }

// int8 (the table per tensor): each input's factor to the output's scale, as ADD's.
void derive_i8(GraphStep &s, Graph &g)
{
    const double sy = operand_scale(g, s, 2);
    s.params.positions.a = requant_factor(operand_scale(g, s, 0) / sy, s.label);
    s.params.positions.b = requant_factor(operand_scale(g, s, 1) / sy, s.label);
}

template <unsigned V> void encode_float(const GraphStep &s, tsr_param_record &out)
{
    put_params<V>(out, {s.params.positions.dim, s.params.positions.positions});
}
void encode_i8(const GraphStep &s, tsr_param_record &out)
{
    const tsr_positions_attrs &a = s.params.positions;
    put_params<TSR_VARIANT_POSITIONS_I8>(out, {a.dim, a.positions, a.a, a.b});
}

const HostVariant kVariants[] = {{TSR_VARIANT_POSITIONS_F32, encode_float<TSR_VARIANT_POSITIONS_F32>},
                                 {TSR_VARIANT_POSITIONS_BF16, encode_float<TSR_VARIANT_POSITIONS_BF16>},
                                 {TSR_VARIANT_POSITIONS_I8, encode_i8, derive_i8}};

} // namespace

extern const OpHost op_host_POSITIONS = {row_tiles, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
