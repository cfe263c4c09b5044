/* What the firmware demos print after their runs: the profile by operator and by
 * layer (tessera_profile), per token. */
#ifndef TESSERA_DEMO_PROFILE_REPORT_H
#define TESSERA_DEMO_PROFILE_REPORT_H

#include <stdint.h>

#include "tessera/tessera.h"

/* n / d (0 for d = 0), without 64-bit division (demo_board.h). */
uint64_t tsr_demo_per(uint64_t n, uint64_t d);
/* The profile `steps` (tessera_profile_size entries) by operator and by layer, per token. */
void tsr_demo_print_profile(tessera_session *session, const tessera_step_profile *steps, uint64_t tokens);

#endif
