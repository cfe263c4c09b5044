#include "tessera/pack/static_allocator.h"

#include <algorithm>
#include <map>
#include <chrono>
#include <cstdint>
#include <functional>
#include <numeric>

namespace tessera {

namespace {
bool lifetimes_overlap(const AllocRequest &a, const AllocRequest &b) { return a.first <= b.last && b.first <= a.last; }
uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
} // namespace

uint64_t live_bytes_lower_bound(const std::vector<AllocRequest> &requests)
{
    // Sweep over lifetime boundaries: +size at first, -size after last.
    std::map<uint64_t, int64_t> delta;
    for (const auto &r : requests) {
        delta[r.first] += int64_t(r.size);
        delta[uint64_t(r.last) + 1] -= int64_t(r.size);
    }
    int64_t live = 0, best = 0;
    for (const auto &[t, d] : delta) {
        live += d;
        best = std::max(best, live);
    }
    return uint64_t(best);
}

namespace {

AllocResult best_fit_in_order(const std::vector<AllocRequest> &requests, const std::vector<size_t> &order)
{
    AllocResult out;
    out.offsets.assign(requests.size(), 0);
    std::vector<size_t> placed;
    for (size_t i : order) {
        const AllocRequest &r = requests[i];
        // Busy intervals of placed buffers that are live at the same time, by offset.
        std::vector<std::pair<uint64_t, uint64_t>> busy;
        for (size_t j : placed)
            if (lifetimes_overlap(r, requests[j])) busy.emplace_back(out.offsets[j], out.offsets[j] + requests[j].size);
        std::sort(busy.begin(), busy.end());
        // Best fit: the smallest gap that holds it; the top of the arena otherwise.
        uint64_t cursor = 0, best_offset = UINT64_MAX, best_gap = UINT64_MAX;
        for (const auto &[begin, end] : busy) {
            const uint64_t at = align_up(cursor, r.align);
            if (at + r.size <= begin && begin - at < best_gap) {
                best_gap = begin - at;
                best_offset = at;
            }
            cursor = std::max(cursor, end);
        }
        if (best_offset == UINT64_MAX) best_offset = align_up(cursor, r.align);
        out.offsets[i] = best_offset;
        out.arena_bytes = std::max(out.arena_bytes, best_offset + r.size);
        placed.push_back(i);
    }
    return out;
}

// Depth-first search for a placement within `capacity`, in canonical form.
class CanonicalSearch {
public:
    CanonicalSearch(const std::vector<AllocRequest> &r, uint64_t capacity, double budget_ms)
        : r_(r), capacity_(capacity), offset_(r.size(), 0), placed_(r.size(), false), neighbours_(r.size()),
          deadline_(std::chrono::steady_clock::now() + std::chrono::microseconds(int64_t(budget_ms * 1000)))
    {
        for (size_t i = 0; i < r.size(); ++i)
            for (size_t j = 0; j < r.size(); ++j)
                if (i != j && lifetimes_overlap(r[i], r[j]) && r[i].size && r[j].size) neighbours_[i].push_back(j);
        uint32_t t1 = 0;
        t0_ = r.empty() ? 0 : UINT32_MAX;
        for (const auto &q : r) {
            t0_ = std::min(t0_, q.first);
            t1 = std::max(t1, q.last);
        }
        need_.assign(r.empty() ? 0 : t1 - t0_ + 1, 0);
    }
    bool run() { return dfs(0, 0, SIZE_MAX); }
    const std::vector<uint64_t> &offsets() const { return offset_; }
    bool timed_out() const { return timed_out_; }

private:
    // Lowest aligned offset where buffer i overlaps none of its placed neighbours.
    uint64_t floor_of(size_t i) const
    {
        std::vector<std::pair<uint64_t, uint64_t>> busy;
        for (size_t j : neighbours_[i])
            if (placed_[j]) busy.emplace_back(offset_[j], offset_[j] + r_[j].size);
        std::sort(busy.begin(), busy.end());
        uint64_t at = 0;
        for (const auto &[begin, end] : busy) {
            if (align_up(at, r_[i].align) + r_[i].size <= begin) break;
            at = std::max(at, end);
        }
        return align_up(at, r_[i].align);
    }

    bool dfs(size_t count, uint64_t prev_offset, size_t prev_index)
    {
        if (count == r_.size()) return true;
        if ((++nodes_ & 255u) == 0 && std::chrono::steady_clock::now() > deadline_) timed_out_ = true;
        if (timed_out_) return false;
        struct Candidate {
            uint64_t floor;
            size_t index;
        };
        if (!room_left(prev_offset)) return false;
        std::vector<Candidate> next;
        for (size_t i = 0; i < r_.size(); ++i) {
            if (placed_[i]) continue;
            const uint64_t f = floor_of(i);
            if (f + r_[i].size > capacity_) return false; // floors only rise as buffers are added
            // Canonical order: offsets never decrease, equal offsets by index.
            if (f > prev_offset || (f == prev_offset && (prev_index == SIZE_MAX || i > prev_index)))
                next.push_back({f, i});
        }
        std::sort(next.begin(), next.end(), [&](const Candidate &a, const Candidate &b) {
            if (a.floor != b.floor) return a.floor < b.floor;
            return r_[a.index].size > r_[b.index].size;
        });
        for (const Candidate &c : next) {
            placed_[c.index] = true;
            offset_[c.index] = c.floor;
            if (dfs(count + 1, c.floor, c.index)) return true;
            placed_[c.index] = false;
            if (timed_out_) return false;
        }
        return false;
    }

