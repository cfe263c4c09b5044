// swiglu on the host: tiles of rows; its traffic is its geometry's.
#include "shapes.h"

namespace tessera {

extern const OpHost op_host_SWIGLU = {row_tiles, nullptr};

} // namespace tessera
