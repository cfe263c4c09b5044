#include "tessera/tools/npz.h"

#include <zip.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "tessera/errors.h"
#include "tessera/json_input.h" // printable: the archive's text quoted on one line

namespace tessera {
namespace {

constexpr uint64_t kMaxElements = uint64_t(1) << 28;
constexpr uint64_t kMaxBytes = uint64_t(1) << 31;

struct Dtype {
    char kind; // 'i', 'u', 'f'
    uint32_t bytes;
};

Dtype parse_dtype(const std::string &d, const std::string &what)
{
    static const struct {
        const char *name;
        Dtype type;
    } kTypes[] = {{"|i1", {'i', 1}}, {"<i1", {'i', 1}}, {"|u1", {'u', 1}}, {"<u1", {'u', 1}}, {"<i2", {'i', 2}},
                  {"<i4", {'i', 4}}, {"<i8", {'i', 8}}, {"<f4", {'f', 4}}, {"<f8", {'f', 8}}};
    for (const auto &t : kTypes)
        if (d == t.name) return t.type;
    throw InputError(what + ": dtype '" + json_input::printable(d) + "' (little-endian int8/16/32/64, uint8, float32/64 only)");
}

// The value of `key` in the header's Python dict literal, up to its closing ',' or ')'.
std::string field(const std::string &header, const std::string &key, const std::string &what)
{
    const size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) throw InputError(what + ": the .npy header has no '" + key + "'");
    size_t colon = header.find(':', at);
    if (colon == std::string::npos) throw InputError(what + ": the .npy header's '" + key + "' has no value");
    size_t begin = header.find_first_not_of(' ', colon + 1);
    if (begin == std::string::npos) throw InputError(what + ": the .npy header is cut off");
    size_t end;
    if (header[begin] == '(') {
        end = header.find(')', begin);
        if (end == std::string::npos) throw InputError(what + ": the .npy header's shape is not closed");
        return header.substr(begin + 1, end - begin - 1);
    }
    if (header[begin] == '\'') {
        end = header.find('\'', begin + 1);
        if (end == std::string::npos) throw InputError(what + ": the .npy header's '" + key + "' is not closed");
        return header.substr(begin + 1, end - begin - 1);
    }
    end = header.find_first_of(",}", begin);
    if (end == std::string::npos) throw InputError(what + ": the .npy header is cut off");
    std::string v = header.substr(begin, end - begin);
    while (!v.empty() && v.back() == ' ') v.pop_back();
    return v;
}

} // namespace

NpyArray parse_npy(const std::string &bytes, const std::string &name, const std::string &what)
{
    static const char kMagic[] = "\x93NUMPY";
    if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) throw InputError(what + ": not a .npy array (bad magic)");
    const uint8_t major = uint8_t(bytes[6]);
    size_t header_len, at;
    if (major == 1) {
        header_len = uint8_t(bytes[8]) | size_t(uint8_t(bytes[9])) << 8;
        at = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) throw InputError(what + ": the .npy header is cut off");
        header_len = 0;
        for (int i = 0; i < 4; ++i) header_len |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
        at = 12;
    } else {
        throw InputError(what + ": .npy version " + std::to_string(major) + " (1 to 3)");
    }
    if (header_len > bytes.size() - at) throw InputError(what + ": the .npy header runs past the array's end");
    const std::string header = bytes.substr(at, header_len);
    NpyArray a;
    a.name = name;
    a.dtype = field(header, "descr", what);
    const Dtype dt = parse_dtype(a.dtype, what);
    const std::string order = field(header, "fortran_order", what);
    if (order != "True" && order != "False") throw InputError(what + ": fortran_order '" + json_input::printable(order) + "' is not True or False");
    const bool fortran = order == "True";
    std::stringstream dims(field(header, "shape", what));
    std::string item;
    uint64_t count = 1;
    while (std::getline(dims, item, ',')) {
        const size_t b = item.find_first_not_of(' ');
        if (b == std::string::npos) continue;
        item = item.substr(b);
        while (!item.empty() && (item.back() == ' ' || item.back() == 'L')) item.pop_back();
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 12)
            throw InputError(what + ": shape entry '" + json_input::printable(item) + "' is not a size");
        a.shape.push_back(std::stoull(item));
        count *= a.shape.back();
        if (count > kMaxElements) throw InputError(what + ": more than 2^28 elements");
    }
    const size_t data = at + header_len;
    if (bytes.size() - data != count * dt.bytes)
        throw InputError(what + ": " + std::to_string(bytes.size() - data) + " bytes of data, its shape and dtype need " +
                         std::to_string(count * dt.bytes));
    a.values.resize(count);
    // Element j of the stored order goes to its C-order place.
    std::vector<uint64_t> idx(a.shape.size(), 0);
    for (uint64_t j = 0; j < count; ++j) {
        const char *p = bytes.data() + data + j * dt.bytes;
        double v = 0;
        if (dt.kind == 'f') {
            if (dt.bytes == 4) {
                float f;
                std::memcpy(&f, p, 4);
                v = f;
            } else {
                std::memcpy(&v, p, 8);
            }
        } else if (dt.kind == 'u') {
            v = uint8_t(*p);
        } else {
            int64_t x = 0;
            std::memcpy(&x, p, dt.bytes);
            const int shift = 64 - 8 * int(dt.bytes); // sign-extend
            v = double(int64_t(uint64_t(x) << shift) >> shift);
        }
        uint64_t c = 0;
        if (fortran) {
            for (size_t d = 0; d < a.shape.size(); ++d) c = c * a.shape[d] + idx[d];
            for (size_t d = 0; d < a.shape.size(); ++d) // the first index runs fastest
                if (++idx[d] < a.shape[d]) break;
                else idx[d] = 0;
        } else {
            c = j;
        }
        a.values[c] = v;
    }
    return a;
}

