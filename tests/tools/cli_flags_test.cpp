// One flag language for the four tools: docs/cli.md is what their --help says, a name
// means the same in every tool that has it, every tool takes -q/--quiet and --json,
// --json prints one document on standard output, -q prints nothing on success.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_help.h"
#include "support/synthetic_model.h"
#include "support/tool_run.h"

namespace {

using namespace tessera::test;

std::string tool(const std::string &name) { return std::string(TESSERA_TOOLS_BUILD_DIR) + "/" + name; }

std::map<std::string, std::string> helps()
{
    std::map<std::string, std::string> out;
    for (const char *t : kTools) {
        const ToolRun run = run_tool(tool(t) + " --help 2>/dev/null");
        EXPECT_EQ(run.status, 0) << t;
        out[t] = run.out;
    }
    return out;
}

// The part of a value's type before its check: "UINT" of "UINT:UINT in [1 - 64]".
std::string base_type(const std::string &value) { return value.substr(0, value.find_first_of(": ")); }

TEST(CliFlags, DocsCliMdIsTheToolsOwnHelp)
{
    std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/docs/cli.md");
    ASSERT_TRUE(in) << "docs/cli.md is missing";
    const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(doc, cli_markdown(helps())) << "docs/cli.md is stale: build/tests/tessera-cli-doc build > docs/cli.md";
}

TEST(CliFlags, ANameMeansTheSameInEveryTool)
{
    std::map<std::string, std::map<std::string, HelpOption>> by_name;
    for (const auto &[t, help] : helps())
        for (const HelpOption &o : parse_help(help))
            for (const std::string &n : o.names) by_name[n][t] = o;
    size_t shared = 0;
    for (const auto &[name, tools] : by_name) {
        if (tools.size() < 2) continue;
        ++shared;
        const HelpOption &first = tools.begin()->second;
        for (const auto &[t, o] : tools) {
            EXPECT_EQ(o.switch_only(), first.switch_only())
                << name << " is a switch in " << (first.switch_only() ? tools.begin()->first : t) << " but takes a value in "
                << (first.switch_only() ? t : tools.begin()->first);
            EXPECT_EQ(base_type(o.value), base_type(first.value)) << name << " in " << t << " and " << tools.begin()->first;
            EXPECT_EQ(o.names, first.names) << name << ": its short and long names differ between tools";
        }
    }
    EXPECT_GE(shared, 6u); // --help, --version, -q, --quiet, --json, --board at least
}

TEST(CliFlags, EveryToolHasTheCommonFlags)
{
    for (const auto &[t, help] : helps()) {
        std::map<std::string, HelpOption> names;
        for (const HelpOption &o : parse_help(help))
            for (const std::string &n : o.names) names[n] = o;
        for (const char *flag : {"-h", "--help", "--version", "-q", "--quiet", "--json"})
            EXPECT_TRUE(names.count(flag)) << t << " has no " << flag;
        EXPECT_TRUE(names["--json"].description.find("standard output") != std::string::npos) << t;
    }
}

// A renamed flag's old name is refused, naming the new one; an unknown flag and an
// unknown board are usage errors (exit 2) in every tool.
TEST(CliFlags, UsageErrorsExit2InEveryTool)
{
    const ToolRun renamed = run_tool(tool("tessera-eval") + " x.tess --ids ids.txt 2>&1");
    EXPECT_EQ(renamed.status, 2) << renamed.out;
    EXPECT_NE(renamed.out.find("--ids is now --ids-file"), std::string::npos) << renamed.out;
    for (const char *t : kTools) {
        const ToolRun bogus = run_tool(tool(t) + " --bogus 2>&1");
        EXPECT_EQ(bogus.status, 2) << t << ": " << bogus.out;
        const ToolRun board = run_tool(tool(t) + " " + __FILE__ + " --board sircusa 2>&1");
        EXPECT_EQ(board.status, 2) << t << ": " << board.out;
        EXPECT_NE(board.out.find("did you mean siracusa?"), std::string::npos) << t << ": " << board.out;
    }
    const ToolRun list = run_tool(tool("tessera-pack") + " --list-boards --bogus 2>&1");
    EXPECT_EQ(list.status, 2) << list.out;
}

class CliRuns : public ::testing::Test {
protected:
    void SetUp() override
    {
        shared_ = shared_dir();
        if (shared_.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found";
        ckpt_ = shared_ + "/models/stories260K.bin --tokenizer " + shared_ + "/models/tok512.bin";
        image_ = temp_path("cli_flags.tess");
        ids_ = golden_ids_file(shared_, true);
        const ToolRun pack = run_tool(tool("tessera-pack") + " " + ckpt_ + " --board siracusa -q -o " + image_);
        ASSERT_EQ(pack.status, 0) << pack.out;
    }
    std::string shared_, ckpt_, image_, ids_;
};

TEST_F(CliRuns, JsonIsOneDocumentOnStandardOutput)
{
    const std::string commands[] = {
        tool("tessera-pack") + " " + ckpt_ + " --dry-run --json",
        tool("tessera-pack") + " " + ckpt_ + " --json -o " + temp_path("cli_flags_json.tess"),
        tool("tessera-generate") + " " + image_ + " -n 12 -t 0 --json",
        tool("tessera-eval") + " " + image_ + " --ids-file " + ids_ + " --json",
        tool("tessera-inspect") + " " + image_ + " --json",
    };
    for (const std::string &c : commands) {
        const ToolRun run = run_tool("{ " + c + " 2>/dev/null; }");
        ASSERT_EQ(run.status, 0) << c << "\n" << run.out;
        nlohmann::json doc;
        ASSERT_NO_THROW(doc = nlohmann::json::parse(run.out)) << c << "\n" << run.out;
        EXPECT_TRUE(doc.is_object()) << c;
        const ToolRun quiet_err = run_tool("{ " + c + " 2>&1 >/dev/null; }");
        EXPECT_EQ(quiet_err.out, "") << c << ": --json printed on stderr";
    }
    const nlohmann::json gen = nlohmann::json::parse(run_tool("{ " + commands[2] + " 2>/dev/null; }").out);
    EXPECT_GE(gen["ids"].size(), 10u);
    EXPECT_FALSE(gen["text"].get<std::string>().empty());
    EXPECT_EQ(gen["statistics"]["clock"].get<std::string>().rfind("host emulation, wall clock", 0), 0u);
}

TEST_F(CliRuns, QuietPrintsNothingOnSuccess)
{
    const std::string commands[] = {
        tool("tessera-pack") + " " + ckpt_ + " -q -o " + temp_path("cli_flags_quiet.tess"),
        tool("tessera-pack") + " " + ckpt_ + " --dry-run -q",
        tool("tessera-eval") + " " + image_ + " --ids-file " + ids_ + " -q",
        tool("tessera-inspect") + " " + image_ + " -q",
    };
    for (const std::string &c : commands) {
        const ToolRun run = run_tool(c + " 2>&1");
        EXPECT_EQ(run.status, 0) << c;
        EXPECT_EQ(run.out, "") << c;
    }
    // generate's product is its text: -q keeps it and drops the statistics.
    const ToolRun gen = run_tool("{ " + tool("tessera-generate") + " " + image_ + " -n 12 -t 0 -q 2>&1 >/dev/null; }");
    EXPECT_EQ(gen.status, 0);
    EXPECT_EQ(gen.out, "");
}

// The host's speed is never passed off as the board's: generate's summary names the host
// emulation's wall clock, and prints the board's estimate beside it, labelled as the cost
// model's: the same figure the packer's summary gives for that position.
TEST_F(CliRuns, GenerateLabelsHostSpeedAndPrintsTheBoardsEstimate)
{
    const ToolRun run = run_tool("{ " + tool("tessera-generate") + " " + image_ + " -n 8 -t 0 2>&1 >/dev/null; }");
    ASSERT_EQ(run.status, 0) << run.out;
    EXPECT_EQ(run.out.rfind("host emulation, wall clock: prompt 1 tokens, ", 0), 0u) << run.out;
    EXPECT_NE(run.out.find("| board siracusa emulated on "), std::string::npos) << run.out;
    const ToolRun pack = run_tool("{ " + tool("tessera-pack") + " " + ckpt_ + " --board siracusa --dry-run --json 2>/dev/null; }");
    ASSERT_EQ(pack.status, 0);
    double estimate = 0;
    const nlohmann::json fit = nlohmann::json::parse(pack.out);
    for (const auto &r : fit["plan"]["estimates"]["runs"])
        if (r["mode"] == "token" && r["position"] == 1) estimate = r["tokens_per_second"];
    ASSERT_GT(estimate, 0);
    char line[160];
    std::snprintf(line, sizeof line, "board estimate (siracusa's cost model, not measured): %.1f tokens/s for a token at position 1",
                  estimate);
    EXPECT_NE(run.out.find(line), std::string::npos) << "want: " << line << "\n" << run.out;
    // A board without a cost model says why there is no estimate.
    const std::string host = temp_path("cli_flags_host.tess");
    ASSERT_EQ(run_tool(tool("tessera-pack") + " " + ckpt_ + " -q -o " + host).status, 0);
    const ToolRun h = run_tool("{ " + tool("tessera-generate") + " " + host + " -n 8 -t 0 2>&1 >/dev/null; }");
    EXPECT_NE(h.out.find("board estimate: none: board 'host' has no cost model"), std::string::npos) << h.out;
}

} // namespace
