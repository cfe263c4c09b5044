// A timeline as a picture (tessera-generate --timeline FILE.svg): a lane per cluster
// core, the DMA engine's and the NPU's lanes, the runs (forks) above them, a time axis
// with its unit, slices coloured and labelled by operator, and a legend. Slices
// narrower than a pixel that touch the one before on their lane are drawn as one, so
// a long generation stays a picture of bounded size.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/host_board.hpp"

namespace tessera {

namespace {

constexpr double kWidth = 1400, kLabels = 120, kRight = 20, kLane = 22, kTop = 58, kAxis = 30;
constexpr double kPlot = kWidth - kLabels - kRight;

// Text for SVG: &, <, > and quotes escaped; anything outside printable ASCII as '?'.
std::string escaped(const std::string &s)
{
    std::string out;
    for (unsigned char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += (c >= 0x20 && c < 0x7F) ? char(c) : '?';
        }
    }
    return out;
}

// A colour per operator name: the names in order, each the next colour of the palette.
class Colours {
public:
    explicit Colours(const std::vector<TimelineEvent> &events)
    {
        for (const TimelineEvent &e : events) names_[e.name ? e.name : "?"];
        size_t i = 0;
        for (auto &[name, colour] : names_)
            colour = name == "copy" ? "#8c8c8c" : name == "fork" ? "#d9d9d9" : kPalette[i++ % (sizeof kPalette / sizeof *kPalette)];
    }
    const std::string &operator()(const std::string &name) const { return names_.at(name); }

private:
    static constexpr const char *kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                                               "#b07aa1", "#ff9da7", "#9c755f", "#17becf", "#bcbd22", "#7f7f7f"};
    std::map<std::string, std::string> names_;
};

// A round step for an axis spanning `span`: 1, 2 or 5 times a power of ten, about 8 ticks.
double tick_step(double span)
{
    const double raw = span / 8, p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (m * p >= raw) return m * p;
    return 10 * p;
}

// "12.5 us" for a time in ns, or "12.5 k" cycles.
std::string time_label(double t, bool cycles)
{
    char buf[32];
    if (cycles) {
        if (t >= 1e6) std::snprintf(buf, sizeof buf, "%g M", t / 1e6);
        else if (t >= 1e3) std::snprintf(buf, sizeof buf, "%g k", t / 1e3);
        else std::snprintf(buf, sizeof buf, "%g", t);
    } else if (t >= 1e9) std::snprintf(buf, sizeof buf, "%g s", t / 1e9);
    else if (t >= 1e6) std::snprintf(buf, sizeof buf, "%g ms", t / 1e6);
    else if (t >= 1e3) std::snprintf(buf, sizeof buf, "%g us", t / 1e3);
    else std::snprintf(buf, sizeof buf, "%g ns", t);
    return buf;
}

struct Lane {
    std::string name;
    std::vector<uint64_t> busy_until; // an engine's: several lanes, one per transfer in flight
};

} // namespace

