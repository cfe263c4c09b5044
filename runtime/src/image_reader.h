// Checks a model image against the format and a board, and gives typed views into it.
#ifndef TESSERA_IMAGE_READER_H
#define TESSERA_IMAGE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "message.h"
#include "tessera/hal.h"
#include "tessera/image_format.h"
#include "tessera/tessera.h"

// Returns the status of `expr` when it is not TESSERA_OK.
#define TSR_TRY(expr)                      \
    do {                                   \
        tessera_status st_ = (expr);       \
        if (st_ != TESSERA_OK) return st_; \
    } while (0)

namespace tsr {

struct TokenizerView {
    const tsr_tokenizer_header *header;
    const tsr_token_entry *entries;
    const uint32_t *sorted; // ids in strcmp order of their pieces
    const char *strings;
    // Byte-level BPE's encoding tables (checked): null where the image has none.
    const tsr_bpe_header *bpe;
    const uint32_t *byte_tokens;       // 256
    const tsr_bpe_merge *merges;       // bpe->merge_count, by (left, right)
    const tsr_bpe_class_range *classes; // bpe->class_count, by first
};

struct ScheduleView {
    const tsr_schedule_header *header;
    const tsr_step *steps;
};

struct ImageView {
    const uint8_t *base;
    const tsr_image_header *header;
    const tsr_section *sections;
    const tsr_tensor *tensors;
    ScheduleView prompt;
    ScheduleView token;
    TokenizerView tokenizer;
    const tsr_npu_desc *npu_descs; // the NPU_JOBS section (null when the image has none)
    uint32_t npu_desc_count;
    bool weights_in_place;
    uint32_t isa; // the board's TSR_ISA_* bits: which registered kernels it can run
    uint8_t *loan; // resolve_loan: L2 no tensor holds during a run, lent to the board to read ahead in
    uint32_t loan_bytes;
    uint8_t *between_runs; // resolve_between_runs: L1 no tensor holds between runs (the greedy token's chunks)
    uint32_t between_runs_bytes;
};

// Size, alignment, magic, version and header CRC: enough to trust the header's
// fields as numbers (not yet as offsets).
tessera_status check_image_header(const uint8_t *data, size_t size, Message &err);

// The container: header fields, board match, sections (bounds, checksums), tensor
// placement, the schedules' framing and step table, the tokenizer. On success `out`
// views into `data`; nothing is written anywhere. The steps themselves are checked by
// their operators next (validate_steps, ops/op.h).
tessera_status read_image(const uint8_t *data, size_t size, const tsr_hal_board *board,
                          ImageView *out, Message &err);

// Checks a tokenizer section (bounds of every table and piece) and views into it.
tessera_status read_tokenizer_section(const uint8_t *section, uint32_t size, uint32_t vocab_size, TokenizerView *out,
                                      Message &err);

// Address of a tensor's first byte once sections are bound to the board.
inline uint8_t *tensor_address(const ImageView &img, const tsr_hal_board *board, uint32_t id)
{
    const tsr_tensor &t = img.tensors[id];
    uint8_t *base = t.region == TSR_REGION_IMAGE ? const_cast<uint8_t *>(img.base)
                                                 : board->regions[t.region].base;
    return base + t.offset;
}

} // namespace tsr

#endif
