#include "synthetic_model.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <random>
#include <stdexcept>
#include <unistd.h>

namespace tessera::test {

namespace {

std::vector<float> random_vector(std::mt19937 &rng, size_t n, float scale, float offset = 0.0f)
{
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto &x : v) x = offset + scale * u(rng);
    return v;
}

std::ofstream open_for_writing(const std::string &path)
{
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error("cannot write " + path);
    return out;
}

void put_i32(std::ofstream &out, int32_t v) { out.write(reinterpret_cast<const char *>(&v), 4); }
void put_floats(std::ofstream &out, const std::vector<float> &v)
{
    out.write(reinterpret_cast<const char *>(v.data()), std::streamsize(v.size() * 4));
}

} // namespace

SyntheticConfig tinyllama_v0_config()
{
    SyntheticConfig c;
    c.dim = 64;
    c.hidden_dim = 256;
    c.n_layers = 8;
    c.n_heads = 16;
    c.n_kv_heads = 16;
    c.vocab_size = 32000;
    c.seq_len = 256;
    return c;
}

SyntheticWeights make_weights(const SyntheticConfig &c)
{
    std::mt19937 rng(c.seed);
    const size_t L = size_t(c.n_layers), D = size_t(c.dim), H = size_t(c.hidden_dim), V = size_t(c.vocab_size);
    const size_t KV = D / size_t(c.n_heads) * size_t(c.n_kv_heads);
    const float s = 1.0f / std::sqrt(float(D));
    SyntheticWeights w;
    w.token_embedding = random_vector(rng, V * D, c.embedding_scale);
    w.rms_att = random_vector(rng, L * D, 0.2f, 1.0f);
    w.wq = random_vector(rng, L * D * D, s);
    w.wk = random_vector(rng, L * KV * D, s);
    w.wv = random_vector(rng, L * KV * D, s);
    w.wo = random_vector(rng, L * D * D, s);
    w.rms_ffn = random_vector(rng, L * D, 0.2f, 1.0f);
    w.w1 = random_vector(rng, L * H * D, s);
    w.w2 = random_vector(rng, L * D * H, 1.0f / std::sqrt(float(H)));
    w.w3 = random_vector(rng, L * H * D, s);
    w.rms_final = random_vector(rng, D, 0.2f, 1.0f);
    if (!c.shared_classifier) w.wcls = random_vector(rng, V * D, s * 4.0f);
    return w;
}

void write_legacy_checkpoint(const std::string &path, const SyntheticConfig &c, const SyntheticWeights &w)
{
    std::ofstream out = open_for_writing(path);
    for (int v : {c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads,
                  c.shared_classifier ? c.vocab_size : -c.vocab_size, c.seq_len})
        put_i32(out, v);
    for (const auto *t : {&w.token_embedding, &w.rms_att, &w.wq, &w.wk, &w.wv, &w.wo, &w.rms_ffn, &w.w1, &w.w2, &w.w3,
                          &w.rms_final})
        put_floats(out, *t);
    // freq_cis_real and freq_cis_imag: present in the legacy layout, unused by readers.
    put_floats(out, std::vector<float>(size_t(c.seq_len) * size_t(c.dim / c.n_heads), 0.5f));
    if (!c.shared_classifier) put_floats(out, w.wcls);
}

void write_v1_checkpoint(const std::string &path, const SyntheticConfig &c, const SyntheticWeights &w)
{
    std::ofstream out = open_for_writing(path);
    put_i32(out, 0x616b3432);
    put_i32(out, 1);
    for (int v : {c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, c.vocab_size, c.seq_len}) put_i32(out, v);
    out.put(char(c.shared_classifier ? 1 : 0));
    out.write(std::string(256 - 37, '\0').data(), 256 - 37);
    for (const auto *t : {&w.rms_att, &w.rms_ffn, &w.rms_final, &w.token_embedding, &w.wq, &w.wk, &w.wv, &w.wo, &w.w1,
                          &w.w2, &w.w3})
        put_floats(out, *t);
    if (!c.shared_classifier) put_floats(out, w.wcls);
}

