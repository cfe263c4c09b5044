// The host side of the operator table: each operator's legal tiles and cost come
// from its own file in this folder.
#include "shapes.h"

namespace tessera {

#define TSR_OP(NAME, id, name, operands, tile_kind, arithmetic) extern const OpHost op_host_##NAME;
#include "tessera/ops.def"
#undef TSR_OP

const OpHost &op_host(uint32_t op)
{
    switch (op) {
#define TSR_OP(NAME, id, name, operands, tile_kind, arithmetic) case id: return op_host_##NAME;
#include "tessera/ops.def"
#undef TSR_OP
    default: throw PlanError("no host side for operator " + std::to_string(op));
    }
}

const HostVariant *host_variant(const GraphStep &s)
{
    const uint32_t id = tsr_variant_find_attrs(s.op, s.engine, s.dtype, &s.params);
    const OpHost &host = op_host(s.op);
    for (uint32_t i = 0; i < host.variant_count; ++i)
        if (host.variants[i].id == id) return &host.variants[i];
    return nullptr;
}

void derive_params(Graph &g)
{
    for (GraphSchedule *schedule : {&g.prompt, &g.token})
        for (GraphStep &s : schedule->steps) {
            const HostVariant *v = host_variant(s);
            if (v && v->derive) v->derive(s, g);
        }
}

std::vector<Tile> no_tiles(const StepShape &) { return {Tile{}}; }

std::vector<Tile> row_tiles(const StepShape &s)
{
    std::vector<Tile> out;
    for (uint32_t tr : halvings(s.rows)) out.push_back({tr, 0, 0});
    return out;
}

} // namespace tessera
