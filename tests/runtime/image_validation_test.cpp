// A corrupt or hostile image is refused with its own status and a message that
// says where, never followed. Each malformed class is built from a valid image.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstring>
#include <random>
#include <set>

#include "support/packed_image.h"
#include "../runtime/src/executor.h"
#include "../runtime/src/session.h"
#include "support/synthetic_model.h"
#include "tessera/crc32.h"
#include "tessera/image_format.h"
#include "tessera/variants.h"

namespace {

using namespace tessera::test;

class ImageValidation : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        SyntheticConfig c;
        c.seq_len = 16;
        options_ = new tessera::PackOptions;
        options_->checkpoint = temp_path("valid.bin");
        options_->tokenizer = temp_path("valid.tok");
        write_legacy_checkpoint(options_->checkpoint, c, make_weights(c));
        write_tokenizer(options_->tokenizer, c.vocab_size);
        board_ = tessera::HostBoard::create(tessera::load_board_desc("host"), 2).release();
    }
    static void TearDownTestSuite()
    {
        delete board_;
        delete options_;
    }
    void SetUp() override { img_ = pack_image(*options_); }

    tsr_image_header &header() { return *reinterpret_cast<tsr_image_header *>(img_.data()); }
    tsr_section &section(uint32_t kind)
    {
        auto *s = reinterpret_cast<tsr_section *>(img_.data() + header().section_table_offset);
        for (uint32_t i = 0; i < header().section_count; ++i)
            if (s[i].kind == kind) return s[i];
        throw std::runtime_error("no such section");
    }
    uint8_t *section_bytes(uint32_t kind) { return img_.data() + section(kind).file_offset; }
    tsr_tensor &tensor(uint32_t id) { return reinterpret_cast<tsr_tensor *>(section_bytes(TSR_SECTION_TENSORS))[id]; }
    tsr_step &step(uint32_t kind, uint32_t i)
    {
        return reinterpret_cast<tsr_step *>(section_bytes(kind) + sizeof(tsr_schedule_header))[i];
    }
    // The token schedule's first matmul for several outputs (Q, K and V).
    tsr_step &first_split_matmul()
    {
        const auto *h = reinterpret_cast<const tsr_schedule_header *>(section_bytes(TSR_SECTION_SCHEDULE_TOKEN));
        for (uint32_t i = 0; i < h->step_count; ++i)
            if (step(TSR_SECTION_SCHEDULE_TOKEN, i).op == TSR_OP_MATMUL && params_in<tsr_matmul_shape>(step(TSR_SECTION_SCHEDULE_TOKEN, i)).split[0])
                return step(TSR_SECTION_SCHEDULE_TOKEN, i);
        throw std::runtime_error("no split matmul in the token schedule");
    }
    // A step's parameters as struct T (its variant's, or its operator's shape), to change in place.
    template <class T> static T &params_in(tsr_step &s) { return *reinterpret_cast<T *>(s.params.data); }
    // Makes every checksum consistent again: the image is then hostile, not corrupt.
    void resign() { tessera::test::resign(img_); }
    tessera_status open(size_t size = 0, const tsr_hal_board *board = nullptr)
    {
        return tessera_open(&session_, img_.data(), size ? size : img_.size, board ? board : board_->hal());
    }
    std::string message() const { return tessera_last_error(&session_); }

    static tessera::PackOptions *options_;
    static tessera::HostBoard *board_;
    AlignedImage img_;
    tessera_session session_;
};

tessera::PackOptions *ImageValidation::options_ = nullptr;
tessera::HostBoard *ImageValidation::board_ = nullptr;

TEST_F(ImageValidation, ValidImageOpens)
{
    ASSERT_EQ(open(), TESSERA_OK) << message();
    EXPECT_EQ(message(), "");
}

TEST_F(ImageValidation, Truncated)
{
    EXPECT_EQ(open(img_.size - 1), TESSERA_ERR_IMAGE_TRUNCATED);
    EXPECT_NE(message().find("its header says " + std::to_string(img_.size)), std::string::npos) << message();
    EXPECT_EQ(open(100), TESSERA_ERR_IMAGE_TRUNCATED);
    EXPECT_NE(message().find("shorter than its 208-byte header"), std::string::npos) << message();
}

TEST_F(ImageValidation, BadMagic)
{
    img_.data()[0] = 'X';
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_MAGIC);
    EXPECT_NE(message().find("bad magic"), std::string::npos) << message();
}

