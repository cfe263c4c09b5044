#include "support/tool_run.h"

#include <array>
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "support/golden.h"
#include "support/synthetic_model.h"

namespace tessera::test {

ToolRun run_tool(const std::string &command)
{
    ToolRun r;
    FILE *p = popen((command + " 2>&1").c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) r.out.append(buf.data(), n);
    const int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

std::string golden_ids_file(const std::string &shared, bool bos)
{
    const std::string path = temp_path(bos ? "golden_ids_bos.txt" : "golden_ids.txt");
    std::ofstream out(path);
    if (bos) out << 1 << '\n';
    for (int32_t id : golden_ids(shared + "/golden/stories260K.greedy200.txt")) out << id << '\n';
    return path;
}

nlohmann::json eval_json(const std::string &eval_bin, const std::string &image, const std::string &ids,
                         const std::string &reference)
{
    const ToolRun r = run_tool(eval_bin + " " + image + " --ids-file " + ids + " --reference " + reference + " --json");
    EXPECT_EQ(r.status, 0) << r.out;
    try {
        return nlohmann::json::parse(r.out);
    } catch (const nlohmann::json::exception &e) {
        ADD_FAILURE() << "tessera-eval printed no JSON: " << r.out;
        return nullptr;
    }
}

} // namespace tessera::test
