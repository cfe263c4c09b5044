// Packs a checkpoint with the real packer and loads the image into aligned memory.
#ifndef TESSERA_TESTS_PACKED_IMAGE_H
#define TESSERA_TESTS_PACKED_IMAGE_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/host_board.hpp"
#include "tessera/pack/packer.h"
#include "tessera/tessera.h"

namespace tessera::test {

// Image bytes at a 64-byte aligned address, as flash would hold them; copyable.
struct AlignedImage {
    struct alignas(64) Block {
        uint8_t bytes[64];
    };
    std::vector<Block> blocks;
    size_t size = 0;
    void resize(size_t n)
    {
        blocks.assign(n / 64 + 1, Block{});
        size = n;
    }
    uint8_t *data() { return reinterpret_cast<uint8_t *>(blocks.data()); }
};

AlignedImage load_image(const std::string &path);
AlignedImage pack_image(const PackOptions &options);

// stories260K (shared/models) packed in int8 for `board` in `scenario`, into `output`.
PackOptions stories260k_int8(const std::string &shared, const std::string &board, const std::string &scenario,
                             const std::string &output);

// An image plus a host board and an open session on it.
struct OpenModel {
    AlignedImage image;
    std::unique_ptr<HostBoard> board;
    tessera_session session;
    tessera_status status = TESSERA_ERR_NOT_OPEN;
};
// The board shares every step among its threads (solo_bytes 0) unless told otherwise,
// so that multi-threaded tests run the multi-core paths of every step.
std::unique_ptr<OpenModel> open_model(const PackOptions &options, uint32_t threads = 0, const std::string &board = "",
                                      uint32_t solo_bytes = 0);

// An image opened on a host board named `board` (as open_model).
std::unique_ptr<OpenModel> open_image(AlignedImage image, const std::string &board, uint32_t threads = 0,
                                      uint32_t solo_bytes = 0);

// Makes every checksum of an edited image consistent again: the image is then hostile,
// not corrupt.
void resign(AlignedImage &img);

// Greedy generation as run.c does it: the prompt (BOS first) through prompt mode,
// then one step per token until `steps` positions. Returns the tokens after BOS.
std::vector<int32_t> generate_greedy(OpenModel &m, const std::vector<int32_t> &prompt, uint32_t steps);

} // namespace tessera::test

#endif
