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

#include "tessera/host_board.h"

namespace tessera {

namespace {

// Waiting: spin for a short while when every thread has a hardware thread of its
// own (wake-ups then cost nanoseconds, not the tens of microseconds of a futex),
// never when the board's threads outnumber the machine's.
inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// How long a waiter polls before it sleeps; when threads outnumber hardware
// threads, each poll yields the processor to whoever holds the work.
struct SpinPolicy {
    uint32_t budget;
    bool yield;
};

template <typename Ready> void spin_until(SpinPolicy spin, Ready ready)
{
    for (uint32_t i = 0; i < spin.budget && !ready(); ++i) {
        if (spin.yield) std::this_thread::yield();
        else cpu_relax();
    }
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

class Timeline {
public:
    explicit Timeline(std::chrono::steady_clock::time_point epoch) : epoch_(epoch) {}
    bool on() const { return on_.load(std::memory_order_relaxed); }
    void set(bool on) { on_.store(on); }
    uint64_t now() const
    {
        return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - epoch_).count());
    }
    void add(TimelineEvent e)
    {
        std::lock_guard<std::mutex> lock(mu_);
        events_.push_back(e);
    }
    std::vector<TimelineEvent> events() const
    {
        std::lock_guard<std::mutex> lock(mu_);
        return events_;
    }

private:
    const std::chrono::steady_clock::time_point epoch_;
    std::atomic<bool> on_{false};
    mutable std::mutex mu_;
    std::vector<TimelineEvent> events_;
};

// The cluster: the controller thread is core 0, workers are cores 1..n-1.
class Cluster {
public:
    Cluster(uint32_t cores, SpinPolicy spin, Timeline &timeline) : cores_(cores), spin_(spin), timeline_(timeline)
    {
        for (uint32_t id = 1; id < cores_; ++id) workers_.emplace_back([this, id] { worker(id); });
    }
    ~Cluster()
    {
        stop_.store(true);
        generation_.fetch_add(1);
        generation_.notify_all();
        for (auto &t : workers_) t.join();
    }
    uint32_t cores() const { return cores_; }

    void fork(tsr_cluster_task task, void *arg)
    {
        const uint64_t start = timeline_.on() ? timeline_.now() : 0;
        task_ = task;
        arg_ = arg;
        remaining_.store(cores_ - 1, std::memory_order_relaxed);
        generation_.fetch_add(1, std::memory_order_release);
        generation_.notify_all();
        task(arg, 0, cores_);
        // Join: spin briefly (steps are short), then sleep on the counter.
        spin_until(spin_, [&] { return remaining_.load(std::memory_order_acquire) == 0; });
        for (uint32_t left; (left = remaining_.load(std::memory_order_acquire)) != 0;) remaining_.wait(left);
        if (start) timeline_.add({TimelineEvent::Engine::kCluster, start, timeline_.now(), 0});
    }

    // Sense-reversing barrier among the cores of the running task.
    void barrier()
    {
        const uint32_t phase = barrier_phase_.load(std::memory_order_acquire);
        if (barrier_arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == cores_) {
            barrier_arrived_.store(0, std::memory_order_relaxed);
            barrier_phase_.fetch_add(1, std::memory_order_release);
            barrier_phase_.notify_all();
        } else {
            spin_until(spin_, [&] { return barrier_phase_.load(std::memory_order_acquire) != phase; });
            while (barrier_phase_.load(std::memory_order_acquire) == phase) barrier_phase_.wait(phase);
        }
    }

private:
    void worker(uint32_t id)
    {
        uint64_t seen = 0;
        for (;;) {
            uint64_t g;
            spin_until(spin_, [&] { return generation_.load(std::memory_order_acquire) != seen; });
            while ((g = generation_.load(std::memory_order_acquire)) == seen) generation_.wait(seen);
            seen = g;
            if (stop_.load()) return;
            task_(arg_, id, cores_);
            if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) remaining_.notify_one();
        }
    }

    const uint32_t cores_;
    const SpinPolicy spin_;
    Timeline &timeline_;
    std::vector<std::thread> workers_;
    std::atomic<uint64_t> generation_{0};
    std::atomic<uint32_t> remaining_{0};
    std::atomic<bool> stop_{false};
    tsr_cluster_task task_ = nullptr;
    void *arg_ = nullptr;
    std::atomic<uint32_t> barrier_arrived_{0};
    std::atomic<uint32_t> barrier_phase_{0};
};

