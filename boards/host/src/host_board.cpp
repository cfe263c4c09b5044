#include "tessera/host_board.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core_count_chooser.hpp"
#include "dma_engine.hpp"
#include "npu_engine.hpp"
#include "timeline.hpp"
#include "tessera/host_board.h"
#include "tessera/kernel_sets.h"

namespace tessera {

namespace {

// Waiting: poll for a while (a wake-up then costs nanoseconds), then sleep on the
// atomic (a futex), so a waiter never holds a core the work needs for long. The poll
// lasts up to 100 us when every thread has a core of its own: longer than most waits
// between tiles (a tile's copy or compute), so a barrier rarely pays for a sleep and
// a wake-up (measured: a quarter of the barriers slept with 8 us, and a TinyLLama-v0
// token on 2 threads took longer than on 1). With more threads than the machine has
// cores, 8 us, then sleep.
//
// A machine busy with other work is the same case, found at run time: the thread a
// waiter polls for may be waiting for the very core the poll holds. So the poll gives
// the core away (sched_yield) every 64 rounds, which costs nothing when no other thread
// wants it, and the poll's length is learnt (SpinBudget): waits that keep ending in a
// sleep halve it, down to none (straight to the futex); a wait that ends while polling
// doubles it again, up to the most.
using Spin = std::chrono::microseconds;
constexpr Spin kSpinOwnCores{100}, kSpinSharedCores{8};

// The longest poll for a cluster of `cores` threads on this machine.
inline Spin most_spin(uint32_t cores)
{
    return cores <= std::max(1u, std::thread::hardware_concurrency()) ? kSpinOwnCores : kSpinSharedCores;
}

class SpinBudget {
public:
    explicit SpinBudget(Spin most) : most_(uint32_t(most.count())), us_(most_) {}
    Spin now() const { return Spin(us_.load(std::memory_order_relaxed)); }
    void ended_polling()
    {
        slept_in_a_row_.store(0, std::memory_order_relaxed);
        const uint32_t us = us_.load(std::memory_order_relaxed);
        if (us < most_) us_.store(std::min(most_, us ? us * 2u : 1u), std::memory_order_relaxed);
    }
    void ended_sleeping()
    {
        if (slept_in_a_row_.fetch_add(1, std::memory_order_relaxed) + 1u < kSleepsBeforeShorter) return;
        slept_in_a_row_.store(0, std::memory_order_relaxed);
        us_.store(us_.load(std::memory_order_relaxed) / 2u, std::memory_order_relaxed);
    }

private:
    static constexpr uint32_t kSleepsBeforeShorter = 4; // one long tile is no busy machine
    const uint32_t most_;
    std::atomic<uint32_t> us_;
    std::atomic<uint32_t> slept_in_a_row_{0};
};

// Polls `ready` until it holds or `spin` is over, yielding the core now and then; true
// if it holds.
template <typename Ready> bool spin_until(Ready ready, Spin spin)
{
    if (spin.count() == 0) return ready();
    const auto until = std::chrono::steady_clock::now() + spin;
    for (uint32_t i = 1;; ++i) {
        if (ready()) return true;
        cpu_relax();
        if (i % 64u == 0u) {
            if (std::chrono::steady_clock::now() >= until) return ready();
            std::this_thread::yield();
        }
    }
}

// Spin, then sleep until `word` differs from `seen`; the budget learns which it was.
template <typename T> void wait_while_equal(const std::atomic<T> &word, T seen, SpinBudget &budget)
{
    if (spin_until([&] { return word.load(std::memory_order_acquire) != seen; }, budget.now())) {
        budget.ended_polling();
        return;
    }
    budget.ended_sleeping();
    while (word.load(std::memory_order_acquire) == seen) word.wait(seen, std::memory_order_acquire);
}

// A region: zeroed memory of exactly the described size, 64-byte aligned.
struct RegionBuffer {
    void *raw = nullptr;
    uint8_t *base = nullptr;
    explicit RegionBuffer(uint32_t size)
    {
        if (!size) return;
        raw = std::calloc(1, size_t(size) + 64); // calloc: large regions come as lazily zeroed pages
        if (!raw) throw BoardError("cannot allocate " + std::to_string(size) + " bytes for a region");
        base = reinterpret_cast<uint8_t *>((reinterpret_cast<uintptr_t>(raw) + 63) & ~uintptr_t(63));
    }
    ~RegionBuffer() { std::free(raw); }
    RegionBuffer(const RegionBuffer &) = delete;
    RegionBuffer &operator=(const RegionBuffer &) = delete;
};

// The cluster: the controller thread is core 0, workers are cores 1..n-1. A fork runs
// on the first `active` cores, as many as the chooser says (core_count_chooser.hpp);
// the others sleep. Each worker has its own go word, so a fork wakes only its cores.
class Cluster {
public:
    Cluster(uint32_t cores, bool adaptive, DmaEngine &dma, Timeline &timeline)
        : cores_(cores), join_(most_spin(cores)), go_(most_spin(cores)),
          timeline_(timeline), dma_(dma), chooser_(cores, adaptive), slots_(cores)
    {
        for (uint32_t id = 1; id < cores_; ++id) workers_.emplace_back([this, id] { worker(id); });
    }
    ~Cluster()
    {
        stop_.store(true);
        for (uint32_t id = 1; id < cores_; ++id) {
            slots_[id].go.fetch_add(1, std::memory_order_release);
            slots_[id].go.notify_one();
        }
        for (auto &t : workers_) t.join();
    }
    uint32_t cores() const { return cores_; }
    const CoreCountChooser &chooser() const { return chooser_; }

