// The developer bone-strategy tools (docs/mpfb-behaviour.md §6.5) as library calls.
#include <algorithm>
#include <cmath>

#include <Eigen/Geometry>

#include "core/name_hint.hpp"
#include "rigfit/author.hpp"
#include "rigfit/bone_frame.hpp"
#include "rigfit/fit.hpp"

namespace rigfit {
namespace {

constexpr double kLinkDistance = 1e-4;  // ends this close count as the same joint
constexpr double kZeroOffset = 1e-4;    // offsets this small are stored as zero

Eigen::Vector3d toEigen(const Vec3d& v) { return {v[0], v[1], v[2]}; }

}  // namespace

RigEditor::RigEditor(RigDefinition rig, const PositionInfo& info, std::vector<Eigen::Vector3d> heads,
                     std::vector<Eigen::Vector3d> tails, std::vector<double> rolls)
    : rig_(std::move(rig)), info_(&info), heads_(std::move(heads)), tails_(std::move(tails)), rolls_(std::move(rolls)) {
  const std::size_t n = rig_.bones.size();
  heads_.resize(n, Eigen::Vector3d::Zero());
  tails_.resize(n, Eigen::Vector3d::Zero());
  rolls_.resize(n, 0.0);
}

Expected<RigEditor> RigEditor::fromFit(RigDefinition rig, const PositionInfo& info, std::span<const float> positions,
                                       const VertexGroups& groups) {
  FitOptions o;
  o.allow_fallback = true;  // the editor is where broken strategies get fixed
  auto prepared = prepareRig(rig, groups, positions.size() / 3, info.mesh_scale_factor, o);
  if (!prepared) return prepared.error();
  FitResult fit;
  RIGFIT_TRY(fitSkeleton(*prepared, positions, fit));
  const std::size_t n = rig.bones.size();
  std::vector<Eigen::Vector3d> heads(n), tails(n);
  std::vector<double> rolls(n);
  // Bones Blender would drop (zero length) keep their strategy or default positions.
  const double rs = rig.scale_factor ? info.mesh_scale_factor / *rig.scale_factor : 1.0;
  for (std::size_t i = 0; i < n; ++i) {
    const BoneDef& b = rig.bones[i];
    auto at = [&](const EndDef& e) {
      if (auto p = evaluateStrategy(info, e, rs)) return *p;
      return e.default_position ? toEigen(*e.default_position) : Eigen::Vector3d::Zero();
    };
    heads[i] = at(b.head);
    tails[i] = at(b.tail);
    rolls[i] = b.roll;
  }
  const Skeleton& s = fit.skeleton;
  for (std::size_t k = 0; k < s.size(); ++k) {
    heads[s.source[k]] = s.heads[k];
    tails[s.source[k]] = s.tails[k];
    rolls[s.source[k]] = s.rolls[k];
  }
  return RigEditor(std::move(rig), info, std::move(heads), std::move(tails), std::move(rolls));
}

double RigEditor::relativeScale() const {
  return rig_.scale_factor ? info_->mesh_scale_factor / *rig_.scale_factor : 1.0;
}

Expected<RigEditor::End> RigEditor::find(std::string_view bone, std::string_view end) const {
  if (end != "head" && end != "tail")
    return makeError(ErrorCode::kUsage, "bone end \"" + std::string(end) + "\": expected head or tail");
  for (std::size_t i = 0; i < rig_.bones.size(); ++i)
    if (rig_.bones[i].name == bone) return End{i, end == "head"};
  std::vector<std::string_view> names;
  for (const auto& b : rig_.bones) names.push_back(b.name);
  return makeError(ErrorCode::kUsage, "no bone \"" + std::string(bone) + "\" in the rig" + detail::unknownNameHint(bone, names));
}

std::vector<RigEditor::End> RigEditor::linked(End e, bool by_location, bool by_strategy, bool force) const {
  std::vector<End> out{e};
  if (!keep_connected && !force) return out;
  const Eigen::Vector3d& p = position(e);
  const EndDef& d = def(e);
  for (std::size_t i = 0; i < rig_.bones.size(); ++i) {
    for (int h = 0; h < 2; ++h) {
      const End o{i, h == 0};
      if (o.bone == e.bone && o.head == e.head) continue;
      const bool near = by_location && (position(o) - p).norm() <= kLinkDistance;
      // DEFAULT is the absence of a strategy: it links nothing.
      const bool same = by_strategy && d.strategy != Strategy::kDefault && sameStrategy(def(o), d);
      if (near || same) out.push_back(o);
    }
  }
  return out;
}

Expected<Eigen::Vector3d> RigEditor::setStrategy(End e, Strategy type) {
  const PositionInfo& info = *info_;
  const Eigen::Vector3d p = position(e);
  EndDef s;
  s.strategy = type;
  const auto vert = info.vertex_tree.nearest(p);
  switch (type) {
    case Strategy::kCube: {
      const auto c = info.cube_tree.nearest(p);
      s.cube_name = c ? info.cube_names[c->index] : std::string();
      break;
    }
    case Strategy::kVertex:
      s.vertex_index = vert ? static_cast<std::int64_t>(vert->index) : -1;
      break;
    case Strategy::kMean: {
      MeanPair m = meanSearch(info, p, MatchConstants::kMeanMaxDist, MatchConstants::kCloseMeanRadius);
      if (!m.found) m = meanSearch(info, p, MatchConstants::kMeanMaxDist, MatchConstants::kMeanBoxFraction * info.height);
      if (m.found) s.vertex_indices = {m.first, m.second};
      else s.vertex_indices = {vert ? static_cast<std::int64_t>(vert->index) : -1};
      break;
    }
    case Strategy::kXyz: {
      const std::int64_t v = vert ? static_cast<std::int64_t>(vert->index) : -1;
      s.vertex_indices = {v, v, v};
      break;
    }
    case Strategy::kDefault:
      return makeError(ErrorCode::kUsage, "set-strategy: expected CUBE, VERTEX, MEAN or XYZ");
  }
  for (End o : linked(e, true, true)) {
    EndDef& d = def(o);
    const auto keep_default = d.default_position;
    d = s;
    d.default_position = keep_default;
  }
  auto r = evaluateStrategy(info, s, relativeScale());
  if (!r) return makeError(ErrorCode::kRange, "set-strategy: the new strategy gives no position on this body");
  return *r;
}

Status RigEditor::setOffset(End e) {
  EndDef plain = def(e);
  plain.offset.reset();
  const auto r = evaluateStrategy(*info_, plain, relativeScale());
  if (!r) return makeError(ErrorCode::kRange, "set-offset: bone \"" + rig_.bones[e.bone].name + "\" " + (e.head ? "head" : "tail") +
                                                  ": its strategy gives no position on this body");
  Eigen::Vector3d off = (position(e) - *r) / relativeScale();
  if (off.norm() <= kZeroOffset) off.setZero();
  const Vec3d v{off.x(), off.y(), off.z()};
  for (End o : linked(e, false, true)) def(o).offset = v;
  return {};
}

Status RigEditor::reapply(End e) {
  const auto r = evaluateStrategy(*info_, def(e), relativeScale());
  if (!r) return makeError(ErrorCode::kRange, "reapply: bone \"" + rig_.bones[e.bone].name + "\" " + (e.head ? "head" : "tail") +
                                                  ": its strategy gives no position on this body");
  for (End o : linked(e, false, true)) pos(o) = *r;
  return {};
}

void RigEditor::setLock(End e, bool locked) { setEndLocked(rig_.bones[e.bone], e.head, locked); }

Status RigEditor::setVertices(End e, std::span<const std::int64_t> indices) {
  const std::int64_t n = static_cast<std::int64_t>(info_->vertices.size());
  if (indices.empty()) return makeError(ErrorCode::kUsage, "set-vertices: give at least one vertex index");
  for (auto i : indices)
    if (i < 0 || i >= n)
      return makeError(ErrorCode::kRange, "set-vertices: vertex " + std::to_string(i) + " is beyond the mesh of " + std::to_string(n) + " vertices");
  EndDef s;
  s.strategy = def(e).strategy;
  if (s.strategy == Strategy::kVertex) {
    s.vertex_index = indices[0];
  } else if (s.strategy == Strategy::kXyz) {
    s.vertex_indices = {-1, -1, -1};
    for (std::size_t k = 0; k < 3 && k < indices.size(); ++k) s.vertex_indices[k] = indices[k];
  } else {
    s.strategy = Strategy::kMean;
    s.vertex_indices.assign(indices.begin(), indices.end());
    std::sort(s.vertex_indices.begin(), s.vertex_indices.end());
  }
  assignLocked(e, s);
  return {};
}

void RigEditor::assignLocked(End e, const EndDef& s) {
  for (End o : linked(e, true, true)) {
    EndDef& d = def(o);
    const auto keep_default = d.default_position;
    d = s;
    d.default_position = keep_default;
    setLock(o, true);
  }
}

Status RigEditor::setCube(End e, std::string_view cube_name) {
  if (info_->findCube(cube_name) < 0)
    return makeError(ErrorCode::kUsage, "set-cube: no joint cube group \"" + std::string(cube_name) + "\" on this body");
  EndDef s;
  s.strategy = Strategy::kCube;
  s.cube_name = cube_name;
  assignLocked(e, s);
  return {};
}

void RigEditor::setRollStrategy(std::size_t bone, RollStrategy strategy) {
  BoneDef& b = rig_.bones[bone];
  b.roll_strategy = strategy;
  const Eigen::Vector3d d = tails_[bone] - heads_[bone];
  const double len = d.norm();
  const Eigen::Vector3d n = len > 0.0 ? Eigen::Vector3d(d / len) : Eigen::Vector3d::UnitY();
  double& roll = rolls_[bone];
  switch (strategy) {
    case RollStrategy::kNone:
      b.roll_reference_z.reset();
      break;
    case RollStrategy::kAlignZWorldZ: {
      b.roll_reference_z.reset();
      Eigen::Vector3d x = n.cross(Eigen::Vector3d::UnitZ());
      roll = len == 0.0 || x.norm() < 1e-12 ? 0.0 : rollFromZAxis(n, x.normalized().cross(n));
      break;
    }
    case RollStrategy::kAlignXWorldX: {
      b.roll_reference_z.reset();
      Eigen::Vector3d z = Eigen::Vector3d::UnitX().cross(n);
      roll = len == 0.0 || z.norm() < 1e-12 ? 0.0 : rollFromZAxis(n, z.normalized());
      break;
    }
    case RollStrategy::kAlignZReferenceZ: {
      // The current Z axis is the reference, so the roll does not change now; it is kept on refits.
      const Eigen::Vector3d z = boneFrame(n, roll).col(2);
      b.roll_reference_z = Vec3d{z.x(), z.y(), z.z()};
      break;
    }
  }
  b.roll = roll;
}

int RigEditor::copyConnected(std::size_t bone) {
  int changed = 0;
  for (int h = 0; h < 2; ++h) {
    const End e{bone, h == 0};
    const EndDef& mine = def(e);
    const Eigen::Vector3d p = position(e);
    std::optional<End> pick;
    bool pick_locked = false;
    for (std::size_t i = 0; i < rig_.bones.size(); ++i) {
      for (int k = 0; k < 2; ++k) {
        const End o{i, k == 0};
        if (o.bone == e.bone && o.head == e.head) continue;
        if ((position(o) - p).norm() > kLinkDistance || sameStrategy(def(o), mine)) continue;
        const bool locked = endLocked(rig_.bones[o.bone], o.head);
        if (!pick || (locked && !pick_locked)) {
          pick = o;
          pick_locked = locked;
        }
      }
    }
    if (!pick) continue;
    // Never replace a locked strategy with an unlocked one.
    if (!pick_locked && endLocked(rig_.bones[bone], e.head)) continue;
    EndDef& d = def(e);
    const auto keep_default = d.default_position;
    d = def(*pick);
    d.default_position = keep_default;
    setEndLocked(rig_.bones[bone], e.head, pick_locked);
    ++changed;
  }
  return changed;
}

RigDefinition RigEditor::result() const {
  RigDefinition out = rig_;
  auto round3 = [](const Eigen::Vector3d& v) { return Vec3d{roundForRig(v.x()), roundForRig(v.y()), roundForRig(v.z())}; };
  for (std::size_t i = 0; i < out.bones.size(); ++i) {
    BoneDef& b = out.bones[i];
    b.head.default_position = round3(heads_[i]);
    b.tail.default_position = round3(tails_[i]);
    b.roll = roundForRig(rolls_[i]);
    if (b.roll_strategy == RollStrategy::kAlignZWorldZ || b.roll_strategy == RollStrategy::kAlignXWorldX) b.roll = 0.0;
    for (EndDef* e : {&b.head, &b.tail}) {
      if (!e->offset) continue;
      const Vec3d o = round3(toEigen(*e->offset));
      if (o[0] == 0.0 && o[1] == 0.0 && o[2] == 0.0) e->offset.reset();
      else e->offset = o;
    }
    if (b.roll_reference_z) b.roll_reference_z = round3(toEigen(*b.roll_reference_z));
  }
  return out;
}

}  // namespace rigfit