// The DMA engine: its own thread, a bounded in-order queue, completion by handle.
class DmaEngine {
public:
    DmaEngine(uint32_t depth, SpinPolicy spin, Timeline &timeline)
        : depth_(depth), spin_(spin), timeline_(timeline), thread_([this] { run(); })
    {
    }
    ~DmaEngine()
    {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

    tsr_hal_status submit(uint8_t *dst, uint32_t dst_stride, const uint8_t *src, uint32_t src_stride,
                          uint32_t row_bytes, uint32_t rows, tsr_dma_handle *out)
    {
        if (!dst || !src || !out) return TSR_HAL_INVALID;
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (queue_.size() >= depth_) return TSR_HAL_BUSY;
            queue_.push_back(Job{dst, dst_stride, src, src_stride, row_bytes, rows, ++issued_});
            pending_.fetch_add(1, std::memory_order_release);
            *out = static_cast<tsr_dma_handle>(issued_);
        }
        cv_.notify_all();
        return TSR_HAL_OK;
    }

    tsr_hal_status wait(tsr_dma_handle handle)
    {
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (handle == 0 || handle > issued_) return TSR_HAL_INVALID;
        }
        spin_until(spin_, [&] { return completed_.load(std::memory_order_acquire) >= handle; });
        if (completed_.load(std::memory_order_acquire) >= handle) return TSR_HAL_OK;
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return completed_.load(std::memory_order_acquire) >= handle; });
        return TSR_HAL_OK;
    }

private:
    struct Job {
        uint8_t *dst;
        uint32_t dst_stride;
        const uint8_t *src;
        uint32_t src_stride;
        uint32_t row_bytes;
        uint32_t rows;
        uint64_t handle;
    };
    void run()
    {
        for (;;) {
            spin_until(spin_, [&] { return pending_.load(std::memory_order_acquire) != 0; });
            Job job;
            {
                std::unique_lock<std::mutex> lock(mu_);
                cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
                if (queue_.empty()) return; // stopping, and nothing left to do
                job = queue_.front();
            }
            const uint64_t start = timeline_.on() ? timeline_.now() : 0;
            for (uint32_t r = 0; r < job.rows; ++r)
                std::memmove(job.dst + size_t(r) * job.dst_stride, job.src + size_t(r) * job.src_stride, job.row_bytes);
            if (start) timeline_.add({TimelineEvent::Engine::kDma, start, timeline_.now(), uint64_t(job.row_bytes) * job.rows});
            {
                std::lock_guard<std::mutex> lock(mu_);
                queue_.pop_front(); // the slot frees only when the transfer is done, as in hardware
                pending_.fetch_sub(1, std::memory_order_relaxed);
                completed_.store(job.handle, std::memory_order_release);
            }
            cv_.notify_all();
        }
    }

    const uint32_t depth_;
    const SpinPolicy spin_;
    Timeline &timeline_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Job> queue_;
    uint64_t issued_ = 0;
    std::atomic<uint64_t> completed_{0};
    std::atomic<uint32_t> pending_{0};
    bool stop_ = false;
    std::thread thread_;
};

} // namespace

struct HostBoard::Impl {
    std::chrono::steady_clock::time_point epoch = std::chrono::steady_clock::now();
    Timeline timeline{epoch};
    BoardDesc desc;
    std::vector<std::unique_ptr<RegionBuffer>> regions;
    std::unique_ptr<Cluster> cluster;
    std::unique_ptr<DmaEngine> dma;
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
    // The NPU queue is part of the contract; its host model arrives with the NPU work.
    static tsr_hal_status npu_submit(void *, const tsr_npu_job *, tsr_npu_handle *) { return TSR_HAL_UNSUPPORTED; }
    static tsr_hal_status npu_poll(void *, tsr_npu_handle, bool *) { return TSR_HAL_UNSUPPORTED; }
    static tsr_hal_status npu_wait(void *, tsr_npu_handle) { return TSR_HAL_UNSUPPORTED; }
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
};

namespace {
const tsr_hal_ops kHostOps = {
    HostBoard::Impl::fork,       HostBoard::Impl::barrier,  HostBoard::Impl::copy_1d,
    HostBoard::Impl::copy_2d,    HostBoard::Impl::dma_wait, HostBoard::Impl::npu_submit,
    HostBoard::Impl::npu_poll,   HostBoard::Impl::npu_wait, HostBoard::Impl::cycles,
    HostBoard::Impl::console,    nullptr,
};
// The same with every kernel operand checked against L1.
const tsr_hal_ops kHostOpsCheckingL1 = {
    HostBoard::Impl::fork,       HostBoard::Impl::barrier,  HostBoard::Impl::copy_1d,
    HostBoard::Impl::copy_2d,    HostBoard::Impl::dma_wait, HostBoard::Impl::npu_submit,
    HostBoard::Impl::npu_poll,   HostBoard::Impl::npu_wait, HostBoard::Impl::cycles,
    HostBoard::Impl::console,    HostBoard::Impl::check_operand,
};
} // namespace

