// The HAL conformance suite on the host emulation board, once per board description
// given, or for every board the boards directory holds (tessera-pack --list-boards), each
// with a thread per core, so every fork runs on all of them.
// usage: hal_conformance_host [BOARD...]   (names or .json files)
#include <cstdio>
#include <string>
#include <vector>

#include "tessera/hal_conformance.h"
#include "tessera/host_board.hpp"

int main(int argc, char **argv)
{
    std::vector<std::string> boards(argv + 1, argv + argc);
    if (boards.empty()) boards = tessera::known_board_names();
    uint32_t failed = 0;
    for (const std::string &name : boards) {
        try {
            const tessera::BoardDesc desc = tessera::load_board_desc(name);
            auto board = tessera::HostBoard::create(desc, desc.cores);
            std::printf("conformance of the host board emulating %s (%u cores):\n", desc.name.c_str(), desc.cores);
            const tsr_conformance_result r = tsr_hal_conformance(
                board->hal(), [](void *, const char *line) { std::printf("  %s\n", line); }, nullptr);
            std::printf("conformance: %u passed, %u failed, %u skipped\n", r.passed, r.failed, r.skipped);
            failed += r.failed;
        } catch (const std::exception &e) {
            std::fprintf(stderr, "hal_conformance_host: %s: %s\n", name.c_str(), e.what());
            return 1;
        }
    }
    return failed ? 1 : 0;
}
