// gelu on the host: tiles of rows; its traffic is its geometry's.
#include "shapes.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    tsr_gelu_tanh_f32(e.values(s.operands[0]), e.values(s.operands[1]), s.params.gelu.n, 0, 1);
}

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * s.params.gelu.n, -1}; }

} // namespace

extern const OpHost op_host_GELU = {row_tiles, nullptr, evaluate, work, nullptr, 0};

} // namespace tessera
