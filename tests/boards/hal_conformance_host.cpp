// The HAL conformance suite on the host emulation board, once per board description
// given (each with a thread per core, so every fork runs on all of them).
// usage: hal_conformance_host BOARD...   (names or .json files)
#include <cstdio>

#include "tessera/hal_conformance.h"
#include "tessera/host_board.hpp"

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: hal_conformance_host BOARD...\n");
        return 2;
    }
    uint32_t failed = 0;
    for (int i = 1; i < argc; ++i) {
        try {
            const tessera::BoardDesc desc = tessera::load_board_desc(argv[i]);
            auto board = tessera::HostBoard::create(desc, desc.cores);
            std::printf("conformance of the host board emulating %s (%u cores):\n", desc.name.c_str(), desc.cores);
            const tsr_conformance_result r = tsr_hal_conformance(
                board->hal(), [](void *, const char *line) { std::printf("  %s\n", line); }, nullptr);
            std::printf("conformance: %u passed, %u failed, %u skipped\n", r.passed, r.failed, r.skipped);
            failed += r.failed;
        } catch (const std::exception &e) {
            std::fprintf(stderr, "hal_conformance_host: %s: %s\n", argv[i], e.what());
            return 1;
        }
    }
    return failed ? 1 : 0;
}
