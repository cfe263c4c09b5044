// Hugging Face Llama directories: the test builds one from stories260K.bin and
// tok512.model as Hugging Face's conversion script would (Q and K permuted into its
// rotary layout, safetensors, config.json), and it packs to the golden ids; the
// vocabulary read with libsentencepiece equals tok512.bin's; bad directories are
// refused with a message naming the file.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/golden.h"
#include "support/packed_image.h"
#include "support/synthetic_model.h"
#include "tessera/models/hf.h"

namespace fs = std::filesystem;

namespace {

using namespace tessera::test;

// convert_llama_weights_to_hf.py's permute(w, n_heads, dim1, dim2):
// w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2).
std::vector<float> hf_permute(const float *w, uint32_t heads, uint32_t dim1, uint32_t dim2)
{
    const uint32_t half = dim1 / heads / 2;
    std::vector<float> out(size_t(dim1) * dim2);
    for (uint32_t h = 0; h < heads; ++h)
        for (uint32_t a = 0; a < 2; ++a)        // after the transpose: [h][a][b]
            for (uint32_t b = 0; b < half; ++b) // from the view's [h][b][a]
                for (uint32_t col = 0; col < dim2; ++col)
                    out[((size_t(h) * 2 + a) * half + b) * dim2 + col] = w[((size_t(h) * half + b) * 2 + a) * dim2 + col];
    return out;
}

struct SafeTensorsWriter {
    nlohmann::json header = nlohmann::json::object();
    std::vector<uint8_t> data;
    void add(const std::string &name, const std::vector<uint64_t> &shape, const float *x, const std::string &dtype = "F32")
    {
        uint64_t n = 1;
        for (uint64_t d : shape) n *= d;
        const uint64_t begin = data.size();
        for (uint64_t i = 0; i < n; ++i) {
            uint32_t u;
            std::memcpy(&u, &x[i], 4);
            if (dtype == "BF16") {
                const uint16_t b = uint16_t(u >> 16); // truncation: the test compares with what it wrote
                data.push_back(uint8_t(b)), data.push_back(uint8_t(b >> 8));
            } else {
                for (int k = 0; k < 4; ++k) data.push_back(uint8_t(u >> (8 * k)));
            }
        }
        header[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {begin, uint64_t(data.size())}}};
    }
    void write(const std::string &path) const
    {
        std::string h = header.dump();
        h.resize((h.size() + 7) / 8 * 8, ' ');
        const uint64_t n = h.size();
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char *>(&n), 8);
        out.write(h.data(), std::streamsize(h.size()));
        out.write(reinterpret_cast<const char *>(data.data()), std::streamsize(data.size()));
    }
};

// GPT-2's 256 byte tokens as vocab.json spells them, byte b's id b: bytes_to_unicode's
// printable Latin-1 stands for itself, the other bytes for U+0100 onwards in byte order.
nlohmann::json byte_level_vocab()
{
    nlohmann::json vocab = nlohmann::json::object();
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
        const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        const uint32_t cp = printable ? b : next++;
        vocab[cp < 0x80 ? std::string(1, char(cp)) : std::string{char(0xC0 | (cp >> 6)), char(0x80 | (cp & 0x3F))}] = b;
    }
    return vocab;
}

