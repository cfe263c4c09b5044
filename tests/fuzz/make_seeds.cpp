// tessera-fuzz-seeds OUT: the fuzzers' seed corpora and data, made from synthetic
// models and the shared ones (never committed):
//   OUT/image/    model images planned for the fuzz board: several shapes, weights
//                 in place or in L2, tiled into a small L1, a 10-piece and a
//                 no-space vocabulary, GPT-2 at fp32 and int8 (seeds of fuzzers a and b)
//   OUT/encode/   texts with a selector byte (fuzzer c)
//   OUT/readers/  checkpoints and tokenizers with a selector byte (fuzzer d)
//   OUT/board/    board descriptions with a selector byte (fuzzer e): the built-in
//                 boards and the hostile-input issue's cases
//   OUT/hf/       config.json texts and safetensors headers with a selector byte
//                 (fuzzer f)
//   OUT/onnx/     (empty: fuzzer g's seeds are Deeploy's files, read in place by scripts/fuzz.sh)
//   OUT/bpe/      GPT-2 vocab.json and merges.txt pairs, tokenizer.json, a selector byte and the
//                 vocabulary size first (fuzzer i)
//   OUT/npz/      test vectors for a microLlama-shaped image (fuzzer h), made here; Deeploy's
//                 own are read in place by scripts/fuzz.sh
//   OUT/data/     the images and tokenizers fuzzer c opens at start
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/gguf_writer.h"
#include "support/synthetic_model.h"
#include "tessera/board_desc.h"
#include "tessera/pack/packer.h"
#include "support/npz_builder.h"

namespace fs = std::filesystem;
using tessera::test::SyntheticConfig;
using tessera::test::TokenizerSpec;

