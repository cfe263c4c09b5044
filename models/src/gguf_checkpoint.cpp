#include "tessera/models/gguf.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string_view>
#include <unordered_set>

#include "tessera/kernels_bf16.h"

namespace tessera {

namespace {

constexpr uint32_t kTypeF32 = 0, kTypeF16 = 1, kTypeQ4_0 = 2, kTypeQ8_0 = 8, kTypeBF16 = 30;
constexpr uint32_t kValueU8 = 0, kValueI8 = 1, kValueU16 = 2, kValueI16 = 3, kValueU32 = 4, kValueI32 = 5, kValueF32 = 6,
                   kValueBool = 7, kValueString = 8, kValueArray = 9, kValueU64 = 10, kValueI64 = 11, kValueF64 = 12;

// Limits no real model comes near (llama.cpp's files have tens of keys, a few thousand
// tensors and vocabularies below 300,000 pieces); they bound what a hostile file makes
// the reader hold.
constexpr uint64_t kMaxKeys = 1u << 16, kMaxTensors = 1u << 16, kMaxKeyBytes = 65535, kMaxStringBytes = 1u << 24,
                   kMaxArrayItems = 1u << 24, kMaxVocabulary = 1u << 20;

// A bounds-checked cursor over the file: every read names the offset it failed at.
class Cursor {
public:
    Cursor(const std::vector<uint8_t> &b, const std::string &name) : b_(b), name_(name) {}
    [[noreturn]] void fail(const std::string &what) const
    {
        throw InputError(name_ + ": " + what + " (at byte " + std::to_string(at_) + ")");
    }
    const uint8_t *take(uint64_t n, const char *what)
    {
        if (n > b_.size() - at_) fail(std::string("truncated in ") + what);
        const uint8_t *p = b_.data() + at_;
        at_ += n;
        return p;
    }
    template <typename T> T get(const char *what)
    {
        T v;
        std::memcpy(&v, take(sizeof v, what), sizeof v);
        return v;
    }
    uint64_t count(bool v1, const char *what) { return v1 ? get<uint32_t>(what) : get<uint64_t>(what); }
    std::string_view string(bool v1, const char *what, uint64_t max_bytes = kMaxStringBytes)
    {
        const uint64_t n = count(v1, what);
        if (n > max_bytes)
            fail(std::string(what) + ": a string of " + std::to_string(n) + " bytes; at most " + std::to_string(max_bytes));
        const uint8_t *p = take(n, what);
        return std::string_view(reinterpret_cast<const char *>(p), n);
    }
    uint64_t at() const { return at_; }
    void seek(uint64_t at) { at_ = at; }

private:
    const std::vector<uint8_t> &b_;
    const std::string &name_;
    uint64_t at_ = 0;
};

// A metadata value: numbers as double (and exact integers), strings, arrays of them;
// strings are views of the file's bytes.
struct Value {
    uint32_t type = 0;
    double number = 0;
    uint64_t integer = 0;
    std::string_view text;
    uint32_t item_type = 0;
    std::vector<double> numbers;
    std::vector<std::string_view> texts;
};

// The keys the reader uses; every other value is walked over, bounds-checked, and not kept.
bool wanted_key(std::string_view key)
{
    static const char *const kKeys[] = {"general.architecture", "general.alignment", "llama.embedding_length",
                                        "llama.feed_forward_length", "llama.block_count", "llama.attention.head_count",
                                        "llama.attention.head_count_kv", "llama.context_length", "llama.rope.freq_base",
                                        "llama.attention.layer_norm_rms_epsilon", "llama.rope.dimension_count",
                                        "tokenizer.ggml.model", "tokenizer.ggml.tokens", "tokenizer.ggml.scores",
                                        "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"};
    for (const char *k : kKeys)
        if (key == k) return true;
    return false;
}

double read_number(Cursor &c, uint32_t type, uint64_t *integer)
{
    switch (type) {
    case kValueU8: return double(*integer = c.get<uint8_t>("a u8"));
    case kValueI8: return double(int64_t(*integer = uint64_t(int64_t(c.get<int8_t>("an i8")))));
    case kValueU16: return double(*integer = c.get<uint16_t>("a u16"));
    case kValueI16: return double(int64_t(*integer = uint64_t(int64_t(c.get<int16_t>("an i16")))));
    case kValueU32: return double(*integer = c.get<uint32_t>("a u32"));
    case kValueI32: return double(int64_t(*integer = uint64_t(int64_t(c.get<int32_t>("an i32")))));
    case kValueF32: return c.get<float>("an f32");
    case kValueBool: return double(*integer = c.get<uint8_t>("a bool"));
    case kValueU64: return double(*integer = c.get<uint64_t>("a u64"));
    case kValueI64: return double(int64_t(*integer = c.get<uint64_t>("an i64")));
    case kValueF64: return c.get<double>("an f64");
    default: c.fail("metadata value type " + std::to_string(type) + " is not a GGUF type");
    }
}

// Reads a value, or with `keep` false only walks over it (nothing allocated).
Value read_value(Cursor &c, uint32_t type, bool v1, std::string_view key, bool keep)
{
    Value v;
    v.type = type;
    if (type == kValueString) {
        v.text = c.string(v1, "a string value");
    } else if (type == kValueArray) {
        v.item_type = c.get<uint32_t>("an array's type");
        const uint64_t n = c.count(v1, "an array's length");
        if (v.item_type == kValueArray) c.fail(shown_in_message(std::string(key)) + ": arrays of arrays are not read");
        if (n > kMaxArrayItems)
            c.fail(shown_in_message(std::string(key)) + ": an array of " + std::to_string(n) + " items; at most " +
                   std::to_string(kMaxArrayItems));
        if (keep && n > kMaxVocabulary)
            c.fail(shown_in_message(std::string(key)) + ": an array of " + std::to_string(n) + " items; at most " +
                   std::to_string(kMaxVocabulary) + " are read");
        for (uint64_t i = 0; i < n; ++i) {
            if (v.item_type == kValueString) {
                const std::string_view text = c.string(v1, "an array's string");
                if (keep) v.texts.push_back(text);
            } else {
                uint64_t ignored = 0;
                const double number = read_number(c, v.item_type, &ignored);
                if (keep) v.numbers.push_back(number);
            }
        }
    } else {
        v.number = read_number(c, type, &v.integer);
    }
    return v;
}

struct TensorInfo {
    std::vector<uint64_t> dims; // innermost first
    uint32_t type = 0;
    uint64_t offset = 0; // from the start of the data section
};

uint64_t block_bytes(uint32_t type, uint64_t elements, bool *ok)
{
    *ok = true;
    switch (type) {
    case kTypeF32: return elements * 4;
    case kTypeF16:
    case kTypeBF16: return elements * 2;
    case kTypeQ8_0: *ok = elements % 32 == 0; return elements / 32 * 34;
    case kTypeQ4_0: *ok = elements % 32 == 0; return elements / 32 * 18;
    default: *ok = false; return 0;
    }
}

const char *type_name(uint32_t type)
{
    switch (type) {
    case kTypeF32: return "F32";
    case kTypeF16: return "F16";
    case kTypeBF16: return "BF16";
    case kTypeQ8_0: return "Q8_0";
    case kTypeQ4_0: return "Q4_0";
    default: return "?";
    }
}

// Dequantizes `n` values of one tensor to fp32 as ggml does.
void to_float(const uint8_t *p, uint32_t type, uint64_t n, float *out)
{
    auto half_at = [](const uint8_t *q) {
        uint16_t h;
        std::memcpy(&h, q, 2);
        return f32_from_f16(h);
    };
    if (type == kTypeF32) {
        std::memcpy(out, p, n * 4);
    } else if (type == kTypeF16) {
        for (uint64_t i = 0; i < n; ++i) out[i] = half_at(p + 2 * i);
    } else if (type == kTypeBF16) {
        for (uint64_t i = 0; i < n; ++i) {
            uint16_t h;
            std::memcpy(&h, p + 2 * i, 2);
            out[i] = tsr_f32_from_bf16(h);
        }
    } else if (type == kTypeQ8_0) { // blocks of a half scale and 32 int8
        for (uint64_t b = 0; b < n / 32; ++b, p += 34) {
            const float d = half_at(p);
            for (int i = 0; i < 32; ++i) out[b * 32 + i] = float(int8_t(p[2 + i])) * d;
        }
    } else { // Q4_0: a half scale and 16 bytes; low nibbles are values 0..15, high ones 16..31, each minus 8
        for (uint64_t b = 0; b < n / 32; ++b, p += 18) {
            const float d = half_at(p);
            for (int i = 0; i < 16; ++i) {
                out[b * 32 + i] = float(int(p[2 + i] & 0x0F) - 8) * d;
                out[b * 32 + i + 16] = float(int(p[2 + i] >> 4) - 8) * d;
            }
        }
    }
}

// Refuses tensors whose data overlap (each of a known type, its bytes from its offset).
void check_tensor_ranges(const std::map<std::string, TensorInfo> &infos, const std::string &name)
{
    struct Range {
        uint64_t begin, end;
        const std::string *tensor;
    };
    std::vector<Range> ranges;
    for (const auto &[tname, t] : infos) {
        uint64_t elements = 1;
        for (uint64_t d : t.dims) elements = d && elements > UINT64_MAX / d ? UINT64_MAX : elements * d;
        bool ok;
        if (elements > (uint64_t(1) << 56)) continue; // refused when read, as larger than the file
        const uint64_t bytes = block_bytes(t.type, elements, &ok);
        if (!ok || bytes == 0 || t.offset > UINT64_MAX - bytes) continue; // refused when read
        ranges.push_back({t.offset, t.offset + bytes, &tname});
    }
    std::sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) { return a.begin < b.begin; });
    for (size_t i = 1; i < ranges.size(); ++i)
        if (ranges[i].begin < ranges[i - 1].end)
            throw InputError(name + ": tensors " + shown_in_message(*ranges[i - 1].tensor) + " (data bytes " +
                             std::to_string(ranges[i - 1].begin) + ".." + std::to_string(ranges[i - 1].end) + ") and " +
                             shown_in_message(*ranges[i].tensor) + " (from " + std::to_string(ranges[i].begin) +
                             ") overlap");
}

