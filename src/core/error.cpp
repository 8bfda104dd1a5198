#include "rigfit/error.hpp"

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

}  // namespace rigfit
