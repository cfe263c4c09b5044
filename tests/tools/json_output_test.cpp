// --json on the tools that print figures: tessera-inspect's document agrees with the
// packer's own report of the same image (every tensor's region, offset and bytes; the
// steps of both schedules), and tessera-generate's statistics and profile parse, count
// what ran and add up.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "support/synthetic_model.h"
#include "support/tool_run.h"

namespace {

using namespace tessera::test;
using nlohmann::json;

std::string tool(const char *name) { return std::string(TESSERA_TOOLS_BUILD_DIR) + "/" + name; }

std::string read_file_text(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class JsonOutput : public ::testing::Test {
protected:
    void SetUp() override
    {
        shared_ = shared_dir();
        if (shared_.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
        image_ = temp_path("json_output.tess");
        report_ = temp_path("json_output_report.json");
        const ToolRun pack = run_tool(tool("tessera-pack") + " " + shared_ + "/models/stories260K.bin --tokenizer " +
                                      shared_ + "/models/tok512.bin --board siracusa --precision int8 --scenario npu-nms -q -o " +
                                      image_ + " --report " + report_);
        ASSERT_EQ(pack.status, 0) << pack.out;
    }
    std::string shared_, image_, report_;
};

TEST_F(JsonOutput, InspectAgreesWithThePackersReport)
{
    const ToolRun run = run_tool("{ " + tool("tessera-inspect") + " " + image_ + " --json 2>/dev/null; }");
    ASSERT_EQ(run.status, 0) << run.out;
    const json doc = json::parse(run.out);
    const json report = json::parse(read_file_text(report_));
    EXPECT_EQ(doc["valid"], true);
    EXPECT_EQ(doc["plan"]["board"], "siracusa");
    EXPECT_EQ(doc["plan"]["context"], report["image"]["context"]);
    EXPECT_EQ(doc["image"]["bytes"], report["image"]["bytes"]);
    EXPECT_EQ(doc["model"]["precision"], "int8");
    EXPECT_EQ(doc["model"]["n_layers"], report["checkpoint"]["n_layers"]);
    // Every tensor as the packer placed it (the report names weights by their block offset
    // too; the image's table is what the device reads).
    std::map<std::string, json> planned;
    for (const json &t : report["tensors"]) planned[t["name"]] = t;
    ASSERT_EQ(doc["tensors"].size(), report["tensors"].size());
    for (const json &t : doc["tensors"]) {
        SCOPED_TRACE(t["name"].get<std::string>());
        ASSERT_TRUE(planned.count(t["name"]));
        const json &p = planned[t["name"]];
        EXPECT_EQ(t["region"], p["region"]);
        EXPECT_EQ(t["bytes"], p["bytes"]);
        if (p["kind"] != "weight") EXPECT_EQ(t["offset"], p["offset"]);
    }
    for (const char *which : {"prompt", "token"}) {
        const json &steps = doc["schedules"][which]["steps"], &planned_steps = report["schedules"][which]["steps"];
        ASSERT_EQ(steps.size(), planned_steps.size()) << which;
        for (size_t i = 0; i < steps.size(); ++i) {
            EXPECT_EQ(steps[i]["op"], planned_steps[i]["op"]) << which << " " << i;
            EXPECT_EQ(steps[i]["engine"], planned_steps[i]["engine"]) << which << " " << i;
        }
    }
}

TEST_F(JsonOutput, InspectOnAWrongBoardSaysWhyAndExits1)
{
    const ToolRun run = run_tool("{ " + tool("tessera-inspect") + " " + image_ + " --board gap9 --json 2>/dev/null; }");
    EXPECT_EQ(run.status, 1);
    const json doc = json::parse(run.out);
    EXPECT_EQ(doc["valid"], false);
    EXPECT_NE(doc["invalid"]["reason"].get<std::string>().find("image planned for board 'siracusa'"), std::string::npos)
        << doc.dump();
}

TEST_F(JsonOutput, GenerateStatisticsAndProfileAsOneLine)
{
    const ToolRun run = run_tool("{ " + tool("tessera-generate") + " " + image_ +
                                 " -t 0 -n 40 --profile --json --threads 2 2>/dev/null; }");
    ASSERT_EQ(run.status, 0) << run.out;
    ASSERT_EQ(run.out.find('\n'), run.out.size() - 1) << "one line: " << run.out;
    const json top = json::parse(run.out);
    // What was generated, as the text and --ids runs print it.
    const ToolRun ids = run_tool("{ " + tool("tessera-generate") + " " + image_ + " -t 0 -n 40 --ids --threads 2 2>/dev/null; }");
    ASSERT_EQ(ids.status, 0);
    std::string listed;
    for (const json &id : top["ids"]) listed += (listed.empty() ? "" : " ") + id.dump();
    EXPECT_EQ(listed + "\n", ids.out);
    const ToolRun text = run_tool("{ " + tool("tessera-generate") + " " + image_ + " -t 0 -n 40 --threads 2 2>/dev/null; }");
    EXPECT_EQ(top["text"].get<std::string>() + "\n", text.out);
    const json &doc = top["statistics"];
    EXPECT_EQ(doc["clock"].get<std::string>().rfind("host emulation, wall clock", 0), 0u);
    EXPECT_EQ(doc["board_estimate"]["source"], "the board's cost model (an estimate, not a measurement)");
    EXPECT_EQ(doc["prompt"]["tokens"], 1);
    EXPECT_EQ(doc["generation"]["tokens"], 39);
    EXPECT_EQ(doc["per_run"]["runs"], 40);
    EXPECT_EQ(doc["per_run"]["npu_jobs"], 35.0) << "q, k, v, o, w1, w2, w3 of 5 layers each run";
    EXPECT_EQ(doc["board"]["threads"], 2);
    EXPECT_FALSE(doc.contains("seed")) << "greedy: no seed";
    for (const char *mode : {"prompt", "token"}) {
        const json &p = doc["profile"][mode];
        double share = 0, ns = 0;
        for (const json &r : p["by_operator"]) share += r["share"].get<double>(), ns += r["ns"].get<double>();
        EXPECT_NEAR(share, 100.0, 1e-6) << mode;
        EXPECT_NEAR(ns, p["all"]["ns"].get<double>(), 1e-6 * ns) << mode;
        EXPECT_TRUE(p.contains("npu_busy")) << mode;
    }
    EXPECT_EQ(doc["estimates"]["runs"].size(), 5u) << "siracusa has a cost model";
}

} // namespace
