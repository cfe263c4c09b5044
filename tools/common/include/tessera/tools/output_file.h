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
// stands in, and such names left by processes that no longer run are removed. A
// path that exists and is not a regular file (/dev/stdout, a pipe) is written
// directly at commit. Errors throw std::system_error naming the path.
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
    void commit();

private:
    void discard() noexcept;
    std::string path_;
    std::string named_temp_; // the fallback's temporary name; empty for an unnamed file
    int fd_ = -1;
    bool direct_ = false;    // not a regular file: written in place at commit
    std::vector<uint8_t> pending_; // direct_ only
};

// Refuses two outputs of one run that name the same file ("what" names each flag).
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>> &what_and_path);

} // namespace tessera

#endif
