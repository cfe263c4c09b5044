// EMBED     in: tokens (I32 rows), table (vocab x dim)   out: x (rows x dim)
//           params (tsr_embed_params): vocab, dim; table and x of the step's element type
//           (I8: the same scale)       data movement: a table row per token, by the DMA engine.
// The ids index a table: each is checked here at run time, whoever wrote it, and
// the tokens must be the schedule's own token input (what the runtime writes).
#include "op.h"

namespace tsr {
namespace {

tessera_status validate(StepChecker &c)
{
    const tsr_embed_params &p = c.step.params.embed;
    const uint64_t R = c.rows, e = act_bytes(c.step);
    TSR_TRY(c.dtype_in(kAllTypes));
    if (p.vocab != c.h.vocab_size || p.dim != c.h.dim) return c.fail("vocab or dim does not match the model");
    TSR_TRY(c.pinned(0, c.tokens, "the schedule's token input"));
    TSR_TRY(c.operand(0, TSR_DTYPE_I32, R * 4u, false));
    TSR_TRY(c.operand(1, c.step.dtype, (uint64_t)p.vocab * p.dim * e, false));
    TSR_TRY(c.of_kind(1, TSR_TENSOR_WEIGHT, "the embedding table is not a weight"));
    TSR_TRY(c.same_zero(1, 2)); // rows copied as they are
    return c.operand(2, c.step.dtype, R * p.dim * e, true);
}

void run(StepRun &r)
{
    const uint32_t V = r.step.params.embed.vocab, row = r.step.params.embed.dim * act_bytes(r.step);
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
        r.run.dma.copy(r.addr[2] + (size_t)i * row, r.addr[1] + (size_t)(uint32_t)id * row, row);
    }
}

StepGeometry geometry(const tsr_step &s, uint32_t rows, uint32_t cores)
{
    StepGeometry g = move_geometry(s, rows, cores);
    g.traffic(1, (uint64_t)rows * s.params.embed.dim * act_bytes(s), rows); // a table row per token
    return g;
}

} // namespace

// Its one variant: a move of bytes, for every element type.
extern "C" const tsr_variant_impl TSR_VARIANT_IMPL(EMBED) = {TSR_VARIANT_EMBED, 0u, nullptr, nullptr};

extern const OpDevice op_EMBED = {validate, geometry, run, false};

} // namespace tsr
