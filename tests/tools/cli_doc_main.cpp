// tessera-cli-doc BUILD_DIR: docs/cli.md, made from the tools' own --help.
#include <cstdio>
#include <map>
#include <string>

#include "support/cli_help.h"
#include "support/tool_run.h"

int main(int argc, char **argv)
{
    if (argc != 2 || std::string(argv[1]) == "--help") {
        std::fprintf(argc == 2 ? stdout : stderr, "usage: tessera-cli-doc BUILD_DIR  (prints docs/cli.md from the tools' --help)\n");
        return argc == 2 ? 0 : 2;
    }
    std::map<std::string, std::string> helps;
    for (const char *tool : tessera::test::kTools) {
        const tessera::test::ToolRun run = tessera::test::run_tool(std::string(argv[1]) + "/" + tool + " --help 2>/dev/null");
        if (run.status != 0) {
            std::fprintf(stderr, "tessera-cli-doc: %s --help exited %d\n", tool, run.status);
            return 1;
        }
        helps[tool] = run.out;
    }
    std::fputs(tessera::test::cli_markdown(helps).c_str(), stdout);
    return 0;
}
