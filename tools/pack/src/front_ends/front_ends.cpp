#include <cstdio>
#include <filesystem>

#include "front_end_rows.h"
#include "tessera/errors.h"
#include "tessera/models/llama2c.h" // read_file_head
#include "tessera/pack/packer.h"

namespace tessera {

const std::vector<FrontEnd> &front_ends()
{
    // The weakest test last: a llama2.c legacy checkpoint has no magic, only a header in range.
    static const std::vector<FrontEnd> table = {
        {"Hugging Face directory", "a directory with config.json", recognises_hf, load_hf},
        {"GGUF", "the magic GGUF", recognises_gguf, load_gguf},
        {"ONNX graph", "a protobuf ModelProto, ir_version first", recognises_onnx, load_onnx},
        {"llama2.c checkpoint", "the magic ak42, or a legacy header of seven fields in range", recognises_llama2c,
         load_llama2c},
    };
    return table;
}

namespace {

// "12 bytes, beginning 0x7f 0x45 0x4c 0x46" or "an empty file" or "a directory without config.json".
std::string what_it_is(const std::string &path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return "a directory without config.json";
    uint64_t size = 0;
    const std::vector<uint8_t> head = read_file_head(path, 8, &size);
    if (size == 0) return "an empty file";
    std::string s = std::to_string(size) + " bytes, beginning";
    for (uint8_t b : head) {
        char hex[8];
        std::snprintf(hex, sizeof hex, " %02x", b);
        s += hex;
    }
    return s;
}

} // namespace

std::unique_ptr<LoadedModel> read_model(const PackOptions &o)
{
    for (const FrontEnd &f : front_ends())
        if (f.recognises(o.checkpoint)) return f.load(o);
    std::string tried;
    for (const FrontEnd &f : front_ends()) tried += std::string(tried.empty() ? "" : "; ") + f.name + " (" + f.recognised + ")";
    throw InputError(o.checkpoint + ": " + what_it_is(o.checkpoint) + ": not a model tessera-pack reads (tried " + tried +
                     ")");
}

} // namespace tessera
