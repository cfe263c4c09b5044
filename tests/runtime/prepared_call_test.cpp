// The steps whose kernel call open makes (ResolvedStep::prepared, OpDevice::prepare): which
// steps get one, and that they compute what the step loop computes.
#include <gtest/gtest.h>

#include <set>

#include "ops/op.h"
#include "session.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"

using namespace tessera::test;
using tessera::PackOptions;
using tessera::Precision;

namespace {

// The image's step table: the prompt schedule's steps, then the token schedule's.
tsr::ResolvedStep *table_of(OpenModel &m)
{
    tsr::Session &s = *tsr::session_of(&m.session);
    return (tsr::ResolvedStep *)tsr::tensor_address(s.image, s.board, s.image.header->step_table_tensor);
}

} // namespace

// stories260K on 4 host threads, in int8 and fp32 (context 256), packed for the host board
// (every operand in L1) and for siracusa (the layers' FFN weights staged from L2, each
// fetched ahead by a step before): the steps of one tile in place (the token's norms,
// residual adds, RoPE, SwiGLU and matmuls, those whose weights a step before fetches ahead
// among them; the prompt's where L1 holds its rows) are prepared, no step run by core 0
// alone or with other staging is, some chained to the prepared step before them (no
// barrier before their call); with every step back on the step loop (its staging layout
// as resolve_steps writes it: none, or the staging buffer the weights are fetched into), the
// same 60 ids from a prompt of 9 tokens (a prompt run of 9 rows, then tokens).
struct Case {
    const char *board;
    bool int8;
};
class PreparedCall : public ::testing::TestWithParam<Case> {};

void unprepare(const tsr::ImageView &img, const tsr::ScheduleView &s, const tsr::ResolvedStep *table,
               tsr::ResolvedStep *unprepared, const tsr_hal_board *loop_board, std::set<uint32_t> &ops, uint32_t &count,
               uint32_t &ahead, uint32_t &chained)
{
    for (uint32_t i = 0; i < s.header->step_count; ++i) {
        const tsr::ResolvedStep &r = table[i];
        if (!r.prepared) continue;
        ++count;
        if (r.chained) { // no barrier before its call: the step before is prepared, no fetch to wait for
            ++chained;
            EXPECT_TRUE(i > 0u && table[i - 1u].prepared && !r.ahead_bytes) << "step " << i;
        }
        if (&s == &img.token) ops.insert(s.steps[i].op);
        EXPECT_EQ(r.alone, 0u) << "step " << i;
        EXPECT_EQ(s.steps[i].engine, uint32_t(TSR_ENGINE_CLUSTER)) << "step " << i;
        tsr::ResolvedStep &u = unprepared[i];
        u.prepared = 0u;
        for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
            const uint32_t staging = s.steps[i].staging[k];
            const bool fetched = r.ahead_bytes && k == r.ahead_operand;
            EXPECT_TRUE(staging == TSR_NO_TENSOR || fetched) << "step " << i << " stages operand " << k;
            u.stage[k] = fetched ? tsr::tensor_address(img, loop_board, staging) : nullptr;
            u.slot_bytes[k] = fetched ? r.ahead_bytes : 0u;
            u.slots[k] = 1u;
            ahead += fetched ? 1u : 0u;
        }
    }
}

TEST_P(PreparedCall, TakesTheStepsInPlaceAndComputesWhatTheStepLoopDoes)
{
    const std::string shared = shared_dir(), board = GetParam().board;
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    PackOptions o = stories260k_int8(shared, board, "cluster",
                                     temp_path(std::string("prepared_") + board + (GetParam().int8 ? "_int8" : "_fp32") + ".tess"));
    if (!GetParam().int8) {
        o.precision = Precision::kFp32;
        o.context = 256; // siracusa: every weight in L2
    }
    const AlignedImage image = pack_image(o);
    auto prepared = open_image(image, board, 4), loop = open_image(image, board, 4);
    ASSERT_EQ(prepared->status, TESSERA_OK) << tessera_last_error(&prepared->session);
    ASSERT_EQ(loop->status, TESSERA_OK) << tessera_last_error(&loop->session);
    const tsr::Session &session = *tsr::session_of(&prepared->session);
    const tsr::ImageView &img = session.image;
    const tsr_hal_board *loop_board = tsr::session_of(&loop->session)->board;
    std::set<uint32_t> ops;
    uint32_t count = 0, ahead = 0, prompt = 0, chained = 0;
    unprepare(img, img.prompt, table_of(*prepared), table_of(*loop), loop_board, ops, prompt, ahead, chained);
    unprepare(img, img.token, table_of(*prepared) + img.prompt.header->step_count,
              table_of(*loop) + img.prompt.header->step_count, loop_board, ops, count, ahead, chained);
    EXPECT_GT(count, img.token.header->step_count / 2u);
    EXPECT_GT(chained, 0u);
    for (const uint32_t op : {TSR_OP_ADD, TSR_OP_RMSNORM, TSR_OP_ROPE, TSR_OP_SWIGLU, TSR_OP_MATMUL})
        EXPECT_EQ(ops.count(op), 1u) << tsr_op_name(op) << " has no prepared step";
    if (board == "siracusa") EXPECT_GT(ahead, 0u) << "no prepared step reads weights fetched ahead";
    if (board == "host") EXPECT_GT(prompt, 0u) << "no prompt step is prepared";
    const std::vector<int32_t> prompt_ids = {1, 403, 407, 261, 378, 432, 383, 286, 261};
    EXPECT_EQ(generate_greedy(*prepared, prompt_ids, 60), generate_greedy(*loop, prompt_ids, 60));
}

INSTANTIATE_TEST_SUITE_P(Boards, PreparedCall,
                         ::testing::Values(Case{"host", true}, Case{"siracusa", true}, Case{"host", false},
                                           Case{"siracusa", false}),
                         [](const ::testing::TestParamInfo<Case> &i) {
                             return std::string(i.param.board) + (i.param.int8 ? "_int8" : "_fp32");
                         });
