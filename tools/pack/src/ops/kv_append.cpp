// kv_append on the host: data movement (the run's keys and values into the caches), no tiles; its traffic is its geometry's.
#include "shapes.h"

namespace tessera {

extern const OpHost op_host_KV_APPEND = {no_tiles, nullptr};

} // namespace tessera
