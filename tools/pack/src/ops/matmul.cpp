// matmul on the host: tiles of rows x output columns, every halving of each; its
// traffic is its geometry's (x once per row tile, the weights again for every row tile).
#include "shapes.h"
#include "tessera/variants.h"
#include "int8_params.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include "tessera/kernels.h"
#include "tessera/npu.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

// NPU steps: every job takes all rows; output channels come whole or in multiples
// of the NPU's block (tessera/npu.h).
std::vector<Tile> candidates(const StepShape &s)
{
    std::vector<Tile> out;
    if (s.step.engine == TSR_ENGINE_NPU) {
        const uint32_t n = s.step.params.matmul.n;
        for (uint32_t tn : halvings(n)) {
            const uint32_t blocks = (tn + TSR_NPU_BLOCK_N - 1) / TSR_NPU_BLOCK_N * TSR_NPU_BLOCK_N;
            const uint32_t legal = blocks >= n ? n : blocks;
            if (out.empty() || out.back()[1] != legal) out.push_back({s.rows, legal, 0});
        }
        return out;
    }
    for (uint32_t tr : halvings(s.rows))
        for (uint32_t tn : halvings(s.step.params.matmul.n)) out.push_back({tr, tn, 0});
    return out;
}

// The outputs of a step (tsr_matmul_attrs.split): operand 2 + i takes `cols[i]` columns.
std::vector<uint32_t> output_columns(const tsr_matmul_attrs &p)
{
    if (!p.split[0]) return {p.n};
    if (!p.split[1]) return {p.split[0], p.n - p.split[0]};
    return {p.split[0], p.split[1], p.n - p.split[0] - p.split[1]};
}

void evaluate(const GraphStep &s, Evaluation &e)
{
    const tsr_matmul_attrs &p = s.params.matmul;
    const float *w = e.values(s.operands[1]);
    const float *bias = p.requant_form == TSR_REQUANT_BIAS ? e.values(p.requant) : nullptr; // F32 with a bias (GPT-2's linears)
    uint32_t c0 = 0;
    for (uint32_t i = 0; const uint32_t n : output_columns(p)) {
        float *y = e.values(s.operands[2 + i++]);
        tsr_matmul_f32(e.values(s.operands[0]), w + size_t(c0) * p.k, y, 1, p.k, n, n, 0, 1);
        if (bias)
            for (uint32_t j = 0; j < n; ++j) y[j] += bias[c0 + j];
        c0 += n;
    }
}

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t)
{
    const tsr_matmul_shape &p = tsr_params_as<tsr_matmul_shape>(s);
    return Work{double(rows) * p.k * p.n, 0, -1};
}

// int8 output: per output channel, scale_x scale_w[i] / scale_y as a multiplier and a
// shift, in a table of its own (n multipliers (int32), then n shifts (int8)).
// A split step's columns each divide by their own output's scale.
void derive_i8(GraphStep &s, Graph &g)
{
    const double sx = operand_scale(g, s, 0);
    const std::vector<float> w = channel_scales(g, s.operands[1]);
    std::vector<double> factors;
    for (uint32_t i = 0, c = 0; const uint32_t n : output_columns(s.params.matmul)) {
        const double sy = operand_scale(g, s, 2 + i++);
        for (uint32_t j = 0; j < n; ++j, ++c) factors.push_back(sx * w.at(c) / sy);
    }
    s.params.matmul.requant = add_requant_table(g, s.label + ".requant", factors, s.label);
}

// fp32 output (the logits): per output channel, scale_x scale_w[i].
void derive_i8_f32_out(GraphStep &s, Graph &g)
{
    const double sx = operand_scale(g, s, 0);
    std::vector<float> f = channel_scales(g, s.operands[1]);
    for (float &v : f) v = float(sx * v);
    s.params.matmul.requant = add_constant_row(g, s.label + ".dequant", TSR_DTYPE_F32, f);
}

