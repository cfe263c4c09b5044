// The int8 variants' parameters as the packer derives them from their operands'
// scales (tools/pack/src/ops, derive_params), against hand calculations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "tessera/pack/tiler.h"

namespace {

using tessera::Graph;
using tessera::GraphStep;
using tessera::GraphTensor;

uint32_t int8_tensor(Graph &g, const char *name, double scale)
{
    GraphTensor t;
    t.name = name;
    t.dtype = TSR_DTYPE_I8;
    t.rows = 1;
    t.cols = 8;
    t.quant = TSR_QUANT_PER_TENSOR;
    t.scale = scale;
    return g.add(std::move(t));
}

GraphStep int8_step(uint16_t op, std::initializer_list<uint32_t> operands, const char *label)
{
    GraphStep s;
    s.op = op;
    s.dtype = TSR_DTYPE_I8;
    s.label = label;
    s.operands.fill(TSR_NO_TENSOR);
    for (uint32_t o : operands) s.operands[s.operand_count++] = o;
    return s;
}

// A Q31 factor: multiplier 2^(31 - shift) x the factor.
double factor(const tsr_requant_params &r) { return std::ldexp(double(r.multiplier), r.shift - 31); }

TEST(DeriveParams, AnInt8AddTakesEachInputToTheOutputsScale)
{
    Graph g;
    const uint32_t a = int8_tensor(g, "a", 0.5), b = int8_tensor(g, "b", 0.75), y = int8_tensor(g, "y", 1.0);
    GraphStep s = int8_step(TSR_OP_ADD, {a, b, y}, "residual");
    s.params.add.n = 8;
    g.token.steps.push_back(s);
    tessera::derive_params(g);
    const tsr_add_attrs &p = g.token.steps[0].params.add;
    // 0.5 = 2^30 x 2^-31 (shift 0); 0.75 = 3 x 2^29 x 2^-31.
    EXPECT_EQ(p.a.multiplier, 1 << 30);
    EXPECT_EQ(p.a.shift, 0);
    EXPECT_EQ(p.b.multiplier, 3 << 29);
    EXPECT_EQ(p.b.shift, 0);
    EXPECT_DOUBLE_EQ(factor(p.a), 0.5);
    EXPECT_DOUBLE_EQ(factor(p.b), 0.75);
}

TEST(DeriveParams, AnInt8MatmulsTableHoldsEachChannelsFactor)
{
    Graph g;
    const uint32_t x = int8_tensor(g, "x", 0.25), y = int8_tensor(g, "y", 2.0);
    GraphTensor scales;
    scales.name = "w.scales";
    scales.kind = TSR_TENSOR_WEIGHT;
    scales.rows = 1;
    scales.cols = 2;
    const std::vector<float> per_channel = {1.0f, 4.0f};
    scales.data = tessera::raw_bytes(per_channel);
    const uint32_t sid = g.add(std::move(scales));
    GraphTensor w;
    w.name = "w";
    w.dtype = TSR_DTYPE_I8;
    w.kind = TSR_TENSOR_WEIGHT;
    w.rows = 2;
    w.cols = 8;
    w.quant = TSR_QUANT_PER_CHANNEL;
    w.quant_params = sid;
    const uint32_t wid = g.add(std::move(w));
    GraphStep s = int8_step(TSR_OP_MATMUL, {x, wid, y}, "layer0.wq");
    s.params.matmul = {8, 2, TSR_DTYPE_I8, TSR_DTYPE_I8, 0, 0, 0};
    g.prompt.steps.push_back(s);
    tessera::derive_params(g);
    const GraphTensor &table = g.tensors.at(g.prompt.steps[0].params.matmul.requant);
    EXPECT_EQ(table.name, "layer0.wq.requant");
    ASSERT_EQ(table.data.size(), 10u); // 2 multipliers (int32), 2 shifts (int8)
    int32_t m[2];
    std::memcpy(m, table.data.data(), 8);
    const int8_t shift[2] = {int8_t(table.data[8]), int8_t(table.data[9])};
    // 0.25 x 1 / 2 = 2^-3: 2^30 with shift -2; 0.25 x 4 / 2 = 2^-1: 2^30 with shift 0.
    EXPECT_EQ(m[0], 1 << 30);
    EXPECT_EQ(shift[0], -2);
    EXPECT_EQ(m[1], 1 << 30);
    EXPECT_EQ(shift[1], 0);
}

TEST(DeriveParams, AGainWithNoInt8FormIsRefusedNamingTheStep)
{
    Graph g;
    // 16 scale_g / scale_y = 16 x 2^40: no shift in 0..30 brings it below 2^15.
    const uint32_t x = int8_tensor(g, "x", 1.0), gain = int8_tensor(g, "gain", std::ldexp(1.0, 40)),
                   y = int8_tensor(g, "y", 1.0);
    GraphStep s = int8_step(TSR_OP_RMSNORM, {x, gain, y}, "layer3.ffn_norm");
    s.params.rmsnorm.dim = 8;
    s.params.rmsnorm.eps = 1e-5f;
    s.params.rmsnorm.nonlinear = TSR_NONLINEAR_INTEGER;
    g.token.steps.push_back(s);
    try {
        tessera::derive_params(g);
        FAIL() << "derived";
    } catch (const std::range_error &e) {
        EXPECT_NE(std::string(e.what()).find("layer3.ffn_norm: RMSNorm gain"), std::string::npos) << e.what();
    }
}

} // namespace
