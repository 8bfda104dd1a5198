#include "asset/asset_text.hpp"

#include <charconv>
#include <cmath>
#include <limits>

namespace rigfit::detail {

bool isPythonSpace(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u == ' ' || (u >= '\t' && u <= '\r') || (u >= 0x1c && u <= 0x1f);
}

LineReader::LineReader(std::string_view text) : text_(text) {}

bool LineReader::next() {
  if (pos_ >= text_.size()) return false;
  const std::size_t start = pos_;
  std::size_t end = start;
  while (end < text_.size() && text_[end] != '\n' && text_[end] != '\r') ++end;
  pos_ = end;
  if (pos_ < text_.size()) {
    // \r\n is one line end; a lone \r also ends a line (Python's universal newlines).
    if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
  }
  ++line_;
  current_ = text_.substr(start, end - start);
  tokens_.clear();
  std::size_t i = 0;
  while (i < current_.size()) {
    while (i < current_.size() && isPythonSpace(current_[i])) ++i;
    const std::size_t t = i;
    while (i < current_.size() && !isPythonSpace(current_[i])) ++i;
    if (i > t) tokens_.push_back(current_.substr(t, i - t));
  }
  return true;
}

bool isPlainDigits(std::string_view token) {
  if (token.empty()) return false;
  for (char c : token)
    if (c < '0' || c > '9') return false;
  return true;
}

bool parsePythonInt(std::string_view token, std::int64_t& out) {
  bool negative = false;
  if (!token.empty() && (token[0] == '+' || token[0] == '-')) {
    negative = token[0] == '-';
    token.remove_prefix(1);
  }
  if (!isPlainDigits(token)) return false;
  std::uint64_t magnitude = 0;
  const auto r = std::from_chars(token.data(), token.data() + token.size(), magnitude);
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (r.ec == std::errc::result_out_of_range || magnitude > kMax) {
    out = negative ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
    return true;
  }
  out = negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
  return true;
}

bool parsePythonFloat(std::string_view token, double& out) {
  if (!token.empty() && token[0] == '+') token.remove_prefix(1);
  if (token.empty() || token[0] == '+') return false;
  // Only decimal digits, a point, signs and an exponent: from_chars would also take "nan(...)".
  for (char c : token)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return false;
  const auto r = std::from_chars(token.data(), token.data() + token.size(), out);
  return r.ec == std::errc() && r.ptr == token.data() + token.size() && std::isfinite(out);
}

std::string quoteToken(std::string_view what) {
  std::string out = "\"";
  std::size_t n = 0;
  for (char ch : what) {
    if (++n > 40) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out.push_back(ch);
    } else {
      static const char* kHex = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace rigfit::detail
