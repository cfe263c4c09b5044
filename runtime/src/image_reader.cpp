#include "image_reader.h"

#include <string.h>

#include "tessera/crc32.h"
#include "tessera/npu.h"
#include "tessera/kernels_i8.h" // tsr_w4_row_bytes: the W4A8 layout
#include "variants/registry.h"

namespace tsr {
namespace {

constexpr uint32_t kRequiredImageAlign = 16;

bool is_pow2(uint32_t v) { return v && (v & (v - 1u)) == 0u; }

// a + b <= limit without overflow.
bool fits(uint64_t offset, uint64_t size, uint64_t limit) { return offset <= limit && size <= limit - offset; }

tessera_status check_header_fields(const tsr_image_header &h, Message &err)
{
    auto bad = [&](const char *what) {
        err.str("image header: ").str(what);
        return TESSERA_ERR_IMAGE_BAD_HEADER;
    };
    if (h.precision != TSR_DTYPE_F32 && h.precision != TSR_DTYPE_BF16 && h.precision != TSR_DTYPE_I8)
        return bad("precision is not fp32, bf16 or int8");
    const bool decoder_only = (h.flags & TSR_IMAGE_DECODER_ONLY) != 0u;
    if (!h.dim || !h.hidden_dim || !h.n_layers || !h.n_heads || !h.n_kv_heads || (!h.vocab_size && !decoder_only) ||
        !h.seq_len)
        return bad("a model dimension is zero");
    if (decoder_only && (h.vocab_size || h.bos_id || h.eos_id || (h.flags & TSR_IMAGE_PROMPT_LOGITS_ALL)))
        return bad("a decoder-only image has a vocabulary, BOS/EOS ids or a logits flag");
    if (h.n_heads % h.n_kv_heads != 0u) return bad("n_heads is not a multiple of n_kv_heads");
    if (h.dim % h.n_heads != 0u || (h.dim / h.n_heads) % 2u != 0u)
        return bad("head size is not a whole even number");
    if (!h.context || h.context > h.seq_len) return bad("context is 0 or above seq_len");
    if (!h.prompt_chunk || h.prompt_chunk > h.context) return bad("prompt_chunk is 0 or above context");
    if (!decoder_only && (h.bos_id >= h.vocab_size || h.eos_id >= h.vocab_size))
        return bad("BOS/EOS id outside the vocabulary");
    if (!(h.norm_eps > 0.0f) || !(h.norm_eps < 1e30f)) return bad("norm_eps is not a finite positive number");
    if (!(h.rope_theta > 0.0f) || !(h.rope_theta < 1e30f)) return bad("rope_theta is not a finite positive number");
    if (h.seq_len > TSR_MAX_SEQ_LEN) return bad("seq_len is above 2^20 positions");
    if (!h.planned_cores || h.planned_cores > 64u) return bad("planned_cores outside 1..64");
    if (h.flags & ~TSR_IMAGE_FLAGS_) return bad("unknown flags");
    if (h.section_count == 0u || h.section_count > 16u) return bad("section count outside 1..16");
    if (h.section_table_offset % 4u != 0u ||
        !fits(h.section_table_offset, (uint64_t)h.section_count * sizeof(tsr_section), h.file_size))
        return bad("section table outside the image");
    return TESSERA_OK;
}

// What this runtime provides (TSR_FEATURE_*) is what its registered variants do
// (registered_features; NPU jobs on a board that has an NPU: check_board). A step's
// variant is checked too (validate_steps): the features are the first, coarse check.
tessera_status check_features(const tsr_image_header &h, Message &err)
{
    const uint32_t missing = h.required_features & ~registered_features();
    if (missing == 0u) return TESSERA_OK;
    const uint32_t bit = missing & (0u - missing); // the lowest one
    uint32_t index = 0;
    while ((1u << index) != bit) ++index;
    err.str("image needs ");
    if (const char *name = tsr_feature_name(bit)) err.str(name);
    else err.str("feature bit ").num(index).str(" (unknown to this runtime)");
    err.str(", which this runtime does not provide");
    return TESSERA_ERR_IMAGE_UNSUPPORTED;
}

tessera_status check_board(const tsr_image_header &h, const tsr_hal_board *board, Message &err)
{
    if (strncmp(h.board_name, board->name ? board->name : "", TSR_BOARD_NAME_BYTES) != 0 ||
        h.board_fingerprint != board->fingerprint) {
        err.str("image planned for board '").str(h.board_name).str("' (fingerprint ")
            .hex(h.board_fingerprint).str("), opened on '").str(board->name).str("' (")
            .hex(board->fingerprint).str(")");
        return TESSERA_ERR_WRONG_BOARD;
    }
    if ((h.required_features & TSR_FEATURE_NPU) && !board->has_npu) {
        err.str("image runs NPU jobs; board '").str(board->name).str("' has no NPU");
        return TESSERA_ERR_BOARD_TOO_SMALL;
    }
    if ((h.flags & TSR_IMAGE_OPERANDS_IN_PLACE) && board->image_dma_only) {
        err.str("image's kernels read operands in place; board '").str(board->name)
            .str("' lets only its DMA engine read the image");
        return TESSERA_ERR_IMAGE_UNSUPPORTED;
    }
    if (board->core_count == 0u || board->core_count > h.planned_cores) {
        err.str("board runs ").num(board->core_count).str(" cores; the image is planned for 1..")
            .num(h.planned_cores);
        return TESSERA_ERR_BOARD_TOO_SMALL;
    }
    for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r) {
        if (h.region_bytes[r] > board->regions[r].size ||
            (h.region_bytes[r] && board->regions[r].base == nullptr)) {
            err.str("plan needs ").num(h.region_bytes[r]).str(" bytes of ").str(tsr_region_name(r))
                .str(", board has ").num(board->regions[r].size);
            return TESSERA_ERR_BOARD_TOO_SMALL;
        }
    }
    return TESSERA_OK;
}

// CRC-32 of `size` bytes at `src` that only the DMA engine may read (the board's
// image_dma_only): copied a chunk at a time to the start of L2, which holds nothing
// before the open ends, and summed there.
tessera_status dma_crc32(const tsr_hal_board *board, const uint8_t *src, uint32_t size, uint32_t *crc, Message &err)
{
    const tsr_hal_region &l2 = board->regions[TSR_REGION_L2];
    const uint32_t chunk = l2.size < 65536u ? l2.size & ~63u : 65536u;
    if (l2.base == nullptr || chunk == 0u) {
        err.str("board '").str(board->name).str("' reads its image by DMA only and has no L2 to check it through");
        return TESSERA_ERR_BOARD_TOO_SMALL;
    }
    uint32_t sum = 0;
    for (uint32_t done = 0; done < size;) {
        const uint32_t n = size - done < chunk ? size - done : chunk;
        tsr_dma_handle handle = 0;
        tsr_hal_status st = board->ops->dma_copy_1d(board->ctx, l2.base, src + done, n, &handle);
        if (st == TSR_HAL_OK) st = board->ops->dma_wait(board->ctx, handle);
        if (st != TSR_HAL_OK) {
            err.str("DMA of image bytes ").num(done).str("..").num(done + n).str(" to L2 to check them failed (HAL status ")
                .num(st).str(")");
            return TESSERA_ERR_HAL;
        }
        sum = tsr_crc32(sum, l2.base, n);
        done += n;
    }
    *crc = sum;
    return TESSERA_OK;
}

// CRC-32 of `size` bytes the cores may load, split over the board's cluster (one fork):
// each of the fork's cores sums a part of whole 64-byte lines (the last one the rest), core 0
// joins the parts' sums (tsr_crc32_combine). A board of one core, or a size below 64 KiB,
// sums them on the calling core.
struct CrcParts {
    static constexpr uint32_t kMaxParts = 64;
    const uint8_t *data;
    uint32_t size;
    uint32_t parts; // the fork's cores (core 0 writes it)
    uint32_t crc[kMaxParts];
};

uint32_t part_begin(uint32_t size, uint32_t part, uint32_t parts)
{
    return part >= parts ? size : part * ((size / parts) & ~63u);
}

void crc_part(void *arg, uint32_t core, uint32_t cores)
{
    CrcParts &t = *static_cast<CrcParts *>(arg);
    if (cores > CrcParts::kMaxParts || core >= cores) return; // no parts: core 0 sums it all
    if (core == 0u) t.parts = cores;
    const uint32_t begin = part_begin(t.size, core, cores), end = part_begin(t.size, core + 1u, cores);
    t.crc[core] = tsr_crc32(0, t.data + begin, end - begin);
}

uint32_t cluster_crc32(const tsr_hal_board *board, const uint8_t *data, uint32_t size)
{
    if (board->core_count < 2u || size < 65536u || !board->ops->cluster_fork) return tsr_crc32(0, data, size);
    CrcParts t;
    t.data = data;
    t.size = size;
    t.parts = 0;
    if (board->ops->cluster_fork(board->ctx, crc_part, &t) != TSR_HAL_OK || t.parts == 0u) return tsr_crc32(0, data, size);
    uint32_t crc = t.crc[0];
    for (uint32_t c = 1; c < t.parts; ++c)
        crc = tsr_crc32_combine(crc, t.crc[c], part_begin(size, c + 1u, t.parts) - part_begin(size, c, t.parts));
    return crc;
}

tessera_status check_sections(const uint8_t *data, const tsr_image_header &h, const tsr_hal_board *board,
                              ImageView *out, const tsr_section **by_kind, Message &err)
{
    const tsr_section *sections = reinterpret_cast<const tsr_section *>(data + h.section_table_offset);
    const uint32_t table_crc = tsr_crc32(0, sections, h.section_count * sizeof(tsr_section));
    if (table_crc != h.section_table_crc) {
        err.str("section table at offset ").num(h.section_table_offset).str(": CRC-32 ").hex(table_crc)
            .str(", expected ").hex(h.section_table_crc);
        return TESSERA_ERR_IMAGE_BAD_CHECKSUM;
    }
    uint32_t weights_to = 0; // regions the weights sections target (one each)
    bool read_in_place = false; // a weights section of some bytes the image keeps
    for (uint32_t i = 0; i < h.section_count; ++i) {
        const tsr_section &s = sections[i];
        auto bad = [&](const char *what) {
            err.str("section ").num(i).str(" (kind ").num(s.kind).str("): ").str(what);
            return TESSERA_ERR_IMAGE_BAD_SECTION;
        };
        if (s.kind < TSR_SECTION_TOKENIZER || s.kind > TSR_SECTION_KIND_LAST_) return bad("unknown kind");
        if (s.kind == TSR_SECTION_WEIGHTS && s.region < TSR_REGION_COUNT) {
            if (weights_to & (1u << s.region)) return bad("a second weights section for the same region");
            weights_to |= 1u << s.region;
            read_in_place = read_in_place || (s.region == TSR_REGION_IMAGE && s.size > 0u);
        } else if (by_kind[s.kind]) {
            return bad("kind appears twice");
        }
        if (!is_pow2(s.align) || s.align > TSR_IMAGE_ALIGN || s.align < 4u) return bad("alignment not a power of two in 4..64");
        if (s.file_offset % s.align != 0u) return bad("misaligned in the file");
        if (!fits(s.file_offset, s.size, h.file_size)) return bad("extends past the end of the image");
        if (s.file_offset < sizeof(tsr_image_header)) return bad("overlaps the header");
        if (s.region >= TSR_REGION_COUNT) return bad("unknown target region");
        if (s.region != TSR_REGION_IMAGE) {
            if (s.kind != TSR_SECTION_WEIGHTS) return bad("only weights may be copied to a region");
            if (s.region_offset % s.align != 0u || !fits(s.region_offset, s.size, h.region_bytes[s.region]))
                return bad("destination outside its region's plan");
        }
        by_kind[s.kind] = &s;
    }
    const bool decoder_only = (h.flags & TSR_IMAGE_DECODER_ONLY) != 0u; // no tokenizer
    if (decoder_only && by_kind[TSR_SECTION_TOKENIZER]) {
        err.str("image has a tokenizer section but is decoder-only");
        return TESSERA_ERR_IMAGE_BAD_SECTION;
    }
    for (uint32_t kind = TSR_SECTION_TOKENIZER + (decoder_only ? 1u : 0u); kind <= TSR_SECTION_SCHEDULE_TOKEN; ++kind) {
        if (!by_kind[kind]) {
            err.str("image has no section of kind ").num(kind);
            return TESSERA_ERR_IMAGE_BAD_SECTION;
        }
    }
    // Checksums after the bounds, so a CRC is never computed over bytes we do not own.
    for (uint32_t i = 0; i < h.section_count; ++i) {
        const tsr_section &s = sections[i];
        uint32_t crc = 0;
        if (board->image_dma_only && s.kind == TSR_SECTION_WEIGHTS) // the cores may not load them, whatever their region
            TSR_TRY(dma_crc32(board, data + s.file_offset, s.size, &crc, err));
        else
            crc = cluster_crc32(board, data + s.file_offset, s.size);
        if (crc != s.crc32) {
            err.str("section ").num(i).str(" (kind ").num(s.kind).str(", file offset ").num(s.file_offset)
                .str("): CRC-32 ").hex(crc).str(", expected ").hex(s.crc32);
            return TESSERA_ERR_IMAGE_BAD_CHECKSUM;
        }
    }
    out->sections = sections;
    // Some weights read from the image: every one, or (a board with off-chip memory) those
    // not copied to L2.
    out->weights_in_place = read_in_place || (weights_to & ~(1u << TSR_REGION_IMAGE)) == 0u;
    return TESSERA_OK;
}

tessera_status check_tensors(const tsr_image_header &h, const tsr_section &sec, const uint8_t *data,
                             const tsr_hal_board *board, ImageView *out, Message &err)
{
    if (h.tensor_count == 0u || sec.size != (uint64_t)h.tensor_count * sizeof(tsr_tensor)) {
        err.str("tensor table: ").num(sec.size).str(" bytes for ").num(h.tensor_count).str(" tensors");
        return TESSERA_ERR_IMAGE_BAD_SECTION;
    }
    const tsr_tensor *tensors = reinterpret_cast<const tsr_tensor *>(data + sec.file_offset);
    for (uint32_t i = 0; i < h.tensor_count; ++i) {
        const tsr_tensor &t = tensors[i];
        const uint32_t esize = tsr_dtype_bytes(t.dtype);
        auto bad = [&](const char *what) {
            err.str("tensor ").num(i).str(" (").str(tsr_region_name(t.region)).str(" offset ")
                .num(t.offset).str(", ").num(t.size).str(" bytes): ").str(what);
            return TESSERA_ERR_IMAGE_BAD_PLACEMENT;
        };
        if (!esize) return bad("unknown element type");
        if (t.kind < TSR_TENSOR_WEIGHT || t.kind > TSR_TENSOR_STEP_TABLE) return bad("unknown tensor kind");
        if (t.region >= TSR_REGION_COUNT) return bad("unknown region");
        if (t.layout > TSR_LAYOUT_LAST_) return bad("unknown layout");
        if (t.layout == TSR_LAYOUT_KV_HEAD_MAJOR) { // heads of kv_dim / n_kv_heads columns
            if (t.kind != TSR_TENSOR_KV_CACHE || t.ndims != 2u || !h.n_kv_heads || t.dims[1] % h.n_kv_heads != 0u)
                return bad("a head-major layout on a tensor that is not a KV cache {context, kv_dim} of whole heads");
        } else if (t.layout == TSR_LAYOUT_W4_G32) { // the W4A8 matmul's: I8 weights {n, k} in rows of tsr_w4_row_bytes(k)
            if (t.kind != TSR_TENSOR_WEIGHT || t.dtype != TSR_DTYPE_I8 || t.ndims != 2u || t.quant != TSR_QUANT_PER_CHANNEL)
                return bad("a 4-bit layout on a tensor that is not per-channel int8 weights {n, k}");
            if (!t.dims[0] || !t.dims[1] || t.dims[1] > 2048u ||
                t.size < (uint64_t)t.dims[0] * tsr_w4_row_bytes(t.dims[1]))
                return bad("4-bit weights smaller than their layout");
        } else if (t.layout != TSR_LAYOUT_ROW_MAJOR) { // the NPU's: I8 weights {n, k}, sized by tessera/npu.h
            // Per-channel scales (Q31 requantization), or none (QuantLib's integers: RequantShift).
            if (t.kind != TSR_TENSOR_WEIGHT || t.dtype != TSR_DTYPE_I8 || t.ndims != 2u ||
                (t.quant != TSR_QUANT_PER_CHANNEL && t.quant != TSR_QUANT_NONE))
                return bad("an NPU layout on a tensor that is not int8 weights {n, k}");
            if (!t.dims[0] || !t.dims[1] || t.dims[1] > TSR_NPU_MAX_K ||
                t.size < tsr_npu_weight_bytes(t.dims[0], t.dims[1], tsr_layout_npu_bits(t.layout)))
                return bad("NPU weights smaller than their layout");
            if (t.offset % TSR_NPU_ALIGN != 0u) return bad("NPU weights not on a 4-byte word");
        }
        if (t.ndims == 0u || t.ndims > TSR_MAX_DIMS) return bad("dimensions outside 1..4");
        uint64_t elements = 1u;
        for (uint32_t d = 0; d < TSR_MAX_DIMS; ++d) {
            if (d >= t.ndims && t.dims[d] != 1u) return bad("an unused dimension is not 1");
            elements *= t.dims[d]; // each below 2^32, at most 4: no overflow before the check below ends it
            if (elements > t.size) break;
        }
        if (t.layout == TSR_LAYOUT_ROW_MAJOR && elements * esize > t.size) return bad("shape larger than its bytes");
        if (t.quant > TSR_QUANT_PER_CHANNEL) return bad("unknown quantization");
        if (t.quant == TSR_QUANT_PER_CHANNEL) {
            const uint32_t q = t.quant_params;
            if (q >= h.tensor_count || tensors[q].kind != TSR_TENSOR_WEIGHT || tensors[q].dtype != TSR_DTYPE_F32 ||
                tensors[q].size < (uint64_t)t.dims[0] * 4u)
                return bad("per-channel scales are not an F32 weight of a scale per channel");
        } else if (t.quant_params != TSR_NO_TENSOR) {
            return bad("names per-channel scales without per-channel quantization");
        }
        // real = scale * (q - zero_point): a per-tensor int8 tensor's zero point is an int8;
        // any other tensor has none.
        const bool zero_allowed = t.dtype == TSR_DTYPE_I8 && t.quant == TSR_QUANT_PER_TENSOR;
        if (zero_allowed ? (t.zero_point < -128 || t.zero_point > 127) : t.zero_point != 0)
            return bad("zero point outside the int8 range, or on a tensor that is not per-tensor int8");
        if (t.offset % esize != 0u) return bad("misaligned for its element type");
        if (t.region == TSR_REGION_IMAGE) {
            if (t.kind != TSR_TENSOR_WEIGHT) return bad("only weights may live in the image");
            if (!fits(t.offset, t.size, h.file_size)) return bad("outside the image");
        } else {
            if (!fits(t.offset, t.size, h.region_bytes[t.region])) return bad("outside its region's plan");
            if (!fits(t.offset, t.size, board->regions[t.region].size)) return bad("outside the board's region");
        }
    }
    out->tensors = tensors;
    return TESSERA_OK;
}

// The schedule's framing: its header and a section holding exactly its steps. The
// steps themselves are the operators' to check (ops/validate.cpp).
tessera_status frame_schedule(const tsr_section &sec, const uint8_t *data, uint32_t expected_rows, const char *name,
                              ScheduleView *out, Message &err)
{
    if (sec.size < sizeof(tsr_schedule_header)) {
        err.str(name).str(" schedule: section too small");
        return TESSERA_ERR_IMAGE_BAD_SCHEDULE;
    }
    const tsr_schedule_header *sh = reinterpret_cast<const tsr_schedule_header *>(data + sec.file_offset);
    if (sh->max_rows != expected_rows || sh->step_count == 0u ||
        sec.size != sizeof(tsr_schedule_header) + (uint64_t)sh->step_count * sizeof(tsr_step)) {
        err.str(name).str(" schedule: ").num(sh->step_count).str(" steps of ").num(sh->max_rows)
            .str(" rows do not fit its ").num(sec.size).str("-byte section");
        return TESSERA_ERR_IMAGE_BAD_SCHEDULE;
    }
    out->header = sh;
    out->steps = reinterpret_cast<const tsr_step *>(sh + 1);
    return TESSERA_OK;
}

struct Io {
    uint32_t id;
    uint32_t dtype;
    uint64_t bytes;
    const char *what;
};

tessera_status check_io(const tsr_image_header &h, const tsr_tensor *tensors, const Io *io, uint32_t count, Message &err)
{
    for (uint32_t i = 0; i < count; ++i) {
        const Io &x = io[i];
        if (x.id >= h.tensor_count || tensors[x.id].dtype != x.dtype || tensors[x.id].size < x.bytes ||
            tensors[x.id].region == TSR_REGION_IMAGE || tensors[x.id].kind == TSR_TENSOR_WEIGHT) {
            err.str("image header: ").str(x.what).str(" tensor ").num(x.id).str(" is missing, too small or read-only");
            return TESSERA_ERR_IMAGE_BAD_PLACEMENT;
        }
    }
    return TESSERA_OK;
}

// A decoder-only image's rows in and out (the tokens and logits tensors) and its rotations.
tessera_status check_row_tensors(const tsr_image_header &h, const tsr_tensor *tensors, Message &err)
{
    const uint64_t row = (uint64_t)h.dim * tsr_dtype_bytes(h.precision), hs = h.dim / h.n_heads;
    const Io io[] = {
        {h.tokens_tensor_prompt, h.precision, h.prompt_chunk * row, "prompt rows in"},
        {h.tokens_tensor_token, h.precision, row, "token row in"},
        {h.logits_tensor_prompt, h.precision, h.prompt_chunk * row, "prompt rows out"},
        {h.logits_tensor_token, h.precision, row, "token row out"},
        {h.rotation_tensor_prompt, h.precision, h.prompt_chunk * hs * hs * tsr_dtype_bytes(h.precision), "prompt rotations"},
        {h.rotation_tensor_token, h.precision, hs * hs * tsr_dtype_bytes(h.precision), "token rotation"},
    };
    return check_io(h, tensors, io, sizeof io / sizeof io[0], err);
}

tessera_status check_io_tensors(const tsr_image_header &h, const tsr_tensor *tensors, Message &err)
{
    if (h.flags & TSR_IMAGE_DECODER_ONLY) return check_row_tensors(h, tensors, err);
    const Io io[] = {
        {h.logits_tensor_prompt, TSR_DTYPE_F32,
         (uint64_t)(h.flags & TSR_IMAGE_PROMPT_LOGITS_ALL ? h.prompt_chunk : 1u) * h.vocab_size * 4u, "prompt logits"},
        {h.logits_tensor_token, TSR_DTYPE_F32, (uint64_t)h.vocab_size * 4u, "token logits"},
        {h.tokens_tensor_prompt, TSR_DTYPE_I32, (uint64_t)h.prompt_chunk * 4u, "prompt tokens"},
        {h.tokens_tensor_token, TSR_DTYPE_I32, 4u, "token input"},
        {h.sampler_scratch_tensor, TSR_DTYPE_F32, (uint64_t)h.vocab_size * TSR_SAMPLER_BYTES_PER_TOKEN, "sampler scratch"},
    };
    return check_io(h, tensors, io, sizeof io / sizeof io[0], err);
}

// The step table holds pointers the executor follows: the runtime alone writes it
// (at open), so no tensor and no copied section may share a byte with it.
tessera_status check_step_table(const tsr_image_header &h, const ImageView &v, Message &err)
{
    const uint64_t steps = (uint64_t)v.prompt.header->step_count + v.token.header->step_count;
    const uint32_t id = h.step_table_tensor;
    auto bad = [&](const char *what) {
        err.str("image header: step table tensor ").num(id).str(" ").str(what);
        return TESSERA_ERR_IMAGE_BAD_PLACEMENT;
    };
    if (id >= h.tensor_count) return bad("is missing");
    const tsr_tensor &t = v.tensors[id];
    if (t.kind != TSR_TENSOR_STEP_TABLE || t.region == TSR_REGION_IMAGE) return bad("is not a step table in a region");
    if (t.size < steps * TSR_STEP_TABLE_ENTRY_BYTES) return bad("is smaller than the schedules' steps need");
    if (t.offset % 8u != 0u) return bad("is not 8-byte aligned");
    const uint64_t lo = t.offset, hi = lo + t.size;
    for (uint32_t i = 0; i < h.tensor_count; ++i) {
        const tsr_tensor &o = v.tensors[i];
        if (i == id || o.region != t.region || o.size == 0u) continue;
        if (o.offset < hi && lo < (uint64_t)o.offset + o.size) {
            err.str("tensor ").num(i).str(" overlaps the step table (").str(tsr_region_name(t.region)).str(" ")
                .num(lo).str("..").num(hi).str(")");
            return TESSERA_ERR_IMAGE_BAD_PLACEMENT;
        }
    }
    for (uint32_t i = 0; i < h.section_count; ++i) {
        const tsr_section &sec = v.sections[i];
        if (sec.region != t.region || sec.size == 0u) continue;
        if (sec.region_offset < hi && lo < (uint64_t)sec.region_offset + sec.size) {
            err.str("section ").num(i).str(" is copied over the step table");
            return TESSERA_ERR_IMAGE_BAD_PLACEMENT;
        }
    }
    return TESSERA_OK;
}

} // namespace