TEST_F(ImageValidation, BadVersion)
{
    header().version = 99;
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_VERSION);
    EXPECT_NE(message().find("version 99"), std::string::npos) << message();
}

TEST_F(ImageValidation, AnImageOfTheFormerVersionIsRefusedNamingBothVersions)
{
    header().version = TSR_IMAGE_VERSION - 1u; // what the previous release's packer wrote
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_VERSION);
    const std::string want = "tessera_open: image format version " + std::to_string(TSR_IMAGE_VERSION - 1u) +
                             " (header " + std::to_string(sizeof(tsr_image_header)) + " bytes); this runtime reads version " + std::to_string(TSR_IMAGE_VERSION) +
                             ": pack the model again with this release's tessera-pack";
    EXPECT_EQ(message(), want);
}

// The runtime checks operators, variants, features and tensors, not which front end made
// the graph: an image whose arch field names no front end it knows runs the same.
TEST_F(ImageValidation, TheArchitectureFieldIsNotChecked)
{
    ASSERT_EQ(open(), TESSERA_OK) << message();
    int32_t want[8], got[8];
    tessera_sampler greedy;
    tessera_sampler_init(&greedy, 0.0f, 0.0f, 1);
    auto run = [&](int32_t *ids) {
        int32_t token = 1;
        for (int i = 0; i < 8; ++i) {
            ASSERT_EQ(i == 0 ? tessera_prompt(&session_, &token, 1) : tessera_step(&session_, token), TESSERA_OK) << message();
            ASSERT_EQ(tessera_sample(&session_, &greedy, &ids[i]), TESSERA_OK);
            token = ids[i];
        }
    };
    run(want);
    tessera_close(&session_);
    header().arch = 77;
    resign();
    ASSERT_EQ(open(), TESSERA_OK) << message();
    run(got);
    EXPECT_TRUE(std::equal(got, got + 8, want));
}

TEST_F(ImageValidation, NpuStepsNeedAnOperatorWithAnNpuForm)
{
    header().required_features |= TSR_FEATURE_NPU;
    const uint32_t first = step(TSR_SECTION_SCHEDULE_TOKEN, 0).op == TSR_OP_EMBED ? 1u : 0u;
    ASSERT_EQ(step(TSR_SECTION_SCHEDULE_TOKEN, first).op, TSR_OP_RMSNORM);
    step(TSR_SECTION_SCHEDULE_TOKEN, first).engine = TSR_ENGINE_NPU; // would run without its barriers
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("(rmsnorm): the operator has no NPU form"), std::string::npos) << message();
}

TEST_F(ImageValidation, AFeatureTheRuntimeLacksIsRefusedByName)
{
    header().required_features = TSR_FEATURE_F32 | (1u << 30);
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_UNSUPPORTED);
    EXPECT_EQ(message(), "tessera_open: image needs feature bit 30 (unknown to this runtime), which this runtime does not provide");
}

TEST_F(ImageValidation, BadHeaderChecksum)
{
    header().dim += 1;
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_CHECKSUM);
    EXPECT_NE(message().find("header CRC-32"), std::string::npos) << message();
}

TEST_F(ImageValidation, BadSectionChecksum)
{
    section_bytes(TSR_SECTION_WEIGHTS)[100] ^= 0x40;
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_CHECKSUM);
    EXPECT_NE(message().find("(kind 5, file offset"), std::string::npos) << message();
}

TEST_F(ImageValidation, BadSectionTableChecksum)
{
    section(TSR_SECTION_WEIGHTS).size -= 4;
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_CHECKSUM);
    EXPECT_NE(message().find("section table"), std::string::npos) << message();
}

TEST_F(ImageValidation, PlacementOutsideRegion)
{
    tensor(header().logits_tensor_token).offset = header().region_bytes[TSR_REGION_L2];
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_PLACEMENT);
    EXPECT_NE(message().find("tensor " + std::to_string(header().logits_tensor_token) + " (L2 offset"), std::string::npos)
        << message();
    EXPECT_NE(message().find("outside its region's plan"), std::string::npos) << message();
}

TEST_F(ImageValidation, PlacementOverflowingOffsetPlusSize)
{
    tensor(3).offset = 0xFFFFFFF0u;
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_PLACEMENT);
}

TEST_F(ImageValidation, MisalignedPlacement)
{
    tensor(header().logits_tensor_token).offset += 2;
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_PLACEMENT);
    EXPECT_NE(message().find("misaligned"), std::string::npos) << message();
}

