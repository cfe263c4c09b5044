// tessera-inspect: what a model image holds, and whether a board accepts it.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "tessera/tools/cli.h"

#include "tessera/tools/image_file.h"
#include "tessera/host_board.hpp"
#include "tessera/image_format.h"
#include "tessera/variants.h"
#include "tessera/models/graph.h"
#include "tessera/tessera.h"
#include "predict.h"

namespace {

// What the image holds, as one document: the text view and --json both print it.
using nlohmann::json;

json header_json(const std::string &path, size_t size, const tsr_image_header &h)
{
    json features = json::array();
    for (uint32_t bit = 1; bit; bit <<= 1)
        if (h.required_features & bit) features.push_back(tsr_feature_name(bit) ? tsr_feature_name(bit) : "unknown");
    json regions = json::object();
    for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r)
        if (h.region_bytes[r]) regions[tsr_region_name(r)] = h.region_bytes[r];
    const bool decoder_only = (h.flags & TSR_IMAGE_DECODER_ONLY) != 0;
    return {{"image", {{"path", path}, {"bytes", size}, {"format_version", h.version}}},
            {"model",
             {{"architecture", h.arch == TSR_ARCH_GPT2 ? "gpt2" : "llama"}, // the front end's family (GPT-Neo lowers as gpt2)
              {"decoder_only", decoder_only},
              {"prompt_logits", decoder_only ? "every row (hidden rows out)" : (h.flags & TSR_IMAGE_PROMPT_LOGITS_ALL) ? "all" : "last"},
              {"precision", h.precision == TSR_DTYPE_I8 ? "int8" : h.precision == TSR_DTYPE_BF16 ? "bf16" : "fp32"},
              {"dim", h.dim},
              {"hidden_dim", h.hidden_dim},
              {"n_layers", h.n_layers},
              {"n_heads", h.n_heads},
              {"n_kv_heads", h.n_kv_heads},
              {"vocab_size", h.vocab_size},
              {"seq_len", h.seq_len}}},
            {"features", features},
            {"plan",
             {{"board", h.board_name},
              {"fingerprint", h.board_fingerprint},
              {"cores", h.planned_cores},
              {"context", h.context},
              {"prompt_chunk", h.prompt_chunk},
              {"region_bytes", regions}}}};
}

