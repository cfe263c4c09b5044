// The host board's NPU: a thread of its own serves a bounded queue of jobs
// (tessera/npu.h) in order, reading and writing the board's real region buffers, as
// the engine would. submit copies the descriptor after checking it against the
// regions; a full queue answers TSR_HAL_BUSY. Handles are sequence numbers, never 0.
#ifndef TESSERA_HOST_NPU_ENGINE_HPP
#define TESSERA_HOST_NPU_ENGINE_HPP

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

#include "tessera/npu.h"
#include "timeline.hpp"

namespace tessera {

class NpuEngine {
public:
    NpuEngine(uint32_t depth, const tsr_hal_region *regions, Timeline &timeline)
        : depth_(depth ? depth : 1u), regions_(regions), timeline_(timeline), thread_([this] { serve(); })
    {
    }
    ~NpuEngine()
    {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

    tsr_hal_status submit(const tsr_npu_job *job, tsr_npu_handle *out)
    {
        if (!out) return TSR_HAL_INVALID;
        const tsr_hal_status st = tsr_npu_check_job(job, regions_);
        if (st != TSR_HAL_OK) return st;
        std::lock_guard<std::mutex> lock(mu_);
        if (queue_.size() >= depth_) return TSR_HAL_BUSY;
        if (uint32_t(issued_ + 1u) == 0u) ++issued_; // handle 0 means "none": that number is skipped
        queue_.push_back({*job, ++issued_});
        *out = tsr_npu_handle(issued_);
        cv_.notify_all();
        return TSR_HAL_OK;
    }

    tsr_hal_status poll(tsr_npu_handle handle, bool *done)
    {
        if (!done) return TSR_HAL_INVALID;
        std::lock_guard<std::mutex> lock(mu_);
        const uint64_t s = sequence_of(handle);
        if (!s) return TSR_HAL_INVALID;
        *done = completed_ >= s;
        return TSR_HAL_OK;
    }

    tsr_hal_status wait(tsr_npu_handle handle)
    {
        std::unique_lock<std::mutex> lock(mu_);
        const uint64_t s = sequence_of(handle);
        if (!s) return TSR_HAL_INVALID;
        cv_.wait(lock, [&] { return completed_ >= s; });
        return TSR_HAL_OK;
    }

    // Nanoseconds the engine has spent running jobs since it started.
    uint64_t busy_ns() const { return busy_ns_.load(std::memory_order_relaxed); }

    // Tests: a paused engine takes no job off its queue (to fill it on purpose).
    void pause(bool on)
    {
        {
            std::lock_guard<std::mutex> lock(mu_);
            paused_ = on;
        }
        cv_.notify_all();
    }

private:
    struct Queued {
        tsr_npu_job job;
        uint64_t sequence;
    };

    // The newest issued job with this handle; 0 for 0 or one not issued yet.
    uint64_t sequence_of(tsr_npu_handle handle) const
    {
        const uint32_t back = uint32_t(issued_) - handle;
        if (handle == 0u || back > issued_ || back >= (1u << 31)) return 0u;
        return issued_ - back;
    }

    void serve()
    {
        std::unique_lock<std::mutex> lock(mu_);
        for (;;) {
            cv_.wait(lock, [&] { return stop_ || (!paused_ && !queue_.empty()); });
            if (stop_) return;
            const Queued q = queue_.front(); // stays queued (and counted) while it runs
            lock.unlock();
            const uint64_t start = timeline_.now();
            tsr_npu_run_job(&q.job);
            const uint64_t end = timeline_.now();
            if (timeline_.on())
                timeline_.add({TimelineEvent::Engine::kNpu, 0, start, end, uint64_t(q.job.m) * q.job.n * q.job.k,
                               "matmul", q.job.tag, 0, 0});
            busy_ns_.fetch_add(end - start, std::memory_order_relaxed);
            lock.lock();
            queue_.pop_front();
            completed_ = q.sequence;
            cv_.notify_all();
        }
    }

    const uint32_t depth_;
    const tsr_hal_region *regions_;
    Timeline &timeline_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Queued> queue_;
    uint64_t issued_ = 0, completed_ = 0;
    bool stop_ = false, paused_ = false;
    std::atomic<uint64_t> busy_ns_{0};
    std::thread thread_; // last: starts once everything above is ready
};

} // namespace tessera

#endif
