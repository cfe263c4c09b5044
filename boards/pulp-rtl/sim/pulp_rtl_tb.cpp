// The pulp-rtl board's testbench: the CV32E40P cluster (tessera_pulp_cluster.sv, built by
// Verilator) and, cycle by cycle, what surrounds it on a PULP cluster:
//  - L1: PULP_RTL_L1_BANKS word-interleaved banks; a bank serves one request a cycle
//    (round robin among the cores asking), the others stall; a load's data arrives the
//    next cycle (1 cycle of latency);
//  - L2: the program, the image and the L2/NMS arenas; a core's load or store is answered
//    PULP_RTL_L2_LATENCY cycles after it is granted (no contention between cores);
//    instruction fetches are answered the next cycle, as from an instruction cache that
//    always hits;
//  - an event unit: fork and barrier as loads answered when the cluster is ready; a
//    waiting core is idle;
//  - a DMA engine: an in-order queue of 2D copies, PULP_RTL_DMA_SETUP cycles a job and
//    PULP_RTL_DMA_BYTES_PER_CYCLE bytes a cycle (it does not take L1 bank cycles from
//    the cores);
//  - console, exit status, and marks around the measured runs.
// At exit it prints the cycles of the marked runs, each core's busy cycles, and per
// operator (the HAL's trace labels) the busiest core's cycles and the L1 bank-conflict
// stalls: the cycle-true profile.
//
// pulp-rtl-sim [--max-cycles N] [--quiet-profile] FIRMWARE.elf
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Vtessera_pulp_cluster.h"
#include "tessera/pulp_rtl_map.h"
#include "verilated.h"

#ifndef PULP_RTL_CORES_BUILT
#error "PULP_RTL_CORES_BUILT: the cores the model was built with"
#endif

namespace {

constexpr uint64_t kNever = ~uint64_t(0);
constexpr uint32_t kL1Bytes = PULP_RTL_L1_PHYSICAL_BYTES;
constexpr uint32_t kBanks = PULP_RTL_L1_BANKS;
constexpr int kCores = PULP_RTL_CORES_BUILT;
static_assert((kBanks & (kBanks - 1)) == 0, "a power of two of banks");

struct Response {
    uint64_t ready; // the cycle from which it may be answered (kNever: held by the event unit or the DMA)
    uint32_t data;
    int held_by = 0; // 0 none, 1 event unit, 2 DMA wait
};

struct DmaJob {
    uint32_t src, dst, row_bytes, rows, src_stride, dst_stride;
};

struct OpStats {
    std::vector<uint64_t> busy = std::vector<uint64_t>(kCores), stalls = std::vector<uint64_t>(kCores),
                          dma_wait = std::vector<uint64_t>(kCores);
};

struct Testbench {
    std::vector<uint8_t> l1 = std::vector<uint8_t>(kL1Bytes), l2 = std::vector<uint8_t>(PULP_RTL_L2_BYTES);
    std::deque<Response> data_q[kCores], instr_q[kCores];
    uint64_t cycle = 0;
    uint32_t rr[kBanks] = {};
    // event unit
    bool at_barrier[kCores] = {};
    uint32_t forks_posted = 0, forks_taken[kCores] = {};
    bool waiting_fork[kCores] = {};
    // DMA
    DmaJob staging{};
    std::deque<DmaJob> dma_q;
    uint32_t dma_pushed = 0, dma_done = 0;
    uint64_t dma_busy_until = 0;
    bool dma_active = false;
    uint32_t dma_wait_for[kCores] = {};
    bool waiting_dma[kCores] = {};
    uint64_t dma_bytes = 0;
    // console, exit, trap
    bool exited = false;
    int status = 0;
    uint32_t trap[3] = {};
    int trap_words = 0;
    std::string line;
    // measurement
    bool measuring = false;
    uint64_t run_begin = 0, runs = 0, run_cycles = 0, max_run = 0;
    uint32_t counter_words = 0, counters[2] = {};
    uint64_t instr_begin = 0, run_instructions = 0, cycle_begin_csr = 0, run_csr_cycles = 0;
    OpStats *label[kCores] = {}; // the operator each core works on (its stats), or none
    struct Event {
        uint64_t cycle;
        int core;
        std::string label; // "-": the core left its operator
    };
    std::vector<Event> timeline; // --timeline N: the measured runs' first N label changes
    size_t timeline_limit = 0;
    std::map<std::string, OpStats> ops;
    std::vector<uint64_t> busy = std::vector<uint64_t>(kCores), stalls = std::vector<uint64_t>(kCores);
    std::vector<uint64_t> run_busy = std::vector<uint64_t>(kCores), run_stalls = std::vector<uint64_t>(kCores);

