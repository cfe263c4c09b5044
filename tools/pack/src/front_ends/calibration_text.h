// An int8 image's calibration text (tessera-pack --calibration): read as UTF-8 and
// encoded line by line by the device tokenizer itself.
#ifndef TESSERA_PACK_CALIBRATION_TEXT_H
#define TESSERA_PACK_CALIBRATION_TEXT_H

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/models/graph.h"
#include "tessera/models/llama2c.h"

namespace tessera {

// The text, refused when it is not: larger than 64 MiB, a NUL byte, or a byte sequence
// that is not UTF-8 (overlong forms and surrogates included), naming the line and byte.
std::string read_utf8_text(const std::string &path);

// The lines of the text at `path` as token ids (BOS first), encoded by an fp32 image of
// `fp32` opened on the host board; a line longer than the context keeps its first words.
std::vector<std::vector<int32_t>> encode_calibration_text(const std::string &path, Graph &fp32, const Vocabulary &vocab);

// What every lowered graph gets before planning: the sampler scratch sized for the
// device tokenizer, and the step table the runtime resolves steps into.
void finish_graph(Graph &g, const Vocabulary &vocab);

} // namespace tessera

#endif
