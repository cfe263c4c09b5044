// add on the host: tiles of rows; its traffic is its geometry's.
#include <cstring>

#include "shapes.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    tsr_add_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), s.params.add.n, 0, 1);
}

} // namespace

extern const OpHost op_host_ADD = {row_tiles, nullptr, evaluate};

} // namespace tessera
