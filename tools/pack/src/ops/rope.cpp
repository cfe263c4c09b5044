// rope on the host: tiles of rows; its traffic is its geometry's.
#include <cstring>

#include "shapes.h"
#include "tessera/kernels.h"
#include "tessera/pack/calibration.h"

namespace tessera {
namespace {

void evaluate(const GraphStep &s, Evaluation &e)
{
    const tsr_rope_attrs &p = s.params.rope;
    tsr_rope_f32(e.values(s.operands[0]), e.values(s.operands[1]), e.values(s.operands[2]), 1, e.pos(), p.dim, p.kv_dim,
                 p.head_size, 0, 1);
}

Work work(const tsr_step &s, uint32_t rows, uint32_t, uint32_t)
{
    const tsr_rope_shape &p = tsr_params_as<tsr_rope_shape>(s);
    return Work{0, double(rows) * (p.dim + p.kv_dim), -1};
}

template <unsigned V> void encode(const GraphStep &s, tsr_param_record &out)
{
    const tsr_rope_attrs &a = s.params.rope;
    put_params<V>(out, {a.dim, a.kv_dim, a.head_size, a.context});
}
void encode_matrix_i8(const GraphStep &s, tsr_param_record &out)
{
    const tsr_rope_attrs &a = s.params.rope;
    put_params<TSR_VARIANT_ROPE_I8_MATRIX>(out, {a.dim, a.kv_dim, a.head_size, a.context, a.q, a.k});
}

const HostVariant kVariants[] = {{TSR_VARIANT_ROPE_F32, encode<TSR_VARIANT_ROPE_F32>},
                                 {TSR_VARIANT_ROPE_BF16, encode<TSR_VARIANT_ROPE_BF16>},
                                 {TSR_VARIANT_ROPE_I8, encode<TSR_VARIANT_ROPE_I8>},
                                 {TSR_VARIANT_ROPE_F32_MATRIX, encode<TSR_VARIANT_ROPE_F32_MATRIX>},
                                 {TSR_VARIANT_ROPE_I8_MATRIX, encode_matrix_i8}};

} // namespace

extern const OpHost op_host_ROPE = {row_tiles, nullptr, evaluate, work, kVariants, sizeof kVariants / sizeof kVariants[0]};

} // namespace tessera
