// The host emulation board, C++ interface.
#ifndef TESSERA_HOST_BOARD_HPP
#define TESSERA_HOST_BOARD_HPP

#include <memory>

#include "tessera/board_desc.h"
#include "tessera/hal.h"

namespace tessera {

class HostBoard {
public:
    // threads: 1..desc.cores; 0 = min(desc.cores, hardware threads). Throws BoardError.
    static std::unique_ptr<HostBoard> create(const BoardDesc &desc, uint32_t threads = 0);
    ~HostBoard();
    HostBoard(const HostBoard &) = delete;
    HostBoard &operator=(const HostBoard &) = delete;

    const tsr_hal_board *hal() const;
    const BoardDesc &desc() const;

    struct Impl;

private:
    explicit HostBoard(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace tessera

#endif
