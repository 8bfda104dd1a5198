// Whole-file reads and all-or-nothing writes.
#pragma once

#include <string>
#include <string_view>

#include "rigfit/error.hpp"

namespace rigfit {

/// Reads a whole file. `padding` extra bytes of capacity are reserved (zeroed) past the end,
/// for parsers that read ahead (simdjson).
Expected<std::string> readFile(const std::string& path, std::size_t padding = 0);

}  // namespace rigfit
