// The kernel conformance program (kernel_conformance.c) on the host: what it needs of
// boards/common/demo/demo_board.h, from the host board (the "host" description, one
// thread; its kernel set where this machine runs it). Its counter: nanoseconds.
#include <cstdio>
#include <cstdlib>

extern "C" {
#include "demo_board.h"
}
#include "tessera/host_board.h"

extern "C" const tsr_hal_board *tsr_demo_board(void)
{
    static tessera_host_board *board = [] {
        tessera_host_board *b = nullptr;
        char error[256];
        if (tessera_host_board_create("host", 1, &b, error, sizeof error) != 0) {
            std::fprintf(stderr, "kernel conformance: %s\n", error);
            std::exit(2);
        }
        return b;
    }();
    return tessera_host_board_hal(board);
}
extern "C" void tsr_demo_puts(const char *text) { std::fputs(text, stdout); }
extern "C" void tsr_demo_put_u64(uint64_t value) { std::printf("%llu", static_cast<unsigned long long>(value)); }
extern "C" uint64_t tsr_demo_div_u64(uint64_t n, uint64_t d) { return d ? n / d : 0; }
extern "C" const char *tsr_demo_cycles_meaning(void) { return "nanoseconds (the host board's steady clock)"; }
