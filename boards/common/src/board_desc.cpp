#include "tessera/board_desc.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tessera/crc32.h"
#include "tessera/image_format.h"
#include "tessera/json_input.h"

namespace fs = std::filesystem;

namespace tessera {

namespace {

using json_input::Value;

// A description is a few hundred bytes; these limits leave room for long sources and
// stop a hostile one before the JSON library sees it (a deep nesting would exhaust the
// stack of whatever walks it recursively).
constexpr json_input::Limits kBoardJsonLimits{1u << 20, 8};

double positive(const Value &parent, const char *key) { return parent[key].as_positive(1e12); }

double nonnegative(const Value &v, double max)
{
    const double x = v.as_number();
    if (x < 0 || x > max) v.fail("expected a number from 0 to " + std::to_string(max));
    return x;
}

// The kernel set a board's cores run (cluster.kernels) as TSR_ISA_* bits.
uint32_t kernel_set_bits(const Value &v)
{
    const std::string name = v.as_string();
    for (const KernelSetName &k : kKernelSets)
        if (name == k.name) return k.isa;
    std::string known;
    for (const KernelSetName &k : kKernelSets) known += std::string(known.empty() ? "" : ", ") + k.name;
    v.fail("names kernel set '" + json_input::printable(name) + "'; there are " + known);
    return 0;
}

std::map<std::string, std::string> parse_sources(const Value &j)
{
    std::map<std::string, std::string> out;
    if (const auto sources = j.find("sources")) {
        sources->expect_object();
        for (auto it = sources->json().begin(); it != sources->json().end(); ++it)
            out[it.key()] = (*sources)[it.key().c_str()].as_string();
    }
    return out;
}

// Costs fitted to a set of runs: per_run, per_call[, per_row] and {variant: {per_call, per_mac,
// per_element, per_byte[, per_transfer]}} (the caller checks the object's keys).
FittedCoreCosts parse_fitted_costs(const Value &j)
{
    const auto per_row = j.find("per_row");
    FittedCoreCosts out{nonnegative(j["per_run"], 1e12), nonnegative(j["per_call"], 1e9),
                        per_row ? nonnegative(*per_row, 1e9) : 0.0, {}};
    const Value variants = j["variants"];
    variants.expect_object();
    for (auto v = variants.json().begin(); v != variants.json().end(); ++v) {
        const Value row = variants[v.key().c_str()];
        row.only_keys({"per_call", "per_mac", "per_element", "per_byte", "per_transfer"});
        const auto per_transfer = row.find("per_transfer");
        out.variants[v.key()] = {nonnegative(row["per_call"], 1e12), nonnegative(row["per_mac"], 1e6),
                                 nonnegative(row["per_element"], 1e9), nonnegative(row["per_byte"], 1e6),
                                 per_transfer ? nonnegative(*per_transfer, 1e9) : 0.0};
    }
    return out;
}

// "fitted": per kernel set, its unit and source, its costs over every run, and by core count.
std::map<std::string, FittedCosts> parse_fitted(const Value &j)
{
    j.expect_object();
    std::map<std::string, FittedCosts> out;
    for (auto it = j.json().begin(); it != j.json().end(); ++it) {
        const Value set = j[it.key().c_str()];
        bool known = false;
        for (const KernelSetName &k : kKernelSets) known = known || it.key() == k.name;
        if (!known) set.fail("is not a kernel set");
        set.only_keys({"unit", "source", "per_run", "per_call", "per_row", "variants", "by_cores"});
        FittedCosts f;
        f.unit = set["unit"].as_string();
        if (f.unit != "cycles" && f.unit != "instructions") set["unit"].fail("must be \"cycles\" or \"instructions\"");
        f.source = set["source"].as_string();
        f.all = parse_fitted_costs(set);
        if (const auto by_cores = set.find("by_cores")) {
            by_cores->expect_object();
            for (auto c = by_cores->json().begin(); c != by_cores->json().end(); ++c) {
                const Value entry = (*by_cores)[c.key().c_str()];
                const std::string &key = c.key();
                if (key.empty() || key.size() > 4 || key.find_first_not_of("0123456789") != std::string::npos ||
                    std::stoul(key) == 0)
                    entry.fail("is not a core count (1 to 9999)");
                entry.only_keys({"per_run", "per_call", "per_row", "variants"});
                f.by_cores[uint32_t(std::stoul(key))] = parse_fitted_costs(entry);
            }
        }
        out[it.key()] = std::move(f);
    }
    return out;
}

// The "cost" object: every figure required, each with its source.
BoardCost parse_cost(const Value &j, bool has_npu, double board_clock_hz)
{
    j.only_keys({"clock_mhz", "cluster_macs_per_cycle_per_core", "cluster_cycles_per_element", "npu_macs_per_cycle",
                 "dma_bytes_per_cycle", "nms_bytes_per_cycle", "setup_cycles", "power_mw", "sources", "fitted"});
    BoardCost c;
    c.clock_hz = board_clock_hz > 0 && !j.has("clock_mhz") ? board_clock_hz : positive(j, "clock_mhz") * 1e6;
    const Value macs = j["cluster_macs_per_cycle_per_core"];
    macs.only_keys({"fp32", "bf16", "int8"});
    const char *precisions[3] = {"fp32", "bf16", "int8"};
    for (int i = 0; i < 3; ++i) c.cluster_macs_per_cycle[i] = positive(macs, precisions[i]);
    c.cluster_cycles_per_element = positive(j, "cluster_cycles_per_element");
    if (has_npu) {
        const Value npu = j["npu_macs_per_cycle"];
        npu.only_keys({"8bit", "4bit"});
        c.npu_macs_per_cycle_8bit = positive(npu, "8bit");
        c.npu_macs_per_cycle_4bit = positive(npu, "4bit");
        c.nms_bytes_per_cycle = positive(j, "nms_bytes_per_cycle");
    }
    c.dma_bytes_per_cycle = positive(j, "dma_bytes_per_cycle");
    const Value setup = j["setup_cycles"];
    setup.only_keys({"fork", "barrier", "dma_transfer", "npu_job"});
    c.fork_cycles = positive(setup, "fork");
    c.barrier_cycles = positive(setup, "barrier");
    c.dma_transfer_cycles = positive(setup, "dma_transfer");
    if (has_npu) c.npu_job_cycles = positive(setup, "npu_job");
    const Value power = j["power_mw"];
    power.only_keys({"cluster", "npu", "dma", "idle"});
    c.cluster_mw = positive(power, "cluster");
    c.dma_mw = positive(power, "dma");
    c.idle_mw = positive(power, "idle");
    if (has_npu) c.npu_mw = positive(power, "npu");
    c.sources = parse_sources(j);
    if (const auto fitted = j.find("fitted")) c.fitted = parse_fitted(*fitted);
    return c;
}

// The "memory" object of a cycle-true board: its L1 banks, latencies and DMA.
BoardMemory parse_memory(const Value &j)
{
    j.only_keys({"l1_banks", "l1_latency_cycles", "l1_stack_bytes", "l2_latency_cycles", "dma_bytes_per_cycle",
                 "dma_setup_cycles", "sources"});
    BoardMemory m;
    m.l1_banks = uint32_t(j["l1_banks"].as_uint(1, 1024));
    if (m.l1_banks & (m.l1_banks - 1u)) j["l1_banks"].fail("must be a power of two");
    m.l1_latency_cycles = uint32_t(j["l1_latency_cycles"].as_uint(1, 1000));
    m.l2_latency_cycles = uint32_t(j["l2_latency_cycles"].as_uint(1, 100000));
    const Value stacks = j["l1_stack_bytes"];
    stacks.only_keys({"core0", "other"});
    m.l1_stack_bytes_core0 = uint32_t(stacks["core0"].as_uint(256, 1u << 20));
    m.l1_stack_bytes_other = uint32_t(stacks["other"].as_uint(256, 1u << 20));
    m.dma_bytes_per_cycle = uint32_t(j["dma_bytes_per_cycle"].as_uint(1, 1024));
    m.dma_setup_cycles = uint32_t(j["dma_setup_cycles"].as_uint(0, 100000));
    m.sources = parse_sources(j);
    return m;
}

// "offchip": kind, bytes, mb_per_s, latency_ns, cores_read, sources.
BoardOffChip parse_offchip(const Value &j)
{
    j.only_keys({"kind", "bytes", "mb_per_s", "latency_ns", "cores_read", "sources"});
    BoardOffChip o;
    o.kind = j["kind"].as_string();
    if (std::none_of(std::begin(kOffChipKinds), std::end(kOffChipKinds), [&](const char *k) { return o.kind == k; })) {
        std::string known;
        for (const char *k : kOffChipKinds) known += std::string(known.empty() ? "" : ", ") + k;
        j["kind"].fail("names memory kind '" + o.kind + "'; there are " + known);
    }
    o.bytes = uint32_t(j["bytes"].as_uint(1, 0xFFFFFFC0u));
    o.bytes_per_second = j["mb_per_s"].as_positive(1e6) * 1e6;
    o.latency_ns = nonnegative(j["latency_ns"], 1e6);
    o.cores_read = j["cores_read"].as_bool();
    o.sources = parse_sources(j);
    return o;
}

BoardDesc parse_checked(const nlohmann::json &parsed, const std::string &source)
{
    const Value j(parsed, source);
    j.expect_object();
    j.only_keys({"$schema", "name", "description", "cluster", "regions", "offchip", "dma", "npu", "clock_mhz", "cost",
                 "memory"});
    BoardDesc d;
    d.source = source;
    d.name = j["name"].as_string();
    if (d.name.empty() || d.name.size() >= 32) j["name"].fail("must be a string of 1..31 characters");
    for (char c : d.name)
        if (c <= ' ' || c >= 0x7F) j["name"].fail("must be printable characters without spaces");
    if (const auto description = j.find("description")) d.description = description->as_string();
    const Value cluster = j["cluster"];
    cluster.only_keys({"cores", "kernels"});
    d.cores = uint32_t(cluster["cores"].as_uint(1, 64));
    if (const auto kernels = cluster.find("kernels")) d.isa = kernel_set_bits(*kernels);
    const Value regions = j["regions"];
    regions.only_keys({"flash", "L1", "L2", "NMS"});
    for (auto it = regions.json().begin(); it != regions.json().end(); ++it) {
        uint32_t id = TSR_REGION_IMAGE; // flash: the image's
        for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r)
            if (it.key() == tsr_region_name(r)) id = r;
        d.region_size[id] = uint32_t(regions[it.key().c_str()].as_uint(0, 0xFFFFFFC0u));
    }
    if (!d.region_size[TSR_REGION_L2]) regions.fail("every board needs an L2 region above 0 bytes");
    if (const auto offchip = j.find("offchip")) {
        if (regions.find("flash")) regions["flash"].fail("and offchip both give the image's memory: keep offchip.bytes");
        d.offchip = parse_offchip(*offchip);
        d.region_size[TSR_REGION_IMAGE] = d.offchip.bytes;
    }
    if (const auto dma = j.find("dma")) {
        dma->only_keys({"queue_depth", "by_core"});
        if (const auto depth = dma->find("queue_depth")) d.dma_queue_depth = uint32_t(depth->as_uint(1, 1024));
        if (const auto by_core = dma->find("by_core")) d.dma_by_core = by_core->as_bool();
    }
    if (const auto npu = j.find("npu")) {
        npu->only_keys({"present", "queue_depth"});
        if (const auto present = npu->find("present")) d.has_npu = present->as_bool();
        if (const auto depth = npu->find("queue_depth")) d.npu_queue_depth = uint32_t(depth->as_uint(1, 1024));
    }
    if (const auto clock = j.find("clock_mhz")) d.clock_hz = clock->as_positive(1e6) * 1e6;
    if (const auto cost = j.find("cost")) {
        cost->expect_object();
        d.cost = parse_cost(*cost, d.has_npu, d.clock_hz);
        if (!d.clock_hz) d.clock_hz = d.cost.clock_hz;
    }
    if (const auto memory = j.find("memory")) {
        memory->expect_object();
        d.memory = parse_memory(*memory);
    }
    // What an image embeds: compact JSON, made only now that the description is known
    // to be a few levels deep with every key one of the schema's.
    d.json = parsed.dump();
    return d;
}

} // namespace

