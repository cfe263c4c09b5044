// EMBED     in: tokens (I32 rows), table (vocab x dim)   out: x (rows x dim)
//           params: vocab, dim;
//             embed (tsr_embed_copy_params): table and x of the step's element type (I8: the
//               same scale), a row copied;
//             embed.i8.rows / embed.i8.w4 (tsr_embed_rescaled_params): the table is an int8
//               classifier's, per channel (int8 rows, or W4_G32 rows), read once for both; each
//               row is rescaled to x's scale by its factor in `requant` (tsr_embed_row_i8).
//           data movement: a table row per token, by the DMA engine (into x itself).
// The ids index a table: each is checked here at run time, whoever wrote it, and
// the tokens must be the schedule's own token input (what the runtime writes).
#include "op.h"
#include "tessera/kernel_sets.h"
#include "tessera/kernels_i8.h"

namespace tsr {
namespace {

const tsr_embed_shape &S(const tsr_step &s) { return tsr_params_as<tsr_embed_shape>(s); }
bool w4(const tsr_step &s) { return s.variant == TSR_VARIANT_EMBED_I8_W4; }
// Bytes of a table row as stored.
uint64_t row_bytes(const tsr_step &s)
{
    return w4(s) ? (uint64_t)tsr_w4_row_bytes(S(s).dim) : (uint64_t)S(s).dim * act_bytes(s);
}

tessera_status validate(StepChecker &c)
{
    const tsr_embed_shape &p = S(c.step);
    const uint64_t R = c.rows, e = act_bytes(c.step);
    TSR_TRY(c.dtype_in(kAllTypes));
    if (!p.vocab || !p.dim) return c.fail("vocab or dim is 0"); // a token's id is checked against vocab as it runs
    TSR_TRY(c.pinned(0, c.tokens, "the schedule's token input"));
    TSR_TRY(c.operand(0, TSR_DTYPE_I32, R * 4u, false));
    TSR_TRY(c.operand(1, c.step.dtype, (uint64_t)p.vocab * row_bytes(c.step), false));
    TSR_TRY(c.of_kind(1, TSR_TENSOR_WEIGHT, "the embedding table is not a weight"));
    if (c.step.variant == TSR_VARIANT_EMBED) TSR_TRY(c.same_zero(1, 2)); // rows copied as they are
    return c.operand(2, c.step.dtype, R * p.dim * e, true);
}

// The rescaled forms: the table is the classifier's (per channel, symmetric), the output
// symmetric, one factor a row; W4 rows in their layout, at most 2048 wide (the kernel's).
tessera_status check_rows(StepChecker &c)
{
    const tsr_embed_rescaled_params &p = tsr_params_as<tsr_embed_rescaled_params>(c.step);
    const uint32_t t = c.step.operands[1];
    TSR_TRY(c.symmetric(2));
    if (t < c.h.tensor_count) {
        const tsr_tensor &w = c.tensors[t];
        if (w.quant != TSR_QUANT_PER_CHANNEL || w.ndims != 2u || w.dims[0] != p.vocab || w.dims[1] != p.dim ||
            (w.layout == TSR_LAYOUT_W4_G32) != w4(c.step))
            return c.fail(w4(c.step) ? "the table is not vocab x dim per channel in layout W4_G32"
                                     : "the table is not vocab x dim int8 per channel", 1);
    }
    if (w4(c.step) && (p.dim > 2048u || p.dim < 32u)) return c.fail("dim outside 32..2048 (4-bit table)");
    return c.constant(p.requant, TSR_DTYPE_I32, (uint64_t)p.vocab * 5u, "rescaling table does not fit");
}

// A row's rescaling after its copy: nothing (embed), or the kernel in place.
using Rescale = void (*)(StepRun &r, uint8_t *y, uint32_t id);

} // namespace

// Its variants' row (OpRow, variant_rows.h).
template <> struct OpRow<TSR_OP_EMBED> : Variant<Rescale> {};

namespace {

using EmbedRow = tsr_kernel_status (*)(const tsr_embed_row_i8_args *);

template <EmbedRow Kernel> void rescale(StepRun &r, uint8_t *y, uint32_t id)
{
    const tsr_embed_rescaled_params &p = tsr_params_as<tsr_embed_rescaled_params>(r.step);
    const int32_t *mult = (const int32_t *)r.constant(p.requant);
    uint8_t groups[64]; // W4: the row's group scales (dim <= 2048), which the row's expansion would overwrite
    const uint32_t half = (p.dim + 1u) / 2u, G = (p.dim + 31u) / 32u;
    r.run.dma.drain(); // the row is in y
    if (r.run.dma.failed()) return; // the run reports the DMA's failure
    // (y is the step's output where the plan put it, as for every move: not an L1 tile)
    if (w4(r.step)) for (uint32_t g = 0; g < G; ++g) groups[g] = y[half + g]; // (dim >= half + G: validate)
    const tsr_embed_row_i8_args a = {(int8_t *)y, groups, mult[id], (int32_t)((const int8_t *)(mult + p.vocab))[id],
                                     p.dim, w4(r.step) ? 1u : 0u};
    r.kernel(Kernel(&a));
}

void run(StepRun &r)
{
    const uint32_t V = S(r.step).vocab, out_row = S(r.step).dim * act_bytes(r.step);
    const uint32_t row = (uint32_t)row_bytes(r.step);
    const Rescale after = tsr_variants[r.resolved.variant]->row.op_EMBED ? variant_row<TSR_OP_EMBED>(r.resolved.variant).kernel
                                                                : nullptr; // embed registers no row
    const int32_t *tokens = (const int32_t *)r.addr[0];
    for (uint32_t i = 0; i < r.rows; ++i) {
        const int32_t id = tokens[i];
        if (id < 0 || (uint32_t)id >= V) {
            if (Message *m = r.fail(TESSERA_ERR_BAD_TOKEN))
                m->str("step ").num(r.index).str(" (embed): row ").num(i).str(" reads token id ")
                    .str(id < 0 ? "-" : "").num(id < 0 ? 0u - (uint32_t)id : (uint32_t)id).str(", vocabulary is 0..")
                    .num(V - 1u);
            return;
        }
        uint8_t *y = r.addr[2] + (size_t)i * out_row;
        r.run.dma.copy(y, r.addr[1] + (size_t)(uint32_t)id * row, row);
        if (after) after(r, y, (uint32_t)id);
    }
}

// The vocabulary it maps and the rows it yields.
void model_shape(const tsr_step &s, ModelShape &out)
{
    out.vocab_size = S(s).vocab;
    out.dim = S(s).dim;
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t cores)
{
    StepGeometry g = move_geometry(s, rows, cores);
    g.traffic(1, (uint64_t)rows * row_bytes(s), rows); // a table row per token
    return g;
}

} // namespace

// Its variants: a move of bytes, for every element type; int8 rows of a per-channel table
// shared with the classifier, each rescaled after its copy.
extern "C" const tsr_variant_impl TSR_VARIANT_IMPL(EMBED) = {TSR_VARIANT_EMBED, 0u, nullptr, nullptr};
TSR_REGISTER_VARIANT(EMBED_I8_ROWS, check_rows, Variant<Rescale>{rescale<tsr_embed_row_i8>})
TSR_REGISTER_VARIANT(EMBED_I8_W4, check_rows, Variant<Rescale>{rescale<tsr_embed_row_i8>})
// The tuned kernel sets' (kernels/<set>/tuned_variants.def): the row kernel with the set's suffix.
#define TSR_TUNED_EMBED_I8_ROWS(SET, sfx)                                                                              \
    TSR_REGISTER_TUNED_VARIANT(SET, EMBED_I8_ROWS, check_rows, Variant<Rescale>{rescale<tsr_embed_row_i8_##sfx>})
#define TSR_TUNED_EMBED_I8_W4(SET, sfx)                                                                                \
    TSR_REGISTER_TUNED_VARIANT(SET, EMBED_I8_W4, check_rows, Variant<Rescale>{rescale<tsr_embed_row_i8_##sfx>})
#define TSR_TUNED TSR_TUNED_ROW
#if __has_include("tessera/tuned_EMBED.def")
#include "tessera/tuned_EMBED.def"
#endif
#undef TSR_TUNED

extern const OpDevice op_EMBED = {validate, geometry, run, false, nullptr, nullptr, nullptr, nullptr, model_shape};

} // namespace tsr