TEST_F(ImageValidation, WrongBoard)
{
    tessera::PackOptions o = *options_;
    o.board = "siracusa";
    img_ = pack_image(o);
    EXPECT_EQ(open(), TESSERA_ERR_WRONG_BOARD);
    EXPECT_NE(message().find("planned for board 'siracusa'"), std::string::npos) << message();
    EXPECT_NE(message().find("opened on 'host'"), std::string::npos) << message();
}

TEST_F(ImageValidation, BoardSmallerThanPlan)
{
    tsr_hal_board small = *board_->hal();
    small.regions[TSR_REGION_L2].size = header().region_bytes[TSR_REGION_L2] - 64;
    EXPECT_EQ(open(0, &small), TESSERA_ERR_BOARD_TOO_SMALL);
    EXPECT_NE(message().find("bytes of L2"), std::string::npos) << message();
}

TEST_F(ImageValidation, UnknownOperator)
{
    step(TSR_SECTION_SCHEDULE_TOKEN, 4).op = 99;
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("token schedule step 4 (op 99)"), std::string::npos) << message();
}

// Each operator resolves its variant from the step's element type and arithmetic; a
// combination it has no row for is refused at open, naming both.
TEST_F(ImageValidation, AStepWhoseVariantDoesNotRunItIsRefusedNamingBoth)
{
    uint32_t i = 0;
    while (step(TSR_SECTION_SCHEDULE_TOKEN, i).op != TSR_OP_RMSNORM) ++i;
    ASSERT_EQ(step(TSR_SECTION_SCHEDULE_TOKEN, i).variant, TSR_VARIANT_RMSNORM_F32); // what the packer wrote
    step(TSR_SECTION_SCHEDULE_TOKEN, i).variant = TSR_VARIANT_RMSNORM_I8_FLOAT; // an int8 row for an fp32 step
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("names variant rmsnorm.i8.float, which does not run a step of element type f32"),
              std::string::npos)
        << message();
    step(TSR_SECTION_SCHEDULE_TOKEN, i).variant = TSR_VARIANT_MATMUL_F32; // another operator's row
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("(rmsnorm): names variant matmul.f32, which does not run"), std::string::npos) << message();
    step(TSR_SECTION_SCHEDULE_TOKEN, i).variant = TSR_VARIANT_RMSNORM_F32;
    step(TSR_SECTION_SCHEDULE_TOKEN, i).dtype = TSR_DTYPE_I16; // no operator computes in int16
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("names variant rmsnorm.f32, which does not run a step of element type i16"),
              std::string::npos)
        << message();
}

// A step's parameters are its variant's struct: a record tagged with another variant, of
// another length, or with bytes after the struct is refused at open, naming the step.
TEST_F(ImageValidation, AParameterRecordThatIsNotItsVariantsStructIsRefused)
{
    uint32_t i = 0;
    while (step(TSR_SECTION_SCHEDULE_TOKEN, i).op != TSR_OP_RMSNORM) ++i;
    tsr_step &s = step(TSR_SECTION_SCHEDULE_TOKEN, i);
    ASSERT_EQ(s.params.variant, TSR_VARIANT_RMSNORM_F32);
    ASSERT_EQ(s.params.bytes, sizeof(tsr_rmsnorm_float_params)); // dim, eps
    const tsr_param_record good = s.params;
    const std::string what = "token schedule step " + std::to_string(i) + " (rmsnorm.f32): its parameter record ";
    s.params.variant = TSR_VARIANT_RMSNORM_I8; // another variant's tag
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find(what + "(variant 9, 8 bytes) is not its variant's 8-byte struct followed by zeros"),
              std::string::npos)
        << message();
    s.params = good;
    s.params.bytes = 16; // rmsnorm.i8.integer's length
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find(what + "(variant 7, 16 bytes)"), std::string::npos) << message();
    s.params = good;
    s.params.data[2] = 1; // a word after the struct
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find(what + "(variant 7, 8 bytes) is not"), std::string::npos) << message();
    s.params = good;
    resign();
    EXPECT_EQ(open(), TESSERA_OK) << message();
}

