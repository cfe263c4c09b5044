// A progress line on stderr for work that may take a while: silent for the first two
// seconds (most runs never show it), then "label: done of total unit, N s left",
// updated in place at most ten times a second and cleared at the end. Shown only when
// it is enabled (the tools: stderr is a terminal and no --quiet).
#ifndef TESSERA_TOOLS_PROGRESS_H
#define TESSERA_TOOLS_PROGRESS_H

#include <chrono>
#include <cstdint>
#include <string>

namespace tessera {

class ProgressLine {
public:
    ProgressLine(std::string label, std::string unit, bool enabled);
    ~ProgressLine(); // clears the line if it was shown
    ProgressLine(const ProgressLine &) = delete;
    ProgressLine &operator=(const ProgressLine &) = delete;
    void update(uint64_t done, uint64_t total);

    // Whether a tool shows progress: stderr is a terminal and it was not asked to be quiet.
    static bool wanted(bool quiet);

private:
    using Clock = std::chrono::steady_clock;
    std::string label_, unit_;
    bool enabled_, shown_ = false;
    Clock::time_point start_, last_;
};

} // namespace tessera

#endif