std::unique_ptr<HostBoard> HostBoard::create(const BoardDesc &desc, uint32_t threads)
{
    const uint32_t hardware = std::max(1u, std::thread::hardware_concurrency());
    if (threads == 0) threads = std::min(desc.cores, hardware); // results do not depend on it; speed does
    if (threads > desc.cores)
        throw BoardError("board '" + desc.name + "' has " + std::to_string(desc.cores) + " cores; cannot back it with " +
                         std::to_string(threads) + " threads (use 1.." + std::to_string(desc.cores) + ")");
    auto impl = std::make_unique<Impl>();
    impl->desc = desc;
    for (uint32_t r = 0; r < TSR_REGION_COUNT; ++r) {
        impl->regions.push_back(std::make_unique<RegionBuffer>(r == TSR_REGION_IMAGE ? 0u : desc.region_size[r]));
        impl->hal.regions[r] = {tsr_region_name(r), impl->regions.back()->base,
                                r == TSR_REGION_IMAGE ? 0u : desc.region_size[r]};
    }
    // Spin-waiting pays only while every thread (cluster + DMA engine) has a hardware thread.
    const SpinPolicy spin = threads + 1 <= hardware ? SpinPolicy{20000u, false} : SpinPolicy{200u, true};
    impl->cluster = std::make_unique<Cluster>(threads, spin, impl->timeline);
    impl->dma = std::make_unique<DmaEngine>(desc.dma_queue_depth, spin, impl->timeline);
    impl->hal.name = impl->desc.name.c_str();
    impl->hal.fingerprint = desc.fingerprint();
    impl->hal.core_count = threads;
    impl->hal.has_npu = desc.has_npu;
    impl->hal.ops = &kHostOps;
    impl->hal.ctx = impl.get();
    return std::unique_ptr<HostBoard>(new HostBoard(std::move(impl)));
}

HostBoard::HostBoard(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HostBoard::~HostBoard() = default;
const tsr_hal_board *HostBoard::hal() const { return &impl_->hal; }
const BoardDesc &HostBoard::desc() const { return impl_->desc; }
void HostBoard::record_timeline(bool on) { impl_->timeline.set(on); }
void HostBoard::check_l1(bool on) { impl_->hal.ops = on ? &kHostOpsCheckingL1 : &kHostOps; }
std::vector<TimelineEvent> HostBoard::timeline() const { return impl_->timeline.events(); }

std::string HostBoard::timeline_trace_json() const
{
    // Chrome trace event format: complete events ("X") in microseconds, one track per engine.
    std::string json = "{\"traceEvents\":[\n";
    json += R"({"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"cluster"}},)" "\n";
    json += R"({"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"dma"}})";
    char line[256];
    for (const TimelineEvent &e : timeline()) {
        const bool dma = e.engine == TimelineEvent::Engine::kDma;
        std::snprintf(line, sizeof line, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"name\":\"%s\",\"ts\":%.3f,\"dur\":%.3f%s",
                      dma ? 2 : 1, dma ? "copy" : "fork", double(e.start_ns) / 1e3, double(e.end_ns - e.start_ns) / 1e3,
                      dma ? "" : "}");
        json += line;
        if (dma) json += ",\"args\":{\"bytes\":" + std::to_string(e.bytes) + "}}";
    }
    json += "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"board\":\"" + impl_->desc.name + "\"}}\n";
    return json;
}

} // namespace tessera

struct tessera_host_board {
    std::unique_ptr<tessera::HostBoard> board;
};

extern "C" int tessera_host_board_create(const char *name_or_path, uint32_t threads, tessera_host_board **out,
                                         char *error, size_t error_size)
{
    auto fail = [&](const std::string &msg) {
        if (error && error_size) std::snprintf(error, error_size, "%s", msg.c_str());
        return 1;
    };
    if (!name_or_path || !out) return fail("tessera_host_board_create: name and out must not be NULL");
    try {
        auto holder = std::make_unique<tessera_host_board>();
        holder->board = tessera::HostBoard::create(tessera::load_board_desc(name_or_path), threads);
        *out = holder.release();
        if (error && error_size) error[0] = '\0';
        return 0;
    } catch (const std::exception &e) {
        return fail(e.what());
    }
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
