#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rigfit/rig.hpp"

namespace rigfit::detail {

/// Parents-first, depth-first order of bones given each bone's parent index (kNoParent for a
/// root): roots, and each bone's children, in index order. Bones in a parent cycle are never
/// reached and are left out.
std::vector<std::uint32_t> parentsFirstOrder(std::span<const int> parent);

/// A rig's bones linked by name: each one's parent index, the parents-first order and each
/// bone's place in it, or the first problem found (checked in this order: a duplicate name,
/// then an unknown parent, then a cycle) and the bone it is on.
struct BoneLinks {
  enum class Problem { kNone, kDuplicateName, kUnknownParent, kCycle };
  std::vector<int> parent;            ///< rig order index, or kNoParent
  std::vector<std::uint32_t> order;   ///< parents-first
  std::vector<std::uint32_t> rank;    ///< rank[rig index] = position in `order`
  Problem problem = Problem::kNone;
  std::size_t bone = 0;               ///< the bone with the problem
  std::vector<std::size_t> cycle;     ///< kCycle: its bones, from the first in file order, each followed by its parent
};
BoneLinks linkBones(const RigDefinition& rig);
/// A kCycle problem in words: "the bone is its own parent", or "parent chain forms a cycle:
/// a -> b -> a".
std::string cycleText(const RigDefinition& rig, const std::vector<std::size_t>& cycle);

}  // namespace rigfit::detail
