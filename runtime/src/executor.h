// Runs a schedule on the board: one cluster task walks every step (ops/op.h).
#ifndef TESSERA_EXECUTOR_H
#define TESSERA_EXECUTOR_H

#include "image_reader.h"

namespace tsr {

// What one run did, for the session's statistics.
struct RunCounters {
    uint64_t forks, dma_bytes, dma_transfers, npu_jobs;
};

// Runs every step of `schedule` for `rows` tokens starting at position `pos`. The
// caller has checked rows <= max_rows and pos + rows <= context and written the
// tokens into the schedule's token tensor. `profile`, when not null, has an entry
// per step of this schedule and gets this run added to it.
tessera_status run_schedule(const ImageView &img, const tsr_hal_board *board, const ScheduleView &schedule,
                            uint32_t rows, uint32_t pos, Message &err, tessera_step_profile *profile,
                            RunCounters *counters);

} // namespace tsr

#endif