namespace {

// Byte-level BPE's encoding tables: every table inside the section, every token id in the
// vocabulary, the merges strictly ascending by pair (binary search finds the one) and the
// class ranges ascending and disjoint.
tessera_status read_bpe_tables(const uint8_t *base, uint32_t size, const tsr_tokenizer_header *th, TokenizerView *out,
                               Message &err)
{
    auto bad = [&](const char *what) {
        err.str("tokenizer section: byte-level BPE tables: ").str(what);
        return TESSERA_ERR_IMAGE_BAD_TOKENIZER;
    };
    const uint32_t n = th->vocab_size;
    if (th->kind != TSR_TOKENIZER_BYTE_LEVEL_BPE) return bad("given to a tokenizer that is not byte-level BPE");
    if (th->bpe_offset % 4u || !fits(th->bpe_offset, sizeof(tsr_bpe_header), size)) return bad("header misaligned or past the section");
    const tsr_bpe_header *b = reinterpret_cast<const tsr_bpe_header *>(base + th->bpe_offset);
    if (b->pretokenizer != TSR_BPE_PRETOKENIZER_GPT2) return bad("pre-tokenizer is not GPT-2's (1)");
    if (b->byte_tokens_offset % 4u || b->merges_offset % 4u || b->classes_offset % 4u) return bad("tables misaligned");
    if (!fits(b->byte_tokens_offset, 256u * 4u, size) ||
        !fits(b->merges_offset, (uint64_t)b->merge_count * sizeof(tsr_bpe_merge), size) ||
        !fits(b->classes_offset, (uint64_t)b->class_count * sizeof(tsr_bpe_class_range), size))
        return bad("a table extends past the section");
    const uint32_t *bytes = reinterpret_cast<const uint32_t *>(base + b->byte_tokens_offset);
    for (uint32_t i = 0; i < 256u; ++i)
        if (bytes[i] >= n && bytes[i] != TSR_BPE_NO_TOKEN) {
            err.str("tokenizer section: byte-level BPE tables: byte ").hex(i, 2).str("'s token ").num(bytes[i])
                .str(" is outside the vocabulary");
            return TESSERA_ERR_IMAGE_BAD_TOKENIZER;
        }
    const tsr_bpe_merge *merges = reinterpret_cast<const tsr_bpe_merge *>(base + b->merges_offset);
    for (uint32_t i = 0; i < b->merge_count; ++i) {
        const tsr_bpe_merge &m = merges[i];
        if (m.left >= n || m.right >= n || m.result >= n) {
            err.str("tokenizer section: byte-level BPE tables: merge ").num(i).str(" names a token outside the vocabulary");
            return TESSERA_ERR_IMAGE_BAD_TOKENIZER;
        }
        if (i > 0u && (merges[i - 1u].left > m.left || (merges[i - 1u].left == m.left && merges[i - 1u].right >= m.right))) {
            err.str("tokenizer section: byte-level BPE tables: merge ").num(i).str(" is not after merge ").num(i - 1u)
                .str(" in (left, right) order");
            return TESSERA_ERR_IMAGE_BAD_TOKENIZER;
        }
    }
    const tsr_bpe_class_range *classes = reinterpret_cast<const tsr_bpe_class_range *>(base + b->classes_offset);
    for (uint32_t i = 0; i < b->class_count; ++i) {
        const tsr_bpe_class_range &r = classes[i];
        if (r.first > r.last || r.last > 0x10FFFFu || r.char_class < TSR_CHAR_LETTER || r.char_class > TSR_CHAR_SPACE ||
            (i > 0u && classes[i - 1u].last >= r.first)) {
            err.str("tokenizer section: byte-level BPE tables: character class range ").num(i)
                .str(" is empty, beyond U+10FFFF, of no class, or not after the one before");
            return TESSERA_ERR_IMAGE_BAD_TOKENIZER;
        }
    }
    out->bpe = b;
    out->byte_tokens = bytes;
    out->merges = merges;
    out->classes = classes;
    return TESSERA_OK;
}

} // namespace

