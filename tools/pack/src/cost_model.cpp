#include "tessera/pack/cost_model.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <stdexcept>

#include "tessera/image_format.h"
#include "tessera/npu.h"
#include "tessera/pack/tiler.h"
#include "tessera/step_geometry.h"
#include "tessera/variants.h"

namespace tessera {

namespace {

// The parts of a (valid) image the estimate reads.
struct Tables {
    const tsr_image_header *h = nullptr;
    const tsr_tensor *tensors = nullptr;
    const tsr_schedule_header *schedule[2] = {};
    const tsr_npu_desc *descs = nullptr;
    uint32_t desc_count = 0;

    Tables(const uint8_t *data, size_t size)
    {
        if (size < sizeof(tsr_image_header)) throw std::invalid_argument("cost model: not an image");
        h = reinterpret_cast<const tsr_image_header *>(data);
        const tsr_section *sections = reinterpret_cast<const tsr_section *>(data + h->section_table_offset);
        for (uint32_t i = 0; i < h->section_count; ++i) {
            const tsr_section &s = sections[i];
            const uint8_t *p = data + s.file_offset;
            if (s.kind == TSR_SECTION_TENSORS) tensors = reinterpret_cast<const tsr_tensor *>(p);
            if (s.kind == TSR_SECTION_SCHEDULE_PROMPT) schedule[0] = reinterpret_cast<const tsr_schedule_header *>(p);
            if (s.kind == TSR_SECTION_SCHEDULE_TOKEN) schedule[1] = reinterpret_cast<const tsr_schedule_header *>(p);
            if (s.kind == TSR_SECTION_NPU_JOBS) {
                descs = reinterpret_cast<const tsr_npu_desc *>(p);
                desc_count = s.size / uint32_t(sizeof(tsr_npu_desc));
            }
        }
        if (!tensors || !schedule[0] || !schedule[1]) throw std::invalid_argument("cost model: image lacks its tables");
    }
    const tsr_step *steps(int which) const { return reinterpret_cast<const tsr_step *>(schedule[which] + 1); }
};

// Cluster cores that take fine-grained work (the runtime leaves core 0 to the DMA
// engine and the schedule from 5 cores on: runtime/src/ops/op.h).
double workers(uint32_t cores) { return cores >= 5 ? cores - 1 : cores; }

} // namespace

double npu_job_cycles(const BoardCost &c, double macs, double weight_bytes, uint32_t bits, bool nms)
{
    const double rate = bits <= 4 ? c.npu_macs_per_cycle_4bit : c.npu_macs_per_cycle_8bit;
    return std::max(macs / rate, nms ? weight_bytes / c.nms_bytes_per_cycle : 0.0);
}

double cluster_cycles(const BoardCost &c, uint32_t dtype, double macs, double elements, uint32_t cores)
{
    const double w = workers(cores);
    const double per_core = c.cluster_macs_per_cycle[dtype == TSR_DTYPE_I8 ? 2 : dtype == TSR_DTYPE_BF16 ? 1 : 0];
    return macs / (w * per_core) + elements * c.cluster_cycles_per_element / w;
}

RunEstimate estimate_run(const uint8_t *image, size_t size, const BoardDesc &board, bool prompt, uint32_t rows,
                         uint32_t pos, std::vector<EstimatedSlice> *slices, uint32_t cores, const std::string &kernel_set)
{
    const BoardCost &c = board.cost;
    if (!c.present()) throw std::invalid_argument("board '" + board.name + "' has no cost model");
    const Tables t(image, size);
    const int which = prompt ? 0 : 1;
    const tsr_schedule_header &sh = *t.schedule[which];
    const tsr_step *steps = t.steps(which);
    if (cores == 0) cores = t.h->planned_cores;
    RunEstimate r;
    r.prompt = prompt;
    r.rows = rows;
    r.pos = pos;
    r.cores = cores;
    r.fitted = c.fitted_for(kernel_set, kernel_set_name(board.isa));
    if (!kernel_set.empty() && !r.fitted)
        throw std::invalid_argument("board '" + board.name + "' has no costs fitted for kernel set '" + kernel_set + "'");
    if (r.fitted) r.unit = r.fitted->unit;
    const FittedCoreCosts *run_fit = r.fitted ? &r.fitted->for_cores(cores) : nullptr;
    // The run's one fork (fitted: what a run adds, and per row it carries in and out).
    double now = run_fit ? run_fit->per_run + run_fit->per_row * rows : c.fork_cycles;
    // Off-chip memory's bytes a cycle at the board's clock, and a transfer's latency in cycles.
    const double offchip_per_cycle = board.offchip.present() ? board.offchip.bytes_per_second / c.clock_hz : 1.0;
    const double offchip_latency = board.offchip.latency_ns * 1e-9 * c.clock_hz;
    // The L2 a run lends the board to read a constant ahead in, where the board reads the image
    // off chip through the DMA alone (tsr::prefetch_for: the runtime asks so).
    uint64_t loan_first = 0, loan_end = 0;
    if (board.offchip.present() && !board.offchip.cores_read)
        tsr::loan_range(t.tensors, t.h->tensor_count, t.h->sampler_scratch_tensor, &loan_first, &loan_end);
    std::vector<double> started(sh.step_count, 0.0); // each step's start
    double held_up = 0; // cycles the steps waited for the off-chip stream beyond their own time
    double npu_free = 0;
    std::deque<std::pair<uint32_t, double>> pending; // NPU jobs in flight: (join step, end)
    using Lane = EstimatedSlice::Lane;
    for (uint32_t i = 0; i < sh.step_count; ++i) {
        const tsr_step &s = steps[i];
        const double begin = now;
        started[i] = now;
        auto busy_on = [&](Lane lane, const char *name, double start, double end, double amount) {
            if (slices && end > start) slices->push_back({lane, name, s.layer, start, end, amount});
        };
        while (!pending.empty() && pending.front().first <= i) { // in order: waiting for one waits for the older
            now = std::max(now, pending.front().second);
            pending.pop_front();
        }
        const uint32_t n = tsr::step_rows(s, rows);
        const OpHost &host = op_host(s.op);
        const Work w = host.work ? host.work(s, n, pos, cores) : Work{};
        const tsr::StepGeometry g = tsr::step_geometry(s, n, cores);
        double bytes = 0, transfers = 0, offchip_bytes = 0, offchip_transfers = 0;
        for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) {
            const tsr::OperandGeometry &o = g.operand[k];
            const bool staged = s.staging[o.shares] != TSR_NO_TENSOR; // its own buffer, or the one it shares
            if (o.use == tsr::OperandUse::kNone || o.use == tsr::OperandUse::kStaged ||
                (o.use == tsr::OperandUse::kStreamed && staged)) {
                bytes += double(o.moved);
                transfers += o.transfers;
                if (board.offchip.present() && s.operands[k] < t.h->tensor_count &&
                    t.tensors[s.operands[k]].region == TSR_REGION_IMAGE) {
                    offchip_bytes += double(o.moved);
                    offchip_transfers += o.transfers;
                }
            }
        }
        double ahead = 0;
        // Read ahead since its issuer started (as fast as off-chip memory gives, as many bytes
        // as the loan holds): those bytes of the stream are moved out of L2 instead.
        if (loan_end > loan_first && offchip_bytes > 0) {
            const tsr::Prefetch p = tsr::prefetch_for(t.tensors, t.h->tensor_count, steps, i);
            if (p.issuer != i) {
                const double window = tsr::prefetch_bytes(t.tensors[s.operands[p.operand]].size, p.tile_bytes,
                                                          uint32_t(loan_end - loan_first));
                ahead = std::min({window, (now - started[p.issuer]) * offchip_per_cycle, offchip_bytes});
            }
        }
        // What the step streams from off-chip memory holds it up when the stream is
        // slower than the rest of the step (tiles are double-buffered: they overlap).
        auto stream = [&](double b) {
            return b > 0 ? b / offchip_per_cycle + offchip_transfers * (b / offchip_bytes) * offchip_latency : 0.0;
        };
        const double offchip = stream(offchip_bytes - ahead); // what the step itself waits for
        r.offchip_bytes += offchip_bytes;
        r.offchip += stream(offchip_bytes);
        const double before_step = now;
        if (w.dma_bytes >= 0) bytes = w.dma_bytes;
        if (w.dma_transfers >= 0) transfers = w.dma_transfers;
        const double calls = w.tiles >= 0 ? std::max(w.tiles, 1.0) : std::max(g.tiles, 1u);
        tsr_variant_row variant{};
        const FittedVariantCost *fit = nullptr;
        VariantWork *vw = nullptr;
        if (tsr_variant_lookup(s.variant, &variant)) { // every step (an NPU step: its controller's share)
            const double share = workers(cores);
            vw = &r.variants[variant.name];
            vw->calls += calls; // a step without tiles (a move) is still a call
            vw->macs += w.macs / share;
            vw->elements += w.elements / share;
            vw->bytes += bytes;
            vw->transfers += transfers;
            if (r.fitted) fit = r.fitted->variant(variant.name, cores);
        }
        if (fit) { // measured as a whole: the kernel (or the NPU job's control), driver, DMA waits, barriers
            const double step = fit->per_call * calls + fit->per_mac * w.macs / workers(cores) +
                                fit->per_element * w.elements / workers(cores) + fit->per_byte * bytes +
                                fit->per_transfer * transfers;
            busy_on(Lane::kCluster, tsr_op_name(s.op), now, now + step, 0);
            now += step;
            r.cluster += step;
            r.dma += bytes / c.dma_bytes_per_cycle + transfers * c.dma_transfer_cycles;
            vw->cost += step;
            vw->fitted = true;
        } else if (s.engine == TSR_ENGINE_NPU) {
            const tsr_matmul_npu_params &p = tsr_params_as<tsr_matmul_npu_params>(s); // every NPU variant's first fields
            const tsr_npu_desc &d = t.descs[p.npu_desc];
            const bool nms = d.flags & TSR_NPU_WEIGHTS_NMS;
            const double weights = double(p.n) * double(tsr_npu_channel_bytes(d.k, d.weight_bits));
            bytes = nms ? 0 : weights;
            transfers = nms ? 0 : d.jobs;
            const double dma = bytes / c.dma_bytes_per_cycle + transfers * c.dma_transfer_cycles;
            const double busy = npu_job_cycles(c, w.macs, weights, d.weight_bits, nms);
            // A board measured in instructions (qemu-virt-rv32: the busiest compute hart's) counts
            // none while its harts sleep for the engine: there its jobs hold nothing up.
            const double held = r.unit == "instructions" ? 0.0 : busy / d.jobs;
            const double issued = now; // streamed weights: the DMA stages them from here
            for (uint32_t j = 0; j < d.jobs; ++j) {
                while (pending.size() >= board.npu_queue_depth) { // a full queue: the oldest must finish
                    now = std::max(now, pending.front().second);
                    pending.pop_front();
                }
                now += c.npu_job_cycles; // the controller programs the job
                const double start = std::max(now, npu_free);
                npu_free = start + held;
                pending.push_back({nms ? p.join : i + 1, npu_free});
                busy_on(Lane::kNpu, "matmul", start, npu_free, w.macs / d.jobs);
            }
            busy_on(Lane::kDma, "copy", issued, issued + dma, bytes);
            if (!nms) now = std::max(npu_free, now + dma);
            r.npu += busy;
            r.dma += dma;
            r.npu_jobs += d.jobs;
        } else if (tsr_op_tile_kind(s.op) != TSR_TILE_MOVE) {
            const double compute = cluster_cycles(c, s.dtype, w.macs, w.elements, cores);
            const double dma = bytes / c.dma_bytes_per_cycle + transfers * c.dma_transfer_cycles;
            const double step = std::max(compute, dma) + 2.0 * g.tiles * c.barrier_cycles;
            busy_on(Lane::kCluster, tsr_op_name(s.op), now, now + step, 0);
            busy_on(Lane::kDma, "copy", now, now + dma, bytes);
            now += step;
            r.cluster += step;
            r.dma += dma;
            if (vw) vw->cost += step;
        } else {
            const double dma = bytes / c.dma_bytes_per_cycle + transfers * c.dma_transfer_cycles;
            busy_on(Lane::kDma, "copy", now, now + dma, bytes);
            now += dma;
            r.dma += dma;
            if (vw) vw->cost += dma;
        }
        if (offchip_bytes > 0) {
            const double early = stream(offchip_bytes) - offchip; // read ahead, under the steps before
            if (offchip > 0) busy_on(Lane::kDma, "off-chip", before_step, before_step + offchip, offchip_bytes - ahead);
            if (early > 0) busy_on(Lane::kDma, "off-chip", before_step - early, before_step, ahead);
            RunEstimate::LayerStream &ls = r.layer_stream[s.layer];
            ls.offchip += offchip + early;
            ls.compute += now - before_step + early;
            ls.exposed += std::max(0.0, offchip - (now - before_step));
        }
        if (offchip > now - before_step) { // the off-chip stream is the step's bound
            held_up += offchip - (now - before_step);
            now = before_step + offchip;
        }
        r.dma_bytes += uint64_t(bytes);
        if (s.layer != TSR_NO_LAYER) r.decoder_cycles += now - begin;
    }
    for (const auto &p : pending) now = std::max(now, p.second);
    if (run_fit) // and per call of its steps
        for (const auto &[name, vw] : r.variants) now += run_fit->per_call * vw.calls;
    r.cycles = now;
    r.compute_bound = now - held_up;
    const double cluster_mw = c.cluster_mw * double(cores) / double(board.cores);
    r.energy_uj = (cluster_mw * r.cluster + c.npu_mw * r.npu + c.dma_mw * r.dma + c.idle_mw * r.cycles) / c.clock_hz * 1e3;
    return r;
}

