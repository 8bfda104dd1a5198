// "Save rig" (docs/mpfb-behaviour.md §6.2): bone positions on a body -> a version 110 rig with
// automatic strategies (§6.3), saved strategies kept by the "clearly better" rule (§6.4) and
// MPFB's rounding (§6.6).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "fit/bone_order.hpp"
#include "rigfit/author.hpp"
#include "rigfit/bone_frame.hpp"

namespace rigfit {
namespace {

constexpr const char* kLockKey = "strategy_lock";

Vec3d rounded(const Eigen::Vector3d& v) { return {roundForRig(v.x()), roundForRig(v.y()), roundForRig(v.z())}; }

Vec3d rounded(const Vec3d& v) { return {roundForRig(v[0]), roundForRig(v[1]), roundForRig(v[2])}; }

bool isZero(const Vec3d& v) { return v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0; }

// The saved strategy as MPFB writes it back: strategy fields, offset only if non-zero.
EndDef savedCopy(const EndDef& s, const Eigen::Vector3d& pos) {
  EndDef e;
  e.strategy = s.strategy;
  switch (s.strategy) {
    case Strategy::kCube: e.cube_name = s.cube_name; break;
    case Strategy::kVertex: e.vertex_index = s.vertex_index; break;
    case Strategy::kMean:
    case Strategy::kXyz: e.vertex_indices = s.vertex_indices; break;
    case Strategy::kDefault: break;
  }
  if (s.offset) {
    const Vec3d o = rounded(*s.offset);
    if (!isZero(o)) e.offset = o;
  }
  e.default_position = rounded(pos);
  return e;
}

}  // namespace

bool endLocked(const BoneDef& bone, bool head) {
  const Json* end = bone.json.find(head ? "head" : "tail");
  const Json* lock = end && end->isObject() ? end->find(kLockKey) : nullptr;
  return lock && lock->isBool() && lock->asBool();
}

void setEndLocked(BoneDef& bone, bool head, bool locked) {
  if (!bone.json.isObject()) bone.json = Json::object();
  Json* end = bone.json.find(head ? "head" : "tail");
  if (!end || !end->isObject()) end = &bone.json.set(head ? "head" : "tail", Json::object());
  if (locked) end->set(kLockKey, true);
  else end->erase(kLockKey);
}

double roundForRig(double x) {
  if (!std::isfinite(x)) return x;
  // Python's round(x, 5): the decimal nearest to the exact binary value (glibc's printf rounds
  // exactly), read back as the nearest double; -0.0 becomes 0.0.
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.5f", x);
  const double r = std::strtod(buf, nullptr);
  return r == 0.0 ? 0.0 : r;
}

std::vector<BonePlacement> placementsFromSkeleton(const Skeleton& s) {
  std::vector<BonePlacement> out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    out[i].name = s.names[i];
    out[i].parent = s.parents[i] == kNoParent ? std::string() : s.names[static_cast<std::size_t>(s.parents[i])];
    out[i].head = s.heads[i];
    out[i].tail = s.tails[i];
    out[i].roll = s.rolls[i];
  }
  return out;
}

