// Every step of both schedules, checked by its operator: the operator and engine
// exist, its operands name tensors of the types and sizes it needs, its tiles fit
// the staging it names in L1. The image's container (header, sections, tensors,
// schedule framing) is image_reader's; this file is the operators' part.
#include "op.h"

namespace tsr {
namespace {

// Kernels only see L1: every operand a kernel touches is in L1 itself or streams
// through a staging tensor in L1 big enough for the step's tiles, as the operator's
// geometry says; operands that share staging name the same tensor. An image planned
// for a board whose cores do its copies (TSR_IMAGE_OPERANDS_IN_PLACE) may leave a
// streamed operand unstaged: kernels read it where it lies.
tessera_status check_tiles(StepChecker &c, const StepGeometry &g)
{
    const tsr_step &s = c.step;
    if (!g.valid) return c.fail("tile sizes out of range for the operator");
    for (uint32_t i = 0; i < TSR_MAX_OPERANDS; ++i) {
        const OperandGeometry &o = g.operand[i];
        const uint32_t sid = s.staging[i];
        if (o.use == OperandUse::kNone || o.use == OperandUse::kAbsent) {
            if (sid != TSR_NO_TENSOR) return c.fail("has a staging buffer but is not streamed", i);
            continue;
        }
        if (o.shares != i) {
            if (sid != s.staging[o.shares]) return c.fail("must share its staging buffer", i);
            continue;
        }
        if (sid == TSR_NO_TENSOR) {
            if (o.use == OperandUse::kStaged) return c.fail("is streamed through staging only, and has none", i);
            if (o.use == OperandUse::kScratch) return c.fail("needs a scratch buffer, and has none", i);
            if (c.tensors[s.operands[i]].region != TSR_REGION_L1 && !(c.h.flags & TSR_IMAGE_OPERANDS_IN_PLACE))
                return c.fail("is a kernel operand outside L1 and not staged", i);
            continue;
        }
        if (sid >= c.h.tensor_count) return c.fail("names no staging tensor", i);
        const tsr_tensor &st = c.tensors[sid];
        if (st.region != TSR_REGION_L1 || st.kind != TSR_TENSOR_STAGING)
            return c.fail("staging tensor is not a staging buffer in L1", i);
        if (st.offset % 8u != 0u) // its slots hold elements of any type, up to 8 bytes
            return c.fail("staging tensor is not 8-byte aligned in L1", i);
        if (st.size < o.bytes()) return c.fail("staging tensor is smaller than its tiles", i);
    }
    return TESSERA_OK;
}

// The step names a row of tessera/variants.def, and that row runs it: the operator,
// engine and element type; its parameters are that row's struct, and the header declares
// the feature the row needs. Whether this runtime has the row's kernel is check_step's
// next question.
tessera_status check_variant_row(StepChecker &c)
{
    const tsr_step &s = c.step;
    tsr_variant_row row;
    if (!tsr_variant_lookup(s.variant, &row)) {
        c.err.str(c.schedule).str(" schedule step ").num(c.index).str(" (").str(tsr_op_name(s.op))
            .str("): names variant ").num(s.variant).str(", which image format version ").num(TSR_IMAGE_VERSION)
            .str(" does not have");
        return TESSERA_ERR_IMAGE_BAD_SCHEDULE;
    }
    if (!tsr_variant_matches(&row, &s)) {
        c.err.str(c.schedule).str(" schedule step ").num(c.index).str(" (").str(tsr_op_name(s.op))
            .str("): names variant ").str(row.name).str(", which does not run a step of element type ")
            .str(tsr_dtype_name(s.dtype)).str(" on engine ").num(s.engine);
        return TESSERA_ERR_IMAGE_BAD_SCHEDULE;
    }
    if (!tsr_params_fit(&s)) {
        c.err.str(c.schedule).str(" schedule step ").num(c.index).str(" (").str(row.name)
            .str("): its parameter record (variant ").num(s.params.variant).str(", ").num(s.params.bytes)
            .str(" bytes) is not its variant's ").num(tsr_variant_params_bytes(s.variant)).str("-byte struct followed by zeros");
        return TESSERA_ERR_IMAGE_BAD_SCHEDULE;
    }
    if (row.feature & ~c.h.required_features) {
        c.err.str(c.schedule).str(" schedule step ").num(c.index).str(" (").str(row.name)
            .str("): needs feature ").str(tsr_feature_name(row.feature) ? tsr_feature_name(row.feature) : "?").str(", which the header does not declare");
        return TESSERA_ERR_IMAGE_BAD_SCHEDULE;
    }
    return TESSERA_OK;
}

tessera_status check_step(StepChecker &c)
{
    const tsr_step &s = c.step;
    const OpDevice *op = op_device(s.op);
    if (op == nullptr) return c.fail("unknown operator");
    if (s.engine == TSR_ENGINE_NPU && !(c.h.required_features & TSR_FEATURE_NPU))
        return c.fail("an NPU step the header does not declare");
    if (s.engine == TSR_ENGINE_NPU && !op->npu) return c.fail("the operator has no NPU form");
    if (s.engine != TSR_ENGINE_CLUSTER && s.engine != TSR_ENGINE_DMA && s.engine != TSR_ENGINE_NPU)
        return c.fail("unknown engine");
    if (s.flags & ~TSR_STEP_FLAGS_) return c.fail("unknown flags");
    if (s.reserved0 || s.reserved1 || s.reserved[0] || s.reserved[1] || s.reserved[2] || s.reserved[3])
        return c.fail("reserved fields are not 0");
    TSR_TRY(check_variant_row(c));
    const uint8_t variant = registered_variant_for(s.variant, c.image->isa); // one this board runs
    if (variant == kNoVariant) return c.no_variant();
    if (s.layer != TSR_NO_LAYER && s.layer >= c.h.n_layers) return c.fail("names a layer beyond the header's n_layers");
    const StepGeometry g = op->geometry(s, c.rows, c.h.planned_cores);
    for (uint32_t i = 0; i < tsr_op_operand_count(s.op); ++i) {
        if (g.operand[i].use == OperandUse::kAbsent) {
            if (s.operands[i] != TSR_NO_TENSOR) return c.fail("names a tensor the step does not use", i);
            continue;
        }
        const bool scratch = g.operand[i].use == OperandUse::kScratch;
        if (scratch ? s.operands[i] != TSR_NO_TENSOR : s.operands[i] >= c.h.tensor_count)
            return c.fail(scratch ? "is a scratch buffer and names a tensor" : "names no tensor", i);
    }
    // The checks of the variant's own parameters (its registration), then the operator's.
    if (tsr_variants[variant]->check) TSR_TRY(tsr_variants[variant]->check(c));
    TSR_TRY(op->validate(c));
    return check_tiles(c, g);
}

// The header describes the model its steps compute: each value a step's shape says of it
// (OpDevice::model_shape) is the header's. The one place the runtime relates operators to
// the model's hyperparameters (which tessera_model_info reports).
tessera_status check_model_shape(StepChecker &c)
{
    const OpDevice *op = op_device(c.step.op);
    if (!op->model_shape) return TESSERA_OK;
    ModelShape m = {};
    op->model_shape(c.step, m);
    const struct {
        uint32_t said, header;
        const char *name;
    } fields[] = {{m.vocab_size, c.h.vocab_size, "vocab_size"}, {m.dim, c.h.dim, "dim"}, {m.hidden_dim, c.h.hidden_dim, "hidden_dim"},
                  {m.n_heads, c.h.n_heads, "n_heads"}, {m.n_kv_heads, c.h.n_kv_heads, "n_kv_heads"}};
    for (const auto &f : fields)
        if (f.said && f.said != f.header) {
            c.err.str(c.schedule).str(" schedule step ").num(c.index).str(" (").str(tsr_op_name(c.step.op)).str("): its ")
                .str(f.name).str(" is ").num(f.said).str(", the header's ").num(f.header);
            return TESSERA_ERR_IMAGE_BAD_HEADER;
        }
    return TESSERA_OK;
}

tessera_status check_steps(const ImageView &view, const ScheduleView &s, uint32_t tokens, const char *name, Message &err)
{
    const tsr_image_header &h = *view.header;
    uint32_t layers = 0; // the header's n_layers is what the schedule runs: its last layer is n_layers - 1
    for (uint32_t i = 0; i < s.header->step_count; ++i) {
        StepChecker c{h, view.tensors, s.steps[i], step_rows(s.steps[i], s.header->max_rows), err, i, name, tokens, &view,
                      s.header->step_count};
        TSR_TRY(check_step(c));
        TSR_TRY(check_model_shape(c));
        if (s.steps[i].layer != TSR_NO_LAYER && s.steps[i].layer + 1u > layers) layers = s.steps[i].layer + 1u;
    }
    if (layers != h.n_layers) {
        err.str("image header: n_layers is ").num(h.n_layers).str(", the ").str(name).str(" schedule runs ").num(layers);
        return TESSERA_ERR_IMAGE_BAD_HEADER;
    }
    return TESSERA_OK;
}

} // namespace

tessera_status validate_steps(const ImageView &view, Message &err)
{
    TSR_TRY(check_steps(view, view.prompt, view.header->tokens_tensor_prompt, "prompt", err));
    return check_steps(view, view.token, view.header->tokens_tensor_token, "token", err);
}

} // namespace tsr
