#include "tessera/models/gguf.h"

#include "tessera/models/bpe.h"

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
                                        "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id",
                                        "tokenizer.ggml.merges", "gpt2.embedding_length", "gpt2.feed_forward_length",
                                        "gpt2.block_count", "gpt2.attention.head_count", "gpt2.context_length",
                                        "gpt2.attention.layer_norm_epsilon"};
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

namespace {

// The metadata the reader keeps, and typed reads whose errors name the key.
class Metadata {
public:
    Metadata(Cursor &c, bool v1, uint64_t n_kv, const std::string &name) : name_(name)
    {
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
            if (keep) kv_[std::string(key)] = std::move(v);
        }
    }
    bool has(const std::string &key) const { return kv_.count(key) != 0; }
    const Value &need(const std::string &key) const
    {
        const auto it = kv_.find(key);
        if (it == kv_.end()) throw InputError(name_ + ": metadata key " + key + " is missing");
        return it->second;
    }
    uint32_t need_uint(const std::string &key, uint64_t lo, uint64_t hi) const
    {
        const Value &v = need(key);
        if (v.type == kValueString || v.type == kValueArray || v.type == kValueF32 || v.type == kValueF64 ||
            v.number < double(lo) || v.number > double(hi))
            throw InputError(name_ + ": metadata " + key + " must be an integer in " + std::to_string(lo) + ".." +
                             std::to_string(hi));
        return uint32_t(v.integer);
    }
    double number_or(const std::string &key, double fallback) const
    {
        const auto it = kv_.find(key);
        if (it == kv_.end()) return fallback;
        if (it->second.type == kValueString || it->second.type == kValueArray || !std::isfinite(it->second.number))
            throw InputError(name_ + ": metadata " + key + " must be a finite number");
        return it->second.number;
    }
    // As fp32, what the image holds: a double such as 1e300 would become infinity.
    float positive_f32(const std::string &key, double fallback) const
    {
        const double given = number_or(key, fallback);
        const float v = float(given);
        if (!(v > 0) || !std::isfinite(v)) {
            char shown[32];
            std::snprintf(shown, sizeof shown, "%.9g", given);
            throw InputError(name_ + ": metadata " + key + " must be a positive number that fp32 holds, not " + shown);
        }
        return v;
    }

private:
    std::map<std::string, Value> kv_;
    const std::string &name_;
};

// GPT-2 as llama.cpp's converter writes it (gpt2.*): LayerNorm, learned positions, GELU,
// biases.
LlamaConfig read_gpt2_hyper(const Metadata &md)
{
    LlamaConfig cfg;
    cfg.family = ModelFamily{"gpt2", true, true, true, true};
    cfg.dim = md.need_uint("gpt2.embedding_length", 2, 65536);
    cfg.hidden_dim = md.need_uint("gpt2.feed_forward_length", 1, 1u << 20);
    cfg.n_layers = md.need_uint("gpt2.block_count", 1, 1024);
    cfg.n_heads = cfg.n_kv_heads = md.need_uint("gpt2.attention.head_count", 1, cfg.dim);
    cfg.seq_len = md.need_uint("gpt2.context_length", 1, 1u << 20);
    cfg.norm_eps = md.positive_f32("gpt2.attention.layer_norm_epsilon", 1e-5);
    return cfg;
}

LlamaConfig read_hyper(const Metadata &md, const std::string &name)
{
    const Value &arch = md.need("general.architecture");
    if (arch.type == kValueString && arch.text == "gpt2") return read_gpt2_hyper(md);
    if (arch.type != kValueString || arch.text != "llama")
        throw InputError(name + ": general.architecture '" + shown_in_message(std::string(arch.text)) +
                         "' is not one of those read: llama, gpt2");
    LlamaConfig cfg;
    cfg.dim = md.need_uint("llama.embedding_length", 2, 65536);
    cfg.hidden_dim = md.need_uint("llama.feed_forward_length", 1, 1u << 20);
    cfg.n_layers = md.need_uint("llama.block_count", 1, 1024);
    cfg.n_heads = md.need_uint("llama.attention.head_count", 1, cfg.dim);
    cfg.n_kv_heads = md.has("llama.attention.head_count_kv") ? md.need_uint("llama.attention.head_count_kv", 1, cfg.n_heads)
                                                             : cfg.n_heads;
    cfg.seq_len = md.need_uint("llama.context_length", 1, 1u << 20);
    cfg.rope_theta = md.positive_f32("llama.rope.freq_base", 10000.0);
    cfg.norm_eps = md.positive_f32("llama.attention.layer_norm_rms_epsilon", 1e-5);
    return cfg;
}

