#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tessera/image_format.h"
#include "tessera/json_input.h"
#include "tessera/models/llama2c.h"

namespace tessera {

namespace {

constexpr uint32_t kMagicAk42 = 0x616b3432u; // "ak42" as written by llama2.c's export.py
constexpr uint64_t kV1HeaderBytes = 256; // versions 1 and 2
constexpr size_t kGroupSizeOffset = 37;   // version 2: int32, unaligned, after the shared-classifier byte

} // namespace

std::vector<uint8_t> read_checkpoint_bytes(const std::string &path)
{
    // One read into a buffer of the file's size (no doubling while it grows).
    return read_file_head(path, SIZE_MAX);
}

std::vector<uint8_t> read_file_head(const std::string &path, size_t max_bytes, uint64_t *file_size)
{
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        throw InputError(path + ": not a regular file");
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw InputError(path + ": cannot open");
    const uint64_t size = uint64_t(in.tellg());
    if (file_size) *file_size = size;
    in.seekg(0);
    std::vector<uint8_t> head(size_t(std::min<uint64_t>(size, max_bytes)));
    if (!in.read(reinterpret_cast<char *>(head.data()), std::streamsize(head.size()))) throw InputError(path + ": cannot read");
    return head;
}

std::string shown_in_message(const std::string &s) { return json_input::printable(s); }

void check_token_piece(const std::string &name, uint32_t id, const std::string &piece)
{
    switch (tsr_check_token_piece(piece.data(), uint32_t(std::min<size_t>(piece.size(), UINT32_MAX)), TSR_MAX_TOKEN_BYTES)) {
    case TSR_PIECE_OK: return;
    case TSR_PIECE_TOO_LONG:
        throw InputError(name + ": token " + std::to_string(id) + " ('" + shown_in_message(piece) + "') is " +
                         std::to_string(piece.size()) + " bytes; the device tokenizer holds pieces of at most " +
                         std::to_string(TSR_MAX_TOKEN_BYTES));
    case TSR_PIECE_HAS_NUL:
        throw InputError(name + ": token " + std::to_string(id) + " ('" + shown_in_message(piece) +
                         "') contains a NUL byte, which the device tokenizer cannot hold");
    }
}

void add_sentencepiece_piece(Vocabulary &v, const std::string &name, uint32_t id, std::string piece, float score)
{
    if (id == 1) piece = "\n<s>\n";
    if (id == 2) piece = "\n</s>\n";
    for (size_t at; (at = piece.find("\xE2\x96\x81")) != std::string::npos;) piece.replace(at, 3, " ");
    check_token_piece(name, id, piece);
    v.max_token_length = std::max<uint32_t>(v.max_token_length, uint32_t(piece.size()));
    v.pieces.push_back(std::move(piece));
    v.scores.push_back(score);
}

float f32_from_f16(uint16_t h)
{
    const int exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
    const float v = exp == 0 ? std::ldexp(float(mant), -24) /* zero and subnormals */
                    : exp == 31 ? (mant ? NAN : INFINITY)
                                : std::ldexp(float(mant | 0x400), exp - 25);
    return (h & 0x8000u) ? -v : v;
}

void check_llama_config(const std::string &name, const LlamaConfig &c)
{
    if (c.dim % c.n_heads != 0 || (c.dim / c.n_heads) % 2 != 0)
        throw InputError(name + ": dim " + std::to_string(c.dim) + " / n_heads " + std::to_string(c.n_heads) +
                         " is not a whole even head size");
    if (c.n_heads % c.n_kv_heads != 0)
        throw InputError(name + ": n_heads " + std::to_string(c.n_heads) + " is not a multiple of n_kv_heads " +
                         std::to_string(c.n_kv_heads));
}

namespace {

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
    LlamaConfig c;
    c.dim = uint32_t(dim);
    c.hidden_dim = uint32_t(hidden);
    c.n_layers = uint32_t(layers);
    c.n_heads = uint32_t(heads);
    c.n_kv_heads = uint32_t(kv_heads);
    c.vocab_size = uint32_t(std::abs(vocab));
    c.seq_len = uint32_t(seq);
    c.shared_classifier = !legacy || vocab > 0;
    check_llama_config(path, c);
    return c;
}

// Q8_0 groups run along the rows of every weight matrix, and runq.c quantizes the
// activations in groups too: a group must divide both dim (the rows of most
// matrices) and hidden_dim (the rows of w2). export.py only checks dim, so it writes
// files whose w2 groups straddle rows, which runq.c then runs into garbage.
void check_q8_0_group_size(const std::string &path, const LlamaConfig &c, int32_t group_size)
{
    if (group_size <= 0)
        throw InputError(path + ": header field group_size = " + std::to_string(group_size) + " (at byte " +
                         std::to_string(kGroupSizeOffset) + ") must be positive");
    for (const auto &[name, n] : {std::pair<const char *, uint32_t>{"dim", c.dim}, {"hidden_dim", c.hidden_dim}})
        if (n % uint32_t(group_size) != 0)
            throw InputError(path + ": Q8_0 group size " + std::to_string(group_size) + " does not divide " + name +
                             " " + std::to_string(n) +
                             ": quantization groups would straddle rows (llama2.c's runq.c silently computes "
                             "garbage on such a file; export it with a group size dividing both dim and hidden_dim)");
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

    // llama2.c's Q8_0 (version 2): `tensors` tensors of `each` int8 values, each
    // followed by its fp32 scales, one per `group` values; dequantized as runq.c does
    // (q * scale, in float).
    std::vector<float> take_q8_0(uint64_t tensors, uint64_t each, uint64_t group, const char *name)
    {
        std::vector<float> v(tensors * each);
        for (uint64_t t = 0; t < tensors; ++t) {
            const uint8_t *q = bytes_.data() + offset_;
            const uint64_t scales_at = offset_ + each;
            for (uint64_t g = 0; g < each / group; ++g) {
                float scale;
                std::memcpy(&scale, bytes_.data() + scales_at + 4 * g, 4); // unaligned in the file
                if (!std::isfinite(scale))
                    throw InputError(path_ + ": tensor " + name + " has a non-finite scale in group " +
                                     std::to_string(t * (each / group) + g) + " (file offset " +
                                     std::to_string(scales_at + 4 * g) + ")");
                for (uint64_t i = g * group; i < (g + 1) * group; ++i)
                    v[t * each + i] = float(int8_t(q[i])) * scale;
            }
            offset_ = scales_at + 4 * (each / group);
        }
        return v;
    }

private:
    const std::string &path_;
    const std::vector<uint8_t> &bytes_;
    uint64_t offset_;
};

} // namespace

