// The order bones take in a fitted skeleton, and the skeleton's names and parents without a fit.
#include "fit/bone_order.hpp"

#include <algorithm>
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

namespace {

// The bones of one parent cycle, given that some bone is not reached from a root: walking up from
// it must end in a cycle. Listed from the cycle's first bone in file order, following parents.
std::vector<std::size_t> findCycle(const std::vector<int>& parent, const std::vector<std::uint32_t>& reached) {
  const std::size_t nb = parent.size();
  std::vector<std::uint8_t> state(nb, 0);  // 1: reached from a root, 2: on this walk
  for (auto b : reached) state[b] = 1;
  std::size_t b = 0;
  while (state[b]) ++b;
  while (state[b] != 2) {  // every unreached bone has an unreached parent
    state[b] = 2;
    b = static_cast<std::size_t>(parent[b]);
  }
  std::size_t first = b;
  for (std::size_t k = static_cast<std::size_t>(parent[b]); k != b; k = static_cast<std::size_t>(parent[k])) first = std::min(first, k);
  std::vector<std::size_t> cycle{first};
  for (std::size_t k = static_cast<std::size_t>(parent[first]); k != first; k = static_cast<std::size_t>(parent[k])) cycle.push_back(k);
  return cycle;
}

}  // namespace

std::string detail::cycleText(const RigDefinition& rig, const std::vector<std::size_t>& cycle) {
  if (cycle.size() == 1) return "the bone is its own parent";
  std::string out = "parent chain forms a cycle: ";
  for (std::size_t b : cycle) out += rig.bones[b].name + " -> ";
  return out + rig.bones[cycle.front()].name;
}

detail::BoneLinks detail::linkBones(const RigDefinition& rig) {
  BoneLinks links;
  const std::size_t nb = rig.bones.size();
  auto problem = [&](BoneLinks::Problem what, std::size_t bone) {
    links.problem = what;
    links.bone = bone;
    return std::move(links);
  };
  std::unordered_map<std::string_view, int> by_name;
  by_name.reserve(nb);
  for (std::size_t i = 0; i < nb; ++i)
    if (!by_name.emplace(rig.bones[i].name, static_cast<int>(i)).second) return problem(BoneLinks::Problem::kDuplicateName, i);
  links.parent.assign(nb, kNoParent);
  for (std::size_t i = 0; i < nb; ++i) {
    if (rig.bones[i].parent.empty()) continue;
    auto it = by_name.find(rig.bones[i].parent);
    if (it == by_name.end()) return problem(BoneLinks::Problem::kUnknownParent, i);
    links.parent[i] = it->second;
  }
  links.order = parentsFirstOrder(links.parent);
  if (links.order.size() != nb) {  // bones never reached from a root lead into a cycle
    links.cycle = findCycle(links.parent, links.order);
    return problem(BoneLinks::Problem::kCycle, links.cycle.front());
  }
  links.rank.resize(nb);
  for (std::size_t k = 0; k < nb; ++k) links.rank[links.order[k]] = static_cast<std::uint32_t>(k);
  return links;
}

std::optional<Skeleton> skeletonTopology(const RigDefinition& rig) {
  const detail::BoneLinks links = detail::linkBones(rig);
  if (links.problem != detail::BoneLinks::Problem::kNone) return std::nullopt;
  Skeleton s;
  s.names.reserve(links.order.size());
  s.parents.reserve(links.order.size());
  for (std::uint32_t i : links.order) {
    const int parent = links.parent[i];
    s.names.push_back(rig.bones[i].name);
    s.parents.push_back(parent == kNoParent ? kNoParent : static_cast<int>(links.rank[static_cast<std::size_t>(parent)]));
  }
  return s;
}

}  // namespace rigfit
