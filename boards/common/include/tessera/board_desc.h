// Board descriptions (boards/<name>/board.json): what the packer plans for and
// what the host board emulates. Host-side C++.
#ifndef TESSERA_BOARD_DESC_H
#define TESSERA_BOARD_DESC_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tessera/errors.h"
#include "tessera/hal.h"

namespace tessera {

// Costs fitted to measured runs ("cost": "fitted", one entry per kernel set;
// scripts/fit-costs.py refits them): a step of variant V costs, on the busiest core,
//   per_call x its tiles + per_mac x that core's MACs + per_element x its elements
//   + per_byte x the step's DMA bytes + per_transfer x its DMA transfers
// (the core's share: the step's work over the cores that compute; the DMA bytes are
// core 0's to wait for, whatever the cores), barriers and the driver around the kernel
// included; a run adds per_run + per_call x its steps' calls + per_row x its rows. `unit` is what was
// measured: "cycles" (the RTL) or "instructions" (QEMU's plugin).
struct FittedVariantCost {
    double per_call = 0, per_mac = 0, per_element = 0, per_byte = 0, per_transfer = 0;
};
// Costs fitted to a set of runs: what a run adds outside its steps (per_run + per_call x
// its steps' calls + per_row x its rows: a decoder-only run copies its rows and rotations
// in and its output out) and each variant's costs.
struct FittedCoreCosts {
    double per_run = 0, per_call = 0, per_row = 0;
    std::map<std::string, FittedVariantCost> variants; // by variant name (tessera/variants.def)
};
// A kernel set's fitted costs: `all` fitted to every run (for core counts never
// measured), and `by_cores` to the runs on that many cores (cost.fitted.<set>.by_cores),
// which take precedence for runs on that many cores or more, up to the next entry (bank
// conflicts and the busiest core's share differ with the cores).
struct FittedCosts {
    std::string unit, source;
    FittedCoreCosts all;
    std::map<uint32_t, FittedCoreCosts> by_cores;
    // The costs for a run on `cores` cores: the entry with the most cores up to `cores`, or `all`.
    const FittedCoreCosts &for_cores(uint32_t cores) const
    {
        const FittedCoreCosts *best = &all;
        for (const auto &[n, c] : by_cores)
            if (n <= cores) best = &c;
        return *best;
    }
    // Variant `name`'s costs on `cores` cores (nullptr: not fitted).
    const FittedVariantCost *variant(const std::string &name, uint32_t cores) const
    {
        for (const FittedCoreCosts *c : {&for_cores(cores), &all}) {
            const auto it = c->variants.find(name);
            if (it != c->variants.end()) return &it->second;
        }
        return nullptr;
    }
};

// The board's cost and energy model ("cost" in board.json): what turns a plan into
// estimated cycles, tokens per second and energy (tools/pack: cost_model.h). Every
// figure says where it came from in `sources`.
struct BoardCost {
    double clock_hz = 0;                   // 0: the description has no cost model
    double cluster_macs_per_cycle[3] = {}; // per core: fp32, bf16, int8
    double cluster_cycles_per_element = 0; // per core, an element of a non-linear or elementwise operator
    double npu_macs_per_cycle_8bit = 0, npu_macs_per_cycle_4bit = 0;
    double dma_bytes_per_cycle = 0;        // L2 <-> L1
    double nms_bytes_per_cycle = 0;        // the NPU's weight port from NMS
    double npu_job_cycles = 0, fork_cycles = 0, barrier_cycles = 0, dma_transfer_cycles = 0; // setup costs
    double cluster_mw = 0, npu_mw = 0, dma_mw = 0, idle_mw = 0; // active power per engine, and of the rest
    std::map<std::string, std::string> sources;                // field -> where its figure came from
    std::map<std::string, FittedCosts> fitted;                 // by kernel set name

    bool present() const { return clock_hz > 0; }
    // The fitted costs of kernel set `set`; with "" the only set fitted, or the board's
    // own (`board_set`) when several are. nullptr: none.
    const FittedCosts *fitted_for(const std::string &set, const std::string &board_set = "") const
    {
        auto it = fitted.find(set.empty() && fitted.size() != 1 ? board_set : set);
        if (set.empty() && fitted.size() == 1) it = fitted.begin();
        return it == fitted.end() ? nullptr : &it->second;
    }
};

// The memory model of a cycle-true board ("memory" in board.json; boards/pulp-rtl): what
// its testbench builds and what the planner may use (the L1's banks). Every figure says
// where it came from in `sources`.
struct BoardMemory {
    uint32_t l1_banks = 0;                 // 0: the description states no memory model
    uint32_t l1_latency_cycles = 0, l2_latency_cycles = 0;
    uint32_t l1_stack_bytes_core0 = 0, l1_stack_bytes_other = 0; // L1 beside the arena, each core's stack
    uint32_t dma_bytes_per_cycle = 0, dma_setup_cycles = 0;
    std::map<std::string, std::string> sources;

