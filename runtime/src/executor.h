// Walks a schedule: each step forked on the cluster (or handed to the DMA engine).
#ifndef TESSERA_EXECUTOR_H
#define TESSERA_EXECUTOR_H

#include "image_reader.h"

namespace tsr {

// Runs every step of `schedule` for `rows` tokens starting at position `pos`.
// The caller has checked rows <= max_rows and pos + rows <= context and written
// the tokens into the schedule's token tensor.
tessera_status run_schedule(const ImageView &img, const tsr_hal_board *board, const ScheduleView &schedule,
                            uint32_t rows, uint32_t pos, Message &err);

} // namespace tsr

#endif
