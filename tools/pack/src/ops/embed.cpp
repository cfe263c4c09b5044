// embed on the host: data movement (a table row per token), no tiles; its traffic is its
// geometry's. A table shared with an int8 classifier (per channel) gets each row's factor
// to the output's scale.
#include <cstring>

#include "int8_params.h"
#include "shapes.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"
#include "tessera/variants.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    int32_t id;
    std::memcpy(&id, e.values(s.operands[0]), 4);
    const uint32_t D = s.params.embed.dim;
    std::memcpy(e.values(s.operands[2]), e.values(s.operands[1]) + size_t(id) * D, D * 4);
}

// Row r's scale_w[r] / scale_x as a Q31 multiplier and a shift: vocab multipliers (int32),
// then vocab shifts (int8). Both schedules' embed steps read the same table: one tensor.
void derive_rows(GraphStep &s, Graph &g)
{
    const double sx = operand_scale(g, s, 2);
    std::vector<double> factors;
    for (const float scale : channel_scales(g, s.operands[1])) factors.push_back(scale / sx);
    s.params.embed.requant = add_requant_table(g, s.label + ".rescale", factors, s.label);
}

void encode_copy(const GraphStep &s, tsr_param_record &out) { put_params<TSR_VARIANT_EMBED>(out, {s.params.embed.vocab, s.params.embed.dim}); }
template <unsigned V> void encode_rescaled(const GraphStep &s, tsr_param_record &out)
{
    const tsr_embed_attrs &a = s.params.embed;
    put_params<V>(out, {a.vocab, a.dim, a.requant});
}

const HostVariant kVariants[] = {{TSR_VARIANT_EMBED, encode_copy},
                                 {TSR_VARIANT_EMBED_I8_ROWS, encode_rescaled<TSR_VARIANT_EMBED_I8_ROWS>, derive_rows},
                                 {TSR_VARIANT_EMBED_I8_W4, encode_rescaled<TSR_VARIANT_EMBED_I8_W4>, derive_rows}};

} // namespace

extern const OpHost op_host_EMBED = {no_tiles, nullptr, evaluate, nullptr, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