    void fork(tsr_cluster_task task, void *arg)
    {
        const auto start = std::chrono::steady_clock::now();
        const uint32_t active = chooser_.next();
        task_ = task;
        arg_ = arg;
        active_ = active;
        remaining_.store(active - 1u, std::memory_order_relaxed);
        for (uint32_t id = 1; id < active; ++id) {
            slots_[id].go.fetch_add(1, std::memory_order_release);
            slots_[id].go.notify_one();
        }
        task(arg, 0, active);
        for (uint32_t left; (left = remaining_.load(std::memory_order_acquire)) != 0;) wait_while_equal(remaining_, left, join_);
        const auto end = std::chrono::steady_clock::now();
        chooser_.record(uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count()));
        if (timeline_.on()) timeline_.add({TimelineEvent::Engine::kCluster, 0, timeline_.at(start), timeline_.at(end), 0,
                                           "fork", 0xFFFFu, 0, active});
    }

    // Sense-reversing barrier among the cores of the running task.
    void barrier()
    {
        const uint32_t active = active_;
        if (active == 1u) return;
        const uint32_t phase = barrier_phase_.load(std::memory_order_acquire);
        if (barrier_arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == active) {
            barrier_arrived_.store(0, std::memory_order_relaxed);
            barrier_phase_.fetch_add(1, std::memory_order_release);
            barrier_phase_.notify_all();
        } else { // idle until the others arrive: be the DMA engine meanwhile
            const auto passed = [&] { return barrier_phase_.load(std::memory_order_acquire) != phase; };
            while (!passed()) {
                if (dma_.help()) continue;
                if (spin_until([&] { return passed() || dma_.has_work(); }, join_.now())) {
                    join_.ended_polling();
                    continue;
                }
                join_.ended_sleeping();
                barrier_phase_.wait(phase, std::memory_order_acquire); // until the phase changes
            }
        }
    }

private:
    struct alignas(64) Slot {
        std::atomic<uint32_t> go{0};
    };

    void worker(uint32_t id)
    {
        uint32_t seen = 0;
        for (;;) {
            wait_while_equal(slots_[id].go, seen, go_);
            seen = slots_[id].go.load(std::memory_order_acquire);
            if (stop_.load()) return;
            task_(arg_, id, active_);
            if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) remaining_.notify_one();
        }
    }

