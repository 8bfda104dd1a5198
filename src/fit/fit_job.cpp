// fitSkeleton: strategies -> heads and tails, roll strategies, zero-length removal, connect
// snapping, Blender bone frames; in MPFB's order (docs/mpfb-behaviour.md §3.3).
#include <cfloat>
#include <cmath>

#include <Eigen/Geometry>

#include "fit/strategy.hpp"
#include "pose/pose_internal.hpp"
#include "rigfit/bone_frame.hpp"
#include "rigfit/fit.hpp"

namespace rigfit {
namespace {

// Blender deletes bones this short when leaving edit mode.
constexpr double kMinBoneLength = 1e-6;

double applyRollStrategy(const PreparedRig& p, std::size_t i, const Eigen::Vector3d& head, const Eigen::Vector3d& tail,
                         double roll, Eigen::Vector3d& reference_out) {
  const RollStrategy rs = p.roll_strategies[i];
  const Eigen::Vector3d d = tail - head;
  const double len = d.norm();
  if (rs == RollStrategy::kNone) return roll;
  const Eigen::Vector3d n = len > 0.0 ? Eigen::Vector3d(d / len) : Eigen::Vector3d(0, 1, 0);
  switch (rs) {
    case RollStrategy::kAlignZWorldZ: {
      // Desired X = n x Z_world; desired Z = X x n (world Z projected onto the bone's plane).
      Eigen::Vector3d x = n.cross(Eigen::Vector3d::UnitZ());
      if (len == 0.0 || x.norm() < 1e-12) return 0.0;  // parallel: Blender yields roll 0
      x.normalize();
      return rollFromZAxis(n, x.cross(n));
    }
    case RollStrategy::kAlignXWorldX: {
      Eigen::Vector3d z = Eigen::Vector3d::UnitX().cross(n);
      if (len == 0.0 || z.norm() < 1e-12) return 0.0;
      return rollFromZAxis(n, z.normalized());
    }
    case RollStrategy::kAlignZReferenceZ: {
      Eigen::Vector3d ref = p.has_reference[i] ? p.references[i] : Eigen::Vector3d(boneFrame(n, roll).col(2));
      reference_out = ref;
      const double rl = ref.norm();
      if (!(rl > 1e-6)) return roll;
      ref /= rl;
      if (len == 0.0 || std::abs(ref.dot(n)) >= 1.0 - FLT_EPSILON) return 0.0;
      return rollFromZAxis(n, ref - ref.dot(n) * n);  // Blender's align_roll
    }
    case RollStrategy::kNone: break;
  }
  return roll;
}

template <typename T>
void fit(std::vector<T>& v, std::size_t n) {
  if (v.size() != n) v.resize(n);
}

// fitSkeleton's steps: internal linkage and one or two call sites each, so the compiler can inline
// them. `removed` (a flag per rig bone) stays empty while no bone is removed: the common case
// allocates nothing for it.
using Removed = std::vector<std::uint8_t>;

// 1. Heads and tails from the strategies (skeleton slots are in parents-first order, `p.rank`).
void placeEnds(const PreparedRig& p, const float* pos, const Eigen::Vector3d* centres, Skeleton& s,
               std::vector<Eigen::Vector3d>& roll_reference_z) {
  for (std::size_t i = 0; i < p.names.size(); ++i) {
    const std::uint32_t r = p.rank[i];
    s.heads[r] = evaluateEnd(p, p.heads[i], pos, centres);
    s.tails[r] = evaluateEnd(p, p.tails[i], pos, centres);
    roll_reference_z[i] = Eigen::Vector3d::Zero();
  }
}

// 2. Rolls: the file's, or a roll strategy's on the strategy positions (before connect snapping).
void applyRollStrategies(const PreparedRig& p, Skeleton& s, std::vector<Eigen::Vector3d>& roll_reference_z) {
  for (std::size_t i = 0; i < p.names.size(); ++i) {
    const std::uint32_t r = p.rank[i];
    s.rolls[r] = applyRollStrategy(p, i, s.heads[r], s.tails[r], p.rolls[i], roll_reference_z[i]);
  }
}

// Marks the bones not yet removed that are shorter than Blender keeps, with a warning saying `why`.
void removeShort(const PreparedRig& p, const Skeleton& s, Removed& removed, std::vector<FitWarning>& warnings,
                 const char* why) {
  const std::size_t nb = p.names.size();
  for (std::size_t i = 0; i < nb; ++i) {
    const std::uint32_t r = p.rank[i];
    if ((!removed.empty() && removed[i]) ||
        (s.tails[r] - s.heads[r]).squaredNorm() > kMinBoneLength * kMinBoneLength)
      continue;
    if (removed.empty()) removed.assign(nb, 0);
    removed[i] = 1;
    warnings.push_back({p.names[i], why});
  }
}

// Rig bone i's parent once removed bones are gone: the nearest ancestor not removed.
int liveParent(const PreparedRig& p, const Removed& removed, std::size_t i) {
  int q = p.parent[i];
  while (!removed.empty() && q != kNoParent && removed[static_cast<std::size_t>(q)]) q = p.parent[static_cast<std::size_t>(q)];
  return q;
}

// Connected children snap their head onto the parent's tail (the parent's strategy wins).
void snapConnected(const PreparedRig& p, const Removed& removed, Skeleton& s) {
  for (std::size_t i = 0; i < p.names.size(); ++i) {
    if (!p.connect[i] || (!removed.empty() && removed[i])) continue;
    const int q = liveParent(p, removed, i);
    if (q == kNoParent) continue;
    s.heads[p.rank[i]] = s.tails[p.rank[static_cast<std::size_t>(q)]];
  }
}

// 4. Names, parents (as skeleton slots), source bones, connect flags and lengths in parents-first order.
void orderBones(const PreparedRig& p, const Removed& removed, Skeleton& s) {
  const std::size_t nb = p.names.size();
  fit(s.names, nb);
  fit(s.parents, nb);
  fit(s.source, nb);
  fit(s.connected, nb);
  fit(s.lengths, nb);
  fit(s.rest, nb);
  for (std::size_t k = 0; k < nb; ++k) {
    const std::uint32_t i = p.order[k];
    if (s.names[k] != p.names[i]) s.names[k] = p.names[i];
    const int q = liveParent(p, removed, i);
    s.parents[k] = q == kNoParent ? kNoParent : static_cast<int>(p.rank[static_cast<std::size_t>(q)]);
    s.source[k] = i;
    s.connected[k] = p.connect[i];
    s.lengths[k] = (s.tails[k] - s.heads[k]).norm();
  }
}

// Drops the removed bones, remapping parent indices (order stays parents-first). Rare: may allocate.
void compactRemoved(const PreparedRig& p, const Removed& removed, Skeleton& s) {
  const std::size_t nb = p.names.size();
  std::vector<int> new_index(nb, -1);
  std::size_t w = 0;
  for (std::size_t k = 0; k < nb; ++k) {
    if (removed[p.order[k]]) continue;
    new_index[k] = static_cast<int>(w);
    if (w != k) s.names[w] = std::move(s.names[k]);
    s.parents[w] = s.parents[k] == kNoParent ? kNoParent : new_index[static_cast<std::size_t>(s.parents[k])];
    s.heads[w] = s.heads[k];
    s.tails[w] = s.tails[k];
    s.rolls[w] = s.rolls[k];
    s.lengths[w] = s.lengths[k];
    s.source[w] = s.source[k];
    s.connected[w] = s.connected[k];
    ++w;
  }
  s.names.resize(w);
  s.parents.resize(w);
  s.heads.resize(w);
  s.tails.resize(w);
  s.rolls.resize(w);
  s.lengths.resize(w);
  s.rest.resize(w);
  s.source.resize(w);
  s.connected.resize(w);
}

// Each fitted bone's inheritance, local-location and rotation-mode settings from its rig bone.
void copyBoneSettings(const PreparedRig& p, Skeleton& s) {
  const std::size_t n = s.size();
  fit(s.inherit_rotation, n);
  fit(s.inherit_scale, n);
  fit(s.local_location, n);
  fit(s.rotation_mode, n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t i = s.source[k];
    s.inherit_rotation[k] = p.inherit_rotation[i];
    s.inherit_scale[k] = p.inherit_scale[i];
    s.local_location[k] = p.local_location[i];
    s.rotation_mode[k] = p.rotation_mode[i];
  }
  // B-Bone settings, custom handles re-indexed to the skeleton (a removed handle bone: none).
  s.bbones.clear();
  if (p.bbones.empty()) return;
  std::vector<int> at(p.names.size(), -1);
  for (std::size_t k = 0; k < n; ++k) at[s.source[k]] = static_cast<int>(k);
  s.bbones.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    BBone& b = s.bbones[k] = p.bbones[s.source[k]];
    if (b.custom_handle_start >= 0) b.custom_handle_start = at[static_cast<std::size_t>(b.custom_handle_start)];
    if (b.custom_handle_end >= 0) b.custom_handle_end = at[static_cast<std::size_t>(b.custom_handle_end)];
  }
}

// The rig's constraints on the fitted skeleton: targets as skeleton slots (a removed bone: -1),
// their evaluation order (from the prepared rig) and their rest-pose binding.
void placeConstraints(const PreparedRig& p, Skeleton& s) {
  const std::size_t n = s.size();
  std::vector<int> slot(p.names.size(), -1);
  for (std::size_t k = 0; k < n; ++k) slot[s.source[k]] = static_cast<int>(k);
  auto remap = [&](ConstraintTarget& t) {
    if (t.bone >= 0) t.bone = slot[static_cast<std::size_t>(t.bone)];
  };
  // Assigned element by element: a refit into the same FitResult reuses the strings' storage.
  s.constraints.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    s.constraints[k] = p.constraints[s.source[k]];
    for (Constraint& c : s.constraints[k]) {
      for (ConstraintTarget& t : c.targets) remap(t);
      remap(c.space);
    }
  }
  // The prepared rig's dependency order as skeleton slots (removed bones dropped: their children
  // moved to an ancestor that comes earlier), kept only when it differs from index order.
  s.eval_order.clear();
  bool identity = true;
  for (std::uint32_t r : p.constraint_order) {
    const int k = slot[r];
    if (k < 0) continue;
    identity = identity && static_cast<std::size_t>(k) == s.eval_order.size();
    s.eval_order.push_back(static_cast<std::uint32_t>(k));
  }
  if (identity) s.eval_order.clear();
  detail::bindAtRest(s);
}

