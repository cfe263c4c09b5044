#include "support/cli_help.h"

#include <set>
#include <sstream>

namespace tessera::test {

const char *const kTools[4] = {"tessera-pack", "tessera-generate", "tessera-eval", "tessera-inspect"};

namespace {

// CLI11 pads the name and type column to 30 characters; a longer one puts the
// description on the next line, indented by 30.
constexpr size_t kColumn = 30;

std::string trimmed(const std::string &s)
{
    const size_t a = s.find_first_not_of(' ');
    if (a == std::string::npos) return "";
    return s.substr(a, s.find_last_not_of(' ') - a + 1);
}

void add_words(std::string &to, const std::string &words)
{
    const std::string w = trimmed(words);
    if (w.empty()) return;
    to += (to.empty() ? "" : " ") + w;
}

// "--ids-file TEXT Excludes: --text" -> names, value, constraints.
void split_head(const std::string &head, HelpOption &o)
{
    std::istringstream in(head);
    std::string names;
    in >> names;
    std::string part;
    size_t start = 0;
    while (start <= names.size()) {
        const size_t comma = names.find(',', start);
        o.names.push_back(names.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    std::string rest;
    std::getline(in, rest);
    rest = trimmed(rest);
    for (const char *key : {"Excludes:", "Needs:"}) {
        const size_t at = rest.find(key);
        if (at != std::string::npos) {
            add_words(o.constraints, rest.substr(at));
            rest = trimmed(rest.substr(0, at));
        }
    }
    o.value = rest;
}

std::string cell_text(const std::string &s)
{
    std::string out;
    for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

} // namespace

std::vector<HelpOption> parse_help(const std::string &help)
{
    std::vector<HelpOption> out;
    std::vector<std::string> lines;
    std::istringstream in(help);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    auto continuation = [&](size_t i) {
        return i < lines.size() && lines[i].size() > kColumn && lines[i].find_first_not_of(' ') == kColumn;
    };
    bool in_options = false;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string &line = lines[i];
        if (line == "Options:") {
            in_options = true;
            continue;
        }
        if (!in_options) continue;
        if (line.rfind("  -", 0) == 0) {
            HelpOption o;
            if (continuation(i + 1) || line.size() <= kColumn) { // a head too long for its column: all of the line
                split_head(line, o);
            } else {
                split_head(line.substr(0, kColumn), o);
                add_words(o.description, line.substr(kColumn));
            }
            out.push_back(o);
        } else if (!out.empty() && continuation(i)) {
            add_words(out.back().description, line);
        }
    }
    return out;
}

std::string cli_markdown(const std::map<std::string, std::string> &helps)
{
    // Every long name (or the short one where there is none) -> per tool, its option.
    std::map<std::string, std::map<std::string, HelpOption>> flags;
    for (const char *tool : kTools) {
        const auto it = helps.find(tool);
        if (it == helps.end()) continue;
        for (const HelpOption &o : parse_help(it->second)) flags[o.names.back()][tool] = o;
    }
    std::ostringstream s;
    s << "# The tools' flags\n\n"
         "Every flag of the four tools, from their own `--help` (this file is generated: `build/tests/tessera-cli-doc "
         "build > docs/cli.md`; ctest `CliFlags.DocsCliMdIsTheToolsOwnHelp` fails when it is stale). A flag that two tools share means the same in "
         "both: a switch in one is a switch in the other, a value in one takes the same kind of value in the other "
         "(ctest `CliFlags.*`). Every tool has `--help`, `--version`, `-q/--quiet` and `--json` (one JSON document on "
         "standard output). Exit status: 0 success, 1 an error, 2 a usage error (an unknown option or board, a missing "
         "or invalid value, a flag the input makes meaningless); `tessera-eval --npz-expect` 3 when values differ, "
         "`tessera-generate` 130 when interrupted.\n\n";
    s << "| flag | takes |";
    for (const char *tool : kTools) s << " " << tool << " |";
    s << "\n| --- | --- |";
    for (size_t i = 0; i < 4; ++i) s << " --- |";
    s << "\n";
    for (const auto &[flag, by_tool] : flags) {
        const HelpOption &any = by_tool.begin()->second;
        std::string names;
        for (const std::string &n : any.names) names += (names.empty() ? "" : ", ") + ("`" + n + "`");
        std::set<std::string> values;
        for (const auto &[tool, o] : by_tool) values.insert(o.switch_only() ? "switch" : o.value);
        std::string takes;
        for (const std::string &v : values) takes += (takes.empty() ? "" : "; ") + v;
        s << "| " << names << " | " << cell_text(takes) << " |";
        for (const char *tool : kTools) {
            const auto it = by_tool.find(tool);
            s << " " << (it == by_tool.end() ? "" : cell_text(it->second.description)) << " |";
        }
        s << "\n";
    }
    return s.str();
}

} // namespace tessera::test
