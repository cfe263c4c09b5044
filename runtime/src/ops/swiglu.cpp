// SWIGLU    in: gate (rows x n), up (rows x n)   out: y = silu(gate) * up (rows x n)
//           params: n   tiles: rows
#include "row_tiles.h"

namespace tsr {
namespace {
void run(StepRun &r) { binary_run(r, tsr_swiglu_f32); }
} // namespace

extern const OpDevice op_SWIGLU = {binary_validate, binary_geometry, run};

} // namespace tsr
