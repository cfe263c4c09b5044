#include "tessera/tools/npz.h"

#include <zip.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "tessera/crc32.h"
#include "tessera/errors.h"
#include "tessera/json_input.h" // printable: the archive's text quoted on one line

namespace tessera {
namespace {

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

namespace {

// A .npy array's header: its type, order and shape, checked against `limits`; where its
// data begins and how many bytes it has.
struct NpyHeader {
    std::string dtype;
    Dtype type{};
    bool fortran = false;
    std::vector<uint64_t> shape;
    uint64_t count = 1;
    size_t data = 0; // offset of the data
    uint64_t data_bytes() const { return count * type.bytes; }
};

// `bytes`: the array's first bytes (at least its header).
NpyHeader parse_npy_header(const std::string &bytes, const std::string &what, const NpzLimits &limits)
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
    NpyHeader h;
    h.dtype = field(header, "descr", what);
    h.type = parse_dtype(h.dtype, what);
    const std::string order = field(header, "fortran_order", what);
    if (order != "True" && order != "False") throw InputError(what + ": fortran_order '" + json_input::printable(order) + "' is not True or False");
    h.fortran = order == "True";
    std::stringstream dims(field(header, "shape", what));
    std::string item;
    while (std::getline(dims, item, ',')) {
        const size_t b = item.find_first_not_of(' ');
        if (b == std::string::npos) continue;
        item = item.substr(b);
        while (!item.empty() && (item.back() == ' ' || item.back() == 'L')) item.pop_back();
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 12)
            throw InputError(what + ": shape entry '" + json_input::printable(item) + "' is not a size");
        h.shape.push_back(std::stoull(item));
        if (h.shape.size() > 16) throw InputError(what + ": more than 16 dimensions");
        h.count *= h.shape.back(); // each entry below 10^12 and the product below the limit: no overflow
        if (h.count > limits.max_elements)
            throw InputError(what + ": " + (h.count > (uint64_t(1) << 40) ? std::string("over 2^40") : std::to_string(h.count)) +
                             " elements, more than the " + std::to_string(limits.max_elements) + " an array may have here");
    }
    h.data = at + header_len;
    return h;
}

} // namespace

NpyArray parse_npy(const std::string &bytes, const std::string &name, const std::string &what, const NpzLimits &limits)
{
    const NpyHeader h = parse_npy_header(bytes, what, limits);
    if (bytes.size() - h.data != h.data_bytes())
        throw InputError(what + ": " + std::to_string(bytes.size() - h.data) + " bytes of data, its shape and dtype need " +
                         std::to_string(h.data_bytes()));
    NpyArray a;
    a.name = name;
    a.dtype = h.dtype;
    a.shape = h.shape;
    const uint32_t size = h.type.bytes;
    if (!h.fortran) {
        a.raw = bytes.substr(h.data);
        return a;
    }
    // Element j of the stored (Fortran) order goes to its C-order place.
    a.raw.resize(bytes.size() - h.data);
    std::vector<uint64_t> idx(a.shape.size(), 0);
    for (uint64_t j = 0; j < h.count; ++j) {
        uint64_t c = 0;
        for (size_t d = 0; d < a.shape.size(); ++d) c = c * a.shape[d] + idx[d];
        for (size_t d = 0; d < a.shape.size(); ++d) // the first index runs fastest
            if (++idx[d] < a.shape[d]) break;
            else idx[d] = 0;
        std::memcpy(&a.raw[c * size], bytes.data() + h.data + j * size, size);
    }
    return a;
}

double NpyArray::value(uint64_t i) const
{
    if (raw.empty()) return values[i];
    const char kind = dtype.size() == 3 ? dtype[1] : '?';
    const uint32_t size = uint32_t(dtype.size() == 3 ? dtype[2] - '0' : 0);
    const char *p = raw.data() + i * size;
    if (kind == 'f') {
        if (size == 4) {
            float f;
            std::memcpy(&f, p, 4);
            return f;
        }
        double d;
        std::memcpy(&d, p, 8);
        return d;
    }
    if (kind == 'u') return uint8_t(*p);
    int64_t x = 0;
    std::memcpy(&x, p, size);
    const int shift = 64 - 8 * int(size); // sign-extend
    return double(int64_t(uint64_t(x) << shift) >> shift);
}

