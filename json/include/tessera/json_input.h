// JSON from files Tessera does not trust (board descriptions, an image's embedded
// board, Hugging Face config.json, safetensors headers), read on the host with
// nlohmann-json behind limits: the text's size and nesting depth are checked before
// the library parses it, so no description can exhaust memory or the stack, and
// every value is read through a typed accessor whose error names the file and the
// key path ("config.json: rope_theta: expected a number, got null"), in printable
// text. Nothing here re-serializes what it read.
#ifndef TESSERA_JSON_INPUT_H
#define TESSERA_JSON_INPUT_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tessera/errors.h"

namespace tessera::json_input {

// The complete one-line message: "SOURCE: KEY.PATH: what".
struct Error : InputError {
    using InputError::InputError;
};

struct Limits {
    size_t max_bytes;   // of the text
    uint32_t max_depth; // objects and arrays nested, the outermost being 1
};

// `text` as a JSON value, or Error naming `source`: too large, nested too deep, or not
// JSON (the parser's reason and position, printable, without the library's prefix).
nlohmann::json parse(const char *text, size_t size, const std::string &source, const Limits &limits);
inline nlohmann::json parse(const std::string &text, const std::string &source, const Limits &limits)
{
    return parse(text.data(), text.size(), source, limits);
}

// A file's text, refused before it is read when larger than `max_bytes`; Error names
// the path (not found, not a regular file, unreadable, too large).
std::string read_file(const std::string &path, size_t max_bytes, const char *what);

// At most 64 bytes of `text` for a message, anything but printable ASCII as \xNN.
std::string printable(const std::string &text, size_t max_bytes = 64);

// The library's message without its "[json.exception.KIND.N] " prefix, printable.
std::string reason(const std::exception &e);

// "null", "a string", "an array", "an object", "true", "a number (3.5)", ...
std::string describe(const nlohmann::json &value);

// A value at a key path inside a document from `source`.
class Value {
public:
    Value(const nlohmann::json &value, std::string source, std::string path = "")
        : v_(value), source_(std::move(source)), path_(std::move(path))
    {
    }
    const nlohmann::json &json() const { return v_; }
    const std::string &path() const { return path_; }
    [[noreturn]] void fail(const std::string &what) const;

    // Non-integers (fractions, out of range, negatives for an unsigned range,
    // anything not a number) are refused; a float holding an exact integer up to 2^53
    // is taken.
    uint64_t as_uint(uint64_t lo, uint64_t hi) const;
    double as_number() const;                 // finite
    double as_positive(double max) const;     // finite, > 0 and <= max
    std::string as_string() const;
    bool as_bool() const;
    void expect_object() const;
    void expect_array() const;

    // Members of an object (the value must be one: expect_object).
    bool has(const char *key) const;
    Value operator[](const char *key) const;   // required: "KEY: missing"
    std::optional<Value> find(const char *key) const; // nullopt when absent
    // Refuses any member not named, listing the known ones.
    void only_keys(std::initializer_list<const char *> keys) const;
    // Elements of an array.
    size_t size() const { return v_.size(); }
    Value at(size_t index) const;

private:
    std::string child(const std::string &key) const { return path_.empty() ? key : path_ + "." + key; }
    const nlohmann::json &v_;
    std::string source_, path_;
};

} // namespace tessera::json_input

#endif
