// Binding a weights file to a fitted skeleton as MPFB's RigService.apply_weights does
// (docs/mpfb-behaviour.md §7.2): group -> bone mapping with MPFB's fallbacks, then Blender's
// vertex-group ADD (float32, clamped to 1) in MPFB's processing order, then rigfit's sparse skin
// (CSR, heaviest first).
#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "rigfit/number_format.hpp"
#include "rigfit/weights.hpp"
#include "skin/group_path.hpp"

namespace rigfit {

std::size_t Skin::maxInfluences() const {
  std::size_t best = 0;
  for (std::size_t v = 0; v + 1 < offsets.size(); ++v) best = std::max<std::size_t>(best, offsets[v + 1] - offsets[v]);
  return best;
}

namespace {

using detail::groupPath;


bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Python: name[4:] if name.startswith("DEF-") else "DEF-" + name
std::string defToggled(std::string_view name) {
  return startsWith(name, "DEF-") ? std::string(name.substr(4)) : "DEF-" + std::string(name);
}

// re.fullmatch(r'^(?:DEF-)?toe\d-\d.([LR])$', name): returns 'L', 'R' or 0. `.` is one code point
// other than '\n' (the name is UTF-8); `\d` is taken as an ASCII digit.
char toeSide(std::string_view name) {
  if (startsWith(name, "DEF-")) name.remove_prefix(4);
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.size() < 8 || !startsWith(name, "toe") || !digit(name[3]) || name[4] != '-' || !digit(name[5])) return 0;
  const char side = name.back();
  if (side != 'L' && side != 'R') return 0;
  const std::string_view any = name.substr(6, name.size() - 7);  // exactly one code point
  const auto lead = static_cast<unsigned char>(any[0]);
  std::size_t len = 0;
  if (lead < 0x80) len = 1;
  else if ((lead & 0xE0) == 0xC0) len = 2;
  else if ((lead & 0xF0) == 0xE0) len = 3;
  else if ((lead & 0xF8) == 0xF0) len = 4;
  if (len == 0 || any.size() != len || any[0] == '\n') return 0;
  for (std::size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(any[k]) & 0xC0) != 0x80) return 0;
  return side;
}

enum class Target : std::uint8_t { kUnmapped, kBone, kExtra, kMask };

struct GroupTarget {
  Target kind = Target::kUnmapped;
  int bone = -1;
  std::string extra;  // kExtra: the extra bone's name
};

}  // namespace

