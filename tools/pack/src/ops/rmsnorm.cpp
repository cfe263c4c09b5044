// rmsnorm on the host: tiles of rows; its traffic is its geometry's.
#include <cstring>

#include "shapes.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    tsr_rmsnorm_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), 1, s.params.rmsnorm.dim,
                    s.params.rmsnorm.eps, 0, 1);
}

Work work(const tsr_step &s, uint32_t rows, uint32_t) { return Work{0, 2.0 * rows * s.params.rmsnorm.dim, -1}; } // squares, then scaling

} // namespace

extern const OpHost op_host_RMSNORM = {row_tiles, nullptr, evaluate, work};

} // namespace tessera
