#include "support/gguf_writer.h"

#include <cmath>
#include <cstring>

namespace tessera::test {

namespace {

// IEEE binary16 by hand (clang's _Float16 is not on every x86 target): round to
// nearest, ties to even, with subnormals.
uint16_t to_half(float f)
{
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7FFFFFu;
    const int32_t exp = int32_t((x >> 23) & 0xFFu) - 127 + 15;
    if (((x >> 23) & 0xFFu) == 0xFFu) return uint16_t(sign | 0x7C00u | (mant ? 0x200u : 0u));
    if (exp >= 31) return uint16_t(sign | 0x7C00u);
    auto round = [](uint32_t value, uint32_t shift) { // value >> shift, to nearest even
        uint32_t q = value >> shift;
        const uint32_t rem = value & ((1u << shift) - 1u), mid = 1u << (shift - 1u);
        if (rem > mid || (rem == mid && (q & 1u))) ++q;
        return q;
    };
    if (exp <= 0) return exp < -10 ? uint16_t(sign) : uint16_t(sign | round(mant | 0x800000u, uint32_t(14 - exp)));
    return uint16_t(sign | round((uint32_t(exp) << 23) | mant, 13)); // a carry into the exponent is right
}
float from_half(uint16_t h)
{
    const int exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
    const float v = exp == 0 ? std::ldexp(float(mant), -24) : std::ldexp(float(mant + 1024), exp - 25);
    return (h & 0x8000u) ? -v : v; // (no infinities or NaNs in the tests' values)
}

class Out {
public:
    explicit Out(bool v1) : v1_(v1) {}
    template <typename T> void put(T v)
    {
        const auto *p = reinterpret_cast<const uint8_t *>(&v);
        bytes.insert(bytes.end(), p, p + sizeof v);
    }
    void count(uint64_t n) { v1_ ? put(uint32_t(n)) : put(n); }
    void str(const std::string &s)
    {
        count(s.size());
        bytes.insert(bytes.end(), s.begin(), s.end());
    }
    std::vector<uint8_t> bytes;

private:
    bool v1_;
};

} // namespace

GgufTensor gguf_tensor(const std::string &name, const std::vector<uint64_t> &dims, uint32_t type, const float *x)
{
    GgufTensor t;
    t.name = name;
    t.dims = dims;
    t.type = type;
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    t.expected.resize(n);
    auto put16 = [&](uint16_t v) { t.data.push_back(uint8_t(v)), t.data.push_back(uint8_t(v >> 8)); };
    if (type == kGgufF32) {
        t.data.resize(n * 4);
        std::memcpy(t.data.data(), x, n * 4);
        std::memcpy(t.expected.data(), x, n * 4);
    } else if (type == kGgufF16) {
        for (uint64_t i = 0; i < n; ++i) put16(to_half(x[i])), t.expected[i] = from_half(to_half(x[i]));
    } else if (type == kGgufBF16) { // truncation to bf16 with round to nearest even, as ggml does
        for (uint64_t i = 0; i < n; ++i) {
            uint32_t u;
            std::memcpy(&u, &x[i], 4);
            const uint16_t b = uint16_t((u + (0x7FFFu + ((u >> 16) & 1u))) >> 16);
            put16(b);
            const uint32_t back = uint32_t(b) << 16;
            std::memcpy(&t.expected[i], &back, 4);
        }
    } else if (type == kGgufQ8_0) { // ggml quantize_row_q8_0_ref: d = amax / 127, q = round(x / d)
        for (uint64_t b = 0; b < n / 32; ++b) {
            const float *v = x + b * 32;
            float amax = 0;
            for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(v[i]));
            const float d = amax / 127.0f, id = d ? 1.0f / d : 0.0f;
            put16(to_half(d));
            for (int i = 0; i < 32; ++i) {
                const int8_t q = int8_t(std::roundf(v[i] * id));
                t.data.push_back(uint8_t(q));
                t.expected[b * 32 + i] = float(q) * from_half(to_half(d));
            }
        }
    } else { // Q4_0, ggml quantize_row_q4_0_ref: d = (the value of largest magnitude) / -8
        for (uint64_t b = 0; b < n / 32; ++b) {
            const float *v = x + b * 32;
            float amax = 0, max = 0;
            for (int i = 0; i < 32; ++i)
                if (std::fabs(v[i]) > amax) amax = std::fabs(v[i]), max = v[i];
            const float d = max / -8.0f, id = d ? 1.0f / d : 0.0f;
            put16(to_half(d));
            for (int i = 0; i < 16; ++i) {
                const uint8_t q0 = uint8_t(std::min(15, int(int8_t(v[i] * id + 8.5f))));
                const uint8_t q1 = uint8_t(std::min(15, int(int8_t(v[i + 16] * id + 8.5f))));
                t.data.push_back(uint8_t(q0 | (q1 << 4)));
                t.expected[b * 32 + i] = float(int(q0) - 8) * from_half(to_half(d));
                t.expected[b * 32 + i + 16] = float(int(q1) - 8) * from_half(to_half(d));
            }
        }
    }
    return t;
}