    bool present() const { return l1_banks > 0; }
};

// Off-chip memory ("offchip" in board.json): where the image lives on a board that has
// it (HyperRAM, PSRAM, a QSPI/OctoSPI flash, SDRAM), so weights that do not fit on the
// chip are read from there, in place or streamed by the DMA. Every figure says where it
// came from in `sources`.
struct BoardOffChip {
    std::string kind;           // one of kOffChipKinds ("": the board describes none)
    uint32_t bytes = 0;         // its size: the image's capacity (region IMAGE)
    double bytes_per_second = 0; // sustained bandwidth to the chip ("mb_per_s": 10^6 bytes a second)
    double latency_ns = 0;      // from a transfer's start to its first byte
    bool cores_read = false;    // the cores may load from it (read in place); else only the DMA engine
    std::map<std::string, std::string> sources;

    bool present() const { return !kind.empty(); }
};
inline constexpr const char *kOffChipKinds[] = {"hyperram", "psram", "qspi-flash", "octospi-flash", "sdram"};

struct BoardDesc {
    std::string name;
    std::string description;
    std::string source; // the file it was read from
    std::string json;   // the description, as compact JSON (what an image embeds)
    uint32_t cores = 0;
    uint32_t region_size[TSR_REGION_COUNT] = {}; // [TSR_REGION_IMAGE]: flash, the image's capacity (0: not given)
    bool has_npu = false;
    uint32_t dma_queue_depth = 16;
    bool dma_by_core = false; // dma.by_core: the cores do the copies (no DMA engine), so kernels read operands in place
    uint32_t npu_queue_depth = 2;
    double clock_hz = 0; // "clock_mhz" (or the cost model's); 0: not given
    uint32_t isa = 0;    // cluster.kernels: the tuned kernel set its cores run (TSR_ISA_* bits; 0: portable)
    BoardCost cost;
    BoardMemory memory;
    BoardOffChip offchip;

    uint32_t fingerprint() const { return tsr_board_fingerprint(name.c_str(), cores, region_size, has_npu); }
};


// The kernel sets a description can name (cluster.kernels), and their TSR_ISA_* bits.
struct KernelSetName {
    const char *name;
    uint32_t isa;
};
inline constexpr KernelSetName kKernelSets[] = {{"portable", 0u}, TSR_KERNEL_SET_NAMES}; // kernels/kernel_sets.cmake
// The name of the set with bits `isa` ("portable" for 0).
inline const char *kernel_set_name(uint32_t isa)
{
    for (const KernelSetName &k : kKernelSets)
        if (k.isa == isa) return k.name;
    return "several";
}

// Parses a description; `source` names it in error messages.
BoardDesc parse_board_desc(const std::string &json_text, const std::string &source);

// NAME (looked up in the board directories) or a path to a .json file.
BoardDesc load_board_desc(const std::string &name_or_path);

// The description an image is to run with: `board_arg` (a name or .json) when given;
// otherwise the board the image names, from the board directories when it is one of
// them (so the image's fingerprint is checked against today's description), else the
// description the packer embedded in the image (a custom board; its L1, L2 and NMS
// together at most 1 GiB, since the image is untrusted). Throws BoardError.
BoardDesc board_for_image(const std::string &board_arg, const uint8_t *image, size_t size);
// The embedded description's JSON text, or "" when the image has none (or is not an
// image); throws BoardError when its section lies outside the image or fails its CRC.
std::string embedded_board_json(const uint8_t *image, size_t size);

// Where board names are looked up: $TESSERA_BOARDS_DIR (folders separated by ':'),
// then share/tessera/boards beside the running tool's bin/ (an installed prefix,
// wherever it is), then the configured install prefix's and the source tree's boards/.
std::vector<std::string> board_search_dirs();
std::vector<std::string> known_board_names();
// "gap9, host, ..." or "none found": for help texts and messages.
std::string known_boards_text();
// Empty when `name_or_path` is a path (it has a '/' or ends in .json) or a known board;
// else "unknown board 'sircusa' (did you mean siracusa? known boards: ...)": a command
// line's usage error, found before any work.
std::string unknown_board(const std::string &name_or_path);

} // namespace tessera

#endif
