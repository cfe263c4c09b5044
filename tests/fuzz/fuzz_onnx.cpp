// Fuzzer (g): the ONNX front end, structure-aware. Its mutator parses the input as an
// ONNX ModelProto and edits the model, not its bytes: it removes, duplicates, empties
// and rewires node inputs, sets attributes to the values that break arithmetic (0, -1,
// 2^31, 2^32 + k, 2^62, INT64_MIN, ...), changes their types (INT to FLOAT, inf, NaN),
// edits declared shapes, initializers (dims, types, sizes, EXTERNAL data) and operator
// types, and removes or duplicates nodes, graph inputs and outputs; about one mutation in
// eight is libFuzzer's own, on the bytes. The body reads and lowers the model, then plans
// and writes its image for siracusa (cluster and npu-nms). A bad input must end in one of
// the errors the tools catch (tessera::Error: InputError, PlanError, BoardError), with a
// one-line message; any other exception, a crash or a sanitizer report is a finding.
// Seeds: Deeploy's graphs in TESSERA_SHARED_DIR, read in place (scripts/fuzz.sh).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "onnx/onnx.pb.h"
#include "structured_mutation.h"
#include "tessera/board_desc.h"
#include "tessera/errors.h"
#include "tessera/models/onnx.h"
#include "tessera/pack/packer.h"


