#include "predict.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "tessera/image_format.h" // TSR_NO_LAYER
#include "tessera/pack/cost_model.h"

namespace tessera {

namespace {

uint32_t number(const std::string &text, const std::string &whole)
{
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("--predict '" + whole + "': '" + text + "' is not a count or position");
    return uint32_t(std::stoul(text));
}

} // namespace

PredictRun parse_predict_run(const std::string &text)
{
    PredictRun r;
    const size_t colon = text.find(':');
    const std::string kind = text.substr(0, colon), rest = colon == std::string::npos ? "" : text.substr(colon + 1);
    if (kind == "token") {
        const size_t dash = rest.find('-');
        r.first = number(rest.substr(0, dash), text);
        r.last = dash == std::string::npos ? r.first : number(rest.substr(dash + 1), text);
        if (r.last < r.first) throw std::invalid_argument("--predict '" + text + "': the last position is before the first");
    } else if (kind == "rows") {
        const size_t at = rest.find('@');
        r.tokens = false;
        r.rows = number(rest.substr(0, at), text);
        r.pos = at == std::string::npos ? 0 : number(rest.substr(at + 1), text);
        if (r.rows == 0) throw std::invalid_argument("--predict '" + text + "': no rows");
    } else {
        throw std::invalid_argument("--predict '" + text + "': expected token:FIRST-LAST or rows:COUNT@POSITION");
    }
    return r;
}

nlohmann::json predict(const uint8_t *image, size_t size, const BoardDesc &board, const PredictRun &run,
                       uint32_t cores, const std::string &kernel_set)
{
    std::vector<RunEstimate> runs;
    if (run.tokens) {
        for (uint32_t p = run.first; p <= run.last; ++p)
            runs.push_back(estimate_run(image, size, board, p == 0, 1, p, nullptr, cores, kernel_set));
    } else {
        runs.push_back(estimate_run(image, size, board, run.rows > 1, run.rows, run.pos, nullptr, cores, kernel_set));
    }
    const double n = double(runs.size());
    nlohmann::json variants = nlohmann::json::object();
    std::map<uint32_t, RunEstimate::LayerStream> stream; // averaged over the runs
    double total = 0;
    for (const RunEstimate &r : runs) {
        total += r.cycles / n;
        for (const auto &[layer, ls] : r.layer_stream) {
            stream[layer].offchip += ls.offchip / n;
            stream[layer].compute += ls.compute / n;
            stream[layer].exposed += ls.exposed / n;
        }
        for (const auto &[name, w] : r.variants) {
            nlohmann::json &v = variants[name];
            for (const char *key : {"calls", "macs", "elements", "bytes", "transfers", "cost"})
                if (!v.contains(key)) v[key] = 0.0;
            v["calls"] = v["calls"].get<double>() + w.calls / n;
            v["macs"] = v["macs"].get<double>() + w.macs / n;
            v["elements"] = v["elements"].get<double>() + w.elements / n;
            v["bytes"] = v["bytes"].get<double>() + w.bytes / n;
            v["transfers"] = v["transfers"].get<double>() + w.transfers / n;
            v["cost"] = v["cost"].get<double>() + w.cost / n;
            v["fitted"] = w.fitted;
        }
    }
    const RunEstimate &first = runs.front();
    nlohmann::json layers = nlohmann::json::array();
    for (const auto &[layer, ls] : stream)
        layers.push_back(nlohmann::json{{"layer", layer == TSR_NO_LAYER ? nlohmann::json(nullptr) : nlohmann::json(layer)},
                          {"offchip", std::round(ls.offchip)},
                          {"compute", std::round(ls.compute)},
                          {"exposed", std::round(ls.exposed)}});
    return {{"unit", first.unit},
            {"predicted", std::round(total)},
            {"per_run", first.fitted ? first.fitted->for_cores(first.cores).per_run : 0.0},
            {"fitted_source", first.fitted ? first.fitted->source : "none: the board's per-precision rates"},
            {"variants", variants},
            {"offchip_by_layer", layers}};
}

std::string predict_lines(const nlohmann::json &p)
{
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "PREDICTED %s per run: %.0f\n", p["unit"].get<std::string>().c_str(),
                  p["predicted"].get<double>());
    out += line;
    out += "  costs: " + p["fitted_source"].get<std::string>() + "\n";
    for (const auto &[name, v] : p["variants"].items()) {
        std::snprintf(line, sizeof line,
                      "  %-26s %10.0f %s (%s): %8.1f calls, %11.1f MACs, %10.1f elements a core, %10.0f DMA bytes\n",
                      name.c_str(), v["cost"].get<double>(), p["unit"].get<std::string>().c_str(),
                      v["fitted"].get<bool>() ? "fitted" : "rates", v["calls"].get<double>(), v["macs"].get<double>(),
                      v["elements"].get<double>(), v["bytes"].get<double>());
        out += line;
    }
    // The off-chip stream by layer: how much of it the steps' own work hides.
    for (const auto &l : p["offchip_by_layer"]) {
        const double off = l["offchip"].get<double>(), exposed = l["exposed"].get<double>();
        const std::string name = l["layer"].is_null() ? "outside the layers" : "layer " + std::to_string(l["layer"].get<uint32_t>());
        std::snprintf(line, sizeof line,
                      "  off-chip %-18s stream %10.0f, its steps %10.0f %s: %s\n", name.c_str(), off,
                      l["compute"].get<double>(), p["unit"].get<std::string>().c_str(),
                      exposed < 0.5 ? "hidden" : ("exposed " + std::to_string(int64_t(exposed + 0.5)) + " (" +
                                                   std::to_string(int(100.0 * (off - exposed) / off + 0.5)) + " % hidden)")
                                                      .c_str());
        out += line;
    }
    return out;
}

} // namespace tessera