    uint8_t *at(uint32_t addr, uint32_t bytes)
    {
        if (addr >= PULP_RTL_L1_BASE && addr - PULP_RTL_L1_BASE <= kL1Bytes - bytes && bytes <= kL1Bytes)
            return &l1[addr - PULP_RTL_L1_BASE];
        if (addr >= PULP_RTL_L2_BASE && addr - PULP_RTL_L2_BASE <= PULP_RTL_L2_BYTES - bytes && bytes <= PULP_RTL_L2_BYTES)
            return &l2[addr - PULP_RTL_L2_BASE];
        return nullptr;
    }
    static bool in_l1(uint32_t addr) { return addr >= PULP_RTL_L1_BASE && addr - PULP_RTL_L1_BASE < kL1Bytes; }
    static bool is_device(uint32_t addr)
    {
        return addr >= PULP_RTL_DEV_BASE && addr - PULP_RTL_DEV_BASE < PULP_RTL_DEV_BYTES;
    }

    void fail(const char *what, uint32_t addr, int core)
    {
        std::fprintf(stderr, "pulp-rtl: core %d: %s at 0x%08x (cycle %llu)\n", core, what, addr,
                     (unsigned long long)cycle);
        exited = true;
        status = 3;
    }

    std::string string_at(uint32_t addr)
    {
        std::string s;
        for (uint32_t i = 0; i < 64; ++i) {
            const uint8_t *p = at(addr + i, 1);
            if (!p || !*p) break;
            s += char(*p);
        }
        return s;
    }

    // A device load or store by `core`; a load's answer (or that it is held).
    Response device(int core, uint32_t offset, bool write, uint32_t wdata)
    {
        Response r{cycle + 1, 0};
        switch (offset) {
        case PULP_RTL_CONSOLE:
            if (write) {
                std::fputc(int(wdata & 0xFF), stdout);
                if ((wdata & 0xFF) == '\n') std::fflush(stdout);
            }
            break;
        case PULP_RTL_EXIT:
            if (write) exited = true, status = int(wdata);
            break;
        case PULP_RTL_MARK:
            if (write && wdata == 1u) measuring = true, run_begin = cycle, counter_words = 0;
            if (write && wdata == 2u && measuring) {
                measuring = false;
                ++runs;
                run_cycles += cycle - run_begin;
                max_run = std::max<uint64_t>(max_run, cycle - run_begin);
            }
            break;
        case PULP_RTL_COUNTERS:
            if (write) {
                counters[counter_words++ & 1u] = wdata;
                if ((counter_words & 1u) == 0u) {
                    if (measuring) cycle_begin_csr = counters[0], instr_begin = counters[1];
                    else run_csr_cycles += uint32_t(counters[0] - cycle_begin_csr),
                         run_instructions += uint32_t(counters[1] - instr_begin);
                }
            }
            break;
        case PULP_RTL_LABEL:
            if (write) label[core] = wdata ? &ops[string_at(wdata)] : nullptr; // std::map: stable addresses
            if (write && measuring && timeline.size() < timeline_limit)
                timeline.push_back({cycle, core, wdata ? string_at(wdata) : std::string("-")});
            break;
        case PULP_RTL_CORES: r.data = kCores; break;
        case PULP_RTL_TRAP:
            if (write) {
                trap[trap_words++] = wdata;
                if (trap_words == 3) {
                    std::fprintf(stderr, "pulp-rtl: core %d trapped: mcause 0x%x, mepc 0x%08x, mtval 0x%08x (cycle %llu)\n",
                                 core, trap[0], trap[1], trap[2], (unsigned long long)cycle);
                    exited = true, status = 2;
                }
            }
            break;
        case PULP_RTL_EU_BARRIER:
            if (!write) at_barrier[core] = true, r.ready = kNever, r.held_by = 1;
            break;
        case PULP_RTL_EU_FORK_POST:
            if (write) ++forks_posted;
            break;
        case PULP_RTL_EU_FORK_WAIT:
            if (!write) waiting_fork[core] = true, r.ready = kNever, r.held_by = 1;
            break;
        case PULP_RTL_DMA_SRC: if (write) staging.src = wdata; break;
        case PULP_RTL_DMA_DST: if (write) staging.dst = wdata; break;
        case PULP_RTL_DMA_ROW_BYTES: if (write) staging.row_bytes = wdata; break;
        case PULP_RTL_DMA_ROWS: if (write) staging.rows = wdata; break;
        case PULP_RTL_DMA_SRC_STRIDE: if (write) staging.src_stride = wdata; break;
        case PULP_RTL_DMA_DST_STRIDE: if (write) staging.dst_stride = wdata; break;
        case PULP_RTL_DMA_PUSH:
            if (!write) {
                if (dma_q.size() + (dma_active ? 1u : 0u) >= PULP_RTL_DMA_DEPTH) break; // full: handle 0
                dma_q.push_back(staging);
                r.data = ++dma_pushed;
            }
            break;
        case PULP_RTL_DMA_DONE: r.data = dma_done; break;
        case PULP_RTL_DMA_WAIT_FOR: if (write) dma_wait_for[core] = wdata; break;
        case PULP_RTL_DMA_WAIT:
            if (!write && int32_t(dma_done - dma_wait_for[core]) < 0)
                waiting_dma[core] = true, r.ready = kNever, r.held_by = 2;
            break;
        default: fail(write ? "store to no device" : "load from no device", PULP_RTL_DEV_BASE + offset, core);
        }
        return r;
    }

