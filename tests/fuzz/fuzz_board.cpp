// Fuzzer (e): board descriptions, from a file and from an image's BOARD section. Any
// bytes are parsed as a description; a bad one must end in BoardError with a one-line
// printable message. Byte 0 bit 0 wraps the rest in a model image's BOARD section
// (checksums signed), read back the way the tools and the C API read an image's board.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/board_desc.h"
#include "tessera/crc32.h"
#include "tessera/image_format.h"

namespace {

// The smallest image that carries a BOARD section: a header, one section, its bytes.
std::vector<uint8_t> image_with_board(const uint8_t *json, size_t size)
{
    const size_t table = sizeof(tsr_image_header), at = table + sizeof(tsr_section);
    std::vector<uint8_t> image(at + size);
    tsr_image_header h{};
    h.magic = TSR_IMAGE_MAGIC;
    h.version = TSR_IMAGE_VERSION;
    h.header_size = sizeof h;
    h.file_size = uint32_t(image.size());
    std::memcpy(h.board_name, "fuzzboard", 10);
    h.section_count = 1;
    h.section_table_offset = uint32_t(table);
    tsr_section s{};
    s.kind = TSR_SECTION_BOARD;
    s.file_offset = uint32_t(at);
    s.size = uint32_t(size);
    s.align = 1;
    s.crc32 = tsr_crc32(0, json, size);
    h.section_table_crc = tsr_crc32(0, &s, sizeof s);
    h.header_crc = tsr_crc32(0, &h, sizeof h);
    std::memcpy(image.data(), &h, sizeof h);
    std::memcpy(image.data() + table, &s, sizeof s);
    if (size) std::memcpy(image.data() + at, json, size);
    return image;
}

bool one_printable_line(const char *m)
{
    if (!m[0]) return false;
    for (const char *p = m; *p; ++p)
        if (static_cast<unsigned char>(*p) < 0x20 || static_cast<unsigned char>(*p) >= 0x7F) return false;
    return true; // (a file's bytes may be echoed, so the library's words are checked by the tests, not here)
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    try {
        tessera::BoardDesc d;
        if (data[0] & 1u) {
            const std::vector<uint8_t> image = image_with_board(data + 1, size - 1);
            const std::string json = tessera::embedded_board_json(image.data(), image.size());
            d = tessera::parse_board_desc(json, "the description embedded in the image");
        } else {
            d = tessera::parse_board_desc(std::string(reinterpret_cast<const char *>(data + 1), size - 1), "fuzz.json");
        }
        // What an accepted description promises: the schema's ranges, and JSON to embed
        // that reads back to the same board.
        if (d.cores < 1 || d.cores > 64 || !d.region_size[TSR_REGION_L2] || d.name.empty() || d.name.size() > 31)
            std::abort();
        const tessera::BoardDesc again = tessera::parse_board_desc(d.json, "again");
        if (again.fingerprint() != d.fingerprint() || again.json != d.json) std::abort();
    } catch (const tessera::BoardError &e) {
        if (!one_printable_line(e.what())) {
            std::fprintf(stderr, "fuzz finding: board message not one printable line: %s\n", e.what());
            std::abort();
        }
    }
    return 0;
}
