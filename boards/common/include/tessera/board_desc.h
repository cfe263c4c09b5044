// Board descriptions (boards/<name>/board.json): what the packer plans for and
// what the host board emulates. Host-side C++.
#ifndef TESSERA_BOARD_DESC_H
#define TESSERA_BOARD_DESC_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/hal.h"

namespace tessera {

struct BoardDesc {
    std::string name;
    std::string description;
    std::string source; // the file it was read from
    uint32_t cores = 0;
    uint32_t region_size[TSR_REGION_COUNT] = {}; // [TSR_REGION_IMAGE] unused
    bool has_npu = false;
    uint32_t dma_queue_depth = 16;
    uint32_t npu_queue_depth = 4;

    uint32_t fingerprint() const { return tsr_board_fingerprint(name.c_str(), cores, region_size, has_npu); }
};

struct BoardError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Parses a description; `source` names it in error messages.
BoardDesc parse_board_desc(const std::string &json_text, const std::string &source);

// NAME (looked up in the board directories) or a path to a .json file.
BoardDesc load_board_desc(const std::string &name_or_path);

// Where board names are looked up: $TESSERA_BOARDS_DIR, then the installed and
// source-tree boards/ folders.
std::vector<std::string> board_search_dirs();
std::vector<std::string> known_board_names();

} // namespace tessera

#endif
