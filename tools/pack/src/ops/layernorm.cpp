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
    const tsr_layernorm_attrs &p = s.params.layernorm;
    tsr_layernorm_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), e.values(s.operands[3]),
                      1, p.dim, p.eps, 0, 1);
}

// The mean, the squared deviations, then scaling and the bias.
Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, 3.0 * rows * tsr_params_as<tsr_layernorm_shape>(s).dim, -1}; }

// int8 (tsr_layernorm_i8): eps in the variance's units, the output factor. The weight (I16)
// and the bias (I32, at the weight's scale / 256) are the lowering's.
void derive_i8(GraphStep &s, Graph &g)
{
    tsr_layernorm_attrs &p = s.params.layernorm;
    const double sx = operand_scale(g, s, 0), sg = operand_scale(g, s, 1), sb = operand_scale(g, s, 2);
    if (std::fabs(sb * 256.0 / sg - 1.0) > 1e-12)
        throw std::logic_error(s.label + ": bias not at the weight's scale / 256");
    p.eps_q16 = uint32_t(std::min<double>(std::llround(65536.0 * double(p.eps) / (sx * sx)), double(1u << 31)));
    p.out = requant_factor(sg / (256.0 * operand_scale(g, s, 3)), s.label);
}

template <unsigned V> void encode_float(const GraphStep &s, tsr_param_record &out)
{
    put_params<V>(out, {s.params.layernorm.dim, s.params.layernorm.eps});
}
void encode_i8(const GraphStep &s, tsr_param_record &out)
{
    const tsr_layernorm_attrs &a = s.params.layernorm;
    put_params<TSR_VARIANT_LAYERNORM_I8>(out, {a.dim, a.eps_q16, a.out});
}

const HostVariant kVariants[] = {{TSR_VARIANT_LAYERNORM_F32, encode_float<TSR_VARIANT_LAYERNORM_F32>},
                                 {TSR_VARIANT_LAYERNORM_BF16, encode_float<TSR_VARIANT_LAYERNORM_BF16>},
                                 {TSR_VARIANT_LAYERNORM_I8, encode_i8, derive_i8}};

} // namespace

extern const OpHost op_host_LAYERNORM = {row_tiles, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
