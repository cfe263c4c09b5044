// tessera-inspect --predict: the board's cost model on one run of an image (the fitted
// costs where it has them), as the firmware tests print it beside what they measured.
#ifndef TESSERA_INSPECT_PREDICT_H
#define TESSERA_INSPECT_PREDICT_H

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "tessera/board_desc.h"

namespace tessera {

// A run as the firmware demos mark it:
//   "token:A-B"  one token at each position A..B (position 0: the one-row prompt), averaged;
//   "rows:S@P"   S rows from position P (S = 1: the token schedule; more: the prompt's).
// Throws std::invalid_argument naming what is wrong.
struct PredictRun {
    bool tokens = true;
    uint32_t first = 0, last = 0; // tokens: positions
    uint32_t rows = 0, pos = 0;   // rows
};
PredictRun parse_predict_run(const std::string &text);

// The prediction for `run` on `cores` cores (0: the image's plan) with the costs fitted
// for `kernel_set` ("": the board's): {"unit", "predicted", "fitted_source", "variants": {name:
// {"calls", "macs", "elements", "bytes", "cost", "fitted"}}}, per run.
nlohmann::json predict(const uint8_t *image, size_t size, const BoardDesc &board, const PredictRun &run,
                       uint32_t cores, const std::string &kernel_set);

// "PREDICTED cycles per run: N" and a line per variant.
std::string predict_lines(const nlohmann::json &prediction);

} // namespace tessera

#endif
