// kv_append on the host: data movement (the run's keys and values into the caches), no tiles; its traffic is its geometry's.
#include <cstring>

#include "shapes.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    const uint32_t kv = s.params.kv_append.kv_dim;
    std::memcpy(e.values(s.operands[2]) + size_t(e.pos()) * kv, e.values(s.operands[0]), kv * 4);
    std::memcpy(e.values(s.operands[3]) + size_t(e.pos()) * kv, e.values(s.operands[1]), kv * 4);
}

void encode(const GraphStep &s, tsr_param_record &out)
{
    put_params<TSR_VARIANT_KV_APPEND>(out, {s.params.kv_append.kv_dim, s.params.kv_append.context});
}

const HostVariant kVariants[] = {{TSR_VARIANT_KV_APPEND, encode}};

} // namespace

extern const OpHost op_host_KV_APPEND = {no_tiles, nullptr, evaluate, nullptr, kVariants, 1};

} // namespace tessera
