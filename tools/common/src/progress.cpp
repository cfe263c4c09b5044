#include "tessera/tools/progress.h"

#include <cstdio>

#include <unistd.h>

namespace tessera {

namespace {
constexpr double kQuietSeconds = 2.0, kEverySeconds = 0.1;
}

ProgressLine::ProgressLine(std::string label, std::string unit, bool enabled)
    : label_(std::move(label)), unit_(std::move(unit)), enabled_(enabled), start_(Clock::now()), last_(start_)
{
}

ProgressLine::~ProgressLine()
{
    if (shown_) std::fprintf(stderr, "\r\033[K"), std::fflush(stderr);
}

bool ProgressLine::wanted(bool quiet) { return !quiet && isatty(fileno(stderr)); }

void ProgressLine::update(uint64_t done, uint64_t total)
{
    if (!enabled_) return;
    const Clock::time_point now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < kQuietSeconds || (shown_ && std::chrono::duration<double>(now - last_).count() < kEverySeconds &&
                                     done < total))
        return;
    last_ = now;
    shown_ = true;
    std::fprintf(stderr, "\r\033[K%s: %llu of %llu %s", label_.c_str(), static_cast<unsigned long long>(done),
                 static_cast<unsigned long long>(total), unit_.c_str());
    if (done > 0 && done < total)
        std::fprintf(stderr, ", %.0f s left", elapsed * double(total - done) / double(done));
    std::fflush(stderr);
}

} // namespace tessera
