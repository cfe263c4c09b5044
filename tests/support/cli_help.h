// The options a tool's --help lists (CLI11's layout), read back: the source of
// docs/cli.md and of the tests that hold the four tools to one flag language.
#ifndef TESSERA_TEST_CLI_HELP_H
#define TESSERA_TEST_CLI_HELP_H

#include <map>
#include <string>
#include <vector>

namespace tessera::test {

struct HelpOption {
    std::vector<std::string> names; // "-q", "--quiet"
    std::string value;              // "" for a switch, else its type: "TEXT", "UINT:UINT in [1 - 64]", ...
    std::string constraints;        // "Excludes: --text", "Needs: --npz-inputs"
    std::string description;
    bool switch_only() const { return value.empty(); }
};

// The options of one --help text, in order (positionals left out).
std::vector<HelpOption> parse_help(const std::string &help);

// The four tools, as docs/cli.md lists them.
extern const char *const kTools[4];

// docs/cli.md: every flag of every tool in one table, from each tool's --help
// (`helps`: tool name -> its --help text).
std::string cli_markdown(const std::map<std::string, std::string> &helps);

} // namespace tessera::test

#endif
