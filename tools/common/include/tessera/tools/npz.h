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
    std::vector<double> values;   // C order; integers exact (|v| <= 2^53)
    uint64_t count() const;
    bool is_float() const { return dtype.size() == 3 && dtype[1] == 'f'; }
};

// Throws InputError naming the file and the array: not a zip, an entry that is not a
// .npy, a malformed header, a dtype other than little-endian int8/16/32/64, uint8,
// float32/64, data shorter or longer than its shape, more than 2^28 elements.
std::vector<NpyArray> read_npz(const std::string &path);
std::vector<NpyArray> parse_npz(const std::string &bytes, const std::string &what);
// One .npy array's bytes (the same checks).
NpyArray parse_npy(const std::string &bytes, const std::string &name, const std::string &what);
// The array named `name`, or throws InputError.
const NpyArray &npz_array(const std::vector<NpyArray> &arrays, const std::string &name, const std::string &what);

// An uncompressed archive, as numpy.savez writes one, each array in C order as dtype
// "<i8" (integers) or "<f4" (float arrays). The bytes of the file.
std::string write_npz(const std::vector<NpyArray> &arrays);

} // namespace tessera

#endif
