// How many of the host board's threads a fork runs on, when the user left it to the
// board: the count that is fastest on this machine now, measured, not guessed.
//
// More threads are not always faster on a host. A fork hands work to threads the
// operating system may not run at once (a small machine, another busy process), and a
// run small enough to take a few hundred microseconds (a token of stories260K) gains
// less from a second core than the hand-offs cost. So the board measures: in a round,
// each candidate count (1, 2, 4, ..., the most) runs a few forks in a row, the current
// count first; the first fork of each is not counted (its threads may have been asleep
// for long: on a virtual machine, waking an idle core alone has been seen to cost
// milliseconds). The count with the smallest median wall time runs the forks until the
// next round. Rounds come rarer while the answer stays the same (64 forks apart,
// doubling to 8192), and at once again after it changes. A much worse candidate costs
// little (a busy machine, where a fork on 2 threads can take 100 times longer): it
// leaves the round at once when its wake-up fork takes over 4 times the current
// count's median, or a counted fork over 1.5 times; and it then sits out 1, 2, 4, ...
// up to 8 rounds, until it is measured again without leaving early.
//
// Trials are paid for, and the chooser counts what they cost: every fork a round runs
// on a count other than the current one costs what it took beyond the current count's
// median (its wake-up fork included). A round starts only while that excess, summed
// since the start, is at most 1/32 of all the forks' time; otherwise the current count
// runs on until it is. So on a machine where trying the other counts is dear (waking a
// thread beside a busy process can take milliseconds), they are tried rarely: beyond
// the first round, trials cost at most 1/32 of the time (a wrong choice from noisy
// samples costs until the next round).
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
    static constexpr uint32_t kSamples = 3;       // counted forks per candidate and round
    static constexpr uint64_t kFirstPeriod = 64;  // forks between rounds, at first and after a change
    static constexpr uint64_t kLongestPeriod = 8192;
    static constexpr uint32_t kLongestSitOut = 8; // rounds
    static constexpr uint64_t kTrialShare = 32;   // trials may cost 1/32 of the forks' time

    // adaptive = false: every fork runs on `most` cores.
    CoreCountChooser(uint32_t most, bool adaptive)
    {
        if (adaptive)
            for (uint32_t c = 1; c < most; c *= 2u) candidates_.push_back(c);
        candidates_.push_back(most);
        sit_out_.assign(candidates_.size(), 0);
        left_out_.assign(candidates_.size(), 0);
        best_ = candidates_.front();
        warmup_left_ = candidates_.size() > 1 ? kWarmupForks : 0;
        exploit_left_ = candidates_.size() > 1 ? 0 : UINT64_MAX;
    }

    // The core count for the next fork.
    uint32_t next() const { return in_round() ? candidates_[order_[at_]] : best_; }

    // The wall time of the fork that ran on next()'s count.
    void record(uint64_t ns)
    {
        total_ns_ += ns;
        if (warmup_left_) {
            if (--warmup_left_ == 0) start_round();
            return;
        }
        if (!in_round()) {
            if (exploit_left_ == UINT64_MAX) return;
            if (exploit_left_ > 1u) --exploit_left_;
            else if (trial_excess_ns_ * kTrialShare <= total_ns_) start_round(); // else: not yet affordable
            return;
        }
        const uint32_t c = order_[at_];
        const uint64_t current = median(samples_[order_[0]]); // measured first, so known after it
        if (at_ != 0 && ns > current) trial_excess_ns_ += ns - current;
        std::vector<uint64_t> &mine = samples_[c];
        bool much_worse = false;
        if (++forks_of_candidate_ == 1u) { // the threads' wake-up: not a sample
            much_worse = at_ != 0 && ns / 4u > current;
        } else {
            mine.push_back(ns);
            much_worse = at_ != 0 && ns > current + current / 2u;
        }
        if (much_worse) { // out of this round, and of the next few
            mine.clear();
            sit_out_[c] = std::min<uint32_t>(sit_out_[c] ? sit_out_[c] * 2u : 1u, kLongestSitOut);
            left_out_[c] = sit_out_[c];
        } else if (mine.size() >= kSamples) {
            sit_out_[c] = 0;
        } else {
            return;
        }
        forks_of_candidate_ = 0;
        if (++at_ == order_.size()) end_round();
    }

    uint32_t best() const { return best_; }
    uint32_t most() const { return candidates_.back(); }
    uint64_t rounds() const { return rounds_; }
    // What trials cost beyond the current count, and all the forks took (ns).
    uint64_t trial_excess_ns() const { return trial_excess_ns_; }
    uint64_t total_ns() const { return total_ns_; }

private:
    bool in_round() const { return at_ < order_.size(); }

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
        for (uint32_t c = 0; c < candidates_.size(); ++c) {
            if (c == best_at) continue;
            if (left_out_[c]) --left_out_[c];
            else order_.push_back(c);
        }
        at_ = 0;
        forks_of_candidate_ = 0;
    }

    void end_round()
    {
        uint32_t winner = order_[0];
        for (uint32_t c : order_) // a candidate out of the round has no samples: UINT64_MAX
            if (median(samples_[c]) < median(samples_[winner])) winner = c;
        const uint32_t chosen = candidates_[winner];
        period_ = chosen == best_ ? std::min(period_ * 2u, kLongestPeriod) : kFirstPeriod;
        best_ = chosen;
        exploit_left_ = period_;
        ++rounds_;
    }

    std::vector<uint32_t> candidates_;
    std::vector<uint32_t> sit_out_, left_out_; // per candidate: rounds it sits out after leaving early, and left
    uint32_t best_ = 1;
    uint64_t warmup_left_ = 0, exploit_left_ = 0, period_ = kFirstPeriod / 2u, rounds_ = 0;
    uint64_t total_ns_ = 0, trial_excess_ns_ = 0;
    std::vector<uint32_t> order_; // the round's candidate indices, the current count first
    uint32_t at_ = 0;             // the one being measured
    uint32_t forks_of_candidate_ = 0;
    std::vector<std::vector<uint64_t>> samples_;
};

} // namespace tessera

#endif
