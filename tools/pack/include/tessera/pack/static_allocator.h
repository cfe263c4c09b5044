// Static allocation of buffers with known lifetimes in one address space.
#ifndef TESSERA_PACK_STATIC_ALLOCATOR_H
#define TESSERA_PACK_STATIC_ALLOCATOR_H

#include <cstdint>
#include <vector>

namespace tessera {

struct AllocRequest {
    uint64_t size = 0;
    uint64_t align = 1; // power of two
    uint32_t first = 0; // first moment it is live (inclusive)
    uint32_t last = 0;  // last moment it is live (inclusive)
};

struct AllocResult {
    std::vector<uint64_t> offsets; // per request
    uint64_t arena_bytes = 0;      // end of the highest buffer
    uint64_t lower_bound = 0;      // largest total of bytes live at one moment
    const char *method = "best-fit"; // "best-fit" or "search"
    bool meets_bound = false;      // arena_bytes == lower_bound: provably optimal
};

// Largest sum of sizes live at the same moment: no placement can use less.
uint64_t live_bytes_lower_bound(const std::vector<AllocRequest> &requests);

// Greedy placement: largest first, each at the lowest aligned offset where it
// overlaps no placed buffer whose lifetime intersects its own.
AllocResult allocate_best_fit(const std::vector<AllocRequest> &requests);

// Best-fit in several orders; when none meets the lower bound, a depth-first
// search over canonical placements (buffers in ascending offset order, each at the
// lowest offset it fits) for one that does, for at most `budget_ms`. Any packing
// can be pushed down into that form, so with time the search finds one if it exists.
AllocResult allocate(const std::vector<AllocRequest> &requests, double budget_ms = 250);

// True when no two buffers that are live at the same moment share a byte.
bool placement_is_valid(const std::vector<AllocRequest> &requests, const std::vector<uint64_t> &offsets);

} // namespace tessera

#endif
