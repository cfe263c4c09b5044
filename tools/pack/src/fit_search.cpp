#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>

#include "tessera/board_desc.h"
#include "tessera/pack/packer.h"
#include "tessera/tools/progress.h"

namespace tessera {

namespace {

// Trial plans of one model under changed options (a dry run's search).
class FitSearch {
public:
    FitSearch(LoadedModel &model, const BoardDesc &board, bool progress)
        : model_(model), board_(board), progress_(progress)
    {
    }

    // The plan into `r`, or false and why not. An option a trial's model refuses (a
    // context below what the graph needs) is an InputError, which only `strict` passes on.
    bool trial(const PackOptions &o, PackResult &r, std::string *why, const BoardDesc *board = nullptr,
               bool strict = false)
    {
        try {
            plan_model(model_, o, board ? *board : board_, true, r);
            return true;
        } catch (const PlanError &e) {
            if (why) *why = e.what();
            return false;
        } catch (const InputError &e) {
            if (strict) throw;
            if (why) *why = e.what();
            return false;
        }
    }

    // The largest context in [1, below] that fits (0: none); assumes that a context that
    // fits fits with fewer positions too (the KV cache and the prompt rows only shrink).
    uint32_t largest_context(const PackOptions &o, uint32_t below)
    {
        uint32_t lo = 0, hi = below; // lo fits (or 0), hi + 1 does not
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo + 1) / 2;
            PackResult r;
            if (trial(at_context(o, mid), r, nullptr)) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    }

    // Smaller types than `o`'s, in the order they give up accuracy; each at the
    // requested context, or else with the largest context that fits.
    std::vector<FitAlternative> alternatives(const PackOptions &o, uint32_t context)
    {
        struct Change {
            std::string flags;
            PackOptions options;
        };
        std::vector<Change> changes;
        auto add = [&](const std::string &flags, PackOptions c) {
            if (c.precision == o.precision && c.weight_type == o.weight_type && c.npu_weight_bits == o.npu_weight_bits &&
                c.scenario == o.scenario && c.shared_table_bits == o.shared_table_bits)
                return;
            changes.push_back({flags, c});
        };
        auto with = [&](Precision precision, WeightType weight_type) {
            PackOptions c = o;
            c.precision = precision;
            c.weight_type = weight_type;
            c.calibration.clear();
            if (c.precision != Precision::kInt8) c.npu_weight_bits = 8, c.shared_table_bits = 0;
            if (weight_type == WeightType::kInt4 && (c.scenario == Scenario::kNpu || c.scenario == Scenario::kNpuNms))
                c.scenario = Scenario::kAuto, c.npu_weight_bits = 8; // W4A8 is the cluster's
            return c;
        };
        const int rank = o.precision == Precision::kFp32 ? (o.weight_type == WeightType::kFp32 ? 0 : 1)
                         : o.precision == Precision::kBf16 ? 2
                         : o.weight_type == WeightType::kInt4 ? 4
                                                              : 3;
        // int8's table shared with a classifier that is the embedding: 8 bits, then 4.
        const bool tied = model_.description().hyper.shared_classifier;
        auto shared = [&](PackOptions c, uint32_t bits) {
            c.shared_table_bits = std::max(c.shared_table_bits, bits);
            return c;
        };
        const std::string w4 = "--precision int8 --weight-type int4";
        if (rank < 1) add("--weight-type bf16", with(Precision::kFp32, WeightType::kBf16));
        if (rank < 2) add("--precision bf16", with(Precision::kBf16, WeightType::kFp32));
        if (rank < 3) add("--precision int8", with(Precision::kInt8, WeightType::kFp32));
        if (rank < 4 && tied) add("--precision int8 --tied-embedding shared", shared(with(Precision::kInt8, WeightType::kFp32), 8));
        if (rank < 4) add(w4, with(Precision::kInt8, WeightType::kInt4));
        if (tied) add(w4 + " --tied-embedding shared", shared(with(Precision::kInt8, WeightType::kInt4), 8));
        if (tied) add(w4 + " --tied-embedding shared-int4", shared(with(Precision::kInt8, WeightType::kInt4), 4));
        if (board_.has_npu && o.npu_weight_bits == 8) {
            PackOptions c = with(Precision::kInt8, WeightType::kFp32);
            c.scenario = Scenario::kNpuNms;
            c.npu_weight_bits = 4;
            add("--precision int8 --scenario npu-nms --npu-weight-bits 4", c);
        }
        std::vector<FitAlternative> out;
        for (const Change &c : changes) {
            FitAlternative a;
            a.flags = c.flags;
            PackResult r;
            if (trial(c.options, r, nullptr)) {
                a.context = context;
                a.image_bytes = r.image_bytes;
            } else {
                a.context = context > 1 ? largest_context(c.options, context - 1) : 0;
            }
            out.push_back(a);
        }
        return out;
    }

