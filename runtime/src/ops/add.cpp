// ADD       in: a (rows x n), b (rows x n)   out: y = a + b (rows x n)   params: n   tiles: rows
#include "row_tiles.h"

namespace tsr {
namespace {
void run(StepRun &r) { binary_run(r, tsr_add_f32); }
} // namespace

extern const OpDevice op_ADD = {binary_validate, binary_geometry, run};

} // namespace tsr
