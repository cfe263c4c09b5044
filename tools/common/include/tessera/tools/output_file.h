// Output files of the host tools: checked before any work starts, written whole or
// not at all.
#ifndef TESSERA_TOOLS_OUTPUT_FILE_H
#define TESSERA_TOOLS_OUTPUT_FILE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// Opening one proves it can be written: its folder exists and takes a new file, and
// the path is not a folder. The content goes to an unnamed temporary file in that
// folder (O_TMPFILE), which commit() links into place, so a killed process leaves
// nothing behind. Where the file system has no unnamed files, a named "NAME.tmp.PID"
// stands in, and such names left by processes that no longer run are removed.
//   - A symbolic link is followed to its target, which is what gets replaced (the
//     link stays); a loop of links is an error naming the path.
//   - "-" is standard output, and a path that is not a regular file or that leads
//     into /dev or /proc (/dev/stdout, a pipe, a terminal) is written in place, at
//     commit.
// Errors throw std::system_error naming the path.
class OutputFile {
public:
    explicit OutputFile(std::string path);
    ~OutputFile(); // discards the content unless committed
    OutputFile(const OutputFile &) = delete;
    OutputFile &operator=(const OutputFile &) = delete;
    OutputFile(OutputFile &&other) noexcept;

    const std::string &path() const { return path_; }
    void write(const void *data, size_t bytes);
    void write(const std::string &text) { write(text.data(), text.size()); }
    void commit(); // prepare, then publish
    // The two halves of commit: the content whole under a temporary name (a regular
    // file), then in place (renamed over the target, or written to a device or pipe).
    void prepare();
    void publish();
    bool direct() const { return direct_; }

private:
    void discard() noexcept;
    std::string path_;
    std::string target_;     // path_ with its symbolic links followed: what commit() replaces
    std::string named_temp_; // the fallback's temporary name; empty for an unnamed file
    int fd_ = -1;
    bool direct_ = false;    // not a regular file: written in place at commit
    bool prepared_ = false;
    std::vector<uint8_t> pending_; // direct_ only
};

// Commits the outputs of one run together: an error in any leaves none of them (the
// regular files are renamed into place only after every one is whole and every output
// written in place has been written).
void commit_all(const std::vector<OutputFile *> &outputs);

// What a flag names: ("--output", "s.tess"), ("the checkpoint", "ck.bin").
using NamedPath = std::pair<std::string, std::string>;

// Refuses two outputs of one run that are the same file (the same path, through links
// or not, or the same device and inode), and an output that is one of the run's
// inputs (a folder input stands for the files in it), naming both, and two outputs
// to standard output ("-"). Throws std::invalid_argument.
void check_outputs(const std::vector<NamedPath> &outputs, const std::vector<NamedPath> &inputs = {});

} // namespace tessera

#endif