namespace {

// What a checkpoint's header says: its format, hyper-parameters and where the weights
// are; `b` holds at least the header (the whole file, or its first 256 bytes), and
// `file_size` must be what the header implies.
struct Layout {
    LlamaCheckpoint ck; // format and config
    uint64_t data_offset = 0;
    bool legacy = false;
    int32_t group_size = 0; // version 2 only
};

Layout read_layout(const std::vector<uint8_t> &b, uint64_t file_size, const std::string &path)
{
    Layout layout;
    LlamaCheckpoint &ck = layout.ck;
    uint64_t &data_offset = layout.data_offset;
    bool &legacy = layout.legacy;
    int32_t &group_size = layout.group_size;
    if (b.size() < 28)
        throw InputError(path + ": " + std::to_string(b.size()) + " bytes, too short for a llama2.c header (28)");
    uint32_t magic;
    std::memcpy(&magic, b.data(), 4);
    if (magic == kMagicAk42) {
        if (b.size() < kV1HeaderBytes)
            throw InputError(path + ": " + std::to_string(b.size()) + " bytes, too short for the 256-byte ak42 header");
        const int32_t version = i32_at(b, 4);
        if (version != 1 && version != 2)
            throw InputError(path + ": ak42 checkpoint version " + std::to_string(version) +
                             " is not supported (version 1, fp32, and version 2, Q8_0)");
        ck.config = parse_config(path, b, 8, false);
        ck.config.shared_classifier = b[36] != 0;
        if (version == 2) {
            group_size = i32_at(b, kGroupSizeOffset);
            check_q8_0_group_size(path, ck.config, group_size);
            ck.format = "llama2.c v2 (ak42, Q8_0, group size " + std::to_string(group_size) + ")";
        } else {
            ck.format = "llama2.c v1 (ak42)";
        }
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
    const uint64_t weights = V * D + L * D * D * 2 + L * D * KV * 2 + 3 * L * D * H + (c.shared_classifier ? 0 : V * D);
    const uint64_t norms = 2 * L * D + D;
    const uint64_t expected = group_size ? data_offset + norms * 4 + weights + weights / uint64_t(group_size) * 4
                                         : data_offset + (weights + norms + rope_tables) * 4;
    if (file_size != expected)
        throw InputError(path + ": " + std::to_string(file_size) + " bytes, but a " + ck.format + " checkpoint of dim " +
                         std::to_string(c.dim) + ", hidden " + std::to_string(c.hidden_dim) + ", " +
                         std::to_string(c.n_layers) + " layers, vocab " + std::to_string(c.vocab_size) + " has " +
                         std::to_string(expected) + (file_size < expected ? " (truncated)" : " (trailing bytes)"));
    return layout;
}

} // namespace

bool is_llama2c_checkpoint(const std::string &path)
{
    try {
        const std::vector<uint8_t> head = read_file_head(path, 28);
        if (head.size() < 28) return false;
        uint32_t magic;
        std::memcpy(&magic, head.data(), 4);
        if (magic == kMagicAk42) return true;
        parse_config(path, head, 0, true);
        return true;
    } catch (const InputError &) {
        return false;
    }
}

LlamaCheckpoint read_llama2c_checkpoint(const std::string &path)
{
    uint64_t file_size = 0;
    const std::vector<uint8_t> head = read_file_head(path, kV1HeaderBytes, &file_size);
    read_layout(head, file_size, path); // a bad header is refused before the weights are read
    return parse_llama2c_checkpoint(read_checkpoint_bytes(path), path);
}

LlamaCheckpoint parse_llama2c_checkpoint(const std::vector<uint8_t> &b, const std::string &path)
{
    Layout layout = read_layout(b, b.size(), path);
    LlamaCheckpoint ck = std::move(layout.ck);
    const uint64_t data_offset = layout.data_offset;
    const bool legacy = layout.legacy;
    const int32_t group_size = layout.group_size;
    const LlamaConfig &c = ck.config;
    const uint64_t L = c.n_layers, D = c.dim, KV = c.kv_dim(), H = c.hidden_dim, V = c.vocab_size;
    const uint64_t rope_tables = legacy ? uint64_t(c.seq_len) * c.head_size() : 0; // freq_cis real + imag
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
    } else if (group_size) {
        const uint64_t g = uint64_t(group_size);
        w.rms_att = r.take(L * D, "rms_att");
        w.rms_ffn = r.take(L * D, "rms_ffn");
        w.rms_final = r.take(D, "rms_final");
        w.token_embedding = r.take_q8_0(1, V * D, g, "token_embedding");
        w.wq = r.take_q8_0(L, D * D, g, "wq");
        w.wk = r.take_q8_0(L, D * KV, g, "wk");
        w.wv = r.take_q8_0(L, D * KV, g, "wv");
        w.wo = r.take_q8_0(L, D * D, g, "wo");
        w.w1 = r.take_q8_0(L, D * H, g, "w1");
        w.w2 = r.take_q8_0(L, D * H, g, "w2");
        w.w3 = r.take_q8_0(L, D * H, g, "w3");
        if (!c.shared_classifier) w.wcls = r.take_q8_0(1, V * D, g, "wcls");
        return ck;
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
    // Checked before the file is read: `expect_size` pieces the device can hold take
    // a score, a length and at most TSR_MAX_TOKEN_BYTES each (a file up to 16 MiB is
    // read and its count of tokens reported instead).
    uint64_t file_size = 0;
    read_file_head(path, 4, &file_size);
    const uint64_t largest = 4 + uint64_t(expect_size) * (8 + TSR_MAX_TOKEN_BYTES);
    if (file_size > largest && file_size > (16u << 20))
        throw InputError(path + ": " + std::to_string(file_size) + " bytes; " + std::to_string(expect_size) +
                         " tokens of at most " + std::to_string(TSR_MAX_TOKEN_BYTES) + " bytes take at most " +
                         std::to_string(largest) + " (not a llama2.c tokenizer for this model)");
    return parse_llama2c_tokenizer(read_checkpoint_bytes(path), path, expect_size);
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
        check_token_piece(path, uint32_t(id), piece);
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
