// GPT-2's byte-level BPE tokenizer files, read on the host: vocab.json (each token's
// characters, a printable stand-in per byte, and its id) and merges.txt (the merges by
// rank, "a b" a line).
#ifndef TESSERA_MODELS_BPE_H
#define TESSERA_MODELS_BPE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tessera/models/llama2c.h" // Vocabulary

namespace tessera {

struct ByteLevelBpe {
    std::vector<std::string> pieces;                     // by id: the bytes each token stands for
    std::vector<std::pair<uint32_t, uint32_t>> merges;   // by rank: the two tokens merged
    bool gpt2_pretokenizer = true; // text is split by GPT-2's pattern (a tokenizer.json may say otherwise)
};

// The code point GPT-2's bytes_to_unicode() gives byte b: printable Latin-1 stands for
// itself, the other 68 bytes for U+0100 onwards in byte order.
uint32_t byte_level_code_point(uint8_t b);

// One merge as a file spells it ("a b") and where it is, for messages.
struct MergeLine {
    std::string where, text;
};

// Tokens by id, each in byte-level BPE's characters, and the merges by rank: every
// character one of the 256 stand-ins, each token once, every merge two tokens whose
// concatenation is a token. Throws InputError naming `tokens_name` and the token, or the
// merge's `where`.
ByteLevelBpe byte_level_bpe(const std::vector<std::string> &tokens, const std::string &tokens_name,
                            const std::vector<MergeLine> &merges);

// vocab.json and merges.txt (their texts; the names stand for the files in messages): every
// id 0..vocab_size-1 exactly once, every character one of the 256 stand-ins, every merge two
// tokens whose concatenation is a token. Throws InputError naming the file and the token or
// line.
ByteLevelBpe parse_byte_level_bpe(const std::string &vocab_json, const std::string &vocab_name,
                                  const std::string &merges_txt, const std::string &merges_name, uint32_t vocab_size);

// Hugging Face's tokenizer.json of a byte-level BPE (model.type BPE, a ByteLevel decoder):
// model.vocab and added_tokens (their text as it is) by id, every id 0..vocab_size-1, and
// model.merges ("a b" or ["a", "b"]); GPT-2's pre-tokenizer where pre_tokenizer is GPT-2's
// (ByteLevel, its pattern, no prefix space) and there is no normalizer. Throws InputError
// naming `name` and the key.
ByteLevelBpe parse_tokenizer_json(const std::string &text, const std::string &name, uint32_t vocab_size);

// The device tokenizer's table: each token's bytes (the byte 0 alone as "<0x00>", which the
// device decodes to it), scored by the rank of the merge that makes it (earlier: higher);
// each byte's token and the merges, for the device's encoding.
Vocabulary byte_level_vocabulary(const ByteLevelBpe &bpe, const std::string &name);

// A Hugging Face directory's vocab.json and merges.txt (or, without them, its
// tokenizer.json) as a Vocabulary of vocab_size; `files` gets what was read.
Vocabulary read_byte_level_bpe_directory(const std::string &dir, uint32_t vocab_size, std::string *files);

} // namespace tessera

#endif