namespace {

std::string npy_bytes(const NpyArray &a)
{
    const bool f = a.is_float();
    std::string shape;
    for (uint64_t d : a.shape) shape += std::to_string(d) + ", ";
    if (a.shape.size() > 1) shape.resize(shape.size() - 2);
    else if (a.shape.size() == 1) shape.pop_back();
    std::string header = std::string("{'descr': '") + (f ? "<f4" : "<i8") + "', 'fortran_order': False, 'shape': (" + shape + "), }";
    while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
    header.push_back('\n');
    std::string out("\x93NUMPY\x01\x00", 8);
    out.push_back(char(header.size() & 0xFF));
    out.push_back(char(header.size() >> 8));
    out += header;
    for (double v : a.values) {
        if (f) {
            const float x = float(v);
            out.append(reinterpret_cast<const char *>(&x), 4);
        } else {
            const int64_t x = int64_t(v);
            out.append(reinterpret_cast<const char *>(&x), 8);
        }
    }
    return out;
}

struct ZipCloser {
    void operator()(zip_t *z) const { zip_discard(z); }
};

} // namespace

uint64_t NpyArray::count() const
{
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    return n;
}

std::vector<NpyArray> parse_npz(const std::string &bytes, const std::string &what)
{
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t *src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
    if (!src) throw InputError(what + ": " + zip_error_strerror(&error));
    std::unique_ptr<zip_t, ZipCloser> z(zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &error));
    if (!z) {
        zip_source_free(src);
        const std::string msg = zip_error_strerror(&error);
        zip_error_fini(&error);
        throw InputError(what + ": not an .npz archive (" + msg + ")");
    }
    std::vector<NpyArray> out;
    const zip_int64_t n = zip_get_num_entries(z.get(), 0);
    for (zip_int64_t i = 0; i < n; ++i) {
        zip_stat_t st;
        if (zip_stat_index(z.get(), zip_uint64_t(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME) || !(st.valid & ZIP_STAT_SIZE))
            throw InputError(what + ": entry " + std::to_string(i) + " cannot be read");
        const std::string name = st.name;
        const std::string where = what + ": " + json_input::printable(name);
        if (name.size() < 5 || name.compare(name.size() - 4, 4, ".npy") != 0) throw InputError(where + ": not a .npy entry");
        if (st.size > kMaxBytes) throw InputError(where + ": larger than 2 GiB");
        std::unique_ptr<zip_file_t, int (*)(zip_file_t *)> f(zip_fopen_index(z.get(), zip_uint64_t(i), 0), zip_fclose);
        if (!f) throw InputError(where + ": cannot be opened (" + zip_strerror(z.get()) + ")");
        std::string data(st.size, '\0');
        if (zip_fread(f.get(), data.data(), st.size) != zip_int64_t(st.size)) throw InputError(where + ": truncated or corrupt");
        out.push_back(parse_npy(data, name.substr(0, name.size() - 4), where));
    }
    return out;
}

std::vector<NpyArray> read_npz(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open");
    std::stringstream s;
    s << in.rdbuf();
    return parse_npz(s.str(), path);
}

const NpyArray &npz_array(const std::vector<NpyArray> &arrays, const std::string &name, const std::string &what)
{
    for (const NpyArray &a : arrays)
        if (a.name == name) return a;
    throw InputError(what + ": has no array '" + json_input::printable(name) + "'");
}

std::string write_npz(const std::vector<NpyArray> &arrays)
{
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t *buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
    if (!buffer) throw std::runtime_error(std::string("npz: ") + zip_error_strerror(&error));
    zip_source_keep(buffer); // read back after the archive closes
    zip_t *z = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
    if (!z) {
        zip_source_free(buffer);
        throw std::runtime_error(std::string("npz: ") + zip_error_strerror(&error));
    }
    std::vector<std::string> contents; // alive until the archive is written
    contents.reserve(arrays.size());
    for (const NpyArray &a : arrays) {
        contents.push_back(npy_bytes(a));
        zip_source_t *s = zip_source_buffer(z, contents.back().data(), contents.back().size(), 0);
        const zip_int64_t at = s ? zip_file_add(z, (a.name + ".npy").c_str(), s, ZIP_FL_ENC_UTF_8) : -1;
        if (at < 0 || zip_set_file_compression(z, zip_uint64_t(at), ZIP_CM_STORE, 0) != 0) {
            if (s && at < 0) zip_source_free(s);
            const std::string msg = zip_strerror(z);
            zip_discard(z);
            zip_source_free(buffer);
            throw std::runtime_error("npz: " + msg);
        }
    }
    if (zip_close(z) != 0) {
        const std::string msg = zip_strerror(z);
        zip_discard(z);
        zip_source_free(buffer);
        throw std::runtime_error("npz: " + msg);
    }
    std::string out;
    zip_stat_t st;
    if (zip_source_stat(buffer, &st) == 0 && zip_source_open(buffer) == 0) {
        out.resize(st.size);
        const zip_int64_t got = zip_source_read(buffer, out.data(), st.size);
        zip_source_close(buffer);
        if (got != zip_int64_t(st.size)) out.clear();
    }
    zip_source_free(buffer);
    if (out.empty()) throw std::runtime_error("npz: the archive could not be read back");
    return out;
}

} // namespace tessera
