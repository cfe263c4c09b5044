// tessera-eval as a user runs it: its perplexity against the double-precision
// reference on a synthetic model, top-1 agreement against another image, prompt and
// token modes agreeing, and its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "support/packed_image.h"
#include "support/reference_llama.h"
#include "support/synthetic_model.h"
#include "support/tool_run.h"

namespace {

using namespace tessera::test;

ToolRun run(const std::string &args) { return run_tool(std::string(TESSERA_EVAL_BIN) + " " + args); }

class Eval : public ::testing::Test {
protected:
    void SetUp() override
    {
        c_.seq_len = 40;
        weights_ = make_weights(c_);
        options_.checkpoint = temp_path("eval.bin");
        options_.tokenizer = temp_path("eval.tok");
        write_legacy_checkpoint(options_.checkpoint, c_, weights_);
        write_tokenizer(options_.tokenizer, c_.vocab_size);
        std::mt19937 rng(5);
        ids_ = {1};
        for (int i = 0; i < 30; ++i) ids_.push_back(int32_t(3 + rng() % uint32_t(c_.vocab_size - 3)));
        ids_path_ = temp_path("eval_ids.txt");
        std::ofstream out(ids_path_);
        for (int32_t id : ids_) out << id << (id % 3 ? ' ' : '\n'); // any whitespace
    }
    std::string pack(const std::string &name, bool prompt_logits_all, const SyntheticConfig *other = nullptr)
    {
        tessera::PackOptions o = options_;
        o.output = temp_path(name);
        o.prompt_logits_all = prompt_logits_all;
        if (other) {
            o.checkpoint = temp_path(name + ".bin");
            write_legacy_checkpoint(o.checkpoint, *other, make_weights(*other));
        }
        tessera::pack(o);
        return o.output;
    }
    nlohmann::json eval_json(const std::string &args)
    {
        const ToolRun r = run(args + " --json");
        EXPECT_EQ(r.status, 0) << r.out;
        return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json{};
    }

    SyntheticConfig c_;
    SyntheticWeights weights_;
    tessera::PackOptions options_;
    std::vector<int32_t> ids_;
    std::string ids_path_;
};

TEST_F(Eval, PerplexityIsTheReferencesInBothModes)
{
    ReferenceLlama ref(c_, weights_);
    double nll = 0;
    for (size_t i = 0; i + 1 < ids_.size(); ++i) {
        const std::vector<double> logits = ref.forward(ids_[i]);
        double top = logits[0], sum = 0;
        for (double l : logits) top = std::max(top, l);
        for (double l : logits) sum += std::exp(l - top);
        nll -= logits[size_t(ids_[i + 1])] - top - std::log(sum);
    }
    const double want = std::exp(nll / double(ids_.size() - 1));

    const auto token = eval_json(pack("eval_last.tess", false) + " --ids-file " + ids_path_);
    const auto prompt = eval_json(pack("eval_all.tess", true) + " --ids-file " + ids_path_);
    EXPECT_EQ(token["mode"], "token");
    EXPECT_EQ(prompt["mode"], "prompt");
    for (const auto &j : {token, prompt}) {
        EXPECT_EQ(j["positions"], ids_.size() - 1);
        EXPECT_NEAR(j["perplexity"].get<double>(), want, 1e-4 * want) << j.dump();
        EXPECT_FALSE(j.contains("top1_agreement"));
    }
}

TEST_F(Eval, TopOneAgreementWithAReference)
{
    const std::string image = pack("eval.tess", false);
    const auto same = eval_json(image + " --ids-file " + ids_path_ + " --reference " + pack("eval_ref.tess", true));
    EXPECT_EQ(same["top1_agreement"].get<double>(), 1.0);
    EXPECT_EQ(same["perplexity"].get<double>(), same["reference_perplexity"].get<double>());

    SyntheticConfig other = c_;
    other.seed = 99; // another model of the same shape, with a classifier of its own: it must disagree
    other.shared_classifier = false;
    const auto differ = eval_json(image + " --ids-file " + ids_path_ + " --reference " + pack("eval_other.tess", false, &other));
    EXPECT_LT(differ["top1_agreement"].get<double>(), 0.9);
    EXPECT_NE(differ["perplexity"].get<double>(), differ["reference_perplexity"].get<double>());

    const ToolRun table = run(image + " --ids-file " + ids_path_ + " --reference " + image);
    EXPECT_EQ(table.status, 0);
    EXPECT_NE(table.out.find("top-1 agreement       100.00 % (30 of 30)"), std::string::npos) << table.out;
}

TEST_F(Eval, ErrorsAreOneLineAndSayWhat)
{
    const std::string image = pack("eval.tess", false);
    auto expect_error = [&](const std::string &args, const std::string &what) {
        const ToolRun r = run(args);
        EXPECT_NE(r.status, 0) << args;
        EXPECT_NE(r.out.find(what), std::string::npos) << args << "\n" << r.out;
        EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    };
    expect_error(image, "give the sequence with --ids-file FILE or --text FILE");
    const std::string bad = temp_path("bad_ids.txt");
    std::ofstream(bad) << "1 5 x7 9\n";
    expect_error(image + " --ids-file " + bad, "'x7' (word 3) is not a token id");
    std::ofstream(bad) << "1 5 300\n"; // vocabulary of 300: ids 0..299; the last id is scored, never fed
    expect_error(image + " --ids-file " + bad, "error: token id outside the vocabulary (status 31): token 300 at position 2");
    std::ofstream long_ids(bad);
    for (int i = 0; i < 41; ++i) long_ids << "5 ";
    long_ids.close();
    expect_error(image + " --ids-file " + bad, "42 tokens (BOS included), but " + image + " holds a context of 40");
    expect_error(image + " --ids-file " + temp_path("missing.txt"), "missing.txt: cannot open");
}

} // namespace

namespace {

// stories260K with bf16 matmul weights against fp32, teacher-forced on run.c's 200
// golden greedy tokens.
TEST(EvalStories260K, Bf16WeightsAgreeWithFp32)
{
    const std::string shared = shared_dir();
    if (shared.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
    tessera::PackOptions o;
    o.checkpoint = shared + "/models/stories260K.bin";
    o.tokenizer = shared + "/models/tok512.bin";
    o.prompt_logits_all = true;
    o.output = temp_path("s_fp32.tess");
    tessera::pack(o);
    const std::string fp32 = o.output;
    o.weight_type = tessera::WeightType::kBf16;
    o.output = temp_path("s_bf16w.tess");
    tessera::pack(o);
    const std::string ids = golden_ids_file(shared, false);
    const ToolRun r = run(o.output + " --ids-file " + ids + " --reference " + fp32 + " --json");
    ASSERT_EQ(r.status, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["positions"], 200);
    EXPECT_GE(j["top1_agreement"].get<double>(), 0.99);
    EXPECT_NEAR(j["perplexity"].get<double>() / j["reference_perplexity"].get<double>(), 1.0, 0.01);
    std::printf("bf16 weights vs fp32 on the golden sequence: perplexity %.6f vs %.6f, top-1 agreement %.4f\n",
                j["perplexity"].get<double>(), j["reference_perplexity"].get<double>(),
                j["top1_agreement"].get<double>());
}

} // namespace
