// The host emulation board, C++ interface.
#ifndef TESSERA_HOST_BOARD_HPP
#define TESSERA_HOST_BOARD_HPP

#include <memory>
#include <string>
#include <vector>

#include "tessera/board_desc.h"
#include "tessera/hal.h"

namespace tessera {

// One interval of work by one engine of the host board.
struct TimelineEvent {
    enum class Engine { kCluster, kDma } engine;
    uint64_t start_ns, end_ns; // since the board was created
    uint64_t bytes;            // DMA: bytes moved
};

class HostBoard {
public:
    // threads: 1..desc.cores; 0 = min(desc.cores, hardware threads). Throws BoardError.
    static std::unique_ptr<HostBoard> create(const BoardDesc &desc, uint32_t threads = 0);
    ~HostBoard();
    HostBoard(const HostBoard &) = delete;
    HostBoard &operator=(const HostBoard &) = delete;

    const tsr_hal_board *hal() const;
    const BoardDesc &desc() const;

    // Test builds: stop the program, loudly, when a kernel is handed an operand
    // outside L1 (the runtime reports every kernel operand range to the board).
    void check_l1(bool on);

    // Timeline of what each engine did (off by default: it costs a lock per event).
    void record_timeline(bool on);
    std::vector<TimelineEvent> timeline() const;
    // The timeline as a Chrome/Perfetto trace (JSON text).
    std::string timeline_trace_json() const;

    struct Impl;

private:
    explicit HostBoard(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace tessera

#endif
