#include "tessera/json_input.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::json_input {

namespace {

// The deepest nesting of objects and arrays in `text`, stopping once past `limit`
// (strings skipped, escapes included); `at` gets the byte where the limit was passed.
uint32_t nesting_depth(const char *text, size_t size, uint32_t limit, size_t *at)
{
    uint32_t depth = 0, deepest = 0;
    bool in_string = false;
    for (size_t i = 0; i < size; ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > deepest) deepest = depth;
            if (deepest > limit) {
                *at = i;
                return deepest;
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

// Edits (insert, delete, replace, swap two neighbours) from a to b.
size_t edit_distance(const std::string &a, const std::string &b)
{
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

// The known key a misspelt one (of 4 characters or more) most likely meant: at most
// two edits away, or "".
std::string closest_key(const std::string &key, std::initializer_list<const char *> keys)
{
    std::string best;
    size_t best_distance = 3;
    if (key.size() < 4 || key.size() > 64) return best; // "L3" is no misspelt "L1"
    for (const char *k : keys) {
        const size_t d = edit_distance(key, k);
        if (d < best_distance && d < std::string(k).size()) best = k, best_distance = d;
    }
    return best;
}

std::string quoted_keys(std::initializer_list<const char *> keys)
{
    std::string out;
    for (const char *k : keys) out += (out.empty() ? "" : ", ") + std::string(k);
    return out;
}

} // namespace

std::string printable(const std::string &s, size_t max_bytes)
{
    std::string out;
    for (size_t i = 0; i < s.size() && i < max_bytes; ++i) {
        const unsigned char ch = static_cast<unsigned char>(s[i]);
        if (ch >= 0x20 && ch < 0x7F) {
            out += char(ch);
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", ch);
            out += hex;
        }
    }
    return s.size() > max_bytes ? out + "..." : out;
}

std::string reason(const std::exception &e)
{
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0) {
        const size_t end = what.find("] ");
        if (end != std::string::npos) what = what.substr(end + 2);
    }
    return printable(what, 200);
}

nlohmann::json parse(const char *text, size_t size, const std::string &source, const Limits &limits)
{
    if (size > limits.max_bytes)
        throw Error(source + ": " + std::to_string(size) + " bytes of JSON; at most " + std::to_string(limits.max_bytes) +
                    " are read");
    size_t at = 0;
    if (nesting_depth(text, size, limits.max_depth, &at) > limits.max_depth)
        throw Error(source + ": JSON nested deeper than " + std::to_string(limits.max_depth) + " levels (at byte " +
                    std::to_string(at) + ")");
    try {
        return nlohmann::json::parse(text, text + size);
    } catch (const nlohmann::json::exception &e) {
        throw Error(source + ": not valid JSON: " + reason(e));
    }
}

std::string read_file(const std::string &path, size_t max_bytes, const char *what)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(path + ": cannot open " + what + ": " + std::strerror(errno));
    struct stat st;
    std::string error;
    if (::fstat(fd, &st) != 0) error = std::string("cannot read ") + what + ": " + std::strerror(errno);
    else if (!S_ISREG(st.st_mode)) error = std::string(what) + " is not a regular file";
    else if (uint64_t(st.st_size) > max_bytes)
        error = std::string(what) + " of " + std::to_string(st.st_size) + " bytes; at most " + std::to_string(max_bytes) +
                " are read";
    std::string text;
    if (error.empty()) {
        text.resize(size_t(st.st_size));
        size_t done = 0;
        while (done < text.size()) {
            const ssize_t n = ::read(fd, &text[done], text.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                error = std::string("cannot read ") + what + ": " + (n < 0 ? std::strerror(errno) : "shorter than its size");
                break;
            }
            done += size_t(n);
        }
    }
    ::close(fd);
    if (!error.empty()) throw Error(path + ": " + error);
    return text;
}

std::string describe(const nlohmann::json &v)
{
    switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string (\"" + printable(v.get_ref<const std::string &>(), 32) + "\")";
    case nlohmann::json::value_t::boolean: return v.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::number_integer: return "a number (" + std::to_string(v.get<int64_t>()) + ")";
    case nlohmann::json::value_t::number_unsigned: return "a number (" + std::to_string(v.get<uint64_t>()) + ")";
    case nlohmann::json::value_t::number_float: {
        char text[32];
        std::snprintf(text, sizeof text, "%.17g", v.get<double>());
        return std::string("a number (") + text + ")";
    }
    default: return "a value of another kind";
    }
}

void Value::fail(const std::string &what) const
{
    throw Error(source_ + ": " + (path_.empty() ? std::string("the top level") : printable(path_, 120)) + ": " + what);
}

uint64_t Value::as_uint(uint64_t lo, uint64_t hi) const
{
    const std::string want = "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got ";
    uint64_t u = 0;
    if (v_.is_number_unsigned()) {
        u = v_.get<uint64_t>();
    } else if (v_.is_number_integer()) {
        const int64_t i = v_.get<int64_t>();
        if (i < 0) fail(want + describe(v_));
        u = uint64_t(i);
    } else if (v_.is_number_float()) {
        const double d = v_.get<double>();
        if (!(d >= 0) || d > 9007199254740992.0 || std::floor(d) != d) fail(want + describe(v_));
        u = uint64_t(d);
    } else {
        fail(want + describe(v_));
    }
    if (u < lo || u > hi) fail(want + describe(v_));
    return u;
}

double Value::as_number() const
{
    if (!v_.is_number() || !std::isfinite(v_.get<double>())) fail("expected a finite number, got " + describe(v_));
    return v_.get<double>();
}

double Value::as_positive(double max) const
{
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", max);
    if (!v_.is_number() || !(v_.get<double>() > 0) || !(v_.get<double>() <= max))
        fail(std::string("expected a number above 0 and at most ") + limit + ", got " + describe(v_));
    return v_.get<double>();
}

std::string Value::as_string() const
{
    if (!v_.is_string()) fail("expected a string, got " + describe(v_));
    return v_.get<std::string>();
}

bool Value::as_bool() const
{
    if (!v_.is_boolean()) fail("expected true or false, got " + describe(v_));
    return v_.get<bool>();
}

void Value::expect_object() const
{
    if (!v_.is_object()) fail("expected an object, got " + describe(v_));
}

void Value::expect_array() const
{
    if (!v_.is_array()) fail("expected an array, got " + describe(v_));
}

bool Value::has(const char *key) const { return v_.is_object() && v_.contains(key); }

Value Value::operator[](const char *key) const
{
    expect_object();
    const auto it = v_.find(key);
    if (it == v_.end()) Value(v_, source_, child(key)).fail("missing");
    return Value(*it, source_, child(key));
}

std::optional<Value> Value::find(const char *key) const
{
    expect_object();
    const auto it = v_.find(key);
    if (it == v_.end()) return std::nullopt;
    return Value(*it, source_, child(key));
}

void Value::only_keys(std::initializer_list<const char *> keys) const
{
    expect_object();
    for (auto it = v_.begin(); it != v_.end(); ++it) {
        bool known = false;
        for (const char *k : keys) known = known || it.key() == k;
        if (known) continue;
        const std::string meant = closest_key(it.key(), keys);
        Value(*it, source_, child(it.key()))
            .fail("unknown key" + (path_.empty() ? std::string() : " in " + printable(path_, 120)) +
                  (meant.empty() ? "" : " (did you mean '" + meant + "'?)") + " (known: " + quoted_keys(keys) + ")");
    }
}

Value Value::at(size_t index) const
{
    expect_array();
    if (index >= v_.size()) fail("has no element " + std::to_string(index));
    return Value(v_[index], source_, path_ + "[" + std::to_string(index) + "]");
}

} // namespace tessera::json_input
