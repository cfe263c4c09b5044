// last_row on the host: data movement (the run's last row), no tiles; its traffic is its geometry's.
#include "shapes.h"

namespace tessera {

extern const OpHost op_host_LAST_ROW = {no_tiles, nullptr};

} // namespace tessera