std::vector<TimelineEvent> estimated_timeline(const uint8_t *image, size_t size, const BoardDesc &board,
                                              const std::vector<RunSpec> &runs)
{
    using Engine = TimelineEvent::Engine;
    const uint32_t cores = Tables(image, size).h->planned_cores;
    std::vector<TimelineEvent> events;
    double origin = 0;
    for (const RunSpec &run : runs) {
        std::vector<EstimatedSlice> slices;
        const RunEstimate r = estimate_run(image, size, board, run.prompt, run.rows, run.pos, &slices);
        auto at = [&](double cycles) { return uint64_t(origin + cycles + 0.5); };
        events.push_back({Engine::kCluster, 0, at(0), at(r.cycles), 0, "fork", 0xFFFFu, run.pos, cores});
        for (const EstimatedSlice &e : slices) {
            const uint32_t layer = e.layer == TSR_NO_LAYER ? 0xFFFFu : e.layer;
            if (e.lane == EstimatedSlice::Lane::kCluster)
                for (uint32_t c = 0; c < cores; ++c)
                    events.push_back({Engine::kCluster, c, at(e.start), at(e.end), 0, e.name, layer, run.pos, 0});
            else
                events.push_back({e.lane == EstimatedSlice::Lane::kDma ? Engine::kDma : Engine::kNpu, 0, at(e.start),
                                  at(e.end), uint64_t(e.amount), e.name, layer, run.pos, 0});
        }
        origin += r.cycles;
    }
    return events;
}

