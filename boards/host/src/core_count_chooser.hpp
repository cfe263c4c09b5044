// How many of the host board's threads a fork runs on, when the user left it to the
// board: the count that is fastest on this machine now, measured, not guessed.
//
// More threads are not always faster on a host. A fork hands work to threads the
// operating system may not run at once (a small machine, another busy process), and a
// run small enough to take a few hundred microseconds (a token of stories260K) gains
// less from a second core than the hand-offs cost. So the board measures: in a round,
// forks take turns on the candidate counts (1, 2, 4, ..., the most), a few samples
// each; the count with the smallest median wall time runs the forks until the next
// round. Rounds come rarer while the answer stays the same (64 forks apart, doubling
// to 8192), and at once again after it changes. A candidate whose sample takes more
// than twice the current count's is dropped from the round, so a round costs little
// when one count is much worse (a busy machine).
//
// Results never depend on the count: the runtime splits every step by the count of
// the fork it runs in.
#ifndef TESSERA_CORE_COUNT_CHOOSER_HPP
#define TESSERA_CORE_COUNT_CHOOSER_HPP

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tessera {

class CoreCountChooser {
public:
    static constexpr uint32_t kWarmupForks = 2;   // first forks touch cold memory: not samples
    static constexpr uint32_t kSamples = 4;       // per candidate and round
    static constexpr uint64_t kFirstPeriod = 64;  // forks between rounds, at first and after a change
    static constexpr uint64_t kLongestPeriod = 8192;

    // adaptive = false: every fork runs on `most` cores.
    CoreCountChooser(uint32_t most, bool adaptive)
    {
        if (adaptive)
            for (uint32_t c = 1; c < most; c *= 2u) candidates_.push_back(c);
        candidates_.push_back(most);
        best_ = candidates_.front();
        warmup_left_ = candidates_.size() > 1 ? kWarmupForks : 0;
        exploit_left_ = candidates_.size() > 1 ? 0 : UINT64_MAX;
    }

    // The core count for the next fork.
    uint32_t next() const { return in_round() ? candidates_[order_[turn_]] : best_; }

    // The wall time of the fork that ran on next()'s count.
    void record(uint64_t ns)
    {
        if (warmup_left_) {
            if (--warmup_left_ == 0) start_round();
            return;
        }
        if (!in_round()) {
            if (exploit_left_ != UINT64_MAX && --exploit_left_ == 0) start_round();
            return;
        }
        const uint32_t c = order_[turn_];
        samples_[c].push_back(ns);
        if (turn_ != 0 && ns > 2u * median(samples_[order_[0]])) // much worse than the current count
            order_.erase(order_.begin() + turn_);
        else
            ++turn_;
        if (turn_ >= order_.size()) {
            turn_ = 0;
            if (samples_[order_[0]].size() >= kSamples) end_round();
        }
    }

    uint32_t best() const { return best_; }
    uint32_t most() const { return candidates_.back(); }
    uint64_t rounds() const { return rounds_; }

private:
    bool in_round() const { return !order_.empty(); }

    static uint64_t median(std::vector<uint64_t> v)
    {
        std::sort(v.begin(), v.end());
        return v.empty() ? UINT64_MAX : v[(v.size() - 1) / 2]; // the lower median
    }

    void start_round()
    {
        samples_.assign(candidates_.size(), {});
        order_.clear();
        const auto best_at = uint32_t(std::find(candidates_.begin(), candidates_.end(), best_) - candidates_.begin());
        order_.push_back(best_at); // the current count first: the others are held against it
        for (uint32_t c = 0; c < candidates_.size(); ++c)
            if (c != best_at) order_.push_back(c);
        turn_ = 0;
    }

    void end_round()
    {
        uint32_t winner = order_[0];
        for (uint32_t c : order_)
            if (median(samples_[c]) < median(samples_[winner])) winner = c;
        const uint32_t chosen = candidates_[winner];
        period_ = chosen == best_ ? std::min(period_ * 2u, kLongestPeriod) : kFirstPeriod;
        best_ = chosen;
        exploit_left_ = period_;
        order_.clear();
        ++rounds_;
    }

    std::vector<uint32_t> candidates_;
    uint32_t best_ = 1;
    uint64_t warmup_left_ = 0, exploit_left_ = 0, period_ = kFirstPeriod / 2u, rounds_ = 0;
    std::vector<uint32_t> order_; // candidate indices still in the round, the current count first
    uint32_t turn_ = 0;
    std::vector<std::vector<uint64_t>> samples_;
};

} // namespace tessera

#endif