    // A model of fixed precision: every known board, and each scenario it offers, at its
    // own L1 and, where it fits, the smallest L1 it fits at (to 64 bytes).
    std::vector<BoardFit> boards(const PackOptions &o)
    {
        struct Case {
            BoardDesc board;
            Scenario scenario;
        };
        std::vector<Case> cases;
        const bool int8 = model_.description().fixed_precision == "int8";
        for (const std::string &name : known_board_names()) {
            BoardDesc d;
            try {
                d = load_board_desc(name);
            } catch (const Error &) {
                continue; // --list-boards names it as unusable
            }
            for (const OptionName<Scenario> &s : kScenarioNames) {
                const bool npu = s.value == Scenario::kNpu || s.value == Scenario::kNpuNms;
                if (npu && (!d.has_npu || !int8)) continue;
                if (s.value == Scenario::kCluster && d.cores == 1) continue;
                cases.push_back({d, s.value});
            }
        }
        std::vector<BoardFit> out;
        ProgressLine progress("trying boards", "board and scenario cases", progress_);
        for (const Case &c : cases) {
            progress.update(out.size(), cases.size());
            BoardFit f;
            f.board = c.board.name;
            f.scenario = name_of(c.scenario);
            f.l1 = c.board.region_size[TSR_REGION_L1];
            PackOptions t = o;
            t.scenario = c.scenario;
            t.l1_bytes = 0;
            PackResult r;
            f.fits = trial(t, r, &f.reason, &c.board);
            if (f.fits) {
                uint32_t lo = 63, hi = f.l1; // lo does not fit (below --l1's least), hi does
                while (hi - lo > 64) {
                    const uint32_t mid = lo + (hi - lo) / 2;
                    t.l1_bytes = mid;
                    PackResult rr;
                    if (trial(t, rr, nullptr, &c.board)) hi = mid;
                    else lo = mid;
                }
                f.smallest_l1 = hi;
            }
            out.push_back(f);
        }
        return out;
    }

private:
    static PackOptions at_context(PackOptions o, uint32_t context)
    {
        o.context = context;
        if (o.prompt_chunk > context) o.prompt_chunk = context;
        return o;
    }

    LoadedModel &model_;
    const BoardDesc &board_;
    bool progress_;
};

} // namespace

FitReport what_fits(const PackOptions &requested)
{
    const auto t0 = std::chrono::steady_clock::now();
    const BoardDesc board = load_board_desc(requested.board);
    std::unique_ptr<LoadedModel> model = read_model(requested);
    model->check_options(requested); // the command line's own errors first
    const bool fixed = !model->description().fixed_precision.empty();
    FitReport f;
    f.context = requested.context ? requested.context : model->default_context();
    FitSearch search(*model, board, requested.progress);
    const PackOptions &o = requested; // its context 0: the model's own (the summary says which)
    f.fits = search.trial(o, f.result, &f.reason, nullptr, true);
    if (!f.fits) {
        f.largest_context = f.context > 1 ? search.largest_context(o, f.context - 1) : 0;
        if (!fixed) f.alternatives = search.alternatives(o, f.context);
    }
    if (fixed) f.boards = search.boards(o);
    release_weights(f.result);
    f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    f.result.seconds = f.seconds;
    return f;
}

namespace {

std::string boards_summary(const FitReport &f)
{
    if (f.boards.empty()) return "";
    std::ostringstream s;
    s << "boards    where this " << f.result.model.fixed_precision << " graph fits at context " << f.context
      << " (each known board and scenario; --board NAME --scenario S, --l1 BYTES for a smaller L1):\n";
    for (const BoardFit &b : f.boards) {
        char line[160];
        if (b.fits)
            std::snprintf(line, sizeof line, "  %-16s %-12s fits; L1 from %u bytes (the board's: %u)\n", b.board.c_str(),
                          b.scenario.c_str(), b.smallest_l1, b.l1);
        else
            std::snprintf(line, sizeof line, "  %-16s %-12s does not fit: ", b.board.c_str(), b.scenario.c_str());
        s << line;
        if (!b.fits) s << b.reason << "\n";
    }
    return s.str();
}

} // namespace

std::string fit_summary(const FitReport &f)
{
    std::ostringstream s;
    if (f.fits) {
        s << pack_summary(f.result);
        s << boards_summary(f);
        s << "dry run   fits; no file written\n";
        return s.str();
    }
    s << "dry run   does not fit at context " << f.context << ": " << f.reason << "\n";
    if (f.largest_context)
        s << "context   the largest that fits: " << f.largest_context << " (--context " << f.largest_context << ")\n";
    else if (f.reason.rfind("the image is", 0) == 0)
        s << "context   no context helps: the image (the weights, not the KV cache) is what does not fit\n";
    else
        s << "context   none fits, not even 1 position\n";
    for (const FitAlternative &a : f.alternatives) {
        s << "type      " << a.flags << ": ";
        if (a.context == f.context)
            s << "fits at context " << f.context << " (image " << a.image_bytes << " bytes)\n";
        else if (a.context)
            s << "fits up to context " << a.context << " (--context " << a.context << ")\n";
        else
            s << "does not fit either\n";
    }
    s << boards_summary(f);
    s << "no file written (" << static_cast<int>(f.seconds * 1000) << " ms)\n";
    return s.str();
}

nlohmann::json fit_report_json(const FitReport &f)
{
    using nlohmann::json;
    json j = {{"format", "tessera-pack-dry-run/1"}, {"fits", f.fits}, {"context", f.context}, {"seconds", f.seconds}};
    if (f.fits) {
        j["plan"] = pack_summary_json(f.result);
    } else {
        j["reason"] = f.reason;
        j["largest_context"] = f.largest_context;
        json alternatives = json::array();
        for (const FitAlternative &a : f.alternatives)
            alternatives.push_back({{"flags", a.flags}, {"context", a.context}, {"image_bytes", a.image_bytes}});
        j["alternatives"] = alternatives;
    }
    if (!f.boards.empty()) {
        json boards = json::array();
        for (const BoardFit &b : f.boards) {
            json e = {{"board", b.board}, {"scenario", b.scenario}, {"l1", b.l1}, {"fits", b.fits}};
            if (b.fits) e["smallest_l1"] = b.smallest_l1;
            else e["reason"] = b.reason;
            boards.push_back(e);
        }
        j["boards"] = boards;
    }
    return j;
}

} // namespace tessera
