// layernorm on the host: tiles of rows; its traffic is its geometry's.
#include "shapes.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    const tsr_layernorm_params &p = s.params.layernorm;
    tsr_layernorm_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), e.values(s.operands[3]),
                      1, p.dim, p.eps, 0, 1);
}

// The mean, the squared deviations, then scaling and the bias.
Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, 3.0 * rows * s.params.layernorm.dim, -1}; }

} // namespace

extern const OpHost op_host_LAYERNORM = {row_tiles, nullptr, evaluate, work, nullptr, 0};

} // namespace tessera