SyntheticWeights write_v2_checkpoint(const std::string &path, const SyntheticConfig &c, const SyntheticWeights &w,
                                     int group_size)
{
    std::ofstream out = open_for_writing(path);
    put_i32(out, 0x616b3432);
    put_i32(out, 2);
    for (int v : {c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, c.vocab_size, c.seq_len}) put_i32(out, v);
    out.put(char(c.shared_classifier ? 1 : 0));
    put_i32(out, group_size); // at byte 37
    out.write(std::string(256 - 41, '\0').data(), 256 - 41);
    for (const auto *t : {&w.rms_att, &w.rms_ffn, &w.rms_final}) put_floats(out, *t);

    SyntheticWeights d = w; // what runq.c will compute with
    if (group_size <= 0) return d; // a broken header, for the reader's tests: nothing to quantize with
    const size_t gs = size_t(group_size);
    auto quantize = [&](std::vector<float> &deq, const std::vector<float> &src, size_t tensors) {
        const size_t each = src.size() / tensors;
        for (size_t t = 0; t < tensors; ++t) {
            std::vector<int8_t> q(each);
            std::vector<float> scales(each / gs);
            for (size_t g = 0; g < each / gs; ++g) {
                float wmax = 0.0f;
                for (size_t i = 0; i < gs; ++i) wmax = std::max(wmax, std::fabs(src[t * each + g * gs + i]));
                const float scale = wmax / 127.0f;
                scales[g] = scale;
                for (size_t i = 0; i < gs; ++i) {
                    const size_t at = g * gs + i;
                    q[at] = scale == 0.0f ? int8_t(0) : int8_t(std::nearbyint(src[t * each + at] / scale));
                    deq[t * each + at] = float(q[at]) * scale;
                }
            }
            out.write(reinterpret_cast<const char *>(q.data()), std::streamsize(q.size()));
            put_floats(out, scales);
        }
    };
    const size_t L = size_t(c.n_layers);
    quantize(d.token_embedding, w.token_embedding, 1);
    quantize(d.wq, w.wq, L);
    quantize(d.wk, w.wk, L);
    quantize(d.wv, w.wv, L);
    quantize(d.wo, w.wo, L);
    quantize(d.w1, w.w1, L);
    quantize(d.w2, w.w2, L);
    quantize(d.w3, w.w3, L);
    if (!c.shared_classifier) quantize(d.wcls, w.wcls, 1);
    if (!out) throw std::runtime_error("cannot write " + path);
    return d;
}

std::vector<std::string> tokenizer_pieces(const TokenizerSpec &spec)
{
    std::vector<std::string> pieces = {"<unk>", "\n<s>\n", "\n</s>\n"};
    char buf[8];
    for (int b = 0; spec.byte_pieces && b < 256; ++b) {
        std::snprintf(buf, sizeof buf, "<0x%02X>", b);
        pieces.emplace_back(buf);
    }
    if (spec.space_piece) pieces.emplace_back(" ");
    for (const char *p : {"a", "b", "c", "d", "e", "h", "l", "o", "t", " t", "th", " th", "he", " the", "ll", "lo"})
        pieces.emplace_back(p);
    if (spec.byte_pieces && spec.vocab_size < 259)
        throw std::invalid_argument("vocab_size too small for the synthetic tokenizer's byte pieces");
    if (int(pieces.size()) > spec.vocab_size) pieces.resize(size_t(spec.vocab_size));
    for (int i = 0; int(pieces.size()) < spec.vocab_size; ++i) pieces.push_back("filler" + std::to_string(i));
    return pieces;
}

void write_tokenizer(const std::string &path, const TokenizerSpec &spec)
{
    const std::vector<std::string> pieces = tokenizer_pieces(spec);
    std::ofstream out = open_for_writing(path);
    int32_t max_len = 0;
    for (const auto &p : pieces) max_len = std::max<int32_t>(max_len, int32_t(p.size()));
    put_i32(out, max_len);
    for (size_t i = 0; i < pieces.size(); ++i) {
        const float score = i < 259 ? 0.0f : -float(i); // earlier merges win, as in sentencepiece exports
        out.write(reinterpret_cast<const char *>(&score), 4);
        put_i32(out, int32_t(pieces[i].size()));
        out.write(pieces[i].data(), std::streamsize(pieces[i].size()));
    }
}

void write_tokenizer(const std::string &path, int vocab_size)
{
    TokenizerSpec spec;
    spec.vocab_size = vocab_size;
    write_tokenizer(path, spec);
}

namespace {

// The process's own folder under the temporary directory, tessera-tests-<pid>-XXXXXX,
// made on first use and removed with everything in it when the process exits normally.
// A death test's child ends with _exit and leaves it to the parent; a process that is
// killed (a test over its time limit) leaves it to scripts/test.sh, which removes the
// folders of processes that are gone.
class TestTempDir {
public:
    const std::filesystem::path &path()
    {
        if (path_.empty()) {
            std::string pattern =
                (std::filesystem::temp_directory_path() / ("tessera-tests-" + std::to_string(::getpid()) + "-XXXXXX")).string();
            if (::mkdtemp(pattern.data()) == nullptr)
                throw std::runtime_error("cannot make a temporary folder from " + pattern);
            path_ = pattern;
            owner_ = ::getpid();
        }
        return path_;
    }
    ~TestTempDir()
    {
        std::error_code ignored;
        if (!path_.empty() && owner_ == ::getpid()) std::filesystem::remove_all(path_, ignored);
    }

private:
    std::filesystem::path path_;
    pid_t owner_ = 0;
};

TestTempDir g_temp_dir;

} // namespace

std::string temp_path(const std::string &name) { return (g_temp_dir.path() / name).string(); }

std::string shared_dir()
{
#ifdef TESSERA_SHARED_DIR
    if (std::filesystem::is_directory(TESSERA_SHARED_DIR)) return TESSERA_SHARED_DIR;
#endif
    return "";
}

} // namespace tessera::test
