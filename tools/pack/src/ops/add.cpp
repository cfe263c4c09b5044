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

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * s.params.add.n, -1}; }

// int8: each input's factor to the output's scale.
void derive_i8(GraphStep &s, Graph &g)
{
    const double sy = operand_scale(g, s, 2);
    s.params.add.a = requant_factor(operand_scale(g, s, 0) / sy, s.label);
    s.params.add.b = requant_factor(operand_scale(g, s, 1) / sy, s.label);
}

const HostVariant kVariants[] = {{TSR_VARIANT_ADD_I8, derive_i8}};

} // namespace

extern const OpHost op_host_ADD = {row_tiles, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
