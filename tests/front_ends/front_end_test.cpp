// The packer's front ends as one table: files recognised by their content, every path
// (pack, --dry-run) through it, a flag that a graph's fixed precision makes meaningless
// refused as a usage error, and a file of no known format refused naming every format
// tried.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "support/synthetic_model.h"
#include "support/tool_run.h"
#include "tessera/errors.h"
#include "tessera/pack/front_end.h"
#include "tessera/pack/packer.h"

namespace {

using namespace tessera::test;

std::string tool(const char *name) { return std::string(TESSERA_TOOLS_BUILD_DIR) + "/" + name; }

class FrontEnds : public ::testing::Test {
protected:
    void SetUp() override
    {
        shared_ = shared_dir();
        if (shared_.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
        graphs_ = shared_ + "/deeploy/microLlama";
    }
    std::string shared_, graphs_;
};

// Bug 1 of the newcomer's issue: --dry-run read an ONNX graph as a llama2.c checkpoint.
TEST_F(FrontEnds, DryRunOnAnOnnxGraphAnswersWhatFits)
{
    const ToolRun run = run_tool(tool("tessera-pack") + " " + graphs_ + "/INT8/microLlama128/network.onnx --dry-run -q --json");
    ASSERT_EQ(run.status, 0) << run.out;
    const nlohmann::json j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["fits"], true);
    EXPECT_EQ(j["context"], 256); // max(256, S_past + S)
    EXPECT_EQ(j["plan"]["checkpoint"]["front_end"], "ONNX graph");
    EXPECT_EQ(j["plan"]["checkpoint"]["decoder_only"], true);
    EXPECT_EQ(j["plan"]["image"]["precision"], "int8");
    // Which boards, scenarios and L1 sizes fit: siracusa's npu-nms among them, smaller
    // than its L1; the cluster's smallest L1 below the NPU's (the NPU stages whole rows).
    bool siracusa_npu_nms = false;
    for (const auto &b : j["boards"]) {
        if (b["board"] == "siracusa" && b["scenario"] == "npu-nms") {
            siracusa_npu_nms = b["fits"].get<bool>();
            EXPECT_GT(b["smallest_l1"].get<uint32_t>(), 64u);
            EXPECT_LE(b["smallest_l1"].get<uint32_t>(), b["l1"].get<uint32_t>());
        }
        if (b["board"] == "gap9") EXPECT_NE(b["scenario"], "npu") << "gap9 has no NPU";
    }
    EXPECT_TRUE(siracusa_npu_nms) << run.out;
    // The smallest L1 the dry run names is one a pack accepts, and 64 bytes less is not.
    for (const auto &b : j["boards"]) {
        if (b["board"] != "siracusa" || b["scenario"] != "cluster") continue;
        const uint32_t l1 = b["smallest_l1"];
        const std::string pack = tool("tessera-pack") + " " + graphs_ + "/INT8/microLlama128/network.onnx --board siracusa "
                                 "--scenario cluster -q --dry-run --l1 ";
        EXPECT_EQ(run_tool(pack + std::to_string(l1)).status, 0);
        EXPECT_EQ(run_tool(pack + std::to_string(l1 - 64)).status, 1);
    }
}

// The text form: what fits, and the board table.
TEST_F(FrontEnds, DryRunTextNamesTheBoardsThatFit)
{
    const ToolRun run = run_tool(tool("tessera-pack") + " " + graphs_ + "/INT8/microLlama1/network.onnx --dry-run 2>&1");
    ASSERT_EQ(run.status, 0) << run.out;
    EXPECT_NE(run.out.find("ONNX (QuantLib integer decoder"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("boards    where this int8 graph fits"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("dry run   fits; no file written"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("header field"), std::string::npos) << run.out;
}

// Bug 2: --precision int8 on the FP32 graph was silently ignored.
TEST_F(FrontEnds, APrecisionTheGraphDoesNotHaveIsAUsageErrorNamingItsOwn)
{
    const std::string out = temp_path("fe_fp32.tess");
    const ToolRun run = run_tool(tool("tessera-pack") + " " + graphs_ + "/FP32/microLlama1/network.onnx --precision int8 -o " + out);
    EXPECT_EQ(run.status, 2) << run.out;
    EXPECT_NE(run.out.find("(fp32): --precision int8 does not apply; it packs at fp32"), std::string::npos) << run.out;
    EXPECT_FALSE(std::ifstream(out).good()) << "an output was left";
    // The NPU scenario names the graph's precision, not a flag the user gave.
    const ToolRun npu =
        run_tool(tool("tessera-pack") + " " + graphs_ + "/FP32/microLlama1/network.onnx --scenario npu-nms -o " + out);
    EXPECT_EQ(npu.status, 2) << npu.out;
    EXPECT_NE(npu.out.find("the NPU runs no fp32"), std::string::npos) << npu.out;
    // The dry run refuses it alike.
    EXPECT_EQ(run_tool(tool("tessera-pack") + " " + graphs_ + "/FP32/microLlama1/network.onnx --precision int8 --dry-run").status, 2);
    // The graph's own precision, said aloud, is accepted; so is --precision left out.
    EXPECT_EQ(run_tool(tool("tessera-pack") + " " + graphs_ + "/FP32/microLlama1/network.onnx --precision fp32 -q -o " + out).status, 0);
    EXPECT_EQ(run_tool(tool("tessera-pack") + " " + graphs_ + "/INT8/microLlama1/network.onnx --precision int8 -q -o " + out).status, 0);
    for (const char *flag : {"--precision bf16", "--weight-type bf16", "--nonlinear float", "--calibration " __FILE__,
                             "--tokenizer " __FILE__, "--prompt-logits all"}) {
        const ToolRun r = run_tool(tool("tessera-pack") + " " + graphs_ + "/INT8/microLlama1/network.onnx -o " + out + " " + flag);
        EXPECT_EQ(r.status, 2) << flag << ": " << r.out;
        EXPECT_NE(r.out.find("(int8)"), std::string::npos) << flag << ": " << r.out;
    }
}

// Bug 3: any file was read as a llama2.c checkpoint.
TEST_F(FrontEnds, AFileOfNoKnownFormatIsRefusedNamingTheFormatsTried)
{
    const std::string random = temp_path("fe_random.bin"), empty = temp_path("fe_empty.onnx");
    {
        std::mt19937 rng(7);
        std::ofstream f(random, std::ios::binary);
        for (int i = 0; i < 4096; ++i) f.put(char(rng()));
        std::ofstream e(empty, std::ios::binary);
    }
    for (const std::string &path : {random, empty}) {
        for (const char *mode : {"-o " , "--dry-run"}) {
            const std::string out = temp_path("fe_out.tess");
            const ToolRun run = run_tool(tool("tessera-pack") + " " + path + " " + mode + (mode[0] == '-' && mode[1] == 'o' ? out : ""));
            EXPECT_EQ(run.status, 1) << run.out;
            for (const char *format : {"Hugging Face directory", "GGUF", "ONNX graph", "llama2.c checkpoint"})
                EXPECT_NE(run.out.find(format), std::string::npos) << format << " in: " << run.out;
            EXPECT_NE(run.out.find("not a model tessera-pack reads (tried"), std::string::npos) << run.out;
            EXPECT_EQ(run.out.find("header field"), std::string::npos) << run.out;
            EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 1) << "one line: " << run.out;
        }
    }
    const ToolRun e = run_tool(tool("tessera-pack") + " " + empty + " --dry-run");
    EXPECT_NE(e.out.find("an empty file"), std::string::npos) << e.out;
}

// Recognised by content, not by name: each real file through its row of the table, under
// a name that says nothing.
TEST_F(FrontEnds, EachFormatIsRecognisedByItsContent)
{
    struct Case {
        std::string file;
        const char *front_end;
    };
    const Case cases[] = {{shared_ + "/models/stories260K.bin", "llama2.c checkpoint"},
                          {shared_ + "/deeploy/microLlama/INT8/microLlama1/network.onnx", "ONNX graph"}};
    for (const Case &c : cases) {
        size_t matched = 0;
        for (const tessera::FrontEnd &f : tessera::front_ends())
            if (f.recognises(c.file)) {
                ++matched;
                EXPECT_STREQ(f.name, c.front_end) << c.file;
            }
        EXPECT_EQ(matched, 1u) << c.file << " is recognised by exactly one front end";
    }
    // The ONNX graph copied to a name ending in .bin packs the same (the name says nothing).
    const std::string renamed = temp_path("fe_graph.bin");
    {
        std::ifstream in(shared_ + "/deeploy/microLlama/INT8/microLlama1/network.onnx", std::ios::binary);
        std::ofstream out(renamed, std::ios::binary);
        out << in.rdbuf();
    }
    const ToolRun run = run_tool(tool("tessera-pack") + " " + renamed + " --dry-run -q");
    EXPECT_EQ(run.status, 0) << run.out;
}

// Every path of the packer goes through the table: --report, --memory-map and
// --emit-variants on an ONNX graph name the graph's front end and precision.
TEST_F(FrontEnds, ReportsOfAnOnnxGraphDescribeTheGraph)
{
    tessera::PackOptions o;
    o.checkpoint = graphs_ + "/INT8/microLlama8/network.onnx";
    o.output = temp_path("fe_ml8.tess");
    o.report = temp_path("fe_ml8.json");
    o.memory_map = temp_path("fe_ml8.svg");
    o.variant_list = temp_path("fe_ml8_variants.c");
    o.board = "siracusa";
    const tessera::PackResult r = tessera::pack(o);
    EXPECT_EQ(r.model.front_end, "ONNX graph");
    EXPECT_TRUE(r.model.hyper.decoder_only);
    EXPECT_EQ(r.precision, "int8");
    const nlohmann::json report = tessera::pack_report(r);
    EXPECT_EQ(report["checkpoint"]["decoder_only"], true);
    EXPECT_EQ(report["checkpoint"]["dim"], 64);
    EXPECT_EQ(report["checkpoint"]["n_layers"], 8);
    std::ifstream variants(o.variant_list);
    const std::string text((std::istreambuf_iterator<char>(variants)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("matmul.i8.rqs"), std::string::npos) << text;
}

} // namespace
