// An asset's weights (docs/mpfb-assets.md §4): MPFB's ClothesService.interpolate_weights() from
// the body's vertex groups, then custom weights files loaded with replace=True
// (RigService.load_weights as load_custom_weights calls it).
#include <algorithm>
#include <unordered_map>

#include "rigfit/asset.hpp"
#include "skin/group_path.hpp"

namespace rigfit {

namespace {

std::int64_t pythonIndex(std::int64_t v, std::size_t n) {
  const auto sn = static_cast<std::int64_t>(n);
  if (v < 0 && v >= -sn) v += sn;
  return v >= 0 && v < sn ? v : -1;
}

// The float32 a Blender vertex group keeps for a weight (its RNA range is [0, 1]).
double blenderWeight(double w) { return static_cast<double>(std::min(1.0f, std::max(0.0f, static_cast<float>(w)))); }

}  // namespace

Expected<WeightsFile> interpolateAssetWeights(const Skin& body_skin, std::span<const std::string> skeleton_names,
                                              const AssetBindings& bindings, std::string label) {
  const std::size_t n = body_skin.vertex_count;
  const std::size_t bones = skeleton_names.size();
  const std::size_t masks = body_skin.masks.size();
  if (body_skin.offsets.size() != n + 1 || body_skin.mask_names.size() != masks)
    return makeError(ErrorCode::kUsage, label + ": interpolateAssetWeights: the body skin is not laid out for its vertex count");
  for (std::uint16_t b : body_skin.bones)
    if (b >= bones)
      return makeError(ErrorCode::kMismatch, label + ": the body skin names bone " + std::to_string(b) + " of a skeleton of " +
                                                 std::to_string(bones) + " bones");

  // Group g < bones: the bone's group; bones + m: mask m. Per asset vertex, the groups met.
  std::vector<std::vector<std::pair<std::uint32_t, double>>> out(bones + masks);
  std::vector<double> sums(bones + masks, 0.0);
  std::vector<std::uint8_t> seen(bones + masks, 0);
  std::vector<std::uint32_t> met;
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    std::int64_t idx[3];
    for (int k = 0; k < 3; ++k) {
      const std::int64_t v = bindings.vertices[i * 3 + static_cast<std::size_t>(k)];
      idx[k] = pythonIndex(v, n);
      if (idx[k] < 0)
        return makeError(ErrorCode::kRange, label + ": asset vertex " + std::to_string(i) + ": body vertex " + std::to_string(v) +
                                                " is outside the body of " + std::to_string(n) + " vertices (MPFB fails on it)");
    }
    met.clear();
    for (int k = 0; k < 3; ++k) {
      const auto v = static_cast<std::size_t>(idx[k]);
      // Python: groups[idx] += group.weight * assigned_weight, float32 weight read as a double.
      const double assigned = bindings.weights[i * 3 + static_cast<std::size_t>(k)];
      auto add = [&](std::uint32_t g, float weight) {
        if (!seen[g]) {
          seen[g] = 1;
          sums[g] = 0.0;
          met.push_back(g);
        }
        sums[g] += static_cast<double>(weight) * assigned;
      };
      for (std::uint32_t e = body_skin.offsets[v]; e < body_skin.offsets[v + 1]; ++e) add(body_skin.bones[e], body_skin.weights[e]);
      for (std::size_t m = 0; m < masks; ++m)
        if (v < body_skin.masks[m].size() && body_skin.masks[m][v] != 0.0f)
          add(static_cast<std::uint32_t>(bones + m), body_skin.masks[m][v]);
    }
    if (met.empty()) continue;
    // Python's sum() of the three weights, left to right.
    const double total = bindings.weights[i * 3] + bindings.weights[i * 3 + 1] + bindings.weights[i * 3 + 2];
    if (total == 0.0)
      return makeError(ErrorCode::kRange, label + ": asset vertex " + std::to_string(i) +
                                              ": its binding weights sum to 0 (MPFB divides by the sum)");
    for (const std::uint32_t g : met) {
      seen[g] = 0;
      const double average = sums[g] / total;
      if (average > 0.001) out[g].emplace_back(static_cast<std::uint32_t>(i), blenderWeight(average));
    }
  }

  WeightsFile file;
  file.label = std::move(label);
  for (std::size_t g = 0; g < out.size(); ++g) {
    if (out[g].empty()) continue;  // MPFB creates no empty group
    WeightsFile::Group& group = file.groups.emplace_back();
    group.name = g < bones ? skeleton_names[g] : body_skin.mask_names[g - bones];
    group.vertices.reserve(out[g].size());
    group.weights.reserve(out[g].size());
    for (const auto& [v, w] : out[g]) {
      group.vertices.push_back(v);
      group.weights.push_back(w);
    }
  }
  return file;
}

