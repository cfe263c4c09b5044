#include "tessera/board_desc.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

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
        uint32_t id = 0;
        for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r)
            if (it.key() == tsr_region_name(r)) id = r;
        if (!id) throw BoardError(source + ": unknown region '" + it.key() + "' (known: L1, L2, NMS)");
        d.region_size[id] = read_u32(regions, it.key().c_str(), source + " regions", 0, 0xFFFFFFC0u);
    }
    if (!d.region_size[TSR_REGION_L2]) throw BoardError(source + ": every board needs an L2 region");
    if (j.contains("dma")) d.dma_queue_depth = read_u32(j["dma"], "queue_depth", source + " dma", 1, 1024);
    if (j.contains("npu")) {
        d.has_npu = j["npu"].value("present", false);
        if (d.has_npu && j["npu"].contains("queue_depth"))
            d.npu_queue_depth = read_u32(j["npu"], "queue_depth", source + " npu", 1, 1024);
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

} // namespace tessera
