// tessera-inspect: what a model image holds, and whether a board accepts it.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tessera/tools/cli.h"

#include "tessera/tools/image_file.h"
#include "tessera/host_board.hpp"
#include "tessera/image_format.h"
#include "tessera/models/graph.h"
#include "tessera/tessera.h"

namespace {

const char *section_name(uint32_t kind)
{
    switch (kind) {
    case TSR_SECTION_TOKENIZER: return "tokenizer";
    case TSR_SECTION_TENSORS: return "tensors";
    case TSR_SECTION_SCHEDULE_PROMPT: return "schedule:prompt";
    case TSR_SECTION_SCHEDULE_TOKEN: return "schedule:token";
    case TSR_SECTION_WEIGHTS: return "weights";
    case TSR_SECTION_NPU_JOBS: return "npu-jobs";
    case TSR_SECTION_BOARD: return "board";
    case TSR_SECTION_NAMES: return "names";
    default: return "?";
    }
}

const char *dtype_name(uint32_t dtype)
{
    switch (dtype) {
    case TSR_DTYPE_F32: return "f32";
    case TSR_DTYPE_I32: return "i32";
    case TSR_DTYPE_BF16: return "bf16";
    case TSR_DTYPE_I8: return "i8";
    case TSR_DTYPE_U8: return "u8";
    case TSR_DTYPE_I16: return "i16";
    default: return "?";
    }
}

const char *tensor_kind(uint32_t kind)
{
    static const char *names[] = {"?", "weight", "activation", "kv_cache", "io", "scratch", "staging"};
    return kind < 7 ? names[kind] : "?";
}

} // namespace

