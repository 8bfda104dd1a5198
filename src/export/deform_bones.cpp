// The deform-only skeleton: bones that carry weight, re-parented across removed ones, one root.
#include <algorithm>

#include "rigfit/export_model.hpp"

namespace rigfit {

Expected<BoneSelection> selectDeformBones(std::span<const int> parents, const Skin& skin) {
  std::vector<std::uint8_t> weighted(parents.size(), 0);
  for (std::size_t k = 0; k < skin.bones.size(); ++k)
    if (skin.weights[k] > 0.0f && skin.bones[k] < weighted.size()) weighted[skin.bones[k]] = 1;
  return selectDeformBones(parents, weighted);
}

Expected<BoneSelection> selectDeformBones(std::span<const int> parents, std::span<const std::uint8_t> weighted) {
  const std::size_t n = parents.size();
  std::vector<std::uint8_t> keep(n, 0);
  for (std::size_t b = 0; b < n && b < weighted.size(); ++b) keep[b] = weighted[b] != 0;
  if (std::find(keep.begin(), keep.end(), 1) == keep.end())
    return makeError(ErrorCode::kUsage, "deform-only: no bone carries weight");

  auto keptAncestor = [&](int b) {
    int p = parents[static_cast<std::size_t>(b)];
    while (p >= 0 && !keep[static_cast<std::size_t>(p)]) p = parents[static_cast<std::size_t>(p)];
    return p;
  };
  auto treeRoot = [&](int b) {
    while (parents[static_cast<std::size_t>(b)] >= 0) b = parents[static_cast<std::size_t>(b)];
    return b;
  };

  // Several kept tops in one tree: their lowest common ancestor holds them together.
  std::vector<std::vector<int>> tops_of_tree(n);
  for (std::size_t b = 0; b < n; ++b)
    if (keep[b] && keptAncestor(static_cast<int>(b)) < 0) tops_of_tree[static_cast<std::size_t>(treeRoot(static_cast<int>(b)))].push_back(static_cast<int>(b));
  for (const auto& tops : tops_of_tree) {
    if (tops.size() < 2) continue;
    std::vector<std::uint8_t> common(n, 0);  // ancestors (and self) of the first top
    for (int a = tops[0]; a >= 0; a = parents[static_cast<std::size_t>(a)]) common[static_cast<std::size_t>(a)] = 1;
    int lca = tops[0];
    for (std::size_t t = 1; t < tops.size(); ++t) {
      int a = tops[t];
      while (!common[static_cast<std::size_t>(a)]) a = parents[static_cast<std::size_t>(a)];
      // a is on the first top's chain; the LCA is the highest such meeting point.
      for (int x = lca; x >= 0; x = parents[static_cast<std::size_t>(x)])
        if (x == a) {
          lca = a;
          break;
        }
    }
    keep[static_cast<std::size_t>(lca)] = 1;
  }

  // New parents; tops of other trees go under the top of the tree with the most kept bones.
  std::vector<int> parent(n, kNoParent);
  std::vector<int> tops;
  std::vector<std::size_t> tree_size(n, 0);
  for (std::size_t b = 0; b < n; ++b) {
    if (!keep[b]) continue;
    parent[b] = keptAncestor(static_cast<int>(b));
    ++tree_size[static_cast<std::size_t>(treeRoot(static_cast<int>(b)))];
    if (parent[b] < 0) tops.push_back(static_cast<int>(b));
  }
  int main_top = tops[0];
  for (int t : tops)
    if (tree_size[static_cast<std::size_t>(treeRoot(t))] > tree_size[static_cast<std::size_t>(treeRoot(main_top))]) main_top = t;
  for (int t : tops)
    if (t != main_top) parent[static_cast<std::size_t>(t)] = main_top;

  // Depth-first from the root, children in skeleton order.
  std::vector<std::vector<int>> children(n);
  for (std::size_t b = 0; b < n; ++b)
    if (keep[b] && parent[b] >= 0) children[static_cast<std::size_t>(parent[b])].push_back(static_cast<int>(b));
  BoneSelection out;
  std::vector<int> index(n, -1);
  std::vector<int> stack{main_top};
  while (!stack.empty()) {
    const int b = stack.back();
    stack.pop_back();
    index[static_cast<std::size_t>(b)] = static_cast<int>(out.bones.size());
    out.bones.push_back(b);
    const int p = parent[static_cast<std::size_t>(b)];
    out.parents.push_back(p < 0 ? kNoParent : index[static_cast<std::size_t>(p)]);
    const auto& c = children[static_cast<std::size_t>(b)];
    stack.insert(stack.end(), c.rbegin(), c.rend());
  }
  return out;
}

}  // namespace rigfit