BoardDesc parse_board_desc(const std::string &json_text, const std::string &source)
{
    try {
        return parse_checked(json_input::parse(json_text, source, kBoardJsonLimits), source);
    } catch (const json_input::Error &e) {
        throw BoardError(e.what());
    }
}

std::vector<std::string> board_search_dirs()
{
    std::vector<std::string> dirs;
    if (const char *env = std::getenv("TESSERA_BOARDS_DIR")) { // one folder or several, ':' between
        std::string list = env;
        for (size_t start = 0, end; start <= list.size(); start = end + 1) {
            end = std::min(list.find(':', start), list.size());
            if (end > start) dirs.push_back(list.substr(start, end - start));
        }
    }
    // An installed tool's own: PREFIX/bin/tool finds PREFIX/share/tessera/boards, wherever
    // the prefix was installed or moved to.
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) dirs.push_back((exe.parent_path().parent_path() / "share" / "tessera" / "boards").string());
#ifdef TESSERA_BOARDS_INSTALL_DIR
    dirs.emplace_back(TESSERA_BOARDS_INSTALL_DIR);
#endif
#ifdef TESSERA_BOARDS_SOURCE_DIR
    dirs.emplace_back(TESSERA_BOARDS_SOURCE_DIR);
#endif
    return dirs;
}

