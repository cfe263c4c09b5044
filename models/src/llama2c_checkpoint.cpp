#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tessera/models/llama2c.h"

namespace tessera {

namespace {

constexpr uint32_t kMagicAk42 = 0x616b3432u; // "ak42" as written by llama2.c's export.py
constexpr uint64_t kV1HeaderBytes = 256;

std::vector<uint8_t> read_file(const std::string &path)
{
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        throw InputError(path + ": not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open");
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    if (in.bad()) throw InputError(path + ": cannot read");
    return bytes;
}

int32_t i32_at(const std::vector<uint8_t> &b, size_t off)
{
    int32_t v;
    std::memcpy(&v, b.data() + off, 4);
    return v;
}

void check_range(const std::string &path, const char *field, int64_t v, int64_t lo, int64_t hi)
{
    if (v < lo || v > hi)
        throw InputError(path + ": header field " + field + " = " + std::to_string(v) + " is outside " +
                         std::to_string(lo) + ".." + std::to_string(hi));
}

LlamaConfig parse_config(const std::string &path, const std::vector<uint8_t> &b, size_t off, bool legacy)
{
    const int32_t dim = i32_at(b, off), hidden = i32_at(b, off + 4), layers = i32_at(b, off + 8),
                  heads = i32_at(b, off + 12), kv_heads = i32_at(b, off + 16), vocab = i32_at(b, off + 20),
                  seq = i32_at(b, off + 24);
    check_range(path, "dim", dim, 2, 65536);
    check_range(path, "hidden_dim", hidden, 1, 1 << 20);
    check_range(path, "n_layers", layers, 1, 1024);
    check_range(path, "n_heads", heads, 1, dim);
    check_range(path, "n_kv_heads", kv_heads, 1, heads);
    check_range(path, "vocab_size", legacy ? std::abs(int64_t(vocab)) : vocab, 3, 1 << 20);
    check_range(path, "seq_len", seq, 1, 1 << 20);
    if (dim % heads != 0 || (dim / heads) % 2 != 0)
        throw InputError(path + ": dim " + std::to_string(dim) + " / n_heads " + std::to_string(heads) +
                         " is not a whole even head size");
    if (heads % kv_heads != 0)
        throw InputError(path + ": n_heads " + std::to_string(heads) + " is not a multiple of n_kv_heads " +
                         std::to_string(kv_heads));
    LlamaConfig c;
    c.dim = uint32_t(dim);
    c.hidden_dim = uint32_t(hidden);
    c.n_layers = uint32_t(layers);
    c.n_heads = uint32_t(heads);
    c.n_kv_heads = uint32_t(kv_heads);
    c.vocab_size = uint32_t(std::abs(vocab));
    c.seq_len = uint32_t(seq);
    c.shared_classifier = !legacy || vocab > 0;
    return c;
}

// Reads consecutive fp32 tensors from the file, checking they are finite.
class FloatReader {
public:
    FloatReader(const std::string &path, const std::vector<uint8_t> &bytes, uint64_t offset)
        : path_(path), bytes_(bytes), offset_(offset)
    {
    }
    std::vector<float> take(uint64_t count, const char *name)
    {
        std::vector<float> v(count);
        std::memcpy(v.data(), bytes_.data() + offset_, count * 4);
        for (uint64_t i = 0; i < count; ++i)
            if (!std::isfinite(v[i]))
                throw InputError(path_ + ": tensor " + name + " has a non-finite value at element " +
                                 std::to_string(i) + " (file offset " + std::to_string(offset_ + 4 * i) + ")");
        offset_ += count * 4;
        return v;
    }
    void skip(uint64_t count) { offset_ += count * 4; }

private:
    const std::string &path_;
    const std::vector<uint8_t> &bytes_;
    uint64_t offset_;
};

} // namespace

LlamaCheckpoint read_llama2c_checkpoint(const std::string &path) { return parse_llama2c_checkpoint(read_file(path), path); }

LlamaCheckpoint parse_llama2c_checkpoint(const std::vector<uint8_t> &b, const std::string &path)
{
    if (b.size() < 28)
        throw InputError(path + ": " + std::to_string(b.size()) + " bytes, too short for a llama2.c header (28)");
    LlamaCheckpoint ck;
    uint32_t magic;
    std::memcpy(&magic, b.data(), 4);
    uint64_t data_offset;
    bool legacy;
    if (magic == kMagicAk42) {
        if (b.size() < kV1HeaderBytes)
            throw InputError(path + ": " + std::to_string(b.size()) + " bytes, too short for the 256-byte ak42 header");
        const int32_t version = i32_at(b, 4);
        if (version != 1)
            throw InputError(path + ": ak42 checkpoint version " + std::to_string(version) +
                             " is not supported (only version 1, fp32)");
        ck.format = "llama2.c v1 (ak42)";
        ck.config = parse_config(path, b, 8, false);
        ck.config.shared_classifier = b[36] != 0;
        data_offset = kV1HeaderBytes;
        legacy = false;
    } else {
        ck.format = "llama2.c legacy";
        ck.config = parse_config(path, b, 0, true);
        data_offset = 28;
        legacy = true;
    }
    const LlamaConfig &c = ck.config;
    const uint64_t L = c.n_layers, D = c.dim, KV = c.kv_dim(), H = c.hidden_dim, V = c.vocab_size;
    const uint64_t rope_tables = legacy ? uint64_t(c.seq_len) * c.head_size() : 0; // freq_cis real + imag
    const uint64_t floats = V * D + 2 * L * D + L * D * D * 2 + L * D * KV * 2 + 3 * L * D * H + D + rope_tables +
                            (c.shared_classifier ? 0 : V * D);
    const uint64_t expected = data_offset + floats * 4;
    if (b.size() != expected)
        throw InputError(path + ": " + std::to_string(b.size()) + " bytes, but a " + ck.format + " checkpoint of dim " +
                         std::to_string(c.dim) + ", hidden " + std::to_string(c.hidden_dim) + ", " +
                         std::to_string(c.n_layers) + " layers, vocab " + std::to_string(c.vocab_size) + " has " +
                         std::to_string(expected) + (b.size() < expected ? " (truncated)" : " (trailing bytes)"));
    FloatReader r(path, b, data_offset);
    LlamaWeights &w = ck.weights;
    if (legacy) {
        w.token_embedding = r.take(V * D, "token_embedding");
        w.rms_att = r.take(L * D, "rms_att");
        w.wq = r.take(L * D * D, "wq");
        w.wk = r.take(L * D * KV, "wk");
        w.wv = r.take(L * D * KV, "wv");
        w.wo = r.take(L * D * D, "wo");
        w.rms_ffn = r.take(L * D, "rms_ffn");
        w.w1 = r.take(L * D * H, "w1");
        w.w2 = r.take(L * D * H, "w2");
        w.w3 = r.take(L * D * H, "w3");
        w.rms_final = r.take(D, "rms_final");
        r.skip(rope_tables); // llama2.c computes RoPE itself; so do we (as a table, in the packer)
    } else {
        w.rms_att = r.take(L * D, "rms_att");
        w.rms_ffn = r.take(L * D, "rms_ffn");
        w.rms_final = r.take(D, "rms_final");
        w.token_embedding = r.take(V * D, "token_embedding");
        w.wq = r.take(L * D * D, "wq");
        w.wk = r.take(L * D * KV, "wk");
        w.wv = r.take(L * D * KV, "wv");
        w.wo = r.take(L * D * D, "wo");
        w.w1 = r.take(L * D * H, "w1");
        w.w2 = r.take(L * D * H, "w2");
        w.w3 = r.take(L * D * H, "w3");
    }
    if (!c.shared_classifier) w.wcls = r.take(V * D, "wcls");
    return ck;
}

Vocabulary read_llama2c_tokenizer(const std::string &path, uint32_t expect_size)
{
    return parse_llama2c_tokenizer(read_file(path), path, expect_size);
}

Vocabulary parse_llama2c_tokenizer(const std::vector<uint8_t> &b, const std::string &path, uint32_t expect_size)
{
    if (b.size() < 4) throw InputError(path + ": too short for a llama2.c tokenizer");
    Vocabulary v;
    v.max_token_length = uint32_t(i32_at(b, 0));
    size_t off = 4;
    while (off < b.size()) {
        const size_t id = v.pieces.size();
        if (b.size() - off < 8)
            throw InputError(path + ": truncated at byte " + std::to_string(off) + " (entry of token " +
                             std::to_string(id) + ")");
        float score;
        std::memcpy(&score, b.data() + off, 4);
        const int32_t len = i32_at(b, off + 4);
        off += 8;
        if (len < 0 || size_t(len) > b.size() - off)
            throw InputError(path + ": token " + std::to_string(id) + " claims " + std::to_string(len) +
                             " bytes at offset " + std::to_string(off) + ", past the end of the file");
        std::string piece(reinterpret_cast<const char *>(b.data() + off), size_t(len));
        if (piece.find('\0') != std::string::npos)
            throw InputError(path + ": token " + std::to_string(id) + " contains a NUL byte");
        v.pieces.push_back(std::move(piece));
        v.scores.push_back(score);
        off += size_t(len);
    }
    if (v.pieces.size() != expect_size)
        throw InputError(path + ": has " + std::to_string(v.pieces.size()) + " tokens, the model's vocabulary is " +
                         std::to_string(expect_size));
    uint32_t longest = 0;
    for (const auto &p : v.pieces) longest = std::max<uint32_t>(longest, uint32_t(p.size()));
    if (longest > v.max_token_length)
        throw InputError(path + ": a token of " + std::to_string(longest) + " bytes exceeds max_token_length " +
                         std::to_string(v.max_token_length));
    return v;
}

} // namespace tessera
