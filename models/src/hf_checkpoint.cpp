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

LlamaConfig parse_hf_config(const std::string &text, const std::string &name, bool *tie_word_embeddings)
{
    LlamaConfig c;
    try {
        const nlohmann::json parsed = json_input::parse(text, name, {1u << 20, 32});
        const json_input::Value j(parsed, name);
        j.expect_object();
        const std::string type = j["model_type"].as_string();
        if (type != "llama")
            j["model_type"].fail("'" + json_input::printable(type) + "' is not 'llama' (the only architecture read)");
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

    // The vocabulary, as llama2.c's tokenizer.py exports a SentencePiece model.
    const fs::path tok_path = fs::path(dir) / "tokenizer.model";
    if (!fs::is_regular_file(tok_path, ec))
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
    for (uint32_t i = 0; i < c.vocab_size; ++i) add_sentencepiece_piece(m.vocabulary, m.tokenizer, i, sp.IdToPiece(int(i)), sp.GetScore(int(i)));
    return m;
}

} // namespace tessera
