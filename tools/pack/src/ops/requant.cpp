// requant on the host: tiles of rows; its traffic is its geometry's.
#include "shapes.h"

namespace tessera {
namespace {

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t) { return Work{0, double(rows) * tsr_params_as<tsr_requant_shape>(s).n, -1}; }

void encode(const GraphStep &s, tsr_param_record &out) { put_params<TSR_VARIANT_REQUANT_I8>(out, {s.params.requant.n, s.params.requant.rqs}); }

const HostVariant kVariants[] = {{TSR_VARIANT_REQUANT_I8, encode}};

} // namespace

extern const OpHost op_host_REQUANT = {row_tiles, nullptr, nullptr, work, kVariants, 1};

} // namespace tessera
