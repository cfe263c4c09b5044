// requant on the host: tiles of rows; its traffic is its geometry's.
#include "shapes.h"

namespace tessera {
namespace {

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * s.params.requant.n, -1}; }

} // namespace

extern const OpHost op_host_REQUANT = {row_tiles, nullptr, nullptr, work, nullptr, 0};

} // namespace tessera
