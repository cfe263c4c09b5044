#include "tessera/pack/memory_map_svg.h"

#include <algorithm>
#include <cmath>
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

const char *kind_label(uint32_t kind)
{
    switch (kind) {
    case TSR_TENSOR_WEIGHT: return "weights";
    case TSR_TENSOR_ACTIVATION: return "activation";
    case TSR_TENSOR_KV_CACHE: return "KV cache";
    case TSR_TENSOR_IO: return "input/output";
    case TSR_TENSOR_SCRATCH: return "scratch";
    case TSR_TENSOR_STAGING: return "staging (DMA)";
    case TSR_TENSOR_STEP_TABLE: return "step table";
    default: return "other";
    }
}

// A round step for about `n` ticks over [0, span]: 1, 2 or 5 times a power of two
// of bytes at or above 64 (addresses are read in bytes, KiB, MiB).
double tick_step(double span, int n)
{
    double step = 64;
    while (span / step > n) {
        if (span / (step * 2) <= n) return step * 2;
        if (span / (step * 4) <= n) return step * 4;
        step *= 8;
    }
    return step;
}

std::string bytes_label(double b)
{
    char out[32];
    if (b >= 1048576 && std::fmod(b, 1048576) == 0) std::snprintf(out, sizeof out, "%.0f MiB", b / 1048576);
    else if (b >= 1048576) std::snprintf(out, sizeof out, "%.2f MiB", b / 1048576);
    else if (b >= 1024 && std::fmod(b, 1024) == 0) std::snprintf(out, sizeof out, "%.0f KiB", b / 1024);
    else if (b >= 1024) std::snprintf(out, sizeof out, "%.1f KiB", b / 1024);
    else std::snprintf(out, sizeof out, "%.0f B", b);
    return out;
}

} // namespace