std::vector<RunEstimate> standard_estimates(const uint8_t *image, size_t size, const BoardDesc &board)
{
    const Tables t(image, size);
    const uint32_t ctx = t.h->context, chunk = t.h->prompt_chunk;
    std::vector<RunEstimate> out;
    if (chunk >= 2) out.push_back(estimate_run(image, size, board, true, chunk / 2, 0)); // a short prompt
    out.push_back(estimate_run(image, size, board, true, chunk, 0));
    for (uint32_t pos : {1u, ctx / 2, ctx - 1})
        if (pos < ctx) out.push_back(estimate_run(image, size, board, false, 1, pos));
    return out;
}

std::string no_cost_model(const BoardDesc &board)
{
    return "board '" + board.name + "' has no cost model: its description gives no \"cost\" (clock and cycles per "
           "operation; docs/boards.md), so nothing estimates its cycles";
}

std::string estimate_lines(const std::vector<RunEstimate> &runs, const BoardDesc &board)
{
    std::string out;
    char line[400];
    const double mhz = board.cost.clock_hz / 1e6;
    for (const RunEstimate &r : runs) {
        const std::string what = r.prompt ? "prompt chunk of " + std::to_string(r.rows) + " from position 0"
                                          : "token at position " + std::to_string(r.pos);
        std::snprintf(line, sizeof line,
                      "estimate  %s, per token: %.0f %s on the critical path (decoder layers %.0f), %.0f tok/s at "
                      "%.0f MHz, %.1f uJ; engines busy (overlapping): cluster %.0f, DMA %.0f, NPU %.0f cycles; %.0f DMA "
                      "bytes, %.1f NPU jobs\n",
                      what.c_str(), r.per_token(r.cycles), r.unit.c_str(), r.per_token(r.decoder_cycles),
                      r.tokens_per_second(board.cost.clock_hz), mhz, r.per_token(r.energy_uj), r.per_token(r.cluster),
                      r.per_token(r.dma), r.per_token(r.npu), r.per_token(double(r.dma_bytes)), r.per_token(r.npu_jobs));
        out += line;
        if (r.offchip_bytes > 0) {
            const double clock = board.cost.clock_hz, rows = r.rows;
            std::snprintf(line, sizeof line,
                          "          off-chip %s: %.0f bytes a token at %.0f MB/s, %.0f cycles; bandwidth bound %.1f tok/s, "
                          "compute bound %.1f tok/s: %s bounds it\n",
                          board.offchip.kind.c_str(), r.per_token(r.offchip_bytes), board.offchip.bytes_per_second / 1e6,
                          r.per_token(r.offchip), clock * rows / r.offchip, clock * rows / r.compute_bound,
                          r.bandwidth_bound() ? "bandwidth" : "compute");
            out += line;
        }
    }
    return out;
}

