#include "packed_image.h"

#include <fstream>
#include <iterator>

#include "synthetic_model.h"

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

std::unique_ptr<OpenModel> open_model(const PackOptions &options, uint32_t threads, const std::string &board)
{
    auto m = std::make_unique<OpenModel>();
    m->image = pack_image(options);
    m->board = HostBoard::create(load_board_desc(board.empty() ? options.board : board), threads);
    m->board->check_l1(true); // every test run also proves kernels only ever see L1
    m->status = tessera_open(&m->session, m->image.data(), m->image.size, m->board->hal());
    return m;
}

} // namespace tessera::test
