// embed on the host: data movement (a table row per token), no tiles; its traffic is its geometry's.
#include <cstring>

#include "shapes.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    int32_t id;
    std::memcpy(&id, e.values(s.operands[0]), 4);
    const uint32_t D = s.params.embed.dim;
    std::memcpy(e.values(s.operands[2]), e.values(s.operands[1]) + size_t(id) * D, D * 4);
}

} // namespace

extern const OpHost op_host_EMBED = {no_tiles, nullptr, evaluate, nullptr};

} // namespace tessera
