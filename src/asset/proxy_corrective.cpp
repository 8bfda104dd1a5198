// MPFB's proxy corrective (docs/mpfb-assets.md §3): sided weights cleaned on listed body proxies.
#include <algorithm>
#include <cctype>

#include "rigfit/asset.hpp"

namespace rigfit {

namespace {

enum class Side { kNone, kLeft, kRight };

Side sideOf(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  const auto sided = [&](char s) {
    const std::string suffix{'.', s};
    return name.ends_with(suffix) || name.starts_with(std::string{s, '-'}) || name.starts_with(std::string{s, '_'});
  };
  if (sided('r')) return Side::kRight;
  if (sided('l')) return Side::kLeft;
  return Side::kNone;
}

}  // namespace

bool proxyNeedsSidedFix(const Json& corrective, std::string_view uuid) {
  if (!corrective.isObject() || uuid.empty()) return false;
  const Json* entry = corrective.find(std::string(uuid));
  return entry && entry->isObject() && entry->find("fix_leftright_weights_for_groups") != nullptr;
}

void fixSidedWeights(Skin& skin, std::span<const std::string> bone_names, std::span<const float> positions) {
  std::vector<Side> side(bone_names.size());
  for (std::size_t b = 0; b < bone_names.size(); ++b) side[b] = sideOf(bone_names[b]);
  std::uint32_t w = 0;
  for (std::size_t v = 0; v < skin.vertex_count; ++v) {
    const float x = 3 * v < positions.size() ? positions[3 * v] : 0.0f;
    const std::uint32_t begin = skin.offsets[v], end = skin.offsets[v + 1];
    skin.offsets[v] = w;
    for (std::uint32_t k = begin; k < end; ++k) {
      const Side s = skin.bones[k] < side.size() ? side[skin.bones[k]] : Side::kNone;
      if ((s == Side::kRight && double(x) > 1e-4) || (s == Side::kLeft && double(x) < -1e-4)) continue;
      skin.bones[w] = skin.bones[k];
      skin.weights[w] = skin.weights[k];
      ++w;
    }
  }
  skin.offsets[skin.vertex_count] = w;
  skin.bones.resize(w);
  skin.weights.resize(w);
  // Masks named as sides (none in MakeHuman's data) are cleaned alike.
  for (std::size_t m = 0; m < skin.mask_names.size(); ++m) {
    const Side s = sideOf(skin.mask_names[m]);
    if (s == Side::kNone) continue;
    for (std::size_t v = 0; v < skin.masks[m].size() && 3 * v < positions.size(); ++v)
      if ((s == Side::kRight && double(positions[3 * v]) > 1e-4) || (s == Side::kLeft && double(positions[3 * v]) < -1e-4))
        skin.masks[m][v] = 0.0f;
  }
}

}  // namespace rigfit