std::string timeline_svg(const std::vector<TimelineEvent> &events, uint32_t cores, bool npu, const std::string &board,
                         bool cycles)
{
    for (const TimelineEvent &e : events)
        if (e.engine == TimelineEvent::Engine::kCluster && !e.cores) cores = std::max(cores, e.core + 1);
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (const TimelineEvent &e : events) t0 = std::min(t0, e.start_ns), t1 = std::max(t1, e.end_ns);
    if (events.empty()) t0 = 0, t1 = 1;
    const double span = std::max<double>(1.0, double(t1 - t0));
    auto x_of = [&](uint64_t t) { return kLabels + kPlot * double(t - t0) / span; };

    // Lanes: runs (forks), cores, then DMA and NPU lanes as many as were in flight at once.
    std::vector<std::string> lanes = {"runs"};
    for (uint32_t c = 0; c < cores; ++c) lanes.push_back("core " + std::to_string(c));
    std::vector<size_t> order(events.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return events[a].start_ns < events[b].start_ns; });
    struct EngineLanes {
        const char *name;
        std::vector<uint64_t> free_at;
        std::vector<size_t> index;
    } dma{"DMA", {}, {}}, nms{"NPU", {}, {}};
    std::vector<size_t> lane_of(events.size(), 0);
    std::vector<std::pair<EngineLanes *, size_t>> pending; // engine events, placed after the core lanes
    auto engine_lane = [&](EngineLanes &g, const TimelineEvent &e) -> size_t {
        for (size_t l = 0; l < g.free_at.size(); ++l)
            if (g.free_at[l] <= e.start_ns) {
                g.free_at[l] = e.end_ns;
                return l;
            }
        g.free_at.push_back(e.end_ns);
        return g.free_at.size() - 1;
    };
    std::vector<size_t> engine_slot(events.size(), 0);
    for (size_t i : order) {
        const TimelineEvent &e = events[i];
        if (e.engine == TimelineEvent::Engine::kDma) engine_slot[i] = engine_lane(dma, e);
        else if (e.engine == TimelineEvent::Engine::kNpu) engine_slot[i] = engine_lane(nms, e);
    }
    const size_t dma_first = lanes.size();
    const size_t dma_lanes = std::max<size_t>(1, dma.free_at.size());
    for (size_t l = 0; l < dma_lanes; ++l) lanes.push_back(l ? "DMA " + std::to_string(l + 1) : "DMA");
    const size_t npu_first = lanes.size();
    const size_t npu_lanes = npu ? std::max<size_t>(1, nms.free_at.size()) : 0;
    for (size_t l = 0; l < npu_lanes; ++l) lanes.push_back(l ? "NPU " + std::to_string(l + 1) : "NPU");
    for (size_t i = 0; i < events.size(); ++i) {
        const TimelineEvent &e = events[i];
        lane_of[i] = e.engine == TimelineEvent::Engine::kDma   ? dma_first + engine_slot[i]
                     : e.engine == TimelineEvent::Engine::kNpu ? npu_first + engine_slot[i]
                     : e.cores                                 ? 0
                                                               : 1 + e.core;
    }

    const double plot_bottom = kTop + kLane * double(lanes.size());
    std::map<std::string, uint64_t> busy; // the legend: time per operator
    const Colours colour_of(events);
    std::ostringstream s;
    s << "<text x=\"" << kLabels << "\" y=\"20\" font-size=\"15\" font-weight=\"bold\">Timeline on board " << escaped(board)
      << (cycles ? ", estimated cycles (the board's cost model)" : ", host emulation, wall clock") << "</text>\n";
    s << "<text x=\"" << kLabels << "\" y=\"38\" fill=\"#555\">" << events.size() << " slices over "
      << time_label(span, cycles) << (cycles ? " cycles" : "")
      << "; a lane per cluster core, the DMA engine and the NPU; runs (one fork each) on top</text>\n";
    // Lanes and their names.
    for (size_t l = 0; l < lanes.size(); ++l) {
        const double y = kTop + kLane * double(l);
        s << "<rect x=\"" << kLabels << "\" y=\"" << y << "\" width=\"" << kPlot << "\" height=\"" << kLane
          << "\" fill=\"" << (l % 2 ? "#f7f7f7" : "#ffffff") << "\"/>\n";
        s << "<text x=\"" << kLabels - 8 << "\" y=\"" << y + kLane * 0.7 << "\" text-anchor=\"end\">" << escaped(lanes[l])
          << "</text>\n";
    }
    // Time axis: ticks and labels in the unit of the span.
    const double step = tick_step(span);
    s << "<line x1=\"" << kLabels << "\" y1=\"" << plot_bottom << "\" x2=\"" << kLabels + kPlot << "\" y2=\"" << plot_bottom
      << "\" stroke=\"black\"/>\n";
    for (double t = 0; t <= span + 1e-9; t += step) {
        const double x = kLabels + kPlot * t / span;
        s << "<line x1=\"" << x << "\" y1=\"" << kTop << "\" x2=\"" << x << "\" y2=\"" << plot_bottom + 5
          << "\" stroke=\"#ccc\" stroke-width=\"0.5\"/>\n";
        s << "<text x=\"" << x << "\" y=\"" << plot_bottom + 17 << "\" text-anchor=\"middle\">" << time_label(t, cycles)
          << "</text>\n";
    }
    s << "<text x=\"" << kLabels + kPlot / 2 << "\" y=\"" << plot_bottom + kAxis << "\" text-anchor=\"middle\">"
      << (cycles ? "estimated cycles since the first run" : "time since the first run (host wall clock)") << "</text>\n";
    // Slices, lane by lane in time order; runs of sub-pixel slices merged.
    std::vector<std::vector<size_t>> by_lane(lanes.size());
    for (size_t i : order) by_lane[lane_of[i]].push_back(i);
    for (size_t l = 0; l < lanes.size(); ++l) {
        const double y = kTop + kLane * double(l) + 2, h = kLane - 4;
        double open_x0 = -1, open_x1 = -1;
        std::string open_colour;
        size_t merged = 0;
        auto flush = [&] {
            if (open_x0 < 0) return;
            s << "<rect x=\"" << open_x0 << "\" y=\"" << y << "\" width=\"" << std::max(0.5, open_x1 - open_x0)
              << "\" height=\"" << h << "\" fill=\"" << open_colour << "\"><title>" << merged
              << " short slices</title></rect>\n";
            open_x0 = -1;
        };
        for (size_t i : by_lane[l]) {
            const TimelineEvent &e = events[i];
            const std::string name = e.name ? e.name : "?";
            busy[name] += e.end_ns - e.start_ns;
            const double x0 = x_of(e.start_ns), x1 = x_of(e.end_ns);
            if (x1 - x0 < 1.0) { // a sliver: merged with its neighbours
                if (open_x0 >= 0 && x0 <= open_x1 + 0.5) {
                    open_x1 = std::max(open_x1, x1);
                    ++merged;
                    continue;
                }
                flush();
                open_x0 = x0, open_x1 = x1, open_colour = colour_of(name), merged = 1;
                continue;
            }
            flush();
            std::string title = name;
            if (e.engine == TimelineEvent::Engine::kDma) title += ", " + std::to_string(e.bytes) + " bytes";
            else if (e.engine == TimelineEvent::Engine::kNpu) title += ", " + std::to_string(e.bytes) + " MACs";
            else if (e.cores) title = "a run of a schedule (one fork) on " + std::to_string(e.cores) + " cores";
            else if (e.layer != 0xFFFFu) title += ", layer " + std::to_string(e.layer) + ", token " + std::to_string(e.pos);
            title += ": " + time_label(double(e.end_ns - e.start_ns), cycles) + (cycles ? " cycles" : "");
            s << "<rect x=\"" << x0 << "\" y=\"" << y << "\" width=\"" << x1 - x0 << "\" height=\"" << h << "\" fill=\""
              << colour_of(name) << (x1 - x0 > 4 ? "\" stroke=\"white\" stroke-width=\"0.3" : "") << "\"><title>" << escaped(title) << "</title></rect>\n";
            const std::string label = e.cores ? "run" : name;
            if (x1 - x0 > 6.5 * double(label.size()) + 4)
                s << "<text x=\"" << (x0 + x1) / 2 << "\" y=\"" << y + h * 0.72 << "\" text-anchor=\"middle\" fill=\""
                  << (e.cores ? "#333" : "white") << "\">" << escaped(label) << "</text>\n";
        }
        flush();
    }
    // Legend: each operator's colour and its share of the engines' busy time.
    uint64_t total = 0;
    for (const auto &b : busy)
        if (b.first != "fork") total += b.second;
    double lx = kLabels, ly = plot_bottom + kAxis + 24;
    for (const auto &[name, t] : busy) {
        if (name == "fork") continue;
        char share[32];
        std::snprintf(share, sizeof share, " %.1f %%", total ? 100.0 * double(t) / double(total) : 0.0);
        const std::string text = name + share;
        const double w = 16 + 6.5 * double(text.size()) + 14;
        if (lx + w > kWidth - kRight) lx = kLabels, ly += 18;
        s << "<rect x=\"" << lx << "\" y=\"" << ly - 10 << "\" width=\"12\" height=\"12\" fill=\"" << colour_of(name)
          << "\"/><text x=\"" << lx + 16 << "\" y=\"" << ly << "\">" << escaped(text) << "</text>\n";
        lx += w;
    }
    const double height = ly + 16;
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << height << "\" viewBox=\"0 0 "
        << kWidth << " " << height << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
    svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" << s.str() << "</svg>\n";
    return svg.str();
}

} // namespace tessera