GgufFile gguf_from_checkpoint(const LlamaCheckpoint &ck, const Vocabulary &vocab, uint32_t matrix_type,
                              uint32_t (*type_of)(const std::string &name))
{
    GgufFile f;
    f.config = ck.config;
    f.vocabulary = vocab;
    const LlamaConfig &c = ck.config;
    const LlamaWeights &w = ck.weights;
    const uint64_t D = c.dim, KV = c.kv_dim(), H = c.hidden_dim, V = c.vocab_size;
    auto add = [&](const std::string &name, uint64_t rows, uint64_t cols, const float *x) {
        const uint32_t type = type_of ? type_of(name) : rows == 1 ? uint32_t(kGgufF32) : matrix_type;
        f.tensors.push_back(gguf_tensor(name, rows == 1 ? std::vector<uint64_t>{cols} : std::vector<uint64_t>{cols, rows},
                                        type, x));
    };
    add("token_embd.weight", V, D, w.token_embedding.data());
    add("output_norm.weight", 1, D, w.rms_final.data());
    if (!c.shared_classifier) add("output.weight", V, D, w.wcls.data());
    for (uint64_t l = 0; l < c.n_layers; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        add(b + "attn_q.weight", D, D, w.wq.data() + l * D * D);
        add(b + "attn_k.weight", KV, D, w.wk.data() + l * KV * D);
        add(b + "attn_v.weight", KV, D, w.wv.data() + l * KV * D);
        add(b + "attn_output.weight", D, D, w.wo.data() + l * D * D);
        add(b + "attn_norm.weight", 1, D, w.rms_att.data() + l * D);
        add(b + "ffn_gate.weight", H, D, w.w1.data() + l * H * D);
        add(b + "ffn_down.weight", D, H, w.w2.data() + l * D * H);
        add(b + "ffn_up.weight", H, D, w.w3.data() + l * H * D);
        add(b + "ffn_norm.weight", 1, D, w.rms_ffn.data() + l * D);
    }
    return f;
}

GgufMetadata gguf_string_metadata(const std::string &key, const std::string &text)
{
    GgufMetadata m{key, 8, {}};
    const uint64_t n = text.size();
    m.value.resize(8);
    std::memcpy(m.value.data(), &n, 8);
    m.value.insert(m.value.end(), text.begin(), text.end());
    return m;
}

GgufMetadata gguf_f64_metadata(const std::string &key, double value)
{
    GgufMetadata m{key, 12, std::vector<uint8_t>(8)};
    std::memcpy(m.value.data(), &value, 8);
    return m;
}

std::vector<uint8_t> gguf_bytes(const GgufFile &f)
{
    const bool v1 = f.version == 1;
    Out o(v1);
    o.bytes = {'G', 'G', 'U', 'F'};
    o.put(f.version);
    auto replaced = [&](const std::string &k) {
        for (const GgufMetadata &m : f.extra)
            if (m.key == k) return true;
        return false;
    };
    static const char *const kStandard[] = {"general.architecture", "llama.context_length", "llama.embedding_length",
                                            "llama.feed_forward_length", "llama.block_count", "llama.attention.head_count",
                                            "llama.attention.head_count_kv", "llama.attention.layer_norm_rms_epsilon",
                                            "tokenizer.ggml.model", "tokenizer.ggml.tokens", "tokenizer.ggml.scores",
                                            "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"};
    uint64_t n_kv = f.extra.size();
    for (const char *k : kStandard) n_kv += replaced(k) ? 0 : 1;
    o.count(f.tensors.size());
    o.count(n_kv);
    // Each standard key unless an extra one replaces it.
    auto key = [&](const std::string &k, uint32_t type) {
        if (replaced(k)) return false;
        o.str(k), o.put(type);
        return true;
    };
    if (key("general.architecture", 8)) o.str(f.architecture);
    if (key("llama.context_length", 4)) o.put(f.config.seq_len);
    if (key("llama.embedding_length", 4)) o.put(f.config.dim);
    if (key("llama.feed_forward_length", 4)) o.put(f.config.hidden_dim);
    if (key("llama.block_count", 4)) o.put(f.config.n_layers);
    if (key("llama.attention.head_count", 4)) o.put(f.config.n_heads);
    if (key("llama.attention.head_count_kv", 4)) o.put(f.config.n_kv_heads);
    if (key("llama.attention.layer_norm_rms_epsilon", 6)) o.put(1e-5f);
    if (key("tokenizer.ggml.model", 8)) o.str("llama");
    if (key("tokenizer.ggml.tokens", 9)) {
        o.put(uint32_t(8)), o.count(f.vocabulary.pieces.size());
        for (size_t i = 0; i < f.vocabulary.pieces.size(); ++i) {
            std::string p = i == 1 ? "<s>" : i == 2 ? "</s>" : f.vocabulary.pieces[i];
            for (size_t at; (at = p.find(' ')) != std::string::npos;) p.replace(at, 1, "\xE2\x96\x81");
            o.str(p);
        }
    }
    if (key("tokenizer.ggml.scores", 9)) {
        o.put(uint32_t(6)), o.count(f.vocabulary.scores.size());
        for (float s : f.vocabulary.scores) o.put(s);
    }
    if (key("tokenizer.ggml.bos_token_id", 4)) o.put(f.bos);
    if (key("tokenizer.ggml.eos_token_id", 4)) o.put(f.eos);
    for (const GgufMetadata &m : f.extra) {
        o.str(m.key), o.put(m.type);
        o.bytes.insert(o.bytes.end(), m.value.begin(), m.value.end());
    }
    uint64_t offset = 0;
    for (const GgufTensor &t : f.tensors) {
        o.str(t.name);
        o.put(uint32_t(t.dims.size()));
        for (uint64_t d : t.dims) o.count(d);
        o.put(t.type);
        o.put(t.offset >= 0 ? uint64_t(t.offset) : offset);
        offset = (offset + t.data.size() + 31) / 32 * 32;
    }
    o.bytes.resize((o.bytes.size() + 31) / 32 * 32, 0);
    for (const GgufTensor &t : f.tensors) {
        o.bytes.insert(o.bytes.end(), t.data.begin(), t.data.end());
        o.bytes.resize((o.bytes.size() + 31) / 32 * 32, 0);
    }
    return o.bytes;
}

} // namespace tessera::test
