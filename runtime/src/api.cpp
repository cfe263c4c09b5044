// The public C API over the session: argument checks, binding, the two run modes.
#include <string.h>

#include "copy_bytes.h"
#include "executor.h"
#include "logits_argmax.h"
#include "ops/op.h"
#include "sampler.h"
#include "session.h"
#include "tokenizer.h"

using tsr::Message;
using tsr::Session;
using tsr::session_of;

static_assert(sizeof(Session) <= sizeof(tessera_session), "tessera_session storage too small");
static_assert(alignof(Session) <= alignof(tessera_session), "tessera_session storage misaligned");

namespace {

// A refusal's message: "tessera_step: what". Every public call names itself, and
// tessera_last_error always describes the last call made on the session: "" after one
// that succeeded (enter clears it).
Message error_of(Session *s, const char *call)
{
    return Message(s->error, sizeof s->error, call); // "call: " only before what is written
}

// The open session behind a public call, its error cleared for this call; or null: then,
// where there is a session at all, its error says that `call` found it not open.
Session *enter(const tessera_session *session, const char *call)
{
    if (session == nullptr) return nullptr;
    Session *s = session_of(const_cast<tessera_session *>(session));
    s->error[0] = '\0';
    if (s->open_marker == tsr::kOpenMarker) return s;
    error_of(s, call).str("the session is not open (tessera_open did not succeed, or tessera_close was called)");
    return nullptr;
}

// Copies sections that want a board region there, by DMA, once.
tessera_status bind_sections(Session *s, Message &err)
{
    const tsr_image_header &h = *s->image.header;
    const tsr_hal_board *board = s->board;
    for (uint32_t i = 0; i < h.section_count; ++i) {
        const tsr_section &sec = s->image.sections[i];
        if (sec.region == TSR_REGION_IMAGE || sec.size == 0u) continue;
        tsr_dma_handle handle = 0;
        tsr_hal_status st = board->ops->dma_copy_1d(board->ctx, board->regions[sec.region].base + sec.region_offset,
                                                    s->image.base + sec.file_offset, sec.size, &handle);
        if (st == TSR_HAL_OK) st = board->ops->dma_wait(board->ctx, handle);
        if (st != TSR_HAL_OK) {
            err.str("DMA of section ").num(i).str(" to ").str(tsr_region_name(sec.region)).str(" failed (HAL status ")
                .num(st).str(")");
            return TESSERA_ERR_HAL;
        }
    }
    return TESSERA_OK;
}

tessera_status check_tokens(Session *s, const int32_t *ids, uint32_t count, Message &err)
{
    const uint32_t vocab = s->image.header->vocab_size;
    for (uint32_t i = 0; i < count; ++i) {
        if (ids[i] < 0 || (uint32_t)ids[i] >= vocab) {
            err.str("token ").num(i).str(" has id ").str(ids[i] < 0 ? "-" : "")
                .num(ids[i] < 0 ? 0u - (uint32_t)ids[i] : (uint32_t)ids[i]).str(", vocabulary is 0..")
                .num(vocab - 1u);
            return TESSERA_ERR_BAD_TOKEN;
        }
    }
    if (count > s->image.header->context - s->position) {
        err.str("position ").num(s->position).str(" + ").num(count).str(" tokens exceeds the context of ")
            .num(s->image.header->context);
        return TESSERA_ERR_CONTEXT_FULL;
    }
    return TESSERA_OK;
}

bool sampler_ok(const tessera_sampler &s)
{
    return __builtin_isfinite(s.temperature) && s.temperature >= 0.0f && __builtin_isfinite(s.topp);
}

bool decoder_only(const Session *s) { return (s->image.header->flags & TSR_IMAGE_DECODER_ONLY) != 0u; }

// Token calls on a decoder-only image, or row calls on a token one: what to call instead.
tessera_status wrong_kind(Session *s, const char *call)
{
    Message err = error_of(s, call);
    if (decoder_only(s))
        err.str("the image is decoder-only (hidden rows in and out): run it with tessera_forward_rows");
    else
        err.str("the image takes tokens: run it with tessera_prompt and tessera_step");
    return TESSERA_ERR_INVALID_ARGUMENT;
}

tessera_status run_schedule_of(Session *s, const tsr::ScheduleView &schedule, uint32_t rows, Message &err)
{
    tessera_step_profile *profile = nullptr;
    if (s->profile) profile = s->profile + (&schedule == &s->image.prompt ? 0u : s->image.prompt.header->step_count);
    s->runs += 1u;
    return tsr::run_schedule(s->image, s->board, schedule, rows, s->position, err, profile, &s->counters);
}

tessera_status run(Session *s, const tsr::ScheduleView &schedule, uint32_t tokens_tensor, const int32_t *ids,
                   uint32_t rows, Message &err)
{
    memcpy(tsr::tensor_address(s->image, s->board, tokens_tensor), ids, rows * sizeof(int32_t));
    return run_schedule_of(s, schedule, rows, err);
}

// The KV cache tensor of (layer, kind): the image's KV tensors in order, keys then values per layer.
const tsr_tensor *kv_tensor(const Session *s, uint32_t layer, uint32_t kind, uint32_t *id)
{
    uint32_t seen = 0;
    const uint32_t want = 2u * layer + kind;
    for (uint32_t i = 0; i < s->image.header->tensor_count; ++i) {
        if (s->image.tensors[i].kind != TSR_TENSOR_KV_CACHE) continue;
        if (seen++ == want) {
            *id = i;
            return &s->image.tensors[i];
        }
    }
    return nullptr;
}

// Where a KV call's rows lie: row-major, one block of `count` rows at addr; head-major
// (TSR_LAYOUT_KV_HEAD_MAJOR), `heads` blocks of count x (row / heads) bytes, `stride`
// apart from addr, which the caller's rows hold side by side.
struct KvRows {
    uint8_t *addr;
    size_t row;        // bytes of a cache row (every head)
    uint32_t count, heads;
    size_t stride;     // head-major: bytes from one head's block to the next
};

// Copies the rows between the cache and the caller's rows (row-major, as the API gives them).
void kv_copy(const KvRows &k, uint8_t *rows, bool to_cache)
{
    if (k.heads == 1u) { // row-major: one block
        if (k.count) tsr::copy_bytes(to_cache ? k.addr : rows, to_cache ? rows : k.addr, k.row * k.count);
        return;
    }
    const size_t head = k.row / k.heads;
    for (uint32_t h = 0; h < k.heads; ++h)
        for (uint32_t i = 0; i < k.count; ++i) {
            uint8_t *cache = k.addr + h * k.stride + i * head, *user = rows + i * k.row + h * head;
            tsr::copy_bytes(to_cache ? cache : user, to_cache ? user : cache, head);
        }
}

// Checks a KV call and gives where its rows lie.
tessera_status kv_rows(const Session *s, uint32_t layer, uint32_t kind, uint32_t first, uint32_t count, uint32_t limit,
                       KvRows *out, Message &err)
{
    const tsr_image_header &h = *s->image.header;
    if (layer >= h.n_layers || kind > 1u) {
        err.str("KV cache: layer ").num(layer).str(" kind ").num(kind).str(" (layers 0..").num(h.n_layers - 1u)
            .str(", kind 0 keys or 1 values)");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    if (first > limit || count > limit - first) {
        err.str("KV cache: rows ").num(first).str("..").num(first + count).str(" outside 0..").num(limit);
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    uint32_t id = 0;
    const tsr_tensor *t = kv_tensor(s, layer, kind, &id);
    const uint64_t row = (uint64_t)(h.dim / h.n_heads) * h.n_kv_heads * tsr_dtype_bytes(h.precision);
    if (t == nullptr || (uint64_t)t->size < row * h.context) {
        err.str("KV cache: the image has no cache tensor for layer ").num(layer).str(" kind ").num(kind);
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    uint8_t *cache = tsr::tensor_address(s->image, s->board, id);
    if (t->layout == TSR_LAYOUT_KV_HEAD_MAJOR) { // image_reader: whole heads; the blocks hold context rows
        const size_t head = (size_t)row / h.n_kv_heads;
        *out = KvRows{cache + head * first, (size_t)row, count, h.n_kv_heads, head * h.context};
    } else {
        *out = KvRows{cache + (size_t)(row * first), (size_t)row, count, 1u, 0u};
    }
    return TESSERA_OK;
}

// A row of the last run's logits, for `call` (tessera_logits, tessera_sample).
tessera_status logits_of(Session *s, uint32_t row, const float **logits, uint32_t *rows, const char *call)
{
    if (decoder_only(s)) return wrong_kind(s, call);
    Message err = error_of(s, call);
    if (logits == nullptr) {
        err.str("logits must not be NULL");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    if (s->last_run == tsr::LastRun::kNone) {
        err.str("no logits: nothing has run since open or reset");
        return TESSERA_ERR_NO_LOGITS;
    }
    if (row == TESSERA_LAST_ROW) row = s->last_rows - 1u;
    if (row >= s->last_rows) {
        err.str("row ").num(row).str(" requested, the last run produced ").num(s->last_rows);
        return TESSERA_ERR_NO_LOGITS;
    }
    const tsr_image_header &h = *s->image.header;
    const uint32_t tensor = s->last_run == tsr::LastRun::kPrompt ? h.logits_tensor_prompt : h.logits_tensor_token;
    *logits = reinterpret_cast<const float *>(tsr::tensor_address(s->image, s->board, tensor)) +
              (size_t)row * h.vocab_size;
    if (rows) *rows = s->last_rows;
    return TESSERA_OK;
}

} // namespace

extern "C" {

tessera_status tessera_image_peek(const void *image, size_t image_size, tessera_image_summary *out, char *error,
                                  size_t error_size)
{
    char scratch[1];
    Message err = error != nullptr && error_size > 0u ? Message(error, (uint32_t)(error_size > 0xFFFFu ? 0xFFFFu : error_size))
                                                      : Message(scratch, sizeof scratch);
    if (out == nullptr) {
        err.str("tessera_image_peek: out must not be NULL");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    const tessera_status st = tsr::check_image_header(static_cast<const uint8_t *>(image), image_size, err);
    if (st != TESSERA_OK) return st;
    const tsr_image_header &h = *static_cast<const tsr_image_header *>(image);
    memset(out, 0, sizeof *out);
    out->format_version = h.version;
    memcpy(out->board_name, h.board_name, sizeof out->board_name);
    out->board_name[sizeof out->board_name - 1] = '\0';
    out->board_fingerprint = h.board_fingerprint;
    out->planned_cores = h.planned_cores;
    out->dim = h.dim;
    out->hidden_dim = h.hidden_dim;
    out->n_layers = h.n_layers;
    out->n_heads = h.n_heads;
    out->n_kv_heads = h.n_kv_heads;
    out->vocab_size = h.vocab_size;
    out->seq_len = h.seq_len;
    out->context = h.context;
    out->prompt_chunk = h.prompt_chunk;
    out->bos_id = h.bos_id;
    out->eos_id = h.eos_id;
    out->precision = h.precision;
    for (uint32_t r = 0; r < TSR_REGION_COUNT; ++r) out->region_bytes[r] = h.region_bytes[r];
    out->region_bytes[TSR_REGION_IMAGE] = h.file_size;
    return TESSERA_OK;
}

tessera_status tessera_open(tessera_session *session, const void *image, size_t image_size,
                            const tsr_hal_board *board)
{
    if (session == nullptr) return TESSERA_ERR_INVALID_ARGUMENT;
    Session *s = session_of(session);
    memset(s, 0, sizeof *s);
    Message err = error_of(s, "tessera_open");
    if (board == nullptr) {
        err.str("board is NULL");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    if (board->abi != TSR_HAL_ABI) {
        err.str("board is not a tsr_hal_board of this HAL (abi field ").hex(board->abi).str(", expected ").hex(TSR_HAL_ABI)
            .str("): on the host board, pass tessera_host_board_hal(board)");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    if (board->ops == nullptr || board->name == nullptr) {
        err.str("board has no operations or no name");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    s->board = board;
    tessera_status st = tsr::read_image(static_cast<const uint8_t *>(image), image_size, board, &s->image, err);
    if (st == TESSERA_OK) st = tsr::validate_steps(s->image, err);
    if (st == TESSERA_OK) st = bind_sections(s, err);
    if (st != TESSERA_OK) return st;
    tsr::resolve_steps(s->image, board); // after the copies: nothing may overwrite the table
    tsr::resolve_loan(s->image, board);
    tsr::resolve_between_runs(s->image, board);
    s->open_marker = tsr::kOpenMarker;
    return TESSERA_OK;
}

void tessera_close(tessera_session *session)
{
    if (session == nullptr) return;
    Session *s = session_of(session);
    s->open_marker = 0;
    s->error[0] = '\0'; // the last call, close, succeeded: nothing of before it remains
}

const char *tessera_last_error(const tessera_session *session)
{
    return session == nullptr ? "session is NULL" : session_of(session)->error;
}

tessera_status tessera_image_summary_of(const tessera_session *session, tessera_image_summary *out)
{
    Session *s = enter(session, "tessera_image_summary_of");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    if (out == nullptr) {
        error_of(s, "tessera_image_summary_of").str("out must not be NULL");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    return tessera_image_peek(s->image.base, s->image.header->file_size, out, nullptr, 0);
}

tessera_status tessera_encode(tessera_session *session, const char *text, bool bos, bool eos, int32_t *ids,
                              uint32_t capacity, uint32_t *count)
{
    Session *s = enter(session, "tessera_encode");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    Message err = error_of(s, "tessera_encode");
    if (text == nullptr || ids == nullptr || count == nullptr) {
        err.str("text, ids and count must not be NULL");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    if (decoder_only(s)) return wrong_kind(s, "tessera_encode");
    const tsr_image_header &h = *s->image.header;
    // The sampler scratch is the tokenizer's work area: it holds nothing between calls.
    const tsr::EncodeOptions opt{bos,
                                 eos,
                                 h.bos_id,
                                 h.eos_id,
                                 h.context,
                                 s->merge_buffer,
                                 tsr::tensor_address(s->image, s->board, h.sampler_scratch_tensor),
                                 s->image.tensors[h.sampler_scratch_tensor].size};
    return tsr::tokenizer_encode(s->image.tokenizer, opt, text, ids, capacity, count, err);
}

const char *tessera_decode(const tessera_session *session, int32_t prev, int32_t token, uint32_t *len)
{
    const Session *s = enter(session, "tessera_decode");
    if (s == nullptr || (s->image.header->flags & TSR_IMAGE_DECODER_ONLY)) return nullptr;
    return tsr::tokenizer_decode(s->image.tokenizer, s->image.header->bos_id, prev, token, len);
}

tessera_status tessera_prompt(tessera_session *session, const int32_t *ids, uint32_t count)
{
    Session *s = enter(session, "tessera_prompt");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    if (decoder_only(s)) return wrong_kind(s, "tessera_prompt");
    Message err = error_of(s, "tessera_prompt");
    if (ids == nullptr || count == 0u) {
        err.str("needs at least one token");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    tessera_status st = check_tokens(s, ids, count, err);
    if (st != TESSERA_OK) return st;
    const tsr_image_header &h = *s->image.header;
    const uint32_t start = s->position;
    const uint64_t t0 = s->board->ops->cycles(s->board->ctx);
    uint32_t rows = 0;
    for (uint32_t done = 0; done < count; done += rows) {
        rows = count - done < h.prompt_chunk ? count - done : h.prompt_chunk;
        st = run(s, s->image.prompt, h.tokens_tensor_prompt, ids + done, rows, err);
        if (st != TESSERA_OK) {
            s->position = start; // the cache past `start` is garbage but unreachable
            s->last_run = tsr::LastRun::kNone;
            return st;
        }
        s->position += rows;
    }
    s->last_run = tsr::LastRun::kPrompt;
    s->last_rows = (h.flags & TSR_IMAGE_PROMPT_LOGITS_ALL) ? rows : 1u;
    s->prompt_tokens += count;
    s->prompt_cycles += s->board->ops->cycles(s->board->ctx) - t0;
    return TESSERA_OK;
}

tessera_status tessera_step(tessera_session *session, int32_t token)
{
    Session *s = enter(session, "tessera_step");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    if (decoder_only(s)) return wrong_kind(s, "tessera_step");
    Message err = error_of(s, "tessera_step");
    tessera_status st = check_tokens(s, &token, 1u, err);
    if (st != TESSERA_OK) return st;
    const uint64_t t0 = s->board->ops->cycles(s->board->ctx);
    st = run(s, s->image.token, s->image.header->tokens_tensor_token, &token, 1u, err);
    if (st != TESSERA_OK) {
        s->last_run = tsr::LastRun::kNone;
        return st;
    }
    s->position += 1u;
    s->last_run = tsr::LastRun::kToken;
    s->last_rows = 1u;
    s->step_tokens += 1u;
    s->step_cycles += s->board->ops->cycles(s->board->ctx) - t0;
    return TESSERA_OK;
}

tessera_status tessera_logits(const tessera_session *session, uint32_t row, const float **logits, uint32_t *rows)
{
    Session *s = enter(session, "tessera_logits");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    return logits_of(s, row, logits, rows, "tessera_logits");
}

tessera_status tessera_sampler_init(tessera_sampler *sampler, float temperature, float topp, uint64_t seed)
{
    if (sampler == nullptr) return TESSERA_ERR_INVALID_ARGUMENT;
    sampler->temperature = temperature;
    sampler->topp = topp;
    sampler->rng_state = seed;
    return sampler_ok(*sampler) ? TESSERA_OK : TESSERA_ERR_INVALID_ARGUMENT;
}

tessera_status tessera_sample(tessera_session *session, tessera_sampler *sampler, int32_t *token)
{
    Session *s = enter(session, "tessera_sample");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    Message err = error_of(s, "tessera_sample");
    if (sampler == nullptr || token == nullptr || !sampler_ok(*sampler)) {
        err.str("needs a token pointer and a sampler with a finite temperature >= 0 and a finite top-p");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    const float *logits = nullptr;
    const tessera_status st = logits_of(s, TESSERA_LAST_ROW, &logits, nullptr, "tessera_sample");
    if (st != TESSERA_OK) return st;
    const tsr_image_header &h = *s->image.header;
    float *scratch = reinterpret_cast<float *>(tsr::tensor_address(s->image, s->board, h.sampler_scratch_tensor));
    *token = sampler->temperature == 0.0f // greedy: on the cluster, through L1, where the board asks (logits_argmax.h)
                 ? (int32_t)tsr::argmax_logits(s->board, logits, h.vocab_size, s->image.between_runs,
                                               s->image.between_runs_bytes)
                 : tsr::sample_token(sampler, logits, h.vocab_size, scratch);
    return TESSERA_OK;
}

tessera_status tessera_forward_rows(tessera_session *session, const void *rows_in, const void *rotations,
                                    uint32_t count, void *rows_out)
{
    Session *s = enter(session, "tessera_forward_rows");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    if (!decoder_only(s)) return wrong_kind(s, "tessera_forward_rows");
    Message err = error_of(s, "tessera_forward_rows");
    if (rows_in == nullptr || rotations == nullptr || rows_out == nullptr || count == 0u) {
        err.str("needs at least one row, its rotation and room for its output");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    const tsr_image_header &h = *s->image.header;
    if (count > h.context - s->position) {
        err.str("position ").num(s->position).str(" + ").num(count).str(" rows exceeds the context of ").num(h.context);
        return TESSERA_ERR_CONTEXT_FULL;
    }
    const size_t row = (size_t)h.dim * tsr_dtype_bytes(h.precision), hs = h.dim / h.n_heads,
                 rot = hs * hs * tsr_dtype_bytes(h.precision);
    const uint32_t start = s->position;
    const uint64_t t0 = s->board->ops->cycles(s->board->ctx);
    const bool token = count == 1u; // autoregressive mode
    const tsr::ScheduleView &schedule = token ? s->image.token : s->image.prompt;
    const uint32_t in = token ? h.tokens_tensor_token : h.tokens_tensor_prompt,
                   out = token ? h.logits_tensor_token : h.logits_tensor_prompt,
                   rotation = token ? h.rotation_tensor_token : h.rotation_tensor_prompt;
    uint32_t rows = 0;
    for (uint32_t done = 0; done < count; done += rows) {
        rows = count - done < h.prompt_chunk ? count - done : h.prompt_chunk;
        tsr::copy_bytes(tsr::tensor_address(s->image, s->board, in), static_cast<const uint8_t *>(rows_in) + done * row,
                        rows * row);
        tsr::copy_bytes(tsr::tensor_address(s->image, s->board, rotation),
                        static_cast<const uint8_t *>(rotations) + done * rot, rows * rot);
        const tessera_status st = run_schedule_of(s, schedule, rows, err);
        if (st != TESSERA_OK) {
            s->position = start; // the cache past `start` is garbage but unreachable
            return st;
        }
        tsr::copy_bytes(static_cast<uint8_t *>(rows_out) + done * row, tsr::tensor_address(s->image, s->board, out),
                        rows * row);
        s->position += rows;
    }
    uint64_t &tokens = token ? s->step_tokens : s->prompt_tokens, &cycles = token ? s->step_cycles : s->prompt_cycles;
    tokens += count;
    cycles += s->board->ops->cycles(s->board->ctx) - t0;
    return TESSERA_OK;
}

tessera_status tessera_kv_read(const tessera_session *session, uint32_t layer, uint32_t kind, uint32_t first,
                               uint32_t count, void *rows)
{
    const Session *cs = enter(session, "tessera_kv_read");
    if (cs == nullptr) return TESSERA_ERR_NOT_OPEN;
    Session *s = const_cast<Session *>(cs);
    Message err = error_of(s, "tessera_kv_read");
    if (rows == nullptr && count) {
        err.str("rows must not be NULL");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    KvRows k = {};
    TSR_TRY(kv_rows(s, layer, kind, first, count, s->position, &k, err));
    kv_copy(k, static_cast<uint8_t *>(rows), false);
    return TESSERA_OK;
}

tessera_status tessera_kv_write(tessera_session *session, uint32_t layer, uint32_t kind, uint32_t first,
                                uint32_t count, const void *rows)
{
    Session *s = enter(session, "tessera_kv_write");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    Message err = error_of(s, "tessera_kv_write");
    if (rows == nullptr && count) {
        err.str("rows must not be NULL");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    KvRows k = {};
    TSR_TRY(kv_rows(s, layer, kind, first, count, s->image.header->context, &k, err));
    kv_copy(k, static_cast<uint8_t *>(const_cast<void *>(rows)), true);
    return TESSERA_OK;
}

tessera_status tessera_set_position(tessera_session *session, uint32_t position)
{
    Session *s = enter(session, "tessera_set_position");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    if (position > s->image.header->context) {
        Message err = error_of(s, "tessera_set_position");
        err.str("").num(position).str(" is above the context of ").num(s->image.header->context);
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    s->position = position;
    s->last_run = tsr::LastRun::kNone;
    s->last_rows = 0;
    return TESSERA_OK;
}

tessera_status tessera_reset(tessera_session *session)
{
    Session *s = enter(session, "tessera_reset");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    s->position = 0;
    s->last_run = tsr::LastRun::kNone;
    s->last_rows = 0;
    return TESSERA_OK;
}

uint32_t tessera_position(const tessera_session *session)
{
    const Session *s = enter(session, "tessera_position");
    return s == nullptr ? 0u : s->position;
}

tessera_status tessera_get_stats(const tessera_session *session, tessera_stats *stats)
{
    const Session *s = enter(session, "tessera_get_stats");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    if (stats == nullptr) {
        error_of(const_cast<Session *>(s), "tessera_get_stats").str("stats must not be NULL");
        return TESSERA_ERR_INVALID_ARGUMENT;
    }
    const tsr_image_header &h = *s->image.header;
    memset(stats, 0, sizeof *stats);
    stats->position = s->position;
    stats->prompt_tokens = s->prompt_tokens;
    stats->prompt_cycles = s->prompt_cycles;
    stats->step_tokens = s->step_tokens;
    stats->step_cycles = s->step_cycles;
    for (uint32_t r = 0; r < TSR_REGION_COUNT; ++r) stats->region_bytes[r] = h.region_bytes[r];
    stats->region_bytes[TSR_REGION_IMAGE] = h.file_size;
    stats->weights_in_place = s->image.weights_in_place ? 1u : 0u;
    stats->runs = s->runs;
    stats->forks = s->counters.forks;
    stats->dma_bytes = s->counters.dma_bytes;
    stats->dma_transfers = s->counters.dma_transfers;
    stats->npu_jobs = s->counters.npu_jobs;
    return TESSERA_OK;
}

uint32_t tessera_profile_size(const tessera_session *session)
{
    const Session *s = enter(session, "tessera_profile_size");
    return s == nullptr ? 0u : s->image.prompt.header->step_count + s->image.token.header->step_count;
}

tessera_status tessera_profile(tessera_session *session, tessera_step_profile *steps, uint32_t capacity)
{
    Session *s = enter(session, "tessera_profile");
    if (s == nullptr) return TESSERA_ERR_NOT_OPEN;
    Message err = error_of(s, "tessera_profile");
    if (steps == nullptr) {
        s->profile = nullptr;
        return TESSERA_OK;
    }
    const uint32_t need = tessera_profile_size(session);
    if (capacity < need) {
        err.str("").num(capacity).str(" entries for ").num(need).str(" steps");
        return TESSERA_ERR_BUFFER_TOO_SMALL;
    }
    uint32_t k = 0;
    for (uint32_t which = 0; which < 2u; ++which) {
        const tsr::ScheduleView &sched = which == 0u ? s->image.prompt : s->image.token;
        for (uint32_t i = 0; i < sched.header->step_count; ++i, ++k) {
            memset(&steps[k], 0, sizeof steps[k]);
            steps[k].schedule = which;
            steps[k].step = i;
            steps[k].op = sched.steps[i].op;
            steps[k].layer = sched.steps[i].layer;
            steps[k].engine = sched.steps[i].engine;
        }
    }
    s->profile = steps;
    return TESSERA_OK;
}

uint32_t tessera_profile_sum(const tessera_step_profile *steps, uint32_t count, uint32_t op, uint32_t layer,
                             tessera_step_profile *sum)
{
    if (sum == nullptr) return 0u;
    memset(sum, 0, sizeof *sum);
    sum->op = op;
    sum->layer = layer;
    uint32_t matched = 0;
    for (uint32_t i = 0; steps != nullptr && i < count; ++i) {
        const tessera_step_profile &p = steps[i];
        if ((op != TESSERA_PROFILE_ANY && p.op != op) || (layer != TESSERA_PROFILE_ANY && p.layer != layer)) continue;
        sum->engine = matched == 0u || sum->engine == p.engine ? p.engine : 0u;
        ++matched;
        sum->runs += p.runs;
        sum->cycles += p.cycles;
        sum->dma_bytes += p.dma_bytes;
        sum->dma_transfers += p.dma_transfers;
        sum->forks += p.forks;
        sum->npu_jobs += p.npu_jobs;
        sum->dma_wait_cycles += p.dma_wait_cycles;
        sum->npu_wait_cycles += p.npu_wait_cycles;
    }
    return matched;
}

} // extern "C"