// read_hf_directory refuses `dir` with a message that contains `message`.
void refused(const std::string &dir, const std::string &message)
{
    try {
        tessera::read_hf_directory(dir);
        ADD_FAILURE() << "accepted; wanted: " << message;
    } catch (const tessera::InputError &e) {
        EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
}

class HfDirectory : public ::testing::Test {
protected:
    void SetUp() override
    {
        shared_ = shared_dir();
        if (shared_.empty()) GTEST_SKIP() << "TESSERA_SHARED_DIR not found: ../shared/models is needed";
        ck_ = tessera::read_llama2c_checkpoint(shared_ + "/models/stories260K.bin");
    }
    // The directory Hugging Face's conversion would write for stories260K.
    std::string make(const std::string &name, const std::string &dtype = "F32", bool permute = true) const
    {
        const fs::path dir = temp_path(name);
        fs::remove_all(dir);
        fs::create_directories(dir);
        const tessera::LlamaConfig &c = ck_.config;
        const tessera::LlamaWeights &w = ck_.weights;
        const nlohmann::json config = {{"architectures", {"LlamaForCausalLM"}},
                                       {"model_type", "llama"},
                                       {"hidden_size", c.dim},
                                       {"intermediate_size", c.hidden_dim},
                                       {"num_hidden_layers", c.n_layers},
                                       {"num_attention_heads", c.n_heads},
                                       {"num_key_value_heads", c.n_kv_heads},
                                       {"vocab_size", c.vocab_size},
                                       {"max_position_embeddings", c.seq_len},
                                       {"rms_norm_eps", 1e-5},
                                       {"hidden_act", "silu"},
                                       {"tie_word_embeddings", true},
                                       {"torch_dtype", "float32"}};
        std::ofstream(dir / "config.json") << config.dump(2);
        SafeTensorsWriter st;
        const uint64_t D = c.dim, KV = c.kv_dim(), H = c.hidden_dim;
        st.add("model.embed_tokens.weight", {c.vocab_size, D}, w.token_embedding.data(), dtype);
        for (uint64_t l = 0; l < c.n_layers; ++l) {
            const std::string p = "model.layers." + std::to_string(l) + ".";
            const std::vector<float> q = permute ? hf_permute(w.wq.data() + l * D * D, c.n_heads, c.dim, c.dim)
                                                 : std::vector<float>(w.wq.begin() + long(l * D * D), w.wq.begin() + long((l + 1) * D * D));
            const std::vector<float> k = permute ? hf_permute(w.wk.data() + l * KV * D, c.n_kv_heads, c.kv_dim(), c.dim)
                                                 : std::vector<float>(w.wk.begin() + long(l * KV * D), w.wk.begin() + long((l + 1) * KV * D));
            st.add(p + "self_attn.q_proj.weight", {D, D}, q.data(), dtype);
            st.add(p + "self_attn.k_proj.weight", {KV, D}, k.data(), dtype);
            st.add(p + "self_attn.v_proj.weight", {KV, D}, w.wv.data() + l * KV * D, dtype);
            st.add(p + "self_attn.o_proj.weight", {D, D}, w.wo.data() + l * D * D, dtype);
            st.add(p + "mlp.gate_proj.weight", {H, D}, w.w1.data() + l * H * D, dtype);
            st.add(p + "mlp.down_proj.weight", {D, H}, w.w2.data() + l * D * H, dtype);
            st.add(p + "mlp.up_proj.weight", {H, D}, w.w3.data() + l * H * D, dtype);
            st.add(p + "input_layernorm.weight", {D}, w.rms_att.data() + l * D, dtype);
            st.add(p + "post_attention_layernorm.weight", {D}, w.rms_ffn.data() + l * D, dtype);
        }
        st.add("model.norm.weight", {D}, w.rms_final.data(), dtype);
        st.write((dir / "model.safetensors").string());
        fs::copy_file(shared_ + "/models/tok512.model", dir / "tokenizer.model");
        return dir.string();
    }
    std::vector<int32_t> greedy(const std::string &dir, const std::string &image) const
    {
        tessera::PackOptions o;
        o.checkpoint = dir;
        o.output = temp_path(image);
        auto m = open_model(o);
        EXPECT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
        std::vector<int32_t> ids = generate_greedy(*m, {1}, 200);
        tessera_close(&m->session);
        return ids;
    }
    std::string shared_;
    tessera::LlamaCheckpoint ck_;
};

TEST(HfRotary, HalvesBackToInterleavedPairsByHand)
{
    // One head of size 4, one column: interleaved rows 0 1 2 3 rotate as pairs (0,1),
    // (2,3); Hugging Face keeps the pairs' first elements first: 0 2 1 3.
    EXPECT_EQ(tessera::hf_rotary_to_interleaved({0, 2, 1, 3}, 1, 4, 1), (std::vector<float>{0, 1, 2, 3}));
    // Two heads of size 2 are each one pair: nothing moves.
    EXPECT_EQ(tessera::hf_rotary_to_interleaved({5, 6, 7, 8}, 2, 2, 1), (std::vector<float>{5, 6, 7, 8}));
}

TEST_F(HfDirectory, PacksToTheGoldenIds)
{
    const std::string dir = make("hf_stories260K");
    const tessera::HfModel m = tessera::read_hf_directory(dir);
    EXPECT_EQ(m.checkpoint.weights.wq, ck_.weights.wq);
    EXPECT_EQ(m.checkpoint.weights.wk, ck_.weights.wk);
    const tessera::Vocabulary bin = tessera::read_llama2c_tokenizer(shared_ + "/models/tok512.bin", 512);
    EXPECT_EQ(m.vocabulary.pieces, bin.pieces);
    EXPECT_EQ(m.vocabulary.scores, bin.scores);
    EXPECT_EQ(greedy(dir, "hf_stories260K.tess"), golden_ids(shared_ + "/golden/stories260K.greedy200.txt"));
}

// Without Hugging Face's permutation the same weights are another model: the reader's
// un-permuting is what the golden ids above depend on.
TEST_F(HfDirectory, UnpermutedQAndKGiveOtherIds)
{
    EXPECT_NE(greedy(make("hf_unpermuted", "F32", false), "hf_unpermuted.tess"),
              golden_ids(shared_ + "/golden/stories260K.greedy200.txt"));
}

// A Llama directory that ships a byte-level tokenizer.json instead of tokenizer.model (as
// SmolLM's do): stories260K's weights with 512 byte-level tokens (the 256 bytes, 255
// merges of two lowercase letters, <|endoftext|> as an added token), BOS 1 as config.json
// says. It packs, and its greedy ids from BOS are stories260K's golden ones: the
// tokenizer changes what the ids spell, not the ids.
TEST_F(HfDirectory, ByteLevelTokenizerJsonPacksAndGenerates)
{
    const std::string dir = make("hf_bytelevel");
    fs::remove(fs::path(dir) / "tokenizer.model");
    const fs::path config = fs::path(dir) / "config.json";
    nlohmann::json c = nlohmann::json::parse(std::ifstream(config));
    c["bos_token_id"] = 1, c["eos_token_id"] = 2;
    std::ofstream(config) << c.dump();
    nlohmann::json vocab = byte_level_vocab(), merges = nlohmann::json::array();
    for (uint32_t id = 256; id < 511; ++id) {
        const std::string a(1, char('a' + (id - 256) / 26)), b(1, char('a' + (id - 256) % 26));
        vocab[a + b] = id;
        merges.push_back(a + " " + b);
    }
    const nlohmann::json tokenizer = {
        {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}},
        {"decoder", {{"type", "ByteLevel"}}},
        {"added_tokens", {{{"id", 511}, {"content", "<|endoftext|>"}, {"special", true}}}}};
    std::ofstream(fs::path(dir) / "tokenizer.json") << tokenizer.dump();
    const tessera::HfModel m = tessera::read_hf_directory(dir);
    EXPECT_NE(m.tokenizer.find("tokenizer.json"), std::string::npos) << m.tokenizer;
    EXPECT_EQ(m.vocabulary.pieces[' '], " ");
    EXPECT_EQ(m.vocabulary.pieces[256], "aa");
    EXPECT_EQ(m.vocabulary.pieces[511], "<|endoftext|>");
    EXPECT_EQ(greedy(dir, "hf_bytelevel.tess"), golden_ids(shared_ + "/golden/stories260K.greedy200.txt"));
}