// The vocabulary (SentencePiece, as llama.cpp's "llama" tokenizer model); sets the
// vocabulary size and checks the whole configuration.
void read_vocabulary(const Metadata &md, const std::string &name, LlamaConfig &cfg, Vocabulary &voc)
{
    const Value &tok_model = md.need("tokenizer.ggml.model");
    if (tok_model.text != "llama" && tok_model.text != "gpt2")
        throw InputError(name + ": tokenizer.ggml.model '" + shown_in_message(std::string(tok_model.text)) +
                         "' is not one of those read: llama (SentencePiece), gpt2 (byte-level BPE)");
    const Value &tokens = md.need("tokenizer.ggml.tokens");
    if (tokens.type != kValueArray || tokens.item_type != kValueString || tokens.texts.size() < 3)
        throw InputError(name + ": tokenizer.ggml.tokens must be an array of at least 3 strings");
    if (tok_model.text == "gpt2") { // byte-level BPE: the tokens and their merges by rank
        const Value &merges = md.need("tokenizer.ggml.merges");
        if (merges.type != kValueArray || merges.item_type != kValueString)
            throw InputError(name + ": tokenizer.ggml.merges must be an array of strings");
        std::vector<MergeLine> lines;
        for (size_t i = 0; i < merges.texts.size(); ++i)
            lines.push_back({name + ": tokenizer.ggml.merges[" + std::to_string(i) + "]", std::string(merges.texts[i])});
        cfg.vocab_size = uint32_t(tokens.texts.size());
        voc = byte_level_vocabulary(byte_level_bpe(std::vector<std::string>(tokens.texts.begin(), tokens.texts.end()),
                                                   name + ": tokenizer.ggml.tokens", lines),
                                    name);
        const uint32_t last = cfg.vocab_size - 1;
        cfg.bos_id = md.has("tokenizer.ggml.bos_token_id") ? md.need_uint("tokenizer.ggml.bos_token_id", 0, last) : last;
        cfg.eos_id = md.has("tokenizer.ggml.eos_token_id") ? md.need_uint("tokenizer.ggml.eos_token_id", 0, last) : last;
        check_llama_config(name, cfg);
        return;
    }
    const Value &scores = md.need("tokenizer.ggml.scores");
    if (scores.type != kValueArray || scores.numbers.size() != tokens.texts.size())
        throw InputError(name + ": tokenizer.ggml.scores must hold one number per token (" +
                         std::to_string(tokens.texts.size()) + ")");
    for (const auto &[key, want] : {std::pair<const char *, uint32_t>{"tokenizer.ggml.bos_token_id", 1u},
                                    {"tokenizer.ggml.eos_token_id", 2u}})
        if (md.has(key) && md.need_uint(key, 0, UINT32_MAX) != want)
            throw InputError(name + ": " + key + " is " + std::to_string(md.need(key).integer) +
                             "; the device tokenizer uses " + std::to_string(want));
    cfg.vocab_size = uint32_t(tokens.texts.size());
    for (uint32_t i = 0; i < cfg.vocab_size; ++i)
        add_sentencepiece_piece(voc, name, i, std::string(tokens.texts[i]), float(scores.numbers[i]));
    check_llama_config(name, cfg);
    if (md.has("llama.rope.dimension_count") && md.need_uint("llama.rope.dimension_count", 0, UINT32_MAX) != cfg.head_size())
        throw InputError(name + ": llama.rope.dimension_count " + std::to_string(md.need("llama.rope.dimension_count").integer) +
                         " is not the head size " + std::to_string(cfg.head_size()) + " (partial RoPE is not supported)");
}

