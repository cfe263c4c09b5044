// Fuzzer (h): the .npz test-vector reader, structure-aware. Its mutator opens the input
// as a zip, picks an entry and edits the .npy inside it: its header's shape, dtype and
// order (with values that overflow: 2^28 + 1, 2^40, 10^12, ...), or its bytes through
// libFuzzer's own mutator; or it adds, removes, duplicates or renames entries; and it
// writes the archive again, stored or deflated, every CRC correct so the edits reach
// the .npy parser. One mutation in four is libFuzzer's own on the container's bytes (a
// wrong CRC, sizes that lie). The body reads the archive within the limits tessera-eval
// sets for a microLlama-shaped image, then checks it as that image's inputs. A bad input
// must end in InputError with a one-line message; anything else is a finding.
#include <zip.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "structured_mutation.h"
#include "support/npz_builder.h"
#include "tessera/errors.h"
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

using Entries = std::vector<std::pair<std::string, std::string>>;

// The entries of a zip, read whole without any of the reader's checks (or false).
bool entries_of(const uint8_t *data, size_t size, Entries &out)
{
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t *src = zip_source_buffer_create(data, size, 0, &error);
    if (!src) return false;
    zip_t *z = zip_open_from_source(src, ZIP_RDONLY, &error);
    if (!z) {
        zip_source_free(src);
        return false;
    }
    const zip_int64_t n = zip_get_num_entries(z, 0);
    bool ok = n >= 0 && n < 64;
    for (zip_int64_t i = 0; ok && i < n; ++i) {
        zip_stat_t st;
        if (zip_stat_index(z, zip_uint64_t(i), 0, &st) != 0 || st.size > (4u << 20)) {
            ok = false;
            break;
        }
        zip_file_t *f = zip_fopen_index(z, zip_uint64_t(i), 0);
        std::string bytes(st.size, '\0');
        ok = f && zip_fread(f, bytes.data(), st.size) == zip_int64_t(st.size);
        if (f) zip_fclose(f);
        out.emplace_back(st.name, std::move(bytes));
    }
    zip_discard(z);
    return ok;
}

// Edits the header dictionary of a .npy (its first line), keeping its data.
void mutate_header(std::string &entry, std::mt19937_64 &rng)
{
    static const char *const kDtypes[] = {"|i1", "<i2", "<i4", "<i8", "<f4", "<f8", "|u1", ">i4", "<c8", "|b1", "", "<i1"};
    static const char *const kSizes[] = {"0", "1", "2", "16", "64", "256", "268435457", "1099511627776", "999999999999",
                                         "4294967296", "18446744073709551615", "-1", "1L", " ", "x"};
    const size_t newline = entry.find('\n');
    const std::string data = newline == std::string::npos ? std::string() : entry.substr(newline + 1);
    std::string shape;
    const int dims = int(rng() % 5);
    for (int i = 0; i < dims; ++i) shape += std::string(kSizes[rng() % (rng() % 3 ? 6 : sizeof kSizes / sizeof *kSizes)]) + ", ";
    const std::string dict = "{'descr': '" + std::string(kDtypes[rng() % (sizeof kDtypes / sizeof *kDtypes)]) +
                             "', 'fortran_order': " + (rng() % 2 ? "False" : rng() % 2 ? "True" : "maybe") + ", 'shape': (" +
                             shape + "), }";
    entry = tessera::test::npy_bytes(dict, data);
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    std::mt19937_64 rng(seed);
    Entries entries;
    if (rng() % 4 == 0 || !entries_of(data, size, entries) || entries.empty()) return LLVMFuzzerMutate(data, size, max_size);
    auto &[name, bytes] = entries[rng() % entries.size()];
    switch (rng() % 6) {
    case 0:
    case 1: mutate_header(bytes, rng); break;
    case 2: { // its bytes, by libFuzzer's mutator
        std::string b = bytes;
        b.resize(b.size() + 64);
        b.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t *>(b.data()), bytes.size(), b.size()));
        bytes = b;
        break;
    }
    case 3: { // an entry duplicated, or renamed onto another's name
        Entries::value_type copy = entries[rng() % entries.size()];
        if (rng() % 2) copy.first += rng() % 2 ? "" : ".npy";
        entries.push_back(copy);
        break;
    }
    case 4:
        if (entries.size() > 1) entries.erase(entries.begin() + long(rng() % entries.size()));
        break;
    default: name = rng() % 2 ? name.substr(0, name.size() / 2) : "k_" + std::to_string(rng() % 20) + ".npy"; break;
    }
    // Deflate costs time: one archive in eight is deflated.
    return tessera::fuzz::write_mutation(data, size, max_size, tessera::test::zip_of(entries, rng() % 8 == 0));
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    try {
        // tessera-eval's limits for a microLlama-shaped int8 image (dim 64, 8 layers, 16
        // heads, context 256, prompt chunk 64).
        tessera::NpzLimits limits;
        limits.max_arrays = 2 * 8 + 8;
        limits.max_elements = 256 * 64;
        limits.max_bytes = 8 * limits.max_elements * limits.max_arrays;
        const std::vector<tessera::NpyArray> arrays = tessera::parse_npz(bytes, "fuzz.npz", limits);
        for (const tessera::NpyArray &a : arrays) {
            if (a.raw.size() != a.count() * (a.dtype.size() == 3 ? uint64_t(a.dtype[2] - '0') : 0)) std::abort();
            for (uint64_t i = 0; i < a.count(); i += 97) (void)a.value(i);
        }
        tessera_image_summary image{};
        image.dim = 64, image.hidden_dim = 256, image.n_layers = 8, image.n_heads = image.n_kv_heads = 16;
        image.context = 256, image.prompt_chunk = 64, image.precision = 4; // int8, decoder-only (vocab 0)
        const tessera::VectorInputs in = tessera::read_vector_inputs(image, arrays, "fuzz.npz");
        if (in.rows_in.size() != size_t(in.rows) * 64 || in.past_rows.size() != 16) std::abort();
    } catch (const tessera::InputError &e) {
        check_message(e.what());
    }
    return 0;
}
