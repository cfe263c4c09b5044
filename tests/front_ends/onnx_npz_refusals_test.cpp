// Hostile input, round three: the ONNX front end and the npz reader against the findings
// of the third adversarial pass (issue 29), each from its description: a node with too
// few inputs, attribute arithmetic that overflows or narrows, shapes and layout
// constants that disagree, external data, a graph that is not a decoder; npz archives
// that promise more than they hold, a wrong CRC, a duplicate entry.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>

#include "onnx/onnx.pb.h"
#include "support/npz_builder.h"
#include "support/synthetic_model.h"
#include "tessera/errors.h"
#include "tessera/models/onnx.h"
#include "tessera/tools/npz.h"

namespace {

const std::string kGraphs = std::string(TESSERA_SHARED_DIR) + "/deeploy/microLlama/";

std::string read_bytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

class HostileOnnx : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!std::ifstream(kGraphs + "INT8/microLlama1/network.onnx")) GTEST_SKIP() << "no " << kGraphs;
        ASSERT_TRUE(int8_.ParseFromString(read_bytes(kGraphs + "INT8/microLlama1/network.onnx")));
        ASSERT_TRUE(fp32_.ParseFromString(read_bytes(kGraphs + "FP32/microLlama1/network.onnx")));
    }
    // What lowering the model says: "" when it is lowered. With TESSERA_REPRODUCERS=DIR,
    // each model is also written there (TEST_n.onnx), to run the tools of another build on.
    static std::string refusal(const onnx::ModelProto &m)
    {
        if (const char *dir = std::getenv("TESSERA_REPRODUCERS")) {
            static int n = 0;
            std::ofstream(std::string(dir) + "/" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                              std::to_string(n++) + ".onnx",
                          std::ios::binary)
                << m.SerializeAsString();
        }
        tessera::OnnxDecoderInfo info;
        try {
            tessera::lower_onnx_decoder_bytes(m.SerializeAsString(), "g.onnx", {}, info);
        } catch (const tessera::InputError &e) {
            return e.what();
        }
        return "";
    }
    static onnx::NodeProto *first(onnx::ModelProto &m, const std::string &op, int skip = 0)
    {
        for (onnx::NodeProto &n : *m.mutable_graph()->mutable_node())
            if (n.op_type() == op && skip-- == 0) return &n;
        return nullptr;
    }
    static onnx::AttributeProto *attribute(onnx::NodeProto *n, const std::string &name)
    {
        for (onnx::AttributeProto &a : *n->mutable_attribute())
            if (a.name() == name) return &a;
        return nullptr;
    }
    static void set_int(onnx::NodeProto *n, const std::string &name, int64_t v)
    {
        onnx::AttributeProto *a = attribute(n, name);
        ASSERT_NE(a, nullptr) << name;
        a->Clear();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(v);
    }
    onnx::ModelProto int8_, fp32_;
};

#define EXPECT_REFUSED(model, ...)                                                                                      \
    do {                                                                                                               \
        const std::string e_ = refusal(model);                                                                         \
        for (const std::string &w_ : {__VA_ARGS__}) EXPECT_NE(e_.find(w_), std::string::npos) << "want: " << w_ << "\n got: " << e_; \
    } while (0)

TEST_F(HostileOnnx, TheUnchangedGraphsLower)
{
    EXPECT_EQ(refusal(int8_), "");
    EXPECT_EQ(refusal(fp32_), "");
}

