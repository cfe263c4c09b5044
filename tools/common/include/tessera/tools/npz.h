// NumPy's .npz archives (a zip of .npy arrays) as the test-vector runner reads and
// writes them: the container through libzip, each array's header (dtype, shape,
// fortran_order) checked, its values given in C order whatever order it was stored in.
#ifndef TESSERA_TOOLS_NPZ_H
#define TESSERA_TOOLS_NPZ_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

struct NpyArray {
    std::string name;             // without ".npy"
    std::string dtype;            // as numpy writes it: "<i8", "<f4", "|i1", ...
    std::vector<uint64_t> shape;
    std::vector<double> values;   // an array made here (write_npz): C order
    std::string raw;              // an array read: its elements in their own type, C order (values empty)
    uint64_t count() const;
    double value(uint64_t i) const; // element i in C order, from either (integers exact up to 2^53)
    std::vector<double> decoded() const;
    bool is_float() const { return dtype.size() == 3 && dtype[1] == 'f'; }
};

// What an archive may hold, checked from its headers before anything is inflated or
// allocated: a caller that knows what it needs (tessera-eval: its image's shapes) says so.
struct NpzLimits {
    uint64_t max_arrays = 1024;
    uint64_t max_elements = uint64_t(1) << 28; // per array
    uint64_t max_bytes = uint64_t(1) << 31;    // all arrays' elements together
};

// Throws InputError naming the file and the array: not a zip, two entries of one name, an
// entry that is not a .npy, a malformed header, a dtype other than little-endian
// int8/16/32/64, uint8, float32/64, a shape over the limits, data shorter or longer than
// its shape, an entry whose sizes or CRC-32 disagree with its data. An entry's data is
// allocated only after its header has been read and its size checked against the
// archive's own size (deflate inflates at most 1032 times).
std::vector<NpyArray> read_npz(const std::string &path, const NpzLimits &limits = {});
std::vector<NpyArray> parse_npz(const std::string &bytes, const std::string &what, const NpzLimits &limits = {});
// One .npy array's bytes (the same checks).
NpyArray parse_npy(const std::string &bytes, const std::string &name, const std::string &what,
                   const NpzLimits &limits = {});
// The array named `name`, or throws InputError.
const NpyArray &npz_array(const std::vector<NpyArray> &arrays, const std::string &name, const std::string &what);

// An uncompressed archive, as numpy.savez writes one, each array in C order as dtype
// "<i8" (integers) or "<f4" (float arrays). The bytes of the file.
std::string write_npz(const std::vector<NpyArray> &arrays);

} // namespace tessera

#endif
