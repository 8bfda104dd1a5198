#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace rigfit::detail {

/// Parents-first, depth-first order of bones given each bone's parent index (kNoParent for a
/// root): roots, and each bone's children, in index order. Bones in a parent cycle are never
/// reached and are left out.
std::vector<std::uint32_t> parentsFirstOrder(std::span<const int> parent);

}  // namespace rigfit::detail
