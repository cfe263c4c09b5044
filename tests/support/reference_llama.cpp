#include "reference_llama.h"

#include <cmath>

namespace tessera::test {

namespace {

using Vec = std::vector<double>;

Vec matvec(const std::vector<float> &w, size_t offset, const Vec &x, size_t rows)
{
    Vec y(rows, 0.0);
    for (size_t i = 0; i < rows; ++i)
        for (size_t j = 0; j < x.size(); ++j) y[i] += double(w[offset + i * x.size() + j]) * x[j];
    return y;
}

Vec rmsnorm(const Vec &x, const std::vector<float> &w, size_t offset)
{
    double ss = 0;
    for (double v : x) ss += v * v;
    const double scale = 1.0 / std::sqrt(ss / double(x.size()) + 1e-5);
    Vec y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = double(w[offset + i]) * x[i] * scale;
    return y;
}

// Rotate consecutive pairs of each head by pos * 10000^(-2i/head_size).
void rotate(Vec &v, int pos, size_t head_size)
{
    for (size_t i = 0; i < v.size(); i += 2) {
        const double angle = pos * std::pow(10000.0, -double(i % head_size) / double(head_size));
        const double a = v[i], b = v[i + 1];
        v[i] = a * std::cos(angle) - b * std::sin(angle);
        v[i + 1] = a * std::sin(angle) + b * std::cos(angle);
    }
}

} // namespace

ReferenceLlama::ReferenceLlama(const SyntheticConfig &c, const SyntheticWeights &w)
    : c_(c), w_(w), k_cache_(size_t(c.n_layers)), v_cache_(size_t(c.n_layers))
{
}

std::vector<double> ReferenceLlama::forward(int token)
{
    const size_t D = size_t(c_.dim), H = size_t(c_.hidden_dim), hs = D / size_t(c_.n_heads);
    const size_t KV = hs * size_t(c_.n_kv_heads), group = size_t(c_.n_heads / c_.n_kv_heads);
    Vec x(D);
    for (size_t i = 0; i < D; ++i) x[i] = w_.token_embedding[size_t(token) * D + i];
    for (size_t l = 0; l < size_t(c_.n_layers); ++l) {
        const Vec xn = rmsnorm(x, w_.rms_att, l * D);
        Vec q = matvec(w_.wq, l * D * D, xn, D);
        Vec k = matvec(w_.wk, l * KV * D, xn, KV);
        const Vec v = matvec(w_.wv, l * KV * D, xn, KV);
        rotate(q, pos_, hs);
        rotate(k, pos_, hs);
        k_cache_[l].insert(k_cache_[l].end(), k.begin(), k.end());
        v_cache_[l].insert(v_cache_[l].end(), v.begin(), v.end());
        Vec att(D, 0.0);
        for (size_t h = 0; h < size_t(c_.n_heads); ++h) {
            const size_t kvh = h / group;
            Vec score(size_t(pos_) + 1);
            double max_score = -1e300;
            for (size_t t = 0; t <= size_t(pos_); ++t) {
                double s = 0;
                for (size_t i = 0; i < hs; ++i) s += q[h * hs + i] * k_cache_[l][t * KV + kvh * hs + i];
                score[t] = s / std::sqrt(double(hs));
                max_score = std::max(max_score, score[t]);
            }
            double total = 0;
            for (double &s : score) total += (s = std::exp(s - max_score));
            for (size_t t = 0; t <= size_t(pos_); ++t)
                for (size_t i = 0; i < hs; ++i) att[h * hs + i] += score[t] / total * v_cache_[l][t * KV + kvh * hs + i];
        }
        const Vec o = matvec(w_.wo, l * D * D, att, D);
        for (size_t i = 0; i < D; ++i) x[i] += o[i];
        const Vec xn2 = rmsnorm(x, w_.rms_ffn, l * D);
        Vec gate = matvec(w_.w1, l * H * D, xn2, H);
        const Vec up = matvec(w_.w3, l * H * D, xn2, H);
        for (size_t i = 0; i < H; ++i) gate[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
        const Vec f = matvec(w_.w2, l * D * H, gate, D);
        for (size_t i = 0; i < D; ++i) x[i] += f[i];
    }
    ++pos_;
    const Vec xf = rmsnorm(x, w_.rms_final, 0);
    return matvec(c_.shared_classifier ? w_.token_embedding : w_.wcls, 0, xf, size_t(c_.vocab_size));
}

} // namespace tessera::test
