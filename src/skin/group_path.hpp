// The JSON path of a weights group in messages: weights["name"], the name escaped as JSON.
#pragma once

#include <string>
#include <string_view>

namespace rigfit::detail {

inline std::string groupPath(std::string_view name) {
  std::string out = "weights[\"";
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c < 0x20) {
      static const char* kHex = "0123456789abcdef";
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(ch);
    }
  }
  out += "\"]";
  return out;
}

}  // namespace rigfit::detail
