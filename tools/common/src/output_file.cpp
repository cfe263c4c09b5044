#include "tessera/tools/output_file.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tessera {

namespace {

[[noreturn]] void fail(int err, const std::string &path, const char *what = "cannot write")
{
    throw std::system_error(err, std::generic_category(), std::string(what) + " '" + path + "'");
}

std::string folder_of(const std::string &path)
{
    const fs::path parent = fs::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

// Removes "NAME.tmp.PID" files beside `path` whose process no longer runs: what a
// killed run of an older tool, or of the fallback below, left behind.
void remove_stale_temporaries(const std::string &path)
{
    const std::string prefix = fs::path(path).filename().string() + ".tmp.";
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(folder_of(path), ec)) {
        const std::string name = entry.path().filename().string();
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string digits = name.substr(prefix.size());
        if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
        const pid_t pid = pid_t(std::atol(digits.c_str()));
        if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
            std::error_code ignored;
            fs::remove(entry.path(), ignored);
        }
    }
}

void write_all(int fd, const void *data, size_t bytes, const std::string &path)
{
    const uint8_t *p = static_cast<const uint8_t *>(data);
    while (bytes > 0) {
        const ssize_t n = ::write(fd, p, bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail(n < 0 ? errno : EIO, path);
        p += n;
        bytes -= size_t(n);
    }
}

} // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path))
{
    if (path_.empty()) fail(EINVAL, path_, "empty output path:");
    struct stat st;
    if (::stat(path_.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) fail(EISDIR, path_);
        if (!S_ISREG(st.st_mode)) { // a device or a pipe: written in place at commit
            fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
            if (fd_ < 0) fail(errno, path_);
            direct_ = true;
            return;
        }
    }
    const std::string folder = folder_of(path_);
    remove_stale_temporaries(path_);
    fd_ = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (fd_ >= 0) return;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) fail(errno, path_);
    named_temp_ = path_ + ".tmp." + std::to_string(::getpid());
    fd_ = ::open(named_temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        const int err = errno;
        named_temp_.clear();
        fail(err, path_);
    }
}

OutputFile::OutputFile(OutputFile &&other) noexcept
    : path_(std::move(other.path_)), named_temp_(std::move(other.named_temp_)), fd_(other.fd_), direct_(other.direct_),
      pending_(std::move(other.pending_))
{
    other.fd_ = -1;
    other.named_temp_.clear();
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() noexcept
{
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!named_temp_.empty()) ::unlink(named_temp_.c_str());
    named_temp_.clear();
}

void OutputFile::write(const void *data, size_t bytes)
{
    if (fd_ < 0) fail(EBADF, path_);
    if (direct_) {
        const uint8_t *p = static_cast<const uint8_t *>(data);
        pending_.insert(pending_.end(), p, p + bytes);
        return;
    }
    write_all(fd_, data, bytes, path_);
}

void OutputFile::commit()
{
    if (fd_ < 0) fail(EBADF, path_);
    if (direct_) {
        write_all(fd_, pending_.data(), pending_.size(), path_);
        if (::close(fd_) != 0) {
            fd_ = -1;
            fail(errno, path_);
        }
        fd_ = -1;
        return;
    }
    if (::fsync(fd_) != 0) fail(errno, path_);
    if (named_temp_.empty()) {
        // Give the unnamed file a name beside the target, then rename it over the
        // target (linkat cannot replace a file). A kill between the two leaves a
        // "NAME.tmp.PID" that the next run removes.
        const std::string temp = path_ + ".tmp." + std::to_string(::getpid());
        const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
        ::unlink(temp.c_str());
        if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, temp.c_str(), AT_SYMLINK_FOLLOW) != 0 &&
            ::linkat(fd_, "", AT_FDCWD, temp.c_str(), AT_EMPTY_PATH) != 0)
            fail(errno, path_);
        named_temp_ = temp;
    }
    if (::close(fd_) != 0) {
        fd_ = -1;
        fail(errno, path_);
    }
    fd_ = -1;
    if (::rename(named_temp_.c_str(), path_.c_str()) != 0) fail(errno, path_, "cannot rename into");
    named_temp_.clear();
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>> &what_and_path)
{
    for (size_t i = 0; i < what_and_path.size(); ++i) {
        for (size_t j = i + 1; j < what_and_path.size(); ++j) {
            std::error_code a, b;
            const fs::path x = fs::weakly_canonical(fs::absolute(what_and_path[i].second), a);
            const fs::path y = fs::weakly_canonical(fs::absolute(what_and_path[j].second), b);
            if (!a && !b && x == y)
                throw std::system_error(EINVAL, std::generic_category(),
                                        what_and_path[i].first + " and " + what_and_path[j].first + " name the same file '" +
                                            what_and_path[i].second + "'");
        }
    }
}

} // namespace tessera
