// A structure-aware mutator for model images: it changes the header, the section
// table, tensors, schedule steps or the tokenizer section where they are, with
// values that mean something there (another tensor's id, a region's size, a
// neighbour of a limit), then signs every checksum again, so the runtime's deep
// checks see a hostile image rather than a corrupt one.
#ifndef TESSERA_FUZZ_IMAGE_MUTATOR_H
#define TESSERA_FUZZ_IMAGE_MUTATOR_H

#include <cstddef>
#include <cstdint>

namespace tessera::fuzz {

// libFuzzer's custom-mutator contract: mutate data[0..size) in place (at most
// max_size bytes) and return the new size.
size_t mutate_image(uint8_t *data, size_t size, size_t max_size, unsigned seed);

// Makes the header, section-table and section checksums match the bytes again
// (sections that overrun the data keep theirs).
void resign_image(uint8_t *data, size_t size);

} // namespace tessera::fuzz

#endif
