// The order bones take in a fitted skeleton, and the skeleton's names and parents without a fit.
#include "fit/bone_order.hpp"

#include <string_view>
#include <unordered_map>

#include "rigfit/fit.hpp"

namespace rigfit {

std::vector<std::uint32_t> detail::parentsFirstOrder(std::span<const int> parent) {
  const std::size_t nb = parent.size();
  std::vector<std::vector<std::uint32_t>> children(nb);
  std::vector<std::uint32_t> roots, order, stack;
  for (std::size_t i = 0; i < nb; ++i) {
    if (parent[i] == kNoParent) roots.push_back(static_cast<std::uint32_t>(i));
    else children[static_cast<std::size_t>(parent[i])].push_back(static_cast<std::uint32_t>(i));
  }
  order.reserve(nb);
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back(*it);
  while (!stack.empty()) {
    const std::uint32_t b = stack.back();
    stack.pop_back();
    order.push_back(b);
    const auto& ch = children[b];
    for (auto it = ch.rbegin(); it != ch.rend(); ++it) stack.push_back(*it);
  }
  return order;
}

std::optional<Skeleton> skeletonTopology(const RigDefinition& rig) {
  const std::size_t nb = rig.bones.size();
  std::unordered_map<std::string_view, int> by_name;
  by_name.reserve(nb);
  for (std::size_t i = 0; i < nb; ++i)
    if (!by_name.emplace(rig.bones[i].name, static_cast<int>(i)).second) return std::nullopt;
  std::vector<int> parent(nb, kNoParent);
  for (std::size_t i = 0; i < nb; ++i) {
    if (rig.bones[i].parent.empty()) continue;
    auto it = by_name.find(rig.bones[i].parent);
    if (it == by_name.end()) return std::nullopt;
    parent[i] = it->second;
  }
  const std::vector<std::uint32_t> order = detail::parentsFirstOrder(parent);
  if (order.size() != nb) return std::nullopt;
  std::vector<int> rank(nb);
  for (std::size_t k = 0; k < nb; ++k) rank[order[k]] = static_cast<int>(k);
  Skeleton s;
  s.names.reserve(nb);
  s.parents.reserve(nb);
  for (std::uint32_t i : order) {
    s.names.push_back(rig.bones[i].name);
    s.parents.push_back(parent[i] == kNoParent ? kNoParent : rank[static_cast<std::size_t>(parent[i])]);
  }
  return s;
}

}  // namespace rigfit