// Finding 1: a node with too few inputs was read past its end (heap overflow under ASan,
// protobuf's CHECK in Release).
TEST_F(HostileOnnx, ANodeWithTooFewInputsIsRefusedNamingIt)
{
    struct Case {
        onnx::ModelProto *model;
        const char *op;
        int keep; // inputs left
    };
    const Case cases[] = {{&int8_, "iRMSNorm", 1}, {&int8_, "MatMul", 1}, {&int8_, "RequantShift", 0},
                          {&fp32_, "RMSNorm", 1},  {&fp32_, "Div", 1},    {&int8_, "Add", 1}};
    for (const Case &c : cases) {
        onnx::ModelProto m = *c.model;
        onnx::NodeProto *n = first(m, c.op);
        ASSERT_NE(n, nullptr) << c.op;
        const std::string name = n->name();
        while (n->input_size() > c.keep) n->mutable_input()->RemoveLast();
        EXPECT_REFUSED(m, "g.onnx: node '" + name + "' (" + c.op + "): has " + std::to_string(c.keep) + " inputs; the decoder's " +
                              c.op + " takes");
    }
    // A duplicated input is as wrong as a missing one; an unnamed (omitted) one too.
    onnx::ModelProto m = int8_;
    first(m, "MatMul")->add_input(first(m, "MatMul")->input(0));
    EXPECT_REFUSED(m, "has 3 inputs; the decoder's MatMul takes 2");
    m = int8_;
    first(m, "RequantShift")->set_input(1, "");
    EXPECT_REFUSED(m, "input 1 is left unnamed");
}

// Finding 2: arithmetic on attribute values, checked: overflow is a refusal naming the
// node and attribute, and nothing is narrowed before its range check.
TEST_F(HostileOnnx, AttributeArithmeticThatOverflowsIsRefused)
{
    onnx::ModelProto m = int8_;
    onnx::NodeProto *div = first(m, "TrueIntegerDiv");
    set_int(div, "Delta", int64_t(1) << 30);
    set_int(div, "eta", int64_t(1) << 30);
    set_int(div, "y", 0);
    set_int(div, "eps", 1);
    EXPECT_REFUSED(m, "(TrueIntegerDiv): Delta x eta / (y x eta + eps) = 1152921504606846976 is outside +-2^23");
    m = int8_;
    set_int(first(m, "TrueIntegerDiv"), "y", int64_t(1) << 62);
    EXPECT_REFUSED(m, "(TrueIntegerDiv): attribute 'y' = 4611686018427387904 is outside -1073741824..1073741824");
    for (const char *coeff : {"coeffA", "coeffB", "coeffC"}) {
        m = int8_;
        onnx::NodeProto *sm = first(m, "iSoftmax");
        set_int(sm, coeff, std::numeric_limits<int64_t>::min());
        EXPECT_REFUSED(m, "(iSoftmax): attribute '" + std::string(coeff) + "' = -9223372036854775808 is outside");
    }
    m = int8_;
    set_int(first(m, "iHardswish"), "three", (int64_t(1) << 32) + 3);
    EXPECT_REFUSED(m, "(iHardswish): attribute 'three' = 4294967299 is outside 0..32768");
}

// A FLOAT attribute where an integer is expected: refused whatever it holds (inf and 1e30
// were cast to long, undefined behaviour).
TEST_F(HostileOnnx, AFloatAttributeWhereAnIntegerIsExpectedIsRefused)
{
    for (float f : {std::numeric_limits<float>::infinity(), 1e30f, 128.0f}) {
        onnx::ModelProto m = int8_;
        onnx::AttributeProto *a = attribute(first(m, "RequantShift"), "div");
        a->Clear();
        a->set_name("div");
        a->set_type(onnx::AttributeProto::FLOAT);
        a->set_f(f);
        EXPECT_REFUSED(m, "(RequantShift): attribute 'div' is a FLOAT; an integer is expected");
    }
}

// Shapes: a dimension or S_past beyond what fits was packed wrapped (2^32 + 64 as 64).
TEST_F(HostileOnnx, DeclaredShapesBeyondRangeAreRefused)
{
    onnx::ModelProto m = int8_;
    auto dim_of = [](onnx::ModelProto &mm, int input, int d) {
        return mm.mutable_graph()->mutable_input(input)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(d);
    };
    dim_of(m, 0, 2)->set_dim_value((int64_t(1) << 32) + 64);
    EXPECT_REFUSED(m, "has a dimension of 4294967360, above the 2^24");
    m = int8_;
    for (int i = 3; i < m.graph().input_size(); ++i) dim_of(m, i, 2)->set_dim_value(4294967295);
    EXPECT_REFUSED(m, "has a dimension of 4294967295");
}

