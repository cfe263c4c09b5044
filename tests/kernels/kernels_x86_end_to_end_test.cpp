// The x86 AVX2 kernel set end to end: stories260K in int8 gives the same ids with the host
// board's tuned kernels as with the portable ones. (Kernel by kernel, every set is held to
// the portable kernels by kernel_conformance.c.) Skipped on a machine without AVX2.
#include <gtest/gtest.h>

#include <vector>

#include "support/packed_image.h"
#include "support/synthetic_model.h"
#include "tessera/kernels_x86.h"

namespace {

using namespace tessera::test;

class KernelsX86 : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!tsr_x86_avx2_available()) GTEST_SKIP() << "this machine has no AVX2";
    }
};

// The host board's description names x86-avx2; the same greedy ids with either set.
TEST_F(KernelsX86, Stories260KInt8GivesTheSameIdsWithEitherSet)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    auto m = open_model(stories260k_int8(shared, "host", "cluster", temp_path("x86_set.tess")), 1);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    ASSERT_EQ(m->board->isa(), uint32_t(TSR_ISA_X86_AVX2));
    const std::vector<int32_t> tuned = generate_greedy(*m, {1}, 200);
    tessera_close(&m->session);
    m->board->use_portable_kernels();
    ASSERT_EQ(tessera_open(&m->session, m->image.data(), m->image.size, m->board->hal()), TESSERA_OK);
    EXPECT_EQ(generate_greedy(*m, {1}, 200), tuned);
    EXPECT_EQ(tuned.size(), 200u); // positions 1..200 after BOS
}

} // namespace
