#include "tessera/tools/output_file.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
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

// Where writing `path` lands: its chain of symbolic links followed (at most 40, as
// the kernel does). `special` is set when the path or a link leads into /dev or /proc,
// where files are written in place.
std::string link_target(const std::string &path, bool *special)
{
    auto under = [](const std::string &p, const char *dir) { return p.rfind(dir, 0) == 0; };
    std::string at = path;
    for (int hops = 0;; ++hops) {
        std::error_code ec;
        const fs::path absolute = fs::absolute(at, ec);
        const std::string shown = absolute.lexically_normal().string();
        if (under(shown, "/dev/") || under(shown, "/proc/")) *special = true;
        struct stat st;
        if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return at;
        if (hops == 40) fail(ELOOP, path);
        const fs::path next = fs::read_symlink(at, ec);
        if (ec) fail(ec.value(), path);
        at = next.is_absolute() ? next.string() : (fs::path(at).parent_path() / next).string();
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
    if (path_ == "-") { // standard output, written at commit
        fd_ = ::dup(STDOUT_FILENO);
        if (fd_ < 0) fail(errno, path_);
        direct_ = true;
        return;
    }
    bool special = false;
    const std::string target = link_target(path_, &special);
    struct stat st;
    if (::stat(path_.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) fail(EISDIR, path_);
        special = special || !S_ISREG(st.st_mode);
    }
    if (special) { // a device, a pipe, /dev/stdout: written in place at commit
        fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd_ < 0) fail(errno, path_);
        direct_ = true;
        return;
    }
    target_ = target;
    const std::string folder = folder_of(target_);
    remove_stale_temporaries(target_);
    fd_ = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (fd_ >= 0) return;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) fail(errno, path_);
    named_temp_ = target_ + ".tmp." + std::to_string(::getpid());
    fd_ = ::open(named_temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        const int err = errno;
        named_temp_.clear();
        fail(err, path_);
    }
}

OutputFile::OutputFile(OutputFile &&other) noexcept
    : path_(std::move(other.path_)), target_(std::move(other.target_)), named_temp_(std::move(other.named_temp_)),
      fd_(other.fd_), direct_(other.direct_), prepared_(other.prepared_),
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

void OutputFile::prepare()
{
    if (fd_ < 0) fail(EBADF, path_);
    if (direct_) return; // written in place at publish
    if (::fsync(fd_) != 0) fail(errno, path_);
    if (named_temp_.empty()) {
        // Give the unnamed file a name beside the target, then rename it over the
        // target (linkat cannot replace a file). A kill between the two leaves a
        // "NAME.tmp.PID" that the next run removes.
        const std::string temp = target_ + ".tmp." + std::to_string(::getpid());
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
    prepared_ = true;
}

void OutputFile::publish()
{
    if (direct_) {
        if (fd_ < 0) fail(EBADF, path_);
        write_all(fd_, pending_.data(), pending_.size(), path_);
        if (::close(fd_) != 0) {
            fd_ = -1;
            fail(errno, path_);
        }
        fd_ = -1;
        return;
    }
    if (!prepared_) prepare();
    if (::rename(named_temp_.c_str(), target_.c_str()) != 0) fail(errno, path_, "cannot rename into");
    named_temp_.clear();
}

void OutputFile::commit()
{
    prepare();
    publish();
}

void commit_all(const std::vector<OutputFile *> &outputs)
{
    // Every regular file made whole under its temporary name first, then the outputs
    // written in place (a device, a pipe: the ones that can still fail), then the
    // renames: an error before the renames leaves no file of the run behind.
    for (OutputFile *o : outputs)
        if (o && !o->direct()) o->prepare();
    for (OutputFile *o : outputs)
        if (o && o->direct()) o->publish();
    for (OutputFile *o : outputs)
        if (o && !o->direct()) o->publish();
}

void check_outputs(const std::vector<NamedPath> &outputs, const std::vector<NamedPath> &inputs)
{
    struct File {
        const NamedPath *named;
        std::string shown; // the path as given
        std::string canonical;
        bool exists = false;
        dev_t dev = 0;
        ino_t ino = 0;
    };
    auto file = [](const NamedPath &n, const std::string &path) {
        File f{&n, path, "", false, 0, 0};
        std::error_code ec;
        f.canonical = fs::weakly_canonical(fs::absolute(path, ec), ec).string();
        struct stat st;
        if (::stat(path.c_str(), &st) == 0) f.exists = true, f.dev = st.st_dev, f.ino = st.st_ino;
        return f;
    };
    auto same = [](const File &a, const File &b) {
        return (a.exists && b.exists) ? a.dev == b.dev && a.ino == b.ino : !a.canonical.empty() && a.canonical == b.canonical;
    };
    std::vector<File> outs, ins;
    for (const NamedPath &o : outputs)
        if (!o.second.empty() && o.second != "-") outs.push_back(file(o, o.second));
    for (const NamedPath &i : inputs) {
        if (i.second.empty()) continue;
        std::error_code ec;
        if (fs::is_directory(i.second, ec)) {
            for (const auto &entry : fs::directory_iterator(i.second, ec))
                if (entry.is_regular_file(ec)) ins.push_back(file(i, entry.path().string()));
        } else {
            ins.push_back(file(i, i.second));
        }
    }
    for (size_t a = 0; a < outs.size(); ++a) {
        for (size_t b = a + 1; b < outs.size(); ++b)
            if (same(outs[a], outs[b]))
                throw std::invalid_argument(outs[a].named->first + " and " + outs[b].named->first + " name the same file '" +
                                            outs[a].shown + "'");
        for (const File &in : ins)
            if (in.exists && same(outs[a], in))
                throw std::invalid_argument(outs[a].named->first + " '" + outs[a].shown + "' is " + in.named->first + " '" +
                                            in.shown + "': an output never replaces an input");
    }
    const NamedPath *to_stdout = nullptr;
    for (const NamedPath &o : outputs) {
        if (o.second != "-") continue;
        if (to_stdout) throw std::invalid_argument(to_stdout->first + " and " + o.first + " both name standard output (-)");
        to_stdout = &o;
    }
}

} // namespace tessera