// Declared input shapes must agree with the graph's layout constants: 64 heads of size 1
// declared beside Reshapes into 16 heads of 4 were packed as 64 heads.
TEST_F(HostileOnnx, LayoutConstantsThatDisagreeWithTheDeclaredShapesAreRefused)
{
    onnx::ModelProto m = int8_;
    for (int i = 3; i < m.graph().input_size(); ++i) { // every past cache [1, 64, S_past, 1]
        auto *shape = m.mutable_graph()->mutable_input(i)->mutable_type()->mutable_tensor_type()->mutable_shape();
        shape->mutable_dim(1)->set_dim_value(64);
        shape->mutable_dim(3)->set_dim_value(1);
    }
    auto *rot = m.mutable_graph()->mutable_input(2)->mutable_type()->mutable_tensor_type()->mutable_shape();
    rot->mutable_dim(2)->set_dim_value(1);
    rot->mutable_dim(3)->set_dim_value(1);
    EXPECT_REFUSED(m, "(Reshape): reshapes to [1, 1, 16, 4], neither [1, 1, 64, 1]");
    m = int8_;
    onnx::AttributeProto *perm = attribute(first(m, "Transpose"), "perm");
    perm->clear_ints();
    for (int64_t v : {7, -3, 99}) perm->add_ints(v);
    EXPECT_REFUSED(m, "(Transpose): perm [7, -3, 99] is neither [0, 2, 1, 3] nor [0, 1, 3, 2]");
}

// data_location EXTERNAL names a file beside the model: never opened, and no longer
// ignored in favour of raw_data.
TEST_F(HostileOnnx, ExternalDataIsRefusedByName)
{
    onnx::ModelProto m = int8_;
    onnx::TensorProto *t = m.mutable_graph()->mutable_initializer(0);
    const std::string name = t->name();
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    onnx::StringStringEntryProto *where = t->add_external_data();
    where->set_key("location");
    where->set_value("/etc/passwd");
    EXPECT_REFUSED(m, "initializer '" + name + "' keeps its data in an external file (data_location EXTERNAL)");
}

// A graph that is not a decoder names the first node that makes it so, not an input count.
TEST_F(HostileOnnx, AGraphThatIsNotADecoderNamesItsFirstNode)
{
    onnx::ModelProto m = int8_;
    while (m.graph().input_size() > 1) m.mutable_graph()->mutable_input()->RemoveLast();
    const std::string node = m.graph().node(0).name(), op = m.graph().node(0).op_type();
    EXPECT_REFUSED(m, "node '" + node + "' (" + op + "): is the first node of a graph with 1 inputs: not a decoder");
}

// ---- npz -----------------------------------------------------------------------------

using tessera::test::npy_bytes;
using tessera::test::zip_of;

std::string npz_refusal(const std::string &bytes, const tessera::NpzLimits &limits = {})
{
    try {
        tessera::parse_npz(bytes, "v.npz", limits);
    } catch (const tessera::InputError &e) {
        return e.what();
    }
    return "";
}