int main(int argc, char **argv)
{
    std::string path, board_arg;
    bool tensors = false, steps = false;
    CLI::App app{"tessera-inspect: print what a Tessera model image holds and check it against a board."};
    app.add_option("image", path, "model image")->required()->check(CLI::ExistingFile);
    app.add_flag("--tensors", tensors, "list every tensor with its region, offset and size");
    app.add_flag("--steps", steps, "list every step of both schedules");
    app.add_option("--board", board_arg, "validate on this board NAME or FILE.json (default: the board the image is planned for, or the description "
                   "the image embeds)");
    if (const int rc = tessera::parse_command_line(app, "tessera-inspect", argc, argv); rc >= 0) return rc;

    const tessera::ImageFile img(path);
    if (!img.ok()) {
        std::fprintf(stderr, "tessera-inspect: error: %s\n", img.error().c_str());
        return 1;
    }

    tessera_image_summary s;
    char err[192];
    const tessera_status st = tessera_image_peek(img.data(), img.size(), &s, err, sizeof err);
    if (st != TESSERA_OK) {
        std::fprintf(stderr, "tessera-inspect: error: %s (status %d): %s: %s\n", tessera_status_string(st), int(st), path.c_str(), err);
        return 1;
    }
    const auto &h = *reinterpret_cast<const tsr_image_header *>(img.data());
    std::printf("image     %s: %zu bytes, format version %u\n", path.c_str(), img.size(), h.version);
    std::printf("model     llama, %s: dim %u, hidden %u, %u layers, %u heads (%u KV), vocab %u, seq_len %u\n", 
                h.precision == TSR_DTYPE_I8 ? "int8" : h.precision == TSR_DTYPE_BF16 ? "bf16" : "fp32", h.dim,
                h.hidden_dim, h.n_layers, h.n_heads, h.n_kv_heads, h.vocab_size, h.seq_len);
    std::printf("features ");
    for (uint32_t bit = 1; bit; bit <<= 1)
        if (h.required_features & bit) std::printf(" %s;", tsr_feature_name(bit) ? tsr_feature_name(bit) : "unknown");
    std::printf("\n");
    std::printf("plan      board %s (fingerprint 0x%08x, %u cores), context %u, prompt chunk %u\n", h.board_name,
                h.board_fingerprint, h.planned_cores, h.context, h.prompt_chunk);
    for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r)
        if (h.region_bytes[r]) std::printf("region    %-3s %u bytes\n", tsr_region_name(r), h.region_bytes[r]);

    // The rest is read only after the runtime has validated the image on a board.
    std::unique_ptr<tessera::HostBoard> board;
    try {
        board = tessera::HostBoard::create(tessera::board_for_image(board_arg, img.data(), img.size()), 1);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-inspect: error: %s\n", e.what());
        return 1;
    }
    std::printf("board     %s, from %s\n", board->desc().name.c_str(), board->desc().source.c_str());
    tessera_session session;
    const tessera_status open = tessera_open(&session, img.data(), img.size(), board->hal());
    if (open != TESSERA_OK) {
        std::printf("valid     no, on board %s: %s (status %d): %s\n", board->desc().name.c_str(),
                    tessera_status_string(open), int(open), tessera_last_error(&session));
        std::fflush(stdout);
        std::fprintf(stderr, "tessera-inspect: error: %s (status %d): %s: %s\n", tessera_status_string(open), int(open),
                     path.c_str(), tessera_last_error(&session));
        return tessera::kExitError;
    }
    std::printf("valid     yes, on board %s\n", board->desc().name.c_str());

    const auto *sections = reinterpret_cast<const tsr_section *>(img.data() + h.section_table_offset);
    std::printf("sections  %-16s %-6s %10s %10s %10s\n", "kind", "used", "offset", "bytes", "crc32");
    for (uint32_t i = 0; i < h.section_count; ++i) {
        const tsr_section &sec = sections[i];
        std::printf("          %-16s %-6s %10u %10u 0x%08x\n", section_name(sec.kind),
                    sec.region == TSR_REGION_IMAGE ? "inplace" : tsr_region_name(sec.region), sec.file_offset, sec.size,
                    sec.crc32);
    }
    const tsr_tensor *tensor = nullptr;
    const uint8_t *schedule[2] = {};
    std::vector<std::string> names;
    for (uint32_t i = 0; i < h.section_count; ++i) {
        const uint8_t *at = img.data() + sections[i].file_offset;
        if (sections[i].kind == TSR_SECTION_TENSORS) tensor = reinterpret_cast<const tsr_tensor *>(at);
        if (sections[i].kind == TSR_SECTION_SCHEDULE_PROMPT) schedule[0] = at;
        if (sections[i].kind == TSR_SECTION_SCHEDULE_TOKEN) schedule[1] = at;
        if (sections[i].kind == TSR_SECTION_NAMES) { // NUL-terminated names; an image without them shows ids
            const char *p = reinterpret_cast<const char *>(at), *end = p + sections[i].size;
            while (p < end && names.size() < h.tensor_count) {
                const char *nul = static_cast<const char *>(std::memchr(p, 0, size_t(end - p)));
                if (!nul) break;
                names.emplace_back(p, nul);
                p = nul + 1;
            }
            if (names.size() != h.tensor_count) names.clear();
        }
    }
    auto name_of = [&](uint32_t id) { return id < names.size() ? names[id] : "t" + std::to_string(id); };
    std::printf("tensors   %u\n", h.tensor_count);
    if (tensors)
        for (uint32_t i = 0; i < h.tensor_count; ++i) {
            const tsr_tensor &t = tensor[i];
            std::printf("  %4u %-28s %-10s %-5s %-4s offset %10u  %9u bytes ", i, name_of(i).c_str(), tensor_kind(t.kind),
                        tsr_region_name(t.region), dtype_name(t.dtype), t.offset, t.size);
            for (uint32_t d = 0; d < t.ndims && d < TSR_MAX_DIMS; ++d) std::printf("%s%u", d ? " x " : " ", t.dims[d]);
            if (t.quant == TSR_QUANT_PER_TENSOR) std::printf("  scale %.6g", double(t.scale));
            if (t.quant == TSR_QUANT_PER_CHANNEL) std::printf("  per-channel scales %s", name_of(t.quant_params).c_str());
            std::printf("\n");
        }
    for (int k = 0; k < 2; ++k) {
        const auto &sh = *reinterpret_cast<const tsr_schedule_header *>(schedule[k]);
        std::printf("schedule  %s: %u steps, %u rows\n", k ? "token" : "prompt", sh.step_count, sh.max_rows);
        if (!steps) continue;
        const auto *st = reinterpret_cast<const tsr_step *>(schedule[k] + sizeof sh);
        for (uint32_t i = 0; i < sh.step_count; ++i) {
            const std::string layer = st[i].layer == TSR_NO_LAYER ? "-" : "layer " + std::to_string(st[i].layer);
            std::printf("  %4u %-10s %-8s %-7s tile %u,%u ", i, tsr_op_name(st[i].op), layer.c_str(),
                        st[i].engine == TSR_ENGINE_DMA ? "dma" : st[i].engine == TSR_ENGINE_NPU ? "npu" : "cluster",
                        st[i].tile[0], st[i].tile[1]);
            for (uint32_t o = 0; o < tsr_op_operand_count(st[i].op); ++o) {
                if (st[i].operands[o] == TSR_NO_TENSOR) std::printf(" scratch");
                else std::printf(" %s", name_of(st[i].operands[o]).c_str());
                if (st[i].staging[o] != TSR_NO_TENSOR) std::printf("(via %s)", name_of(st[i].staging[o]).c_str());
            }
            std::printf("\n");
        }
    }
    return tessera::stdout_written("tessera-inspect") ? 0 : tessera::kExitError;
}
