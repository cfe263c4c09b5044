#include "packed_image.h"

#include <fstream>

#include <gtest/gtest.h>
#include <iterator>

#include "synthetic_model.h"
#include "tessera/crc32.h"

namespace tessera::test {

AlignedImage load_image(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    AlignedImage img;
    img.resize(bytes.size());
    std::copy(bytes.begin(), bytes.end(), img.data());
    return img;
}

AlignedImage pack_image(const PackOptions &options)
{
    PackOptions o = options;
    if (o.output.empty()) o.output = temp_path("image.tess");
    pack(o);
    return load_image(o.output);
}

PackOptions stories260k_int8(const std::string &shared, const std::string &board, const std::string &scenario,
                             const std::string &output)
{
    PackOptions o;
    o.checkpoint = shared + "/models/stories260K.bin";
    o.tokenizer = shared + "/models/tok512.bin";
    o.precision = Precision::kInt8;
    o.board = board;
    o.scenario = parse_option(kScenarioNames, scenario, "scenario");
    o.output = output;
    return o;
}

std::unique_ptr<OpenModel> open_model(const PackOptions &options, uint32_t threads, const std::string &board,
                                      uint32_t solo_bytes)
{
    return open_image(pack_image(options), board.empty() ? options.board : board, threads, solo_bytes);
}

std::unique_ptr<OpenModel> open_image(AlignedImage image, const std::string &board, uint32_t threads, uint32_t solo_bytes)
{
    auto m = std::make_unique<OpenModel>();
    m->image = std::move(image);
    m->board = HostBoard::create(load_board_desc(board), threads, solo_bytes);
    m->board->check_l1(true); // every test run also proves kernels only ever see L1
    m->status = tessera_open(&m->session, m->image.data(), m->image.size, m->board->hal());
    return m;
}

void resign(AlignedImage &img)
{
    auto &h = *reinterpret_cast<tsr_image_header *>(img.data());
    auto *s = reinterpret_cast<tsr_section *>(img.data() + h.section_table_offset);
    for (uint32_t i = 0; i < h.section_count; ++i)
        if (uint64_t(s[i].file_offset) + s[i].size <= img.size) // a section made to overrun keeps its old CRC
            s[i].crc32 = tsr_crc32(0, img.data() + s[i].file_offset, s[i].size);
    h.section_table_crc = tsr_crc32(0, s, h.section_count * sizeof(tsr_section));
    h.header_crc = 0;
    h.header_crc = tsr_crc32(0, &h, sizeof h);
}

std::vector<int32_t> generate_greedy(OpenModel &m, const std::vector<int32_t> &prompt, uint32_t steps)
{
    std::vector<int32_t> out;
    EXPECT_EQ(tessera_prompt(&m.session, prompt.data(), uint32_t(prompt.size())), TESSERA_OK)
        << tessera_last_error(&m.session);
    for (size_t i = 1; i < prompt.size(); ++i) out.push_back(prompt[i]);
    tessera_sampler greedy;
    tessera_sampler_init(&greedy, 0.0f, 0.0f, 1);
    for (uint32_t pos = uint32_t(prompt.size()) - 1; pos < steps; ++pos) {
        int32_t next = -1;
        EXPECT_EQ(tessera_sample(&m.session, &greedy, &next), TESSERA_OK);
        out.push_back(next);
        if (pos + 1 < steps) EXPECT_EQ(tessera_step(&m.session, next), TESSERA_OK) << tessera_last_error(&m.session);
    }
    return out;
}

} // namespace tessera::test