std::vector<double> NpyArray::decoded() const
{
    std::vector<double> out(count());
    for (uint64_t i = 0; i < out.size(); ++i) out[i] = value(i);
    return out;
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
    for (uint64_t i = 0; i < a.count(); ++i) {
        const double v = a.value(i);
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

namespace {

// libzip's reason, in our words where we know them.
std::string zip_reason(int code, const std::string &library_text)
{
    switch (code) {
    case ZIP_ER_NOZIP: return "not a zip archive";
    case ZIP_ER_INCONS: return "its zip directory disagrees with its entries";
    case ZIP_ER_EXISTS: return "two entries have the same name";
    case ZIP_ER_CRC: return "an entry's CRC-32 does not match its data";
    case ZIP_ER_COMPNOTSUPP: return "an entry is compressed with a method other than stored or deflate";
    case ZIP_ER_ENCRNOTSUPP: case ZIP_ER_NOPASSWD: return "an entry is encrypted";
    default: return "the zip library says: " + library_text;
    }
}

constexpr uint64_t kDeflateMaxRatio = 1032; // deflate's best: 258 bytes from 2 bits

} // namespace

std::vector<NpyArray> parse_npz(const std::string &bytes, const std::string &what, const NpzLimits &limits)
{
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t *src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
    if (!src) throw InputError(what + ": cannot be read as an archive (" + zip_reason(zip_error_code_zip(&error), zip_error_strerror(&error)) + ")");
    std::unique_ptr<zip_t, ZipCloser> z(zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &error));
    if (!z) {
        zip_source_free(src);
        const std::string msg = zip_reason(zip_error_code_zip(&error), zip_error_strerror(&error));
        zip_error_fini(&error);
        throw InputError(what + ": not an .npz archive (" + msg + ")");
    }
    std::vector<NpyArray> out;
    const zip_int64_t n = zip_get_num_entries(z.get(), 0);
    if (n < 0 || uint64_t(n) > limits.max_arrays)
        throw InputError(what + ": " + std::to_string(n) + " entries, more than the " + std::to_string(limits.max_arrays) +
                         " arrays it may hold here");
    std::set<std::string> names;
    uint64_t total = 0;
    for (zip_int64_t i = 0; i < n; ++i) {
        zip_stat_t st;
        if (zip_stat_index(z.get(), zip_uint64_t(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME) || !(st.valid & ZIP_STAT_SIZE) ||
            !(st.valid & ZIP_STAT_COMP_SIZE))
            throw InputError(what + ": entry " + std::to_string(i) + " cannot be read");
        const std::string name = st.name;
        const std::string where = what + ": " + json_input::printable(name);
        if (name.size() < 5 || name.compare(name.size() - 4, 4, ".npy") != 0) throw InputError(where + ": not a .npy entry");
        if (!names.insert(name).second) throw InputError(where + ": a second entry of that name");
        // What it claims must be what its compressed bytes, within the archive, can give.
        const uint64_t can_give = st.comp_size * kDeflateMaxRatio + 64;
        if (st.comp_size > bytes.size() || st.size > can_give)
            throw InputError(where + ": claims " + std::to_string(st.size) + " bytes from " + std::to_string(st.comp_size) +
                             " compressed ones in a " + std::to_string(bytes.size()) + "-byte archive");
        std::unique_ptr<zip_file_t, int (*)(zip_file_t *)> f(zip_fopen_index(z.get(), zip_uint64_t(i), 0), zip_fclose);
        if (!f) throw InputError(where + ": cannot be opened (" + zip_reason(zip_error_code_zip(zip_get_error(z.get())), zip_strerror(z.get())) + ")");
        // The header first: the shape and type are checked before the data is allocated.
        std::string data(size_t(std::min<uint64_t>(st.size, 4096)), '\0');
        if (zip_fread(f.get(), data.data(), data.size()) != zip_int64_t(data.size())) throw InputError(where + ": truncated or corrupt");
        const NpyHeader h = parse_npy_header(data, where, limits);
        if (st.size != h.data + h.data_bytes())
            throw InputError(where + ": the entry is " + std::to_string(st.size) + " bytes; its header and shape make " +
                             std::to_string(h.data + h.data_bytes()));
        total += h.data_bytes();
        if (total > limits.max_bytes)
            throw InputError(where + ": the arrays so far hold " + std::to_string(total) + " bytes, more than the " +
                             std::to_string(limits.max_bytes) + " they may have here");
        const size_t have = data.size();
        data.resize(st.size);
        if (st.size > have && zip_fread(f.get(), data.data() + have, st.size - have) != zip_int64_t(st.size - have))
            throw InputError(where + ": truncated or corrupt");
        if ((st.valid & ZIP_STAT_CRC) && tsr_crc32(0, data.data(), data.size()) != st.crc)
            throw InputError(where + ": its CRC-32 does not match its data (a corrupt archive)");
        out.push_back(parse_npy(data, name.substr(0, name.size() - 4), where, limits));
    }
    return out;
}

std::vector<NpyArray> read_npz(const std::string &path, const NpzLimits &limits)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open");
    std::stringstream s;
    s << in.rdbuf();
    if (in.bad()) throw InputError(path + ": cannot read");
    return parse_npz(s.str(), path, limits);
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
