// matmul on the host: tiles of rows x output columns, every halving of each; its
// traffic is its geometry's (x once per row tile, the weights again for every row tile).
#include "shapes.h"
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

void evaluate(const GraphStep &s, Evaluation &e)
{
    const tsr_matmul_params &p = s.params.matmul;
    tsr_matmul_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), 1, p.k, p.n, p.n, 0, 1);
}

Work work(const tsr_step &s, uint32_t rows, uint32_t) { return Work{double(rows) * s.params.matmul.k * s.params.matmul.n, 0, -1}; }

} // namespace

extern const OpHost op_host_MATMUL = {candidates, nullptr, evaluate, work};

} // namespace tessera
