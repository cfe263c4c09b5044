#include "tessera/models/hf.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>
#include <sentencepiece_processor.h>

#include "tessera/kernels_bf16.h"

namespace fs = std::filesystem;

namespace tessera {

namespace {

struct SafeTensor {
    std::string dtype;
    std::vector<uint64_t> shape;
    uint64_t begin = 0, end = 0; // in the data after the header
};

// model.safetensors: an 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and byte range, then the data.
class SafeTensors {
public:
    explicit SafeTensors(const std::string &path) : path_(path), bytes_(read_checkpoint_bytes(path))
    {
        if (bytes_.size() < 8) throw InputError(path_ + ": " + std::to_string(bytes_.size()) + " bytes, no safetensors header");
        uint64_t n;
        std::memcpy(&n, bytes_.data(), 8);
        if (n > bytes_.size() - 8)
            throw InputError(path_ + ": header of " + std::to_string(n) + " bytes runs past the file's " +
                             std::to_string(bytes_.size()));
        data_ = 8 + n;
        nlohmann::json header;
        try {
            header = nlohmann::json::parse(bytes_.begin() + 8, bytes_.begin() + long(data_));
        } catch (const nlohmann::json::exception &e) {
            throw InputError(path_ + ": header is not JSON (" + shown_in_message(e.what()) + ")");
        }
        if (!header.is_object()) throw InputError(path_ + ": header is not a JSON object");
        for (const auto &[name, t] : header.items()) {
            if (name == "__metadata__") continue;
            try {
                SafeTensor s;
                s.dtype = t.at("dtype").get<std::string>();
                s.shape = t.at("shape").get<std::vector<uint64_t>>();
                const auto offsets = t.at("data_offsets").get<std::vector<uint64_t>>();
                if (offsets.size() != 2) throw InputError(path_ + ": tensor " + shown_in_message(name) + ": data_offsets is not [begin, end]");
                s.begin = offsets[0], s.end = offsets[1];
                tensors_[name] = s;
            } catch (const nlohmann::json::exception &e) {
                throw InputError(path_ + ": tensor " + shown_in_message(name) + ": " + shown_in_message(e.what()));
            }
        }
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
        if (t.end < t.begin || t.end - t.begin != n * size || t.end > bytes_.size() - data_)
            throw InputError(path_ + ": tensor " + name + ": data_offsets [" + std::to_string(t.begin) + ", " +
                             std::to_string(t.end) + ") do not hold " + std::to_string(n) + " " + t.dtype +
                             " values inside the file");
        const uint8_t *p = bytes_.data() + data_ + t.begin;
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
    std::vector<uint8_t> bytes_;
    uint64_t data_ = 0;
    std::map<std::string, SafeTensor> tensors_;
};

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

HfModel read_hf_directory(const std::string &dir)
{
    const std::string config_path = (fs::path(dir) / "config.json").string();
    nlohmann::json j;
    try {
        std::ifstream in(config_path);
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
        throw InputError(config_path + ": not JSON (" + shown_in_message(e.what()) + ")");
    }
    auto uint_key = [&](const char *key, uint64_t lo, uint64_t hi) -> uint32_t {
        if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<int64_t>() < int64_t(lo) ||
            j[key].get<int64_t>() > int64_t(hi))
            throw InputError(config_path + ": " + key + " must be an integer in " + std::to_string(lo) + ".." +
                             std::to_string(hi));
        return uint32_t(j[key].get<int64_t>());
    };
    const std::string type = j.value("model_type", std::string());
    if (type != "llama")
        throw InputError(config_path + ": model_type '" + shown_in_message(type) + "' is not 'llama' (the only architecture read)");
    if (j.contains("rope_scaling") && !j["rope_scaling"].is_null())
        throw InputError(config_path + ": rope_scaling is set; scaled RoPE is not supported");
    if (j.value("hidden_act", std::string("silu")) != "silu")
        throw InputError(config_path + ": hidden_act '" + shown_in_message(j.value("hidden_act", std::string())) + "' is not 'silu'");
    HfModel m;
    LlamaCheckpoint &ck = m.checkpoint;
    ck.format = "Hugging Face Llama (safetensors)";
    LlamaConfig &c = ck.config;
    c.dim = uint_key("hidden_size", 2, 65536);
    c.hidden_dim = uint_key("intermediate_size", 1, 1u << 20);
    c.n_layers = uint_key("num_hidden_layers", 1, 1024);
    c.n_heads = uint_key("num_attention_heads", 1, c.dim);
    c.n_kv_heads = j.contains("num_key_value_heads") ? uint_key("num_key_value_heads", 1, c.n_heads) : c.n_heads;
    c.vocab_size = uint_key("vocab_size", 3, 1u << 20);
    c.seq_len = uint_key("max_position_embeddings", 1, 1u << 20);
    c.norm_eps = float(j.value("rms_norm_eps", 1e-5));
    c.rope_theta = float(j.value("rope_theta", 10000.0));
    if (!(c.norm_eps > 0) || !(c.rope_theta > 0))
        throw InputError(config_path + ": rms_norm_eps and rope_theta must be positive");
    check_llama_config(config_path, c);

    const fs::path st_path = fs::path(dir) / "model.safetensors";
    if (!fs::is_regular_file(st_path))
        throw InputError(dir + ": no model.safetensors (sharded checkpoints are not read; merge the shards into one file)");
    const SafeTensors st(st_path.string());
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
    c.shared_classifier = !st.has("lm_head.weight") || j.value("tie_word_embeddings", false);
    if (!c.shared_classifier) st.read("lm_head.weight", V, D, w.wcls);

    // The vocabulary, as llama2.c's tokenizer.py exports a SentencePiece model.
    const fs::path tok_path = fs::path(dir) / "tokenizer.model";
    if (!fs::is_regular_file(tok_path))
        throw InputError(dir + ": no tokenizer.model (the SentencePiece model; or pass --tokenizer FILE.bin)");
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
    for (uint32_t i = 0; i < c.vocab_size; ++i) add_sentencepiece_piece(m.vocabulary, i, sp.IdToPiece(int(i)), sp.GetScore(int(i)));
    return m;
}

} // namespace tessera