// int8 with a bias (GPT-2's linears): lowered as RequantShift whose table is still the
// F32 biases; per output channel y = (acc mul + add + 2^(shift-1)) >> shift with
// mul = scale_x scale_w[i] / scale_y 2^shift and add = bias[i] / scale_y 2^shift, one shift
// for all. The shift is the largest for which no accumulator the inputs can give
// (k x 128 x 128) takes acc mul + add past 32 bits, so that N-EUREKA's stage and the
// cluster's 32-bit form give its integers (tessera/neureka_requant.h), while the largest
// multiplier keeps 8 bits; where it cannot (a long k), the largest whose constants fit
// int32, the multiplier at most 2^23 (the NPU's jobs then finish on the cluster). A table
// already integer (QuantLib's) is kept as it is.
void derive_i8_bias(GraphStep &s, Graph &g)
{
    tsr_matmul_attrs &p = s.params.matmul;
    const GraphTensor &table = g.tensors.at(p.requant);
    if (table.dtype != TSR_DTYPE_F32) return;
    std::vector<float> bias(p.n);
    if (table.data.size() < size_t(p.n) * 4u) throw std::logic_error(s.label + ": bias shorter than its outputs");
    std::memcpy(bias.data(), table.data.data(), size_t(p.n) * 4u);
    const double sx = operand_scale(g, s, 0);
    const std::vector<float> w = channel_scales(g, s.operands[1]);
    std::vector<double> mul, add;
    for (uint32_t i = 0, c = 0; const uint32_t n : output_columns(p)) {
        const double sy = operand_scale(g, s, 2 + i++);
        for (uint32_t j = 0; j < n; ++j, ++c) {
            mul.push_back(sx * w.at(c) / sy);
            add.push_back(double(bias[c]) / sy);
        }
    }
    const double max_mul = *std::max_element(mul.begin(), mul.end());
    double max_add = 0;
    for (double a : add) max_add = std::max(max_add, std::fabs(a));
    const double bound = double(p.k) * 128.0 * 128.0; // the largest |acc|
    auto fits = [&](int sh, double limit) {
        const double m = std::ldexp(max_mul, sh);
        return m < limit && m * bound + std::ldexp(max_add, sh) + std::ldexp(1.0, sh) < 2147483647.0;
    };
    int shift = 62;
    while (shift > 0 && !fits(shift, 2147483648.0)) --shift;
    if (std::ldexp(max_mul, shift) < 256.0) { // 32 bits would leave it under 8 bits: precision first
        shift = 62;
        while (shift > 0 && (std::ldexp(max_mul, shift) >= double(1 << 23) ||
                             std::ldexp(max_add, shift) + std::ldexp(1.0, shift - 1) >= 2147483647.0))
            --shift;
    }
    if (std::ldexp(max_mul, shift) < 256.0)
        throw std::range_error(s.label + ": its bias (" + std::to_string(max_add) +
                               " of the output's steps) leaves its multipliers under 8 bits");
    std::vector<int32_t> q(size_t(p.n) * 2u);
    for (uint32_t c = 0; c < p.n; ++c) {
        q[c] = int32_t(std::llround(std::ldexp(mul[c], shift)));
        q[p.n + c] = int32_t(std::llround(std::ldexp(add[c], shift)));
    }
    p.requant = add_constant_row(g, s.label + ".rqs", TSR_DTYPE_I32, q);
    p.rqs_shift = shift;
    p.rqs_lo = -128;
    p.rqs_hi = 127;
}

