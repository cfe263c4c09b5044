// The device tokenizer: SentencePiece images encode and decode as llama2.c's run.c does
// (byte-level BPE ones as GPT-2's tokenizer: byte_level_encode.cpp), over the
// tokenizer section of the image (vocabulary sorted by the packer), with three
// differences that only show where run.c goes wrong: a byte with no piece of its
// own is encoded by its "<0xXX>" piece looked up by name (run.c assumes id byte + 3,
// past the end of a small vocabulary); the dummy-prefix space of a vocabulary
// without a " " piece is encoded as any other character of the text; and merging
// takes O(n log n) (a heap of adjacent pairs) instead of run.c's O(n^2), with the
// same result: the best-scoring pair first, the leftmost of equals.
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
    uint32_t max_tokens; // the context: a text needing more tokens is refused
    char *merge_buffer;  // 2 * TSR_MAX_TOKEN_BYTES + 4 bytes
    uint8_t *work;       // 4-byte aligned; TSR_ENCODE_BYTES_PER_SYMBOL per symbol of the split text
    uint32_t work_bytes;
};

// Encodes `text` into ids[0..*count), as the image's tokenizer kind does. Statuses:
// TESSERA_ERR_UNENCODABLE_TEXT (a character with neither a piece nor a byte piece; a
// byte-level BPE without encoding tables), TESSERA_ERR_CONTEXT_FULL (more tokens than
// max_tokens, or more symbols than the work area holds), TESSERA_ERR_BUFFER_TOO_SMALL
// (more tokens than `capacity`).
tessera_status tokenizer_encode(const TokenizerView &t, const EncodeOptions &opt, const char *text,
                                int32_t *ids, uint32_t capacity, uint32_t *count, Message &err);

// GPT-2's byte-level BPE (byte_level_encode.cpp): the same contract; tokenizer_encode's
// for a byte-level image.
tessera_status byte_level_encode(const TokenizerView &t, const EncodeOptions &opt, const char *text, int32_t *ids,
                                 uint32_t capacity, uint32_t *count, Message &err);

// The bytes run.c prints for `token` after `prev`; nullptr for an id outside the vocabulary.
const char *tokenizer_decode(const TokenizerView &t, uint32_t bos_id, int32_t prev, int32_t token,
                             uint32_t *len);

} // namespace tsr

#endif
