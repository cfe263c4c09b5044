// rmsnorm on the host: tiles of rows; its traffic is its geometry's.
#include <cstring>

#include "shapes.h"
#include "tessera/variants.h"
#include "int8_params.h"
#include <cmath>
#include <algorithm>
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    tsr_rmsnorm_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), 1, s.params.rmsnorm.dim,
                    s.params.rmsnorm.eps, 0, 1);
}

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, 2.0 * rows * tsr_params_as<tsr_rmsnorm_shape>(s).dim, -1}; } // squares, then scaling

// int8, integer arithmetic: eps in the squared input's units (Q8), and the gain
// (16 scale_g / scale_y) as a 15-bit multiplier and a shift.
void derive_i8(GraphStep &s, Graph &g)
{
    tsr_rmsnorm_attrs &p = s.params.rmsnorm;
    const double sx = operand_scale(g, s, 0), sy = operand_scale(g, s, 2), eps = p.eps; // the model's eps
    p.eps_q8 = uint32_t(std::min<double>(std::llround(256.0 * eps / (sx * sx)), 1 << 24));
    const double gain = 16.0 * operand_scale(g, s, 1) / sy;
    int shift = 0;
    while (shift < 30 && std::llround(std::ldexp(gain, shift)) < (1 << 14)) ++shift;
    const long long gq = std::llround(std::ldexp(gain, shift));
    if (gq < (1 << 14) || gq >= (1 << 15))
        throw std::range_error(s.label + ": RMSNorm gain " + std::to_string(gain) + " has no int8 form");
    p.gain = int32_t(gq);
    p.gain_shift = shift;
}

// int8, float arithmetic: eps in the squared input's units, the output factor.
void derive_i8_float(GraphStep &s, Graph &g)
{
    tsr_rmsnorm_attrs &p = s.params.rmsnorm;
    const double sx = operand_scale(g, s, 0);
    p.eps = float(double(p.eps) / (sx * sx));
    p.out_scale = float(operand_scale(g, s, 1) / operand_scale(g, s, 2));
}

template <unsigned V> void encode_float(const GraphStep &s, tsr_param_record &out)
{
    put_params<V>(out, {s.params.rmsnorm.dim, s.params.rmsnorm.eps});
}
void encode_i8(const GraphStep &s, tsr_param_record &out)
{
    const tsr_rmsnorm_attrs &a = s.params.rmsnorm;
    put_params<TSR_VARIANT_RMSNORM_I8>(out, {a.dim, a.eps_q8, a.gain, a.gain_shift});
}
void encode_i8_float(const GraphStep &s, tsr_param_record &out)
{
    const tsr_rmsnorm_attrs &a = s.params.rmsnorm;
    put_params<TSR_VARIANT_RMSNORM_I8_FLOAT>(out, {a.dim, a.eps, a.out_scale});
}
void encode_quantlib(const GraphStep &s, tsr_param_record &out)
{
    const tsr_rmsnorm_attrs &a = s.params.rmsnorm;
    put_params<TSR_VARIANT_RMSNORM_I8_QUANTLIB>(out, {a.dim, a.log2_d, a.lo, a.hi});
}

const HostVariant kVariants[] = {{TSR_VARIANT_RMSNORM_F32, encode_float<TSR_VARIANT_RMSNORM_F32>},
                                 {TSR_VARIANT_RMSNORM_BF16, encode_float<TSR_VARIANT_RMSNORM_BF16>},
                                 {TSR_VARIANT_RMSNORM_I8, encode_i8, derive_i8},
                                 {TSR_VARIANT_RMSNORM_I8_FLOAT, encode_i8_float, derive_i8_float},
                                 {TSR_VARIANT_RMSNORM_I8_QUANTLIB, encode_quantlib}};

} // namespace

extern const OpHost op_host_RMSNORM = {row_tiles, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