std::string memory_map_svg(const Graph &g, const MemoryPlan &plan, const std::string &title)
{
    const double width = 1000, plot_w = 840, left = 90, panel_h = 320, gap = 80, legend_h = 24;
    std::vector<uint32_t> regions;
    for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r)
        if (plan.regions[r].arena_bytes) regions.push_back(r);
    const double height = 50 + legend_h + regions.size() * (panel_h + gap);
    std::ostringstream svg;
    svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
        << "\" viewBox=\"0 0 " << width << ' ' << height << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
        << "<title>" << escape(title) << "</title>\n"
        << "<rect width=\"" << width << "\" height=\"" << height << "\" fill=\"#fff\"/>\n"
        << "<text x=\"" << left << "\" y=\"22\" font-size=\"14\">" << escape(title) << "</text>\n";
    // The legend: a swatch per kind of buffer, and the lines.
    svg << "<g id=\"legend\">\n";
    double lx = left;
    for (uint32_t kind : {uint32_t(TSR_TENSOR_WEIGHT), uint32_t(TSR_TENSOR_ACTIVATION), uint32_t(TSR_TENSOR_KV_CACHE),
                          uint32_t(TSR_TENSOR_IO), uint32_t(TSR_TENSOR_SCRATCH), uint32_t(TSR_TENSOR_STAGING),
                          uint32_t(TSR_TENSOR_STEP_TABLE)}) {
        svg << "<rect x=\"" << lx << "\" y=\"34\" width=\"12\" height=\"12\" fill=\"" << colour(kind)
            << "\" stroke=\"#222\" stroke-width=\"0.3\"/><text x=\"" << lx + 16 << "\" y=\"44\">" << kind_label(kind)
            << "</text>\n";
        lx += 22 + 6.2 * double(std::string(kind_label(kind)).size());
    }
    svg << "<line x1=\"" << lx << "\" y1=\"40\" x2=\"" << lx + 24 << "\" y2=\"40\" stroke=\"#000\" stroke-dasharray=\"6 4\"/>"
        << "<text x=\"" << lx + 28 << "\" y=\"44\">lower bound</text>\n";
    lx += 110;
    svg << "<line x1=\"" << lx << "\" y1=\"40\" x2=\"" << lx + 24 << "\" y2=\"40\" stroke=\"#c00\" stroke-width=\"2\"/>"
        << "<text x=\"" << lx + 28 << "\" y=\"44\">capacity</text>\n</g>\n";
    const double t_scale = plot_w / std::max<uint32_t>(1, plan.timeline_length);
    double top = 50 + legend_h + 20;
    for (uint32_t r : regions) {
        const RegionPlan &rp = plan.regions[r];
        const double used = double(std::max(rp.arena_bytes, rp.lower_bound));
        // The capacity line is drawn when it is near enough to the plan to share the scale.
        const bool capacity_shown = rp.capacity && double(rp.capacity) <= 1.5 * used;
        const double span = capacity_shown ? std::max(used, double(rp.capacity)) * 1.02 : used * 1.02;
        const double a_scale = panel_h / span;
        auto y_of = [&](double address) { return top + panel_h - address * a_scale; };
        svg << "<g id=\"" << tsr_region_name(r) << "\">\n"
            << "<text x=\"" << left << "\" y=\"" << top - 8 << "\" font-weight=\"bold\">" << tsr_region_name(r)
            << "</text><text x=\"" << left + 34 << "\" y=\"" << top - 8 << "\">arena " << rp.arena_bytes
            << " bytes, lower bound " << rp.lower_bound << " bytes, capacity " << rp.capacity << " bytes"
            << (capacity_shown ? "" : " (above the chart)") << "</text>\n"
            << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << plot_w << "\" height=\"" << panel_h
            << "\" fill=\"none\" stroke=\"#333\"/>\n";
        // Byte ticks on the address axis.
        const double step = tick_step(span, 6);
        for (double a = 0; a <= span; a += step)
            svg << "<line x1=\"" << left - 4 << "\" y1=\"" << y_of(a) << "\" x2=\"" << left << "\" y2=\"" << y_of(a)
                << "\" stroke=\"#333\"/><line x1=\"" << left << "\" y1=\"" << y_of(a) << "\" x2=\"" << left + plot_w
                << "\" y2=\"" << y_of(a) << "\" stroke=\"#ddd\" stroke-width=\"0.5\"/><text x=\"" << left - 6 << "\" y=\""
                << y_of(a) + 4 << "\" text-anchor=\"end\">" << bytes_label(a) << "</text>\n";
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
            << "<text x=\"" << left + plot_w + 4 << "\" y=\"" << lb + 4 << "\">bound</text>\n";
        if (capacity_shown) {
            const double cy = y_of(double(rp.capacity));
            svg << "<line x1=\"" << left << "\" y1=\"" << cy << "\" x2=\"" << left + plot_w << "\" y2=\"" << cy
                << "\" stroke=\"#c00\" stroke-width=\"2\"><title>capacity " << rp.capacity << " bytes</title></line>\n"
                << "<text x=\"" << left + plot_w + 4 << "\" y=\"" << cy + 4 << "\" fill=\"#c00\">capacity</text>\n";
        }
        // Where the prompt schedule (and its sampling) ends and the token schedule begins.
        const double bx = left + plan.schedule_window[1][0] * t_scale;
        svg << "<line x1=\"" << bx << "\" y1=\"" << top << "\" x2=\"" << bx << "\" y2=\"" << top + panel_h
            << "\" stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>\n"
            << "<text x=\"" << (left + bx) / 2 << "\" y=\"" << top + panel_h + 16 << "\" text-anchor=\"middle\">prompt schedule"
            << "</text><text x=\"" << (bx + left + plot_w) / 2 << "\" y=\"" << top + panel_h + 16
            << "\" text-anchor=\"middle\">token schedule</text>\n"
            << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << top + panel_h + 32
            << "\" text-anchor=\"middle\" fill=\"#555\">time: each schedule's steps, then the sampling after it</text>\n"
            << "</g>\n";
        top += panel_h + gap;
    }
    svg << "</svg>\n";
    return svg.str();
}

} // namespace tessera
