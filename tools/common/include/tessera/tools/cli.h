// What every Tessera tool does with its command line. Exit statuses, the same for
// every tool: 0 success, 1 an error (a one-line "tool: error: what and where" on
// stderr), 2 a usage error (the command line itself: an unknown option, a missing or
// invalid value), 130 interrupted (tessera-generate, Ctrl-C). --help and --version
// print to stdout and exit 0.
#ifndef TESSERA_TOOLS_CLI_H
#define TESSERA_TOOLS_CLI_H

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <CLI/CLI.hpp>

#include "tessera/board_desc.h"

namespace tessera {

constexpr int kExitError = 1, kExitUsage = 2;

// Whether everything written to stdout reached it; if not, says so ("tool: error:
// writing the output: ...") and the caller exits 1.
inline bool stdout_written(const char *tool)
{
    if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
    std::fprintf(stderr, "%s: error: writing the output failed (%s)\n", tool, std::strerror(errno));
    return false;
}

// --board NAME|FILE.json: an unknown name is a usage error with "did you mean".
inline CLI::Validator board_check()
{
    return CLI::Validator([](std::string &v) { return unknown_board(v); }, "NAME|FILE.json");
}

// A path option given as "": a usage error, never silently dropped.
inline CLI::Validator non_empty_path()
{
    return CLI::Validator([](std::string &v) { return v.empty() ? std::string("an empty path names no file") : std::string(); },
                          "");
}

// An option that was renamed: the old name stays, hidden, and is refused naming the new.
inline void renamed_option(CLI::App &app, const std::string &old_name, const std::string &new_name, bool takes_value)
{
    const std::string what = old_name + " is now " + new_name;
    if (takes_value)
        app.add_option_function<std::string>(old_name, [what](const std::string &) { throw CLI::ValidationError(what); })
            ->group("");
    else
        app.add_flag_function(old_name, [what](std::int64_t) { throw CLI::ValidationError(what); })->group("");
}

// Every tool's -q/--quiet and --json, in the same words.
inline void add_quiet_and_json(CLI::App &app, bool &quiet, bool &json, const std::string &json_what)
{
    app.add_flag("-q,--quiet", quiet,
                 "no summary, statistics or progress (with --json, only its document); errors still go to stderr");
    app.add_flag("--json", json, "print one JSON document on standard output instead of text: " + json_what);
}

// Adds --version and parses. Returns -1 to go on, or the status to exit with.
inline int parse_command_line(CLI::App &app, const char *tool, int argc, char **argv)
{
    app.set_version_flag("--version", std::string(tool) + " " + TESSERA_VERSION, "print the version and exit");
    try {
        app.parse(argc, argv);
        return -1;
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion &e) {
        std::printf("%s\n", e.what());
        return 0;
    } catch (const CLI::Success &) { // an option that did its work and ends the run (--list-boards)
        return stdout_written(tool) ? 0 : kExitError;
    } catch (const CLI::ParseError &e) {
        std::fprintf(stderr, "%s: error: %s (see %s --help)\n", tool, e.what(), tool);
        return kExitUsage;
    }
}

} // namespace tessera

#endif