tessera_status read_tokenizer_section(const uint8_t *base, uint32_t size, uint32_t vocab_size, TokenizerView *out,
                                      Message &err)
{
    auto bad = [&](const char *what) {
        err.str("tokenizer section: ").str(what);
        return TESSERA_ERR_IMAGE_BAD_TOKENIZER;
    };
    if (size < sizeof(tsr_tokenizer_header)) return bad("smaller than its header");
    const tsr_tokenizer_header *th = reinterpret_cast<const tsr_tokenizer_header *>(base);
    const uint32_t n = th->vocab_size;
    if (n != vocab_size) return bad("vocabulary size differs from the model's");
    if (!th->max_token_length || th->max_token_length > TSR_MAX_TOKEN_BYTES) return bad("max token length outside 1..64");
    if (th->kind > TSR_TOKENIZER_BYTE_LEVEL_BPE) return bad("kind is not SentencePiece (0) or byte-level BPE (1)");
    if (th->entries_offset % 4u || th->sorted_offset % 4u) return bad("tables misaligned");
    if (!fits(th->entries_offset, (uint64_t)n * sizeof(tsr_token_entry), size) ||
        !fits(th->sorted_offset, (uint64_t)n * 4u, size) ||
        !fits(th->strings_offset, th->strings_size, size) || th->strings_size == 0u)
        return bad("a table extends past the section");
    const tsr_token_entry *entries = reinterpret_cast<const tsr_token_entry *>(base + th->entries_offset);
    const uint32_t *sorted = reinterpret_cast<const uint32_t *>(base + th->sorted_offset);
    const char *strings = reinterpret_cast<const char *>(base + th->strings_offset);
    for (uint32_t i = 0; i < n; ++i) {
        const tsr_token_entry &e = entries[i];
        if (!fits(e.offset, (uint64_t)e.length + 1u, th->strings_size) || strings[e.offset + e.length] != '\0' ||
            tsr_check_token_piece(strings + e.offset, e.length, th->max_token_length) != TSR_PIECE_OK) {
            err.str("tokenizer section: piece of token ").num(i).str(" is out of bounds or not a string");
            return TESSERA_ERR_IMAGE_BAD_TOKENIZER;
        }
        if (sorted[i] >= n) return bad("sorted index names a token outside the vocabulary");
    }
    out->header = th;
    out->entries = entries;
    out->sorted = sorted;
    out->strings = strings;
    out->bpe = nullptr;
    out->byte_tokens = nullptr;
    out->merges = nullptr;
    out->classes = nullptr;
    if (th->bpe_offset == 0u) return TESSERA_OK;
    return read_bpe_tables(base, size, th, out, err);
}

