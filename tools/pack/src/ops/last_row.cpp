// last_row on the host: data movement (the run's last row), no tiles; its traffic is its geometry's.
#include <cstring>

#include "shapes.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    std::memcpy(e.values(s.operands[1]), e.values(s.operands[0]), s.params.last_row.n * 4); // one row
}

void encode(const GraphStep &s, tsr_param_record &out) { put_params<TSR_VARIANT_LAST_ROW>(out, {s.params.last_row.n}); }

const HostVariant kVariants[] = {{TSR_VARIANT_LAST_ROW, encode}};

} // namespace

extern const OpHost op_host_LAST_ROW = {no_tiles, nullptr, evaluate, nullptr, kVariants, 1};

} // namespace tessera
