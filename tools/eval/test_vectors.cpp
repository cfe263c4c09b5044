#include "test_vectors.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "tessera/errors.h"
#include "tessera/test_vectors.h"

namespace tessera {
namespace {

std::string shape_text(const std::vector<uint64_t> &s)
{
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

void expect_shape(const NpyArray &a, const std::vector<uint64_t> &shape, const std::string &what, const char *role)
{
    if (a.shape != shape)
        throw InputError(what + ": " + a.name + " (" + role + ") is " + shape_text(a.shape) + ", the image needs " + shape_text(shape));
}

constexpr uint32_t kI8 = 4u, kF32 = 1u; // tsr_dtype: the precisions a decoder-only image runs in

// An array's values as the image's elements (int8: integers in range; fp32: as they are).
std::vector<uint8_t> elements(const NpyArray &a, uint32_t precision, const std::string &what)
{
    if (precision == kF32) {
        std::vector<uint8_t> out(a.count() * 4);
        for (size_t i = 0; i < a.count(); ++i) {
            const float f = float(a.value(i));
            std::memcpy(out.data() + 4 * i, &f, 4);
        }
        return out;
    }
    std::vector<uint8_t> out(a.count());
    for (size_t i = 0; i < out.size(); ++i) {
        const double v = a.value(i);
        if (v != std::floor(v) || v < -128 || v > 127)
            throw InputError(what + ": " + a.name + "[" + std::to_string(i) + "] = " + std::to_string(v) + " is not an int8 value");
        out[i] = uint8_t(int8_t(v));
    }
    return out;
}

double element(const std::vector<uint8_t> &bytes, size_t i, uint32_t precision)
{
    if (precision == kF32) {
        float f;
        std::memcpy(&f, bytes.data() + 4 * i, 4);
        return f;
    }
    return int8_t(bytes[i]);
}

void check(tessera_session *s, tessera_status st, const std::string &call)
{
    if (st != TESSERA_OK)
        throw std::runtime_error(call + ": " + tessera_status_string(st) + ": " + tessera_last_error(s));
}

// [1, heads, T, hs] (head-major, as Deeploy's graphs hold a cache) to cache rows [T][heads hs], and back.
std::vector<uint8_t> cache_rows_of(const NpyArray &a, uint32_t heads, uint32_t T, uint32_t hs, uint32_t precision,
                                   const std::string &what)
{
    const std::vector<uint8_t> v = elements(a, precision, what);
    const size_t e = precision == kF32 ? 4 : 1;
    std::vector<uint8_t> rows(v.size());
    for (uint32_t hd = 0; hd < heads; ++hd)
        for (uint32_t p = 0; p < T; ++p)
            for (uint32_t d = 0; d < hs; ++d)
                std::memcpy(&rows[((size_t(p) * heads + hd) * hs + d) * e], &v[((size_t(hd) * T + p) * hs + d) * e], e);
    return rows;
}

NpyArray head_major_of(const std::string &name, const std::vector<uint8_t> &rows, uint32_t heads, uint32_t T, uint32_t hs,
                       uint32_t precision)
{
    NpyArray o;
    o.name = name;
    o.dtype = precision == kF32 ? "<f4" : "<i8";
    o.shape = {1, heads, T, hs};
    o.values.resize(size_t(T) * heads * hs);
    for (uint32_t hd = 0; hd < heads; ++hd)
        for (uint32_t p = 0; p < T; ++p)
            for (uint32_t d = 0; d < hs; ++d)
                o.values[(size_t(hd) * T + p) * hs + d] = element(rows, (size_t(p) * heads + hd) * hs + d, precision);
    return o;
}

} // namespace

VectorInputs read_vector_inputs(const tessera_image_summary &h, const std::vector<NpyArray> &inputs, const std::string &what)
{
    if (h.vocab_size != 0)
        throw InputError(what + ": test vectors run on a decoder-only image (packed from an ONNX decoder); this one takes tokens");
    if (h.precision != kI8 && h.precision != kF32) throw InputError(what + ": only int8 and fp32 images run test vectors");
    const uint32_t L = h.n_layers, heads = h.n_heads, hs = h.dim / h.n_heads, dim = h.dim;
    if (inputs.size() != 3u + 2u * L)
        throw InputError(what + ": " + std::to_string(inputs.size()) + " arrays; the image's " + std::to_string(L) +
                         " layers need " + std::to_string(3u + 2u * L) + " (hidden, mask, rotations, K and V per layer)");
    const NpyArray &x = npz_array(inputs, "input_0", what);
    if (x.shape.size() != 3 || x.shape[0] != 1 || x.shape[2] != dim || x.shape[1] == 0 || x.shape[1] > h.context)
        throw InputError(what + ": input_0 (hidden state) is " + shape_text(x.shape) + ", the image needs [1, S, " + std::to_string(dim) + "]");
    VectorInputs in;
    in.rows = uint32_t(x.shape[1]);
    const NpyArray &k0 = npz_array(inputs, "input_3", what);
    if (k0.shape.size() != 4 || k0.shape[2] > h.context)
        throw InputError(what + ": input_3 (layer 0's past K) is " + shape_text(k0.shape) + ", not [1, heads, S_past, head_size]");
    in.past = uint32_t(k0.shape[2]);
    const uint32_t S = in.rows, P = in.past, T = P + S;
    if (uint64_t(T) > h.context)
        throw InputError(what + ": S_past " + std::to_string(P) + " + S " + std::to_string(S) + " exceeds the image's context of " +
                         std::to_string(h.context));
    // The mask: Deeploy's causal one, which the image applies itself.
    const NpyArray &mask = npz_array(inputs, "input_1", what);
    const bool flat = mask.shape.size() == 1;
    if (flat ? (S != 1 || mask.shape[0] != T) : mask.shape != std::vector<uint64_t>{1, S, T})
        throw InputError(what + ": input_1 (mask) is " + shape_text(mask.shape) + ", expected [" + std::to_string(T) + "] or [1, " +
                         std::to_string(S) + ", " + std::to_string(T) + "]");
    // int8: 0 or -128 exactly; fp32: 0, or at most -1e4 (exp gives 0: a causal attention's
    // leaving the position out).
    for (uint32_t i = 0; i < S; ++i)
        for (uint32_t j = 0; j < T; ++j) {
            const double have = mask.value(size_t(i) * T + j);
            const bool visible = j <= P + i;
            const bool ok = visible ? have == 0.0 : h.precision == kF32 ? have <= -1e4 : have == -128.0;
            if (!ok)
                throw InputError(what + ": input_1 (mask) row " + std::to_string(i) + " column " + std::to_string(j) + " is " +
                                 std::to_string(have) + ": the image applies the causal mask (0 up to the row's position, " +
                                 (h.precision == kF32 ? "-1e4 or less" : "-128") + " after)");
        }
    const NpyArray &rot = npz_array(inputs, "input_2", what);
    expect_shape(rot, {1, S, hs, hs}, what, "rotations");
    in.rows_in = elements(x, h.precision, what);
    in.rotations = elements(rot, h.precision, what);
    for (uint32_t l = 0; l < L; ++l)
        for (uint32_t kind = 0; kind < 2; ++kind) {
            const NpyArray &past = npz_array(inputs, "input_" + std::to_string(3 + 2 * l + kind), what);
            expect_shape(past, {1, heads, P, hs}, what, kind ? "past V" : "past K");
            in.past_rows.push_back(cache_rows_of(past, heads, P, hs, h.precision, what));
        }
    return in;
}

VectorRun run_vectors(tessera_session *session, const tessera_image_summary &h, const std::vector<NpyArray> &inputs,
                      const std::string &what)
{
    const VectorInputs in = read_vector_inputs(h, inputs, what);
    const uint32_t L = h.n_layers, heads = h.n_heads, hs = h.dim / h.n_heads, dim = h.dim;
    const uint32_t S = in.rows, P = in.past, T = P + S;
    VectorRun run;
    run.rows = S;
    run.past = P;
    run.mode = S > 1 ? "parallel" : "autoregressive";
    check(session, tessera_reset(session), "tessera_reset");
    for (uint32_t l = 0; l < L; ++l)
        for (uint32_t kind = 0; kind < 2; ++kind)
            check(session, tessera_kv_write(session, l, kind, 0, P, in.past_rows[2 * l + kind].data()), "tessera_kv_write");
    check(session, tessera_set_position(session, P), "tessera_set_position");
    const size_t e = h.precision == kF32 ? 4 : 1;
    std::vector<uint8_t> rows_out(size_t(S) * dim * e);
    check(session, tessera_forward_rows(session, in.rows_in.data(), in.rotations.data(), S, rows_out.data()),
          "tessera_forward_rows");
    NpyArray out0;
    out0.name = "output_0";
    out0.dtype = h.precision == kF32 ? "<f4" : "<i8";
    out0.shape = {1, S, dim};
    for (size_t i = 0; i < size_t(S) * dim; ++i) out0.values.push_back(element(rows_out, i, h.precision));
    run.outputs.push_back(std::move(out0));
    std::vector<uint8_t> cache(size_t(T) * dim * e);
    for (uint32_t l = 0; l < L; ++l)
        for (uint32_t kind = 0; kind < 2; ++kind) {
            check(session, tessera_kv_read(session, l, kind, 0, T, cache.data()), "tessera_kv_read");
            run.outputs.push_back(head_major_of("output_" + std::to_string(1 + 2 * l + kind), cache, heads, T, hs, h.precision));
        }
    return run;
}

std::string vectors_blob(const tessera_image_summary &h, const VectorInputs &in, const std::vector<NpyArray> &expected,
                         const std::string &what)
{
    const uint32_t L = h.n_layers, heads = h.n_heads, hs = h.dim / h.n_heads, dim = h.dim, T = in.past + in.rows;
    if (h.precision != kI8) throw InputError(what + ": the firmware's vectors are int8 (this image is fp32)");
    tsr_vectors_header head{TSR_VECTORS_MAGIC, TSR_VECTORS_VERSION, in.rows, in.past, dim, hs, L, 0};
    if (!tsr_vectors_layout_of(&head).bytes) throw InputError(what + ": the vectors exceed 4 GiB");
    std::string blob(reinterpret_cast<const char *>(&head), sizeof head);
    auto append = [&](const std::vector<uint8_t> &v) { blob.append(reinterpret_cast<const char *>(v.data()), v.size()); };
    append(in.rows_in);
    append(in.rotations);
    for (const auto &rows : in.past_rows) append(rows);
    const NpyArray &out0 = npz_array(expected, "output_0", what);
    expect_shape(out0, {1, in.rows, dim}, what, "hidden state out");
    append(elements(out0, kI8, what));
    for (uint32_t k = 1; k <= 2 * L; ++k) {
        const NpyArray &c = npz_array(expected, "output_" + std::to_string(k), what);
        expect_shape(c, {1, heads, T, hs}, what, k % 2 ? "K cache out" : "V cache out");
        append(cache_rows_of(c, heads, T, hs, kI8, what));
    }
    if (blob.size() != tsr_vectors_layout_of(&head).bytes) throw std::logic_error("vectors blob: size mismatch");
    return blob;
}

std::vector<OutputDiff> compare_outputs(const std::vector<NpyArray> &got, const std::vector<NpyArray> &expected,
                                        const std::string &what, double tolerance)
{
    std::vector<OutputDiff> out;
    for (const NpyArray &e : expected) {
        const NpyArray &g = npz_array(got, e.name, what + " (the image's outputs)");
        if (g.shape != e.shape)
            throw InputError(what + ": " + e.name + " is " + shape_text(e.shape) + ", the image gives " + shape_text(g.shape));
        OutputDiff d;
        d.name = e.name;
        d.values = e.count();
        for (size_t i = 0; i < e.count(); ++i) {
            const double diff = std::fabs(g.value(i) - e.value(i));
            d.differing += !(diff <= tolerance); // a NaN on either side differs
            d.max_abs_diff = std::max(d.max_abs_diff, diff);
            d.max_abs_expected = std::max(d.max_abs_expected, std::fabs(e.value(i)));
        }
        out.push_back(d);
    }
    return out;
}

} // namespace tessera
