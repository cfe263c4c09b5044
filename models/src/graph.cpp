#include "tessera/models/graph.h"

namespace tessera {

const char *op_name(uint32_t op)
{
    switch (op) {
    case TSR_OP_EMBED: return "embed";
    case TSR_OP_RMSNORM: return "rmsnorm";
    case TSR_OP_MATMUL: return "matmul";
    case TSR_OP_ROPE: return "rope";
    case TSR_OP_KV_APPEND: return "kv_append";
    case TSR_OP_ATTENTION: return "attention";
    case TSR_OP_ADD: return "add";
    case TSR_OP_SWIGLU: return "swiglu";
    default: return "?";
    }
}

} // namespace tessera