TEST_F(HfDirectory, Bf16TensorsReadAsBf16)
{
    const tessera::HfModel m = tessera::read_hf_directory(make("hf_bf16", "BF16"));
    const float x = ck_.weights.w2[7];
    uint32_t u;
    std::memcpy(&u, &x, 4);
    u &= 0xFFFF0000u;
    float t;
    std::memcpy(&t, &u, 4);
    EXPECT_EQ(m.checkpoint.weights.w2[7], t);
}

TEST_F(HfDirectory, BadDirectoriesAreRefusedNamingTheFile)
{
    std::string dir = make("hf_bad");
    const fs::path config = fs::path(dir) / "config.json";
    nlohmann::json j = nlohmann::json::parse(std::ifstream(config));
    j["model_type"] = "mistral";
    std::ofstream(config) << j.dump();
    refused(dir, "config.json: model_type: 'mistral' is not one of the architectures read: llama, gpt2, gpt_neo");
    j["model_type"] = "llama";
    j["num_key_value_heads"] = 3;
    std::ofstream(config) << j.dump();
    refused(dir, "config.json: n_heads 8 is not a multiple of n_kv_heads 3");
    j["num_key_value_heads"] = 4;
    j["hidden_size"] = 128;
    std::ofstream(config) << j.dump();
    refused(dir, "model.safetensors: tensor model.embed_tokens.weight has shape [512, 64]; the model needs [512, 128]");
    j["hidden_size"] = 64;
    std::ofstream(config) << j.dump();
    fs::resize_file(fs::path(dir) / "model.safetensors", 5000);
    refused(dir, "model.safetensors: model.embed_tokens.weight.data_offsets: [0, 131072) runs past the 168 bytes of data "
                 "after the header");
    fs::remove(fs::path(dir) / "model.safetensors");
    refused(dir, "no model.safetensors");
    dir = make("hf_bad_tok");
    std::ofstream(fs::path(dir) / "tokenizer.model") << "not a model";
    refused(dir, "tokenizer.model: not a SentencePiece model");
}