namespace {

void check_message(const char *what)
{
    if (!what[0] || std::strchr(what, '\n')) {
        std::fprintf(stderr, "fuzz finding: message not one line: %s\n", what);
        std::abort();
    }
}

int64_t interesting_int(std::mt19937_64 &rng)
{
    static const int64_t kValues[] = {0,
                                      1,
                                      -1,
                                      2,
                                      3,
                                      4,
                                      6,
                                      16,
                                      64,
                                      127,
                                      128,
                                      255,
                                      256,
                                      -128,
                                      32767,
                                      32768,
                                      65536,
                                      int64_t(1) << 20,
                                      int64_t(1) << 23,
                                      int64_t(1) << 24,
                                      (int64_t(1) << 24) + 1,
                                      int64_t(1) << 30,
                                      (int64_t(1) << 31) - 1,
                                      int64_t(1) << 31,
                                      int64_t(1) << 32,
                                      (int64_t(1) << 32) + 64,
                                      4294967295,
                                      int64_t(1) << 62,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min(),
                                      -(int64_t(1) << 31)};
    if (rng() % 4 == 0) return int64_t(rng());
    return kValues[rng() % (sizeof kValues / sizeof *kValues)];
}

float interesting_float(std::mt19937_64 &rng)
{
    static const float kValues[] = {0.0f, -0.0f, 1.0f, 0.5f, -1.0f, 128.0f, 1e30f, -1e30f, 3.4e38f, 1e-40f,
                                    std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                    std::numeric_limits<float>::quiet_NaN(), 2147483648.0f, 9.3e18f};
    return kValues[rng() % (sizeof kValues / sizeof *kValues)];
}

const char *const kOps[] = {"RMSNorm", "Softmax", "Div", "HardSwish", "MatMul", "Add", "Mul", "Concat", "Transpose",
                            "Reshape", "RequantShift", "iRMSNorm", "iSoftmax", "iHardswish", "TrueIntegerDiv", "Conv", ""};

// A tensor name of the graph: an input, an initializer or a node output.
std::string some_tensor(const onnx::GraphProto &g, std::mt19937_64 &rng)
{
    const int inputs = g.input_size(), inits = g.initializer_size(), nodes = g.node_size();
    const int total = inputs + inits + nodes;
    if (total == 0) return "x";
    int k = int(rng() % uint64_t(total));
    if (k < inputs) return g.input(k).name();
    k -= inputs;
    if (k < inits) return g.initializer(k).name();
    k -= inits;
    return g.node(k).output_size() ? g.node(k).output(0) : "x";
}

void mutate_attribute(onnx::AttributeProto &a, std::mt19937_64 &rng)
{
    switch (rng() % 6) {
    case 0: // a value that breaks arithmetic, as an INT
        a.clear_ints(), a.clear_floats(), a.clear_t();
        a.set_type(onnx::AttributeProto::INT);
        a.set_i(interesting_int(rng));
        break;
    case 1: // a FLOAT where an integer belongs
        a.clear_ints(), a.clear_t();
        a.set_type(onnx::AttributeProto::FLOAT);
        a.set_f(interesting_float(rng));
        break;
    case 2: { // a list
        a.set_type(onnx::AttributeProto::INTS);
        a.clear_ints();
        const int n = int(rng() % 6);
        for (int i = 0; i < n; ++i) a.add_ints(rng() % 3 ? int64_t(rng() % 5) - 1 : interesting_int(rng));
        break;
    }
    case 3: { // a tensor of floats holding an interesting value
        a.set_type(onnx::AttributeProto::TENSOR);
        onnx::TensorProto *t = a.mutable_t();
        t->Clear();
        t->set_data_type(rng() % 2 ? onnx::TensorProto::FLOAT : onnx::TensorProto::INT64);
        if (rng() % 2) t->add_dims(1);
        if (t->data_type() == onnx::TensorProto::FLOAT) t->add_float_data(rng() % 2 ? interesting_float(rng) : float(interesting_int(rng)));
        else t->add_int64_data(interesting_int(rng));
        break;
    }
    case 4: a.set_name(rng() % 2 ? "" : "unknown"); break;
    default:
        if (a.type() == onnx::AttributeProto::INTS && a.ints_size()) a.set_ints(int(rng() % uint64_t(a.ints_size())), interesting_int(rng));
        else a.set_i(a.i() + int64_t(rng() % 5) - 2);
        break;
    }
}

void mutate_tensor(onnx::TensorProto &t, std::mt19937_64 &rng)
{
    switch (rng() % 6) {
    case 0:
        if (t.dims_size()) t.set_dims(int(rng() % uint64_t(t.dims_size())), rng() % 2 ? int64_t(rng() % 300) - 1 : interesting_int(rng));
        else t.add_dims(interesting_int(rng));
        break;
    case 1: // its data cut or grown
        if (!t.raw_data().empty()) t.mutable_raw_data()->resize(size_t(rng() % (t.raw_data().size() + 16)));
        else t.add_float_data(interesting_float(rng));
        break;
    case 2: t.set_data_type(int32_t(rng() % 17)); break;
    case 3: t.set_data_location(onnx::TensorProto::EXTERNAL); break;
    case 4: // one element set to an interesting value
        if (t.raw_data().size() >= 4) {
            const size_t at = (rng() % (t.raw_data().size() / 4)) * 4;
            const float f = rng() % 2 ? interesting_float(rng) : float(interesting_int(rng));
            std::memcpy(&(*t.mutable_raw_data())[at], &f, 4);
        }
        break;
    default:
        if (t.dims_size()) t.mutable_dims()->RemoveLast();
        break;
    }
}

// One structural edit of the model.
void mutate_model(onnx::ModelProto &m, std::mt19937_64 &rng)
{
    onnx::GraphProto &g = *m.mutable_graph();
    const int nodes = g.node_size();
    onnx::NodeProto *n = nodes ? g.mutable_node(int(rng() % uint64_t(nodes))) : nullptr;
    switch (rng() % 12) {
    case 0: // a node loses an input
        if (n && n->input_size()) n->mutable_input()->DeleteSubrange(int(rng() % uint64_t(n->input_size())), 1);
        break;
    case 1: // or gains one
        if (n) n->add_input(some_tensor(g, rng));
        break;
    case 2: // an input rewired, or left unnamed
        if (n && n->input_size()) n->set_input(int(rng() % uint64_t(n->input_size())), rng() % 4 ? some_tensor(g, rng) : "");
        break;
    case 3:
    case 4: // an attribute's value or type
        if (n && n->attribute_size()) mutate_attribute(*n->mutable_attribute(int(rng() % uint64_t(n->attribute_size()))), rng);
        break;
    case 5: { // a declared shape
        if (!g.input_size()) break;
        auto *shape = g.mutable_input(int(rng() % uint64_t(g.input_size())))->mutable_type()->mutable_tensor_type()->mutable_shape();
        if (shape->dim_size() && rng() % 4) shape->mutable_dim(int(rng() % uint64_t(shape->dim_size())))->set_dim_value(
            rng() % 2 ? int64_t(rng() % 300) : interesting_int(rng));
        else if (rng() % 2) shape->add_dim()->set_dim_value(int64_t(rng() % 8));
        else if (shape->dim_size()) shape->mutable_dim()->RemoveLast();
        break;
    }
    case 6:
    case 7: // an initializer
        if (g.initializer_size()) mutate_tensor(*g.mutable_initializer(int(rng() % uint64_t(g.initializer_size()))), rng);
        break;
    case 8: // another operator
        if (n) n->set_op_type(kOps[rng() % (sizeof kOps / sizeof *kOps)]);
        break;
    case 9: // a node removed, or duplicated
        if (nodes > 1 && rng() % 2) g.mutable_node()->DeleteSubrange(int(rng() % uint64_t(nodes)), 1);
        else if (n) *g.add_node() = onnx::NodeProto(*n);
        break;
    case 10: // a graph input or output removed
        if (rng() % 2 && g.input_size()) g.mutable_input()->DeleteSubrange(int(rng() % uint64_t(g.input_size())), 1);
        else if (g.output_size()) g.mutable_output()->DeleteSubrange(int(rng() % uint64_t(g.output_size())), 1);
        break;
    default: // a node's output renamed onto another tensor
        if (n && n->output_size()) n->set_output(0, some_tensor(g, rng));
        break;
    }
}

const tessera::BoardDesc &siracusa()
{
    static const tessera::BoardDesc board = tessera::load_board_desc("siracusa");
    return board;
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    std::mt19937_64 rng(seed);
    onnx::ModelProto m;
    if (rng() % 8 == 0 || !m.ParseFromArray(data, int(size)) || !m.has_graph()) return LLVMFuzzerMutate(data, size, max_size);
    const int edits = 1 + int(rng() % 3);
    for (int i = 0; i < edits; ++i) mutate_model(m, rng);
    return tessera::fuzz::write_mutation(data, size, max_size, m.SerializeAsString());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    try {
        tessera::OnnxDecoderInfo info;
        tessera::Graph g = tessera::lower_onnx_decoder_bytes(bytes, "fuzz.onnx", {}, info);
        if (g.hyper.dim != info.dim || g.hyper.n_layers != info.n_layers || !g.hyper.decoder_only) std::abort();
        // What tessera-pack does next: plan it for a board and write its image.
        tessera::PackOptions o;
        o.scenario = size % 2 ? tessera::Scenario::kNpuNms : tessera::Scenario::kCluster;
        o.l1_bytes = size % 3 ? 0 : 16384;
        tessera::PackResult r;
        const std::vector<uint8_t> image = tessera::plan_graph(std::move(g), tessera::Vocabulary{}, siracusa(), o, r);
        if (image.size() != r.image_bytes) std::abort();
    } catch (const tessera::Error &e) {
        check_message(e.what());
    }
    return 0;
}