TEST_F(ImageValidation, AVariantIdTheFormatDoesNotHaveIsRefused)
{
    for (const uint32_t id : {0u, uint32_t(TSR_VARIANT_ID_END), 0xFFFFu}) {
        step(TSR_SECTION_SCHEDULE_PROMPT, 1).variant = uint16_t(id);
        resign();
        EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
        EXPECT_NE(message().find("prompt schedule step 1 (" + std::string(tsr_op_name(step(TSR_SECTION_SCHEDULE_PROMPT, 1).op)) +
                                 "): names variant " + std::to_string(id) + ", which image format version " +
                                 std::to_string(TSR_IMAGE_VERSION) + " does not have"),
                  std::string::npos)
            << message();
    }
}

TEST_F(ImageValidation, AStepsReservedFieldsMustBeZero)
{
    step(TSR_SECTION_SCHEDULE_TOKEN, 2).reserved[3] = 1u; // room a later version may use
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("token schedule step 2 (" + std::string(tsr_op_name(step(TSR_SECTION_SCHEDULE_TOKEN, 2).op)) +
                             "): reserved fields are not 0"),
              std::string::npos)
        << message();
}

TEST_F(ImageValidation, OperandTooSmallForTheOperator)
{
    // Find a matmul and claim a larger output than its buffer holds.
    for (uint32_t i = 0;; ++i) {
        tsr_step &s = step(TSR_SECTION_SCHEDULE_PROMPT, i);
        if (s.op != TSR_OP_MATMUL) continue;
        params_in<tsr_matmul_shape>(s).n *= 4;
        break;
    }
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("smaller than the operator reads or writes"), std::string::npos) << message();
}

// A matmul step for several outputs (Q, K and V): its split within n, its outputs named
// only where it splits, each in L1.
TEST_F(ImageValidation, AMatmulSplitBeyondItsColumnsIsRefused)
{
    tsr_step *split = &first_split_matmul();
    tsr_matmul_shape &p = params_in<tsr_matmul_shape>(*split);
    p.split[1] = p.n - p.split[0]; // nothing left for V
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("output split (split) out of range"), std::string::npos) << message();
}

TEST_F(ImageValidation, AMatmulNamingOutputsItDoesNotSplitToIsRefused)
{
    tsr_step *split = &first_split_matmul();
    params_in<tsr_matmul_shape>(*split).split[0] = params_in<tsr_matmul_shape>(*split).split[1] = 0; // one output; K and V still named
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("operand 3: names a tensor the step does not use"), std::string::npos) << message();
}

TEST_F(ImageValidation, ASplitMatmulsOutputOutsideL1IsRefused)
{
    tsr_step *split = &first_split_matmul();
    tensor(split->operands[3]).region = TSR_REGION_L2;
    tensor(split->operands[3]).offset = 0; // where the L2 plan has room (whatever else is there)
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("operand 3: is an output of a split matmul outside L1 and not staged"), std::string::npos) << message();
}

TEST_F(ImageValidation, StepWritingIntoWeights)
{
    tsr_step &s = step(TSR_SECTION_SCHEDULE_TOKEN, 0); // embed: operand 2 is written
    s.operands[2] = s.operands[1];                     // the embedding table
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("is written but is a weight"), std::string::npos) << message();
}

// Found by fuzz_image_resigned (issue 18's long run): a step whose output is the step
// table, which holds the pointers the executor follows, overwrote them (the executor
// then ran a step on null addresses; any address an image chose was as easy).
TEST_F(ImageValidation, StepWritingIntoTheStepTableIsRefused)
{
    tsr_step &s = step(TSR_SECTION_SCHEDULE_TOKEN, 0); // embed: operand 2 is written
    s.operands[2] = uint16_t(header().step_table_tensor);
    ASSERT_EQ(tensor(header().step_table_tensor).dtype, s.dtype); // only the kind tells it apart
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("operand 2: is the runtime's step table"), std::string::npos) << message();
}

