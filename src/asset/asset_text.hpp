// Line-oriented text as Python reads it (MPFB's readers): lines ended by \n, \r\n or \r, split on
// whitespace as str.split() does, and numbers as int() / float() accept them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rigfit::detail {

/// Walks `text` line by line; `tokens` holds the current line's words (views into `text`).
class LineReader {
 public:
  explicit LineReader(std::string_view text);
  /// Moves to the next line; false at the end of the text.
  bool next();
  std::size_t lineNumber() const { return line_; }
  std::string_view line() const { return current_; }
  const std::vector<std::string_view>& tokens() const { return tokens_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
  std::string_view current_;
  std::vector<std::string_view> tokens_;
};

/// Python's str.split() whitespace among ASCII: space, \t, \n, \v, \f, \r and \x1c-\x1f.
bool isPythonSpace(char c);

/// Every byte an ASCII digit (Python's str.isnumeric() on ASCII), and not empty.
bool isPlainDigits(std::string_view token);

/// Python int(token): optional sign, ASCII digits. Values beyond int64 saturate (the readers only
/// compare them with a vertex count). False if it is not an integer.
bool parsePythonInt(std::string_view token, std::int64_t& out);

/// Python float(token), finite values only (nan and inf are refused).
bool parsePythonFloat(std::string_view token, double& out);

/// `what` quoted for a message: printable ASCII kept, other bytes as \xNN, at most 40 characters.
std::string quoteToken(std::string_view what);

}  // namespace rigfit::detail