Expected<RigDefinition> saveRig(const RigDefinition& base, std::span<const BonePlacement> placements, const PositionInfo& info,
                                const SaveOptions& options, SaveReport* report) {
  SaveReport rep;
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t i = 0; i < placements.size(); ++i)
    if (!index.emplace(placements[i].name, i).second)
      return makeError(ErrorCode::kSchema, "bone \"" + placements[i].name + "\": two bones have this name");
  std::unordered_map<std::string_view, const BoneDef*> base_bones;
  for (const BoneDef& b : base.bones) base_bones.emplace(b.name, &b);
  const double relative_scale = base.scale_factor ? info.mesh_scale_factor / *base.scale_factor : 1.0;

  RigDefinition rig;
  rig.label = base.label;
  rig.layout = RigLayout::kBones;
  rig.version = 110;
  rig.is_subrig = options.subrig;
  if (info.mesh_scale_factor != 0.0) rig.scale_factor = info.mesh_scale_factor;
  rig.collections = base.collections;
  rig.extra_bones = base.extra_bones;
  rig.header = Json::object();
  {
    Json cols = Json::array();
    for (const auto& c : rig.collections) cols.push(c);
    rig.header.set("collections", std::move(cols));
    if (!rig.extra_bones.empty()) {
      Json extra = Json::array();
      for (const auto& c : rig.extra_bones) extra.push(c);
      rig.header.set("extra_bones", std::move(extra));
    }
    rig.header.set("is_subrig", rig.is_subrig);
    if (options.rigify_ui) {
      const Json* ui = base.header.find("rigify_ui");
      rig.header.set("rigify_ui", ui ? *ui : Json());
    }
    if (rig.scale_factor) rig.header.set("scale_factor", *rig.scale_factor);
    rig.header.set("version", 110);
  }

  MatchOptions match;
  match.fast = options.fast;
  rig.bones.reserve(placements.size());
  for (const BonePlacement& p : placements) {
    auto it = base_bones.find(p.name);
    const BoneDef* b = it == base_bones.end() ? nullptr : it->second;
    BoneDef bone;
    if (b) {
      bone = *b;
      bone.parent = b->parent.empty() || index.count(b->parent) ? b->parent : p.parent;
    } else {
      bone.name = p.name;
      bone.parent = p.parent;
      bone.json = Json::object();
      rep.new_bones.push_back(p.name);
    }
    if (!bone.parent.empty() && !index.count(bone.parent))
      return makeError(ErrorCode::kSchema, "bone \"" + p.name + "\": parent \"" + bone.parent + "\" is not a bone of the skeleton");

    // Roll: the edit roll as placed; the WORLD strategies clear it (§4.2, §6.4).
    bone.roll = roundForRig(p.roll);
    if (bone.roll_strategy == RollStrategy::kAlignZWorldZ || bone.roll_strategy == RollStrategy::kAlignXWorldX) bone.roll = 0.0;
    if (bone.roll_strategy == RollStrategy::kAlignZReferenceZ) {
      Vec3d ref;
      if (bone.roll_reference_z) {
        ref = *bone.roll_reference_z;
      } else {
        const Eigen::Vector3d d = p.tail - p.head;
        const Eigen::Vector3d n = d.norm() > 0.0 ? Eigen::Vector3d(d.normalized()) : Eigen::Vector3d::UnitY();
        const Eigen::Vector3d z = boneFrame(n, p.roll).col(2);
        ref = {z.x(), z.y(), z.z()};
      }
      bone.roll_reference_z = rounded(ref);
    }

    for (int h = 0; h < 2; ++h) {
      const bool head = h == 0;
      const Eigen::Vector3d& pos = head ? p.head : p.tail;
      double auto_dist = 0.0;
      EndDef automatic = chooseStrategy(info, pos, match, &auto_dist);
      automatic.default_position = rounded(pos);
      EndDef chosen = automatic;
      bool from_auto = true;
      const EndDef* saved = b && options.use_saved ? (head ? &b->head : &b->tail) : nullptr;
      const bool locked = b && endLocked(*b, head);
      if (saved && saved->strategy != Strategy::kDefault) {
        if (auto saved_pos = evaluateStrategy(info, *saved, relative_scale)) {
          bool keep_saved = true;
          if (locked) {
            ++rep.saved_locked;
          } else if (automatic.strategy != Strategy::kDefault) {
            const auto auto_pos = evaluateStrategy(info, automatic);
            // The automatic choice wins only when it is clearly (more than 0.1 mm) better.
            if (auto_pos && (pos - *saved_pos).norm() - (pos - *auto_pos).norm() > MatchConstants::kReplaceThreshold) {
              keep_saved = false;
              ++rep.saved_replaced;
            } else {
              ++rep.saved_kept;
            }
          } else {
            ++rep.saved_kept;
          }
          if (keep_saved) {
            chosen = savedCopy(*saved, pos);
            from_auto = false;
          }
        }
      }
      if (from_auto) ++rep.automatic;
      ++rep.ends_by_strategy[static_cast<int>(chosen.strategy)];
      if (chosen.strategy == Strategy::kDefault && (rep.default_bones.empty() || rep.default_bones.back() != p.name))
        rep.default_bones.push_back(p.name);
      (head ? bone.head : bone.tail) = std::move(chosen);
      if (from_auto) setEndLocked(bone, head, false);
    }
    rig.bones.push_back(std::move(bone));
  }
  // Unique names, known parents, parent chains that end at a root.
  using Problem = detail::BoneLinks::Problem;
  if (const detail::BoneLinks links = detail::linkBones(rig); links.problem != Problem::kNone) {
    const BoneDef& bone = rig.bones[links.bone];
    const std::string what = links.problem == Problem::kCycle           ? detail::cycleText(rig, links.cycle)
                             : links.problem == Problem::kUnknownParent ? "unknown parent \"" + bone.parent + "\""
                                                                       : std::string("duplicate bone name");
    return makeError(ErrorCode::kSchema, "bone \"" + bone.name + "\": " + what);
  }
  rep.bones = rig.bones.size();
  if (report) *report = std::move(rep);
  return rig;
}

}  // namespace rigfit