// Issue 7, second reproducer: a correctly signed siracusa image whose token
// schedule embeds the prompt's token tensor, memory the plan reuses for
// activations, so floats were read as ids and the DMA copied from far outside the
// table. The reader pins EMBED's ids to the schedule's own token input.
TEST_F(ImageValidation, EmbedReadingAnotherTensorThanItsTokenInputIsRefused)
{
    tessera::PackOptions o = *options_;
    o.board = "siracusa";
    img_ = pack_image(o);
    auto siracusa = tessera::HostBoard::create(tessera::load_board_desc("siracusa"), 2);
    tsr_step &embed = step(TSR_SECTION_SCHEDULE_TOKEN, 0);
    ASSERT_EQ(embed.op, TSR_OP_EMBED);
    ASSERT_EQ(embed.operands[0], header().tokens_tensor_token);
    embed.operands[0] = uint16_t(header().tokens_tensor_prompt);
    resign();
    EXPECT_EQ(open(0, siracusa->hal()), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_EQ(message(), "tessera_open: token schedule step 0 (embed) operand 0: names tensor " +
                             std::to_string(header().tokens_tensor_prompt) +
                             ", must be the schedule's token input tensor " + std::to_string(header().tokens_tensor_token))
        << message();
}

TEST_F(ImageValidation, AttentionOverActivationsInsteadOfTheCacheIsRefused)
{
    for (uint32_t i = 0;; ++i) {
        tsr_step &s = step(TSR_SECTION_SCHEDULE_TOKEN, i);
        if (s.op != TSR_OP_ATTENTION) continue;
        s.operands[1] = s.operands[4]; // large enough, F32, but an activation
        break;
    }
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("operand 1: "), std::string::npos) << message();
}

// Whatever writes the ids EMBED reads (memory shared with another buffer, a
// board's DMA gone wrong), the executor checks each one against the table.
TEST_F(ImageValidation, EmbedChecksEveryIdAtRunTime)
{
    ASSERT_EQ(open(), TESSERA_OK) << message();
    const tsr::Session &s = *tsr::session_of(&session_);
    int32_t *ids = reinterpret_cast<int32_t *>(tsr::tensor_address(s.image, board_->hal(), header().tokens_tensor_prompt));
    const int32_t vocab = int32_t(header().vocab_size);
    for (const int32_t bad : {vocab, vocab + 1000, -7, INT32_MIN}) {
        ids[0] = 5;
        ids[1] = bad;
        char text[192];
        tsr::Message err(text, sizeof text);
        EXPECT_EQ(tsr::run_schedule(s.image, board_->hal(), s.image.prompt, 2, 0, err, nullptr, nullptr), TESSERA_ERR_BAD_TOKEN);
        const std::string id = bad < 0 ? "-" + std::to_string(-int64_t(bad)) : std::to_string(bad);
        EXPECT_EQ(std::string(text), "step 0 (embed): row 1 reads token id " + id + ", vocabulary is 0.." +
                                         std::to_string(vocab - 1));
    }
}

// Plans for a small L1 stream operands through staging; take that away.
class TiledImageValidation : public ImageValidation {
protected:
    void SetUp() override
    {
        tessera::PackOptions o = *options_;
        o.l1_bytes = 4096;
        img_ = pack_image(o);
    }
    tsr_step *first_staged(uint32_t &operand)
    {
        for (uint32_t i = 0;; ++i) {
            tsr_step &s = step(TSR_SECTION_SCHEDULE_TOKEN, i);
            for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k)
                if (s.staging[k] != TSR_NO_TENSOR && s.op == TSR_OP_MATMUL) {
                    operand = k;
                    return &s;
                }
        }
    }
};

TEST_F(TiledImageValidation, ValidTiledImageOpens) { EXPECT_EQ(open(), TESSERA_OK) << message(); }

TEST_F(TiledImageValidation, KernelOperandOutsideL1WithoutStagingIsRefused)
{
    uint32_t k = 0;
    first_staged(k)->staging[k] = TSR_NO_TENSOR;
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("is a kernel operand outside L1 and not staged"), std::string::npos) << message();
}

// A staging buffer's slots hold elements of up to 8 bytes: one off that alignment (the
// fuzzer's: float stores to an odd address) is refused.
TEST_F(TiledImageValidation, AStagingBufferOffEightByteAlignmentIsRefused)
{
    uint32_t k = 0;
    tensor(first_staged(k)->staging[k]).offset -= 4;
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("staging tensor is not 8-byte aligned in L1"), std::string::npos) << message();
}

// An image planned for a board whose cores do its copies (dma.by_core) says so in its
// header, and then an unstaged operand outside L1 is read where it lies.
TEST_F(TiledImageValidation, AnUnstagedOperandOutsideL1OpensWhenTheHeaderSaysOperandsInPlace)
{
    uint32_t k = 0;
    first_staged(k)->staging[k] = TSR_NO_TENSOR;
    header().flags |= TSR_IMAGE_OPERANDS_IN_PLACE;
    resign();
    EXPECT_EQ(open(), TESSERA_OK) << message();
}

TEST_F(TiledImageValidation, StagingSmallerThanItsTilesIsRefused)
{
    uint32_t k = 0;
    tsr_step *s = first_staged(k);
    tensor(s->staging[k]).size = 64;
    tensor(s->staging[k]).dims[1] = 16; // a consistent tensor, just too small for the tiles
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("staging tensor is smaller than its tiles"), std::string::npos) << message();
}