namespace {

std::vector<uint8_t> read_bytes(const fs::path &p)
{
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

void write_bytes(const fs::path &p, uint8_t selector, const std::vector<uint8_t> &bytes)
{
    std::ofstream out(p, std::ios::binary);
    out.put(char(selector));
    out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + p.string());
}

// Inputs of a microLlama-shaped decoder (dim 64, 16 heads of 4, 8 layers) as Deeploy
// names them: S rows after S_past cached ones, with the causal mask the image applies;
// int8 elements, so each archive is a few KB.
void write_npz_seeds(const fs::path &dir)
{
    uint32_t k = 0;
    for (const auto &[S, P] : {std::pair<uint64_t, uint64_t>{1, 8}, {4, 0}, {2, 3}}) {
        std::vector<std::pair<std::string, std::string>> entries;
        auto array = [&](const std::string &name, const std::vector<uint64_t> &shape, const std::string &data) {
            std::string dims;
            for (uint64_t d : shape) dims += std::to_string(d) + ", ";
            entries.emplace_back(name + ".npy", tessera::test::npy_bytes("{'descr': '|i1', 'fortran_order': False, 'shape': (" +
                                                                           dims + "), }", data));
        };
        auto values = [](uint64_t n) {
            std::string v(n, '\0');
            for (uint64_t i = 0; i < n; ++i) v[i] = char(int(i * 37 % 255) - 127);
            return v;
        };
        array("input_0", {1, S, 64}, values(S * 64));
        std::string mask(S * (P + S), '\0');
        for (uint64_t i = 0; i < S; ++i)
            for (uint64_t j = 0; j < P + S; ++j) mask[i * (P + S) + j] = char(j <= P + i ? 0 : -128);
        array("input_1", {1, S, P + S}, mask);
        array("input_2", {1, S, 4, 4}, values(S * 16));
        for (int l = 0; l < 16; ++l) array("input_" + std::to_string(3 + l), {1, 16, P, 4}, values(16 * P * 4));
        std::ofstream(dir / ("vectors" + std::to_string(k++) + ".npz"), std::ios::binary) << tessera::test::zip_of(entries, false);
    }
}

struct Model {
    std::string name;
    SyntheticConfig config;
    TokenizerSpec tokenizer;
};

// Writes NAME.bin and NAME.tok under `dir`.
void write_model(const fs::path &dir, const Model &m)
{
    tessera::test::write_legacy_checkpoint((dir / (m.name + ".bin")).string(), m.config,
                                           tessera::test::make_weights(m.config));
    tessera::test::write_tokenizer((dir / (m.name + ".tok")).string(), m.tokenizer);
}

void pack(const fs::path &dir, const std::string &model, const std::string &out, const std::string &board,
          void (*tweak)(tessera::PackOptions &) = nullptr)
{
    tessera::PackOptions o;
    o.checkpoint = (dir / (model + ".bin")).string();
    o.tokenizer = (dir / (model + ".tok")).string();
    o.board = board;
    o.output = out;
    if (tweak) tweak(o);
    tessera::pack(o);
}

void write_text(const fs::path &p, uint8_t selector, const std::string &text)
{
    write_bytes(p, selector, std::vector<uint8_t>(text.begin(), text.end()));
}

// Fuzzer e: every built-in board as its file and as an image would embed it, and the
// shapes of the hostile-input issue's findings (kept small: deep nesting, wrong types,
// huge numbers, unknown keys, invalid UTF-8).
void write_board_seeds(const fs::path &dir)
{
    int k = 0;
    for (const std::string &name : tessera::known_board_names()) {
        const tessera::BoardDesc d = tessera::load_board_desc(name);
        write_bytes(dir / (name + ".json"), 0, read_bytes(d.source));
        write_text(dir / (name + ".embedded"), 1, d.json);
    }
    const std::string base = R"("name":"b","cluster":{"cores":2},"regions":{"L1":1024,"L2":65536})";
    const std::vector<std::string> cases = {
        "{" + base + "}",
        "{" + base + R"(,"description":5})",
        "{" + base + R"(,"npu":true})",
        "{" + base + R"(,"clock_mhz":1e400})",
        "{" + base + R"(,"colck_mhz":100})",
        "{" + base + R"(,"dma":{}})",
        "{" + base + R"(,"dma":{"queue_dpeth":4}})",
        R"({"name":"b","cluster":{"cores":2.5},"regions":{"L2":65536}})",
        R"({"name":"b","cluster":{"cores":2},"regions":{"L2":-1}})",
        "{\"name\":\"b\xFF\",\"cluster\":{\"cores\":2},\"regions\":{\"L2\":65536}}",
        "{\"name\":\"\xC3\x28\"}",
        std::string(40, '[') + std::string(40, ']'),
        "{\"a\":" + std::string(20, '{') + std::string(20, '}') + "}",
    };
    for (const std::string &c : cases) {
        write_text(dir / ("case" + std::to_string(k) + ".json"), 0, c);
        write_text(dir / ("case" + std::to_string(k++) + ".embedded"), 1, c);
    }
}

// Fuzzer f: a config.json as Hugging Face writes it and variations of the findings,
// and safetensors headers (4 bytes of data size first).
void write_hf_seeds(const fs::path &dir)
{
    const std::string config =
        R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":64,"intermediate_size":172,)"
        R"("num_hidden_layers":5,"num_attention_heads":8,"num_key_value_heads":4,"vocab_size":512,)"
        R"("max_position_embeddings":512,"rms_norm_eps":1e-05,"rope_theta":10000.0,"hidden_act":"silu",)"
        R"("tie_word_embeddings":true,"torch_dtype":"float32","rope_scaling":null})";
    int k = 0;
    write_text(dir / "config.json", 0, config);
    for (const auto &[from, to] : std::vector<std::pair<std::string, std::string>>{
             {R"("model_type":"llama")", R"("model_type":5)"},
             {R"("rms_norm_eps":1e-05)", R"("rms_norm_eps":1e300)"},
             {R"("rope_theta":10000.0)", R"("rope_theta":null)"},
             {R"("tie_word_embeddings":true)", R"("tie_word_embeddings":"yes")"},
             {R"("hidden_act":"silu")", R"("hidden_act":[1])"},
             {R"("hidden_size":64)", R"("hidden_size":64.5)"},
             {R"("vocab_size":512)", R"("vocab_size":1.8446744073709552e19)"}}) {
        std::string c = config;
        c.replace(c.find(from), from.size(), to);
        write_text(dir / ("config" + std::to_string(k++) + ".json"), 0, c);
    }
    write_text(dir / "config_array.json", 0, "[" + config + "]");
    // GPT-2's and GPT-Neo's (GPT2Config's and GPTNeoConfig's keys).
    write_text(dir / "gpt2.json", 0,
               R"({"model_type":"gpt2","n_embd":64,"n_layer":2,"n_head":4,"n_positions":256,"vocab_size":300,)"
               R"("n_inner":null,"activation_function":"gelu_new","layer_norm_epsilon":1e-05,"bos_token_id":299,)"
               R"("eos_token_id":299,"scale_attn_weights":true,"tie_word_embeddings":true})");
    write_text(dir / "gpt_neo.json", 0,
               R"({"model_type":"gpt_neo","hidden_size":64,"num_layers":4,"num_heads":4,"max_position_embeddings":256,)"
               R"("vocab_size":300,"intermediate_size":null,"window_size":16,"attention_types":[[["global","local"],2]],)"
               R"("activation_function":"gelu_new","layer_norm_epsilon":1e-05,"bos_token_id":299,"eos_token_id":299})");
    auto header = [&](uint32_t data_bytes, const std::string &json) {
        std::string bytes(reinterpret_cast<const char *>(&data_bytes), 4);
        write_text(dir / ("header" + std::to_string(k++)), 1, bytes + json);
    };
    header(96, R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[4,4],"data_offsets":[0,64]},)"
               R"("b":{"dtype":"BF16","shape":[16],"data_offsets":[64,96]}})");
    header(96, R"({"a":{"dtype":"F32","shape":[4,4],"data_offsets":[0,1e300]}})");
    header(96, R"({"a":{"dtype":"F32","shape":[512.9,64.99],"data_offsets":[-1,64]}})");
    header(96, R"({"a":{"dtype":"F32","shape":[4,4],"data_offsets":[0,64]},"b":{"dtype":"F32","shape":[4,4],"data_offsets":[32,96]}})");
}