// Finding 3: a shape is checked before anything is inflated or allocated. A 4 MiB int8
// array of zeros deflates to about 4 KiB: refused from its header, at the caller's limit.
TEST(HostileNpz, AShapeOverTheLimitIsRefusedBeforeItsDataIsRead)
{
    const std::string zeros(size_t(4) << 20, '\0');
    const std::string bomb = zip_of({{"x.npy", npy_bytes("{'descr': '|i1', 'fortran_order': False, 'shape': (4194304,), }", zeros)}}, true);
    EXPECT_LT(bomb.size(), 64u << 10);
    tessera::NpzLimits limits;
    limits.max_elements = 65536;
    EXPECT_NE(npz_refusal(bomb, limits).find("v.npz: x.npy: 4194304 elements, more than the 65536 an array may have here"),
              std::string::npos)
        << npz_refusal(bomb, limits);
    EXPECT_EQ(npz_refusal(bomb), "") << "within the default limits it is read";
    limits = {};
    limits.max_bytes = 1 << 20;
    EXPECT_NE(npz_refusal(bomb, limits).find("more than the 1048576 they may have here"), std::string::npos);
    limits = {};
    limits.max_arrays = 0;
    EXPECT_NE(npz_refusal(bomb, limits).find("1 entries, more than the 0 arrays"), std::string::npos);
}

// Elements kept in their own type: an int8 array of n elements holds n bytes, not 8n.
TEST(HostileNpz, ElementsAreKeptInTheirOwnType)
{
    const std::string data(1000, '\x05');
    const auto arrays = tessera::parse_npz(
        zip_of({{"x.npy", npy_bytes("{'descr': '|i1', 'fortran_order': False, 'shape': (1000,), }", data)}}, false), "v.npz");
    ASSERT_EQ(arrays.size(), 1u);
    EXPECT_EQ(arrays[0].raw.size(), 1000u);
    EXPECT_TRUE(arrays[0].values.empty());
    EXPECT_EQ(arrays[0].value(999), 5.0);
}

// A declared entry size beyond what its compressed bytes can give is refused before it
// is allocated (1.2 KB claiming 2^31 - 1 bytes reached 2.1 GB).
TEST(HostileNpz, ADeclaredSizeBeyondTheArchiveIsRefused)
{
    std::string zip = zip_of({{"x.npy", npy_bytes("{'descr': '|i1', 'fortran_order': False, 'shape': (16,), }", std::string(16, 'a'))}}, false);
    // The central directory's uncompressed size (offset 24 in its entry) and the local header's (22).
    const size_t central = zip.rfind(std::string("PK\x01\x02", 4));
    ASSERT_NE(central, std::string::npos);
    const uint32_t huge = 0x7FFFFFFF;
    std::memcpy(&zip[central + 24], &huge, 4);
    std::memcpy(&zip[22], &huge, 4);
    const std::string e = npz_refusal(zip);
    EXPECT_NE(e.find("claims 2147483647 bytes from"), std::string::npos) << e;
}

TEST(HostileNpz, AWrongCrcIsRefused)
{
    std::string zip = zip_of({{"x.npy", npy_bytes("{'descr': '|i1', 'fortran_order': False, 'shape': (16,), }", std::string(16, 'a'))}}, false);
    const size_t data = zip.find(std::string(16, 'a'));
    ASSERT_NE(data, std::string::npos);
    zip[data + 3] = 'b'; // the stored data changed, its CRC not
    const std::string e = npz_refusal(zip);
    EXPECT_NE(e.find("v.npz: x.npy: its CRC-32 does not match its data"), std::string::npos) << e;
}

// Two entries of one name: our words, not libzip's ("File already exists").
TEST(HostileNpz, ADuplicateEntryIsRefusedInOurWords)
{
    const std::string one = npy_bytes("{'descr': '|i1', 'fortran_order': False, 'shape': (4,), }", "abcd");
    std::string zip = zip_of({{"x.npy", one}, {"y.npy", one}}, false);
    // Rename y.npy to x.npy in both headers.
    for (size_t at = zip.find("y.npy"); at != std::string::npos; at = zip.find("y.npy", at + 1)) zip[at] = 'x';
    const std::string e = npz_refusal(zip);
    EXPECT_EQ(e.find("File already exists"), std::string::npos) << e;
    EXPECT_TRUE(e.find("two entries have the same name") != std::string::npos ||
                e.find("a second entry of that name") != std::string::npos)
        << e;
}

} // namespace