TEST_F(TiledImageValidation, TileLargerThanTheOperatorIsRefused)
{
    uint32_t k = 0;
    tsr_step *s = first_staged(k);
    s->tile[1] = s->params.data[1] + 1; // the operator's second size: n, dim or kv_dim
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("tile sizes out of range"), std::string::npos) << message();
}

TEST_F(TiledImageValidation, RandomCorruptionOfATiledImageIsRefusedOrHarmless)
{
    // Tile sizes and staging ids are trusted by the executor once validated:
    // corrupt them (and everything else) at random; open must refuse or run.
    std::mt19937 rng(9);
    const AlignedImage pristine = img_;
    for (int trial = 0; trial < 300; ++trial) {
        img_ = pristine;
        for (int flips = 0; flips < 3; ++flips) img_.data()[rng() % img_.size] ^= uint8_t(1u << (rng() % 8));
        if (trial % 2) resign(); // half of them hostile (consistent checksums), half corrupt
        if (open() != TESSERA_OK) {
            EXPECT_FALSE(message().empty());
            continue;
        }
        const int32_t ids[] = {1, 5, 7};
        const tessera_status st = tessera_prompt(&session_, ids, 3);
        EXPECT_TRUE(st == TESSERA_OK || st == TESSERA_ERR_KERNEL) << message();
        if (st == TESSERA_OK) EXPECT_EQ(tessera_step(&session_, 9), TESSERA_OK) << message();
    }
}

// Found by the re-signing fuzzer: a board name is printed in messages and by the
// tools; a hostile one could break the one-line rule (or a terminal).
TEST_F(ImageValidation, BoardNameMustBeOnePrintableWord)
{
    for (const char *name : {"host\nerror 0: all fine", "", "ho st", "\x1b[2J"}) {
        std::memset(header().board_name, 0, TSR_BOARD_NAME_BYTES);
        std::memcpy(header().board_name, name, std::strlen(name));
        resign();
        EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_HEADER) << name;
        EXPECT_EQ(message(), "tessera_open: image header: board name is not 1..31 printable characters and a NUL");
        tessera_image_summary summary;
        char error[128];
        EXPECT_EQ(tessera_image_peek(img_.data(), img_.size, &summary, error, sizeof error), TESSERA_ERR_IMAGE_BAD_HEADER);
    }
}

TEST_F(ImageValidation, HeaderFieldOutOfRange)
{
    header().context = header().seq_len + 1;
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_HEADER);
    EXPECT_NE(message().find("context"), std::string::npos) << message();
}

TEST_F(ImageValidation, SectionPastTheEnd)
{
    section(TSR_SECTION_TOKENIZER).size = uint32_t(img_.size);
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SECTION);
    EXPECT_NE(message().find("extends past the end"), std::string::npos) << message();
}

TEST_F(ImageValidation, MisalignedBuffer)
{
    AlignedImage shifted;
    shifted.resize(img_.size + 4);
    std::memcpy(shifted.data() + 4, img_.data(), img_.size);
    EXPECT_EQ(tessera_open(&session_, shifted.data() + 4, img_.size, board_->hal()), TESSERA_ERR_IMAGE_MISALIGNED);
    EXPECT_NE(message().find("not 16-byte aligned"), std::string::npos) << message();
}

TEST_F(ImageValidation, EveryClassHasItsOwnStatus)
{
    const std::set<tessera_status> codes = {TESSERA_ERR_IMAGE_TRUNCATED,     TESSERA_ERR_IMAGE_BAD_MAGIC,
                                            TESSERA_ERR_IMAGE_BAD_VERSION,   TESSERA_ERR_IMAGE_BAD_CHECKSUM,
                                            TESSERA_ERR_IMAGE_BAD_PLACEMENT, TESSERA_ERR_WRONG_BOARD};
    EXPECT_EQ(codes.size(), 6u);
    std::set<std::string> names;
    for (tessera_status s : codes) names.insert(tessera_status_string(s));
    EXPECT_EQ(names.size(), 6u);
}