// The tensor infos, each name once, no block beyond the hyper-parameters'.
std::map<std::string, TensorInfo> read_tensor_infos(Cursor &c, bool v1, uint64_t n_tensors, uint32_t n_layers,
                                                    const std::string &name)
{
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
                std::stoul(digits) >= n_layers)
                throw InputError(name + ": tensor " + shown_in_message(tname) + " is in block " + digits +
                                 ", but llama.block_count is " + std::to_string(n_layers));
        }
    }
    return infos;
}

// Reads a tensor of the data section, by name and shape, as fp32; names the types it
// met in the checkpoint's format line.
class TensorReader {
public:
    TensorReader(const std::vector<uint8_t> &bytes, const std::map<std::string, TensorInfo> &infos, uint64_t data,
                 uint64_t alignment, const std::string &name, std::string &format)
        : bytes_(bytes), infos_(infos), data_(data), alignment_(alignment), name_(name), format_(format)
    {
    }
    bool has(const std::string &tname) const { return infos_.count(tname) != 0; }
    // Tensor `tname` of shape rows x cols (cols innermost), appended to `out`.
    void operator()(const std::string &tname, uint64_t rows, uint64_t cols, std::vector<float> &out) const
    {
        const auto it = infos_.find(tname);
        if (it == infos_.end()) throw InputError(name_ + ": tensor " + tname + " is missing");
        const TensorInfo &t = it->second;
        uint64_t elements = 1;
        for (uint64_t d : t.dims) elements = d && elements > UINT64_MAX / d ? UINT64_MAX : elements * d;
        if (t.dims[0] != cols || elements != rows * cols) {
            std::string dims;
            for (uint64_t d : t.dims) dims += (dims.empty() ? "" : " x ") + std::to_string(d);
            throw InputError(name_ + ": tensor " + tname + " is " + dims + " (innermost first); the model needs " +
                             std::to_string(cols) + " x " + std::to_string(rows));
        }
        bool ok;
        const uint64_t nbytes = block_bytes(t.type, elements, &ok);
        if (!ok)
            throw InputError(name_ + ": tensor " + tname + " has type " + std::to_string(t.type) + " (" + type_name(t.type) +
                             "); read are F32, F16, BF16, Q8_0 and Q4_0 (blocks of 32)");
        const uint64_t size = bytes_.size();
        if (t.offset % alignment_ || t.offset > size || data_ > size - t.offset || nbytes > size - data_ - t.offset)
            throw InputError(name_ + ": tensor " + tname + " (" + std::to_string(nbytes) + " bytes at data offset " +
                             std::to_string(t.offset) + ") lies outside the file's " + std::to_string(size) +
                             " bytes or off its alignment");
        const size_t base = out.size();
        out.resize(base + elements);
        to_float(bytes_.data() + data_ + t.offset, t.type, elements, out.data() + base);
        for (uint64_t i = 0; i < elements; ++i)
            if (!std::isfinite(out[base + i]))
                throw InputError(name_ + ": tensor " + tname + " has a non-finite value at element " + std::to_string(i));
        if (t.type != kTypeF32 && format_.find(type_name(t.type)) == std::string::npos)
            format_ += std::string(", ") + type_name(t.type);
    }

private:
    const std::vector<uint8_t> &bytes_;
    const std::map<std::string, TensorInfo> &infos_;
    uint64_t data_, alignment_;
    const std::string &name_;
    std::string &format_;
};

