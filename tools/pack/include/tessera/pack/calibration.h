// Calibration: an fp32 graph runs on the host, one token at a time, in single
// precision (each operator's host file evaluates its steps with the fp32 kernels),
// and every activation's largest magnitude is recorded: the static scales of an int8
// image.
#ifndef TESSERA_PACK_CALIBRATION_H
#define TESSERA_PACK_CALIBRATION_H

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tessera/models/graph.h"

namespace tessera {

class Evaluation {
public:
    // An F32 graph with its weights, which it takes: a weight's floats are read where its
    // bytes are (written by memcpy from floats: a large model's weights are held once).
    explicit Evaluation(Graph &&fp32);
    // The floats of tensor id (weights as they are, activations and caches zeroed at start).
    float *values(uint32_t id) { return at_[id]; }
    uint32_t pos() const { return pos_; }
    // Runs the token schedule on `token` at the next position; records every tensor it touches.
    void step(int32_t token);
    const float *logits() { return values(graph_.logits_token); }
    void reset() { pos_ = 0; }
    void record(const std::string &name, const float *v, size_t n);
    const std::map<std::string, double> &ranges() const { return ranges_; }
    const Graph &graph() const { return graph_; }
    // A tensor's name without the schedule's suffix: the key of its range.
    static std::string key(const std::string &name);

private:
    Graph graph_;
    std::vector<std::vector<float>> values_; // activations, caches (and a weight whose bytes are not aligned)
    std::vector<float *> at_;                // each tensor's floats
    std::map<std::string, double> ranges_;
    uint32_t pos_ = 0;
};

struct CalibrationOptions {
    // Sequences to run: token ids each starting with BOS (teacher-forced); empty: the
    // model's own continuations from BOS, one greedy and `sampled` sampled ones.
    std::vector<std::vector<int32_t>> sequences;
    uint32_t sampled = 3;
    uint32_t length = 0;  // positions of each generated sequence (0: min(context, 256))
    uint64_t seed = 42;
    std::function<void(uint64_t done, uint64_t total)> progress; // after each position: positions run of all
};

// The largest magnitude of each activation over the sequences (names as Evaluation::key).
// It takes the graph (Evaluation).
std::map<std::string, double> calibrate(Graph &&fp32, const CalibrationOptions &options);

} // namespace tessera

#endif
