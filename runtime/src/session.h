// The state behind a tessera_session (which is only storage for this).
#ifndef TESSERA_SESSION_H
#define TESSERA_SESSION_H

#include "executor.h"

namespace tsr {

enum class LastRun : uint32_t { kNone = 0, kPrompt = 1, kToken = 2 };

struct Session {
    uint32_t open_marker; // kOpenMarker while open
    const tsr_hal_board *board;
    ImageView image;
    uint32_t position;     // tokens in the KV cache
    LastRun last_run;      // which schedule's logits are current
    uint32_t last_rows;    // rows those logits have
    uint64_t prompt_tokens, prompt_cycles, step_tokens, step_cycles, runs;
    RunCounters counters;
    tessera_step_profile *profile; // optional: prompt steps, then token steps
    char error[192];
    char merge_buffer[2 * TSR_MAX_TOKEN_BYTES + 4]; // two pieces joined, NUL, as run.c sizes it
};

constexpr uint32_t kOpenMarker = 0x7E55E2A5u;

inline Session *session_of(tessera_session *s) { return reinterpret_cast<Session *>(s); }
inline const Session *session_of(const tessera_session *s) { return reinterpret_cast<const Session *>(s); }

} // namespace tsr

#endif
