#include "tessera/board_desc.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tessera/crc32.h"
#include "tessera/image_format.h"

namespace fs = std::filesystem;

namespace tessera {

namespace {

uint32_t read_u32(const nlohmann::json &j, const char *key, const std::string &where, uint64_t min, uint64_t max)
{
    if (!j.contains(key) || !j[key].is_number_unsigned())
        throw BoardError(where + ": '" + key + "' must be a non-negative integer");
    const uint64_t v = j[key].get<uint64_t>();
    if (v < min || v > max)
        throw BoardError(where + ": '" + key + "' = " + std::to_string(v) + " outside " + std::to_string(min) +
                         ".." + std::to_string(max));
    return static_cast<uint32_t>(v);
}

double read_positive(const nlohmann::json &j, const char *key, const std::string &where)
{
    if (!j.contains(key) || !j[key].is_number() || !(j[key].get<double>() > 0) || j[key].get<double>() > 1e12)
        throw BoardError(where + ": '" + key + "' must be a positive number");
    return j[key].get<double>();
}

const nlohmann::json &object(const nlohmann::json &j, const char *key, const std::string &where)
{
    if (!j.contains(key) || !j[key].is_object()) throw BoardError(where + ": missing '" + key + "' object");
    return j[key];
}

// The "cost" object: every figure required, each with its source.
BoardCost parse_cost(const nlohmann::json &j, const std::string &where, bool has_npu, double board_clock_hz)
{
    BoardCost c;
    c.clock_hz = board_clock_hz > 0 && !j.contains("clock_mhz") ? board_clock_hz : read_positive(j, "clock_mhz", where) * 1e6;
    const auto &macs = object(j, "cluster_macs_per_cycle_per_core", where);
    const char *precisions[3] = {"fp32", "bf16", "int8"};
    for (int i = 0; i < 3; ++i) c.cluster_macs_per_cycle[i] = read_positive(macs, precisions[i], where + " cluster_macs_per_cycle_per_core");
    c.cluster_cycles_per_element = read_positive(j, "cluster_cycles_per_element", where);
    if (has_npu) {
        const auto &npu = object(j, "npu_macs_per_cycle", where);
        c.npu_macs_per_cycle_8bit = read_positive(npu, "8bit", where + " npu_macs_per_cycle");
        c.npu_macs_per_cycle_4bit = read_positive(npu, "4bit", where + " npu_macs_per_cycle");
        c.nms_bytes_per_cycle = read_positive(j, "nms_bytes_per_cycle", where);
    }
    c.dma_bytes_per_cycle = read_positive(j, "dma_bytes_per_cycle", where);
    const auto &setup = object(j, "setup_cycles", where);
    c.fork_cycles = read_positive(setup, "fork", where + " setup_cycles");
    c.barrier_cycles = read_positive(setup, "barrier", where + " setup_cycles");
    c.dma_transfer_cycles = read_positive(setup, "dma_transfer", where + " setup_cycles");
    if (has_npu) c.npu_job_cycles = read_positive(setup, "npu_job", where + " setup_cycles");
    const auto &power = object(j, "power_mw", where);
    c.cluster_mw = read_positive(power, "cluster", where + " power_mw");
    c.dma_mw = read_positive(power, "dma", where + " power_mw");
    c.idle_mw = read_positive(power, "idle", where + " power_mw");
    if (has_npu) c.npu_mw = read_positive(power, "npu", where + " power_mw");
    if (j.contains("sources")) {
        if (!j["sources"].is_object()) throw BoardError(where + ": 'sources' must be an object of strings");
        for (auto it = j["sources"].begin(); it != j["sources"].end(); ++it) {
            if (!it->is_string()) throw BoardError(where + ": source of '" + it.key() + "' must be a string");
            c.sources[it.key()] = it->get<std::string>();
        }
    }
    return c;
}

} // namespace

BoardDesc parse_board_desc(const std::string &json_text, const std::string &source)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(json_text);
    } catch (const nlohmann::json::parse_error &e) {
        throw BoardError(source + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object()) throw BoardError(source + ": a board description is a JSON object");
    BoardDesc d;
    d.source = source;
    d.json = j.dump();
    if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty() ||
        j["name"].get<std::string>().size() >= 32)
        throw BoardError(source + ": 'name' must be a string of 1..31 characters");
    d.name = j["name"].get<std::string>();
    for (char c : d.name)
        if (c <= ' ' || c >= 0x7F)
            throw BoardError(source + ": 'name' must be printable characters without spaces");
    d.description = j.value("description", "");
    if (!j.contains("cluster") || !j["cluster"].is_object()) throw BoardError(source + ": missing 'cluster' object");
    d.cores = read_u32(j["cluster"], "cores", source + " cluster", 1, 64);
    if (!j.contains("regions") || !j["regions"].is_object()) throw BoardError(source + ": missing 'regions' object");
    const auto &regions = j["regions"];
    for (auto it = regions.begin(); it != regions.end(); ++it) {
        uint32_t id = it.key() == "flash" ? uint32_t(TSR_REGION_IMAGE) : TSR_REGION_COUNT; // flash: the image's
        for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r)
            if (it.key() == tsr_region_name(r)) id = r;
        if (id == TSR_REGION_COUNT) throw BoardError(source + ": unknown region '" + it.key() + "' (known: flash, L1, L2, NMS)");
        d.region_size[id] = read_u32(regions, it.key().c_str(), source + " regions", 0, 0xFFFFFFC0u);
    }
    if (!d.region_size[TSR_REGION_L2]) throw BoardError(source + ": every board needs an L2 region");
    if (j.contains("dma")) d.dma_queue_depth = read_u32(j["dma"], "queue_depth", source + " dma", 1, 1024);
    if (j.contains("npu")) {
        d.has_npu = j["npu"].value("present", false);
        if (d.has_npu && j["npu"].contains("queue_depth"))
            d.npu_queue_depth = read_u32(j["npu"], "queue_depth", source + " npu", 1, 1024);
    }
    if (j.contains("clock_mhz")) d.clock_hz = read_positive(j, "clock_mhz", source) * 1e6;
    if (j.contains("cost")) {
        if (!j["cost"].is_object()) throw BoardError(source + ": 'cost' must be an object");
        d.cost = parse_cost(j["cost"], source + " cost", d.has_npu, d.clock_hz);
        if (!d.clock_hz) d.clock_hz = d.cost.clock_hz;
    }
    return d;
}