// The sections, tensors and schedules of an image the runtime has validated.
void contents_json(const uint8_t *data, const tsr_image_header &h, json &doc)
{
    const auto *sections = reinterpret_cast<const tsr_section *>(data + h.section_table_offset);
    const tsr_tensor *tensor = nullptr;
    const uint8_t *schedule[2] = {};
    std::vector<std::string> names;
    json list = json::array();
    for (uint32_t i = 0; i < h.section_count; ++i) {
        const tsr_section &sec = sections[i];
        list.push_back({{"kind", tsr_section_kind_name(sec.kind)},
                        {"used", sec.region == TSR_REGION_IMAGE ? "inplace" : tsr_region_name(sec.region)},
                        {"offset", sec.file_offset},
                        {"bytes", sec.size},
                        {"crc32", sec.crc32}});
        const uint8_t *at = data + sec.file_offset;
        if (sec.kind == TSR_SECTION_TENSORS) tensor = reinterpret_cast<const tsr_tensor *>(at);
        if (sec.kind == TSR_SECTION_SCHEDULE_PROMPT) schedule[0] = at;
        if (sec.kind == TSR_SECTION_SCHEDULE_TOKEN) schedule[1] = at;
        if (sec.kind == TSR_SECTION_NAMES) { // NUL-terminated names; an image without them shows ids
            const char *p = reinterpret_cast<const char *>(at), *end = p + sec.size;
            while (p < end && names.size() < h.tensor_count) {
                const char *nul = static_cast<const char *>(std::memchr(p, 0, size_t(end - p)));
                if (!nul) break;
                names.emplace_back(p, nul);
                p = nul + 1;
            }
            if (names.size() != h.tensor_count) names.clear();
        }
    }
    doc["sections"] = list;
    auto name_of = [&](uint32_t id) { return id < names.size() ? names[id] : "t" + std::to_string(id); };
    json tensors = json::array();
    for (uint32_t i = 0; i < h.tensor_count; ++i) {
        const tsr_tensor &t = tensor[i];
        json dims = json::array();
        for (uint32_t d = 0; d < t.ndims && d < TSR_MAX_DIMS; ++d) dims.push_back(t.dims[d]);
        json e = {{"id", i},         {"name", name_of(i)},   {"kind", tsr_tensor_kind_name(t.kind)},
                  {"region", tsr_region_name(t.region)}, {"dtype", tsr_dtype_name(t.dtype)}, {"offset", t.offset},
                  {"bytes", t.size}, {"dims", dims}};
        if (t.quant == TSR_QUANT_PER_TENSOR) e["scale"] = t.scale;
        if (t.quant == TSR_QUANT_PER_CHANNEL) e["per_channel_scales"] = name_of(t.quant_params);
        if (t.layout != TSR_LAYOUT_ROW_MAJOR) e["layout"] = tsr_layout_name(t.layout);
        tensors.push_back(e);
    }
    doc["tensors"] = tensors;
    for (int k = 0; k < 2; ++k) {
        const auto &sh = *reinterpret_cast<const tsr_schedule_header *>(schedule[k]);
        const auto *st = reinterpret_cast<const tsr_step *>(schedule[k] + sizeof sh);
        json steps = json::array();
        for (uint32_t i = 0; i < sh.step_count; ++i) {
            json operands = json::array();
            for (uint32_t o = 0; o < tsr_op_operand_count(st[i].op); ++o) {
                json operand = {{"tensor", st[i].operands[o] == TSR_NO_TENSOR ? "scratch" : name_of(st[i].operands[o])}};
                if (st[i].staging[o] != TSR_NO_TENSOR) operand["via"] = name_of(st[i].staging[o]);
                operands.push_back(operand);
            }
            tsr_variant_row variant{};
            steps.push_back({{"index", i},
                             {"op", tsr_op_name(st[i].op)},
                             {"variant", tsr_variant_lookup(st[i].variant, &variant) ? variant.name : "?"},
                             {"layer", st[i].layer == TSR_NO_LAYER ? json(nullptr) : json(st[i].layer)},
                             {"engine", st[i].engine == TSR_ENGINE_DMA ? "dma" : st[i].engine == TSR_ENGINE_NPU ? "npu" : "cluster"},
                             {"tile", {st[i].tile[0], st[i].tile[1]}},
                             {"operands", operands}});
        }
        doc["schedules"][k ? "token" : "prompt"] = {{"max_rows", sh.max_rows}, {"steps", steps}};
    }
}

void print_header(const json &d)
{
    const json &m = d["model"], &p = d["plan"];
    std::printf("image     %s: %s bytes, format version %s\n", d["image"]["path"].get<std::string>().c_str(),
                d["image"]["bytes"].dump().c_str(), d["image"]["format_version"].dump().c_str());
    std::printf("model     %s, %s: dim %s, hidden %s, %s layers, %s heads (%s KV), ",
                m["decoder_only"].get<bool>() ? "decoder only (hidden rows in and out, no vocabulary)"
                                              : m["architecture"].get<std::string>().c_str(),
                m["precision"].get<std::string>().c_str(), m["dim"].dump().c_str(), m["hidden_dim"].dump().c_str(),
                m["n_layers"].dump().c_str(), m["n_heads"].dump().c_str(), m["n_kv_heads"].dump().c_str());
    if (m["decoder_only"].get<bool>()) std::printf("positions %s\n", m["seq_len"].dump().c_str());
    else std::printf("vocab %s, seq_len %s\n", m["vocab_size"].dump().c_str(), m["seq_len"].dump().c_str());
    std::printf("features ");
    for (const auto &f : d["features"]) std::printf(" %s;", f.get<std::string>().c_str());
    std::printf("\n");
    std::printf("plan      board %s (fingerprint 0x%08x, %s cores), context %s, prompt chunk %s\n",
                p["board"].get<std::string>().c_str(), p["fingerprint"].get<uint32_t>(), p["cores"].dump().c_str(),
                p["context"].dump().c_str(), p["prompt_chunk"].dump().c_str());
    for (const auto &[region, bytes] : p["region_bytes"].items())
        std::printf("region    %-3s %s bytes\n", region.c_str(), bytes.dump().c_str());
}

