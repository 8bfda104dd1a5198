// Whole-file reads and all-or-nothing writes.
#pragma once

#include <string>
#include <string_view>

#include "rigfit/error.hpp"

namespace rigfit {

/// Reads a whole file. (For parsers that read past the end of their text, loadFile pads it.)
Expected<std::string> readFile(const std::string& path);

}  // namespace rigfit
