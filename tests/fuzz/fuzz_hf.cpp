// Fuzzer (f): a Hugging Face directory's config.json and safetensors header. A bad one
// must end in InputError with a one-line printable message naming the file; any other
// exception, a crash or a sanitizer report is a finding.
//
// Input: byte 0 bit 0 picks the reader: config.json (0) or a safetensors header (1),
// whose data section is bytes 1-4 (little-endian) long, the rest being the header.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tessera/models/hf.h"

namespace {

void check_message(const char *m, const char *file)
{
    bool ok = m[0] && std::strncmp(m, file, std::strlen(file)) == 0;
    for (const char *p = m; *p; ++p) ok = ok && static_cast<unsigned char>(*p) >= 0x20 && static_cast<unsigned char>(*p) < 0x7F;
    if (!ok) {
        std::fprintf(stderr, "fuzz finding: message not one printable line naming %s: %s\n", file, m);
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    if (data[0] & 1u) {
        if (size < 5) return 0;
        uint32_t data_bytes;
        std::memcpy(&data_bytes, data + 1, 4);
        try {
            const auto tensors = tessera::parse_safetensors_header(
                std::string(reinterpret_cast<const char *>(data + 5), size - 5), "fuzz.safetensors", data_bytes);
            for (const auto &[name, t] : tensors) // inside the data
                if (t.begin > t.end || t.end > data_bytes) std::abort();
        } catch (const tessera::InputError &e) {
            check_message(e.what(), "fuzz.safetensors");
        }
    } else {
        try {
            bool tie = false;
            const tessera::LlamaConfig c =
                tessera::parse_hf_config(std::string(reinterpret_cast<const char *>(data + 1), size - 1), "config.json", &tie);
            if (!c.dim || !c.n_heads || c.dim % c.n_heads || !(c.norm_eps > 0) || !(c.rope_theta > 0) ||
                !(c.rope_theta < 3.5e38f) || !(c.norm_eps < 3.5e38f))
                std::abort();
        } catch (const tessera::InputError &e) {
            check_message(e.what(), "config.json");
        }
    }
    return 0;
}
