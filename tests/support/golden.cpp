#include "golden.h"

#include <fstream>

namespace tessera::test {

std::vector<GoldenStep> read_golden(const std::string &path)
{
    std::ifstream in(path);
    std::vector<GoldenStep> out;
    GoldenStep s;
    while (in >> s.pos >> s.next >> s.margin) out.push_back(s);
    return out;
}

std::vector<int32_t> golden_ids(const std::string &path)
{
    std::vector<int32_t> ids;
    for (const GoldenStep &s : read_golden(path)) ids.push_back(s.next);
    return ids;
}

} // namespace tessera::test
