// rigfit's one JSON writer, value by value: writeJson writes a Json document through it, and
// writers of large files (weights) write their values straight into it, without a Json tree.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "rigfit/json.hpp"
#include "rigfit/number_format.hpp"

namespace rigfit::detail {

/// Appends JSON to `out` in the layout `options` give (see writeJson). Containers are opened,
/// filled and closed in order; in an object each value follows its key(). The text is written
/// through a cursor into room `out` grows ahead of it: `out` holds exactly the text written once
/// the writer is destroyed.
class JsonWriter {
 public:
  JsonWriter(std::string& out, const JsonWriteOptions& options)
      : out_(out), o_(options), cur_(out.data() + out.size()), limit_(cur_) {}
  ~JsonWriter() { out_.resize(static_cast<std::size_t>(cur_ - out_.data())); }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  // The calls made for every value are defined here, so that they inline into a caller's loop.
  void beginObject() { open('{', '}', false); }
  /// `one_line`: the items go on one line, as JsonWriteOptions::inline_numbers puts them.
  void beginArray(bool one_line = false) { open('[', ']', one_line); }
  /// Closes the innermost open object or array.
  void end() {
    const Level l = levels_.back();
    levels_.pop_back();
    if (!l.empty && !l.one_line && o_.indent >= 0) newline(levels_.size());
    put(std::string_view(&l.close, 1));
  }
  /// An object's key; its value comes next.
  void key(std::string_view k);

  void null() {
    item();
    put("null");
  }
  void boolean(bool b) {
    item();
    put(b ? "true" : "false");
  }
  void integer(std::int64_t v) {
    item();
    char* p = room(24);
    commit(std::to_chars(p, p + 24, v).ptr);
  }
  /// Python's float repr (see rigfit/number_format.hpp).
  void number(double v) {
    item();
    commit(writePythonFloat(room(kPythonFloatChars), v));
  }
  void string(std::string_view s);
  /// A whole document (objects' keys sorted if the options say so).
  void value(const Json& v);
  /// Room for about `bytes` more bytes of text, made at once.
  void reserve(std::size_t bytes) { room(bytes); }

 private:
  // At least n bytes of room at the cursor.
  char* room(std::size_t n) {
    if (static_cast<std::size_t>(limit_ - cur_) < n) [[unlikely]] grow(n);
    return cur_;
  }
  void grow(std::size_t n);
  void commit(char* end) { cur_ = end; }
  void put(std::string_view s) { commit(static_cast<char*>(std::memcpy(room(s.size()), s.data(), s.size())) + s.size()); }

  // The separator and line break before a value (inline: called for every value).
  void item() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (levels_.empty()) return;
    Level& l = levels_.back();
    const bool one_line = l.one_line || o_.indent < 0;
    if (!l.empty) {
      char* p = room(2);
      p[0] = ',';
      p[1] = ' ';
      commit(p + 1 + one_line);
    }
    l.empty = false;
    if (!one_line) newline(levels_.size());
  }
  // A line break and the indentation: one fixed-size copy while it fits in kBreak.
  void newline(std::size_t depth) {
    static constexpr char kBreak[] = "\n                                                               ";
    const std::size_t n = 1 + depth * static_cast<std::size_t>(o_.indent);
    if (n > sizeof kBreak - 1) [[unlikely]] return longNewline(n);
    char* p = room(sizeof kBreak);
    std::memcpy(p, kBreak, sizeof kBreak);
    commit(p + n);
  }
  void longNewline(std::size_t n);
  void open(char c, char close, bool one_line) {
    item();
    put(std::string_view(&c, 1));
    levels_.push_back({close, one_line, true});
  }

  struct Level {
    char close;
    bool one_line;
    bool empty;
  };
  std::string& out_;
  const JsonWriteOptions& o_;
  char* cur_;    // the end of the text written into out_
  char* limit_;  // the end of out_: [cur_, limit_) is room
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace rigfit::detail
