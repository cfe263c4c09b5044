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

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * s.params.positions.dim, -1}; }

// int8 (the table per tensor): each input's factor to the output's scale, as ADD's.
void derive_i8(GraphStep &s, Graph &g)
{
    const double sy = operand_scale(g, s, 2);
    s.params.positions.a = requant_factor(operand_scale(g, s, 0) / sy, s.label);
    s.params.positions.b = requant_factor(operand_scale(g, s, 1) / sy, s.label);
}

const HostVariant kVariants[] = {{TSR_VARIANT_POSITIONS_I8, derive_i8}};

} // namespace

extern const OpHost op_host_POSITIONS = {row_tiles, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
