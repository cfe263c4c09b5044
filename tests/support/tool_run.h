// Running a tool as a user would, from tests: its exit status and what it printed.
#ifndef TESSERA_TEST_TOOL_RUN_H
#define TESSERA_TEST_TOOL_RUN_H

#include <string>

#include <nlohmann/json.hpp>

namespace tessera::test {

// Whether this build runs under AddressSanitizer (scripts/test.sh --sanitize): its shadow
// memory and quarantine make a process's peak RSS say nothing about the code, so the
// tests that bound memory measure it only without.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

struct ToolRun {
    int status = -1;
    std::string out; // stdout and stderr
};

// Runs a shell command line; stderr is folded into `out`.
ToolRun run_tool(const std::string &command);

// The golden greedy ids of stories260K (shared/golden/stories260K.greedy200.txt) as a
// file for tessera-eval --ids-file, with BOS (1) first when `bos`.
std::string golden_ids_file(const std::string &shared, bool bos);

// tessera-eval IMAGE --ids-file IDS --reference REFERENCE --json, parsed; a failure to run
// or parse is a test failure and gives null.
nlohmann::json eval_json(const std::string &eval_bin, const std::string &image, const std::string &ids,
                         const std::string &reference);

} // namespace tessera::test

#endif
