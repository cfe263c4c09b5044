// Fuzzer (g): the ONNX front end and the test-vector reader on arbitrary bytes. An
// input that starts as a zip archive ("PK") is an .npz: read, then checked as the
// inputs of a decoder-only image like microLlama's (tessera-eval --npz-inputs); any
// other is an ONNX model, read and lowered. A bad input must end in InputError (its
// one-line message); any other exception, a crash or a sanitizer report is a finding.
// Seeds: Deeploy's graphs and vectors in TESSERA_SHARED_DIR, read in place.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tessera/errors.h"
#include "tessera/models/onnx.h"
#include "tessera/tools/npz.h"
#include "tools/eval/test_vectors.h"

namespace {

void check_message(const char *what)
{
    if (!what[0] || std::strchr(what, '\n')) {
        std::fprintf(stderr, "fuzz finding: reader message not one line: %s\n", what);
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    try {
        if (size >= 2 && data[0] == 'P' && data[1] == 'K') {
            const std::vector<tessera::NpyArray> arrays = tessera::parse_npz(bytes, "fuzz.npz");
            tessera_image_summary image{};
            image.dim = 64, image.hidden_dim = 256, image.n_layers = 8, image.n_heads = image.n_kv_heads = 16;
            image.context = 256, image.prompt_chunk = 64, image.precision = 4; // int8, decoder-only (vocab 0)
            const tessera::VectorInputs in = tessera::read_vector_inputs(image, arrays, "fuzz.npz");
            if (in.rows_in.size() != size_t(in.rows) * 64 || in.past_rows.size() != 16) std::abort();
        } else {
            tessera::OnnxDecoderInfo info;
            const tessera::Graph g = tessera::lower_onnx_decoder_bytes(bytes, "fuzz.onnx", {}, info);
            if (g.hyper.dim != info.dim || g.hyper.n_layers != info.n_layers || !g.hyper.decoder_only) std::abort();
        }
    } catch (const tessera::InputError &e) {
        check_message(e.what());
    }
    return 0;
}