// Each struct begins with the shape (TSR_MATMUL_SHAPE).
#define TSR_MATMUL_SHAPE_OF(a) a.k, a.n, {a.split[0], a.split[1]}
template <unsigned V> void encode_float(const GraphStep &s, tsr_param_record &out)
{
    put_params<V>(out, {TSR_MATMUL_SHAPE_OF(s.params.matmul)});
}
template <unsigned V> void encode_bias(const GraphStep &s, tsr_param_record &out)
{
    put_params<V>(out, {TSR_MATMUL_SHAPE_OF(s.params.matmul), s.params.matmul.requant}); // the F32 biases
}
template <unsigned V> void encode_i8(const GraphStep &s, tsr_param_record &out)
{
    put_params<V>(out, {TSR_MATMUL_SHAPE_OF(s.params.matmul), s.params.matmul.requant});
}
void encode_npu(const GraphStep &s, tsr_param_record &out)
{
    const tsr_matmul_attrs &a = s.params.matmul;
    put_params<TSR_VARIANT_MATMUL_I8_NPU>(out, {TSR_MATMUL_SHAPE_OF(a), a.requant, a.npu_desc, a.join});
}
void encode_rqs(const GraphStep &s, tsr_param_record &out)
{
    const tsr_matmul_attrs &a = s.params.matmul;
    put_params<TSR_VARIANT_MATMUL_I8_RQS>(out, {TSR_MATMUL_SHAPE_OF(a), a.requant, a.rqs_shift, a.rqs_lo, a.rqs_hi});
}
template <unsigned V> void encode_rqs_npu(const GraphStep &s, tsr_param_record &out)
{
    const tsr_matmul_attrs &a = s.params.matmul;
    put_params<V>(out, {TSR_MATMUL_SHAPE_OF(a), a.requant, a.npu_desc, a.join, a.rqs_shift, a.rqs_lo, a.rqs_hi});
}
#undef TSR_MATMUL_SHAPE_OF

const HostVariant kVariants[] = {
    {TSR_VARIANT_MATMUL_F32, encode_float<TSR_VARIANT_MATMUL_F32>},
    {TSR_VARIANT_MATMUL_F32_W16, encode_float<TSR_VARIANT_MATMUL_F32_W16>},
    {TSR_VARIANT_MATMUL_BF16, encode_float<TSR_VARIANT_MATMUL_BF16>},
    {TSR_VARIANT_MATMUL_BF16_F32_OUT, encode_float<TSR_VARIANT_MATMUL_BF16_F32_OUT>},
    {TSR_VARIANT_MATMUL_F32_BIAS, encode_bias<TSR_VARIANT_MATMUL_F32_BIAS>},
    {TSR_VARIANT_MATMUL_BF16_BIAS, encode_bias<TSR_VARIANT_MATMUL_BF16_BIAS>},
    {TSR_VARIANT_MATMUL_I8, encode_i8<TSR_VARIANT_MATMUL_I8>, derive_i8},
    {TSR_VARIANT_MATMUL_I8_RQS, encode_rqs, derive_i8_bias}, // QuantLib's have their tables: derive_i8_bias leaves them
    {TSR_VARIANT_MATMUL_I8_NPU, encode_npu, derive_i8},
    {TSR_VARIANT_MATMUL_I8_W4, encode_i8<TSR_VARIANT_MATMUL_I8_W4>, derive_i8}, // the same table: scale_x scale_w[i] / scale_y
    {TSR_VARIANT_MATMUL_I8_F32_OUT, encode_i8<TSR_VARIANT_MATMUL_I8_F32_OUT>, derive_i8_f32_out},
    {TSR_VARIANT_MATMUL_I8_W4_F32_OUT, encode_i8<TSR_VARIANT_MATMUL_I8_W4_F32_OUT>, derive_i8_f32_out},
    {TSR_VARIANT_MATMUL_I8_RQS_NPU, encode_rqs_npu<TSR_VARIANT_MATMUL_I8_RQS_NPU>},
    {TSR_VARIANT_MATMUL_I8_RQS_STAGE_NPU, encode_rqs_npu<TSR_VARIANT_MATMUL_I8_RQS_STAGE_NPU>}};

} // namespace

extern const OpHost op_host_MATMUL = {candidates, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
