// Deeploy's integer graphs: QuantLib's arithmetic by hand, the kernels against their
// references and the NPU's job, the ONNX and npz readers' refusals, decoder-only
// sessions, and one image of microLlama128 run at every position of its context.
// (Bit-exactness against Deeploy's own vectors: the deeploy_* and firmware_deeploy_*
// tests, which run tessera-eval and the firmware on ../shared/deeploy.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "onnx/onnx.pb.h"
#include "support/packed_image.h"
#include "support/npz_builder.h"
#include "support/synthetic_model.h"
#include "tessera/errors.h"
#include "tessera/kernels_quantlib.h"
#include "tessera/models/onnx.h"
#include "tessera/npu.h"
#include "tessera/pack/engines.h"
#include "tessera/tools/npz.h"
#include "tools/eval/test_vectors.h"

namespace {

namespace fs = std::filesystem;

const std::string kGraphs = std::string(TESSERA_SHARED_DIR) + "/deeploy/microLlama/INT8/";

bool have_graphs() { return fs::exists(kGraphs + "microLlama128/network.onnx"); }

using tessera::test::temp_path; // the process's own folder, removed at exit (and by test.sh after a killed test)

std::string read_bytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_bytes(const std::string &path, const std::string &bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

// ---- QuantLib's arithmetic, by hand ---------------------------------------------------

// floor((x mul + add + 2^(shift-1)) / 2^shift): round half up, then the range.
TEST(RequantShift, RoundsHalfUpAndClamps)
{
    const tsr_rqs_params r = {3, 0, 2, -128, 127};
    EXPECT_EQ(tsr_rqs(5, &r), 4);   // 15 / 4 = 3.75 -> 4
    EXPECT_EQ(tsr_rqs(-5, &r), -4); // -15 / 4 = -3.75 -> -4
    EXPECT_EQ(tsr_rqs(2, &r), 2);   // 6 / 4 = 1.5 -> 2 (half up)
    EXPECT_EQ(tsr_rqs(-2, &r), -1); // -6 / 4 = -1.5 -> -1 (half up, not away from zero)
    EXPECT_EQ(tsr_rqs(1000, &r), 127);
    EXPECT_EQ(tsr_rqs(-1000, &r), -128);
    const tsr_rqs_params with_add = {1, 10, 0, 0, 255};
    EXPECT_EQ(tsr_rqs(-20, &with_add), 0); // unsigned range
    EXPECT_EQ(tsr_rqs(5, &with_add), 15);
}

// The 32-bit form the kernels take (tsr_rqs_prepare and tsr_rqs_apply) against the
// 64-bit definition: it gives tsr_rqs's value, and where it is taken x mul + add + round
// stays within int32 (checked in 128-bit arithmetic here).
TEST(RequantShift, ThirtyTwoBitFormsEqualTheDefinition)
{
    std::mt19937 rng(2026);
    std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), small(-70000, 70000), shift(0, 40);
    std::uniform_int_distribution<int> pick(0, 3);
    auto draw = [&](int kind) { return kind == 0 ? any(rng) : kind == 1 ? small(rng) : kind == 2 ? INT32_MIN : INT32_MAX; };
    int narrow = 0;
    for (int i = 0; i < 200000; ++i) {
        const tsr_rqs_params r = {draw(pick(rng) % 2 ? 1 : pick(rng)), draw(pick(rng) % 2 ? 1 : pick(rng)), shift(rng),
                                  -128, 127};
        const int32_t x = i % 3 ? small(rng) : draw(pick(rng));
        const tsr_rqs_prepared p = tsr_rqs_prepare(&r);
        const __int128 round = r.shift ? __int128(1) << (r.shift - 1) : 0;
        const __int128 sum = __int128(x) * r.mul + r.add + round;
        const bool fits = r.shift < 31 && sum >= INT32_MIN && sum <= INT32_MAX &&
                          __int128(x) * r.mul >= INT32_MIN && __int128(x) * r.mul <= INT32_MAX;
        ASSERT_EQ(tsr_rqs_apply(&p, x), tsr_rqs(x, &r)) << r.mul << " " << r.add << " " << r.shift << " " << x;
        const bool taken = uint32_t(x) + p.limit < p.span;
        if (taken) { // then no intermediate leaves int32
            ASSERT_TRUE(fits) << r.mul << " " << r.add << " " << r.shift << " " << x;
            ++narrow;
        }
    }
    EXPECT_GT(narrow, 10000); // the 32-bit form was exercised
    // At the edge: x mul + add + round = 2^31 - 1 is taken, one more is not.
    const tsr_rqs_params edge = {1, 0x7FFFFFFF - 2, 2, INT32_MIN, INT32_MAX}; // round 2
    const tsr_rqs_prepared p = tsr_rqs_prepare(&edge);
    EXPECT_EQ(p.limit, 0u);
    EXPECT_TRUE(0u + p.limit < p.span);
    EXPECT_FALSE(1u + p.limit < p.span);
    EXPECT_EQ(tsr_rqs_apply(&p, 1), tsr_rqs(1, &edge));
}

TEST(IntegerSqrt, IsTheFloorOfTheRoot)
{
    for (uint32_t v = 0; v < 70000; ++v) ASSERT_EQ(tsr_isqrt_u32(v), uint32_t(std::floor(std::sqrt(double(v))))) << v;
    EXPECT_EQ(tsr_isqrt_u32(0xFFFFFFFFu), 65535u);
    EXPECT_EQ(tsr_isqrt_u32(65536u * 65536u - 1u), 65535u);
}

// iRMSNorm of one row of 4: sum x^2 = 4 + 16 + 36 + 64 = 120, floor(120 / 4) + 1 = 31,
// isqrt 5; y = trunc(x w / 5) >> 1 with w = 10: 2 -> 4 >> 1 = 2, -4 -> -8 >> 1 = -4,
// 6 -> 12 >> 1 = 6, -8 -> -16 >> 1 = -8.
TEST(IRmsNorm, OneRowByHand)
{
    const int8_t x[4] = {2, -4, 6, -8};
    const int32_t w[4] = {10, 10, 10, 10};
    int8_t y[4];
    const tsr_irmsnorm_i8_args a = {x, w, y, 1, 4, 1, -128, 127};
    ASSERT_EQ(tsr_irmsnorm_i8(&a, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(y[0], 2);
    EXPECT_EQ(y[1], -4);
    EXPECT_EQ(y[2], 6);
    EXPECT_EQ(y[3], -8);
    const int32_t wide[4] = {1 << 24, 0, 0, 0}; // outside the documented range
    const tsr_irmsnorm_i8_args bad = {x, wide, y, 1, 4, 1, -128, 127};
    EXPECT_EQ(tsr_irmsnorm_i8(&bad, 0, 1), TSR_KERNEL_BAD_ARGUMENT);
}

// iHardswish then the two RequantShifts: g = 2, three 3, six 6, one_over_six 1:
// h = 2 clamp(5, 0, 6) 1 = 10; rqs_act (identity) 10; y = rqs_y(10 x up = 30) = 30 >> 1 = 15.
TEST(Hardswish, OneValueByHand)
{
    const int8_t gate[1] = {2}, up[1] = {3};
    int8_t y[1];
    const tsr_rqs_params id = {1, 0, 0, -128, 127}, half = {1, 0, 1, -128, 127};
    const tsr_hardswish_i8_args a = {gate, up, y, 3, 6, 1, &id, &half, 1};
    ASSERT_EQ(tsr_hardswish_i8(&a, 0, 1), TSR_KERNEL_OK);
    EXPECT_EQ(y[0], 15);
}

// ---- kernels against their references ------------------------------------------------

struct RqsCase {
    uint32_t rows, k, n;
};

class MatmulRqs : public ::testing::TestWithParam<RqsCase> {};

TEST_P(MatmulRqs, OptimizedEqualsReferenceOnEveryCoreSplit)
{
    const RqsCase c = GetParam();
    std::mt19937 rng(c.rows * 7919u + c.k * 31u + c.n);
    std::uniform_int_distribution<int> i8(-128, 127), mul(-600, 70000), add(-100000, 100000);
    std::vector<int8_t> x(size_t(c.rows) * c.k), w(size_t(c.n) * c.k);
    std::vector<int32_t> m(c.n), a(c.n);
    for (auto &v : x) v = int8_t(i8(rng));
    for (auto &v : w) v = int8_t(i8(rng));
    for (uint32_t i = 0; i < c.n; ++i) m[i] = mul(rng), a[i] = add(rng);
    for (uint32_t cores : {1u, 3u, 8u}) {
        std::vector<int8_t> want(size_t(c.rows) * c.n), got(want.size());
        tsr_matmul_i8_rqs_args args = {x.data(), w.data(), m.data(), a.data(), want.data(), {0, 0, 16, -128, 127},
                                       c.rows, c.k, c.n, c.n};
        for (uint32_t core = 0; core < cores; ++core) ASSERT_EQ(tsr_matmul_i8_rqs_ref(&args, core, cores), TSR_KERNEL_OK);
        args.y = got.data();
        for (uint32_t core = 0; core < cores; ++core) ASSERT_EQ(tsr_matmul_i8_rqs(&args, core, cores), TSR_KERNEL_OK);
        ASSERT_EQ(want, got) << cores << " cores";
        // One value by hand: the reference is a plain dot product and RequantShift.
        int64_t acc = 0;
        for (uint32_t j = 0; j < c.k; ++j) acc += x[j] * w[j];
        const tsr_rqs_params r = {m[0], a[0], 16, -128, 127};
        EXPECT_EQ(want[0], tsr_rqs(acc, &r));
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatmulRqs,
                         ::testing::Values(RqsCase{1, 64, 64}, RqsCase{8, 64, 256}, RqsCase{3, 256, 64}, RqsCase{5, 37, 13},
                                           RqsCase{1, 1, 1}, RqsCase{64, 64, 36}, RqsCase{9, 2050, 11},
                                           RqsCase{12, 1024, 9}, RqsCase{4, 3, 1}));

// The float blocks at their limit: every product -128 x -128 = 2^14, k up to 3 x 1024 + 5,
// each sum exactly k 2^14 (the rows of four go through exact float blocks of 1024).
TEST(MatmulRqsExtremes, LargestSumsAreExact)
{
    for (uint32_t k : {1024u, 1025u, 3077u}) {
        const uint32_t rows = 8, n = 12;
        std::vector<int8_t> x(size_t(rows) * k, -128), w(size_t(n) * k, -128), y(size_t(rows) * n);
        std::vector<int32_t> m(n, 1), a(n, 0);
        // mul 1, shift 24: k 2^14 / 2^24 = k / 1024, rounded half up.
        tsr_matmul_i8_rqs_args args = {x.data(), w.data(), m.data(), a.data(), y.data(), {0, 0, 24, -128, 127}, rows, k, n, n};
        for (uint32_t core = 0; core < 3; ++core) ASSERT_EQ(tsr_matmul_i8_rqs(&args, core, 3), TSR_KERNEL_OK);
        const int want = int((uint64_t(k) * 16384 + (1u << 23)) >> 24);
        for (int8_t v : y) ASSERT_EQ(v, want) << k;
        // one weight changed by one step moves the sum by 128: seen at shift 7 (sum / 128)
        w[5] = -127;
        args.range.shift = 7;
        std::vector<int32_t> sub(n, 1), off(n, -int32_t(k) * 16384 + 64); // sum - k 2^14 + 64 -> (sum - k 2^14) / 128 + 1
        args.mul = sub.data();
        args.add = off.data();
        for (uint32_t core = 0; core < 3; ++core) ASSERT_EQ(tsr_matmul_i8_rqs(&args, core, 3), TSR_KERNEL_OK);
        for (uint32_t r = 0; r < rows; ++r)
            for (uint32_t c = 0; c < n; ++c) ASSERT_EQ(y[r * n + c], c == 0 ? 0 : 1) << k << " " << r << " " << c;
        w[5] = -128;
    }
}

// The attention's kernels for the usual head sizes (unrolled) and any other, against
// the definitions written out here: scores through the visible and masked tables,
// iSoftmax through the exponential table, the probabilities' sums and their RequantShift.
TEST(QuantlibAttention, KernelsEqualTheirDefinitionForEveryHeadSize)
{
    std::mt19937 rng(77);
    std::uniform_int_distribution<int> i8(-128, 127), e(0, TSR_QUANTLIB_MAX_EXP), sparse(0, 3);
    tsr_quantlib_attention t{};
    t.scores = {37, -900, 9, -128, 127};
    t.out = {5, 300, 12, -128, 127};
    t.levels = 255;
    for (int i = 0; i < 256; ++i) {
        t.visible[i] = int8_t(i8(rng)), t.masked[i] = int8_t(i8(rng)), t.exp[i] = e(rng), t.prob[i] = int8_t(i8(rng));
        if (sparse(rng) == 0) t.prob[i] = 0; // positions that add nothing
    }
    t.exp[0] = 1 << 20;
    for (uint32_t hs : {4u, 8u, 5u, 1u}) {
        const uint32_t count = 37, first = 3, row_pos = 20;
        std::vector<int8_t> q(hs), keys(size_t(count) * hs), u(count);
        for (auto &v : q) v = int8_t(i8(rng));
        for (auto &v : keys) v = int8_t(i8(rng));
        ASSERT_EQ(tsr_quantlib_scores(q.data(), keys.data(), u.data(), count, hs, first, row_pos, &t), TSR_KERNEL_OK);
        for (uint32_t j = 0; j < count; ++j) {
            int64_t dot = 0;
            for (uint32_t i = 0; i < hs; ++i) dot += q[i] * keys[size_t(j) * hs + i];
            const int s = tsr_rqs(dot, &t.scores) + 128;
            ASSERT_EQ(u[j], first + j <= row_pos ? t.visible[s] : t.masked[s]) << hs << " " << j;
        }
        std::vector<int8_t> probs(count);
        std::vector<int32_t> exps(count);
        ASSERT_EQ(tsr_quantlib_softmax(u.data(), probs.data(), exps.data(), count, &t), TSR_KERNEL_OK);
        const int max = *std::max_element(u.begin(), u.end());
        uint64_t sum = 0;
        for (uint32_t j = 0; j < count; ++j) sum += uint64_t(t.exp[max - u[j]]);
        for (uint32_t j = 0; j < count; ++j)
            ASSERT_EQ(probs[j], t.prob[uint64_t(t.exp[max - u[j]]) * 255 / sum]) << hs << " " << j;
        std::vector<int8_t> values(size_t(count) * hs);
        for (auto &v : values) v = int8_t(i8(rng));
        std::vector<int32_t> acc(hs, 11); // accumulates onto what is there
        ASSERT_EQ(tsr_quantlib_accumulate(probs.data(), values.data(), acc.data(), count, hs), TSR_KERNEL_OK);
        std::vector<int8_t> y(hs);
        ASSERT_EQ(tsr_quantlib_output(acc.data(), y.data(), hs, &t), TSR_KERNEL_OK);
        for (uint32_t i = 0; i < hs; ++i) {
            int64_t want = 11;
            for (uint32_t j = 0; j < count; ++j) want += probs[j] * values[size_t(j) * hs + i];
            ASSERT_EQ(acc[i], want) << hs << " " << i;
            ASSERT_EQ(y[i], tsr_rqs(want, &t.out)) << hs << " " << i;
        }
    }
}

// The elementwise kernels' 32-bit forms against the definitions (64-bit tsr_rqs).
TEST(QuantlibElementwise, KernelsEqualTheirDefinition)
{
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> i8(-128, 127), mul(-3000000, 3000000), add(-2000000000, 2000000000), sh(0, 34);
    const uint32_t count = 257;
    std::vector<int8_t> a(count), b(count), y(count);
    for (int round = 0; round < 50; ++round) {
        for (uint32_t i = 0; i < count; ++i) a[i] = int8_t(i8(rng)), b[i] = int8_t(i8(rng));
        const tsr_rqs_params ra = {mul(rng) / (round % 2 ? 1 : 1000), add(rng) / (round % 3 ? 1 : 100000), sh(rng), -128, 127};
        const tsr_rqs_params rb = {mul(rng) / 1000, add(rng) / 1000, sh(rng), -100, 90};
        const tsr_rqs_params ry = {mul(rng) / 3000, add(rng) / 10000, sh(rng), -128, 127};
        ASSERT_EQ(tsr_requant_i8(a.data(), y.data(), count, &ra, 0, 1), TSR_KERNEL_OK);
        for (uint32_t i = 0; i < count; ++i) ASSERT_EQ(y[i], tsr_rqs(a[i], &ra)) << round << " " << i;
        const tsr_add_i8_rqs_args add_args = {a.data(), b.data(), y.data(), &ra, &rb, &ry, count};
        ASSERT_EQ(tsr_add_i8_rqs(&add_args, 0, 1), TSR_KERNEL_OK);
        for (uint32_t i = 0; i < count; ++i)
            ASSERT_EQ(y[i], tsr_rqs(tsr_rqs(a[i], &ra) + tsr_rqs(b[i], &rb), &ry)) << round << " " << i;
        const int32_t three = 1 + round * 300, six = 2 * three, one_over_six = 32768 / (1 + round);
        const tsr_hardswish_i8_args hs = {a.data(), b.data(), y.data(), three, six, one_over_six, &ra, &ry, count};
        ASSERT_EQ(tsr_hardswish_i8(&hs, 0, 1), TSR_KERNEL_OK);
        for (uint32_t i = 0; i < count; ++i) {
            const int64_t g = a[i], c = std::clamp<int64_t>(g + three, 0, six);
            ASSERT_EQ(y[i], tsr_rqs(int64_t(tsr_rqs(g * c * one_over_six, &ra)) * b[i], &ry)) << round << " " << i;
        }
    }
}

// The NPU's RequantShift job on the packer's weight layout equals the cluster's reference.
TEST(NpuRequantShift, BitExactWithTheClusterReference)
{
    const uint32_t m = 4, n = 40, k = 70;
    std::mt19937 rng(42);
    std::uniform_int_distribution<int> i8(-128, 127), mul(1, 900), add(-50000, 50000);
    std::vector<int8_t> x(m * k), w(n * k), want(m * n), got(m * n);
    std::vector<int32_t> mult(n), addend(n);
    for (auto &v : x) v = int8_t(i8(rng));
    for (auto &v : w) v = int8_t(i8(rng));
    for (uint32_t c = 0; c < n; ++c) mult[c] = mul(rng), addend[c] = add(rng);
    const tsr_matmul_i8_rqs_args ref = {x.data(), w.data(), mult.data(), addend.data(), want.data(), {0, 0, 12, -128, 127}, m, k, n, n};
    ASSERT_EQ(tsr_matmul_i8_rqs_ref(&ref, 0, 1), TSR_KERNEL_OK);
    const std::vector<uint8_t> layout = tessera::npu_weight_layout(w.data(), n, k, 8);
    std::vector<uint32_t> words(layout.size() / 4);
    std::memcpy(words.data(), layout.data(), layout.size());
    tsr_npu_job job{};
    job.kind = TSR_NPU_GEMM_I8_RQS;
    job.weight_bits = 8;
    job.m = m, job.n = n, job.k = k, job.ldx = k, job.ldy = n;
    job.weights = words.data();
    job.input = x.data();
    job.output = got.data();
    job.multiplier = mult.data();
    job.addend = addend.data();
    job.rqs_shift = 12;
    tsr_npu_run_job(&job);
    EXPECT_EQ(want, got);
}

// ---- the ONNX reader's refusals ---------------------------------------------------------

std::string lower_error(const std::string &path)
{
    tessera::OnnxDecoderInfo info;
    try {
        tessera::lower_onnx_decoder(path, {}, info);
    } catch (const tessera::InputError &e) {
        return e.what();
    }
    return "";
}

onnx::ModelProto real_model()
{
    onnx::ModelProto m;
    EXPECT_TRUE(m.ParseFromString(read_bytes(kGraphs + "microLlama8/network.onnx")));
    return m;
}

std::string write_model(const onnx::ModelProto &m, const std::string &name)
{
    const std::string path = temp_path(name);
    write_bytes(path, m.SerializeAsString());
    return path;
}

TEST(OnnxReader, RefusesATruncatedOrCorruptProtobuf)
{
    if (!have_graphs()) GTEST_SKIP() << "no " << kGraphs;
    const std::string bytes = read_bytes(kGraphs + "microLlama8/network.onnx");
    const std::string cut = temp_path("cut.onnx"), garbage = temp_path("garbage.onnx");
    write_bytes(cut, bytes.substr(0, bytes.size() / 3));
    write_bytes(garbage, std::string(4096, '\xff'));
    for (const std::string &p : {cut, garbage}) {
        const std::string e = lower_error(p);
        EXPECT_NE(e.find(p + ": not an ONNX model: the protobuf is truncated or corrupt"), std::string::npos) << e;
        fs::remove(p);
    }
    EXPECT_NE(lower_error(temp_path("missing.onnx")).find("cannot read the ONNX model"), std::string::npos);
}

TEST(OnnxReader, RefusesAnUnsupportedOperatorOrAttributeByNodeName)
{
    if (!have_graphs()) GTEST_SKIP() << "no " << kGraphs;
    onnx::ModelProto m = real_model();
    onnx::NodeProto *n = m.mutable_graph()->mutable_node(3);
    const std::string name = n->name();
    n->set_op_type("Conv");
    const std::string p1 = write_model(m, "op.onnx");
    EXPECT_NE(lower_error(p1).find("node '" + name + "' (Conv): operator 'Conv' is not supported"), std::string::npos)
        << lower_error(p1);
    m = real_model();
    onnx::AttributeProto *a = m.mutable_graph()->mutable_node(3)->add_attribute();
    a->set_name("rounding");
    a->set_type(onnx::AttributeProto::INT);
    const std::string p2 = write_model(m, "attr.onnx");
    EXPECT_NE(lower_error(p2).find("attribute 'rounding' is not supported"), std::string::npos) << lower_error(p2);
    fs::remove(p1);
    fs::remove(p2);
}

TEST(OnnxReader, RefusesShapesThatDoNotMatch)
{
    if (!have_graphs()) GTEST_SKIP() << "no " << kGraphs;
    onnx::ModelProto m = real_model();
    m.mutable_graph()->mutable_input(2)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(3)->set_dim_value(8);
    const std::string p = write_model(m, "shape.onnx");
    EXPECT_NE(lower_error(p).find("is not the rotations [1, S, head_size, head_size]"), std::string::npos) << lower_error(p);
    fs::remove(p);
}

// A graph whose KV Concat is requantized by other than the identity is not a decoder
// the front end knows: its cache would be rescaled, not appended to.
TEST(OnnxReader, RefusesADecoderItDoesNotKnow)
{
    if (!have_graphs()) GTEST_SKIP() << "no " << kGraphs;
    onnx::ModelProto m = real_model();
    const std::string k_out = m.graph().output(1).name();
    std::string mul_name;
    for (const onnx::NodeProto &n : m.graph().node())
        if (n.output(0) == k_out) mul_name = n.input(1);
    ASSERT_FALSE(mul_name.empty());
    onnx::TensorProto *mul = m.mutable_graph()->add_initializer();
    mul->set_name("rescaled_mul");
    mul->set_data_type(onnx::TensorProto::FLOAT);
    mul->add_float_data(60000.0f);
    for (onnx::NodeProto &n : *m.mutable_graph()->mutable_node())
        if (n.output(0) == k_out) n.set_input(1, "rescaled_mul");
    const std::string p1 = write_model(m, "rescale.onnx");
    EXPECT_NE(lower_error(p1).find("the KV cache's requantization is not the identity"), std::string::npos) << lower_error(p1);
    // The final norm's output is not the graph's output: something else follows it.
    m = real_model();
    m.mutable_graph()->mutable_output(0)->set_name("elsewhere");
    const std::string p2 = write_model(m, "final.onnx");
    EXPECT_NE(lower_error(p2).find("the final norm is not the graph's first output"), std::string::npos) << lower_error(p2);
    fs::remove(p1);
    fs::remove(p2);
}

// ---- the npz reader ----------------------------------------------------------------------

std::string npy(const std::string &header_dict, const std::string &data) { return tessera::test::npy_bytes(header_dict, data); }

// A Fortran-order array is given in C order: (2, 3) stored column by column.
TEST(Npz, ReadsFortranOrderIntoCOrderAndRoundTrips)
{
    std::string data;
    for (int8_t v : {0, 3, 1, 4, 2, 5}) data.push_back(char(v)); // column-major [[0, 1, 2], [3, 4, 5]]
    const tessera::NpyArray f =
        tessera::parse_npy(npy("{'descr': '|i1', 'fortran_order': True, 'shape': (2, 3), }", data), "m", "m.npy");
    EXPECT_EQ(f.shape, (std::vector<uint64_t>{2, 3}));
    EXPECT_EQ(f.decoded(), (std::vector<double>{0, 1, 2, 3, 4, 5}));
    const tessera::NpyArray c =
        tessera::parse_npy(npy("{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3), }", data), "m", "m.npy");
    EXPECT_EQ(c.decoded(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
    const std::vector<tessera::NpyArray> back = tessera::parse_npz(tessera::write_npz({f}), "round trip");
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].name, "m");
    EXPECT_EQ(back[0].shape, f.shape);
    EXPECT_EQ(back[0].decoded(), f.decoded());
    const auto error = [&](const std::string &header, const std::string &bytes) {
        try {
            tessera::parse_npy(npy(header, bytes), "m", "m.npy");
        } catch (const tessera::InputError &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(error("{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }", "abcd").find("dtype '>i4'"), std::string::npos);
    EXPECT_NE(error("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", "abcd").find("4 bytes of data"), std::string::npos);
    EXPECT_NE(error("{'descr': '<i4', 'fortran_order': maybe, 'shape': (1,), }", "abcd").find("fortran_order"), std::string::npos);
    EXPECT_NE(error("{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }", "abcd").find("is not a size"), std::string::npos);
}

TEST(Npz, RefusesWhatIsNotAnArchiveOrAnArray)
{
    const auto error = [](const std::string &bytes) {
        try {
            tessera::parse_npz(bytes, "x.npz");
        } catch (const tessera::InputError &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(error(std::string(100, 'z')).find("x.npz: not an .npz archive"), std::string::npos);
    tessera::NpyArray a;
    a.name = "a";
    a.dtype = "<i8";
    a.shape = {4};
    a.values = {1, 2, 3, 4};
    std::string zip = tessera::write_npz({a});
    // The .npy's magic, damaged inside the archive (stored, uncompressed): the CRC no longer holds.
    const size_t at = zip.find("\x93NUMPY");
    ASSERT_NE(at, std::string::npos);
    zip[at + 1] = 'X';
    EXPECT_NE(error(zip), "");
}

// The header's text is the file's: quoted on one line, whatever bytes it holds (the
// onnx fuzz harness found a shape entry with a line break in it).
TEST(Npz, QuotesTheHeadersTextOnOneLine)
{
    const auto error = [](const std::string &header) {
        std::string npy = std::string("\x93NUMPY\x01\x00", 8);
        npy += char(header.size()), npy += char(0);
        npy += header;
        try {
            tessera::parse_npy(npy, "a", "x.npz: a.npy");
        } catch (const tessera::InputError &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const std::string shape = error("{'descr': '<i8', 'fortran_order': False, 'shape': (4\n\x01, 2), }");
    EXPECT_EQ(shape, "x.npz: a.npy: shape entry '4\\x0A\\x01' is not a size");
    const std::string order = error("{'descr': '<i8', 'fortran_order': Tr\nue, 'shape': (4,), }");
    EXPECT_NE(order.find("fortran_order 'Tr\\x0Aue'"), std::string::npos) << order;
    EXPECT_EQ(order.find('\n'), std::string::npos);
}

TEST(TestVectors, CountsEachDifferingValue)
{
    tessera::NpyArray want, got;
    want.name = got.name = "output_0";
    want.shape = got.shape = {1, 4};
    want.values = {1, 2, 3, 4};
    got.values = {1, -2, 3, 9};
    const auto d = tessera::compare_outputs({got}, {want}, "t");
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].differing, 2u);
    EXPECT_EQ(d[0].max_abs_diff, 5.0);
    got.shape = {4, 1};
    EXPECT_THROW(tessera::compare_outputs({got}, {want}, "t"), tessera::InputError);
}

// ---- decoder-only sessions ----------------------------------------------------------------

tessera::PackOptions onnx_options(const std::string &graph, const std::string &out)
{
    tessera::PackOptions o;
    o.checkpoint = kGraphs + graph + "/network.onnx";
    o.output = out;
    return o;
}

// RoPE's matrix of position p, as Deeploy's inputs hold it (scale 126, pairs (0, 2) and (1, 3)).
std::vector<int8_t> rotation(uint32_t pos)
{
    std::vector<int8_t> m(16, 0);
    const double f[2] = {1.0, 0.01};
    for (int i = 0; i < 2; ++i) {
        const double c = std::cos(pos * f[i]), s = std::sin(pos * f[i]);
        m[i * 4 + i] = int8_t(std::lround(126 * c));
        m[i * 4 + i + 2] = int8_t(std::lround(126 * s));
        m[(i + 2) * 4 + i] = int8_t(std::lround(-126 * s));
        m[(i + 2) * 4 + i + 2] = int8_t(std::lround(126 * c));
    }
    return m;
}

TEST(DecoderOnly, TokenCallsAreRefusedAndRowCallsChecked)
{
    if (!have_graphs()) GTEST_SKIP() << "no " << kGraphs;
    const std::string out = temp_path("ml8.tess");
    auto m = tessera::test::open_model(onnx_options("microLlama8", out), 2);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    int32_t token = 1;
    EXPECT_EQ(tessera_prompt(&m->session, &token, 1), TESSERA_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tessera_last_error(&m->session)).find("decoder-only"), std::string::npos);
    EXPECT_EQ(tessera_step(&m->session, 1), TESSERA_ERR_INVALID_ARGUMENT);
    const float *logits = nullptr;
    EXPECT_EQ(tessera_logits(&m->session, 0, &logits, nullptr), TESSERA_ERR_INVALID_ARGUMENT);
    std::vector<int8_t> rows(64, 1), out_rows(64);
    const std::vector<int8_t> rot = rotation(0);
    EXPECT_EQ(tessera_forward_rows(&m->session, rows.data(), nullptr, 1, out_rows.data()), TESSERA_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tessera_set_position(&m->session, 257), TESSERA_ERR_INVALID_ARGUMENT); // context 256
    std::vector<int8_t> kv(64 * 4);
    EXPECT_EQ(tessera_kv_read(&m->session, 0, 0, 0, 1, kv.data()), TESSERA_ERR_INVALID_ARGUMENT); // position 0
    EXPECT_EQ(tessera_kv_write(&m->session, 8, 0, 0, 1, kv.data()), TESSERA_ERR_INVALID_ARGUMENT); // 8 layers
    EXPECT_EQ(tessera_kv_write(&m->session, 0, 2, 0, 1, kv.data()), TESSERA_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tessera_kv_write(&m->session, 0, 1, 255, 2, kv.data()), TESSERA_ERR_INVALID_ARGUMENT);
    // Written rows read back; the run appends its row after them.
    for (size_t i = 0; i < kv.size(); ++i) kv[i] = int8_t(i * 7);
    ASSERT_EQ(tessera_kv_write(&m->session, 3, 1, 0, 4, kv.data()), TESSERA_OK);
    ASSERT_EQ(tessera_set_position(&m->session, 4), TESSERA_OK);
    ASSERT_EQ(tessera_forward_rows(&m->session, rows.data(), rot.data(), 1, out_rows.data()), TESSERA_OK);
    EXPECT_EQ(tessera_position(&m->session), 5u);
    std::vector<int8_t> back(64 * 5);
    ASSERT_EQ(tessera_kv_read(&m->session, 3, 1, 0, 5, back.data()), TESSERA_OK);
    EXPECT_TRUE(std::equal(kv.begin(), kv.end(), back.begin()));
    fs::remove(out);
}

// One image of microLlama128, every position of its context: Deeploy needs a graph per
// cache length. Each run completes, the cache fills row by row, and the next row is
// refused once the context is full. (No golden here: Deeploy's vectors cover positions
// 1, 8 and 128.)
TEST(DecoderOnly, OneImageRunsEveryPosition)
{
    if (!have_graphs()) GTEST_SKIP() << "no " << kGraphs;
    const std::string out = temp_path("ml128.tess");
    auto m = tessera::test::open_model(onnx_options("microLlama128", out), 4);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    tessera_image_summary s;
    ASSERT_EQ(tessera_image_summary_of(&m->session, &s), TESSERA_OK);
    ASSERT_EQ(s.context, 256u);
    std::mt19937 rng(128);
    std::uniform_int_distribution<int> i8(-60, 60);
    std::vector<int8_t> row(64), out_row(64), cache(64);
    uint32_t zero_rows = 0;
    for (uint32_t pos = 0; pos < s.context; ++pos) {
        for (auto &v : row) v = int8_t(i8(rng));
        const std::vector<int8_t> rot = rotation(pos);
        ASSERT_EQ(tessera_forward_rows(&m->session, row.data(), rot.data(), 1, out_row.data()), TESSERA_OK)
            << "position " << pos << ": " << tessera_last_error(&m->session);
        ASSERT_EQ(tessera_position(&m->session), pos + 1);
        ASSERT_EQ(tessera_kv_read(&m->session, 7, 0, pos, 1, cache.data()), TESSERA_OK);
        zero_rows += std::all_of(cache.begin(), cache.end(), [](int8_t v) { return v == 0; });
    }
    EXPECT_LT(zero_rows, 8u) << "the last layer's K rows should hold the appended keys";
    const std::vector<int8_t> rot = rotation(256);
    EXPECT_EQ(tessera_forward_rows(&m->session, row.data(), rot.data(), 1, out_row.data()), TESSERA_ERR_CONTEXT_FULL);
    std::printf("microLlama128's image ran positions 0..%u; %u of %u last-layer K rows all zero\n", s.context - 1, zero_rows,
                s.context);
    fs::remove(out);
}

} // namespace
