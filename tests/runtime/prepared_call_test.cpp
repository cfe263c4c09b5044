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

// stories260K int8 on 4 host threads, packed for the host board (every operand in L1) and
// for siracusa (the layers' FFN weights staged from L2, each fetched ahead by the step
// before): the token's steps of one tile in place (its norms, residual adds, RoPE, SwiGLU and
// matmuls, those whose weights the step before fetches ahead among them) are prepared, no
// step run by core 0 alone or with other staging is; with every step back on the step loop
// (its staging layout as resolve_steps writes it: none, or the staging buffer the weights are
// fetched into), the same 60 ids.
class PreparedCall : public ::testing::TestWithParam<const char *> {};

TEST_P(PreparedCall, TakesTheTokensStepsInPlaceAndComputesWhatTheStepLoopDoes)
{
    const std::string shared = shared_dir(), board = GetParam();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    const AlignedImage image =
        pack_image(stories260k_int8(shared, board, "cluster", temp_path("prepared_" + board + ".tess")));
    auto prepared = open_image(image, board, 4), loop = open_image(image, board, 4);
    ASSERT_EQ(prepared->status, TESSERA_OK) << tessera_last_error(&prepared->session);
    ASSERT_EQ(loop->status, TESSERA_OK) << tessera_last_error(&loop->session);
    const tsr::Session &session = *tsr::session_of(&prepared->session);
    const tsr::ImageView &img = session.image;
    const tsr_hal_board *loop_board = tsr::session_of(&loop->session)->board;
    tsr::ResolvedStep *table = token_table(*prepared), *unprepared = token_table(*loop);
    std::set<uint32_t> ops;
    uint32_t count = 0, ahead = 0;
    for (uint32_t i = 0; i < img.token.header->step_count; ++i) {
        const tsr::ResolvedStep &r = table[i];
        if (!r.prepared) continue;
        ++count;
        ops.insert(img.token.steps[i].op);
        EXPECT_EQ(r.alone, 0u) << "step " << i;
        EXPECT_EQ(img.token.steps[i].engine, uint32_t(TSR_ENGINE_CLUSTER)) << "step " << i;
        tsr::ResolvedStep &u = unprepared[i];
        u.prepared = 0u;
        for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
            const uint32_t staging = img.token.steps[i].staging[k];
            const bool fetched = r.ahead_bytes && k == r.ahead_operand;
            EXPECT_TRUE(staging == TSR_NO_TENSOR || fetched) << "step " << i << " stages operand " << k;
            u.stage[k] = fetched ? tsr::tensor_address(img, loop_board, staging) : nullptr;
            u.slot_bytes[k] = fetched ? r.ahead_bytes : 0u;
            u.slots[k] = 1u;
            ahead += fetched ? 1u : 0u;
        }
    }
    EXPECT_GT(count, img.token.header->step_count / 2u);
    for (const uint32_t op : {TSR_OP_ADD, TSR_OP_RMSNORM, TSR_OP_ROPE, TSR_OP_SWIGLU, TSR_OP_MATMUL})
        EXPECT_EQ(ops.count(op), 1u) << tsr_op_name(op) << " has no prepared step";
    if (board == "siracusa") EXPECT_GT(ahead, 0u) << "no prepared step reads weights fetched ahead";
    EXPECT_EQ(generate_greedy(*prepared, {1}, 60), generate_greedy(*loop, {1}, 60));
}

INSTANTIATE_TEST_SUITE_P(Boards, PreparedCall, ::testing::Values("host", "siracusa"),
                         [](const ::testing::TestParamInfo<const char *> &i) { return std::string(i.param); });
