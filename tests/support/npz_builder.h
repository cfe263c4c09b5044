// .npy and .npz bytes built by hand for tests and fuzzers: any header text, any data,
// stored or deflated, with correct CRCs (libzip).
#ifndef TESSERA_TEST_NPZ_BUILDER_H
#define TESSERA_TEST_NPZ_BUILDER_H

#include <string>
#include <utility>
#include <vector>

namespace tessera::test {

// A version-1 .npy: `dict` (its header's Python dict, as written) padded to a multiple
// of 64, then `data` as it is.
std::string npy_bytes(const std::string &dict, const std::string &data);

// A zip of (name, bytes) entries, each stored or deflated; an entry whose name is
// already taken is left out. "" if libzip fails.
std::string zip_of(const std::vector<std::pair<std::string, std::string>> &entries, bool deflate);

} // namespace tessera::test

#endif