// The magic and a version this reader knows; the version.
uint32_t read_magic_and_version(Cursor &c, const std::vector<uint8_t> &bytes)
{
    if (bytes.size() < 4 || std::memcmp(bytes.data(), "GGUF", 4) != 0) c.fail("not a GGUF file (no magic \"GGUF\")");
    c.take(4, "the magic");
    const uint32_t version = c.get<uint32_t>("the version");
    if (version < 1 || version > 3) c.fail("GGUF version " + std::to_string(version) + " is not one of 1, 2, 3");
    return version;
}

} // namespace

bool is_gguf(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    return in.read(magic, 4) && std::memcmp(magic, "GGUF", 4) == 0;
}

GgufModel read_gguf(const std::string &path)
{
    // The header first, so a file that is no GGUF costs nothing to refuse.
    const std::vector<uint8_t> head = read_file_head(path, 8);
    Cursor c(head, path);
    read_magic_and_version(c, head);
    return parse_gguf(read_checkpoint_bytes(path), path);
}

GgufModel parse_gguf(const std::vector<uint8_t> &bytes, const std::string &name)
{
    Cursor c(bytes, name);
    const uint32_t version = read_magic_and_version(c, bytes);
    const bool v1 = version == 1; // 32-bit counts and lengths
    const uint64_t n_tensors = c.count(v1, "the tensor count"), n_kv = c.count(v1, "the metadata count");
    if (n_tensors > kMaxTensors || n_kv > kMaxKeys)
        c.fail(std::to_string(n_tensors) + " tensors and " + std::to_string(n_kv) + " metadata keys; at most " +
               std::to_string(kMaxTensors) + " and " + std::to_string(kMaxKeys) + " are read");

    std::map<std::string, Value> kv;
    std::unordered_set<std::string_view> keys;
    for (uint64_t i = 0; i < n_kv; ++i) {
        const uint64_t at = c.at();
        const std::string_view key = c.string(v1, "a metadata key", kMaxKeyBytes);
        if (!keys.insert(key).second)
            throw InputError(name + ": metadata key " + shown_in_message(std::string(key)) + " appears twice (again at byte " +
                             std::to_string(at) + ")");
        const uint32_t type = c.get<uint32_t>("a metadata type");
        const bool keep = wanted_key(key);
        Value v = read_value(c, type, v1, key, keep);
        if (keep) kv[std::string(key)] = std::move(v);
    }
    auto need = [&](const std::string &key) -> const Value & {
        const auto it = kv.find(key);
        if (it == kv.end()) throw InputError(name + ": metadata key " + key + " is missing");
        return it->second;
    };
    auto need_uint = [&](const std::string &key, uint64_t lo, uint64_t hi) {
        const Value &v = need(key);
        if (v.type == kValueString || v.type == kValueArray || v.type == kValueF32 || v.type == kValueF64 ||
            v.number < double(lo) || v.number > double(hi))
            throw InputError(name + ": metadata " + key + " must be an integer in " + std::to_string(lo) + ".." +
                             std::to_string(hi));
        return uint32_t(v.integer);
    };
    auto number_or = [&](const std::string &key, double fallback) {
        const auto it = kv.find(key);
        if (it == kv.end()) return fallback;
        if (it->second.type == kValueString || it->second.type == kValueArray || !std::isfinite(it->second.number))
            throw InputError(name + ": metadata " + key + " must be a finite number");
        return it->second.number;
    };
    const Value &arch = need("general.architecture");
    if (arch.type != kValueString || arch.text != "llama")
        throw InputError(name + ": general.architecture '" + shown_in_message(std::string(arch.text)) +
                         "' is not 'llama' (the only one read)");

    GgufModel m;
    LlamaCheckpoint &ck = m.checkpoint;
    ck.format = "GGUF v" + std::to_string(version);
    LlamaConfig &cfg = ck.config;
    cfg.dim = need_uint("llama.embedding_length", 2, 65536);
    cfg.hidden_dim = need_uint("llama.feed_forward_length", 1, 1u << 20);
    cfg.n_layers = need_uint("llama.block_count", 1, 1024);
    cfg.n_heads = need_uint("llama.attention.head_count", 1, cfg.dim);
    cfg.n_kv_heads = kv.count("llama.attention.head_count_kv") ? need_uint("llama.attention.head_count_kv", 1, cfg.n_heads)
                                                               : cfg.n_heads;
    cfg.seq_len = need_uint("llama.context_length", 1, 1u << 20);
    // As fp32, what the image holds: a double such as 1e300 would become infinity.
    auto positive_f32 = [&](const std::string &key, double fallback) {
        const double given = number_or(key, fallback);
        const float v = float(given);
        if (!(v > 0) || !std::isfinite(v)) {
            char shown[32];
            std::snprintf(shown, sizeof shown, "%.9g", given);
            throw InputError(name + ": metadata " + key + " must be a positive number that fp32 holds, not " + shown);
        }
        return v;
    };
    cfg.rope_theta = positive_f32("llama.rope.freq_base", 10000.0);
    cfg.norm_eps = positive_f32("llama.attention.layer_norm_rms_epsilon", 1e-5);

    // The vocabulary (SentencePiece, as llama.cpp's "llama" tokenizer model).
    const Value &tok_model = need("tokenizer.ggml.model");
    if (tok_model.text != "llama")
        throw InputError(name + ": tokenizer.ggml.model '" + shown_in_message(std::string(tok_model.text)) +
                         "' is not 'llama' (SentencePiece, the only tokenizer the device runs)");
    const Value &tokens = need("tokenizer.ggml.tokens");
    if (tokens.type != kValueArray || tokens.item_type != kValueString || tokens.texts.size() < 3)
        throw InputError(name + ": tokenizer.ggml.tokens must be an array of at least 3 strings");
    const Value &scores = need("tokenizer.ggml.scores");
    if (scores.type != kValueArray || scores.numbers.size() != tokens.texts.size())
        throw InputError(name + ": tokenizer.ggml.scores must hold one number per token (" +
                         std::to_string(tokens.texts.size()) + ")");
    for (const auto &[key, want] : {std::pair<const char *, uint32_t>{"tokenizer.ggml.bos_token_id", 1u},
                                    {"tokenizer.ggml.eos_token_id", 2u}})
        if (kv.count(key) && need_uint(key, 0, UINT32_MAX) != want)
            throw InputError(name + ": " + key + " is " + std::to_string(kv[key].integer) + "; the device tokenizer uses " +
                             std::to_string(want));
    cfg.vocab_size = uint32_t(tokens.texts.size());
    Vocabulary &voc = m.vocabulary;
    for (uint32_t i = 0; i < cfg.vocab_size; ++i)
        add_sentencepiece_piece(voc, name, i, std::string(tokens.texts[i]), float(scores.numbers[i]));
    check_llama_config(name, cfg);
    if (kv.count("llama.rope.dimension_count") &&
        need_uint("llama.rope.dimension_count", 0, UINT32_MAX) != cfg.head_size())
        throw InputError(name + ": llama.rope.dimension_count " + std::to_string(kv["llama.rope.dimension_count"].integer) +
                         " is not the head size " + std::to_string(cfg.head_size()) + " (partial RoPE is not supported)");

    // Tensor infos, then the data section at the next multiple of general.alignment.
    std::map<std::string, TensorInfo> infos;
    for (uint64_t i = 0; i < n_tensors; ++i) {
        const uint64_t at = c.at();
        const std::string tname(c.string(v1, "a tensor name", kMaxKeyBytes));
        TensorInfo t;
        const uint32_t nd = c.get<uint32_t>("a tensor's dimension count");
        if (nd < 1 || nd > 4) c.fail("tensor " + shown_in_message(tname) + " has " + std::to_string(nd) + " dimensions");
        for (uint32_t d = 0; d < nd; ++d) t.dims.push_back(c.count(v1, "a tensor dimension"));
        t.type = c.get<uint32_t>("a tensor type");
        t.offset = c.get<uint64_t>("a tensor offset");
        if (!infos.emplace(tname, t).second)
            throw InputError(name + ": tensor " + shown_in_message(tname) + " appears twice (again at byte " +
                             std::to_string(at) + ")");
        // A block the hyper-parameters do not have: the file disagrees with itself.
        if (tname.rfind("blk.", 0) == 0) {
            const size_t dot = tname.find('.', 4);
            const std::string digits = tname.substr(4, dot == std::string::npos ? std::string::npos : dot - 4);
            if (!digits.empty() && digits.size() < 8 && digits.find_first_not_of("0123456789") == std::string::npos &&
                std::stoul(digits) >= cfg.n_layers)
                throw InputError(name + ": tensor " + shown_in_message(tname) + " is in block " + digits +
                                 ", but llama.block_count is " + std::to_string(cfg.n_layers));
        }
    }
    const uint64_t alignment = kv.count("general.alignment") ? need_uint("general.alignment", 1, 1u << 16) : 32u;
    if (alignment & (alignment - 1)) throw InputError(name + ": general.alignment " + std::to_string(alignment) + " is not a power of two");
    const uint64_t data = (c.at() + alignment - 1) / alignment * alignment;
    check_tensor_ranges(infos, name);

    // Reads tensor `tname` of shape rows x cols (cols innermost) as fp32.
    auto tensor = [&](const std::string &tname, uint64_t rows, uint64_t cols, std::vector<float> &out) {
        const auto it = infos.find(tname);
        if (it == infos.end()) throw InputError(name + ": tensor " + tname + " is missing");
        const TensorInfo &t = it->second;
        uint64_t elements = 1;
        for (uint64_t d : t.dims) elements = d && elements > UINT64_MAX / d ? UINT64_MAX : elements * d;
        const bool shape_ok = t.dims[0] == cols && elements == rows * cols;
        if (!shape_ok) {
            std::string dims;
            for (uint64_t d : t.dims) dims += (dims.empty() ? "" : " x ") + std::to_string(d);
            throw InputError(name + ": tensor " + tname + " is " + dims + " (innermost first); the model needs " +
                             std::to_string(cols) + " x " + std::to_string(rows));
        }
        bool ok;
        const uint64_t nbytes = block_bytes(t.type, elements, &ok);
        if (!ok)
            throw InputError(name + ": tensor " + tname + " has type " + std::to_string(t.type) + " (" + type_name(t.type) +
                             "); read are F32, F16, BF16, Q8_0 and Q4_0 (blocks of 32)");
        if (t.offset % alignment || t.offset > bytes.size() || data > bytes.size() - t.offset ||
            nbytes > bytes.size() - data - t.offset)
            throw InputError(name + ": tensor " + tname + " (" + std::to_string(nbytes) + " bytes at data offset " +
                             std::to_string(t.offset) + ") lies outside the file's " + std::to_string(bytes.size()) +
                             " bytes or off its alignment");
        const size_t base = out.size();
        out.resize(base + elements);
        to_float(bytes.data() + data + t.offset, t.type, elements, out.data() + base);
        for (uint64_t i = 0; i < elements; ++i)
            if (!std::isfinite(out[base + i]))
                throw InputError(name + ": tensor " + tname + " has a non-finite value at element " + std::to_string(i));
        if (t.type != kTypeF32 && ck.format.find(type_name(t.type)) == std::string::npos)
            ck.format += std::string(", ") + type_name(t.type);
    };
    const uint64_t D = cfg.dim, KV = cfg.kv_dim(), H = cfg.hidden_dim, V = cfg.vocab_size;
    LlamaWeights &w = ck.weights;
    tensor("token_embd.weight", V, D, w.token_embedding);
    for (uint32_t l = 0; l < cfg.n_layers; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        tensor(b + "attn_norm.weight", 1, D, w.rms_att);
        tensor(b + "attn_q.weight", D, D, w.wq);
        tensor(b + "attn_k.weight", KV, D, w.wk);
        tensor(b + "attn_v.weight", KV, D, w.wv);
        tensor(b + "attn_output.weight", D, D, w.wo);
        tensor(b + "ffn_norm.weight", 1, D, w.rms_ffn);
        tensor(b + "ffn_gate.weight", H, D, w.w1);
        tensor(b + "ffn_down.weight", D, H, w.w2);
        tensor(b + "ffn_up.weight", H, D, w.w3);
    }
    tensor("output_norm.weight", 1, D, w.rms_final);
    cfg.shared_classifier = true;
    if (infos.count("output.weight")) {
        std::vector<float> cls;
        tensor("output.weight", V, D, cls);
        if (cls != w.token_embedding) {
            w.wcls = std::move(cls);
            cfg.shared_classifier = false;
        }
    }
    return m;
}

} // namespace tessera
