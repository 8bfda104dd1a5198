// Pose evaluation with Blender 3.4's semantics, in double precision:
//   channel matrix   BKE_pchan_to_mat4 / BKE_pchan_rot_to_mat3
//   parent transform BKE_bone_parent_transform_calc_from_matrices (+ BKE_bone_offset_matrix_get)
//   pose matrix      BKE_bone_parent_transform_apply (BKE_pose_where_is_bone without constraints)
//   skinning         pose * rest^-1 (the chan_mat BKE_pose_where_is leaves for the armature modifier)
// Blender's matrices are column-major float[4][4] with M[col][row]; here they are Eigen matrices
// acting on column vectors, so Blender's "M[1]" (the Y axis) is m.col(1).
#include "rigfit/pose.hpp"

#include <array>
#include <cassert>
#include <cfloat>
#include <cmath>
#include <numbers>

#include <Eigen/Geometry>
#include <Eigen/LU>

#include "pose/euler_matrix.hpp"
#include "pose/pose_internal.hpp"

namespace rigfit {

namespace detail {

// Scales the three axis columns (Blender's rescale_m4).
void scaleAxes(Eigen::Matrix4d& m, const Eigen::Vector3d& s) {
  for (int c = 0; c < 3; ++c) m.block<3, 1>(0, c) *= s[c];
}

Eigen::Vector3d axisLengths(const Eigen::Matrix4d& m) {
  return {m.block<3, 1>(0, 0).norm(), m.block<3, 1>(0, 1).norm(), m.block<3, 1>(0, 2).norm()};
}

// Blender's normalize_m4 / normalize_m4_ex: unit axis columns (zero ones stay zero); returns the
// former lengths.
Eigen::Vector3d normalizeAxes(Eigen::Matrix4d& m) {
  Eigen::Vector3d len;
  for (int c = 0; c < 3; ++c) {
    Eigen::Vector3d v;
    len[c] = normalizeInto(v, m.block<3, 1>(0, c));
    m.block<3, 1>(0, c) = v;
  }
  return len;
}

double volumeScale(const Eigen::Matrix4d& m) { return m.topLeftCorner<3, 3>().determinant(); }

// Blender's mat4_to_size_fix_shear: the axis lengths, rescaled so that their product is the
// matrix's actual volume change (shear shrinks volume without shortening the axes).
Eigen::Vector3d sizeFixShear(const Eigen::Matrix4d& m) {
  Eigen::Vector3d size = axisLengths(m);
  const double volume = size.prod();
  if (volume != 0.0) size *= std::cbrt(std::abs(volumeScale(m) / volume));
  return size;
}

// Blender's orthogonalize_m4_stable(m, 1, normalize): keeps the Y axis, projects X and Z onto the
// plane normal to it (which keeps the determinant), then turns X and Z symmetrically by half of
// their remaining shear each until they are perpendicular, rescaling them by sqrt(sin(angle)) to
// keep the area (or making all three unit length with `normalize`).
void orthogonalizeStableY(Eigen::Matrix4d& m, bool normalize) {
  Eigen::Vector3d y = m.block<3, 1>(0, 1), x = m.block<3, 1>(0, 0), z = m.block<3, 1>(0, 2);
  const double len_sq_y = y.squaredNorm();
  if (len_sq_y > 0.0) {
    x -= y * (x.dot(y) / len_sq_y);
    z -= y * (z.dot(y) / len_sq_y);
    if (normalize) y /= std::sqrt(len_sq_y);
  }
  Eigen::Vector3d nx, nz;
  const double len_x = normalizeInto(nx, x);
  const double len_z = normalizeInto(nz, z);
  const double cos_angle = nx.dot(nz);
  const double abs_cos = std::abs(cos_angle);
  // Blender corrects only a significant, non-degenerate shear (its float thresholds).
  if (abs_cos > 1e-4 && abs_cos < 1.0 - FLT_EPSILON) {
    const double angle = std::acos(cos_angle);
    const double target = angle + ((std::numbers::pi / 2) - angle) / 2.0;
    nx -= nz * cos_angle;
    nx *= std::sin(target) / nx.norm();
    nx += nz * std::cos(target);
    Eigen::Vector3d perpendicular = nx.cross(nz).cross(nx);
    normalizeInto(nz, perpendicular);
    if (!normalize) {
      const double area = std::sqrt(std::sin(angle));
      x = nx * (len_x * area);
      z = nz * (len_z * area);
    }
  }
  if (normalize) {
    x = nx;
    z = nz;
  }
  m.block<3, 1>(0, 0) = x;
  m.block<3, 1>(0, 1) = y;
  m.block<3, 1>(0, 2) = z;
}

ParentTransform parentTransform(bool inherit_rotation, InheritScale mode, bool local_location,
                                const Eigen::Matrix4d& offs, const Eigen::Matrix4d* parent_rest,
                                const Eigen::Matrix4d* parent_pose) {
  ParentTransform t;
  if (!parent_pose) {
    t.rotscale = offs;
    if (local_location) {
      t.loc = t.rotscale;
      t.loc_is_rotscale = true;
    } else {
      t.loc = Eigen::Matrix4d::Identity();
      t.loc.topRightCorner<3, 1>() = offs.topRightCorner<3, 1>();
    }
    return t;
  }
  const Eigen::Matrix4d& pose = *parent_pose;
  const bool full = inherit_rotation && mode == InheritScale::kFull;
  if (full) {
    t.rotscale = pose * offs;
  } else {
    Eigen::Matrix4d tmat;
    if (inherit_rotation) {
      tmat = pose;
      switch (mode) {
        case InheritScale::kFull:
        case InheritScale::kFixShear: break;  // keep scale and shear
        case InheritScale::kNone:
        case InheritScale::kAverage: orthogonalizeStableY(tmat, true); break;
        case InheritScale::kAligned:
          orthogonalizeStableY(tmat, false);
          t.post_scale = normalizeAxes(tmat);
          break;
        case InheritScale::kNoneLegacy: normalizeAxes(tmat); break;
      }
    } else {
      // Hinge: the parent's rest orientation, with (some of) its pose scale.
      tmat = *parent_rest;
      switch (mode) {
        case InheritScale::kFull: scaleAxes(tmat, axisLengths(pose)); break;
        case InheritScale::kFixShear: scaleAxes(tmat, sizeFixShear(pose)); break;
        case InheritScale::kAligned: t.post_scale = sizeFixShear(pose); break;
        case InheritScale::kNone:
        case InheritScale::kAverage:
        case InheritScale::kNoneLegacy: break;
      }
    }
    if (mode == InheritScale::kAverage) tmat.topLeftCorner<3, 3>() *= std::cbrt(std::abs(volumeScale(pose)));
    t.rotscale = tmat * offs;
    if (mode == InheritScale::kFixShear) orthogonalizeStableY(t.rotscale, false);
  }
  if (!local_location) {
    // The location channel in the parent's posed axes, from the bone's posed rest head.
    t.loc = Eigen::Matrix4d::Identity();
    t.loc.topLeftCorner<3, 3>() = pose.topLeftCorner<3, 3>();
    t.loc.topRightCorner<3, 1>() = (pose * offs.col(3)).head<3>();
  } else if (!full) {
    t.loc = pose * offs;
  } else {
    t.loc = t.rotscale;
    t.loc_is_rotscale = true;
  }
  return t;
}

}  // namespace detail

using detail::normalizeInto;
using detail::scaleAxes;

Pose Pose::rest(const Skeleton& skeleton) {
  Pose p;
  p.bones.resize(skeleton.size());
  for (std::size_t i = 0; i < skeleton.size(); ++i)
    if (i < skeleton.rotation_mode.size()) p.bones[i].rotation_mode = skeleton.rotation_mode[i];
  return p;
}

Eigen::Matrix4d channelMatrix(const BonePose& pose, bool connected) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.topLeftCorner<3, 3>() = rotationMatrix(pose) * pose.scale.asDiagonal();
  if (!connected) m.topRightCorner<3, 1>() = pose.location;
  return m;
}

