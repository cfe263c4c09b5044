// stories260K in bf16 and int8: accuracy against the fp32 image, teacher-forced on
// the golden sequence with tessera-eval (thresholds of the quantized-paths issue),
// and output that does not depend on the thread count or on the L1 the plan had,
// down to the smallest L1 the packer accepts.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/golden.h"
#include "support/tool_run.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"

namespace {

using namespace tessera::test;

struct Variant {
    const char *name, *precision, *nonlinear, *exp;
    const char *weight_type = "fp32";
};

class Precision : public ::testing::Test {
protected:
    void SetUp() override
    {
        shared_ = shared_dir();
        if (shared_.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found: ../shared/models and ../shared/golden are needed";
        ids_path_ = golden_ids_file(shared_, true); // BOS, then run.c's greedy continuation
    }
    tessera::PackOptions options(const Variant &v, const std::string &file) const
    {
        tessera::PackOptions o;
        o.checkpoint = shared_ + "/models/stories260K.bin";
        o.tokenizer = shared_ + "/models/tok512.bin";
        o.output = temp_path(file);
        o.precision = tessera::parse_option(tessera::kPrecisionNames, v.precision, "precision");
        o.nonlinear = tessera::parse_option(tessera::kNonlinearNames, v.nonlinear, "nonlinear");
        o.exp = tessera::parse_option(tessera::kExpNames, v.exp, "exp");
        o.weight_type = tessera::parse_option(tessera::kWeightTypeNames, v.weight_type, "weight type");
        return o;
    }
    nlohmann::json eval(const std::string &image, const std::string &reference) const
    {
        return eval_json(TESSERA_EVAL_BIN, image, ids_path_, reference);
    }
    std::string shared_, ids_path_;
};

TEST_F(Precision, AccuracyAgainstFp32OnTheGoldenSequence)
{
    tessera::PackOptions ref = options({"fp32", "fp32", "integer", "accurate"}, "precision_fp32.tess");
    ref.prompt_logits_all = true;
    tessera::pack(ref);
    // bf16: >= 99 % top-1 agreement, perplexity within 1 %; int8: >= 95 %, within 5 %;
    // W4A8 (4-bit decoder weights in groups of 32): >= 90 %, within 12 %.
    const struct {
        Variant v;
        double agreement, perplexity;
    } cases[] = {{{"bf16", "bf16", "integer", "accurate"}, 0.99, 0.01},
                 {{"bf16_schraudolph", "bf16", "integer", "schraudolph"}, 0.99, 0.01},
                 {{"int8_integer", "int8", "integer", "accurate"}, 0.95, 0.05},
                 {{"int8_float", "int8", "float", "accurate"}, 0.95, 0.05},
                 {{"int8_w4", "int8", "integer", "accurate", "int4"}, 0.90, 0.12}};
    for (const auto &c : cases) {
        tessera::PackOptions o = options(c.v, std::string("precision_") + c.v.name + ".tess");
        o.prompt_logits_all = true;
        tessera::pack(o);
        const nlohmann::json j = eval(o.output, ref.output);
        const double ppl = j["perplexity"], ref_ppl = j["reference_perplexity"], agree = j["top1_agreement"];
        std::printf("MEASURED %s: perplexity %.6f (fp32 %.6f, %+.2f %%), top-1 agreement %.1f %% over %d positions\n",
                    c.v.name, ppl, ref_ppl, 100.0 * (ppl / ref_ppl - 1.0), 100.0 * agree, int(j["positions"]));
        EXPECT_GE(agree, c.agreement) << c.v.name;
        EXPECT_LE(std::abs(ppl / ref_ppl - 1.0), c.perplexity) << c.v.name;
    }
}

// The smallest L1 (a multiple of 256 bytes) the packer accepts for these options.
uint64_t smallest_l1(tessera::PackOptions o)
{
    uint64_t lo = 256, hi = 1 << 20; // hi packs (the host board's L1)
    while (hi - lo > 256) {
        o.l1_bytes = (lo + hi) / 2 / 256 * 256;
        try {
            tessera::pack(o);
            hi = o.l1_bytes;
        } catch (const tessera::PlanError &) {
            lo = o.l1_bytes;
        }
    }
    return hi;
}

TEST_F(Precision, SameIdsAcrossThreadsAndL1Sizes)
{
    for (const Variant &v : {Variant{"bf16", "bf16", "integer", "accurate"}, Variant{"int8", "int8", "integer", "accurate"},
                             Variant{"int8_float", "int8", "float", "accurate"},
                             Variant{"int8_w4", "int8", "integer", "accurate", "int4"}}) {
        tessera::PackOptions o = options(v, std::string("precision_l1_") + v.name + ".tess");
        const uint64_t least = smallest_l1(o);
        std::vector<int32_t> first;
        for (uint64_t l1 : {uint64_t(0), uint64_t(64 * 1024), least}) {
            o.l1_bytes = l1;
            for (uint32_t threads : {1u, 2u, 8u}) {
                auto m = open_model(o, threads);
                ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
                const std::vector<int32_t> ids = generate_greedy(*m, {1}, 80);
                if (first.empty()) first = ids;
                EXPECT_EQ(ids, first) << v.name << ": L1 " << l1 << ", " << threads << " threads";
            }
        }
        std::printf("MEASURED %s: the same %zu ids on 1, 2 and 8 threads with L1 of the board, 64 KiB and %llu bytes "
                    "(the smallest the packer accepts)\n", v.name, first.size(), (unsigned long long)least);
    }
}

} // namespace
