// The golden runs of llama2.c's run.c in ../shared/golden: one line per step,
// "pos next_id margin".
#ifndef TESSERA_TESTS_GOLDEN_H
#define TESSERA_TESTS_GOLDEN_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::test {

struct GoldenStep {
    int pos;
    int32_t next;
    double margin; // gap between the top two logits
};

std::vector<GoldenStep> read_golden(const std::string &path);
std::vector<int32_t> golden_ids(const std::string &path);

} // namespace tessera::test

#endif