    // Everything unplaced goes at or above `low` (canonical order): at every moment it
    // must fit in [low, capacity) beside what is already placed there.
    bool room_left(uint64_t low)
    {
        std::fill(need_.begin(), need_.end(), 0);
        for (size_t i = 0; i < r_.size(); ++i) {
            uint64_t bytes;
            if (!placed_[i]) bytes = r_[i].size;
            else if (offset_[i] + r_[i].size > low) bytes = offset_[i] + r_[i].size - std::max(offset_[i], low);
            else continue;
            for (uint32_t t = r_[i].first; t <= r_[i].last; ++t) need_[t - t0_] += bytes;
        }
        for (uint64_t v : need_)
            if (v > capacity_ - low) return false;
        return true;
    }

    const std::vector<AllocRequest> &r_;
    const uint64_t capacity_;
    uint32_t t0_ = 0;
    std::vector<uint64_t> need_;
    std::vector<uint64_t> offset_;
    std::vector<bool> placed_;
    std::vector<std::vector<size_t>> neighbours_;
    const std::chrono::steady_clock::time_point deadline_;
    uint64_t nodes_ = 0;
    bool timed_out_ = false;
};

} // namespace

AllocResult allocate_best_fit(const std::vector<AllocRequest> &requests)
{
    std::vector<size_t> order(requests.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (requests[a].size != requests[b].size) return requests[a].size > requests[b].size;
        return requests[a].first < requests[b].first;
    });
    AllocResult out = best_fit_in_order(requests, order);
    out.lower_bound = live_bytes_lower_bound(requests);
    out.meets_bound = out.arena_bytes == out.lower_bound;
    return out;
}

AllocResult allocate(const std::vector<AllocRequest> &requests, double budget_ms)
{
    const uint64_t bound = live_bytes_lower_bound(requests);
    // Best-fit in a few orders: by size, by lifetime length, by area, by birth then size.
    using Key = std::function<bool(size_t, size_t)>;
    const Key keys[] = {
        [&](size_t a, size_t b) { return requests[a].size > requests[b].size; },
        [&](size_t a, size_t b) {
            return requests[a].last - requests[a].first > requests[b].last - requests[b].first;
        },
        [&](size_t a, size_t b) {
            return requests[a].size * (requests[a].last - requests[a].first + 1) >
                   requests[b].size * (requests[b].last - requests[b].first + 1);
        },
        [&](size_t a, size_t b) { // by birth, larger first: a sweep along the schedule
            if (requests[a].first != requests[b].first) return requests[a].first < requests[b].first;
            return requests[a].size > requests[b].size;
        },
    };
    AllocResult best;
    best.arena_bytes = UINT64_MAX;
    for (const Key &key : keys) {
        std::vector<size_t> order(requests.size());
        std::iota(order.begin(), order.end(), size_t(0));
        std::stable_sort(order.begin(), order.end(), key);
        AllocResult r = best_fit_in_order(requests, order);
        if (r.arena_bytes < best.arena_bytes) best = std::move(r);
        if (best.arena_bytes == bound) break;
    }
    best.lower_bound = bound;
    // Branch and bound: ask for a packing below the best one found, at the bound
    // first, then just under the best, until the budget runs out.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(int64_t(budget_ms * 1000));
    uint64_t step = 1;
    for (const auto &q : requests) step = std::max<uint64_t>(step, q.align);
    bool tried_bound = false;
    while (budget_ms > 0 && best.arena_bytes > bound) {
        const double left_ms =
            std::chrono::duration<double, std::milli>(deadline - std::chrono::steady_clock::now()).count();
        if (left_ms <= 0) break;
        const uint64_t target = tried_bound ? best.arena_bytes - step : bound;
        CanonicalSearch search(requests, target, tried_bound ? left_ms : left_ms / 2);
        const bool found = search.run();
        if (found) {
            best.offsets = search.offsets();
            best.arena_bytes = 0;
            for (size_t i = 0; i < requests.size(); ++i)
                best.arena_bytes = std::max(best.arena_bytes, best.offsets[i] + requests[i].size);
            best.method = "search";
        } else if (tried_bound && !search.timed_out()) {
            break; // proven: nothing below the best packing exists
        } else if (tried_bound) {
            break;
        }
        tried_bound = true;
    }
    best.meets_bound = best.arena_bytes == bound;
    return best;
}

bool placement_is_valid(const std::vector<AllocRequest> &requests, const std::vector<uint64_t> &offsets)
{
    for (size_t i = 0; i < requests.size(); ++i) {
        if (offsets[i] % requests[i].align != 0) return false;
        for (size_t j = i + 1; j < requests.size(); ++j) {
            if (!lifetimes_overlap(requests[i], requests[j]) || !requests[i].size || !requests[j].size) continue;
            if (offsets[i] < offsets[j] + requests[j].size && offsets[j] < offsets[i] + requests[i].size) return false;
        }
    }
    return true;
}

} // namespace tessera
