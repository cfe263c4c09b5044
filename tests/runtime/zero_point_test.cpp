// Zero points (image format v5): every int8 variant honours its operands' zero points,
// or refuses an image that gives one where it computes with symmetric int8 only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/packed_image.h"
#include "support/synthetic_model.h"

namespace {

using namespace tessera::test;

struct Image {
    AlignedImage &img;
    tsr_image_header &header() { return *reinterpret_cast<tsr_image_header *>(img.data()); }
    uint8_t *section(uint32_t kind)
    {
        auto *s = reinterpret_cast<tsr_section *>(img.data() + header().section_table_offset);
        for (uint32_t i = 0; i < header().section_count; ++i)
            if (s[i].kind == kind) return img.data() + s[i].file_offset;
        throw std::runtime_error("no such section");
    }
    tsr_tensor &tensor(uint32_t id) { return reinterpret_cast<tsr_tensor *>(section(TSR_SECTION_TENSORS))[id]; }
    // Every step of both schedules with operator `op`.
    std::vector<tsr_step *> steps(uint32_t op)
    {
        std::vector<tsr_step *> out;
        for (uint32_t kind : {TSR_SECTION_SCHEDULE_PROMPT, TSR_SECTION_SCHEDULE_TOKEN}) {
            uint8_t *s = section(kind);
            const uint32_t n = reinterpret_cast<tsr_schedule_header *>(s)->step_count;
            auto *st = reinterpret_cast<tsr_step *>(s + sizeof(tsr_schedule_header));
            for (uint32_t i = 0; i < n; ++i)
                if (st[i].op == op) out.push_back(&st[i]);
        }
        return out;
    }
};

class ZeroPoints : public ::testing::Test {
protected:
    void SetUp() override
    {
        const std::string shared = shared_dir();
        if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
        img_ = pack_image(stories260k_int8(shared, "host", "cluster", temp_path("zero_points.tess")));
        auto m = open_image(img_, "host", 2);
        ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
        symmetric_ids_ = generate_greedy(*m, {1}, 60);
    }
    AlignedImage img_;
    std::vector<int32_t> symmetric_ids_;
};

// SwiGLU's outputs written with a zero point of -3 and read by the down projection
// with it: the same real values, so the same ids (a runtime that ignored either side
// would shift every activation of the down projection by 3 and its sums by 3 sum(w)).
TEST_F(ZeroPoints, AnActivationWithAZeroPointGivesTheSameIds)
{
    Image im{img_};
    const std::vector<tsr_step *> swiglus = im.steps(TSR_OP_SWIGLU);
    ASSERT_FALSE(swiglus.empty());
    for (tsr_step *s : swiglus) im.tensor(s->operands[2]).zero_point = -3;
    resign(img_);
    auto m = open_image(img_, "host", 2);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    EXPECT_EQ(generate_greedy(*m, {1}, 60), symmetric_ids_);
}

// The residual stream's add takes symmetric int8: a zero point there is refused, naming
// the step, the operand and the variant.
TEST_F(ZeroPoints, AVariantThatTakesSymmetricInt8RefusesAZeroPoint)
{
    Image im{img_};
    const std::vector<tsr_step *> adds = im.steps(TSR_OP_ADD);
    ASSERT_FALSE(adds.empty());
    im.tensor(adds[0]->operands[1]).zero_point = 5;
    resign(img_);
    auto m = open_image(img_, "host", 2);
    EXPECT_EQ(m->status, TESSERA_ERR_IMAGE_UNSUPPORTED);
    const std::string message = tessera_last_error(&m->session);
    EXPECT_NE(message.find("(add) operand 1: zero point 5; variant add.i8 takes symmetric int8 (zero point 0)"),
              std::string::npos)
        << message;
}

TEST_F(ZeroPoints, AZeroPointOutsideInt8OrOnAnotherTypeIsRefused)
{
    Image im{img_};
    tsr_step *s = im.steps(TSR_OP_SWIGLU)[0];
    im.tensor(s->operands[2]).zero_point = 128;
    resign(img_);
    EXPECT_EQ(open_image(img_, "host", 2)->status, TESSERA_ERR_IMAGE_BAD_PLACEMENT);
    im.tensor(s->operands[2]).zero_point = 0;
    im.tensor(im.header().logits_tensor_token).zero_point = 1; // F32 logits have no zero point
    resign(img_);
    auto m = open_image(img_, "host", 2);
    EXPECT_EQ(m->status, TESSERA_ERR_IMAGE_BAD_PLACEMENT);
    EXPECT_NE(std::string(tessera_last_error(&m->session)).find("zero point"), std::string::npos)
        << tessera_last_error(&m->session);
}

} // namespace
