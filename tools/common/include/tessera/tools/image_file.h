// Reading a model image file into 64-byte aligned memory, as a board's flash holds it.
#ifndef TESSERA_TOOLS_IMAGE_FILE_H
#define TESSERA_TOOLS_IMAGE_FILE_H

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera {

class ImageFile {
public:
    // On failure, ok() is false and error() says why, in one line naming the path.
    explicit ImageFile(const std::string &path)
    {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            error_ = "cannot open image '" + path + "': " + std::strerror(errno);
            return;
        }
        struct stat st;
        if (::fstat(fd, &st) != 0) error_ = "cannot read image '" + path + "': " + std::strerror(errno);
        else if (S_ISDIR(st.st_mode)) error_ = "cannot read image '" + path + "': it is a directory";
        else if (!S_ISREG(st.st_mode)) error_ = "cannot read image '" + path + "': not a regular file";
        else if (uint64_t(st.st_size) > 0xFFFFFFFFull)
            error_ = "image '" + path + "' is " + std::to_string(st.st_size) + " bytes, more than an image can be (4 GiB)";
        if (error_.empty()) read_all(fd, path, size_t(st.st_size));
        ::close(fd);
    }
    bool ok() const { return error_.empty(); }
    const std::string &error() const { return error_; }
    const uint8_t *data() const { return blocks_.front().bytes; }
    size_t size() const { return size_; }

private:
    void read_all(int fd, const std::string &path, size_t size)
    {
        blocks_.resize(size / sizeof(Block) + 1);
        uint8_t *p = blocks_.front().bytes;
        size_t done = 0;
        while (done < size) {
            const ssize_t n = ::read(fd, p + done, size - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                error_ = "cannot read image '" + path + "': " + (n < 0 ? std::strerror(errno) : "shorter than its size");
                return;
            }
            done += size_t(n);
        }
        size_ = size;
    }
    struct alignas(64) Block {
        uint8_t bytes[64];
    };
    std::vector<Block> blocks_;
    size_t size_ = 0;
    std::string error_;
};

} // namespace tessera

#endif