// A GPT-2 or GPT-Neo directory of random weights (n_embd 16, 2 layers, 2 heads, 32
// positions) with GPT-2's byte-level BPE files (the 256 byte tokens, the merge "Ġ t",
// <|endoftext|>): what the refusals below start from (tests/models/gpt2_reference.py holds
// such models against a reference).
std::string make_gpt(const std::string &name, bool neo)
{
    const fs::path dir = temp_path(name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    const uint64_t D = 16, H = 64, P = 32, L = 2, V = 258;
    nlohmann::json config = {{"model_type", neo ? "gpt_neo" : "gpt2"}, {"vocab_size", V}, {"layer_norm_epsilon", 1e-5},
                             {"activation_function", "gelu_new"}, {"bos_token_id", V - 1}, {"eos_token_id", V - 1}};
    if (neo) {
        config.update({{"hidden_size", D}, {"num_layers", L}, {"num_heads", 2}, {"max_position_embeddings", P},
                       {"window_size", 4}, {"attention_types", {{{"global", "local"}, 1}}}});
    } else {
        config.update({{"n_embd", D}, {"n_layer", L}, {"n_head", 2}, {"n_positions", P}});
    }
    std::ofstream(dir / "config.json") << config.dump(2);
    SafeTensorsWriter st;
    uint32_t state = 45;
    auto random = [&state](uint64_t n) {
        std::vector<float> v(n);
        for (float &x : v) x = float((state = state * 1664525u + 1013904223u) >> 8) / float(1u << 24) - 0.5f;
        return v;
    };
    auto add = [&](const std::string &tensor, std::vector<uint64_t> shape) {
        uint64_t n = 1;
        for (uint64_t d : shape) n *= d;
        st.add("transformer." + tensor, shape, random(n).data());
    };
    add("wte.weight", {V, D});
    add("wpe.weight", {P, D});
    for (uint64_t l = 0; l < L; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        for (const char *ln : {"ln_1", "ln_2"}) add(p + ln + ".weight", {D}), add(p + ln + ".bias", {D});
        if (neo) {
            for (const char *w : {"q_proj", "k_proj", "v_proj", "out_proj"}) add(p + "attn.attention." + w + ".weight", {D, D});
            add(p + "attn.attention.out_proj.bias", {D});
            add(p + "mlp.c_fc.weight", {H, D}), add(p + "mlp.c_proj.weight", {D, H});
        } else { // Conv1D: [in, out]
            add(p + "attn.c_attn.weight", {D, 3 * D}), add(p + "attn.c_attn.bias", {3 * D});
            add(p + "attn.c_proj.weight", {D, D}), add(p + "attn.c_proj.bias", {D});
            add(p + "mlp.c_fc.weight", {D, H}), add(p + "mlp.c_proj.weight", {H, D});
        }
        add(p + "mlp.c_fc.bias", {H}), add(p + "mlp.c_proj.bias", {D});
    }
    add("ln_f.weight", {D}), add("ln_f.bias", {D});
    st.write((dir / "model.safetensors").string());
    nlohmann::json vocab = byte_level_vocab();
    vocab["\u0120t"] = 256; // "Ġt": space, t
    vocab["<|endoftext|>"] = 257;
    std::ofstream(dir / "vocab.json") << vocab.dump();
    std::ofstream(dir / "merges.txt") << "#version: 0.2\n\u0120 t\n";
    return dir.string();
}

TEST(GptDirectory, ReadsGpt2AndGptNeo)
{
    const tessera::HfModel gpt2 = tessera::read_hf_directory(make_gpt("gpt2_ok", false));
    EXPECT_EQ(gpt2.checkpoint.config.family.name, "gpt2");
    EXPECT_EQ(gpt2.checkpoint.config.hidden_dim, 64u);
    EXPECT_EQ(gpt2.vocabulary.pieces[256], " t");
    EXPECT_EQ(gpt2.vocabulary.pieces[0], "<0x00>"); // the byte 0, as the device decodes it
    EXPECT_EQ(gpt2.vocabulary.pieces['A'], "A");
    const tessera::HfModel neo = tessera::read_hf_directory(make_gpt("gpt_neo_ok", true));
    EXPECT_EQ(neo.checkpoint.config.family.local_layers, (std::vector<bool>{false, true}));
    EXPECT_EQ(neo.checkpoint.config.family.window, 4u);
    EXPECT_FALSE(neo.checkpoint.config.family.scaled_attention);
}

// The device encodes text with the directory's byte-level BPE (GPT-2's parts, the merge
// "Ġ t") and decodes its tokens as their bytes; BOS is config.json's.
TEST(GptDirectory, TheDeviceEncodesAndDecodesWithItsByteLevelBpe)
{
    tessera::PackOptions o;
    o.checkpoint = make_gpt("gpt2_encode", false);
    o.output = temp_path("gpt2_encode.tess");
    auto m = open_model(o);
    ASSERT_EQ(m->status, TESSERA_OK) << tessera_last_error(&m->session);
    int32_t ids[8];
    uint32_t n = 0;
    ASSERT_EQ(tessera_encode(&m->session, "at the", true, false, ids, 8, &n), TESSERA_OK)
        << tessera_last_error(&m->session);
    // <|endoftext|> (config.json's bos_token_id), "at", " the": " t" merged, then "h" "e"
    EXPECT_EQ(std::vector<int32_t>(ids, ids + n), (std::vector<int32_t>{257, 'a', 't', 256, 'h', 'e'}));
    EXPECT_EQ(tessera_encode(&m->session, "at the", true, false, ids, 4, &n), TESSERA_ERR_BUFFER_TOO_SMALL);
    uint32_t len = 0;
    const char *piece = tessera_decode(&m->session, 257, 256, &len);
    EXPECT_EQ(std::string(piece, len), " t"); // the merge "Ġ t", its bytes: no space taken after BOS
    piece = tessera_decode(&m->session, 256, 0, &len);
    EXPECT_EQ(std::string(piece, len), std::string(1, '\0')); // the byte 0, held as "<0x00>"
    piece = tessera_decode(&m->session, 256, 'A', &len);
    EXPECT_EQ(std::string(piece, len), "A");
    tessera_close(&m->session);
}

TEST(GptDirectory, BadDirectoriesAreRefusedByName)
{
    auto edit = [](const std::string &dir, const char *file, auto change) {
        const fs::path path = fs::path(dir) / file;
        nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
        change(j);
        std::ofstream(path) << j.dump();
    };
    std::string dir = make_gpt("gpt_bad_type", false);
    edit(dir, "config.json", [](nlohmann::json &j) { j["model_type"] = "bert"; });
    refused(dir, "config.json: model_type: 'bert' is not one of the architectures read: llama, gpt2, gpt_neo");
    edit(dir, "config.json", [](nlohmann::json &j) { j["model_type"] = "gpt2", j["activation_function"] = "relu"; });
    refused(dir, "config.json: activation_function: 'relu' is not 'gelu_new' or 'gelu_pytorch_tanh' (GELU's tanh form) or "
                 "'gelu' (its exact form)");
    edit(dir, "config.json", [](nlohmann::json &j) { j["activation_function"] = "gelu"; });
    EXPECT_TRUE(tessera::read_hf_directory(dir).checkpoint.config.family.gelu_exact);

    dir = make_gpt("gpt_bad_shape", false); // c_attn stored [out, in], as if it were nn.Linear
    {
        const fs::path st = fs::path(dir) / "model.safetensors";
        std::ifstream in(st, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), {});
        const std::string from = "\"shape\":[16,48]", to = "\"shape\":[48,16]";
        const size_t at = bytes.find(from);
        ASSERT_NE(at, std::string::npos);
        bytes.replace(at, from.size(), to);
        std::ofstream(st, std::ios::binary) << bytes;
    }
    refused(dir, "tensor transformer.h.0.attn.c_attn.weight has shape [48, 16]; the model needs [16, 48]");

    dir = make_gpt("gpt_bad_merges", false);
    std::ofstream(fs::path(dir) / "merges.txt") << "#version: 0.2\n\u0120 t\nt h e\n";
    refused(dir, "merges.txt:3: 't h e' is not two tokens separated by one space");
    std::ofstream(fs::path(dir) / "merges.txt") << "#version: 0.2\nt h\n";
    refused(dir, "merges.txt:2: the merge's result 'th' is not in the vocabulary");

    dir = make_gpt("gpt_bad_window", true);
    edit(dir, "config.json", [](nlohmann::json &j) { j["window_size"] = 0; });
    refused(dir, "config.json: window_size: expected an integer in 1..1048576, got a number (0)");
    edit(dir, "config.json", [](nlohmann::json &j) {
        j["window_size"] = 4;
        j["attention_types"] = {{{"global", "local"}, 2}};
    });
    refused(dir, "attention_types: expands to 4 layers, not num_layers 2");

    dir = make_gpt("gpt_bad_vocab", false);
    edit(dir, "vocab.json", [](nlohmann::json &j) { j.erase("<|endoftext|>"); });
    refused(dir, "vocab.json: 257 tokens, but the model's vocabulary (its embedding's rows) is 258");
    edit(dir, "vocab.json", [](nlohmann::json &j) { j["<|endoftext|>"] = 256; });
    refused(dir, "vocab.json: id 256 is given twice");
}

} // namespace
