// layernorm on the host: tiles of rows; its traffic is its geometry's.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "int8_params.h"
#include "shapes.h"
#include "tessera/variants.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    const tsr_layernorm_params &p = s.params.layernorm;
    tsr_layernorm_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), e.values(s.operands[3]),
                      1, p.dim, p.eps, 0, 1);
}

// The mean, the squared deviations, then scaling and the bias.
Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, 3.0 * rows * s.params.layernorm.dim, -1}; }

// int8 (tsr_layernorm_i8): eps in the variance's units, the output factor. The weight (I16)
// and the bias (I32, at the weight's scale / 256) are the lowering's.
void derive_i8(GraphStep &s, Graph &g)
{
    tsr_layernorm_params &p = s.params.layernorm;
    const double sx = operand_scale(g, s, 0), sg = operand_scale(g, s, 1), sb = operand_scale(g, s, 2);
    if (std::fabs(sb * 256.0 / sg - 1.0) > 1e-12)
        throw std::logic_error(s.label + ": bias not at the weight's scale / 256");
    p.eps_q16 = uint32_t(std::min<double>(std::llround(65536.0 * double(p.eps) / (sx * sx)), double(1u << 31)));
    p.out = requant_factor(sg / (256.0 * operand_scale(g, s, 3)), s.label);
}

const HostVariant kVariants[] = {{TSR_VARIANT_LAYERNORM_I8, derive_i8}};

} // namespace

extern const OpHost op_host_LAYERNORM = {row_tiles, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