Expected<WeightsFile> interpolateAssetWeights(const WeightsFile& body_weights, const Skeleton& skeleton, const RigDefinition& rig,
                                              std::size_t body_vertex_count, const AssetBindings& bindings, std::string label) {
  auto skin = bindWeights(body_weights, skeleton, rig, body_vertex_count);
  if (!skin) return skin.error();
  return interpolateAssetWeights(*skin, skeleton.names, bindings, std::move(label));
}

Status applyCustomWeights(WeightsFile& asset, const WeightsFile& custom, bool all_groups, const Skeleton& skeleton,
                          const RigDefinition& rig, std::size_t asset_vertex_count, std::vector<std::string>* ignored) {
  // The group -> vertex group mapping is bindWeights' (MPFB's _map_weight_groups_to_bones).
  WeightsBinding binding;
  auto skin = bindWeights(custom, skeleton, rig, asset_vertex_count, &binding);
  if (!skin) return skin.error();
  std::unordered_map<std::string_view, std::string_view> target;  // file group -> vertex group
  for (const auto& m : binding.matches) target.emplace(m.group, m.bone);
  for (const auto& m : binding.extra) target.emplace(m.group, m.bone);
  for (const auto& name : binding.masks) target.emplace(name, name);
  if (all_groups)
    for (const auto& name : binding.unmapped) target.emplace(name, name);
  else if (ignored)
    ignored->insert(ignored->end(), binding.unmapped.begin(), binding.unmapped.end());

  // Vertex groups touched, in the order first met; each emptied, then the pairs added.
  std::vector<std::string> names;
  std::unordered_map<std::string, std::size_t> slot;
  std::vector<std::vector<float>> dense;
  std::vector<std::uint8_t> create;  // a group with pairs (or any, with all_groups) exists afterwards
  for (const auto& g : custom.groups) {
    auto t = target.find(g.name);
    if (t == target.end()) continue;
    const std::string name(t->second);
    auto [it, fresh] = slot.emplace(name, names.size());
    if (fresh) {
      names.push_back(name);
      dense.emplace_back(asset_vertex_count, 0.0f);
      create.push_back(0);
    }
    const std::size_t s = it->second;
    if (!g.vertices.empty() || all_groups) create[s] = 1;
    for (std::size_t i = 0; i < g.vertices.size(); ++i) {
      const std::int64_t v = g.vertices[i];
      if (v < 0 || static_cast<std::uint64_t>(v) >= asset_vertex_count)
        return makeError(ErrorCode::kRange, custom.label + ": " + detail::groupPath(g.name) + "[" + std::to_string(i) +
                                                "][0]: vertex index " + std::to_string(v) + " is out of range for an asset of " +
                                                std::to_string(asset_vertex_count) + " vertices");
      // Blender's VertexGroup.add(..., 'ADD'): the weight taken in [0, 1], the sum clamped to 1.
      float& w = dense[s][static_cast<std::size_t>(v)];
      w += std::min(1.0f, std::max(0.0f, static_cast<float>(g.weights[i])));
      if (w >= 1.0f) w = 1.0f;
    }
  }
  for (std::size_t s = 0; s < names.size(); ++s) {
    auto it = std::find_if(asset.groups.begin(), asset.groups.end(), [&](const WeightsFile::Group& g) { return g.name == names[s]; });
    if (it == asset.groups.end()) {
      if (!create[s]) continue;  // emptied a group that does not exist: nothing to do
      it = asset.groups.insert(asset.groups.end(), WeightsFile::Group{});
      it->name = names[s];
    }
    it->vertices.clear();
    it->weights.clear();
    it->weight_is_int.clear();
    // Memberships are created for every listed pair, even of weight 0 (Blender keeps them).
    std::vector<std::uint8_t> listed(asset_vertex_count, 0);
    for (const auto& g : custom.groups) {
      auto t = target.find(g.name);
      if (t == target.end() || t->second != names[s]) continue;
      for (const std::int64_t v : g.vertices) listed[static_cast<std::size_t>(v)] = 1;
    }
    for (std::size_t v = 0; v < asset_vertex_count; ++v)
      if (listed[v]) {
        it->vertices.push_back(static_cast<std::int64_t>(v));
        it->weights.push_back(static_cast<double>(dense[s][v]));
      }
  }
  return {};
}

}  // namespace rigfit