tessera_status check_image_header(const uint8_t *data, size_t size, Message &err)
{
    if (data == nullptr) {
        err.str("image pointer is NULL");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    if ((uintptr_t)data % kRequiredImageAlign != 0u) {
        err.str("image at address ").hex((uint32_t)(uintptr_t)data).str(" is not 16-byte aligned");
        return TESSERA_ERR_IMAGE_MISALIGNED;
    }
    if (size < sizeof(tsr_image_header)) {
        err.str("image is ").num(size).str(" bytes, shorter than its ").num(sizeof(tsr_image_header)).str("-byte header");
        return TESSERA_ERR_IMAGE_TRUNCATED;
    }
    const tsr_image_header &h = *reinterpret_cast<const tsr_image_header *>(data);
    if (h.magic != TSR_IMAGE_MAGIC) {
        err.str("bad magic ").hex(h.magic).str(" at offset 0 (expected ").hex(TSR_IMAGE_MAGIC).str(", \"TESS\")");
        return TESSERA_ERR_IMAGE_BAD_MAGIC;
    }
    if (h.version != TSR_IMAGE_VERSION || h.header_size != sizeof(tsr_image_header)) {
        err.str("image format version ").num(h.version).str(" (header ").num(h.header_size)
            .str(" bytes); this runtime reads version ").num(TSR_IMAGE_VERSION);
        if (h.version < TSR_IMAGE_VERSION) err.str(": pack the model again with this release's tessera-pack");
        return TESSERA_ERR_IMAGE_BAD_VERSION;
    }
    if (size < h.file_size) {
        err.str("image is ").num(size).str(" bytes, its header says ").num(h.file_size);
        return TESSERA_ERR_IMAGE_TRUNCATED;
    }
    tsr_image_header copy = h;
    copy.header_crc = 0;
    const uint32_t crc = tsr_crc32(0, &copy, sizeof copy);
    if (crc != h.header_crc) {
        err.str("header CRC-32 ").hex(crc).str(", expected ").hex(h.header_crc);
        return TESSERA_ERR_IMAGE_BAD_CHECKSUM;
    }
    // The board name is printed and looked up by whoever peeks: one printable word.
    uint32_t len = 0;
    while (len < TSR_BOARD_NAME_BYTES && h.board_name[len] > ' ' && h.board_name[len] < 0x7F) ++len;
    if (len == 0u || len == TSR_BOARD_NAME_BYTES || h.board_name[len] != '\0') {
        err.str("image header: board name is not 1..31 printable characters and a NUL");
        return TESSERA_ERR_IMAGE_BAD_HEADER;
    }
    return TESSERA_OK;
}

tessera_status read_image(const uint8_t *data, size_t size, const tsr_hal_board *board, ImageView *out,
                          Message &err)
{
    TSR_TRY(check_image_header(data, size, err));
    const tsr_image_header &h = *reinterpret_cast<const tsr_image_header *>(data);
    TSR_TRY(check_header_fields(h, err));
    TSR_TRY(check_features(h, err));
    TSR_TRY(check_board(h, board, err));
    memset(out, 0, sizeof *out);
    out->base = data;
    out->header = &h;
    out->isa = board->isa;
    const tsr_section *by_kind[TSR_SECTION_KIND_LAST_ + 1] = {};
    TSR_TRY(check_sections(data, h, board, out, by_kind, err));
    TSR_TRY(check_tensors(h, *by_kind[TSR_SECTION_TENSORS], data, board, out, err));
    TSR_TRY(check_io_tensors(h, out->tensors, err));
    if (const tsr_section *jobs = by_kind[TSR_SECTION_NPU_JOBS]) {
        if (jobs->size % sizeof(tsr_npu_desc) != 0u || jobs->file_offset % 4u != 0u) {
            err.str("NPU jobs section: ").num(jobs->size).str(" bytes is not a whole number of descriptors");
            return TESSERA_ERR_IMAGE_BAD_SECTION;
        }
        out->npu_descs = reinterpret_cast<const tsr_npu_desc *>(data + jobs->file_offset);
        out->npu_desc_count = jobs->size / (uint32_t)sizeof(tsr_npu_desc);
    }
    TSR_TRY(frame_schedule(*by_kind[TSR_SECTION_SCHEDULE_PROMPT], data, h.prompt_chunk, "prompt", &out->prompt, err));
    TSR_TRY(frame_schedule(*by_kind[TSR_SECTION_SCHEDULE_TOKEN], data, 1u, "token", &out->token, err));
    TSR_TRY(check_step_table(h, *out, err));
    if (h.flags & TSR_IMAGE_DECODER_ONLY) return TESSERA_OK; // no tokenizer
    const tsr_section &tok = *by_kind[TSR_SECTION_TOKENIZER];
    return read_tokenizer_section(data + tok.file_offset, tok.size, h.vocab_size, &out->tokenizer, err);
}

} // namespace tsr
