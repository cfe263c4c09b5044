#include "onnx_reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tessera/errors.h"
#include "tessera/models/onnx.h"

namespace tessera {

constexpr uint64_t kMaxModelBytes = 1u << 30; // protobuf's own limit is 2 GiB

namespace {

// A protobuf varint at b[i], advancing i; false when it runs past `end` or over 10 bytes.
bool read_varint(const std::vector<uint8_t> &b, size_t &i, uint64_t &v)
{
    v = 0;
    for (int shift = 0; shift < 70 && i < b.size(); shift += 7) {
        const uint8_t c = b[i++];
        v |= uint64_t(c & 0x7F) << shift;
        if (!(c & 0x80)) return true;
    }
    return false;
}

} // namespace

bool is_onnx_model(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec || size < 2) return false;
    std::vector<uint8_t> b(size_t(std::min<uint64_t>(size, 4096)));
    if (!in.read(reinterpret_cast<char *>(b.data()), std::streamsize(b.size()))) return false;
    // ModelProto's fields (onnx.proto): number -> wire type (0 varint, 2 length-delimited).
    auto wire_of = [](uint64_t field) -> int {
        switch (field) {
        case 1: case 5: return 0;                                      // ir_version, model_version
        case 2: case 3: case 4: case 6: case 7: case 8: case 14: case 20: case 25: return 2;
        default: return -1;
        }
    };
    size_t i = 0;
    bool first = true;
    while (i < b.size()) {
        uint64_t tag = 0, value = 0;
        if (!read_varint(b, i, tag)) return !first && i >= b.size(); // a tag cut by the head's end
        const uint64_t field = tag >> 3, wire = tag & 7;
        if (wire_of(field) != int(wire)) return false;
        if (first && field != 1) return false; // every writer puts ir_version first
        if (!read_varint(b, i, value)) return !first && i >= b.size();
        if (first && (value < 1 || value > 100)) return false;
        first = false;
        if (wire == 2) {
            if (value > size - i) return false; // runs past the file
            i += size_t(std::min<uint64_t>(value, b.size() - i));
        }
    }
    return !first;
}

std::string read_onnx_file(const std::string &path)
{
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(path + ": cannot read the ONNX model (" + ec.message() + ")");
    if (size > kMaxModelBytes) throw InputError(path + ": " + std::to_string(size) + " bytes is above the 1 GiB an ONNX model may have here");
    std::ifstream in(path, std::ios::binary);
    std::string bytes(size, '\0');
    if (!in || !in.read(bytes.data(), std::streamsize(size))) throw InputError(path + ": cannot read the ONNX model");
    return bytes;
}

OnnxModel::OnnxModel(const std::string &bytes, const std::string &path, const std::map<std::string, OnnxOp> &supported)
    : path_(path)
{
    if (bytes.size() > kMaxModelBytes) fail(std::to_string(bytes.size()) + " bytes is above the 1 GiB an ONNX model may have here");
    if (!model_.ParseFromString(bytes))
        throw InputError(path + ": not an ONNX model: the protobuf is truncated or corrupt (" + std::to_string(bytes.size()) +
                         " bytes)");
    if (!model_.has_graph() || model_.graph().node_size() == 0) fail("the model has no graph or no nodes");
    const onnx::GraphProto &g = model_.graph();
    for (const onnx::TensorProto &t : g.initializer()) {
        if (t.data_location() == onnx::TensorProto::EXTERNAL)
            fail("initializer '" + t.name() + "' keeps its data in an external file (data_location EXTERNAL), which "
                 "this front end never opens: save the model with its data inside");
        if (!initializers_.emplace(t.name(), &t).second) fail("initializer '" + t.name() + "' is given twice");
    }
    for (const onnx::ValueInfoProto &v : g.input())
        if (!initializers_.count(v.name())) inputs_.push_back(&v);
    for (const onnx::NodeProto &n : g.node()) {
        const auto op = supported.find(n.op_type());
        if (!n.domain().empty() || op == supported.end())
            fail(n, "operator '" + (n.domain().empty() ? "" : n.domain() + ".") + n.op_type() + "' is not supported");
        const std::vector<std::string> &allowed = op->second.attributes;
        for (const onnx::AttributeProto &a : n.attribute())
            if (std::find(allowed.begin(), allowed.end(), a.name()) == allowed.end())
                fail(n, "attribute '" + a.name() + "' is not supported");
        if (n.input_size() != op->second.inputs)
            fail(n, "has " + std::to_string(n.input_size()) + " inputs; the decoder's " + n.op_type() + " takes " +
                        std::to_string(op->second.inputs));
        for (int i = 0; i < n.input_size(); ++i)
            if (n.input(i).empty()) fail(n, "input " + std::to_string(i) + " is left unnamed (an omitted optional input)");
        if (n.output_size() != 1) fail(n, "has " + std::to_string(n.output_size()) + " outputs, not 1");
        if (n.output(0).empty()) fail(n, "its output is unnamed");
        if (!producers_.emplace(n.output(0), &n).second) fail(n, "its output '" + n.output(0) + "' is made twice");
        for (const std::string &in : n.input()) consumers_[in].push_back(&n);
    }
}

