// Reading a model image file into 64-byte aligned memory, as a board's flash holds it.
#ifndef TESSERA_TOOLS_IMAGE_FILE_H
#define TESSERA_TOOLS_IMAGE_FILE_H

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace tessera {

class ImageFile {
public:
    // On failure, ok() is false and error() says why.
    explicit ImageFile(const std::string &path)
    {
        std::ifstream in(path, std::ios::binary | std::ios::ate);
        if (!in) {
            error_ = "cannot open image '" + path + "'";
            return;
        }
        size_ = static_cast<size_t>(in.tellg());
        in.seekg(0);
        blocks_.resize(size_ / sizeof(Block) + 1);
        if (!in.read(reinterpret_cast<char *>(blocks_.data()), static_cast<std::streamsize>(size_))) {
            error_ = "cannot read image '" + path + "'";
            blocks_.clear();
        }
    }
    bool ok() const { return !blocks_.empty(); }
    const std::string &error() const { return error_; }
    const uint8_t *data() const { return blocks_.front().bytes; }
    size_t size() const { return size_; }

private:
    struct alignas(64) Block {
        uint8_t bytes[64];
    };
    std::vector<Block> blocks_;
    size_t size_ = 0;
    std::string error_;
};

} // namespace tessera

#endif