    void release(int core)
    {
        for (auto &r : data_q[core])
            if (r.ready == kNever) {
                r.ready = cycle + 1;
                r.held_by = 0;
                return;
            }
    }

    // The event unit and the DMA engine, once a cycle.
    void tick_devices()
    {
        int arrived = 0;
        for (int c = 0; c < kCores; ++c) arrived += at_barrier[c];
        if (arrived == kCores)
            for (int c = 0; c < kCores; ++c) at_barrier[c] = false, release(c);
        for (int c = 1; c < kCores; ++c)
            if (waiting_fork[c] && forks_taken[c] < forks_posted) waiting_fork[c] = false, ++forks_taken[c], release(c);
        if (dma_active && cycle >= dma_busy_until) {
            const DmaJob &j = dma_q.front();
            for (uint32_t row = 0; row < j.rows && !exited; ++row) {
                const uint8_t *s = at(j.src + row * j.src_stride, j.row_bytes);
                uint8_t *d = at(j.dst + row * j.dst_stride, j.row_bytes);
                if (!s || !d) {
                    fail("DMA job outside memory", !s ? j.src + row * j.src_stride : j.dst + row * j.dst_stride, -1);
                    break;
                }
                std::memmove(d, s, j.row_bytes);
            }
            dma_bytes += uint64_t(j.row_bytes) * j.rows;
            dma_q.pop_front();
            dma_active = false;
            ++dma_done;
            for (int c = 0; c < kCores; ++c)
                if (waiting_dma[c] && int32_t(dma_done - dma_wait_for[c]) >= 0) waiting_dma[c] = false, release(c);
        }
        if (!dma_active && !dma_q.empty()) {
            const DmaJob &j = dma_q.front();
            const uint64_t bytes = uint64_t(j.row_bytes) * j.rows;
            dma_busy_until = cycle + PULP_RTL_DMA_SETUP + (bytes + PULP_RTL_DMA_BYTES_PER_CYCLE - 1) / PULP_RTL_DMA_BYTES_PER_CYCLE;
            dma_active = true;
        }
    }
};

bool load_elf(Testbench &tb, const char *path)
{
    FILE *f = std::fopen(path, "rb");
    if (!f) {
        std::fprintf(stderr, "pulp-rtl: cannot open %s\n", path);
        return false;
    }
    std::vector<uint8_t> file;
    uint8_t buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) file.insert(file.end(), buf, buf + n);
    std::fclose(f);
    auto u16 = [&](size_t o) { return o + 2 <= file.size() ? uint32_t(file[o] | file[o + 1] << 8) : 0u; };
    auto u32 = [&](size_t o) {
        return o + 4 <= file.size() ? uint32_t(file[o] | file[o + 1] << 8 | file[o + 2] << 16 | uint32_t(file[o + 3]) << 24) : 0u;
    };
    if (file.size() < 52 || std::memcmp(file.data(), "\x7f" "ELF\x01\x01", 6) != 0 || u16(18) != 243) {
        std::fprintf(stderr, "pulp-rtl: %s: not a 32-bit little-endian RISC-V ELF\n", path);
        return false;
    }
    const uint32_t phoff = u32(28), phentsize = u16(42), phnum = u16(44);
    for (uint32_t i = 0; i < phnum; ++i) {
        const size_t ph = size_t(phoff) + size_t(i) * phentsize;
        if (ph + 32 > file.size()) return std::fprintf(stderr, "pulp-rtl: %s: truncated program headers\n", path), false;
        if (u32(ph) != 1 /* PT_LOAD */) continue;
        const uint32_t offset = u32(ph + 4), paddr = u32(ph + 12), filesz = u32(ph + 16);
        if (filesz == 0) continue;
        uint8_t *dst = tb.at(paddr, filesz);
        if (!dst || size_t(offset) + filesz > file.size()) {
            std::fprintf(stderr, "pulp-rtl: %s: a segment of %u bytes at 0x%08x is outside L1 and L2\n", path, filesz, paddr);
            return false;
        }
        std::memcpy(dst, file.data() + offset, filesz);
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    uint64_t max_cycles = 2'000'000'000ull;
    bool pc_profile = false; // --pc-profile: core 0's fetch addresses in the measured runs, every cycle
    std::map<uint32_t, uint64_t> pc_samples;
    size_t timeline_limit = 0; // --timeline N
    const char *elf = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            std::printf("usage: %s [--max-cycles N] [--pc-profile] [--timeline N] FIRMWARE.elf\n"
                        "Runs a pulp-rtl firmware on the CV32E40P cluster RTL (%d cores%s): L1 %u bytes in %u banks,\n"
                        "L2 latency %d cycles, DMA %d bytes a cycle after %d cycles a job. Exits with the firmware's status.\n"
                        "--pc-profile: print, at exit, core 0's fetch addresses in the measured runs by 16-byte block, every cycle sampled\n"
                        "(most sampled first, every block: scripts/rtl-pc-profile.py attributes them to functions).\n"
                        "--timeline N: print the first N times a core began or left an operator in the measured runs.\n",
                        argv[0], kCores, PULP_RTL_FPU_BUILT ? ", FPU" : "", kL1Bytes, kBanks, PULP_RTL_L2_LATENCY,
                        PULP_RTL_DMA_BYTES_PER_CYCLE, PULP_RTL_DMA_SETUP);
            return 0;
        }
        if (!std::strcmp(argv[i], "--pc-profile")) {
            pc_profile = true;
        } else if (!std::strcmp(argv[i], "--timeline") && i + 1 < argc) {
            timeline_limit = std::strtoull(argv[++i], nullptr, 10);
        } else if (!std::strcmp(argv[i], "--max-cycles") && i + 1 < argc) {
            max_cycles = std::strtoull(argv[++i], nullptr, 10);
        } else if (argv[i][0] == '-') {
            std::fprintf(stderr, "pulp-rtl: unknown option %s (--help)\n", argv[i]);
            return 2;
        } else {
            elf = argv[i];
        }
    }
    if (!elf) {
        std::fprintf(stderr, "pulp-rtl: no firmware given (--help)\n");
        return 2;
    }
    auto tb = std::make_unique<Testbench>();
    tb->timeline_limit = timeline_limit;
    if (!load_elf(*tb, elf)) return 2;

    auto context = std::make_unique<VerilatedContext>();
    auto top = std::make_unique<Vtessera_pulp_cluster>(context.get());
    top->rst_ni = 0;
    for (int c = 0; c < kCores; ++c) top->instr_gnt_i[c] = top->instr_rvalid_i[c] = top->data_gnt_i[c] = top->data_rvalid_i[c] = 0;
    auto set_clocks = [&](bool level) {
        for (int c = 0; c < kCores; ++c) top->clk_i[c] = level;
    };
    for (int i = 0; i < 10; ++i) {
        set_clocks(false), top->eval();
        set_clocks(true), top->eval();
    }
    top->rst_ni = 1;

    Testbench &t = *tb;
    while (!t.exited && t.cycle < max_cycles) {
        set_clocks(false);
        // Responses due this cycle. A core whose load the event unit or the DMA wait
        // holds, and which is not answered this cycle, has its clock gated: no edge, no
        // grant, no response (it has nothing to do; its state waits as it is).
        bool idle[kCores], dma_waiting[kCores], gated[kCores];
        for (int c = 0; c < kCores; ++c) {
            const auto &front_q = t.data_q[c];
            // Core 0 keeps its clock: its mcycle is the HAL's cycle counter, the runtime's clock.
            gated[c] = c != 0 && !front_q.empty() && front_q.front().ready > t.cycle && front_q.front().held_by != 0;
            const bool waiting = !front_q.empty() && front_q.front().ready > t.cycle;
            idle[c] = waiting && front_q.front().held_by == 1;
            dma_waiting[c] = waiting && front_q.front().held_by == 2;
            top->instr_gnt_i[c] = 0;
            top->data_gnt_i[c] = 0;
            if (gated[c]) {
                top->instr_rvalid_i[c] = 0;
                top->data_rvalid_i[c] = 0;
                continue;
            }
            auto &iq = t.instr_q[c];
            const bool iv = !iq.empty() && iq.front().ready <= t.cycle;
            top->instr_rvalid_i[c] = iv;
            top->instr_rdata_i[c] = iv ? iq.front().data : 0;
            if (iv) iq.pop_front();
            auto &dq = t.data_q[c];
            const bool dv = !dq.empty() && dq.front().ready <= t.cycle;
            top->data_rvalid_i[c] = dv;
            top->data_rdata_i[c] = dv ? dq.front().data : 0;
            if (dv) dq.pop_front();
        }
        top->eval(); // the falling edge and this cycle's responses; the requests settle
        // Grants: instruction fetches always; data by bank (L1) or at once (L2, devices).
        // A core whose load is held by the event unit or the DMA wait issues nothing
        // more until it is answered (as cv.elw stalls a PULP core): a request the core's
        // load-store unit sends behind it is not granted, so nothing overtakes the wait.
        bool held[kCores];
        for (int c = 0; c < kCores; ++c)
            held[c] = gated[c] || (!t.data_q[c].empty() && t.data_q[c].back().ready == kNever);
        bool grant[kCores] = {};
        int bank_owner[kBanks];
        for (uint32_t b = 0; b < kBanks; ++b) bank_owner[b] = -1;
        for (uint32_t b = 0; b < kBanks; ++b) {
            for (int k = 0; k < kCores; ++k) {
                const int c = int((t.rr[b] + uint32_t(k)) % kCores);
                if (top->data_req_o[c] && !held[c] && Testbench::in_l1(top->data_addr_o[c]) &&
                    ((top->data_addr_o[c] >> 2) & (kBanks - 1)) == b) {
                    bank_owner[b] = c;
                    break;
                }
            }
        }
        for (int c = 0; c < kCores; ++c) {
            top->instr_gnt_i[c] = top->instr_req_o[c] && !gated[c];
            if (!top->data_req_o[c] || held[c]) continue;
            const uint32_t a = top->data_addr_o[c];
            if (Testbench::in_l1(a)) {
                const uint32_t b = (a >> 2) & (kBanks - 1);
                grant[c] = bank_owner[b] == c;
                if (!grant[c]) ++t.stalls[c];
            } else {
                grant[c] = true;
            }
            top->data_gnt_i[c] = grant[c];
        }
        for (uint32_t b = 0; b < kBanks; ++b)
            if (bank_owner[b] >= 0) t.rr[b] = uint32_t(bank_owner[b] + 1) % kCores;
        // Accounting, by the label each core works under.
        for (int c = 0; c < kCores; ++c) {
            const bool stalled = top->data_req_o[c] && !grant[c] && !held[c];
            if (!idle[c]) ++t.busy[c];
            if (t.measuring) t.run_busy[c] += !idle[c], t.run_stalls[c] += stalled;
            if (t.measuring && t.label[c]) {
                OpStats &s = *t.label[c];
                if (!idle[c]) ++s.busy[c];
                if (stalled) ++s.stalls[c];
                if (dma_waiting[c]) ++s.dma_wait[c];
            }
        }
        // The granted requests take effect at the clock edge.
        struct Req {
            bool fetch, data, we;
            uint32_t iaddr, addr, be, wdata;
        } req[kCores];
        for (int c = 0; c < kCores; ++c)
            req[c] = {bool(top->instr_req_o[c]) && !gated[c], grant[c], bool(top->data_we_o[c]), top->instr_addr_o[c],
                      top->data_addr_o[c], top->data_be_o[c], top->data_wdata_o[c]};
        for (int c = 0; c < kCores; ++c) top->clk_i[c] = !gated[c];
        top->eval(); // the grants settle before the rising edge samples them (Verilator's input region)
        for (int c = 0; c < kCores && !t.exited; ++c) {
            if (req[c].fetch) {
                const uint8_t *p = t.at(req[c].iaddr & ~3u, 4);
                if (!p) {
                    t.fail("instruction fetch outside memory", req[c].iaddr, c);
                    break;
                }
                uint32_t w;
                std::memcpy(&w, p, 4);
                t.instr_q[c].push_back({t.cycle + 1, w});
            }
            if (!req[c].data) continue;
            const uint32_t a = req[c].addr & ~3u;
            Response r{t.cycle + 1, 0};
            if (Testbench::is_device(a)) {
                r = t.device(c, a - PULP_RTL_DEV_BASE, req[c].we, req[c].wdata);
            } else if (uint8_t *p = t.at(a, 4)) {
                if (req[c].we) {
                    for (int byte = 0; byte < 4; ++byte)
                        if (req[c].be & (1u << byte)) p[byte] = uint8_t(req[c].wdata >> (8 * byte));
                } else {
                    std::memcpy(&r.data, p, 4);
                }
                if (!Testbench::in_l1(a)) r.ready = t.cycle + PULP_RTL_L2_LATENCY;
            } else {
                t.fail(req[c].we ? "store outside memory" : "load outside memory", req[c].addr, c);
                break;
            }
            if (!t.data_q[c].empty() && t.data_q[c].back().ready != kNever && r.ready != kNever)
                r.ready = std::max(r.ready, t.data_q[c].back().ready + 1); // in order
            t.data_q[c].push_back(r);
        }
        t.tick_devices();
        if (pc_profile && t.measuring) ++pc_samples[top->instr_addr_o[0] & ~15u];
        ++t.cycle;
    }
    std::fflush(stdout);
    if (pc_profile) {
        std::vector<std::pair<uint64_t, uint32_t>> blocks;
        for (const auto &[pc, n] : pc_samples) blocks.push_back({n, pc});
        std::sort(blocks.rbegin(), blocks.rend());
        std::printf("rtl pc profile (core 0's fetch address in the measured runs, 16-byte blocks, cycles):\n");
        for (size_t i = 0; i < blocks.size(); ++i)
            std::printf("  0x%08x %llu\n", blocks[i].second, (unsigned long long)blocks[i].first);
    }
    if (!t.timeline.empty()) {
        std::printf("rtl timeline (cycle, core, operator begun or '-' left), %zu events:\n", t.timeline.size());
        for (const Testbench::Event &e : t.timeline)
            std::printf("  %llu %d %s\n", (unsigned long long)e.cycle, e.core, e.label.c_str());
    }
    if (!t.exited) {
        std::fprintf(stderr, "pulp-rtl: no exit after %llu cycles (--max-cycles)\n", (unsigned long long)t.cycle);
        return 124;
    }
    std::printf("rtl: %d cores%s, %llu cycles in all, DMA %llu bytes; core busy cycles:", kCores,
                PULP_RTL_FPU_BUILT ? " with FPU" : "", (unsigned long long)t.cycle, (unsigned long long)t.dma_bytes);
    for (int c = 0; c < kCores; ++c) std::printf(" %llu", (unsigned long long)t.busy[c]);
    std::printf("\n");
    if (t.runs) {
        std::printf("rtl: %llu measured runs: %llu cycles per run (longest %llu); core 0: %llu instructions per run, "
                    "mcycle %llu per run\n",
                    (unsigned long long)t.runs, (unsigned long long)(t.run_cycles / t.runs), (unsigned long long)t.max_run,
                    (unsigned long long)(t.run_instructions / t.runs), (unsigned long long)(t.run_csr_cycles / t.runs));
        uint64_t busiest = 0, stalls = 0;
        for (int c = 0; c < kCores; ++c) busiest = std::max(busiest, t.run_busy[c]), stalls += t.run_stalls[c];
        std::printf("rtl: per run: busiest core %llu busy cycles, L1 bank-conflict stalls %llu (all cores)\n",
                    (unsigned long long)(busiest / t.runs), (unsigned long long)(stalls / t.runs));
        std::printf("rtl profile by operator (per run; busiest core's busy cycles; L1 bank-conflict stall cycles and "
                    "DMA-wait cycles of all cores):\n");
        for (const auto &[name, s] : t.ops) {
            uint64_t top_busy = 0, stalls = 0, dma = 0;
            for (int c = 0; c < kCores; ++c) top_busy = std::max(top_busy, s.busy[c]), stalls += s.stalls[c], dma += s.dma_wait[c];
            if (!top_busy && !stalls && !dma) continue; // an operator seen only outside the measured runs
            std::printf("  rtl %s: cycles/run %llu, bank stalls/run %llu, DMA wait/run %llu\n", name.c_str(),
                        (unsigned long long)(top_busy / t.runs), (unsigned long long)(stalls / t.runs),
                        (unsigned long long)(dma / t.runs));
        }
    }
    top->final();
    return t.status;
}