// GPT-2's weights by llama.cpp's names: the converter stores Conv1D's [in, out] weights
// transposed ([out, in], as the matmul reads them), Q, K and V as one attn_qkv.
void read_gpt2_weights(const TensorReader &tensor, const LlamaConfig &cfg, LlamaWeights &w)
{
    const uint64_t D = cfg.dim, H = cfg.hidden_dim;
    tensor("token_embd.weight", cfg.vocab_size, D, w.token_embedding);
    tensor("position_embd.weight", cfg.seq_len, D, w.position_embedding);
    std::vector<float> qkv, bias;
    for (uint32_t l = 0; l < cfg.n_layers; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        tensor(b + "attn_norm.weight", 1, D, w.rms_att);
        tensor(b + "attn_norm.bias", 1, D, w.att_norm_bias);
        qkv.clear(), bias.clear();
        tensor(b + "attn_qkv.weight", 3 * D, D, qkv);
        tensor(b + "attn_qkv.bias", 1, 3 * D, bias);
        for (uint32_t part = 0; part < 3; ++part) {
            std::vector<float> &wt = part == 0 ? w.wq : part == 1 ? w.wk : w.wv;
            std::vector<float> &bt = part == 0 ? w.bq : part == 1 ? w.bk : w.bv;
            wt.insert(wt.end(), qkv.begin() + long(part * D * D), qkv.begin() + long((part + 1) * D * D));
            bt.insert(bt.end(), bias.begin() + long(part * D), bias.begin() + long((part + 1) * D));
        }
        tensor(b + "attn_output.weight", D, D, w.wo);
        tensor(b + "attn_output.bias", 1, D, w.bo);
        tensor(b + "ffn_norm.weight", 1, D, w.rms_ffn);
        tensor(b + "ffn_norm.bias", 1, D, w.ffn_norm_bias);
        tensor(b + "ffn_up.weight", H, D, w.w3);
        tensor(b + "ffn_up.bias", 1, H, w.b3);
        tensor(b + "ffn_down.weight", D, H, w.w2);
        tensor(b + "ffn_down.bias", 1, D, w.b2);
    }
    tensor("output_norm.weight", 1, D, w.rms_final);
    tensor("output_norm.bias", 1, D, w.final_norm_bias);
}

// The Llama weights by llama.cpp's tensor names.
void read_llama_weights(const TensorReader &tensor, const LlamaConfig &cfg, LlamaWeights &w)
{
    const uint64_t D = cfg.dim, KV = cfg.kv_dim(), H = cfg.hidden_dim, V = cfg.vocab_size;
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
}

// The family's weights; a classifier equal to the embedding table is shared.
void read_weights(const TensorReader &tensor, LlamaConfig &cfg, LlamaWeights &w)
{
    if (cfg.family.name == "gpt2") read_gpt2_weights(tensor, cfg, w);
    else read_llama_weights(tensor, cfg, w);
    const uint64_t D = cfg.dim, V = cfg.vocab_size;
    cfg.shared_classifier = true;
    if (tensor.has("output.weight")) {
        std::vector<float> cls;
        tensor("output.weight", V, D, cls);
        if (cls != w.token_embedding) {
            w.wcls = std::move(cls);
            cfg.shared_classifier = false;
        }
    }
}

} // namespace

GgufModel parse_gguf(const std::vector<uint8_t> &bytes, const std::string &name)
{
    Cursor c(bytes, name);
    const uint32_t version = read_magic_and_version(c, bytes);
    const bool v1 = version == 1; // 32-bit counts and lengths
    const uint64_t n_tensors = c.count(v1, "the tensor count"), n_kv = c.count(v1, "the metadata count");
    if (n_tensors > kMaxTensors || n_kv > kMaxKeys)
        c.fail(std::to_string(n_tensors) + " tensors and " + std::to_string(n_kv) + " metadata keys; at most " +
               std::to_string(kMaxTensors) + " and " + std::to_string(kMaxKeys) + " are read");
    const Metadata md(c, v1, n_kv, name);
    GgufModel m;
    LlamaCheckpoint &ck = m.checkpoint;
    ck.format = "GGUF v" + std::to_string(version);
    ck.config = read_hyper(md, name);
    read_vocabulary(md, name, ck.config, m.vocabulary);
    // Tensor infos, then the data section at the next multiple of general.alignment.
    const std::map<std::string, TensorInfo> infos = read_tensor_infos(c, v1, n_tensors, ck.config.n_layers, name);
    const uint64_t alignment = md.has("general.alignment") ? md.need_uint("general.alignment", 1, 1u << 16) : 32u;
    if (alignment & (alignment - 1)) throw InputError(name + ": general.alignment " + std::to_string(alignment) + " is not a power of two");
    const uint64_t data = (c.at() + alignment - 1) / alignment * alignment;
    check_tensor_ranges(infos, name);
    read_weights(TensorReader(bytes, infos, data, alignment, name, ck.format), ck.config, ck.weights);
    return m;
}

} // namespace tessera
