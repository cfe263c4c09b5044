#include "tessera/pack/static_allocator.h"

#include <algorithm>
#include <map>
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

AllocResult allocate_best_fit(const std::vector<AllocRequest> &requests)
{
    AllocResult out;
    out.offsets.assign(requests.size(), 0);
    std::vector<size_t> order(requests.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (requests[a].size != requests[b].size) return requests[a].size > requests[b].size;
        return requests[a].first < requests[b].first;
    });
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
    out.lower_bound = live_bytes_lower_bound(requests);
    return out;
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