namespace detail {

// Blender's BKE_bone_offset_matrix_get: the bone's rest frame in its parent's, from the parent's
// tail (bone_mat, head, + parent length along Y); a root's is its rest matrix.
Eigen::Matrix4d boneOffsetMatrix(const Skeleton& skeleton, std::size_t bone) {
  const int p = skeleton.parents[bone];
  if (p < 0) return skeleton.rest[bone];
  Eigen::Matrix4d offs = Eigen::Matrix4d::Identity();
  offs.topLeftCorner<3, 3>() = skeleton.local_rotation[bone];
  offs.topRightCorner<3, 1>() = skeleton.local_head[bone];
  offs(1, 3) += skeleton.local_length[static_cast<std::size_t>(p)];
  return offs;
}

// Whether bone i inherits its parent's whole transform (use_inherit_rotation, inherit_scale FULL,
// use_local_location; Blender's defaults): its parent transform is then one matrix, the parent's
// pose times the bone's offset (a root's rest matrix), and no axis scale follows.
bool inheritsFully(const Skeleton& skeleton, std::size_t i) {
  return (i >= skeleton.inherit_rotation.size() || skeleton.inherit_rotation[i]) &&
         (i >= skeleton.inherit_scale.size() || skeleton.inherit_scale[i] == InheritScale::kFull) &&
         (i >= skeleton.local_location.size() || skeleton.local_location[i]);
}

// a * [b | t] (a 4x4 affine matrix with 3x3 part b(k, j) and translation t) with the operations,
// in the order, of Eigen's 4x4 product on SSE2, so bit-identical to it: column j is
// ((a0 b0j + a1 b1j) + a2 b2j) + a3 b3j, b3j being 0 or 1 (a product with a zero is kept: it decides
// the sign of a zero sum).
// `r` must not be `a`.
template <class B>
void mulAffine(const Eigen::Matrix4d& a, const B& b, const Eigen::Vector3d& t, Eigen::Matrix4d& r) {
  for (int j = 0; j < 3; ++j) r.col(j) = ((a.col(0) * b(0, j) + a.col(1) * b(1, j)) + a.col(2) * b(2, j)) + a.col(3) * 0.0;
  r.col(3) = ((a.col(0) * t[0] + a.col(1) * t[1]) + a.col(2) * t[2]) + a.col(3);
}

// The parent's pose times the bone's offset matrix (a fully inheriting bone's whole parent
// transform), as Eigen's product computes it.
void parentOffset(const Skeleton& skeleton, std::size_t i, const Eigen::Matrix4d& parent_pose, Eigen::Matrix4d& out) {
  Eigen::Vector3d head = skeleton.local_head[i];  // boneOffsetMatrix's translation
  head[1] += skeleton.local_length[static_cast<std::size_t>(skeleton.parents[i])];
  mulAffine(parent_pose, skeleton.local_rotation[i], head, out);
}

ParentTransform boneParentTransform(const Skeleton& skeleton, std::size_t i, const Eigen::Matrix4d* parent_pose) {
  const int p = skeleton.parents[i];
  if (inheritsFully(skeleton, i) && (p < 0 || parent_pose)) {  // parentTransform's FULL case
    ParentTransform t;
    if (p >= 0) parentOffset(skeleton, i, *parent_pose, t.rotscale);
    else t.rotscale = skeleton.rest[i];
    t.loc = t.rotscale;
    t.loc_is_rotscale = true;
    return t;
  }
  const bool inherit_rotation = i >= skeleton.inherit_rotation.size() || skeleton.inherit_rotation[i];
  const InheritScale mode = i < skeleton.inherit_scale.size() ? skeleton.inherit_scale[i] : InheritScale::kFull;
  const bool local_location = i >= skeleton.local_location.size() || skeleton.local_location[i];
  return parentTransform(inherit_rotation, mode, local_location, boneOffsetMatrix(skeleton, i),
                         p >= 0 ? &skeleton.rest[static_cast<std::size_t>(p)] : nullptr, p >= 0 ? parent_pose : nullptr);
}

Eigen::Matrix4d applyParentTransform(const ParentTransform& t, const Eigen::Matrix4d& in) {
  Eigen::Matrix4d m = t.rotscale * in;
  // With loc == rotscale the location is the product's own last column; scaling by ones is exact.
  if (!t.loc_is_rotscale) m.topRightCorner<3, 1>() = (t.loc * in.col(3)).head<3>();
  if (t.post_scale != Eigen::Vector3d::Ones()) scaleAxes(m, t.post_scale);
  return m;
}

void poseBone(const Skeleton& skeleton, const Pose& pose, std::size_t i, std::span<Eigen::Matrix4d> out) {
  const int p = skeleton.parents[i];
  const bool connected = p >= 0 && i < skeleton.connected.size() && skeleton.connected[i];
  const BonePose& channel = pose.bones[i];
  if (!inheritsFully(skeleton, i)) {
    const ParentTransform t = boneParentTransform(skeleton, i, p >= 0 ? &out[static_cast<std::size_t>(p)] : nullptr);
    out[i] = applyParentTransform(t, channelMatrix(channel, connected));
    return;
  }
  // applyParentTransform(t, channelMatrix(...)) with rotscale == loc (the location column is the
  // same matrix-vector product) and a post scale of ones, without building the 4x4 operands.
  const Eigen::Matrix4d* rotscale = &skeleton.rest[i];  // a root's: its rest matrix
  Eigen::Matrix4d parent_offset;
  if (p >= 0) {
    parentOffset(skeleton, i, out[static_cast<std::size_t>(p)], parent_offset);
    rotscale = &parent_offset;
  }
  Rows3 r;
  if (isEuler(channel.rotation_mode)) {
    eulerRows(channel.rotation_mode, channel.euler, r);
  } else {
    const Eigen::Matrix3d m = rotationMatrix(channel);
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 3; ++j) r[k][j] = m(k, j);
  }
  const Eigen::Vector3d& scale = channel.scale;
  const auto rs = [&r, &scale](int k, int j) { return r[k][j] * scale[j]; };  // channelMatrix's R * diag(scale)
  mulAffine(*rotscale, rs, connected ? Eigen::Vector3d::Zero() : channel.location, out[i]);
}

}  // namespace detail

namespace detail {

void posePass(const Skeleton& skeleton, const Pose& pose, std::span<Eigen::Matrix4d> out,
              std::vector<std::vector<Constraint>>* capture) {
  if (!skeleton.constraints.empty()) return constrainedPosePass(skeleton, pose, out, capture);
  for (std::size_t i = 0; i < skeleton.size(); ++i) poseBone(skeleton, pose, i, out);
}

}  // namespace detail

void poseMatrices(const Skeleton& skeleton, const Pose& pose, std::span<Eigen::Matrix4d> out) {
  assert(pose.bones.size() == skeleton.size() && out.size() == skeleton.size());
  detail::posePass(skeleton, pose, out, nullptr);
}

void skinningMatrices(const Skeleton& skeleton, std::span<const Eigen::Matrix4d> pose_matrices,
                      std::span<Eigen::Matrix4d> out) {
  const std::size_t n = skeleton.size();
  assert(pose_matrices.size() == n && out.size() == n);
  for (std::size_t i = 0; i < n; ++i) out[i] = pose_matrices[i] * skeleton.rest[i].inverse();
}

}  // namespace rigfit
