// The device tokenizer: encodes and decodes exactly as llama2.c's run.c does, over
// the tokenizer section of the image (vocabulary sorted by the packer).
#ifndef TESSERA_TOKENIZER_H
#define TESSERA_TOKENIZER_H

#include "image_reader.h"

namespace tsr {

// Id of the piece equal to `text` (NUL-terminated), or -1.
int32_t tokenizer_lookup(const TokenizerView &t, const char *text);

struct EncodeOptions {
    bool bos;
    bool eos;
    uint32_t bos_id;
    uint32_t eos_id;
    int32_t space_id;     // the dummy prefix
    char *merge_buffer;   // 2 * max_token_length + 3 bytes
};

tessera_status tokenizer_encode(const TokenizerView &t, const EncodeOptions &opt, const char *text,
                                int32_t *ids, uint32_t capacity, uint32_t *count, Message &err);

// The bytes run.c prints for `token` after `prev`; nullptr for an id outside the vocabulary.
const char *tokenizer_decode(const TokenizerView &t, uint32_t bos_id, int32_t prev, int32_t token,
                             uint32_t *len);

} // namespace tsr

#endif
