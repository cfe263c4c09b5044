// The host board's record of what each engine did, for --timeline traces.
#ifndef TESSERA_HOST_TIMELINE_HPP
#define TESSERA_HOST_TIMELINE_HPP

#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include "tessera/host_board.hpp"

namespace tessera {

class Timeline {
public:
    explicit Timeline(std::chrono::steady_clock::time_point epoch) : epoch_(epoch) {}
    bool on() const { return on_.load(std::memory_order_relaxed); }
    void set(bool on) { on_.store(on); }
    uint64_t now() const { return at(std::chrono::steady_clock::now()); }
    uint64_t at(std::chrono::steady_clock::time_point t) const
    {
        return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(t - epoch_).count());
    }
    void add(TimelineEvent e)
    {
        std::lock_guard<std::mutex> lock(mu_);
        events_.push_back(e);
    }
    std::vector<TimelineEvent> events() const
    {
        std::lock_guard<std::mutex> lock(mu_);
        return events_;
    }

private:
    const std::chrono::steady_clock::time_point epoch_;
    std::atomic<bool> on_{false};
    mutable std::mutex mu_;
    std::vector<TimelineEvent> events_;
};

} // namespace tessera

#endif
