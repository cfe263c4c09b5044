// Issue 18's findings, each reproduced through the tools as a user meets it: a crash
// from an untrusted image, undefined behaviour, images the runtime refuses, outputs
// that overwrite inputs, raw library errors, input accepted silently, and memory that
// grows with the input. Every refusal must be exit status 1 with one line naming the
// file (and, for JSON, the key), and no raw "json.exception" or "filesystem error".
//
// The tools run are the build's; TESSERA_TOOLS_DIR=DIR runs DIR's instead (how the
// closing note shows what an older build did with the same cases).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <sys/stat.h>
#include <unistd.h>

#include "support/gguf_writer.h"
#include "support/synthetic_model.h"
#include "support/tool_run.h"
#include "tessera/board_desc.h"
#include "tessera/crc32.h"
#include "tessera/host_board.h"
#include "tessera/image_format.h"
#include "tessera/models/gguf.h"
#include "tessera/models/hf.h"

namespace {

namespace fs = std::filesystem;
using namespace tessera::test;

std::string tool(const char *name)
{
    if (const char *dir = std::getenv("TESSERA_TOOLS_DIR")) return std::string(dir) + "/" + name;
    return std::string(TESSERA_TOOLS_BUILD_DIR) + "/" + name;
}

std::string shell_quoted(const std::string &s) { return "'" + s + "'"; }

std::string read_text(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

void write_text(const std::string &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// The run must fail with status 1 and one line on stderr naming every `needle`, in
// printable text, without the JSON or filesystem library's own words.
void refused(const std::string &command, std::initializer_list<std::string> needles)
{
    const ToolRun r = run_tool("{ " + command + " 2>&1 >/dev/null; }"); // stderr alone
    EXPECT_EQ(r.status, 1) << command << "\n" << r.out;
    std::string line = r.out;
    while (!line.empty() && line.back() == '\n') line.pop_back();
    EXPECT_EQ(line.find('\n'), std::string::npos) << "more than one line: " << r.out;
    for (const std::string &n : needles) EXPECT_NE(r.out.find(n), std::string::npos) << "no '" << n << "' in: " << r.out;
    EXPECT_EQ(r.out.find("json.exception"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("filesystem error"), std::string::npos) << r.out;
    for (unsigned char c : line) EXPECT_TRUE(c >= 0x20 && c < 0x7F) << "unprintable byte in: " << r.out;
}

// A small model, its tokenizer and a custom board, packed once per test.
class Untrusted : public ::testing::Test {
protected:
    void SetUp() override
    {
        dir_ = temp_path(::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        config_.dim = 16, config_.hidden_dim = 32, config_.n_layers = 2, config_.n_heads = 2, config_.n_kv_heads = 1;
        config_.vocab_size = 300, config_.seq_len = 32;
        ck_ = path("ck.bin"), tok_ = path("tok.bin");
        write_legacy_checkpoint(ck_, config_, make_weights(config_));
        TokenizerSpec spec;
        spec.vocab_size = 300;
        write_tokenizer(tok_, spec);
        write_text(path("mymcu.json"), board_json(""));
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string &name) const { return dir_ + "/" + name; }
    static std::string board_json(const std::string &more)
    {
        return R"({"name":"mymcu","cluster":{"cores":2},"regions":{"L1":65536,"L2":4194304})" + more + "}";
    }
    std::string pack_command(const std::string &out, const std::string &more = "") const
    {
        return tool("tessera-pack") + " " + shell_quoted(ck_) + " --tokenizer " + shell_quoted(tok_) + " -q -o " + shell_quoted(out) + " " + more;
    }
    // Packs for the custom board and returns the image's bytes.
    std::vector<uint8_t> custom_board_image()
    {
        const ToolRun r = run_tool(pack_command(path("mymcu.tess"), "--board " + shell_quoted(path("mymcu.json"))));
        EXPECT_EQ(r.status, 0) << r.out;
        const std::string s = read_text(path("mymcu.tess"));
        return std::vector<uint8_t>(s.begin(), s.end());
    }

    std::string dir_, ck_, tok_;
    SyntheticConfig config_;
};

// The image with its BOARD section replaced by `json` (put at the end of the file),
// every checksum signed again, as a hostile image would be.
std::vector<uint8_t> with_board_section(std::vector<uint8_t> image, const std::string &json)
{
    tsr_image_header h;
    std::memcpy(&h, image.data(), sizeof h);
    std::vector<tsr_section> sections(h.section_count);
    std::memcpy(sections.data(), image.data() + h.section_table_offset, sections.size() * sizeof(tsr_section));
    for (tsr_section &s : sections) {
        if (s.kind != TSR_SECTION_BOARD) continue;
        image.resize((image.size() + 15) / 16 * 16);
        s.file_offset = uint32_t(image.size());
        s.size = uint32_t(json.size());
        s.crc32 = tsr_crc32(0, json.data(), json.size());
        image.insert(image.end(), json.begin(), json.end());
    }
    std::memcpy(image.data() + h.section_table_offset, sections.data(), sections.size() * sizeof(tsr_section));
    h.file_size = uint32_t(image.size());
    h.section_table_crc = tsr_crc32(0, sections.data(), sections.size() * sizeof(tsr_section));
    h.header_crc = 0;
    h.header_crc = tsr_crc32(0, &h, sizeof h);
    std::memcpy(image.data(), &h, sizeof h);
    return image;
}

// The image with header field `field` (a uint32_t at its offset) set, checksum signed.
std::vector<uint8_t> with_header_field(std::vector<uint8_t> image, size_t offset, uint32_t value)
{
    std::memcpy(image.data() + offset, &value, 4);
    tsr_image_header h;
    std::memcpy(&h, image.data(), sizeof h);
    h.header_crc = 0;
    h.header_crc = tsr_crc32(0, &h, sizeof h);
    std::memcpy(image.data(), &h, sizeof h);
    return image;
}

void write_bytes(const std::string &path, const std::vector<uint8_t> &bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

const std::string kDeep = "{\"name\":" + std::string(100000, '[') + std::string(100000, ']') + "}"; // 200 KB

// Finding 1: a description nested 100,000 levels deep crashed every tool (the
// re-serialization recursed); from a file and from an image's BOARD section.
TEST_F(Untrusted, DeeplyNestedBoardFileIsRefused)
{
    write_text(path("deep.json"), kDeep);
    const std::string message = path("deep.json") + ": JSON nested deeper than 8 levels (at byte 15)";
    refused(pack_command(path("o.tess"), "--board " + shell_quoted(path("deep.json"))), {message});
    EXPECT_FALSE(fs::exists(path("o.tess")));
    write_bytes(path("img.tess"), custom_board_image());
    write_text(path("ids.txt"), "1 5 6 7");
    for (const char *t : {"tessera-generate", "tessera-inspect", "tessera-eval"})
        refused(tool(t) + " " + shell_quoted(path("img.tess")) + " --board " + shell_quoted(path("deep.json")) +
                    (std::string(t) == "tessera-eval" ? " --ids-file " + shell_quoted(path("ids.txt")) : ""),
                {message});
}

TEST_F(Untrusted, DeeplyNestedBoardInAnImageIsRefusedByEveryToolAndTheCApi)
{
    const std::vector<uint8_t> image = with_board_section(custom_board_image(), kDeep);
    write_bytes(path("deep.tess"), image);
    const std::string message = "the description of board 'mymcu' embedded in the image: JSON nested deeper than 8 levels";
    refused(tool("tessera-generate") + " " + shell_quoted(path("deep.tess")) + " -n 4", {message});
    refused(tool("tessera-inspect") + " " + shell_quoted(path("deep.tess")), {message});
    write_text(path("ids.txt"), "1 5 6 7");
    refused(tool("tessera-eval") + " " + shell_quoted(path("deep.tess")) + " --ids-file " + shell_quoted(path("ids.txt")), {message});
    // A program embedding the SDK: the C API returns an error instead of crashing.
    std::vector<uint64_t> aligned(image.size() / 8 + 1);
    std::memcpy(aligned.data(), image.data(), image.size());
    tessera_host_board *board = nullptr;
    char error[256] = {};
    EXPECT_NE(tessera_host_board_create_for_image(aligned.data(), image.size(), 1, &board, error, sizeof error), 0);
    EXPECT_EQ(board, nullptr);
    EXPECT_NE(std::string(error).find(message), std::string::npos) << error;
}

// Finding 2: safetensors numbers out of uint64_t's range, negative or fractional were
// converted anyway (undefined behaviour; 1e300 accepted; [512.9, 64.99] read as [512, 64]).
TEST(UntrustedSafetensors, NumbersThatAreNoIntegersOfTheirRangeAreRefusedByKey)
{
    auto refused_header = [](const std::string &header, const std::string &message) {
        try {
            tessera::parse_safetensors_header(header, "m.safetensors", 4096);
            ADD_FAILURE() << "accepted: " << header;
        } catch (const tessera::InputError &e) {
            EXPECT_EQ(std::string(e.what()), message);
        }
    };
    refused_header(R"({"w":{"dtype":"F32","shape":[4,4],"data_offsets":[0,1e300]}})",
                   "m.safetensors: w.data_offsets[1]: expected an integer in 0..9007199254740992, got a number (1.0000000000000001e+300)");
    refused_header(R"({"w":{"dtype":"F32","shape":[4,4],"data_offsets":[0,1.8446744073709552e19]}})",
                   "m.safetensors: w.data_offsets[1]: expected an integer in 0..9007199254740992, got a number (1.8446744073709552e+19)");
    refused_header(R"({"w":{"dtype":"F32","shape":[4,4],"data_offsets":[-1,63]}})",
                   "m.safetensors: w.data_offsets[0]: expected an integer in 0..9007199254740992, got a number (-1)");
    refused_header(R"({"w":{"dtype":"F32","shape":[512.9,64.99],"data_offsets":[0,64]}})",
                   "m.safetensors: w.shape[0]: expected an integer in 0..1099511627776, got a number (512.89999999999998)");
    refused_header(R"({"w":{"dtype":"F32","shape":[4,4],"data_offsets":[0,8192]}})",
                   "m.safetensors: w.data_offsets: [0, 8192) runs past the 4096 bytes of data after the header");
    refused_header(R"({"w":{"dtype":"F32","shape":"4","data_offsets":[0,64]}})",
                   "m.safetensors: w.shape: expected an array, got a string (\"4\")");
    // Finding 6: overlapping tensors.
    refused_header(R"({"a":{"dtype":"F32","shape":[4,4],"data_offsets":[0,64]},"b":{"dtype":"F32","shape":[4,4],"data_offsets":[32,96]}})",
                   "m.safetensors: tensors a [0, 64) and b [32, 96) overlap");
    // What Hugging Face writes (exact floats included) reads.
    const auto t = tessera::parse_safetensors_header(
        R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[4.0,4],"data_offsets":[0,64]},"b":{"dtype":"F32","shape":[],"data_offsets":[64,64]}})",
        "m.safetensors", 64);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t.at("a").shape, (std::vector<uint64_t>{4, 4}));
    EXPECT_EQ(t.at("a").end, 64u);
}

// Findings 5 and 6 for config.json: wrong types named by key, infinite as fp32.
TEST(UntrustedHfConfig, WrongTypesAndValuesAreRefusedByKey)
{
    const std::string good =
        R"("model_type":"llama","hidden_size":64,"intermediate_size":172,"num_hidden_layers":5,"num_attention_heads":8,)"
        R"("num_key_value_heads":4,"vocab_size":512,"max_position_embeddings":512)";
    auto refused_config = [](const std::string &text, const std::string &message) {
        bool tie;
        try {
            tessera::parse_hf_config(text, "d/config.json", &tie);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const tessera::InputError &e) {
            EXPECT_EQ(std::string(e.what()), message);
        }
    };
    refused_config(R"({"model_type":5})", "d/config.json: model_type: expected a string, got a number (5)");
    refused_config("{" + good + R"(,"rms_norm_eps":"small"})",
                   "d/config.json: rms_norm_eps: expected a number above 0 and at most 3e+38, got a string (\"small\")");
    refused_config("{" + good + R"(,"rope_theta":null})",
                   "d/config.json: rope_theta: expected a number above 0 and at most 3e+38, got null");
    refused_config("{" + good + R"(,"rope_theta":1e300})",
                   "d/config.json: rope_theta: expected a number above 0 and at most 3e+38, got a number (1.0000000000000001e+300)");
    refused_config("{" + good + R"(,"rms_norm_eps":1e-300})", "d/config.json: rms_norm_eps: is 0 as fp32");
    refused_config("{" + good + R"(,"tie_word_embeddings":"yes"})",
                   "d/config.json: tie_word_embeddings: expected true or false, got a string (\"yes\")");
    refused_config("{" + good + R"(,"hidden_act":5})", "d/config.json: hidden_act: expected a string, got a number (5)");
    refused_config("[{" + good + "}]", "d/config.json: the top level: expected an object, got an array");
    refused_config("{" + good + R"(,"hidden_size":64.5})",
                   "d/config.json: hidden_size: expected an integer in 2..65536, got a number (64.5)");
    // A parse error keeps its reason.
    refused_config("{\"model_type\": \"llama\",",
                   "d/config.json: not valid JSON: parse error at line 1, column 24: syntax error while parsing object key - "
                   "unexpected end of input; expected string literal");
    bool tie = true;
    const tessera::LlamaConfig c = tessera::parse_hf_config("{" + good + R"(,"rope_theta":500000.0,"rope_scaling":null})",
                                                            "config.json", &tie);
    EXPECT_EQ(c.rope_theta, 500000.0f);
    EXPECT_FALSE(tie);
}

TEST_F(Untrusted, HuggingFaceDirectoryErrorsNameTheFileAndKey)
{
    const std::string hf = path("hf");
    fs::create_directories(hf);
    write_text(hf + "/config.json", R"({"model_type":5})");
    refused(tool("tessera-pack") + " " + shell_quoted(hf) + " -o " + shell_quoted(path("o.tess")),
            {hf + "/config.json: model_type: expected a string, got a number (5)"});
    write_text(hf + "/config.json", "{\"model_type\":");
    refused(tool("tessera-pack") + " " + shell_quoted(hf) + " -o " + shell_quoted(path("o.tess")),
            {hf + "/config.json: not valid JSON: parse error at line 1, column 15: syntax error while parsing value - "
                  "unexpected end of input; expected '[', '{', or a literal"});
    // A symbolic link loop where model.safetensors should be.
    write_text(hf + "/config.json",
               R"({"model_type":"llama","hidden_size":16,"intermediate_size":32,"num_hidden_layers":2,)"
               R"("num_attention_heads":2,"num_key_value_heads":1,"vocab_size":300,"max_position_embeddings":32})");
    fs::create_symlink("model.safetensors", hf + "/model.safetensors");
    refused(tool("tessera-pack") + " " + shell_quoted(hf) + " -o " + shell_quoted(path("o.tess")), {hf + ": no model.safetensors"});
    EXPECT_FALSE(fs::exists(path("o.tess")));
}

// Findings 5 and 6 for board descriptions: wrong types, numbers beyond a double,
// unknown keys (a misspelt one turned a check off), invalid UTF-8, a huge junk key.
TEST_F(Untrusted, BoardDescriptionsAreReadStrictlyByKey)
{
    const std::string b = path("b.json");
    auto board_refused = [&](const std::string &json, const std::string &message) {
        write_text(b, json);
        refused(pack_command(path("o.tess"), "--board " + shell_quoted(b)), {b + ": " + message});
    };
    board_refused(board_json(R"(,"description":5)"), "description: expected a string, got a number (5)");
    board_refused(board_json(R"(,"npu":true)"), "npu: expected an object, got true");
    board_refused(board_json(R"(,"clock_mhz":1e400)"), "not valid JSON: number overflow parsing '1e400'");
    board_refused(board_json(R"(,"colck_mhz":100)"),
                  "colck_mhz: unknown key (did you mean 'clock_mhz'?) (known: $schema, name, description, cluster, regions, "
                  "offchip, dma, npu, clock_mhz, cost, memory)");
    board_refused(board_json(R"(,"flash":1024)"),
                  "flash: unknown key (known: $schema, name, description, cluster, regions, offchip, dma, npu, clock_mhz, cost, memory)");
    board_refused(board_json(R"(,"dma":{"queue_dpeth":4})"),
                  "dma.queue_dpeth: unknown key in dma (did you mean 'queue_depth'?) (known: queue_depth, by_core)");
    board_refused(board_json(R"(,"dma":{"queue_depht":4})"),
                  "dma.queue_depht: unknown key in dma (did you mean 'queue_depth'?) (known: queue_depth, by_core)");
    board_refused(R"({"name":"mymcu","cluster":{"cores":2},"regions":{"L1":65536,"L2":4194304.5}})",
                  "regions.L2: expected an integer in 0..4294967232, got a number (4194304.5)");
    board_refused("{\"name\":\"my\xFF\"}", "not valid JSON: parse error at line 1, column 12: syntax error while parsing value - "
                                           "invalid string: ill-formed UTF-8 byte; last read: '\"my\\xFF'");
    board_refused(board_json(",\"junk\":\"" + std::string(2 << 20, 'x') + "\""), "board description of 2097236 bytes; at most 1048576 are read");
    // "dma": {} takes the documented default, and what is accepted embeds only the schema's keys.
    write_text(b, board_json(R"(,"dma":{})"));
    const ToolRun r = run_tool(pack_command(path("o.tess"), "--board " + shell_quoted(b)));
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(tessera::load_board_desc(b).dma_queue_depth, 16u);
}

// Finding 1's other door, and finding 5: a board file that is a loop of links.
TEST_F(Untrusted, BoardFileThatIsALinkLoopIsRefused)
{
    fs::create_symlink("loop.json", path("loop.json"));
    refused(pack_command(path("o.tess"), "--board " + shell_quoted(path("loop.json"))),
            {path("loop.json") + ": cannot open board description: Too many levels of symbolic links"});
}

// Finding 3: a GGUF token with a NUL byte packed, then every tool refused the image.
TEST_F(Untrusted, GgufTokenWithANulIsRefusedWhenPacking)
{
    const tessera::LlamaCheckpoint ck = tessera::read_llama2c_checkpoint(ck_);
    tessera::Vocabulary vocab = tessera::read_llama2c_tokenizer(tok_, 300);
    vocab.pieces[299] = std::string("a\0b", 3);
    write_bytes(path("nul.gguf"), gguf_bytes(gguf_from_checkpoint(ck, vocab, kGgufF32)));
    refused(tool("tessera-pack") + " " + shell_quoted(path("nul.gguf")) + " -o " + shell_quoted(path("o.tess")),
            {path("nul.gguf") + ": token 299 ('a\\x00b') contains a NUL byte, which the device tokenizer cannot hold"});
    EXPECT_FALSE(fs::exists(path("o.tess")));
    vocab.pieces[299] = std::string(65, 'x');
    write_bytes(path("long.gguf"), gguf_bytes(gguf_from_checkpoint(ck, vocab, kGgufF32)));
    refused(tool("tessera-pack") + " " + shell_quoted(path("long.gguf")) + " -o " + shell_quoted(path("o.tess")),
            {path("long.gguf") + ": token 299 ('xxxx", "is 65 bytes; the device tokenizer holds pieces of at most 64"});
}

// Finding 4: an output that is an input replaced it silently.
TEST_F(Untrusted, OutputsNeverReplaceInputs)
{
    const std::string ck_before = read_text(ck_), tok_before = read_text(tok_);
    refused(pack_command(ck_), {"--output " + shell_quoted(ck_) + " is the checkpoint " + shell_quoted(ck_) +
                                ": an output never replaces an input"});
    refused(pack_command(tok_), {"--output " + shell_quoted(tok_) + " is the tokenizer " + shell_quoted(tok_)});
    refused(pack_command(path("o.tess"), "--report " + shell_quoted(ck_)), {"--report " + shell_quoted(ck_) + " is the checkpoint"});
    fs::create_hard_link(ck_, path("hard.bin"));
    refused(pack_command(path("hard.bin")), {"--output " + shell_quoted(path("hard.bin")) + " is the checkpoint"});
    fs::create_symlink(tok_, path("tok_link"));
    refused(pack_command(path("o.tess"), "--memory-map " + shell_quoted(path("tok_link"))), {"--memory-map", "is the tokenizer"});
    write_text(path("calib.txt"), "Once upon a time\n");
    refused(pack_command(path("calib.txt"), "--precision int8 --calibration " + shell_quoted(path("calib.txt"))),
            {"is the calibration text"});
    refused(pack_command(path("mymcu.json"), "--board " + shell_quoted(path("mymcu.json"))), {"is the board description"});
    // The tokenizer found beside the checkpoint is an input too.
    fs::copy_file(tok_, path("tok300.bin"));
    refused(tool("tessera-pack") + " " + shell_quoted(ck_) + " -q -o " + shell_quoted(path("tok300.bin")), {"is the tokenizer"});
    EXPECT_TRUE(read_text(ck_) == ck_before) << "the checkpoint changed";
    EXPECT_TRUE(read_text(tok_) == tok_before) << "the tokenizer changed";
    EXPECT_FALSE(fs::exists(path("o.tess")));
    // tessera-generate's trace is no input either.
    ASSERT_EQ(run_tool(pack_command(path("s.tess"))).status, 0);
    const std::string image = read_text(path("s.tess"));
    refused(tool("tessera-generate") + " " + shell_quoted(path("s.tess")) + " -n 2 --timeline " + shell_quoted(path("s.tess")),
            {"--timeline " + shell_quoted(path("s.tess")) + " is the image"});
    EXPECT_TRUE(read_text(path("s.tess")) == image) << "the image changed";
}

TEST_F(Untrusted, OutputsGoThroughLinksAndToStandardOutput)
{
    // A symbolic link stays one; its target gets the image.
    fs::create_directories(path("images"));
    fs::create_symlink("images/real.tess", path("link.tess"));
    ASSERT_EQ(run_tool(pack_command(path("link.tess"))).status, 0);
    EXPECT_TRUE(fs::is_symlink(path("link.tess")));
    EXPECT_EQ(read_text(path("images/real.tess")).substr(0, 4), "TESS");
    // /dev/stdout and "-" write the image where standard output goes; /dev/stdout stays
    // a link (a tool with the bug, run as root, replaced it with the image: put back).
    ASSERT_TRUE(fs::is_symlink("/dev/stdout")) << "this machine's /dev/stdout is not a link";
    for (const char *out : {"/dev/stdout", "-"}) {
        const ToolRun r = run_tool(pack_command(out) + " > " + shell_quoted(path("piped.tess")));
        EXPECT_EQ(r.status, 0) << r.out;
        EXPECT_TRUE(read_text(path("piped.tess")) == read_text(path("images/real.tess"))) << out << " wrote another image";
    }
    // Without -q the summary then goes to stderr, not into the image; two outputs on
    // standard output, or generate's trace beside its text, are refused.
    const std::string loud = tool("tessera-pack") + " " + shell_quoted(ck_) + " --tokenizer " + shell_quoted(tok_) + " -o -";
    EXPECT_EQ(run_tool("{ " + loud + " > " + shell_quoted(path("loud.tess")) + " 2>/dev/null; }").status, 0);
    EXPECT_TRUE(read_text(path("loud.tess")) == read_text(path("images/real.tess"))) << "the summary went into the image";
    refused(loud + " --report -", {"--output and --report both name standard output (-)"});
    const ToolRun t = run_tool(tool("tessera-generate") + " " + shell_quoted(path("images/real.tess")) + " -n 2 --timeline -");
    EXPECT_EQ(t.status, 2) << t.out;
    EXPECT_NE(t.out.find("--timeline: standard output (-) carries the generated text"), std::string::npos) << t.out;
    if (!fs::is_symlink("/dev/stdout")) {
        ADD_FAILURE() << "/dev/stdout was replaced by a file";
        std::error_code ec;
        fs::remove("/dev/stdout", ec);
        fs::create_symlink("/proc/self/fd/1", "/dev/stdout", ec);
    }
    // A loop of links is an error naming the path.
    fs::create_symlink("loop.tess", path("loop.tess"));
    refused(pack_command(path("loop.tess")), {"cannot write " + shell_quoted(path("loop.tess")) + ": Too many levels of symbolic links"});
}

// Finding 5: -n -1 printed a 309-digit bound.
TEST_F(Untrusted, NegativeStepsIsAShortUsageError)
{
    ASSERT_EQ(run_tool(pack_command(path("s.tess"))).status, 0);
    const ToolRun r = run_tool(tool("tessera-generate") + " " + shell_quoted(path("s.tess")) + " -n -1");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out, "tessera-generate: error: --steps: Value -1 not in range 0 to 2147483647 (see tessera-generate --help)\n");
    EXPECT_LT(r.out.size(), 200u) << r.out;
}

// Finding 6: GGUF duplicates, overlaps, tensors beyond block_count, and an epsilon or
// RoPE base that fp32 makes infinite or zero.
TEST_F(Untrusted, GgufThatDisagreesWithItselfIsRefused)
{
    const tessera::LlamaCheckpoint ck = tessera::read_llama2c_checkpoint(ck_);
    const tessera::Vocabulary vocab = tessera::read_llama2c_tokenizer(tok_, 300);
    auto gguf_refused = [&](GgufFile f, const std::string &message) {
        write_bytes(path("x.gguf"), gguf_bytes(f));
        refused(tool("tessera-pack") + " " + shell_quoted(path("x.gguf")) + " -o " + shell_quoted(path("o.tess")),
                {path("x.gguf") + ": ", message});
    };
    const GgufFile good = gguf_from_checkpoint(ck, vocab, kGgufF32);
    GgufFile f = good;
    f.extra = {gguf_string_metadata("general.name", "a"), gguf_string_metadata("general.name", "b")};
    gguf_refused(f, "metadata key general.name appears twice");
    f = good;
    f.tensors.push_back(f.tensors[1]);
    gguf_refused(f, "tensor " + f.tensors[1].name + " appears twice");
    f = good;
    f.tensors[2].offset = 0;
    gguf_refused(f, "tensors blk.0.attn_q.weight (data bytes 0..1024) and token_embd.weight (from 0) overlap");
    f = good;
    f.config.n_layers = 1;
    gguf_refused(f, "tensor blk.1.attn_q.weight is in block 1, but llama.block_count is 1");
    f = good;
    f.extra = {gguf_f64_metadata("llama.attention.layer_norm_rms_epsilon", 1e300)};
    gguf_refused(f, "metadata llama.attention.layer_norm_rms_epsilon must be a positive number that fp32 holds, not 1e+300");
    f = good;
    f.extra = {gguf_f64_metadata("llama.rope.freq_base", 1e300)};
    gguf_refused(f, "metadata llama.rope.freq_base must be a positive number that fp32 holds, not 1e+300");
    write_bytes(path("x.gguf"), gguf_bytes(good));
    const ToolRun r = run_tool(tool("tessera-pack") + " " + shell_quoted(path("x.gguf")) + " -q -o " + shell_quoted(path("o.tess")));
    EXPECT_EQ(r.status, 0) << r.out;
}

// Finding 6: header fields no section checked ("4294967295 layers").
TEST_F(Untrusted, ImageHeaderFieldsMustAgreeWithTheSchedules)
{
    ASSERT_EQ(run_tool(pack_command(path("s.tess"))).status, 0);
    const std::string s = read_text(path("s.tess"));
    const std::vector<uint8_t> image(s.begin(), s.end());
    struct Case {
        size_t offset;
        uint32_t value;
        const char *message;
    } cases[] = {
        {offsetof(tsr_image_header, n_layers), 0xFFFFFFFFu, "n_layers is 4294967295, the prompt schedule runs 2"},
        {offsetof(tsr_image_header, n_layers), 1u, "names a layer beyond the header's n_layers"},
        {offsetof(tsr_image_header, hidden_dim), 31u, "(swiglu): its hidden_dim is 32, the header's 31"},
        {offsetof(tsr_image_header, seq_len), 0xFFFFFFFFu, "seq_len is above 2^20 positions"},
        {offsetof(tsr_image_header, rope_theta), 0x7F800000u, "rope_theta is not a finite positive number"},
    };
    for (const Case &c : cases) {
        write_bytes(path("bad.tess"), with_header_field(image, c.offset, c.value));
        refused(tool("tessera-inspect") + " " + shell_quoted(path("bad.tess")), {c.message});
        refused(tool("tessera-generate") + " " + shell_quoted(path("bad.tess")) + " -n 2", {c.message});
    }
}

// Finding 6: a binary file as calibration text ran for a minute.
TEST_F(Untrusted, CalibrationTextMustBeUtf8)
{
    write_text(path("bin.txt"), std::string("Once upon a time\nthere was \xFF\xFE a cat\n"));
    refused(pack_command(path("o.tess"), "--precision int8 --calibration " + shell_quoted(path("bin.txt"))),
            {path("bin.txt") + ":2: byte 11 (0xFF) is not UTF-8; the calibration text must be UTF-8 text"});
    write_text(path("nul.txt"), std::string("a\0b", 3));
    refused(pack_command(path("o.tess"), "--precision int8 --calibration " + shell_quoted(path("nul.txt"))),
            {path("nul.txt") + ":1: byte 2 (0x00) is a NUL"});
    write_text(path("overlong.txt"), "\xC0\xAF");
    refused(pack_command(path("o.tess"), "--precision int8 --calibration " + shell_quoted(path("overlong.txt"))),
            {"byte 1 (0xC0) is not UTF-8"});
    write_text(path("ok.txt"), "Once upon a time, caf\xC3\xA9 \xF0\x9F\x98\x80\n");
    const ToolRun r = run_tool(pack_command(path("o.tess"), "--precision int8 --calibration " + shell_quoted(path("ok.txt"))));
    EXPECT_EQ(r.status, 0) << r.out;
}

// A tool's run and its peak resident memory in KiB, measured by tessera-max-rss.
struct Measured {
    ToolRun run;
    long max_rss_kib = -1;
};
Measured measured(const std::string &command)
{
    Measured m;
    m.run = run_tool(std::string(TESSERA_MAX_RSS_BIN) + " " + command);
    const size_t at = m.run.out.rfind("max_rss_kib ");
    if (at != std::string::npos) {
        m.max_rss_kib = std::atol(m.run.out.c_str() + at + 12);
        m.run.out.erase(at);
    }
    return m;
}

// Finding 7: GGUF metadata cost ~9x the file in memory, and every input was read whole
// before its header was checked.
TEST_F(Untrusted, MemoryStaysNearTheFileSizeAndBadHeadersCostNothing)
{
    const tessera::LlamaCheckpoint ck = tessera::read_llama2c_checkpoint(ck_);
    const tessera::Vocabulary vocab = tessera::read_llama2c_tokenizer(tok_, 300);
    GgufFile f = gguf_from_checkpoint(ck, vocab, kGgufF32);
    // 48 MB of metadata an array of 4 M short strings: what cost most per byte.
    GgufMetadata junk{"junk.strings", 9, {}};
    const uint32_t string_type = 8;
    const uint64_t n = 4u << 20;
    junk.value.resize(12);
    std::memcpy(junk.value.data(), &string_type, 4);
    std::memcpy(junk.value.data() + 4, &n, 8);
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t len = 4;
        const uint8_t *p = reinterpret_cast<const uint8_t *>(&len);
        junk.value.insert(junk.value.end(), p, p + 8);
        junk.value.insert(junk.value.end(), {'j', 'u', 'n', 'k'});
    }
    f.extra = {junk};
    long file_kib = 0;
    {
        const std::vector<uint8_t> bytes = gguf_bytes(f);
        write_bytes(path("junk.gguf"), bytes);
        file_kib = long(bytes.size() / 1024);
    }
    const Measured m = measured(tool("tessera-pack") + " " + shell_quoted(path("junk.gguf")) + " -q -o " + shell_quoted(path("o.tess")));
    EXPECT_EQ(m.run.status, 0) << m.run.out;
    ASSERT_GT(m.max_rss_kib, 0) << m.run.out;
    if (!kAddressSanitizer) EXPECT_LT(m.max_rss_kib, 2 * file_kib + 32 * 1024) << "file " << file_kib << " KiB";
    // 2 GiB of zeros (a sparse file): refused from its first bytes.
    for (const char *name : {"zeros.bin", "zeros.tok"}) {
        { std::ofstream(path(name)); }
        fs::resize_file(path(name), 2ull << 30);
    }
    const std::string zeros_ck = tool("tessera-pack") + " " + shell_quoted(path("zeros.bin")) + " --tokenizer " +
                                 shell_quoted(tok_) + " -o " + shell_quoted(path("o2.tess"));
    const std::string zeros_tok = tool("tessera-pack") + " " + shell_quoted(ck_) + " --tokenizer " +
                                  shell_quoted(path("zeros.tok")) + " -o " + shell_quoted(path("o2.tess"));
    refused(zeros_ck, {path("zeros.bin") + ": 2147483648 bytes, beginning 00 00 00 00 00 00 00 00: not a model "
                                           "tessera-pack reads (tried Hugging Face directory"});
    refused(zeros_tok, {path("zeros.tok") + ": 2147483648 bytes; 300 tokens of at most 64 bytes take at most 21604"});
    for (const std::string &command : {zeros_ck, zeros_tok}) {
        const Measured z = measured(command);
        EXPECT_EQ(z.run.status, 1);
        if (!kAddressSanitizer) EXPECT_LT(z.max_rss_kib, 32 * 1024) << command;
    }
}

} // namespace
