// The host board's DMA engine: a bounded queue of 2D copies that complete in order.
// Nothing copies at submit: a job runs when a core of the cluster is idle at a
// barrier (the engine works while the cores compute, as on a chip), or at the latest
// when core 0 waits for it (or for a later one), in the waiting thread. No engine
// thread takes a core from the cluster. Completion is only ever observed through
// dma_wait, so a copy read too early, or a source changed before it is waited for,
// can show up in the results. submit and wait are core 0's alone (the HAL's
// contract); any core may run a job.
//
// Jobs are numbered by a 64-bit sequence; a handle is its low 32 bits, never 0 (0
// means "no transfer" to the runtime): the sequence number whose low bits would be 0
// goes to an empty job of the engine's own. A handle names the newest job with those
// bits, so handles stay right however many transfers a long run makes.
#ifndef TESSERA_HOST_DMA_ENGINE_HPP
#define TESSERA_HOST_DMA_ENGINE_HPP

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "tessera/hal.h"
#include "timeline.hpp"

namespace tessera {

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

class DmaEngine {
public:
    // first_sequence: where the numbering starts (tests start it near a wrap of the handles).
    DmaEngine(uint32_t depth, Timeline &timeline, uint64_t first_sequence = 0)
        : slots_(depth), issued_(first_sequence), claimed_(first_sequence), completed_(first_sequence),
          timeline_(timeline)
    {
        for (Slot &s : slots_) s.done.store(first_sequence, std::memory_order_relaxed);
    }

    tsr_hal_status submit(uint8_t *dst, uint32_t dst_stride, const uint8_t *src, uint32_t src_stride,
                          uint32_t row_bytes, uint32_t rows, tsr_dma_handle *out)
    {
        if (!dst || !src || !out) return TSR_HAL_INVALID;
        const uint64_t issued = issued_.load(std::memory_order_relaxed);
        const bool skip = uint32_t(issued + 1u) == 0u; // that number's handle would be 0: an empty job takes it
        retire_done(issued);
        if (issued + (skip ? 2u : 1u) - completed_ > slots_.size()) return TSR_HAL_BUSY; // a slot frees when its copy is done
        if (skip) enqueue(Job{}, issued + 1u);
        const uint64_t sequence = issued + (skip ? 2u : 1u);
        enqueue(Job{dst, dst_stride, src, src_stride, row_bytes, rows}, sequence);
        *out = static_cast<tsr_dma_handle>(sequence);
        return TSR_HAL_OK;
    }

    tsr_hal_status wait(tsr_dma_handle handle)
    {
        const uint64_t sequence = sequence_of(handle);
        if (sequence == 0u) return TSR_HAL_INVALID;
        while (run_one(sequence)) {
        }
        while (completed_ < sequence) { // claimed by other cores: they are copying it now
            const Slot &slot = slots_[completed_ % slots_.size()];
            for (uint32_t i = 1; slot.done.load(std::memory_order_acquire) != completed_ + 1u; ++i) {
                cpu_relax();
                if (i % 64u == 0u) std::this_thread::yield(); // its copier may want this core
            }
            ++completed_;
        }
        return TSR_HAL_OK;
    }

    // Off-chip memory at its bandwidth (the board's optional throttle): a job whose source
    // lies outside every range in `on_chip` (the board's regions: it reads the image, in
    // off-chip memory) takes at least its bytes / bytes_per_second, one such job after
    // another on the one bus, in wall time; the timeline names it "off-chip". 0: off.
    void throttle_offchip(double bytes_per_second, std::vector<std::pair<const uint8_t *, size_t>> on_chip)
    {
        offchip_bytes_per_ns_ = bytes_per_second / 1e9;
        on_chip_ = std::move(on_chip);
    }

    // Any core: runs the oldest job nobody has taken yet; false when there is none.
    bool help() { return run_one(UINT64_MAX); }
    bool has_work() const
    {
        return claimed_.load(std::memory_order_relaxed) < issued_.load(std::memory_order_relaxed);
    }

private:
    struct Job {
        uint8_t *dst = nullptr;
        uint32_t dst_stride = 0;
        const uint8_t *src = nullptr;
        uint32_t src_stride = 0;
        uint32_t row_bytes = 0;
        uint32_t rows = 0; // 0: the engine's empty job
    };
    struct alignas(64) Slot {
        Job job{};
        std::atomic<uint64_t> done{0}; // the sequence number of the last job that completed in it
    };

    void enqueue(const Job &job, uint64_t sequence)
    {
        slots_[(sequence - 1u) % slots_.size()].job = job;
        issued_.store(sequence, std::memory_order_release);
    }

