#include "image_target.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "tessera/crc32.h"
#include "tessera/host_board.hpp"
#include "tessera/tessera.h"

namespace tessera::fuzz {

namespace {

[[noreturn]] void finding(const char *what, const char *detail)
{
    std::fprintf(stderr, "fuzz finding: %s: %s\n", what, detail);
    std::abort();
}

// A refusal is a status with a one-line message.
void check_refusal(tessera_status st, const char *message)
{
    if (message == nullptr || message[0] == '\0') finding("a failure without a message", tessera_status_string(st));
    if (std::strchr(message, '\n')) finding("a message of more than one line", message);
}

// One board per thread count, made once; every kernel operand is checked to lie in L1.
const tsr_hal_board *board(uint32_t threads)
{
    static std::unique_ptr<HostBoard> boards[2];
    auto &b = boards[threads - 1u];
    if (!b) {
        b = HostBoard::create(load_board_desc(TESSERA_FUZZ_BOARD), threads);
        b->check_l1(true);
    }
    return b->hal();
}

// The image exactly as long as the input, 64-byte aligned, so the sanitizer sees a
// read one byte past its end.
struct ImageCopy {
    uint8_t *bytes;
    explicit ImageCopy(const uint8_t *data, size_t size)
        : bytes(static_cast<uint8_t *>(::operator new(size ? size : 1, std::align_val_t(64))))
    {
        if (size) std::memcpy(bytes, data, size);
    }
    ~ImageCopy() { ::operator delete(bytes, std::align_val_t(64)); }
};

void drive(tessera_session &s)
{
    tessera_image_summary summary;
    if (tessera_image_summary_of(&s, &summary) != TESSERA_OK) finding("summary of an open session", "");
    // A prompt that merges on the seeds' vocabularies; 6 rows reach the 4-row blocks.
    int32_t ids[64];
    uint32_t n = 0;
    tessera_status st = tessera_encode(&s, "the hello, Lily", true, false, ids, 64, &n);
    if (st != TESSERA_OK) {
        check_refusal(st, tessera_last_error(&s));
        ids[0] = int32_t(summary.vocab_size > 1 ? 1 : 0);
        n = 1;
    }
    st = tessera_prompt(&s, ids, n < 6u ? n : 6u);
    if (st != TESSERA_OK) return check_refusal(st, tessera_last_error(&s));
    const float *logits = nullptr;
    uint32_t rows = 0;
    if (tessera_logits(&s, 0, &logits, &rows) != TESSERA_OK || rows == 0) finding("no logits after a prompt", "");
    if (tessera_logits(&s, rows, &logits, nullptr) != TESSERA_ERR_NO_LOGITS) finding("logits of a row past the run", "");
    tessera_sampler greedy, nucleus, full;
    tessera_sampler_init(&greedy, 0.0f, 0.0f, 1);
    tessera_sampler_init(&nucleus, 0.9f, 0.9f, 7);
    tessera_sampler_init(&full, 1.0f, 1.0f, 9);
    tessera_sampler *samplers[] = {&greedy, &nucleus, &full};
    int32_t prev = ids[0], token = 0;
    for (tessera_sampler *sampler : samplers) {
        st = tessera_sample(&s, sampler, &token);
        if (st != TESSERA_OK) return check_refusal(st, tessera_last_error(&s));
        uint32_t len = 0;
        if (tessera_decode(&s, prev, token, &len) == nullptr) finding("sampled an id decode refuses", "");
        st = tessera_step(&s, token);
        if (st != TESSERA_OK) return check_refusal(st, tessera_last_error(&s));
        prev = token;
    }
    tessera_stats stats;
    if (tessera_get_stats(&s, &stats) != TESSERA_OK || stats.position != tessera_position(&s)) finding("stats", "");
    // Again from the start, one token at a time.
    tessera_reset(&s);
    st = tessera_step(&s, ids[0]);
    if (st != TESSERA_OK) return check_refusal(st, tessera_last_error(&s));
}

} // namespace

void run_image(const uint8_t *data, size_t size)
{
    const ImageCopy image(data, size);
    char error[192];
    tessera_image_summary summary;
    const tessera_status peeked = tessera_image_peek(image.bytes, size, &summary, error, sizeof error);
    if (peeked != TESSERA_OK) check_refusal(peeked, error);
    // Which of two boards (1 or 2 threads) follows from the input, so a run repeats.
    const tsr_hal_board *b = board(1u + (tsr_crc32(0, data, size < 256 ? size : 256) & 1u));
    // Nothing carries over from the previous input through the bytes its plan uses.
    for (uint32_t r = TSR_REGION_L1; peeked == TESSERA_OK && r < TSR_REGION_COUNT; ++r)
        if (b->regions[r].base)
            std::memset(b->regions[r].base, 0, std::min(summary.region_bytes[r], b->regions[r].size));
    tessera_session s;
    const tessera_status st = tessera_open(&s, image.bytes, size, b);
    if (st != TESSERA_OK) return check_refusal(st, tessera_last_error(&s));
    if (peeked != TESSERA_OK) finding("opened an image peek refused", error);
    drive(s);
    tessera_close(&s);
}

} // namespace tessera::fuzz