    const uint32_t cores_;
    SpinBudget join_; // waits for cores at work: the fork's end, barriers
    SpinBudget go_;   // workers' waits for the next fork (long ones between runs are normal)
    Timeline &timeline_;
    DmaEngine &dma_;
    CoreCountChooser chooser_; // the controller's alone
    std::vector<Slot> slots_;
    std::vector<std::thread> workers_;
    std::atomic<uint32_t> remaining_{0};
    std::atomic<bool> stop_{false};
    tsr_cluster_task task_ = nullptr; // written before the go words, read after them
    void *arg_ = nullptr;
    uint32_t active_ = 1;
    std::atomic<uint32_t> barrier_arrived_{0};
    std::atomic<uint32_t> barrier_phase_{0};
};

} // namespace

struct HostBoard::Impl {
    std::chrono::steady_clock::time_point epoch = std::chrono::steady_clock::now();
    Timeline timeline{epoch};
    BoardDesc desc;
    std::vector<std::unique_ptr<RegionBuffer>> regions;
    std::unique_ptr<DmaEngine> dma;
    std::unique_ptr<Cluster> cluster; // after dma: its barrier waiters run DMA jobs
    std::unique_ptr<NpuEngine> npu;   // boards whose description has one
    std::vector<uint64_t> span_start; // per core: when its current traced span began
    tsr_hal_ops ops{};                // this board's: the checking and tracing hooks are set when asked for
    tsr_hal_board hal{};

    static Impl &of(void *ctx) { return *static_cast<Impl *>(ctx); }

    static tsr_hal_status fork(void *ctx, tsr_cluster_task task, void *arg)
    {
        if (!task) return TSR_HAL_INVALID;
        of(ctx).cluster->fork(task, arg);
        return TSR_HAL_OK;
    }
    static void barrier(void *ctx) { of(ctx).cluster->barrier(); }
    static tsr_hal_status copy_1d(void *ctx, void *dst, const void *src, uint32_t bytes, tsr_dma_handle *out)
    {
        return of(ctx).dma->submit(static_cast<uint8_t *>(dst), bytes, static_cast<const uint8_t *>(src), bytes, bytes,
                                   1, out);
    }
    static tsr_hal_status copy_2d(void *ctx, void *dst, uint32_t dst_stride, const void *src, uint32_t src_stride,
                                  uint32_t row_bytes, uint32_t rows, tsr_dma_handle *out)
    {
        return of(ctx).dma->submit(static_cast<uint8_t *>(dst), dst_stride, static_cast<const uint8_t *>(src),
                                   src_stride, row_bytes, rows, out);
    }
    static tsr_hal_status dma_wait(void *ctx, tsr_dma_handle h) { return of(ctx).dma->wait(h); }
    static tsr_hal_status npu_submit(void *ctx, const tsr_npu_job *job, tsr_npu_handle *out)
    {
        return of(ctx).npu ? of(ctx).npu->submit(job, out) : TSR_HAL_UNSUPPORTED;
    }
    static tsr_hal_status npu_poll(void *ctx, tsr_npu_handle h, bool *done)
    {
        return of(ctx).npu ? of(ctx).npu->poll(h, done) : TSR_HAL_UNSUPPORTED;
    }
    static tsr_hal_status npu_wait(void *ctx, tsr_npu_handle h)
    {
        return of(ctx).npu ? of(ctx).npu->wait(h) : TSR_HAL_UNSUPPORTED;
    }
    static uint64_t cycles(void *ctx)
    {
        return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                             of(ctx).epoch)
                            .count());
    }
    static void console(void *, const char *text, size_t len) { std::fwrite(text, 1, len, stdout); }
    static void check_operand(void *ctx, const void *addr, uint32_t bytes, uint32_t op, uint32_t operand)
    {
        const Impl &b = of(ctx);
        const uint8_t *p = static_cast<const uint8_t *>(addr), *l1 = b.hal.regions[TSR_REGION_L1].base;
        const uint32_t size = b.hal.regions[TSR_REGION_L1].size;
        if (p >= l1 && bytes <= size && uint32_t(p - l1) <= size - bytes) return;
        std::fprintf(stderr,
                     "host board '%s': L1 check failed: operand %u of op %u at %p (%u bytes) lies outside L1 "
                     "[%p, %p)\n",
                     b.desc.name.c_str(), operand, op, addr, bytes, static_cast<const void *>(l1),
                     static_cast<const void *>(l1 + size));
        std::abort();
    }
    static void trace(void *ctx, uint32_t core, const char *name, uint32_t layer, uint32_t pos, bool begin)
    {
        Impl &b = of(ctx);
        if (core >= b.span_start.size()) return;
        if (begin) {
            b.span_start[core] = b.timeline.now();
            return;
        }
        b.timeline.add({TimelineEvent::Engine::kCluster, core, b.span_start[core], b.timeline.now(), 0, name, layer, pos, 0});
    }
};

