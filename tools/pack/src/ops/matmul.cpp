// matmul on the host: tiles of rows x output columns, every halving of each; its
// traffic is its geometry's (x once per row tile, the weights again for every row tile).
#include "shapes.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

std::vector<Tile> candidates(const StepShape &s)
{
    std::vector<Tile> out;
    for (uint32_t tr : halvings(s.rows))
        for (uint32_t tn : halvings(s.step.params.matmul.n)) out.push_back({tr, tn, 0});
    return out;
}

void evaluate(const GraphStep &s, Evaluation &e)
{
    const tsr_matmul_params &p = s.params.matmul;
    tsr_matmul_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), 1, p.k, p.n, p.n, 0, 1);
}

} // namespace

extern const OpHost op_host_MATMUL = {candidates, nullptr, evaluate};

} // namespace tessera