TEST_F(ImageValidation, RandomCorruptionIsRefusedOrHarmless)
{
    // Flipped bytes and cut lengths: open must return, never crash; a flip the
    // checks cannot see (padding) may open, and must then run.
    std::mt19937 rng(5);
    const AlignedImage pristine = img_;
    int refused = 0;
    for (int trial = 0; trial < 300; ++trial) {
        img_ = pristine;
        const size_t at = rng() % img_.size;
        img_.data()[at] ^= uint8_t(1u << (rng() % 8));
        const size_t size = trial % 3 == 0 ? rng() % img_.size : img_.size;
        if (open(size) != TESSERA_OK) {
            ++refused;
            EXPECT_FALSE(message().empty());
            continue;
        }
        const int32_t ids[] = {1, 5};
        EXPECT_EQ(tessera_prompt(&session_, ids, 2), TESSERA_OK);
    }
    EXPECT_GT(refused, 250);
}

// An int8 image whose embedding reads the classifier's per-channel table (--tied-embedding
// shared): its embed step's form, table and rescaling table are checked like any other.
class SharedTableValidation : public ImageValidation {
protected:
    void SetUp() override
    {
        tessera::PackOptions o = *options_;
        o.precision = tessera::Precision::kInt8;
        o.shared_table_bits = 8;
        o.output = temp_path("shared_table.tess");
        img_ = pack_image(o);
    }
    tsr_step &embed() { return step(TSR_SECTION_SCHEDULE_TOKEN, 0); }
};

TEST_F(SharedTableValidation, OpensAndRefusesAFormItsTableIsNot)
{
    ASSERT_EQ(embed().op, TSR_OP_EMBED);
    ASSERT_EQ(embed().variant, TSR_VARIANT_EMBED_I8_ROWS);
    ASSERT_EQ(open(), TESSERA_OK) << message();
    embed().variant = TSR_VARIANT_EMBED_I8_W4; // 4-bit rows of an 8-bit table (the same struct)
    embed().params.variant = TSR_VARIANT_EMBED_I8_W4;
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("token schedule step 0 (embed) operand 1: the table is not vocab x dim per channel in "
                             "layout W4_G32"),
              std::string::npos)
        << message();
}

TEST_F(SharedTableValidation, ARescalingTableTooSmallOrOfAnotherTypeIsRefused)
{
    const uint32_t vocab = header().vocab_size;
    const uint32_t small = [&] { // a weight of fewer bytes than vocab factors
        for (uint32_t t = 0;; ++t)
            if (tensor(t).kind == TSR_TENSOR_WEIGHT && tensor(t).dtype == TSR_DTYPE_I32 && tensor(t).size < vocab * 5u)
                return t;
    }();
    params_in<tsr_embed_rescaled_params>(embed()).requant = small;
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("rescaling table does not fit"), std::string::npos) << message();
    params_in<tsr_embed_rescaled_params>(embed()).requant = 0xFFFFu; // no tensor
    resign();
    EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE);
    EXPECT_NE(message().find("rescaling table does not fit"), std::string::npos) << message();
}

} // namespace

