// The rows of the front-end table (front_ends.cpp), each defined in its front end's file.
#ifndef TESSERA_PACK_FRONT_END_ROWS_H
#define TESSERA_PACK_FRONT_END_ROWS_H

#include <memory>
#include <string>

#include "tessera/pack/front_end.h"

namespace tessera {

bool recognises_hf(const std::string &path);
std::unique_ptr<LoadedModel> load_hf(const PackOptions &o);
bool recognises_gguf(const std::string &path);
std::unique_ptr<LoadedModel> load_gguf(const PackOptions &o);
bool recognises_onnx(const std::string &path);
std::unique_ptr<LoadedModel> load_onnx(const PackOptions &o);
bool recognises_llama2c(const std::string &path);
std::unique_ptr<LoadedModel> load_llama2c(const PackOptions &o);

} // namespace tessera

#endif
