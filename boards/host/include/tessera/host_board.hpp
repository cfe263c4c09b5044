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
    enum class Engine { kCluster, kDma, kNpu } engine;
    uint32_t core;             // cluster: the core (its lane)
    uint64_t start_ns, end_ns; // since the board was created (estimated timelines: cycles)
    uint64_t bytes;            // DMA: bytes moved; NPU: multiply-accumulates
    const char *name;          // "fork" (a whole run, on core 0), "copy" (DMA), or an operator
    uint32_t layer;            // the operator's model layer, or 0xFFFF (NPU: the job's tag)
    uint32_t pos;              // the run's first position: the token it works on
    uint32_t cores;            // "fork": the cores it ran on
};

// A timeline as a Chrome/Perfetto trace (JSON text): a lane per cluster core (`cores`,
// each named even if idle), then the DMA engine's and, with `npu`, the NPU's, as many
// lanes each as it had transfers or jobs in flight at once (no two slices of a lane
// overlap); slices named by operator,
// with the layer and the token in their arguments. With `cycles`, the events' times
// are the board's estimated cycles (tessera-generate --timeline-clock estimated) and
// the trace's time axis counts cycles (1 "us" on it is one cycle); otherwise nanoseconds.
std::string timeline_trace_json(const std::vector<TimelineEvent> &events, uint32_t cores, bool npu,
                                const std::string &board, bool cycles = false);

// The same timeline as an SVG picture: a lane per core, the DMA engine's and the NPU's,
// the runs above them, a time axis with its unit (ns of wall time, or cycles), slices
// coloured and labelled by operator, a legend with each operator's share of busy time.
std::string timeline_svg(const std::vector<TimelineEvent> &events, uint32_t cores, bool npu, const std::string &board,
                         bool cycles = false);

class HostBoard {
public:
    // threads: 1..desc.cores, every fork runs on all of them; or 0, the default: the
    // board starts min(desc.cores, hardware threads) and runs each fork on the count
    // measured fastest on this machine now (src/core_count_chooser.hpp), so that more
    // threads never make it slower. Results are the same for any count.
    // solo_bytes: cluster steps sharing fewer bytes of operands run on core 0 alone
    // (tsr_hal_board.solo_bytes): on a host, two barriers cost more than sharing a small
    // step saves. 0 shares every step (tests of the multi-core paths). Throws BoardError.
    // A barrier pair costs a host 1 to 5 us quiet, and far more beside a busy process
    // (the thread waited for may have lost its core); a MiB of operands is some 50 us of
    // work. Measured on 2 vCPUs, 256 tokens, --threads 2, median of 5 (tok/s):
    //   solo_bytes        stories260K quiet / busy     TinyLLama-v0 shape quiet / busy
    //   0 (share all)          2952 /  499                    496 / 180
    //   64 KiB                 3338 / 1574                    515 / 233
    //   256 KiB                5031 / 4930                    491 / 353
    //   1 MiB                  4811 / 5876                    845 / 385
    // (--threads 1 in the same minutes: 5200 to 5700 and 580 to 790.)
    static constexpr uint32_t kDefaultSoloBytes = 1u << 20;
    static std::unique_ptr<HostBoard> create(const BoardDesc &desc, uint32_t threads = 0,
                                             uint32_t solo_bytes = kDefaultSoloBytes);
    ~HostBoard();
    HostBoard(const HostBoard &) = delete;
    HostBoard &operator=(const HostBoard &) = delete;

    const tsr_hal_board *hal() const;
    const BoardDesc &desc() const;
    // The tuned kernel sets the runtime may use (tsr_hal_board.isa): those the
    // description names (cluster.kernels) that this build has and this machine runs,
    // checked once, at create. use_portable_kernels (before tessera_open) turns them
    // off: the portable kernels give the same results, bit for bit.
    uint32_t isa() const;
    void use_portable_kernels();
    // The threads backing the cluster, and how many of them forks run on now (with
    // threads = 0 at create: the count measured fastest so far).
    uint32_t threads() const;
    uint32_t threads_in_use() const;

    // Test builds: stop the program, loudly, when a kernel is handed an operand
    // outside L1 (the runtime reports every kernel operand range to the board).
    void check_l1(bool on);

    // A description with off-chip memory: the DMA engine reads the image (any source
    // outside L1, L2 and NMS) no faster than offchip.mb_per_s, in wall time, so that a
    // timeline shows the stream as the board would (off by default: the host's own
    // speed). Throws BoardError for a description without off-chip memory.
    void throttle_offchip(bool on);

    // Tests: a paused NPU takes no job off its queue (to fill the queue on purpose).
    void pause_npu(bool on);

    // Greedy sampling on the cluster's threads from a vocabulary of `from` on, the logits
    // moved into L1 by the DMA engine, as a board whose cores load from L2 slowly asks for it
    // (tsr_hal_board.sample_on_cluster_from; siracusa's board); 0, the default: the
    // controller reads them where they lie, the host's memory being all alike.
    void sample_on_cluster(uint32_t from);

    // Timeline of what each engine did, a lane per core, one for the DMA engine and
    // one for the NPU, operators named (off by default: it costs a lock per event).
    void record_timeline(bool on);
    std::vector<TimelineEvent> timeline() const;
    // The timeline as a Chrome/Perfetto trace (JSON text), in wall time.
    std::string timeline_trace_json() const;
    // The timeline as an SVG picture (timeline_svg), in wall time.
    std::string timeline_svg() const;
    // Whether the board has an NPU engine (and its timeline an NPU lane).
    bool has_npu() const;
    // Nanoseconds the NPU engine has spent running jobs since the board was created
    // (0 without one): it runs alongside the cluster.
    uint64_t npu_busy_ns() const;

    struct Impl;

private:
    explicit HostBoard(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace tessera

#endif
