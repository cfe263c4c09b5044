#include "calibration_text.h"

#include <sstream>

#include "tessera/board_desc.h"
#include "tessera/errors.h"
#include "tessera/host_board.hpp"
#include "tessera/pack/image_writer.h"
#include "tessera/pack/memory_plan.h"
#include "tessera/tessera.h"

namespace tessera {

// What every lowered graph gets before planning: the sampler scratch is also the
// device tokenizer's work area (room for any text whose tokens fit the context), and
// the runtime resolves every step once, at open, into a table of its own.
void finish_graph(Graph &g, const Vocabulary &vocab)
{
    if (!g.hyper.decoder_only) {
        GraphTensor &scratch = g.tensors[g.sampler_scratch];
        scratch.bytes = std::max<uint64_t>(scratch.bytes, tsr_encode_work_bytes(g.hyper.context, vocab.max_token_length));
    }
    GraphTensor table;
    table.name = "step_table";
    table.kind = TSR_TENSOR_STEP_TABLE;
    table.rows = uint32_t(g.prompt.steps.size() + g.token.steps.size());
    table.cols = TSR_STEP_TABLE_ENTRY_BYTES / 4;
    g.step_table = g.add(std::move(table));
}

// The calibration text, refused when it is not: larger than 64 MiB, a NUL byte, or a
// byte sequence that is not UTF-8 (overlong forms and surrogates included), naming
// the line and its byte.
std::string read_utf8_text(const std::string &path)
{
    uint64_t size = 0;
    read_file_head(path, 0, &size);
    constexpr uint64_t kMaxBytes = 64u << 20;
    if (size > kMaxBytes)
        throw InputError(path + ": " + std::to_string(size) + " bytes of calibration text; at most " +
                         std::to_string(kMaxBytes) + " are read");
    const std::vector<uint8_t> b = read_checkpoint_bytes(path);
    uint64_t line = 1, line_start = 0;
    for (size_t i = 0; i < b.size();) {
        const uint8_t c = b[i];
        size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
        bool ok = n != 0 && c != 0 && i + n <= b.size();
        for (size_t k = 1; ok && k < n; ++k) {
            ok = (b[i + k] & 0xC0) == 0x80;
            cp = cp << 6 | (b[i + k] & 0x3Fu);
        }
        static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (ok && n > 1) ok = cp >= kMin[n] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
        if (!ok) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", c);
            throw InputError(path + ":" + std::to_string(line) + ": byte " + std::to_string(i - line_start + 1) + " (" +
                             hex + ") is " + (c == 0 ? "a NUL" : "not UTF-8") +
                             "; the calibration text must be UTF-8 text");
        }
        if (c == '\n') ++line, line_start = i + 1;
        i += n;
    }
    return std::string(b.begin(), b.end());
}

// The lines of a calibration text as token ids (BOS first), encoded by the device
// tokenizer itself: an fp32 image of the model, opened on the host board.
std::vector<std::vector<int32_t>> encode_calibration_text(const std::string &path, Graph &fp32,
                                                          const Vocabulary &vocab)
{
    std::istringstream in(read_utf8_text(path));
    BoardDesc host = load_board_desc("host");
    // L2 for every buffer side by side, should the model's KV cache outgrow the host
    // board's (only the tokenizer runs here).
    uint64_t buffers = 0;
    for (const GraphTensor &t : fp32.tensors)
        if (t.kind != TSR_TENSOR_WEIGHT) buffers += (t.bytes + TSR_IMAGE_ALIGN - 1) / TSR_IMAGE_ALIGN * TSR_IMAGE_ALIGN;
    if (buffers > host.region_size[TSR_REGION_L2] && buffers < 0xFFFFFFC0u)
        host.region_size[TSR_REGION_L2] = uint32_t(buffers + TSR_IMAGE_ALIGN);
    const MemoryPlan plan = plan_memory(fp32, host, PlanOptions{});
    std::vector<uint8_t> image = build_image(fp32, vocab, plan, host);
    auto board = HostBoard::create(host, 1);
    tessera_session session;
    if (tessera_open(&session, image.data(), image.size(), board->hal()) != TESSERA_OK)
        throw PlanError(std::string("calibration image: ") + tessera_last_error(&session));
    std::vector<std::vector<int32_t>> out;
    std::vector<int32_t> ids(fp32.hyper.context);
    std::string line;
    uint32_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        uint32_t count = 0;
        const tessera_status st = tessera_encode(&session, line.c_str(), true, false, ids.data(), uint32_t(ids.size()), &count);
        if (st == TESSERA_ERR_CONTEXT_FULL) { // a long line: its first context's worth of words
            std::string cut = line.substr(0, fp32.hyper.context);
            if (tessera_encode(&session, cut.c_str(), true, false, ids.data(), uint32_t(ids.size()), &count) != TESSERA_OK)
                continue;
        } else if (st != TESSERA_OK) {
            tessera_close(&session);
            throw InputError(path + ":" + std::to_string(number) + ": " + tessera_last_error(&session));
        }
        out.emplace_back(ids.begin(), ids.begin() + count);
    }
    tessera_close(&session);
    if (out.empty()) throw InputError("the calibration text " + path + " has no line to encode");
    return out;
}

} // namespace tessera