Expected<Skin> bindWeights(const WeightsFile& file, const Skeleton& skeleton, const RigDefinition& rig, std::size_t vertex_count,
                           WeightsBinding* binding) {
  const std::size_t bone_count = skeleton.size();
  if (bone_count > 65536)
    return makeError(ErrorCode::kUnsupported, file.label + ": the skeleton has " + std::to_string(bone_count) + " bones; a skin holds at most 65536");
  if (vertex_count >= 0xFFFFFFFFu)
    return makeError(ErrorCode::kUnsupported, file.label + ": too many vertices for a skin (" + std::to_string(vertex_count) + ")");

  // Every skeleton bone is a deform bone (rigfit fits deform skeletons).
  std::unordered_map<std::string_view, int> by_name;
  by_name.reserve(bone_count * 2);
  for (std::size_t b = 0; b < bone_count; ++b) by_name.emplace(skeleton.names[b], static_cast<int>(b));
  auto find = [&](std::string_view n) {
    auto it = by_name.find(n);
    return it == by_name.end() ? -1 : it->second;
  };
  std::vector<std::uint8_t> has_toe_child(bone_count, 0);
  for (std::size_t b = 0; b < bone_count; ++b)
    if (skeleton.parents[b] >= 0 && skeleton.names[b].find("toe") != std::string::npos)
      has_toe_child[static_cast<std::size_t>(skeleton.parents[b])] = 1;
  const std::unordered_set<std::string_view> extra_bones(rig.extra_bones.begin(), rig.extra_bones.end());

  // 1. Map groups (RigService._map_weight_groups_to_bones).
  std::vector<GroupTarget> targets(file.groups.size());
  for (std::size_t gi = 0; gi < file.groups.size(); ++gi) {
    const std::string& name = file.groups[gi].name;
    const std::string toggled = defToggled(name);
    GroupTarget& t = targets[gi];
    int b = find(name);
    if (b < 0) b = find(toggled);
    if (b < 0) {
      if (const char side = toeSide(name)) {
        const std::string s(1, side);
        int toe = find("toe." + s);
        if (toe < 0) toe = find("DEF-toe." + s);
        if (toe < 0) toe = find("toe1-1." + s);
        if (toe >= 0 && !has_toe_child[static_cast<std::size_t>(toe)]) b = toe;
      }
    }
    if (b >= 0) {
      t.kind = Target::kBone;
      t.bone = b;
    } else if (extra_bones.count(name)) {
      t.kind = Target::kExtra;
      t.extra = name;
    } else if (extra_bones.count(toggled)) {
      t.kind = Target::kExtra;
      t.extra = toggled;
    } else if (startsWith(name, "mhmask-")) {
      t.kind = Target::kMask;
    }
  }

  // 2. Check every group that is loaded (MPFB would add it to a vertex group).
  for (std::size_t gi = 0; gi < file.groups.size(); ++gi) {
    if (targets[gi].kind == Target::kUnmapped) continue;
    const WeightsFile::Group& g = file.groups[gi];
    if (g.vertices.size() != g.weights.size())
      return makeError(ErrorCode::kMismatch, file.label + ": " + groupPath(g.name) + ": " + std::to_string(g.vertices.size()) +
                                                 " vertex indices but " + std::to_string(g.weights.size()) + " weights");
    for (std::size_t i = 0; i < g.vertices.size(); ++i) {
      const std::int64_t v = g.vertices[i];
      if (v < 0 || static_cast<std::uint64_t>(v) >= vertex_count)
        return makeError(ErrorCode::kRange, file.label + ": " + groupPath(g.name) + "[" + std::to_string(i) + "][0]: vertex index " +
                                                std::to_string(v) + " is out of range for a mesh of " + std::to_string(vertex_count) + " vertices");
      const double w = g.weights[i];
      if (!(w >= 0.0))
        return makeError(ErrorCode::kSchema, file.label + ": " + groupPath(g.name) + "[" + std::to_string(i) + "][1]: weight is " +
                                                 (std::isnan(w) ? std::string("NaN") : "negative (" + formatPythonFloat(w) + ")"));
    }
  }

  // 3. Processing order: bones in skeleton order, each with its groups in file order.
  std::vector<std::uint32_t> group_order;
  {
    std::vector<std::uint32_t> first(bone_count + 1, 0);
    for (const auto& t : targets)
      if (t.kind == Target::kBone) ++first[static_cast<std::size_t>(t.bone) + 1];
    for (std::size_t b = 0; b < bone_count; ++b) first[b + 1] += first[b];
    group_order.resize(first[bone_count]);
    for (std::size_t gi = 0; gi < targets.size(); ++gi)
      if (targets[gi].kind == Target::kBone) group_order[first[static_cast<std::size_t>(targets[gi].bone)]++] = static_cast<std::uint32_t>(gi);
  }

  // Entries in processing order, then stably bucketed by vertex (counting sort), so that per
  // vertex and bone the additions happen in MPFB's order.
  std::size_t entry_count = 0;
  for (std::uint32_t gi : group_order) entry_count += file.groups[gi].vertices.size();
  if (entry_count >= 0xFFFFFFFFu)
    return makeError(ErrorCode::kUnsupported, file.label + ": too many weights for a skin (" + std::to_string(entry_count) + ")");
  std::vector<std::uint32_t> start(vertex_count + 1, 0);
  for (std::uint32_t gi : group_order)
    for (std::int64_t v : file.groups[gi].vertices) ++start[static_cast<std::size_t>(v) + 1];
  for (std::size_t v = 0; v < vertex_count; ++v) start[v + 1] += start[v];
  std::vector<std::uint16_t> entry_bone(entry_count);
  std::vector<float> entry_weight(entry_count);
  {
    std::vector<std::uint32_t> cursor(start.begin(), start.end() - 1);
    for (std::uint32_t gi : group_order) {
      const WeightsFile::Group& g = file.groups[gi];
      const auto bone = static_cast<std::uint16_t>(targets[gi].bone);
      for (std::size_t i = 0; i < g.vertices.size(); ++i) {
        const std::uint32_t at = cursor[static_cast<std::size_t>(g.vertices[i])]++;
        entry_bone[at] = bone;
        // Blender's VertexGroup.add takes a float in [0, 1].
        entry_weight[at] = std::min(1.0f, static_cast<float>(g.weights[i]));
      }
    }
  }

  Skin skin;
  skin.vertex_count = vertex_count;
  skin.bone_count = bone_count;
  skin.offsets.resize(vertex_count + 1);
  skin.bones.resize(entry_count);  // at most one per entry; shrunk below
  skin.weights.resize(entry_count);
  std::uint16_t* out_b = skin.bones.data();
  float* out_w = skin.weights.data();
  std::uint32_t out = 0;
  std::vector<std::pair<std::uint16_t, float>> local;
  std::vector<std::uint8_t> bone_used(bone_count, 0);
  for (std::size_t v = 0; v < vertex_count; ++v) {
    skin.offsets[v] = out;
    const std::uint32_t e0 = start[v], e1 = start[v + 1];
    if (e1 - e0 == 1) {  // one entry (most vertices): nothing to add up or sort
      const float w = entry_weight[e0];
      if (!(w > 0.0f)) continue;
      out_b[out] = entry_bone[e0];
      out_w[out] = w;
      bone_used[entry_bone[e0]] = 1;
      ++out;
      continue;
    }
    local.clear();
    for (std::uint32_t e = e0; e < e1; ++e) {
      const std::uint16_t b = entry_bone[e];
      const float w = entry_weight[e];
      auto it = std::find_if(local.begin(), local.end(), [b](const auto& p) { return p.first == b; });
      if (it == local.end()) {
        local.emplace_back(b, w);
      } else {
        it->second += w;  // Blender's WEIGHT_ADD: float32 sum, clamped at 1
        if (it->second >= 1.0f) it->second = 1.0f;
      }
    }
    // Zero weights are group memberships in Blender; they deform nothing and stay out of the skin.
    local.erase(std::remove_if(local.begin(), local.end(), [](const auto& p) { return !(p.second > 0.0f); }), local.end());
    // Heaviest first, then by bone: a strict order (bones are distinct here).
    std::sort(local.begin(), local.end(), [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    for (const auto& [b, w] : local) {
      out_b[out] = b;
      out_w[out] = w;
      bone_used[b] = 1;
      ++out;
    }
  }
  skin.bones.resize(out);
  skin.weights.resize(out);
  skin.offsets[vertex_count] = out;

  // Masks: dense, same ADD semantics.
  for (std::size_t gi = 0; gi < file.groups.size(); ++gi) {
    if (targets[gi].kind != Target::kMask) continue;
    const WeightsFile::Group& g = file.groups[gi];
    skin.mask_names.push_back(g.name);
    std::vector<float>& m = skin.masks.emplace_back(vertex_count, 0.0f);
    for (std::size_t i = 0; i < g.vertices.size(); ++i) {
      float& w = m[static_cast<std::size_t>(g.vertices[i])];
      w += std::min(1.0f, static_cast<float>(g.weights[i]));
      if (w >= 1.0f) w = 1.0f;
    }
  }

  if (binding) {
    *binding = WeightsBinding{};
    for (std::size_t gi = 0; gi < file.groups.size(); ++gi) {
      const std::string& name = file.groups[gi].name;
      switch (targets[gi].kind) {
        case Target::kBone: binding->matches.push_back({name, skeleton.names[static_cast<std::size_t>(targets[gi].bone)]}); break;
        case Target::kExtra: binding->extra.push_back({name, targets[gi].extra}); break;
        case Target::kMask: binding->masks.push_back(name); break;
        case Target::kUnmapped: binding->unmapped.push_back(name); break;
      }
    }
    for (std::size_t b = 0; b < bone_count; ++b)
      if (!bone_used[b]) binding->unweighted_bones.push_back(skeleton.names[b]);
  }
  return skin;
}

}  // namespace rigfit