int64_t OnnxModel::opset() const
{
    for (const onnx::OperatorSetIdProto &o : model_.opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
    return 0;
}

std::vector<int64_t> OnnxModel::shape_of(const onnx::ValueInfoProto &v) const
{
    std::vector<int64_t> dims;
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) fail("'" + v.name() + "' has no tensor shape");
    for (const onnx::TensorShapeProto_Dimension &d : v.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0) fail("'" + v.name() + "' has a symbolic or negative dimension");
        if (d.dim_value() > (1 << 24))
            fail("'" + v.name() + "' has a dimension of " + std::to_string(d.dim_value()) + ", above the 2^24 this front end reads");
        dims.push_back(d.dim_value());
    }
    return dims;
}

IntTensor OnnxModel::decode(const onnx::TensorProto &t, const std::string &what) const
{
    IntTensor out;
    if (t.data_location() == onnx::TensorProto::EXTERNAL)
        fail(what + ": keeps its data in an external file (data_location EXTERNAL), which this front end never opens");
    uint64_t count = 1;
    for (int64_t d : t.dims()) {
        if (d < 0 || d > (1 << 24)) fail(what + ": dimension " + std::to_string(d) + " out of range");
        out.dims.push_back(d);
        count *= uint64_t(d);
        if (count > (1u << 26)) fail(what + ": more than 2^26 elements");
    }
    auto take = [&](double v) {
        if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9.0e15)
            fail(what + ": holds " + std::to_string(v) + ", not an integer");
        out.values.push_back(int64_t(v));
    };
    const std::string &raw = t.raw_data();
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
        if (!raw.empty()) {
            if (raw.size() != count * 4) fail(what + ": raw data is " + std::to_string(raw.size()) + " bytes, not " + std::to_string(count * 4));
            for (uint64_t i = 0; i < count; ++i) {
                float f;
                std::memcpy(&f, raw.data() + 4 * i, 4);
                take(f);
            }
        } else {
            if (uint64_t(t.float_data_size()) != count) fail(what + ": holds " + std::to_string(t.float_data_size()) + " values, not " + std::to_string(count));
            for (float f : t.float_data()) take(f);
        }
        break;
    case onnx::TensorProto::INT64:
        if (!raw.empty()) {
            if (raw.size() != count * 8) fail(what + ": raw data is " + std::to_string(raw.size()) + " bytes, not " + std::to_string(count * 8));
            out.values.resize(count);
            std::memcpy(out.values.data(), raw.data(), count * 8);
        } else {
            if (uint64_t(t.int64_data_size()) != count) fail(what + ": holds " + std::to_string(t.int64_data_size()) + " values, not " + std::to_string(count));
            out.values.assign(t.int64_data().begin(), t.int64_data().end());
        }
        break;
    case onnx::TensorProto::INT32:
        if (!raw.empty()) {
            if (raw.size() != count * 4) fail(what + ": raw data is " + std::to_string(raw.size()) + " bytes, not " + std::to_string(count * 4));
            for (uint64_t i = 0; i < count; ++i) {
                int32_t v;
                std::memcpy(&v, raw.data() + 4 * i, 4);
                out.values.push_back(v);
            }
        } else {
            if (uint64_t(t.int32_data_size()) != count) fail(what + ": holds " + std::to_string(t.int32_data_size()) + " values, not " + std::to_string(count));
            out.values.assign(t.int32_data().begin(), t.int32_data().end());
        }
        break;
    default: fail(what + ": element type " + std::to_string(t.data_type()) + " (float32, int32 or int64 only)");
    }
    return out;
}