    // The newest issued job whose handle is `handle`; 0 for 0 or a handle not issued yet.
    uint64_t sequence_of(tsr_dma_handle handle) const
    {
        const uint64_t issued = issued_.load(std::memory_order_relaxed);
        const uint32_t back = uint32_t(issued) - handle;
        if (handle == 0u || back > issued || back >= (1u << 31)) return 0u;
        return issued - back;
    }

    // Claims and runs the oldest unclaimed job if its sequence number is at most `upto`.
    bool run_one(uint64_t upto)
    {
        uint64_t c = claimed_.load(std::memory_order_relaxed);
        for (;;) {
            if (c >= upto || c >= issued_.load(std::memory_order_acquire)) return false;
            if (claimed_.compare_exchange_weak(c, c + 1u, std::memory_order_acq_rel, std::memory_order_relaxed)) break;
        }
        Slot &slot = slots_[c % slots_.size()];
        run(slot.job);
        slot.done.store(c + 1u, std::memory_order_release);
        return true;
    }

    void retire_done(uint64_t issued) // core 0: count the jobs other cores have finished
    {
        while (completed_ < issued &&
               slots_[completed_ % slots_.size()].done.load(std::memory_order_acquire) == completed_ + 1u)
            ++completed_;
    }

    // Rows of a multiple of Step bytes, at most 64, source and destination apart: fixed-size
    // copies the compiler inlines.
    template <uint32_t Step> static void copy_short_rows(const Job &job)
    {
        const uint32_t rows = job.rows, row_bytes = job.row_bytes, ds = job.dst_stride, ss = job.src_stride;
        uint8_t *d = job.dst;
        const uint8_t *src = job.src;
        for (uint32_t r = 0; r < rows; ++r, d += ds, src += ss)
            for (uint32_t b = 0; b < row_bytes; b += Step) std::memcpy(d + b, src + b, Step);
    }

    void run(const Job &job)
    {
        if (job.rows == 0u) return;
        const uint64_t start = timeline_.on() ? timeline_.now() : 0;
        const size_t span = size_t(job.rows - 1) * std::max(job.dst_stride, job.src_stride) + job.row_bytes;
        const bool apart = job.dst + span <= job.src || job.src + span <= job.dst;
        if (job.rows == 1 || (job.row_bytes == job.dst_stride && job.row_bytes == job.src_stride)) {
            std::memmove(job.dst, job.src, size_t(job.row_bytes) * job.rows); // contiguous
        } else if (apart && job.row_bytes <= 64u && job.row_bytes % 16u == 0u) {
            // Short rows (a head's columns of K or V): a library call each would cost
            // more than the copy.
            copy_short_rows<16>(job);
        } else if (apart && job.row_bytes <= 64u && job.row_bytes % 8u == 0u) {
            copy_short_rows<8>(job); // an int8 head of 8 or 24 columns
        } else {
            for (uint32_t r = 0; r < job.rows; ++r)
                std::memmove(job.dst + size_t(r) * job.dst_stride, job.src + size_t(r) * job.src_stride, job.row_bytes);
        }
        const bool offchip = offchip_bytes_per_ns_ > 0 && off_chip(job.src);
        if (offchip) hold_the_bus(double(job.row_bytes) * job.rows);
        if (start)
            timeline_.add({TimelineEvent::Engine::kDma, 0, start, timeline_.now(), uint64_t(job.row_bytes) * job.rows,
                           offchip ? "off-chip" : "copy", 0xFFFFu, 0, 0});
    }

    bool off_chip(const uint8_t *p) const
    {
        for (const auto &[base, size] : on_chip_)
            if (p >= base && p < base + size) return false;
        return true;
    }

    // The bus is busy for `bytes` at the throttle's rate from when it is free (or now):
    // wait until then.
    void hold_the_bus(double bytes)
    {
        using Clock = std::chrono::steady_clock;
        const auto take = std::chrono::nanoseconds(int64_t(bytes / offchip_bytes_per_ns_));
        Clock::time_point until;
        {
            std::lock_guard<std::mutex> lock(bus_);
            bus_free_ = std::max(bus_free_, Clock::now()) + take;
            until = bus_free_;
        }
        std::this_thread::sleep_until(until);
    }

    std::vector<Slot> slots_;
    double offchip_bytes_per_ns_ = 0;
    std::vector<std::pair<const uint8_t *, size_t>> on_chip_;
    std::mutex bus_;
    std::chrono::steady_clock::time_point bus_free_{};
    std::atomic<uint64_t> issued_, claimed_;
    uint64_t completed_; // core 0's: jobs known done, in order
    Timeline &timeline_;
};

} // namespace tessera

#endif
