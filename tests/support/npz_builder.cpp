#include "support/npz_builder.h"

#include <zip.h>

namespace tessera::test {

std::string npy_bytes(const std::string &dict, const std::string &data)
{
    std::string h = dict;
    while ((10 + h.size() + 1) % 64 != 0) h.push_back(' ');
    h.push_back('\n');
    std::string out("\x93NUMPY\x01\x00", 8);
    out.push_back(char(h.size() & 0xFF));
    out.push_back(char(h.size() >> 8));
    return out + h + data;
}

std::string zip_of(const std::vector<std::pair<std::string, std::string>> &entries, bool deflate)
{
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t *buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
    if (!buffer) return "";
    zip_source_keep(buffer);
    zip_t *z = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
    if (!z) {
        zip_source_free(buffer);
        return "";
    }
    for (const auto &[name, bytes] : entries) {
        zip_source_t *s = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
        const zip_int64_t at = s ? zip_file_add(z, name.c_str(), s, 0) : -1;
        if (at < 0) {
            if (s) zip_source_free(s);
            continue;
        }
        zip_set_file_compression(z, zip_uint64_t(at), deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 1);
    }
    std::string out;
    if (zip_close(z) == 0) {
        zip_stat_t st;
        if (zip_source_stat(buffer, &st) == 0 && zip_source_open(buffer) == 0) {
            out.resize(st.size);
            if (zip_source_read(buffer, out.data(), st.size) != zip_int64_t(st.size)) out.clear();
            zip_source_close(buffer);
        }
    } else {
        zip_discard(z);
    }
    zip_source_free(buffer);
    return out;
}

} // namespace tessera::test