namespace {
const tsr_hal_ops kHostOps = {
    HostBoard::Impl::fork,       HostBoard::Impl::barrier,  HostBoard::Impl::copy_1d,
    HostBoard::Impl::copy_2d,    HostBoard::Impl::dma_wait, HostBoard::Impl::npu_submit,
    HostBoard::Impl::npu_poll,   HostBoard::Impl::npu_wait, HostBoard::Impl::cycles,
    HostBoard::Impl::console,    nullptr,                   nullptr,
};
} // namespace

// The TSR_ISA_* bits of the kernel sets this build has (CMake's TESSERA_KERNEL_SETS)
// that this machine runs.
static uint32_t machine_isa()
{
    return tsr_machine_isa(); // each set's own check (kernels/<set>/kernel_set.cmake)
}

std::unique_ptr<HostBoard> HostBoard::create(const BoardDesc &desc, uint32_t threads, uint32_t solo_bytes)
{
    const uint32_t hardware = std::max(1u, std::thread::hardware_concurrency());
    const bool adaptive = threads == 0;
    if (adaptive) threads = std::min(desc.cores, hardware); // results do not depend on it; speed does
    if (threads > desc.cores)
        throw BoardError("board '" + desc.name + "' has " + std::to_string(desc.cores) + " cores; cannot back it with " +
                         std::to_string(threads) + " threads (use 1.." + std::to_string(desc.cores) + ")");
    auto impl = std::make_unique<Impl>();
    impl->desc = desc;
    // regions[IMAGE]: with off-chip memory, a window of it beside the image (the HAL
    // conformance suite's DMA checks there); the image itself is the caller's buffer.
    const uint32_t offchip_window = desc.offchip.present() ? 65536u : 0u;
    for (uint32_t r = 0; r < TSR_REGION_COUNT; ++r) {
        const uint32_t bytes = r == TSR_REGION_IMAGE ? offchip_window : desc.region_size[r];
        impl->regions.push_back(std::make_unique<RegionBuffer>(bytes));
        impl->hal.regions[r] = {r == TSR_REGION_IMAGE ? "off-chip" : tsr_region_name(r), impl->regions.back()->base, bytes};
    }
    impl->dma = std::make_unique<DmaEngine>(desc.dma_queue_depth, impl->timeline);
    impl->cluster = std::make_unique<Cluster>(threads, adaptive, *impl->dma, impl->timeline);
    if (desc.has_npu) impl->npu = std::make_unique<NpuEngine>(desc.npu_queue_depth, impl->hal.regions, impl->timeline);
    impl->span_start.assign(threads, 0);
    impl->ops = kHostOps;
    impl->hal.abi = TSR_HAL_ABI;
    impl->hal.name = impl->desc.name.c_str();
    impl->hal.fingerprint = desc.fingerprint();
    impl->hal.core_count = threads;
    impl->hal.has_npu = desc.has_npu;
    impl->hal.solo_bytes = solo_bytes;
    impl->hal.isa = desc.isa & machine_isa(); // the description's kernel set, where this machine runs it
    // The image in off-chip memory the cores may not read: the runtime reads the weights it
    // keeps there through the DMA engine only, as on the board itself.
    impl->hal.image_dma_only = desc.offchip.present() && !desc.offchip.cores_read;
    impl->hal.ops = &impl->ops;
    impl->hal.ctx = impl.get();
    return std::unique_ptr<HostBoard>(new HostBoard(std::move(impl)));
}