// Blender's rest and local frames of the fitted bones. cos/sin of the file's rolls come from the
// prepared rig; rolls set by a roll strategy vary.
void restFrames(const PreparedRig& p, Skeleton& s, FitResult::Scratch& scratch) {
  const std::size_t n = s.size();
  fit(s.local_rotation, n);
  fit(s.local_head, n);
  fit(s.local_length, n);
  std::vector<double>& roll_cos = scratch.roll_cos;
  std::vector<double>& roll_sin = scratch.roll_sin;
  roll_cos.resize(n);
  roll_sin.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t i = s.source[k];
    if (p.roll_strategies[i] == RollStrategy::kNone) {
      roll_cos[k] = p.roll_cos[i];
      roll_sin[k] = p.roll_sin[i];
    } else {
      roll_cos[k] = std::cos(s.rolls[k]);
      roll_sin[k] = std::sin(s.rolls[k]);
    }
  }
  blenderRestMatrices(s.heads.data(), s.tails.data(), s.rolls.data(), s.parents.data(), n, s.rest.data(),
                      s.local_rotation.data(), s.local_head.data(), s.local_length.data(), roll_cos.data(),
                      roll_sin.data(), &scratch.rest);
}

}  // namespace

int Skeleton::find(std::string_view name) const {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

namespace {

// The fit proper: VERTEX / MEAN / XYZ ends on `positions`, joint cubes on `cube_positions`.
Status fitOn(const PreparedRig& p, std::span<const float> positions, std::span<const float> cube_positions, FitResult& out) {
  if (positions.size() != 3 * p.vertex_count)
    return makeError(ErrorCode::kMismatch, "fit: the mesh has " + std::to_string(positions.size() / 3) +
                                               " vertices but the rig was prepared for " + std::to_string(p.vertex_count));
  const std::size_t nb = p.names.size();
  Skeleton& s = out.skeleton;
  fit(s.heads, nb);
  fit(s.tails, nb);
  fit(s.rolls, nb);
  fit(out.roll_reference_z, nb);
  std::vector<Eigen::Vector3d>& centres = out.scratch.centres;
  fit(centres, p.cube_names.size());
  const float* pos = positions.data();
  cubeCentres(p, cube_positions.data(), centres.data());

  placeEnds(p, pos, centres.data(), s, out.roll_reference_z);
  applyRollStrategies(p, s, out.roll_reference_z);
  // 3. Blender drops zero-length bones when leaving edit mode (children move to the grandparent);
  //    then connected children snap their head onto the parent's tail; a bone made zero-length by
  //    snapping goes at the next mode switch.
  out.warnings.assign(p.warnings.begin(), p.warnings.end());
  out.fallback_count = p.fallback_count;
  Removed removed;
  removeShort(p, s, removed, out.warnings,
              "zero-length bone (head == tail) removed, as Blender does; its children move to its parent");
  snapConnected(p, removed, s);
  removeShort(p, s, removed, out.warnings, "zero-length bone after snapping to its parent's tail removed, as Blender does");
  // 4. The skeleton in parents-first order, without the removed bones, with Blender's frames.
  orderBones(p, removed, s);
  if (!removed.empty()) compactRemoved(p, removed, s);
  copyBoneSettings(p, s);
  restFrames(p, s, out.scratch);
  if (!p.constraints.empty()) {
    placeConstraints(p, s);
    return {};
  }
  s.constraints.clear();
  s.eval_order.clear();
  return {};
}

}  // namespace

Status fitSkeleton(const PreparedRig& p, std::span<const float> positions, FitResult& out) {
  if (p.is_subrig) return makeError(ErrorCode::kUsage, "fit: a prepared sub-rig is fitted with fitSubrig (asset and body positions)");
  return fitOn(p, positions, positions, out);
}

Status fitSubrig(const PreparedRig& p, std::span<const float> asset_positions, std::span<const float> body_positions,
                 FitResult& out) {
  if (!p.is_subrig) return makeError(ErrorCode::kUsage, "fit: fitSubrig needs a rig prepared with prepareSubrig");
  if (body_positions.size() != 3 * p.cube_vertex_count)
    return makeError(ErrorCode::kMismatch, "fit: the body has " + std::to_string(body_positions.size() / 3) +
                                               " vertices but the sub-rig was prepared for " + std::to_string(p.cube_vertex_count));
  return fitOn(p, asset_positions, body_positions, out);
}

Expected<FitResult> fitRig(const RigDefinition& rig, const Mesh& mesh, const VertexGroups& groups, const FitOptions& options) {
  auto prepared = prepareRig(rig, groups, mesh.vertexCount(), static_cast<double>(mesh.scale_factor), options);
  if (!prepared) return prepared.error();
  FitResult result;
  RIGFIT_TRY(fitSkeleton(*prepared, mesh.positions, result));
  return result;
}

}  // namespace rigfit