// Fuzzer i: GPT-2's byte-level BPE files, a selector byte and the vocabulary size first (2
// bytes), then vocab.json, a NUL, merges.txt (or a tokenizer.json): the 256 byte tokens (printable Latin-1 stands for itself,
// the others for U+0100 on), two merges, <|endoftext|>.
void write_bpe_seeds(const fs::path &dir)
{
    std::string vocab = "{";
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
        const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        const uint32_t cp = printable ? b : next++;
        char ch[8];
        std::snprintf(ch, sizeof ch, "\\u%04x", cp);
        vocab += std::string(b ? "," : "") + "\"" + ch + "\":" + std::to_string(b);
    }
    vocab += R"(,"\u0120t":256,"he":257,"<|endoftext|>":258})";
    const std::string merges = "#version: 0.2\n\xC4\xA0 t\nh e\n";
    auto seed = [&](const std::string &name, uint32_t size, const std::string &v, const std::string &m) {
        std::string bytes = {char(0), char(size & 0xFF), char(size >> 8)};
        bytes += v + std::string(1, '\0') + m;
        std::ofstream(dir / name, std::ios::binary) << bytes;
    };
    auto json_seed = [&](const std::string &name, uint32_t size, const std::string &merges_json) {
        std::string bytes = {char(1), char(size & 0xFF), char(size >> 8)};
        bytes += R"({"model":{"type":"BPE","vocab":)" + vocab.substr(0, vocab.size() - 1 - std::string(R"(,"<|endoftext|>":258)").size()) +
                 R"(},"merges":)" + merges_json + R"(},"decoder":{"type":"ByteLevel"},)" +
                 R"("added_tokens":[{"id":258,"content":"<|endoftext|>","special":true}]})";
        std::ofstream(dir / name, std::ios::binary) << bytes;
    };
    seed("gpt2", 259, vocab, merges);
    seed("gpt2_bad_merge", 259, vocab, "h e x\n");
    seed("gpt2_short", 260, vocab, merges);
    seed("gpt2_crlf", 259, vocab, "#version: 0.2\r\nh e\r\n");
    json_seed("tokenizer_json", 259, R"(["\u0120 t","h e"])");
    json_seed("tokenizer_json_pairs", 259, R"([["\u0120","t"],["h","e"]])");
}

