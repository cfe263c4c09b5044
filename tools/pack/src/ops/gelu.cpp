// gelu on the host: tiles of rows; its traffic is its geometry's.
#include <cmath>
#include <vector>

#include "int8_params.h"
#include "shapes.h"
#include "tessera/variants.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    const auto gelu = s.params.gelu.form == TSR_GELU_TANH ? tsr_gelu_tanh_f32 : tsr_gelu_erf_f32;
    gelu(e.values(s.operands[0]), e.values(s.operands[1]), s.params.gelu.n, 0, 1);
}

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * tsr_params_as<tsr_gelu_shape>(s).n, -1}; }

// int8: GELU's 256 outputs for the input's and output's scales, in double precision, the
// input v at v + 128 (tsr_lut_i8): every value I-BERT's integer polynomial approximates,
// exactly, and no arithmetic on the device. The step's form says which GELU.
void derive_i8(GraphStep &s, Graph &g)
{
    const double sx = operand_scale(g, s, 0), sy = operand_scale(g, s, 1);
    const bool tanh_form = s.params.gelu.form == TSR_GELU_TANH;
    std::vector<int8_t> table(256);
    for (int v = -128; v < 128; ++v) {
        const double x = sx * v;
        const double y = tanh_form ? 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)))
                                   : 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
        table[size_t(v + 128)] = quantize_value(y, sy);
    }
    s.params.gelu.table = add_constant_row(g, s.label + ".table", TSR_DTYPE_I8, table);
}

template <unsigned V> void encode_float(const GraphStep &s, tsr_param_record &out) { put_params<V>(out, {s.params.gelu.n}); }
template <unsigned V> void encode_i8(const GraphStep &s, tsr_param_record &out)
{
    put_params<V>(out, {s.params.gelu.n, s.params.gelu.table});
}

const HostVariant kVariants[] = {{TSR_VARIANT_GELU_F32_TANH, encode_float<TSR_VARIANT_GELU_F32_TANH>},
                                 {TSR_VARIANT_GELU_F32_ERF, encode_float<TSR_VARIANT_GELU_F32_ERF>},
                                 {TSR_VARIANT_GELU_BF16_TANH, encode_float<TSR_VARIANT_GELU_BF16_TANH>},
                                 {TSR_VARIANT_GELU_BF16_ERF, encode_float<TSR_VARIANT_GELU_BF16_ERF>},
                                 {TSR_VARIANT_GELU_I8_TANH, encode_i8<TSR_VARIANT_GELU_I8_TANH>, derive_i8},
                                 {TSR_VARIANT_GELU_I8_ERF, encode_i8<TSR_VARIANT_GELU_I8_ERF>, derive_i8}};

} // namespace

extern const OpHost op_host_GELU = {row_tiles, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