void print_contents(const json &d, bool tensors, bool steps)
{
    std::printf("sections  %-16s %-6s %10s %10s %10s\n", "kind", "used", "offset", "bytes", "crc32");
    for (const auto &s : d["sections"])
        std::printf("          %-16s %-6s %10s %10s 0x%08x\n", s["kind"].get<std::string>().c_str(),
                    s["used"].get<std::string>().c_str(), s["offset"].dump().c_str(), s["bytes"].dump().c_str(),
                    s["crc32"].get<uint32_t>());
    std::printf("tensors   %zu\n", d["tensors"].size());
    if (tensors)
        for (const auto &t : d["tensors"]) {
            std::printf("  %4s %-28s %-10s %-5s %-4s offset %10s  %9s bytes ", t["id"].dump().c_str(),
                        t["name"].get<std::string>().c_str(), t["kind"].get<std::string>().c_str(),
                        t["region"].get<std::string>().c_str(), t["dtype"].get<std::string>().c_str(),
                        t["offset"].dump().c_str(), t["bytes"].dump().c_str());
            const char *sep = " ";
            for (const auto &dim : t["dims"]) std::printf("%s%s", sep, dim.dump().c_str()), sep = " x ";
            if (t.contains("scale")) std::printf("  scale %.6g", t["scale"].get<double>());
            if (t.contains("per_channel_scales"))
                std::printf("  per-channel scales %s", t["per_channel_scales"].get<std::string>().c_str());
            if (t.contains("layout")) std::printf("  layout %s", t["layout"].get<std::string>().c_str());
            std::printf("\n");
        }
    for (const char *which : {"prompt", "token"}) {
        const json &sc = d["schedules"][which];
        std::printf("schedule  %s: %zu steps, %s rows\n", which, sc["steps"].size(), sc["max_rows"].dump().c_str());
        if (!steps) continue;
        for (const auto &st : sc["steps"]) {
            const std::string layer = st["layer"].is_null() ? "-" : "layer " + st["layer"].dump();
            std::printf("  %4s %-10s %-26s %-8s %-7s tile %s,%s ", st["index"].dump().c_str(),
                        st["op"].get<std::string>().c_str(), st["variant"].get<std::string>().c_str(), layer.c_str(),
                        st["engine"].get<std::string>().c_str(), st["tile"][0].dump().c_str(), st["tile"][1].dump().c_str());
            for (const auto &o : st["operands"]) {
                std::printf(" %s", o["tensor"].get<std::string>().c_str());
                if (o.contains("via")) std::printf("(via %s)", o["via"].get<std::string>().c_str());
            }
            std::printf("\n");
        }
    }
}

} // namespace

