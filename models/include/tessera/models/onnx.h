// The ONNX front end: a decoder stack that QuantLib integerized (the graphs Deeploy
// runs, e.g. its microLlama tests) lowered to Tessera's Graph, bit for bit.
//
// Read with the ONNX library's protobuf classes (Debian's libonnx-dev). The graph must
// be a decoder this front end knows: per layer iRMSNorm, Q/K/V MatMuls with bias and
// RequantShift, RoPE as a MatMul by a per-row rotation input, the KV Concat (whose
// RequantShift must be the identity: the cache is appended to, never rescaled), the
// integer attention (RequantShift, TrueIntegerDiv, the mask's add, iSoftmax), the output
// projection and residual adds, and the gated FFN with iHardswish; then a final iRMSNorm.
// Anything else is refused by the node's name and operator.
#ifndef TESSERA_MODELS_ONNX_H
#define TESSERA_MODELS_ONNX_H

#include <cstdint>
#include <string>

#include "tessera/models/graph.h"

namespace tessera {

// What the graph is, read off it (its inputs follow Deeploy's order: hidden state
// [1,S,dim], mask, rotations [1,S,hs,hs], then each layer's past K and V [1,heads,S_past,hs]).
struct OnnxDecoderInfo {
    std::string path;
    uint32_t dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, head_size = 0;
    uint32_t rows = 0;      // S: rows one run of the graph computes
    uint32_t past = 0;      // S_past: cached positions the graph takes in
    uint64_t nodes = 0, opset = 0;
};

struct OnnxLowering {
    uint32_t context = 0;      // 0: max(256, S_past + S)
    uint32_t prompt_chunk = 0; // 0: S when S > 1, else min(16, context)
    // The integer graph's Q, K and V matmuls as one step, and W1 and W3, where their
    // RequantShifts share shift and range (tessera-pack's default; not for the NPU scenarios).
    bool fuse_linears = false;
};

// Whether the file begins as an ONNX ModelProto does: its ir_version (field 1, between 1
// and 100) first, then only ModelProto's fields, each within the file. Never throws.
bool is_onnx_model(const std::string &path);

// Throws InputError: unreadable, truncated or corrupt protobuf, an unsupported operator or
// attribute, shapes that do not match, a graph that is not a decoder this front end knows.
Graph lower_onnx_decoder(const std::string &path, const OnnxLowering &options, OnnxDecoderInfo &info);
// The same from the file's bytes (`path` names it in errors).
Graph lower_onnx_decoder_bytes(const std::string &bytes, const std::string &path, const OnnxLowering &options,
                               OnnxDecoderInfo &info);

} // namespace tessera

#endif