HostBoard::HostBoard(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HostBoard::~HostBoard() = default;
const tsr_hal_board *HostBoard::hal() const { return &impl_->hal; }
const BoardDesc &HostBoard::desc() const { return impl_->desc; }
void HostBoard::use_portable_kernels() { impl_->hal.isa = 0u; }

void HostBoard::throttle_offchip(bool on)
{
    const BoardDesc &d = impl_->desc;
    if (!d.offchip.present())
        throw BoardError("board '" + d.name + "' describes no off-chip memory (\"offchip\") to throttle");
    std::vector<std::pair<const uint8_t *, size_t>> on_chip;
    for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r)
        if (impl_->hal.regions[r].size) on_chip.push_back({impl_->hal.regions[r].base, impl_->hal.regions[r].size});
    impl_->dma->throttle_offchip(on ? d.offchip.bytes_per_second : 0.0, std::move(on_chip));
}
uint32_t HostBoard::isa() const { return impl_->hal.isa; }
uint32_t HostBoard::threads() const { return impl_->cluster->cores(); }
uint32_t HostBoard::threads_in_use() const { return impl_->cluster->chooser().best(); }
void HostBoard::record_timeline(bool on)
{
    impl_->timeline.set(on);
    impl_->ops.trace = on ? Impl::trace : nullptr;
}
void HostBoard::pause_npu(bool on)
{
    if (impl_->npu) impl_->npu->pause(on);
}
void HostBoard::sample_on_cluster(uint32_t from) { impl_->hal.sample_on_cluster_from = from; }
void HostBoard::check_l1(bool on) { impl_->ops.check_kernel_operand = on ? Impl::check_operand : nullptr; }
std::vector<TimelineEvent> HostBoard::timeline() const { return impl_->timeline.events(); }

std::string HostBoard::timeline_trace_json() const
{
    return tessera::timeline_trace_json(timeline(), std::max(impl_->desc.cores, impl_->cluster->cores()), has_npu(),
                                        impl_->desc.name);
}

std::string HostBoard::timeline_svg() const
{
    return tessera::timeline_svg(timeline(), std::max(impl_->desc.cores, impl_->cluster->cores()), has_npu(),
                                 impl_->desc.name);
}

bool HostBoard::has_npu() const { return impl_->npu != nullptr; }
uint64_t HostBoard::npu_busy_ns() const { return impl_->npu ? impl_->npu->busy_ns() : 0u; }