namespace {

// An int8 image (Tessera's own integer lowering): its SwiGLU steps read a table of silu16
// and its attention steps a table of exponentials, both checked at open like any constant.
class Int8TablesValidation : public ImageValidation {
protected:
    void SetUp() override
    {
        tessera::PackOptions o = *options_;
        o.precision = tessera::Precision::kInt8;
        o.output = temp_path("int8_tables.tess");
        img_ = pack_image(o);
    }
    tsr_step &token_step(uint32_t op)
    {
        const auto *h = reinterpret_cast<const tsr_schedule_header *>(section_bytes(TSR_SECTION_SCHEDULE_TOKEN));
        for (uint32_t i = 0; i < h->step_count; ++i)
            if (step(TSR_SECTION_SCHEDULE_TOKEN, i).op == op) return step(TSR_SECTION_SCHEDULE_TOKEN, i);
        throw std::runtime_error("no such step in the token schedule");
    }
    // A weight tensor's bytes in the file: its region's weights section, copied there at open.
    uint8_t *weight_bytes(uint32_t id)
    {
        const tsr_tensor &t = tensor(id);
        auto *s = reinterpret_cast<tsr_section *>(img_.data() + header().section_table_offset);
        for (uint32_t i = 0; i < header().section_count; ++i)
            if (s[i].kind == TSR_SECTION_WEIGHTS && s[i].region == t.region && s[i].region != TSR_REGION_IMAGE &&
                t.offset >= s[i].region_offset && t.offset + t.size <= s[i].region_offset + s[i].size)
                return img_.data() + s[i].file_offset + (t.offset - s[i].region_offset);
        throw std::runtime_error("weight not in a copied section");
    }
    // A weight of `dtype` smaller than `bytes`.
    uint32_t weight_smaller_than(uint32_t dtype, uint32_t bytes)
    {
        for (uint32_t t = 0; t < header().tensor_count; ++t)
            if (tensor(t).kind == TSR_TENSOR_WEIGHT && tensor(t).dtype == dtype && tensor(t).size < bytes) return t;
        throw std::runtime_error("no such weight");
    }
    // Greedy ids of 8 tokens from token 1.
    void greedy(int32_t *ids)
    {
        tessera_sampler s;
        tessera_sampler_init(&s, 0.0f, 0.0f, 1);
        int32_t token = 1;
        for (int i = 0; i < 8; ++i) {
            ASSERT_EQ(i == 0 ? tessera_prompt(&session_, &token, 1) : tessera_step(&session_, token), TESSERA_OK) << message();
            ASSERT_EQ(tessera_sample(&session_, &s, &ids[i]), TESSERA_OK);
            token = ids[i];
        }
    }
};

TEST_F(Int8TablesValidation, ATableTooSmallOrOfAnotherTypeIsRefused)
{
    ASSERT_EQ(token_step(TSR_OP_SWIGLU).variant, TSR_VARIANT_SWIGLU_I8);
    ASSERT_EQ(token_step(TSR_OP_ATTENTION).variant, TSR_VARIANT_ATTENTION_I8);
    ASSERT_EQ(open(), TESSERA_OK) << message();
    const tsr_step good_swiglu = token_step(TSR_OP_SWIGLU), good_attention = token_step(TSR_OP_ATTENTION);
    for (const uint32_t bad : {weight_smaller_than(TSR_DTYPE_I16, 512u), weight_smaller_than(TSR_DTYPE_I8, 1u << 30),
                               uint32_t(TSR_NO_TENSOR)}) {
        params_in<tsr_swiglu_i8_params>(token_step(TSR_OP_SWIGLU)).silu = bad;
        resign();
        EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE) << bad;
        EXPECT_NE(message().find("(swiglu)"), std::string::npos) << message();
        EXPECT_NE(message().find("SiLU table does not fit"), std::string::npos) << message();
    }
    token_step(TSR_OP_SWIGLU) = good_swiglu;
    for (const uint32_t bad : {weight_smaller_than(TSR_DTYPE_I32, 1024u), weight_smaller_than(TSR_DTYPE_I8, 1u << 30),
                               uint32_t(TSR_NO_TENSOR)}) {
        params_in<tsr_attention_i8_params>(token_step(TSR_OP_ATTENTION)).exps = bad;
        resign();
        EXPECT_EQ(open(), TESSERA_ERR_IMAGE_BAD_SCHEDULE) << bad;
        EXPECT_NE(message().find("(attention)"), std::string::npos) << message();
        EXPECT_NE(message().find("softmax table does not fit"), std::string::npos) << message();
    }
    token_step(TSR_OP_ATTENTION) = good_attention;
    resign();
    EXPECT_EQ(open(), TESSERA_OK) << message();
}

// A table of exponentials out of the kernels' ranges (a first entry of 0: a row's sum could
// be 0; an entry of 2^18 and more: its probabilities' products overflow) is not read: the
// kernels compute each exponential, the same integers as the packer's table gives. (The
// portable kernels, which read the table: the host's AVX2 softmax computes either way.)
TEST_F(Int8TablesValidation, ExponentialsOutOfRangeAreComputedInstead)
{
    auto portable = tessera::HostBoard::create(tessera::load_board_desc("host"), 2);
    portable->use_portable_kernels();
    int32_t want[8], got[8];
    ASSERT_EQ(open(0, portable->hal()), TESSERA_OK) << message();
    greedy(want);
    tessera_close(&session_);
    for (const uint32_t entry : {0u, 255u}) {
        uint32_t *exps = reinterpret_cast<uint32_t *>(weight_bytes(params_in<tsr_attention_i8_params>(token_step(TSR_OP_ATTENTION)).exps));
        const uint32_t kept = exps[entry];
        exps[entry] = entry == 0u ? 0u : 1u << 18;
        resign();
        ASSERT_EQ(open(0, portable->hal()), TESSERA_OK) << message();
        greedy(got);
        tessera_close(&session_);
        EXPECT_TRUE(std::equal(got, got + 8, want)) << "entry " << entry;
        exps[entry] = kept;
    }
}

} // namespace
