// embed on the host: data movement (a table row per token), no tiles; its traffic is its geometry's.
#include "shapes.h"

namespace tessera {

extern const OpHost op_host_EMBED = {no_tiles, nullptr};

} // namespace tessera
