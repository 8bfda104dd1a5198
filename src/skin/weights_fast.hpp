// The fast path of the weights reader (weights_fast.cpp).
#pragma once

#include <cstddef>
#include <string_view>

#include "rigfit/weights.hpp"

namespace rigfit::detail {

/// Reads a well-formed weights file straight from its bytes (core/json_scan.hpp) into `file`
/// (all but `label`) and returns true; returns false, leaving `file` unspecified, on anything
/// else -- errors, escaped names, negative zeros, integers of more than 15 digits -- which the
/// general reader then decides. `data` must be readable 64 bytes past `size`.
bool readWeightsFast(const char* data, std::size_t size, std::string_view label, std::size_t vertex_count, WeightsFile& file);

/// parseWeights without the fast path: the general reader alone (tests compare the two).
[[nodiscard]] Expected<WeightsFile> parseWeightsGeneral(std::string_view text, std::string_view label, std::size_t vertex_count = 0);

}  // namespace rigfit::detail
