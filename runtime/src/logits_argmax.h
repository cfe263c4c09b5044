// The greedy token: the first largest logit (tsr_argmax_f32's), on a board that asks for it
// (tsr_hal_board.sample_on_cluster_from) taken on the cluster's cores, each a share, the
// logits moved into L1 by the DMA engine a chunk at a time where L1 has room between runs.
#ifndef TESSERA_LOGITS_ARGMAX_H
#define TESSERA_LOGITS_ARGMAX_H

#include <stdint.h>

#include "image_reader.h"
#include "tessera/hal.h"

namespace tsr {

// The L1 no tensor holds between runs (ImageView::between_runs): above every L1 tensor that
// outlives a run (all but activations, staging and scratch other than the sampler's), up to
// the board's L1, word-aligned; none where the image's kernels read operands where they lie
// (TSR_IMAGE_OPERANDS_IN_PLACE: the board's cores are its DMA) or the board has no DMA
// engine or no L1.
void resolve_between_runs(ImageView &img, const tsr_hal_board *board);

// The index of the first largest of logits[0..vocab) (a NaN is never larger; a NaN first is
// kept), as tsr_argmax_f32 gives it. From the board's sample_on_cluster_from logits on, the
// cluster's cores take a share each (a fork a chunk), and where `buffer` (L1, buffer_bytes of
// it) holds two chunks of at least 64 logits apart from them, the DMA engine moves each chunk
// in while the cores read the one before. Else, or where the engine or the fork fails, the
// controller reads them where they lie.
uint32_t argmax_logits(const tsr_hal_board *board, const float *logits, uint32_t vocab, uint8_t *buffer,
                       uint32_t buffer_bytes);

} // namespace tsr

#endif