std::string known_boards_text()
{
    std::string known;
    for (const auto &n : known_board_names()) known += (known.empty() ? "" : ", ") + n;
    return known.empty() ? "none found" : known;
}

std::vector<std::string> known_board_names()
{
    std::vector<std::string> names;
    for (const auto &dir : board_search_dirs()) {
        std::error_code ec;
        for (const auto &entry : fs::directory_iterator(dir, ec))
            if (fs::is_regular_file(entry.path() / "board.json", ec)) names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

namespace {

bool looks_like_path(const std::string &s)
{
    return s.find('/') != std::string::npos || (s.size() > 5 && s.substr(s.size() - 5) == ".json");
}

// Levenshtein distance, for "did you mean".
size_t edit_distance(const std::string &a, const std::string &b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

} // namespace

std::string unknown_board(const std::string &name)
{
    if (looks_like_path(name)) return "";
    const std::vector<std::string> known = known_board_names();
    if (std::find(known.begin(), known.end(), name) != known.end()) return "";
    std::string closest;
    size_t best = std::max<size_t>(2, name.size() / 3) + 1;
    for (const std::string &k : known)
        if (const size_t d = edit_distance(name, k); d < best) best = d, closest = k;
    return "unknown board '" + name + "' (" + (closest.empty() ? "" : "did you mean " + closest + "? ") +
           "known boards: " + known_boards_text() + "; or give a path to a board .json)";
}

BoardDesc load_board_desc(const std::string &name_or_path)
{
    fs::path file;
    if (looks_like_path(name_or_path)) {
        file = name_or_path;
        std::error_code ec;
        if (!fs::exists(file, ec) && !ec) throw BoardError("board description '" + name_or_path + "' not found");
    } else {
        for (const auto &dir : board_search_dirs()) {
            const fs::path candidate = fs::path(dir) / name_or_path / "board.json";
            std::error_code ec;
            if (fs::is_regular_file(candidate, ec)) {
                file = candidate;
                break;
            }
        }
        if (file.empty()) throw BoardError(unknown_board(name_or_path));
    }
    std::string text;
    try {
        text = json_input::read_file(file.string(), kBoardJsonLimits.max_bytes, "board description");
    } catch (const json_input::Error &e) {
        throw BoardError(e.what());
    }
    return parse_board_desc(text, file.string());
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