std::vector<std::string> board_search_dirs()
{
    std::vector<std::string> dirs;
    if (const char *env = std::getenv("TESSERA_BOARDS_DIR")) dirs.emplace_back(env);
#ifdef TESSERA_BOARDS_INSTALL_DIR
    dirs.emplace_back(TESSERA_BOARDS_INSTALL_DIR);
#endif
#ifdef TESSERA_BOARDS_SOURCE_DIR
    dirs.emplace_back(TESSERA_BOARDS_SOURCE_DIR);
#endif
    return dirs;
}

std::vector<std::string> known_board_names()
{
    std::vector<std::string> names;
    for (const auto &dir : board_search_dirs()) {
        std::error_code ec;
        for (const auto &entry : fs::directory_iterator(dir, ec))
            if (fs::exists(entry.path() / "board.json")) names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

BoardDesc load_board_desc(const std::string &name_or_path)
{
    fs::path file;
    const bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                                 (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json");
    if (looks_like_path) {
        file = name_or_path;
        if (!fs::is_regular_file(file)) throw BoardError("board description '" + name_or_path + "' not found");
    } else {
        for (const auto &dir : board_search_dirs()) {
            const fs::path candidate = fs::path(dir) / name_or_path / "board.json";
            if (fs::is_regular_file(candidate)) {
                file = candidate;
                break;
            }
        }
        if (file.empty()) {
            std::string known;
            for (const auto &n : known_board_names()) known += (known.empty() ? "" : ", ") + n;
            throw BoardError("unknown board '" + name_or_path + "' (known boards: " +
                             (known.empty() ? "none found" : known) + "; or give a path to a board .json)");
        }
    }
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) throw BoardError("cannot read board description '" + file.string() + "'");
    BoardDesc d = parse_board_desc(text.str(), file.string());
    return d;
}

constexpr uint64_t kMaxEmbeddedRegionBytes = 1ull << 30;

std::string embedded_board_json(const uint8_t *image, size_t size)
{
    if (!image || size < sizeof(tsr_image_header)) return "";
    tsr_image_header h;
    std::memcpy(&h, image, sizeof h);
    if (h.magic != TSR_IMAGE_MAGIC || h.section_table_offset > size ||
        uint64_t(h.section_count) * sizeof(tsr_section) > size - h.section_table_offset)
        return "";
    for (uint32_t i = 0; i < h.section_count; ++i) {
        tsr_section s;
        std::memcpy(&s, image + h.section_table_offset + i * sizeof(tsr_section), sizeof s);
        if (s.kind != TSR_SECTION_BOARD) continue;
        if (s.file_offset > size || s.size > size - s.file_offset)
            throw BoardError("the image's board description (section " + std::to_string(i) + ") lies outside the image");
        if (tsr_crc32(0, image + s.file_offset, s.size) != s.crc32)
            throw BoardError("the image's board description (section " + std::to_string(i) + ") fails its CRC-32");
        return std::string(reinterpret_cast<const char *>(image + s.file_offset), s.size);
    }
    return "";
}

BoardDesc board_for_image(const std::string &board_arg, const uint8_t *image, size_t size)
{
    if (!board_arg.empty()) return load_board_desc(board_arg);
    std::string name;
    if (image && size >= sizeof(tsr_image_header)) {
        tsr_image_header h;
        std::memcpy(&h, image, sizeof h);
        name.assign(h.board_name, strnlen(h.board_name, sizeof h.board_name));
    }
    const std::vector<std::string> known = known_board_names();
    if (std::find(known.begin(), known.end(), name) != known.end()) return load_board_desc(name);
    const std::string json = embedded_board_json(image, size);
    if (json.empty())
        throw BoardError("the image is planned for board '" + name + "', which is not a known board, and embeds no "
                         "description of it; pass --board FILE.json");
    BoardDesc d = parse_board_desc(json, "the description of board '" + name + "' embedded in the image");
    // The image is untrusted: the host board allocates what the description asks.
    uint64_t bytes = 0;
    for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r) bytes += d.region_size[r];
    if (bytes > kMaxEmbeddedRegionBytes)
        throw BoardError("the description embedded in the image asks for " + std::to_string(bytes) +
                         " bytes of L1, L2 and NMS; the host board emulates at most " +
                         std::to_string(kMaxEmbeddedRegionBytes) + " from an image (pass --board FILE.json)");
    return d;
}

} // namespace tessera
