// A token's steps whose kernel call open makes (ResolvedStep::prepared, OpDevice::prepare):
// which steps get one, and that they compute what the step loop computes.
#include <gtest/gtest.h>

#include <set>

#include "ops/op.h"
#include "session.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"

namespace {

using namespace tessera::test;

tsr::ResolvedStep *token_table(OpenModel &m)
{
    tsr::Session &s = *tsr::session_of(&m.session);
    return (tsr::ResolvedStep *)tsr::tensor_address(s.image, s.board, s.image.header->step_table_tensor) +
           s.image.prompt.header->step_count;
}

} // namespace

// stories260K int8 on 4 host threads: the token's in-place steps of one tile (its norms,
// residual adds, SwiGLU and the matmuls whose weights it reads where they lie) are
// prepared, no step with staging or run by core 0 alone is; with every step back on the
// step loop (its staging layout as resolve_steps writes it for a step in place), the same
// 60 ids.
TEST(PreparedCall, TakesTheTokensStepsInPlaceAndComputesWhatTheStepLoopDoes)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    const AlignedImage image = pack_image(stories260k_int8(shared, "host", "cluster", temp_path("prepared.tess")));
    auto prepared = open_image(image, "host", 4), loop = open_image(image, "host", 4);
    ASSERT_EQ(prepared->status, TESSERA_OK) << tessera_last_error(&prepared->session);
    ASSERT_EQ(loop->status, TESSERA_OK) << tessera_last_error(&loop->session);
    const tsr::ImageView &img = tsr::session_of(&prepared->session)->image;
    tsr::ResolvedStep *table = token_table(*prepared), *unprepared = token_table(*loop);
    std::set<uint32_t> ops;
    uint32_t count = 0;
    for (uint32_t i = 0; i < img.token.header->step_count; ++i) {
        const tsr::ResolvedStep &r = table[i];
        if (!r.prepared) continue;
        ++count;
        ops.insert(img.token.steps[i].op);
        EXPECT_EQ(r.staged, 0u) << "step " << i;
        EXPECT_EQ(r.alone, 0u) << "step " << i;
        EXPECT_EQ(img.token.steps[i].engine, uint32_t(TSR_ENGINE_CLUSTER)) << "step " << i;
        tsr::ResolvedStep &u = unprepared[i];
        u.prepared = 0u;
        for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
            u.stage[k] = nullptr;
            u.slot_bytes[k] = 0u;
            u.slots[k] = 1u;
        }
    }
    EXPECT_GT(count, img.token.header->step_count / 2u);
    for (const uint32_t op : {TSR_OP_ADD, TSR_OP_RMSNORM, TSR_OP_SWIGLU, TSR_OP_MATMUL})
        EXPECT_EQ(ops.count(op), 1u) << tsr_op_name(op) << " has no prepared step";
    EXPECT_EQ(generate_greedy(*prepared, {1}, 60), generate_greedy(*loop, {1}, 60));
}
