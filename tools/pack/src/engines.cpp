#include "tessera/pack/engines.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "tessera/errors.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/npu.h"
#include "tessera/pack/cost_model.h"

namespace tessera {

// tessera/npu.h's layout (N-EUREKA's 1x1 mode): U = W + 128, block (c, kb) in 32 bytes,
// word g's bit 4 b + t the bit b of U[c][kb * 32 + 4 g + t]; channels past k or n U = 128.
std::vector<uint8_t> npu_weight_layout(const int8_t *w, uint32_t n, uint32_t k, uint32_t bits)
{
    const int lo = -(1 << (bits - 1)), hi = (1 << (bits - 1)) - 1;
    const uint32_t blocks = (k + TSR_NPU_BLOCK_K - 1) / TSR_NPU_BLOCK_K;
    const uint64_t padded_n = tsr_npu_weight_bytes(n, k, bits) / tsr_npu_channel_bytes(k, bits);
    std::vector<uint8_t> out(tsr_npu_weight_bytes(n, k, bits), 0);
    for (uint64_t c = 0; c < padded_n; ++c)
        for (uint32_t j = 0; j < blocks * TSR_NPU_BLOCK_K; ++j) {
            int v = 0;
            if (c < n && j < k) {
                v = w[size_t(c) * k + j];
                if (v < lo || v > hi)
                    throw std::range_error("weight " + std::to_string(v) + " does not fit " + std::to_string(bits) + " bits");
            }
            const uint32_t u = uint32_t(v + TSR_NPU_W_OFFSET), kb = j / TSR_NPU_BLOCK_K, g = (j % TSR_NPU_BLOCK_K) / 4, t = j % 4;
            const size_t word = (size_t(c) * blocks + kb) * TSR_NPU_PLANES + g;
            for (uint32_t b = 0; b < TSR_NPU_PLANES; ++b)
                if ((u >> b) & 1u) {
                    const uint32_t bit = 4 * b + t;
                    out[word * 4 + bit / 8] |= uint8_t(1u << (bit % 8));
                }
        }
    return out;
}

namespace {

bool eligible(const Graph &g, const GraphStep &s)
{
    if (s.op != TSR_OP_MATMUL || s.dtype != TSR_DTYPE_I8) return false;
    const tsr_matmul_attrs &p = s.params.matmul;
    const GraphTensor &w = g.tensors[s.operands[1]];
    // Q31 factors on per-channel weights, or QuantLib's RequantShift onto the whole int8 range
    // (the NPU clamps to -128..127).
    const bool requant = p.requant_form == TSR_REQUANT_RQS ? p.rqs_lo == -128 && p.rqs_hi == 127 : w.quant == TSR_QUANT_PER_CHANNEL;
    return p.weight_dtype == TSR_DTYPE_I8 && p.out_dtype == TSR_DTYPE_I8 && p.weight_bits == 0u && !p.split[0] &&
           w.kind == TSR_TENSOR_WEIGHT && requant && p.k <= TSR_NPU_MAX_K;
}

// The first step after `i` that reads step i's output, or the schedule's end.
uint32_t join_of(const GraphSchedule &s, uint32_t i)
{
    const uint32_t y = s.steps[i].operands[2];
    for (uint32_t j = i + 1; j < s.steps.size(); ++j)
        for (uint32_t k = 0; k < s.steps[j].operand_count; ++k)
            if (s.steps[j].operands[k] == y) return j;
    return uint32_t(s.steps.size());
}

// RequantShift tables the NPU's stage takes as they are (tessera/npu.h,
// TSR_NPU_GEMM_I8_RQS_STAGE): every step that reads the table an NPU step of form 1 with one
// shift, and for every channel a multiplier >= 0 whose product with the largest accumulator
// its weights can give, plus the addend and the rounding, stays below 2^31
// (tsr_matmul_i8_rqs_fits_32, which the cluster's kernels trust the same way). Such a table
// gets the rounding added and its steps form 3; the others keep QuantLib's form (the board
// finishes them as it can).
void to_stage_form(Graph &g, const std::vector<int> &decided, uint32_t &stage_steps)
{
    std::vector<int> ok(g.tensors.size(), -1); // per table: -1 unseen, 0 no, 1 yes
    std::vector<int32_t> shift_of(g.tensors.size(), -1);
    const GraphSchedule *both[2] = {&g.token, &g.prompt};
    for (const GraphSchedule *sch : both)
        for (const GraphStep &s : sch->steps) {
            if (s.op != TSR_OP_MATMUL || s.dtype != TSR_DTYPE_I8) continue;
            const tsr_matmul_attrs &p = s.params.matmul;
            if (p.requant >= g.tensors.size()) continue;
            int &v = ok[p.requant];
            const bool npu_rqs = decided[s.operands[1]] == 1 && p.requant_form == TSR_REQUANT_RQS && p.rqs_shift >= 0 && p.rqs_shift <= 31;
            if (!npu_rqs || (shift_of[p.requant] >= 0 && shift_of[p.requant] != p.rqs_shift)) {
                v = 0;
                continue;
            }
            shift_of[p.requant] = p.rqs_shift;
            if (v == 0) continue;
            const GraphTensor &w = g.tensors[s.operands[1]], &t = g.tensors[p.requant];
            if (w.data.size() != size_t(p.n) * p.k || t.data.size() != size_t(p.n) * 8u) {
                v = 0;
                continue;
            }
            const int32_t *mul = reinterpret_cast<const int32_t *>(t.data.data()), *add = mul + p.n;
            const bool unsigned_scales = std::all_of(mul, mul + p.n, [](int32_t m) { return m >= 0; });
            v = unsigned_scales && tsr_matmul_i8_rqs_fits_32(reinterpret_cast<const int8_t *>(w.data.data()), mul, add,
                                                             p.n, p.k, p.rqs_shift);
        }
    for (size_t i = 0; i < g.tensors.size(); ++i) {
        if (ok[i] != 1) continue;
        GraphTensor &t = g.tensors[i];
        const size_t n = t.data.size() / 8u;
        int32_t *add = reinterpret_cast<int32_t *>(t.data.data()) + n;
        const int64_t round = shift_of[i] ? int64_t(1) << (shift_of[i] - 1) : 0;
        for (size_t c = 0; c < n; ++c) add[c] = int32_t(add[c] + round);
    }
    for (GraphSchedule *sch : {&g.prompt, &g.token})
        for (GraphStep &s : sch->steps)
            if (s.op == TSR_OP_MATMUL && s.params.matmul.requant < g.tensors.size() && ok[s.params.matmul.requant] == 1) {
                s.params.matmul.requant_form = TSR_REQUANT_RQS_STAGE;
                ++stage_steps;
            }
}

} // namespace

EngineAssignment assign_engines(Graph &g, const BoardDesc &board, Scenario scenario, uint32_t weight_bits)
{
    EngineAssignment a;
    const bool int8 = g.hyper.precision == TSR_DTYPE_I8;
    const bool by_cost = scenario == Scenario::kAuto; // the cost model picks the layers that pay
    if (by_cost) scenario = board.has_npu && int8 && board.cost.present() ? Scenario::kNpuNms : Scenario::kCluster;
    a.scenario = scenario;
    a.cores = scenario == Scenario::kSingleCore ? 1u : board.cores;
    a.weight_bits = weight_bits;
    if (scenario != Scenario::kNpu && scenario != Scenario::kNpuNms) return a;
    const std::string name = name_of(scenario);
    if (!board.has_npu) throw InputError("scenario " + name + " needs an NPU; board '" + board.name + "' has none");
    if (!int8) throw InputError("scenario " + name + " needs --precision int8 (the NPU runs int8 jobs)");

    // Per weight tensor: whether its layers go to the NPU (every step that reads it
    // must, since the layout changes), decided on the token schedule's step.
    std::vector<int> decided(g.tensors.size(), -1); // -1 undecided, 0 cluster, 1 NPU
    auto decide = [&](const GraphStep &s) {
        const uint32_t wid = s.operands[1];
        if (decided[wid] >= 0) return;
        if (!eligible(g, s)) {
            decided[wid] = 0;
            if (s.op == TSR_OP_MATMUL)
                a.cluster_linear.push_back(s.label + (s.params.matmul.weight_bits == 4u
                                                          ? " (W4A8: its 4-bit groups are the cluster's)"
                                                      : s.params.matmul.split[0]
                                                          ? " (one step for several outputs: an NPU job writes one)"
                                                          : " (its output is not int8: the logits)"));
            return;
        }
        decided[wid] = 1;
        if (!by_cost) return;
        const tsr_matmul_attrs &p = s.params.matmul;
        if (p.requant_form != TSR_REQUANT_RQS) { // N-EUREKA's stage gives RequantShift's integers, not Q31 factors
            decided[wid] = 0;
            a.cluster_linear.push_back(s.label + " (Q31 requantization: the NPU's stage cannot give it, a core would)");
            return;
        }
        const double macs = double(p.k) * p.n, bytes = double(tsr_npu_weight_bytes(p.n, p.k, weight_bits));
        const double on_npu = board.cost.npu_job_cycles + npu_job_cycles(board.cost, macs, bytes, weight_bits, true);
        const double on_cluster = cluster_cycles(board.cost, TSR_DTYPE_I8, macs, 0, board.cores) +
                                  2 * board.cost.barrier_cycles;
        if (on_npu >= on_cluster) {
            decided[wid] = 0;
            char why[160];
            std::snprintf(why, sizeof why, " (estimated %.0f cycles a token on the NPU, %.0f on the cluster)", on_npu,
                          on_cluster);
            a.cluster_linear.push_back(s.label + why);
        }
    };
    const GraphSchedule *token_first[2] = {&g.token, &g.prompt};
    for (const GraphSchedule *sch : token_first)
        for (const GraphStep &s : sch->steps)
            if (s.op == TSR_OP_MATMUL) decide(s);
    if (by_cost && std::find(decided.begin(), decided.end(), 1) == decided.end()) { // no layer pays on the NPU
        a.scenario = Scenario::kCluster;
        return a;
    }

    to_stage_form(g, decided, a.stage_steps); // before the weights leave their row-major layout

    // Weights into the NPU's layout; in NMS (npu-nms) in order of use: every one of them when
    // the scenario is asked for by name, while they fit when the cost model chose it.
    uint64_t nms_free = scenario == Scenario::kNpuNms ? board.region_size[TSR_REGION_NMS] : 0;
    for (const GraphSchedule *sch : token_first)
        for (const GraphStep &s : sch->steps) {
            if (s.op != TSR_OP_MATMUL || decided[s.operands[1]] != 1) continue;
            GraphTensor &w = g.tensors[s.operands[1]];
            if (w.layout != TSR_LAYOUT_ROW_MAJOR) continue; // done (a weight two steps share)
            const tsr_matmul_attrs &p = s.params.matmul;
            try {
                w.data = npu_weight_layout(reinterpret_cast<const int8_t *>(w.data.data()), p.n, p.k, weight_bits);
            } catch (const std::range_error &e) {
                throw InputError(w.name + ": " + e.what() + " (quantize with --npu-weight-bits " + std::to_string(weight_bits) + ")");
            }
            w.bytes = w.data.size();
            w.layout = weight_bits == 4 ? TSR_LAYOUT_NPU_W4 : TSR_LAYOUT_NPU_W8;
            const uint64_t need = (w.bytes + TSR_IMAGE_ALIGN - 1) / TSR_IMAGE_ALIGN * TSR_IMAGE_ALIGN;
            w.in_nms = need <= nms_free;
            if (!w.in_nms && scenario == Scenario::kNpuNms && !by_cost) // asked for by name: all of them or none
                throw InputError("scenario npu-nms: NPU weight " + w.name + " needs " + std::to_string(need) +
                                 " bytes of the weight memory; " + std::to_string(nms_free) + " of the " +
                                 std::to_string(board.region_size[TSR_REGION_NMS]) + " of board '" + board.name +
                                 "' are left (--scenario npu streams them from L2)");
            if (w.in_nms) {
                nms_free -= need;
                a.nms_bytes += need;
                a.nms_weights.push_back(w.name);
            } else {
                a.streamed_weights.push_back(w.name);
            }
        }
    for (GraphSchedule *sch : {&g.prompt, &g.token})
        for (uint32_t i = 0; i < sch->steps.size(); ++i) {
            GraphStep &s = sch->steps[i];
            if (s.op != TSR_OP_MATMUL || decided[s.operands[1]] != 1) continue;
            s.engine = TSR_ENGINE_NPU;
            s.params.matmul.join = g.tensors[s.operands[1]].in_nms ? join_of(*sch, i) : 0u;
            ++a.npu_steps;
        }
    return a;
}

} // namespace tessera
