// JSON's number grammar, for readers that take number tokens from simdjson's raw text.
#pragma once

#include <cstddef>
#include <string_view>

namespace rigfit::detail {

/// True when `s` is exactly one JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
/// `integer` (optional) is set to whether it has neither a fraction nor an exponent.
inline bool isJsonNumber(std::string_view s, bool* integer = nullptr) {
  std::size_t p = 0;
  auto digits = [&] {
    const std::size_t start = p;
    while (p < s.size() && s[p] >= '0' && s[p] <= '9') ++p;
    return p - start;
  };
  if (p < s.size() && s[p] == '-') ++p;
  const std::size_t int_start = p;
  const std::size_t n = digits();
  if (n == 0 || (n > 1 && s[int_start] == '0')) return false;
  bool is_int = true;
  if (p < s.size() && s[p] == '.') {
    ++p;
    is_int = false;
    if (digits() == 0) return false;
  }
  if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
    ++p;
    is_int = false;
    if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
    if (digits() == 0) return false;
  }
  if (integer) *integer = is_int;
  return p == s.size();
}

}  // namespace rigfit::detail
