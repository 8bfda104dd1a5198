// Writing files so that a failure never leaves a partial output behind.
#pragma once

#include <string>
#include <string_view>

#include "rigfit/error.hpp"

namespace rigfit {

/// Writes `bytes` to a temporary file beside `path`, flushes it, then renames it over `path`.
/// On any failure the temporary file is removed and `path` is left as it was.
Status writeFileAtomic(const std::string& path, std::string_view bytes);

}  // namespace rigfit
