#include "tessera/models/hf.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>
#include <sentencepiece_processor.h>

#include "tessera/json_input.h"
#include "tessera/models/bpe.h"
#include "tessera/kernels_bf16.h"

namespace fs = std::filesystem;

namespace tessera {

namespace {

// model.safetensors: an 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and byte range, then the data. The header is read and checked
// (its length, its JSON, every tensor's range inside the data and apart from every
// other) before the data is read.
class SafeTensors {
public:
    explicit SafeTensors(const std::string &path) : path_(path)
    {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw InputError(path_ + ": cannot open");
        in.seekg(0, std::ios::end);
        const uint64_t file_size = uint64_t(in.tellg());
        in.seekg(0);
        uint8_t length[8] = {};
        if (file_size < 8 || !in.read(reinterpret_cast<char *>(length), 8))
            throw InputError(path_ + ": " + std::to_string(file_size) + " bytes, no safetensors header");
        uint64_t n;
        std::memcpy(&n, length, 8);
        if (n > file_size - 8)
            throw InputError(path_ + ": header of " + std::to_string(n) + " bytes runs past the file's " +
                             std::to_string(file_size));
        if (n > kMaxSafetensorsHeaderBytes)
            throw InputError(path_ + ": header of " + std::to_string(n) + " bytes; at most " +
                             std::to_string(kMaxSafetensorsHeaderBytes) + " are read");
        std::string header(n, '\0');
        if (!in.read(header.data(), std::streamsize(n))) throw InputError(path_ + ": cannot read the header");
        tensors_ = parse_safetensors_header(header, path_, file_size - 8 - n);
        data_.resize(file_size - 8 - n);
        if (!in.read(reinterpret_cast<char *>(data_.data()), std::streamsize(data_.size())))
            throw InputError(path_ + ": cannot read the tensor data");
    }
    bool has(const std::string &name) const { return tensors_.count(name) != 0; }