int main(int argc, char **argv)
{
    std::string path, board_arg;
    bool tensors = false, steps = false, as_json = false, quiet = false;
    CLI::App app{"tessera-inspect: print what a Tessera model image holds and check it against a board."};
    app.add_option("image", path, "model image")->required()->check(CLI::ExistingFile);
    app.add_flag("--list-tensors", tensors, "list every tensor with its region, offset and size (and layout, where not row-major)");
    app.add_flag("--list-steps", steps, "list every step of both schedules, with its variant");
    tessera::renamed_option(app, "--tensors", "--list-tensors", false);
    tessera::renamed_option(app, "--steps", "--list-steps (--steps is tessera-generate's -n)", false);
    tessera::add_quiet_and_json(app, quiet, as_json,
                                "image, model, features, plan, board, valid (and why not), sections, and every tensor and "
                                "step (whatever --list-tensors and --list-steps say)");
    app.add_option("--board", board_arg, "validate on this board NAME or FILE.json (default: the board the image is planned for, or the description "
                   "the image embeds)")
        ->check(tessera::board_check());
    std::string predict_arg, kernel_set;
    uint32_t cores = 0;
    app.add_option("--predict", predict_arg,
                   "print the board's cost model for one run instead: token:FIRST-LAST (a token at each position, "
                   "averaged; position 0 is the one-row prompt) or rows:COUNT@POSITION, as 'PREDICTED cycles per run: N' "
                   "and a line per variant (--json: the same as JSON)");
    app.add_option("--cores", cores, "with --predict: the cores the run uses (default: the image's plan)")
        ->check(CLI::Range(1u, 64u));
    app.add_option("--kernel-set", kernel_set,
                   "with --predict: whose fitted costs (default: the board's kernel set, or the only one fitted)");
    std::string costs_arg;
    app.add_option("--costs", costs_arg,
                   "with --predict: the cost model of this board NAME or FILE.json (default: --board's); e.g. "
                   "qemu-virt-rv32's instruction counts for an image planned for gap9")
        ->check(tessera::board_check());
    if (const int rc = tessera::parse_command_line(app, "tessera-inspect", argc, argv); rc >= 0) return rc;
    if ((cores || !kernel_set.empty() || !costs_arg.empty()) && predict_arg.empty()) {
        std::fprintf(stderr, "tessera-inspect: error: --cores, --kernel-set and --costs go with --predict\n");
        return tessera::kExitUsage;
    }

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
    json doc = header_json(path, img.size(), h);
    const bool text = !as_json && !quiet && predict_arg.empty();
    if (text) print_header(doc);

    // The rest is read only after the runtime has validated the image on a board.
    std::unique_ptr<tessera::HostBoard> board;
    try {
        board = tessera::HostBoard::create(tessera::board_for_image(board_arg, img.data(), img.size()), 1);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-inspect: error: %s\n", e.what());
        return 1;
    }
    doc["board"] = {{"name", board->desc().name}, {"source", board->desc().source}};
    if (text) std::printf("board     %s, from %s\n", board->desc().name.c_str(), board->desc().source.c_str());
    tessera_session session;
    const tessera_status open = tessera_open(&session, img.data(), img.size(), board->hal());
    if (open != TESSERA_OK) {
        doc["valid"] = false;
        doc["invalid"] = {{"status", int(open)}, {"status_name", tessera_status_string(open)},
                          {"reason", tessera_last_error(&session)}};
        if (as_json) std::printf("%s\n", doc.dump(1).c_str());
        else if (text)
            std::printf("valid     no, on board %s: %s (status %d): %s\n", board->desc().name.c_str(),
                        tessera_status_string(open), int(open), tessera_last_error(&session));
        std::fflush(stdout);
        std::fprintf(stderr, "tessera-inspect: error: %s (status %d): %s: %s\n", tessera_status_string(open), int(open),
                     path.c_str(), tessera_last_error(&session));
        return tessera::kExitError;
    }
    doc["valid"] = true;
    if (!predict_arg.empty()) {
        tessera_close(&session);
        try {
            const tessera::BoardDesc costs =
                costs_arg.empty() ? board->desc() : tessera::board_for_image(costs_arg, img.data(), img.size());
            const nlohmann::json p =
                tessera::predict(img.data(), img.size(), costs, tessera::parse_predict_run(predict_arg), cores, kernel_set);
            if (as_json) std::printf("%s\n", p.dump(1).c_str());
            else if (!quiet) std::printf("%s", tessera::predict_lines(p).c_str());
        } catch (const std::exception &e) {
            std::fprintf(stderr, "tessera-inspect: error: %s\n", e.what());
            return 1;
        }
        return tessera::stdout_written("tessera-inspect") ? 0 : tessera::kExitError;
    }
    contents_json(img.data(), h, doc);
    tessera_close(&session);
    if (as_json) {
        std::printf("%s\n", doc.dump(1).c_str());
    } else if (text) {
        std::printf("valid     yes, on board %s\n", board->desc().name.c_str());
        print_contents(doc, tensors, steps);
    }
    return tessera::stdout_written("tessera-inspect") ? 0 : tessera::kExitError;
}
