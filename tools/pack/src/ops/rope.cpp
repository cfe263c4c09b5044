// rope on the host: tiles of rows; its traffic is its geometry's.
#include <cstring>

#include "shapes.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    const tsr_rope_params &p = s.params.rope;
    tsr_rope_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), 1, e.pos(), p.dim, p.kv_dim,
                 p.head_size, 0, 1);
}

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * (s.params.rope.dim + s.params.rope.kv_dim), -1}; }

} // namespace

extern const OpHost op_host_ROPE = {row_tiles, nullptr, evaluate, work};

} // namespace tessera
