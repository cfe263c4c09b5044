#include "tessera/pack/memory_map_svg.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace tessera {

namespace {

std::string escape(const std::string &s)
{
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

const char *colour(uint32_t kind)
{
    switch (kind) {
    case TSR_TENSOR_ACTIVATION: return "#4e79a7";
    case TSR_TENSOR_KV_CACHE: return "#e15759";
    case TSR_TENSOR_IO: return "#59a14f";
    case TSR_TENSOR_SCRATCH: return "#edc948";
    case TSR_TENSOR_STAGING: return "#f28e2b";
    case TSR_TENSOR_STEP_TABLE: return "#9c755f";
    default: return "#bab0ac";
    }
}

} // namespace

std::string memory_map_svg(const Graph &g, const MemoryPlan &plan, const std::string &title)
{
    const double width = 960, plot_w = 860, left = 80, panel_h = 320, gap = 70;
    std::vector<uint32_t> regions;
    for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r)
        if (plan.regions[r].arena_bytes) regions.push_back(r);
    const double height = 50 + regions.size() * (panel_h + gap);
    std::ostringstream svg;
    svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
        << "\" viewBox=\"0 0 " << width << ' ' << height << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
        << "<title>" << escape(title) << "</title>\n"
        << "<text x=\"" << left << "\" y=\"22\" font-size=\"14\">" << escape(title) << "</text>\n";
    const double t_scale = plot_w / std::max<uint32_t>(1, plan.timeline_length);
    double top = 50;
    for (uint32_t r : regions) {
        const RegionPlan &rp = plan.regions[r];
        const double span = double(std::max(rp.arena_bytes, rp.lower_bound));
        const double a_scale = panel_h / span;
        auto y_of = [&](double address) { return top + panel_h - address * a_scale; };
        svg << "<g id=\"" << tsr_region_name(r) << "\">\n"
            << "<text x=\"" << left << "\" y=\"" << top - 8 << "\">" << tsr_region_name(r) << ": arena "
            << rp.arena_bytes << " bytes, lower bound " << rp.lower_bound << " bytes, capacity " << rp.capacity
            << "</text>\n"
            << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << plot_w << "\" height=\"" << panel_h
            << "\" fill=\"none\" stroke=\"#333\"/>\n";
        if (rp.weights_bytes)
            svg << "<rect x=\"" << left << "\" y=\"" << y_of(double(rp.weights_bytes)) << "\" width=\"" << plot_w
                << "\" height=\"" << rp.weights_bytes * a_scale << "\" fill=\"" << colour(TSR_TENSOR_WEIGHT)
                << "\"><title>weights: 0.." << rp.weights_bytes << "</title></rect>\n";
        for (size_t i = 0; i < g.tensors.size(); ++i) {
            const GraphTensor &t = g.tensors[i];
            if (plan.region[i] != r || t.kind == TSR_TENSOR_WEIGHT) continue;
            const Lifetime &l = plan.lifetime[i];
            const double x = left + l.first * t_scale, w = std::max(1.0, (l.last - l.first + 1) * t_scale);
            const double y = y_of(double(plan.offset[i] + t.bytes)), h = std::max(0.5, double(t.bytes) * a_scale);
            svg << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << h << "\" fill=\""
                << colour(t.kind) << "\" fill-opacity=\"0.8\" stroke=\"#222\" stroke-width=\"0.3\"><title>"
                << escape(t.name) << ": " << plan.offset[i] << ".." << plan.offset[i] + t.bytes << ", moments "
                << l.first << "-" << l.last << "</title></rect>\n";
        }
        const double lb = y_of(double(rp.lower_bound));
        svg << "<line x1=\"" << left << "\" y1=\"" << lb << "\" x2=\"" << left + plot_w << "\" y2=\"" << lb
            << "\" stroke=\"#000\" stroke-dasharray=\"6 4\"><title>lower bound " << rp.lower_bound
            << " bytes</title></line>\n"
            << "<text x=\"" << left - 6 << "\" y=\"" << lb + 4 << "\" text-anchor=\"end\">bound</text>\n"
            << "<text x=\"" << left - 6 << "\" y=\"" << top + panel_h << "\" text-anchor=\"end\">0</text>\n"
            << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << top + panel_h + 16
            << "\" text-anchor=\"middle\">time (prompt steps, sample, token steps, sample)</text>\n"
            << "</g>\n";
        top += panel_h + gap;
    }
    svg << "</svg>\n";
    return svg.str();
}

} // namespace tessera
