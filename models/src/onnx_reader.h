// An ONNX model as the front end reads it: the protobuf parsed by the ONNX library,
// its initializers as integers, its nodes indexed by the tensors they make and read,
// and each check's failure as an InputError naming the file, the node and its operator.
#ifndef TESSERA_MODELS_ONNX_READER_H
#define TESSERA_MODELS_ONNX_READER_H

#include "onnx/onnx.pb.h" // generated from the ONNX schema (CMakeLists.txt: tessera_onnx_proto)

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tessera {

// An initializer (or a tensor attribute) whose values are integers, as QuantLib's float32
// constants are.
struct FloatTensor {
    std::vector<int64_t> dims;
    std::vector<float> values;
    size_t count() const { return values.size(); }
};

struct IntTensor {
    std::vector<int64_t> dims;
    std::vector<int64_t> values;
    size_t count() const { return values.size(); }
};

// The bytes of an ONNX file; throws InputError when it cannot be read or is above 1 GiB.
std::string read_onnx_file(const std::string &path);

// An operator the front end reads: its inputs (exactly so many, every one named) and the
// attributes it may carry.
struct OnnxOp {
    int inputs = 0;
    std::vector<std::string> attributes;
};

class OnnxModel {
public:
    // Throws InputError: unreadable file, truncated or corrupt protobuf, no graph, an
    // operator outside `supported` (name -> its inputs and allowed attributes), a node with
    // another number of inputs or outputs, an input left unnamed.
    // `bytes` are the file's, `path` names it in errors.
    OnnxModel(const std::string &bytes, const std::string &path, const std::map<std::string, OnnxOp> &supported);

    const onnx::GraphProto &graph() const { return model_.graph(); }
    const std::string &path() const { return path_; }
    int64_t opset() const;

    // The graph's inputs that are not initializers, in order.
    const std::vector<const onnx::ValueInfoProto *> &inputs() const { return inputs_; }
    std::vector<int64_t> shape_of(const onnx::ValueInfoProto &v) const;

    bool is_initializer(const std::string &name) const { return initializers_.count(name) != 0; }
    // An initializer's integer values; throws when it is missing or holds a non-integer.
    IntTensor initializer(const std::string &name, const onnx::NodeProto &user) const;
    // A float32 initializer's values (the float graphs' weights); throws when missing or not float32.
    FloatTensor float_initializer(const std::string &name, const onnx::NodeProto &user) const;
    const onnx::NodeProto *producer(const std::string &tensor) const;
    std::vector<const onnx::NodeProto *> consumers(const std::string &tensor) const;

    // An attribute with one integer value (INT, or a one-element INTS or integer-valued
    // TENSOR, as QuantLib writes its float32 constants); throws when missing or not such:
    // a FLOAT attribute is refused, whatever it holds. `lo`..`hi` bound it (checked on
    // the int64 before any narrowing).
    int64_t int_attribute(const onnx::NodeProto &node, const std::string &name) const;
    int64_t int_attribute(const onnx::NodeProto &node, const std::string &name, int64_t lo, int64_t hi) const;
    std::vector<int64_t> ints_attribute(const onnx::NodeProto &node, const std::string &name) const;

    // "network.onnx: node 'name' (Op): what"
    [[noreturn]] void fail(const onnx::NodeProto &node, const std::string &what) const;
    [[noreturn]] void fail(const std::string &what) const;

private:
    IntTensor decode(const onnx::TensorProto &t, const std::string &what) const;
    std::string path_;
    onnx::ModelProto model_;
    std::vector<const onnx::ValueInfoProto *> inputs_;
    std::map<std::string, const onnx::TensorProto *> initializers_;
    std::map<std::string, const onnx::NodeProto *> producers_;
    std::map<std::string, std::vector<const onnx::NodeProto *>> consumers_;
};

} // namespace tessera

#endif