std::string timeline_trace_json(const std::vector<TimelineEvent> &events, uint32_t cores, bool npu,
                                const std::string &board, bool cycles)
{
    // Chrome trace event format, written by the JSON library (any board name stays valid
    // JSON): complete events ("X"), timestamps in microseconds (or cycles). A lane (tid)
    // per core, every one named whether it ran or not; then the DMA engine's and the
    // NPU's, as many lanes each as it had transfers or jobs in flight at once, so no
    // two slices of a lane overlap.
    const double scale = cycles ? 1.0 : 1e3; // to the axis' unit
    for (const TimelineEvent &e : events)
        if (e.engine == TimelineEvent::Engine::kCluster) cores = std::max(cores, e.core + 1);
    nlohmann::json trace = {{"traceEvents", nlohmann::json::array()}, {"displayTimeUnit", "ns"}};
    nlohmann::json &out = trace["traceEvents"];
    auto lane_name = [&](uint32_t tid, const std::string &name) {
        out.push_back({{"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", name}}}});
    };
    for (uint32_t c = 0; c < cores; ++c) lane_name(c + 1, "core " + std::to_string(c));
    // Engine events by start time, each on the first of its engine's lanes free by then.
    std::vector<size_t> order(events.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return events[a].start_ns < events[b].start_ns; });
    struct Engine {
        const char *name;
        std::vector<uint64_t> lane_free; // when each of its lanes is free again
        std::vector<uint32_t> tids;
    };
    Engine dma{"dma", {}, {}}, nms{"npu", {}, {}};
    uint32_t next_tid = cores + 1;
    auto engine_lane = [&](Engine &g, const TimelineEvent &e) {
        for (size_t l = 0; l < g.lane_free.size(); ++l)
            if (g.lane_free[l] <= e.start_ns) {
                g.lane_free[l] = e.end_ns;
                return g.tids[l];
            }
        g.lane_free.push_back(e.end_ns);
        g.tids.push_back(next_tid);
        lane_name(next_tid, g.lane_free.size() == 1 ? std::string(g.name) : std::string(g.name) + " " + std::to_string(g.lane_free.size()));
        return next_tid++;
    };
    if (std::none_of(events.begin(), events.end(), [](const TimelineEvent &e) { return e.engine == TimelineEvent::Engine::kDma; }))
        engine_lane(dma, TimelineEvent{}); // the lanes exist even when idle
    if (npu && std::none_of(events.begin(), events.end(), [](const TimelineEvent &e) { return e.engine == TimelineEvent::Engine::kNpu; }))
        engine_lane(nms, TimelineEvent{});
    for (size_t i : order) {
        const TimelineEvent &e = events[i];
        const bool on_dma = e.engine == TimelineEvent::Engine::kDma, on_npu = e.engine == TimelineEvent::Engine::kNpu;
        nlohmann::json args = nlohmann::json::object();
        if (on_dma) args["bytes"] = e.bytes;
        else if (on_npu) {
            args["macs"] = e.bytes;
            if (e.layer != 0xFFFFu) args["layer"] = e.layer;
        } else if (e.cores) args["cores"] = e.cores;
        else {
            if (e.layer != 0xFFFFu) args["layer"] = e.layer;
            args["token"] = e.pos;
        }
        const uint32_t tid = on_dma ? engine_lane(dma, e) : on_npu ? engine_lane(nms, e) : e.core + 1;
        out.push_back({{"ph", "X"}, {"pid", 1}, {"tid", tid}, {"name", e.name ? e.name : "?"},
                       {"ts", double(e.start_ns) / scale}, {"dur", double(e.end_ns - e.start_ns) / scale}, {"args", args}});
    }
    trace["otherData"] = {{"board", board},
                          {"clock", cycles ? "estimated cycles of the board's cost model (1 us on the axis = 1 cycle)" : "wall time"}};
    return trace.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace tessera

struct tessera_host_board {
    std::unique_ptr<tessera::HostBoard> board;
};

namespace {

// The C API's way of making a board: the description `describe` gives, or a one-line
// reason in `error` and a non-zero return.
template <typename Describe>
int create_host_board(Describe describe, uint32_t threads, tessera_host_board **out, char *error, size_t error_size)
{
    try {
        auto holder = std::make_unique<tessera_host_board>();
        holder->board = tessera::HostBoard::create(describe(), threads);
        *out = holder.release();
        if (error && error_size) error[0] = '\0';
        return 0;
    } catch (const std::exception &e) {
        if (error && error_size) std::snprintf(error, error_size, "%s", e.what());
        return 1;
    }
}

} // namespace

extern "C" int tessera_host_board_create(const char *name_or_path, uint32_t threads, tessera_host_board **out,
                                         char *error, size_t error_size)
{
    return create_host_board(
        [&] {
            if (!name_or_path || !out) throw std::invalid_argument("tessera_host_board_create: name and out must not be NULL");
            return tessera::load_board_desc(name_or_path);
        },
        threads, out, error, error_size);
}

extern "C" int tessera_host_board_create_for_image(const void *image, size_t image_size, uint32_t threads,
                                                   tessera_host_board **out, char *error, size_t error_size)
{
    return create_host_board(
        [&] {
            if (!image || !out)
                throw std::invalid_argument("tessera_host_board_create_for_image: image and out must not be NULL");
            return tessera::board_for_image("", static_cast<const uint8_t *>(image), image_size);
        },
        threads, out, error, error_size);
}

extern "C" const tsr_hal_board *tessera_host_board_hal(const tessera_host_board *board)
{
    return board ? board->board->hal() : nullptr;
}

extern "C" void tessera_host_board_check_l1(tessera_host_board *board, int on)
{
    if (board) board->board->check_l1(on != 0);
}

extern "C" void tessera_host_board_destroy(tessera_host_board *board) { delete board; }
