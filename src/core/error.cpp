#include "rigfit/error.hpp"

#include <string>

namespace rigfit {

const char* errorName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kIo: return "io";
    case ErrorCode::kSyntax: return "syntax";
    case ErrorCode::kSchema: return "schema";
    case ErrorCode::kRange: return "range";
    case ErrorCode::kMismatch: return "mismatch";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kUsage: return "usage";
  }
  return "unknown";
}

std::string elideMessage(std::string m) {
  constexpr std::size_t kLongRun = 64, kHead = 40, kTail = 16, kMax = 300, kMaxHead = 200, kMaxTail = 90;
  if (m.size() <= kMax) return m;
  std::string out;
  out.reserve(kMax + 64);
  for (std::size_t i = 0; i < m.size();) {
    std::size_t j = i;
    while (j < m.size() && m[j] != ' ') ++j;
    if (j - i > kLongRun) {
      out.append(m, i, kHead);
      out += "...(" + std::to_string(j - i) + " bytes)...";
      out.append(m, j - kTail, kTail);
    } else {
      out.append(m, i, j - i);
    }
    if (j < m.size()) out.push_back(' ');
    i = j + 1;
  }
  if (out.size() > kMax) out = out.substr(0, kMaxHead) + " ... " + out.substr(out.size() - kMaxTail);
  return out;
}

Error makeError(ErrorCode code, std::string message) { return Error{code, elideMessage(std::move(message))}; }

}  // namespace rigfit