// A GPT-2 as llama.cpp's converter writes it (general.architecture gpt2): n_embd 8, one
// layer, 16 positions, the 256 byte tokens, the merge "Ġ t", <|endoftext|>; F32 tensors.
tessera::test::GgufFile gpt2_gguf()
{
    using tessera::test::GgufMetadata;
    auto u32 = [](const std::string &key, uint32_t v) {
        GgufMetadata m{key, 4, std::vector<uint8_t>(4)};
        std::memcpy(m.value.data(), &v, 4);
        return m;
    };
    auto strings = [](const std::string &key, const std::vector<std::string> &items) {
        GgufMetadata m{key, 9, {}};
        const uint32_t type = 8;
        const uint64_t n = items.size();
        m.value.insert(m.value.end(), reinterpret_cast<const uint8_t *>(&type), reinterpret_cast<const uint8_t *>(&type) + 4);
        m.value.insert(m.value.end(), reinterpret_cast<const uint8_t *>(&n), reinterpret_cast<const uint8_t *>(&n) + 8);
        for (const std::string &t : items) {
            const uint64_t len = t.size();
            m.value.insert(m.value.end(), reinterpret_cast<const uint8_t *>(&len), reinterpret_cast<const uint8_t *>(&len) + 8);
            m.value.insert(m.value.end(), t.begin(), t.end());
        }
        return m;
    };
    const uint32_t D = 8, H = 32, V = 258, P = 16;
    std::vector<std::string> tokens;
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) { // bytes_to_unicode's stand-ins, as UTF-8
        const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        const uint32_t cp = printable ? b : next++;
        tokens.push_back(cp < 0x80 ? std::string(1, char(cp)) : std::string{char(0xC0 | (cp >> 6)), char(0x80 | (cp & 0x3F))});
    }
    tokens.push_back("\xC4\xA0t"), tokens.push_back("<|endoftext|>");
    tessera::test::GgufFile f;
    f.architecture = "gpt2";
    f.bos = f.eos = V - 1;
    f.extra = {u32("gpt2.context_length", P), u32("gpt2.embedding_length", D), u32("gpt2.feed_forward_length", H),
               u32("gpt2.block_count", 1), u32("gpt2.attention.head_count", 2),
               tessera::test::gguf_string_metadata("tokenizer.ggml.model", "gpt2"), strings("tokenizer.ggml.tokens", tokens),
               strings("tokenizer.ggml.merges", {"\xC4\xA0 t"})};
    std::vector<float> values(size_t(V) * D, 0.25f);
    auto tensor = [&](const std::string &name, std::vector<uint64_t> dims) {
        f.tensors.push_back(tessera::test::gguf_tensor(name, dims, tessera::test::kGgufF32, values.data()));
    };
    tensor("token_embd.weight", {D, V}), tensor("position_embd.weight", {D, P}), tensor("output.weight", {D, V});
    for (const char *n : {"attn_norm", "ffn_norm"}) tensor(std::string("blk.0.") + n + ".weight", {D}), tensor(std::string("blk.0.") + n + ".bias", {D});
    tensor("blk.0.attn_qkv.weight", {D, 3 * D}), tensor("blk.0.attn_qkv.bias", {3 * D});
    tensor("blk.0.attn_output.weight", {D, D}), tensor("blk.0.attn_output.bias", {D});
    tensor("blk.0.ffn_up.weight", {D, H}), tensor("blk.0.ffn_up.bias", {H});
    tensor("blk.0.ffn_down.weight", {H, D}), tensor("blk.0.ffn_down.bias", {D});
    tensor("output_norm.weight", {D}), tensor("output_norm.bias", {D});
    return f;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: tessera-fuzz-seeds OUT_DIR\n");
        return 2;
    }
    try {
        const fs::path out = argv[1], models = out / "models", shared = TESSERA_SHARED_DIR;
        for (const char *d : {"image", "encode", "readers", "data", "models", "board", "hf", "onnx", "npz", "bpe"})
            fs::create_directories(out / d);
        write_npz_seeds(out / "npz");
        write_board_seeds(out / "board");
        write_hf_seeds(out / "hf");
        write_bpe_seeds(out / "bpe");
        const std::string board = TESSERA_FUZZ_BOARD;

        SyntheticConfig small;
        small.dim = 8, small.hidden_dim = 16, small.n_layers = 1, small.n_heads = 2, small.n_kv_heads = 1;
        small.vocab_size = 300, small.seq_len = 24;
        SyntheticConfig gqa = small;
        gqa.dim = 16, gqa.n_layers = 2, gqa.n_heads = 4, gqa.n_kv_heads = 2, gqa.shared_classifier = false;
        SyntheticConfig ten = small;
        ten.dim = 16, ten.hidden_dim = 32, ten.n_heads = 2, ten.vocab_size = 10, ten.seq_len = 32;
        TokenizerSpec bytes300, ten_pieces, no_space;
        ten_pieces.vocab_size = 10, ten_pieces.byte_pieces = false;
        no_space.space_piece = false;
        const std::vector<Model> list = {
            {"small", small, bytes300}, {"gqa", gqa, bytes300}, {"ten", ten, ten_pieces}, {"nospace", small, no_space}};
        for (const Model &m : list) write_model(models, m);

        const fs::path img = out / "image";
        pack(models, "small", (img / "small.tess").string(), board);
        pack(models, "small", (img / "small_in_place.tess").string(), board,
             [](tessera::PackOptions &o) { o.weights = tessera::WeightsPlacement::kImage; });
        pack(models, "small", (img / "small_tiled.tess").string(), board, [](tessera::PackOptions &o) { o.l1_bytes = 2048; });
        pack(models, "small", (img / "small_chunk1.tess").string(), board, [](tessera::PackOptions &o) {
            o.prompt_chunk = 1;
            o.context = 8;
        });
        pack(models, "gqa", (img / "gqa.tess").string(), board);
        pack(models, "gqa", (img / "gqa_tiled.tess").string(), board, [](tessera::PackOptions &o) { o.l1_bytes = 4096; });
        pack(models, "gqa", (img / "gqa_bf16w_tiled.tess").string(), board, [](tessera::PackOptions &o) {
            o.weight_type = tessera::WeightType::kBf16;
            o.l1_bytes = 4096;
        });
        pack(models, "ten", (img / "ten.tess").string(), board);
        pack(models, "nospace", (img / "nospace.tess").string(), board);
        // GPT-2 (LayerNorm, GELU, positions, biases; a byte-level BPE with its encoding tables),
        // at fp32 and at int8 (the integer LayerNorm and GELU's table).
        {
            const std::vector<uint8_t> gguf = tessera::test::gguf_bytes(gpt2_gguf());
            std::ofstream(models / "gpt2.gguf", std::ios::binary).write(reinterpret_cast<const char *>(gguf.data()),
                                                                         std::streamsize(gguf.size()));
        }
        for (const bool int8 : {false, true}) {
            tessera::PackOptions o;
            o.checkpoint = (models / "gpt2.gguf").string();
            o.board = board;
            o.output = (img / (int8 ? "gpt2_int8.tess" : "gpt2.tess")).string();
            if (int8) o.precision = tessera::Precision::kInt8;
            tessera::pack(o);
        }

        // Fuzzer c opens these at start, on the host board.
        const fs::path data = out / "data";
        const bool have_shared = fs::exists(shared / "models/stories260K.bin");
        if (have_shared) {
            fs::copy_file(shared / "models/stories260K.bin", models / "stories.bin", fs::copy_options::overwrite_existing);
            fs::copy_file(shared / "models/tok512.bin", models / "stories.tok", fs::copy_options::overwrite_existing);
            fs::copy_file(shared / "models/tokenizer.bin", models / "llama.tok", fs::copy_options::overwrite_existing);
        } else {
            std::fprintf(stderr, "tessera-fuzz-seeds: %s has no models: the 512- and 32000-piece vocabularies are "
                                 "synthetic stand-ins\n", shared.c_str());
            write_model(models, {"stories", [] { SyntheticConfig c; c.vocab_size = 512; return c; }(), {512, true, true}});
            tessera::test::write_tokenizer((models / "llama.tok").string(), TokenizerSpec{32000, true, true});
        }
        SyntheticConfig llama = small;
        llama.vocab_size = 32000, llama.dim = 4, llama.n_heads = 1, llama.n_kv_heads = 1, llama.seq_len = 1024;
        tessera::test::write_legacy_checkpoint((models / "llama.bin").string(), llama, tessera::test::make_weights(llama));
        const std::pair<const char *, const char *> encode_models[] = {
            {"stories", "encode-512"}, {"llama", "encode-32000"}, {"ten", "encode-10"}, {"nospace", "encode-nospace"}};
        for (const auto &[model, name] : encode_models) {
            pack(models, model, (data / (std::string(name) + ".tess")).string(), "host");
            fs::copy_file(models / (std::string(model) + ".tok"), data / (std::string(name) + ".tok"),
                          fs::copy_options::overwrite_existing);
        }

        // Texts for fuzzer c: prompts of the golden runs, prose, and awkward bytes.
        std::vector<std::string> texts = {"Lily and Tom went to the", "Once upon a time", "the the the", "hello world",
                                          "a\xF0\x9F\x98\x80", "caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87", "\x80\xBF\xC3",
                                          "  leading and trailing  ", "zzz", "bad", "\n\t<0x41><s></s>"};
        std::ifstream golden(shared / "golden/stories260K.greedy200.text");
        const std::string story((std::istreambuf_iterator<char>(golden)), {});
        if (!story.empty()) texts.push_back(story.substr(0, 400));
        int k = 0;
        for (const auto &t : texts)
            for (uint8_t selector : {0x04, 0x05, 0x06, 0x07, 0x0C, 0x14}) {
                std::vector<uint8_t> body = {uint8_t(k % 8)};
                body.insert(body.end(), t.begin(), t.end());
                write_bytes(out / "encode" / ("text" + std::to_string(k++)), selector, body);
            }

        // Checkpoints (selector 0) and tokenizers (selector 1 | size index << 1) for fuzzer d.
        SyntheticConfig v1 = gqa;
        tessera::test::write_v1_checkpoint((models / "gqa_v1.bin").string(), v1, tessera::test::make_weights(v1));
        tessera::test::write_v2_checkpoint((models / "gqa_v2.bin").string(), v1, tessera::test::make_weights(v1), 4);
        for (const char *ck : {"small", "gqa", "ten", "gqa_v1", "gqa_v2"})
            write_bytes(out / "readers" / (std::string(ck) + ".bin"), 0, read_bytes(models / (std::string(ck) + ".bin")));
        write_bytes(out / "readers" / "ten.tok", 1 | (0 << 1), read_bytes(models / "ten.tok"));
        write_bytes(out / "readers" / "small.tok", 1 | (1 << 1), read_bytes(models / "small.tok"));
        write_bytes(out / "readers" / "tok512.tok", 1 | (2 << 1), read_bytes(models / "stories.tok"));
        { // GGUF (bit 3): the small model in versions 1 and 3, F16 and Q4_0 matrices
            const tessera::LlamaCheckpoint small = tessera::read_llama2c_checkpoint((models / "small.bin").string());
            const tessera::Vocabulary vocab =
                tessera::read_llama2c_tokenizer((models / "small.tok").string(), small.config.vocab_size);
            for (uint32_t version : {1u, 3u}) {
                tessera::test::GgufFile f = tessera::test::gguf_from_checkpoint(
                    small, vocab, version == 1 ? tessera::test::kGgufF16 : tessera::test::kGgufQ4_0);
                f.version = version;
                write_bytes(out / "readers" / ("small_v" + std::to_string(version) + ".gguf"), 8, tessera::test::gguf_bytes(f));
            }
        }
        write_bytes(out / "readers" / "gpt2.gguf", 8, tessera::test::gguf_bytes(gpt2_gguf()));
        std::printf("tessera-fuzz-seeds: seeds in %s\n", out.c_str());
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-fuzz-seeds: error: %s\n", e.what());
        return 1;
    }
}