nlohmann::json estimate_json(const std::vector<RunEstimate> &runs, const BoardDesc &board)
{
    nlohmann::json list = nlohmann::json::array();
    for (const RunEstimate &r : runs)
        list.push_back({{"mode", r.prompt ? "prompt" : "token"},
                        {"rows", r.rows},
                        {"position", r.pos},
                        {"cycles_per_token", r.per_token(r.cycles)},
                        {"decoder_cycles_per_token", r.per_token(r.decoder_cycles)},
                        {"tokens_per_second", r.tokens_per_second(board.cost.clock_hz)},
                        {"energy_uj_per_token", r.per_token(r.energy_uj)},
                        {"busy_cycles_per_token",
                         {{"cluster", r.per_token(r.cluster)}, {"dma", r.per_token(r.dma)}, {"npu", r.per_token(r.npu)}}},
                        {"dma_bytes_per_token", r.per_token(double(r.dma_bytes))},
                        {"npu_jobs_per_token", r.per_token(r.npu_jobs)},
                        {"offchip_bytes_per_token", r.per_token(r.offchip_bytes)},
                        {"offchip_cycles_per_token", r.per_token(r.offchip)},
                        {"compute_bound_cycles_per_token", r.per_token(r.compute_bound)},
                        {"bound", r.offchip_bytes > 0 ? (r.bandwidth_bound() ? "bandwidth" : "compute") : "compute"}});
    nlohmann::json sources = board.cost.sources;
    const RunEstimate *first = runs.empty() ? nullptr : &runs.front();
    return {{"clock_hz", board.cost.clock_hz},
            {"sources", sources},
            {"unit", first ? first->unit : "cycles"},
            {"fitted_costs", first && first->fitted ? first->fitted->source : "none"},
            {"runs", list}};
}

} // namespace tessera