    // Tensor `name` of shape rows x cols (cols innermost; rows 1: a vector) as fp32.
    void read(const std::string &name, uint64_t rows, uint64_t cols, std::vector<float> &out) const
    {
        const auto it = tensors_.find(name);
        if (it == tensors_.end()) throw InputError(path_ + ": tensor " + name + " is missing");
        const SafeTensor &t = it->second;
        const std::vector<uint64_t> want = rows == 1 ? std::vector<uint64_t>{cols} : std::vector<uint64_t>{rows, cols};
        if (t.shape != want) {
            std::string got;
            for (uint64_t d : t.shape) got += (got.empty() ? "" : ", ") + std::to_string(d);
            throw InputError(path_ + ": tensor " + name + " has shape [" + got + "]; the model needs [" +
                             (rows == 1 ? "" : std::to_string(rows) + ", ") + std::to_string(cols) + "]");
        }
        const uint64_t n = rows * cols;
        const uint64_t size = t.dtype == "F32" ? 4 : (t.dtype == "F16" || t.dtype == "BF16") ? 2 : 0;
        if (!size) throw InputError(path_ + ": tensor " + name + " has dtype " + shown_in_message(t.dtype) + "; read are F32, F16 and BF16");
        if (t.end - t.begin != n * size)
            throw InputError(path_ + ": tensor " + name + ": data_offsets [" + std::to_string(t.begin) + ", " +
                             std::to_string(t.end) + ") do not hold " + std::to_string(n) + " " + t.dtype +
                             " values");
        const uint8_t *p = data_.data() + t.begin;
        const size_t base = out.size();
        out.resize(base + n);
        float *o = out.data() + base;
        for (uint64_t i = 0; i < n; ++i) {
            if (size == 4) {
                std::memcpy(o + i, p + 4 * i, 4);
            } else {
                uint16_t h;
                std::memcpy(&h, p + 2 * i, 2);
                o[i] = t.dtype == "BF16" ? tsr_f32_from_bf16(h) : f32_from_f16(h);
            }
            if (!std::isfinite(o[i]))
                throw InputError(path_ + ": tensor " + name + " has a non-finite value at element " + std::to_string(i));
        }
    }

private:
    std::string path_;
    std::map<std::string, SafeTensor> tensors_;
    std::vector<uint8_t> data_;

public:
    // Conv1D's weight `name`, stored [in, out] (x W), as the [out, in] rows the matmul reads;
    // appended to `out`.
    void read_conv1d(const std::string &name, uint64_t in, uint64_t n_out, std::vector<float> &out) const
    {
        std::vector<float> t;
        read(name, in, n_out, t);
        const size_t base = out.size();
        out.resize(base + in * n_out);
        for (uint64_t i = 0; i < in; ++i)
            for (uint64_t o = 0; o < n_out; ++o) out[base + o * in + i] = t[i * n_out + o];
    }
};

// What GPT-2 and GPT-Neo share by name (under `t`, "transformer." or ""): the token and
// position tables, each layer's two LayerNorms and its feed-forward's biases, the final
// LayerNorm; `attention_and_ffn(p, l)` reads the rest of layer l (prefix p).
template <typename Layer>
void read_gpt_weights(const SafeTensors &st, const std::string &t, const LlamaConfig &c, LlamaWeights &w, Layer attention_and_ffn)
{
    const uint64_t D = c.dim, H = c.hidden_dim;
    st.read(t + "wte.weight", c.vocab_size, D, w.token_embedding);
    st.read(t + "wpe.weight", c.seq_len, D, w.position_embedding);
    for (uint32_t l = 0; l < c.n_layers; ++l) {
        const std::string p = t + "h." + std::to_string(l) + ".";
        st.read(p + "ln_1.weight", 1, D, w.rms_att);
        st.read(p + "ln_1.bias", 1, D, w.att_norm_bias);
        st.read(p + "ln_2.weight", 1, D, w.rms_ffn);
        st.read(p + "ln_2.bias", 1, D, w.ffn_norm_bias);
        attention_and_ffn(p);
        st.read(p + "mlp.c_fc.bias", 1, H, w.b3);
        st.read(p + "mlp.c_proj.bias", 1, D, w.b2);
    }
    st.read(t + "ln_f.weight", 1, D, w.rms_final);
    st.read(t + "ln_f.bias", 1, D, w.final_norm_bias);
}

// GPT-2's tensors (GPT2Model's names, with or without GPT2LMHeadModel's "transformer."):
// Conv1D weights stored [in, out]; c_attn's columns are Q, K and V, each head's contiguous.
void read_gpt2_weights(const SafeTensors &st, const LlamaConfig &c, LlamaWeights &w)
{
    const uint64_t D = c.dim, H = c.hidden_dim;
    std::vector<float> qkv, bias;
    read_gpt_weights(st, st.has("transformer.wte.weight") ? "transformer." : "", c, w, [&](const std::string &p) {
        qkv.clear(), bias.clear();
        st.read_conv1d(p + "attn.c_attn.weight", D, 3 * D, qkv);
        st.read(p + "attn.c_attn.bias", 1, 3 * D, bias);
        for (uint32_t part = 0; part < 3; ++part) {
            std::vector<float> &wt = part == 0 ? w.wq : part == 1 ? w.wk : w.wv;
            std::vector<float> &b = part == 0 ? w.bq : part == 1 ? w.bk : w.bv;
            wt.insert(wt.end(), qkv.begin() + long(part * D * D), qkv.begin() + long((part + 1) * D * D));
            b.insert(b.end(), bias.begin() + long(part * D), bias.begin() + long((part + 1) * D));
        }
        st.read_conv1d(p + "attn.c_proj.weight", D, D, w.wo);
        st.read(p + "attn.c_proj.bias", 1, D, w.bo);
        st.read_conv1d(p + "mlp.c_fc.weight", D, H, w.w3);
        st.read_conv1d(p + "mlp.c_proj.weight", H, D, w.w2);
    });
}

// GPT-Neo's tensors (GPTNeoForCausalLM's names): nn.Linear weights [out, in], Q, K and V
// without a bias (zeros here: the decoder's linear layers all take one).
void read_gpt_neo_weights(const SafeTensors &st, const LlamaConfig &c, LlamaWeights &w)
{
    const uint64_t D = c.dim, H = c.hidden_dim;
    read_gpt_weights(st, "transformer.", c, w, [&](const std::string &p) {
        st.read(p + "attn.attention.q_proj.weight", D, D, w.wq);
        st.read(p + "attn.attention.k_proj.weight", D, D, w.wk);
        st.read(p + "attn.attention.v_proj.weight", D, D, w.wv);
        for (std::vector<float> *b : {&w.bq, &w.bk, &w.bv}) b->resize(b->size() + D, 0.0f);
        st.read(p + "attn.attention.out_proj.weight", D, D, w.wo);
        st.read(p + "attn.attention.out_proj.bias", 1, D, w.bo);
        st.read(p + "mlp.c_fc.weight", H, D, w.w3);
        st.read(p + "mlp.c_proj.weight", D, H, w.w2);
    });
}

} // namespace

bool is_hf_directory(const std::string &path)
{
    std::error_code ec;
    return fs::is_directory(path, ec) && fs::is_regular_file(fs::path(path) / "config.json", ec);
}

std::vector<float> hf_rotary_to_interleaved(const std::vector<float> &w, uint32_t heads, uint32_t head_size, uint32_t cols)
{
    std::vector<float> out(w.size());
    const uint32_t half = head_size / 2;
    for (uint32_t h = 0; h < heads; ++h)
        for (uint32_t j = 0; j < 2; ++j)
            for (uint32_t i = 0; i < half; ++i)
                std::memcpy(&out[(size_t(h) * head_size + 2 * i + j) * cols], &w[(size_t(h) * head_size + j * half + i) * cols],
                            cols * sizeof(float));
    return out;
}

std::map<std::string, SafeTensor> parse_safetensors_header(const std::string &header, const std::string &name,
                                                           uint64_t data_bytes)
{
    std::map<std::string, SafeTensor> tensors;
    try {
        const nlohmann::json parsed = json_input::parse(header, name + " (header)", {kMaxSafetensorsHeaderBytes, 8});
        const json_input::Value root(parsed, name);
        root.expect_object();
        std::vector<std::pair<const std::string *, const SafeTensor *>> by_begin;
        for (auto it = parsed.begin(); it != parsed.end(); ++it) {
            const json_input::Value t = root[it.key().c_str()];
            if (it.key() == "__metadata__") {
                t.expect_object();
                continue;
            }
            t.only_keys({"dtype", "shape", "data_offsets"});
            SafeTensor s;
            s.dtype = t["dtype"].as_string();
            const json_input::Value shape = t["shape"], offsets = t["data_offsets"];
            shape.expect_array();
            if (shape.size() > 8) shape.fail("has " + std::to_string(shape.size()) + " dimensions; at most 8 are read");
            for (size_t d = 0; d < shape.size(); ++d) s.shape.push_back(shape.at(d).as_uint(0, uint64_t(1) << 40));
            offsets.expect_array();
            if (offsets.size() != 2) offsets.fail("expected [begin, end], got " + std::to_string(offsets.size()) + " values");
            s.begin = offsets.at(0).as_uint(0, uint64_t(1) << 53);
            s.end = offsets.at(1).as_uint(0, uint64_t(1) << 53);
            if (s.end > data_bytes)
                offsets.fail("[" + std::to_string(s.begin) + ", " + std::to_string(s.end) + ") runs past the " +
                             std::to_string(data_bytes) + " bytes of data after the header");
            if (s.end < s.begin)
                offsets.fail("end " + std::to_string(s.end) + " is before begin " + std::to_string(s.begin));
            const auto placed = tensors.emplace(it.key(), std::move(s));
            by_begin.push_back({&placed.first->first, &placed.first->second});
        }
        std::sort(by_begin.begin(), by_begin.end(), [](const auto &a, const auto &b) {
            return a.second->begin != b.second->begin ? a.second->begin < b.second->begin : a.second->end < b.second->end;
        });
        for (size_t i = 1; i < by_begin.size(); ++i) {
            const SafeTensor &prev = *by_begin[i - 1].second, &cur = *by_begin[i].second;
            if (cur.begin < prev.end && cur.end > cur.begin)
                throw InputError(name + ": tensors " + shown_in_message(*by_begin[i - 1].first) + " [" +
                                 std::to_string(prev.begin) + ", " + std::to_string(prev.end) + ") and " +
                                 shown_in_message(*by_begin[i].first) + " [" + std::to_string(cur.begin) + ", " +
                                 std::to_string(cur.end) + ") overlap");
        }
    } catch (const json_input::Error &e) {
        throw InputError(e.what());
    }
    return tensors;
}

namespace {

// What GPT-2 and GPT-Neo share: GELU (its tanh form, or its exact one for "gelu"), the vocabulary's BOS and EOS
// (GPT-2's <|endoftext|> both, by default the last token), tied embeddings by default.
void parse_gpt_common(const json_input::Value &j, LlamaConfig &c, bool *tie_word_embeddings)
{
    auto uint_key = [&](const char *key, uint64_t lo, uint64_t hi) { return uint32_t(j[key].as_uint(lo, hi)); };
    if (const auto act = j.find("activation_function")) {
        const std::string a = act->as_string();
        if (a != "gelu_new" && a != "gelu_pytorch_tanh" && a != "gelu")
            act->fail("'" + json_input::printable(a) + "' is not 'gelu_new' or 'gelu_pytorch_tanh' (GELU's tanh form) or "
                      "'gelu' (its exact form)");
        c.family.gelu_exact = a == "gelu";
    }
    if (const auto eps = j.find("layer_norm_epsilon")) c.norm_eps = float(eps->as_positive(3.0e38));
    else c.norm_eps = 1e-5f;
    if (!(c.norm_eps > 0)) j["layer_norm_epsilon"].fail("is 0 as fp32");
    c.bos_id = j.has("bos_token_id") ? uint_key("bos_token_id", 0, c.vocab_size - 1) : c.vocab_size - 1;
    c.eos_id = j.has("eos_token_id") ? uint_key("eos_token_id", 0, c.vocab_size - 1) : c.vocab_size - 1;
    *tie_word_embeddings = true; // GPT2LMHeadModel's and GPTNeoForCausalLM's default
    if (const auto tie = j.find("tie_word_embeddings")) *tie_word_embeddings = tie->as_bool();
}

// GPT2Config's and GPTNeoConfig's names for the same sizes.
struct GptSizeKeys {
    const char *dim, *layers, *heads, *positions, *inner;
};

// The sizes under their names; the feed-forward 4 dim unless `inner` is given and not null.
void read_gpt_sizes(const json_input::Value &j, const GptSizeKeys &k, LlamaConfig &c)
{
    auto uint_key = [&](const char *key, uint64_t lo, uint64_t hi) { return uint32_t(j[key].as_uint(lo, hi)); };
    c.dim = uint_key(k.dim, 2, 65536);
    c.n_layers = uint_key(k.layers, 1, 1024);
    c.n_heads = c.n_kv_heads = uint_key(k.heads, 1, c.dim);
    c.vocab_size = uint_key("vocab_size", 3, 1u << 20);
    c.seq_len = uint_key(k.positions, 1, 1u << 20);
    c.hidden_dim = 4 * c.dim;
    if (const auto inner = j.find(k.inner); inner && !inner->json().is_null()) c.hidden_dim = uint32_t(inner->as_uint(1, 1u << 20));
}

// GPT-Neo's config.json (GPTNeoConfig's keys): GPT-2's layer with unscaled scores, and
// global and local attention by layer as attention_types expands ([[["global", "local"], 4]]:
// the pair four times), the local layers seeing the last window_size positions.
LlamaConfig parse_gpt_neo_config(const json_input::Value &j, bool *tie_word_embeddings)
{
    LlamaConfig c;
    c.family = ModelFamily{"gpt_neo", true, true, true, true};
    c.family.scaled_attention = false;
    read_gpt_sizes(j, {"hidden_size", "num_layers", "num_heads", "max_position_embeddings", "intermediate_size"}, c);
    c.family.window = uint32_t(j["window_size"].as_uint(1, 1u << 20));
    const json_input::Value types = j["attention_types"];
    types.expect_array();
    for (size_t i = 0; i < types.size(); ++i) {
        const json_input::Value entry = types.at(i);
        entry.expect_array();
        if (entry.size() != 2) entry.fail("is not [[kinds...], repeats]");
        const json_input::Value kinds = entry.at(0);
        kinds.expect_array();
        const uint64_t repeats = entry.at(1).as_uint(1, 1024);
        for (uint64_t r = 0; r < repeats; ++r)
            for (size_t k = 0; k < kinds.size(); ++k) {
                const std::string kind = kinds.at(k).as_string();
                if (kind != "global" && kind != "local")
                    kinds.at(k).fail("'" + json_input::printable(kind) + "' is not 'global' or 'local'");
                if (c.family.local_layers.size() >= 1024) entry.fail("expands to more than 1024 layers");
                c.family.local_layers.push_back(kind == "local");
            }
    }
    if (c.family.local_layers.size() != c.n_layers)
        types.fail("expands to " + std::to_string(c.family.local_layers.size()) + " layers, not num_layers " +
                   std::to_string(c.n_layers));
    parse_gpt_common(j, c, tie_word_embeddings);
    return c;
}

// GPT-2's config.json (GPT2Config's keys): LayerNorm, learned positions, GELU in its tanh
// form, biases on every linear layer, the scores scaled by 1/sqrt(head_size).
LlamaConfig parse_gpt2_config(const json_input::Value &j, bool *tie_word_embeddings)
{
    LlamaConfig c;
    c.family = ModelFamily{"gpt2", true, true, true, true};
    read_gpt_sizes(j, {"n_embd", "n_layer", "n_head", "n_positions", "n_inner"}, c);
    auto refuse_true = [&](const char *key, const char *why) {
        if (const auto v = j.find(key); v && v->as_bool()) v->fail(std::string("is true; ") + why);
    };
    refuse_true("scale_attn_by_inverse_layer_idx", "scores scaled by the layer's index are not supported");
    refuse_true("add_cross_attention", "a decoder with cross-attention is not a language model Tessera runs");
    if (const auto v = j.find("scale_attn_weights"); v && !v->as_bool()) v->fail("is false; unscaled scores are GPT-Neo's, not GPT-2's");
    parse_gpt_common(j, c, tie_word_embeddings);
    return c;
}

} // namespace

LlamaConfig parse_hf_config(const std::string &text, const std::string &name, bool *tie_word_embeddings)
{
    LlamaConfig c;
    try {
        const nlohmann::json parsed = json_input::parse(text, name, {1u << 20, 32});
        const json_input::Value j(parsed, name);
        j.expect_object();
        const std::string type = j["model_type"].as_string();
        if (type == "gpt2" || type == "gpt_neo") {
            c = type == "gpt2" ? parse_gpt2_config(j, tie_word_embeddings) : parse_gpt_neo_config(j, tie_word_embeddings);
            check_llama_config(name, c);
            return c;
        }
        if (type != "llama")
            j["model_type"].fail("'" + json_input::printable(type) + "' is not one of the architectures read: llama, gpt2, gpt_neo");
        if (const auto scaling = j.find("rope_scaling"); scaling && !scaling->json().is_null())
            scaling->fail("is set; scaled RoPE is not supported");
        if (const auto act = j.find("hidden_act"); act && act->as_string() != "silu")
            act->fail("'" + json_input::printable(act->as_string()) + "' is not 'silu'");
        auto uint_key = [&](const char *key, uint64_t lo, uint64_t hi) { return uint32_t(j[key].as_uint(lo, hi)); };
        c.dim = uint_key("hidden_size", 2, 65536);
        c.hidden_dim = uint_key("intermediate_size", 1, 1u << 20);
        c.n_layers = uint_key("num_hidden_layers", 1, 1024);
        c.n_heads = uint_key("num_attention_heads", 1, c.dim);
        c.n_kv_heads = j.has("num_key_value_heads") ? uint_key("num_key_value_heads", 1, c.n_heads) : c.n_heads;
        c.vocab_size = uint_key("vocab_size", 3, 1u << 20);
        c.seq_len = uint_key("max_position_embeddings", 1, 1u << 20);
        // As fp32, what the image holds: a double such as 1e300 would become infinity.
        auto positive_f32 = [&](const char *key, double fallback) {
            const auto v = j.find(key);
            if (!v) return float(fallback);
            return float(v->as_positive(3.0e38));
        };
        c.norm_eps = positive_f32("rms_norm_eps", 1e-5);
        c.rope_theta = positive_f32("rope_theta", 10000.0);
        if (!(c.norm_eps > 0)) j["rms_norm_eps"].fail("is 0 as fp32");
        *tie_word_embeddings = false;
        if (const auto tie = j.find("tie_word_embeddings")) *tie_word_embeddings = tie->as_bool();
        // BOS and EOS (a SentencePiece tokenizer.model must agree: the device's 1 and 2).
        for (const auto &[key, id] : {std::pair<const char *, uint32_t *>{"bos_token_id", &c.bos_id}, {"eos_token_id", &c.eos_id}})
            if (const auto v = j.find(key); v && !v->json().is_null()) *id = uint32_t(v->as_uint(0, c.vocab_size - 1));
    } catch (const json_input::Error &e) {
        throw InputError(e.what());
    }
    check_llama_config(name, c);
    return c;
}

HfModel read_hf_directory(const std::string &dir)
{
    const std::string config_path = (fs::path(dir) / "config.json").string();
    std::string text;
    try {
        text = json_input::read_file(config_path, 1u << 20, "config");
    } catch (const json_input::Error &e) {
        throw InputError(e.what());
    }
    HfModel m;
    LlamaCheckpoint &ck = m.checkpoint;
    ck.format = "Hugging Face Llama (safetensors)";
    bool tie_word_embeddings = false;
    LlamaConfig &c = ck.config;
    c = parse_hf_config(text, config_path, &tie_word_embeddings);

    const fs::path st_path = fs::path(dir) / "model.safetensors";
    std::error_code ec;
    if (!fs::is_regular_file(st_path, ec))
        throw InputError(dir + ": no model.safetensors (sharded checkpoints are not read; merge the shards into one file)");
    const SafeTensors st(st_path.string());
    if (c.family.name == "gpt2" || c.family.name == "gpt_neo") {
        const bool neo = c.family.name == "gpt_neo";
        ck.format = neo ? "Hugging Face GPT-Neo (safetensors)" : "Hugging Face GPT-2 (safetensors)";
        if (neo) read_gpt_neo_weights(st, c, ck.weights);
        else read_gpt2_weights(st, c, ck.weights);
        c.shared_classifier = !st.has("lm_head.weight") || tie_word_embeddings;
        if (!c.shared_classifier) st.read("lm_head.weight", c.vocab_size, c.dim, ck.weights.wcls);
        m.vocabulary = read_byte_level_bpe_directory(dir, c.vocab_size, &m.tokenizer);
        return m;
    }
    const uint64_t D = c.dim, KV = c.kv_dim(), H = c.hidden_dim, V = c.vocab_size;
    const uint32_t hs = c.head_size();
    LlamaWeights &w = ck.weights;
    st.read("model.embed_tokens.weight", V, D, w.token_embedding);
    std::vector<float> q, k;
    for (uint32_t l = 0; l < c.n_layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        st.read(p + "input_layernorm.weight", 1, D, w.rms_att);
        q.clear(), k.clear();
        st.read(p + "self_attn.q_proj.weight", D, D, q);
        st.read(p + "self_attn.k_proj.weight", KV, D, k);
        q = hf_rotary_to_interleaved(q, c.n_heads, hs, c.dim);
        k = hf_rotary_to_interleaved(k, c.n_kv_heads, hs, c.dim);
        w.wq.insert(w.wq.end(), q.begin(), q.end());
        w.wk.insert(w.wk.end(), k.begin(), k.end());
        st.read(p + "self_attn.v_proj.weight", KV, D, w.wv);
        st.read(p + "self_attn.o_proj.weight", D, D, w.wo);
        st.read(p + "post_attention_layernorm.weight", 1, D, w.rms_ffn);
        st.read(p + "mlp.gate_proj.weight", H, D, w.w1);
        st.read(p + "mlp.down_proj.weight", D, H, w.w2);
        st.read(p + "mlp.up_proj.weight", H, D, w.w3);
    }
    st.read("model.norm.weight", 1, D, w.rms_final);
    c.shared_classifier = !st.has("lm_head.weight") || tie_word_embeddings;
    if (!c.shared_classifier) st.read("lm_head.weight", V, D, w.wcls);

    // The vocabulary, as llama2.c's tokenizer.py exports a SentencePiece model; or a
    // byte-level BPE's tokenizer.json (SmolLM's), BOS and EOS as config.json names them.
    const fs::path tok_path = fs::path(dir) / "tokenizer.model";
    if (!fs::is_regular_file(tok_path, ec) && fs::is_regular_file(fs::path(dir) / "tokenizer.json", ec)) {
        m.vocabulary = read_byte_level_bpe_directory(dir, c.vocab_size, &m.tokenizer);
        return m;
    }
    if (!fs::is_regular_file(tok_path, ec))
        throw InputError(dir + ": no tokenizer.model (the SentencePiece model), nor a byte-level tokenizer.json; or pass "
                         "--tokenizer FILE.bin");
    m.tokenizer = tok_path.string();
    sentencepiece::SentencePieceProcessor sp;
    const auto status = sp.Load(m.tokenizer);
    if (!status.ok()) throw InputError(m.tokenizer + ": not a SentencePiece model (" + status.ToString() + ")");
    if (uint32_t(sp.GetPieceSize()) != c.vocab_size)
        throw InputError(m.tokenizer + ": " + std::to_string(sp.GetPieceSize()) + " pieces, but config.json's vocab_size is " +
                         std::to_string(c.vocab_size));
    if (sp.bos_id() != 1 || sp.eos_id() != 2)
        throw InputError(m.tokenizer + ": BOS " + std::to_string(sp.bos_id()) + " and EOS " + std::to_string(sp.eos_id()) +
                         "; the device tokenizer uses 1 and 2");
    c.bos_id = 1, c.eos_id = 2; // SentencePiece's, whatever config.json says
    for (uint32_t i = 0; i < c.vocab_size; ++i) add_sentencepiece_piece(m.vocabulary, m.tokenizer, i, sp.IdToPiece(int(i)), sp.GetScore(int(i)));
    return m;
}

} // namespace tessera