IntTensor OnnxModel::initializer(const std::string &name, const onnx::NodeProto &user) const
{
    const auto it = initializers_.find(name);
    if (it == initializers_.end()) fail(user, "input '" + name + "' is not a constant");
    return decode(*it->second, "node '" + user.name() + "' (" + user.op_type() + "): constant '" + name + "'");
}

FloatTensor OnnxModel::float_initializer(const std::string &name, const onnx::NodeProto &user) const
{
    const auto it = initializers_.find(name);
    if (it == initializers_.end()) fail(user, "input '" + name + "' is not a constant");
    const onnx::TensorProto &t = *it->second;
    const std::string what = "constant '" + name + "'";
    if (t.data_type() != onnx::TensorProto::FLOAT) fail(user, what + " is not float32");
    if (t.data_location() == onnx::TensorProto::EXTERNAL) fail(user, what + ": keeps its data in an external file");
    FloatTensor out;
    uint64_t count = 1;
    for (int64_t d : t.dims()) {
        if (d < 0 || d > (1 << 24)) fail(user, what + ": dimension " + std::to_string(d) + " out of range");
        out.dims.push_back(d);
        count *= uint64_t(d);
        if (count > (1u << 26)) fail(user, what + ": more than 2^26 elements");
    }
    if (!t.raw_data().empty()) {
        if (t.raw_data().size() != count * 4) fail(user, what + ": raw data does not match its shape");
        out.values.resize(count);
        std::memcpy(out.values.data(), t.raw_data().data(), count * 4);
    } else {
        if (uint64_t(t.float_data_size()) != count) fail(user, what + ": data does not match its shape");
        out.values.assign(t.float_data().begin(), t.float_data().end());
    }
    for (float v : out.values)
        if (!std::isfinite(v)) fail(user, what + ": holds a value that is not finite");
    return out;
}

const onnx::NodeProto *OnnxModel::producer(const std::string &tensor) const
{
    const auto it = producers_.find(tensor);
    return it == producers_.end() ? nullptr : it->second;
}

std::vector<const onnx::NodeProto *> OnnxModel::consumers(const std::string &tensor) const
{
    const auto it = consumers_.find(tensor);
    return it == consumers_.end() ? std::vector<const onnx::NodeProto *>{} : it->second;
}

std::vector<int64_t> OnnxModel::ints_attribute(const onnx::NodeProto &node, const std::string &name) const
{
    for (const onnx::AttributeProto &a : node.attribute()) {
        if (a.name() != name) continue;
        switch (a.type()) {
        case onnx::AttributeProto::INT: return {a.i()};
        case onnx::AttributeProto::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
        case onnx::AttributeProto::FLOAT:
        case onnx::AttributeProto::FLOATS:
            fail(node, "attribute '" + name + "' is a FLOAT; an integer is expected (INT, INTS, or a TENSOR of integers)");
        case onnx::AttributeProto::TENSOR:
            return decode(a.t(), "node '" + node.name() + "' (" + node.op_type() + "): attribute '" + name + "'").values;
        default: fail(node, "attribute '" + name + "' has an unsupported type");
        }
    }
    fail(node, "has no attribute '" + name + "'");
}

int64_t OnnxModel::int_attribute(const onnx::NodeProto &node, const std::string &name) const
{
    const std::vector<int64_t> v = ints_attribute(node, name);
    if (v.size() != 1) fail(node, "attribute '" + name + "' has " + std::to_string(v.size()) + " values, not 1");
    return v[0];
}

int64_t OnnxModel::int_attribute(const onnx::NodeProto &node, const std::string &name, int64_t lo, int64_t hi) const
{
    const int64_t v = int_attribute(node, name);
    if (v < lo || v > hi)
        fail(node, "attribute '" + name + "' = " + std::to_string(v) + " is outside " + std::to_string(lo) + ".." +
                       std::to_string(hi));
    return v;
}

void OnnxModel::fail(const onnx::NodeProto &node, const std::string &what) const
{
    throw InputError(path_ + ": node '" + node.name() + "' (" + node.op_type() + "): " + what);
}

void OnnxModel::fail(const std::string &what) const { throw InputError(path_ + ": " + what); }

} // namespace tessera
