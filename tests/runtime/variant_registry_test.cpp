// A runtime registers the variants a list names (tessera/variant_registry.h): this test
// links one without attention.i8.integer (support/variants_without_attention_i8.c) in
// place of the library's list of every variant.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "support/golden.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"
#include "tessera/pack/image_writer.h"
#include "tessera/pack/variant_list.h"
#include "tessera/variants.h"

namespace {

using namespace tessera::test;

tessera::PackOptions stories_fp32(const std::string &shared, const std::string &file)
{
    tessera::PackOptions o;
    o.checkpoint = shared + "/models/stories260K.bin";
    o.tokenizer = shared + "/models/tok512.bin";
    o.board = "siracusa";
    o.output = temp_path(file);
    return o;
}

TEST(VariantRegistry, AnImageWhoseVariantsAreRegisteredRuns)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    auto m = open_model(stories_fp32(shared, "registry_fp32.tess"), 2);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    // run.c's greedy ids (../shared/golden), as with the library's list of every variant.
    std::vector<int32_t> want;
    for (const GoldenStep &g : read_golden(shared + "/golden/stories260K.greedy200.txt")) want.push_back(g.next);
    ASSERT_EQ(want.size(), 200u);
    EXPECT_EQ(generate_greedy(*m, {1}, 200), want);
}

TEST(VariantRegistry, AVariantTheRuntimeWasBuiltWithoutIsRefusedByName)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    auto m = open_model(stories260k_int8(shared, "siracusa", "cluster", temp_path("registry_int8.tess")), 2);
    EXPECT_EQ(m->status, TESSERA_ERR_IMAGE_UNSUPPORTED);
    const std::string message = tessera_last_error(&m->session);
    EXPECT_NE(message.find("prompt schedule step "), std::string::npos) << message;
    EXPECT_NE(message.find(" (attention): variant attention.i8.integer is not in this runtime"), std::string::npos)
        << message;
}

// The packer's list for an image names exactly the variants its steps run, in a source
// that registers them.
TEST(VariantRegistry, ThePackersListNamesTheVariantsOfTheImage)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    tessera::PackOptions o = stories260k_int8(shared, "siracusa", "cluster", temp_path("registry_list.tess"));
    o.variant_list = temp_path("registry_list.c");
    const tessera::PackResult r = tessera::pack(o);
    const std::vector<uint16_t> ids = tessera::image_variants(r.graph);
    // The int8 (integer) forward pass, by hand: the three moves, and add, RMSNorm, RoPE,
    // SwiGLU, attention and matmul in int8, with the logits' matmul dequantizing to fp32.
    const std::set<uint16_t> want = {TSR_VARIANT_EMBED,   TSR_VARIANT_KV_APPEND,    TSR_VARIANT_LAST_ROW,
                                     TSR_VARIANT_ADD_I8,  TSR_VARIANT_RMSNORM_I8,   TSR_VARIANT_ROPE_I8,
                                     TSR_VARIANT_SWIGLU_I8, TSR_VARIANT_ATTENTION_I8, TSR_VARIANT_MATMUL_I8,
                                     TSR_VARIANT_MATMUL_I8_F32_OUT};
    EXPECT_EQ(std::set<uint16_t>(ids.begin(), ids.end()), want);
    std::ifstream in(o.variant_list);
    const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(source.find("&TSR_VARIANT_IMPL(ATTENTION_I8),"), std::string::npos) << source;
    EXPECT_NE(source.find(" * attention.i8.integer\n"), std::string::npos) << source;
    EXPECT_EQ(source.find("F32)"), std::string::npos) << source; // no fp32 kernel: only MATMUL_I8_F32_OUT's output
    EXPECT_NE(source.find("const uint32_t tsr_variant_count ="), std::string::npos) << source;
}

} // namespace

namespace {

// For a board whose cores run a tuned kernel set (mps3-an547: arm-mve), the list names
// that set's implementation of each variant it tunes in place of the portable one, each
// guarded so that a runtime built without the set compiles the portable one instead.
TEST(VariantRegistry, ThePackersListForABoardWithAKernelSetNamesItsTunedImplementations)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    tessera::PackOptions o = stories260k_int8(shared, "mps3-an547", "auto", temp_path("registry_m55.tess"));
    o.variant_list = temp_path("registry_m55.c");
    tessera::pack(o);
    std::ifstream in(o.variant_list);
    const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const char *tuned : {"MATMUL_I8", "MATMUL_I8_F32_OUT", "ATTENTION_I8", "ROPE_I8"}) {
        const std::string name(tuned);
        EXPECT_NE(source.find("TSR_IF_KERNEL_SET_ARM_MVE(&TSR_VARIANT_IMPL_TUNED(" + name + ", ARM_MVE), )\n"
                              "    TSR_IF_NOT_KERNEL_SET_ARM_MVE(&TSR_VARIANT_IMPL(" + name + "),)\n"),
                  std::string::npos)
            << source;
    }
    EXPECT_NE(source.find("    &TSR_VARIANT_IMPL(KV_APPEND),\n"), std::string::npos) << source; // not tuned there
    EXPECT_NE(source.find("#include \"tessera/kernel_sets.h\""), std::string::npos) << source;
}

} // namespace
