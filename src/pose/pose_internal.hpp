// Pose evaluation pieces shared by pose.cpp and the constraint evaluation (Blender's names in
// the comments of pose.cpp).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "rigfit/pose.hpp"
#include "rigfit/skeleton.hpp"

namespace rigfit::detail {

// Blender's BoneParentTransform: how the parent (or the armature, for roots) carries a bone's
// rotation/scale channels (rotscale), its location channel (loc) and an extra axis scale.
struct ParentTransform {
  Eigen::Matrix4d rotscale;
  Eigen::Matrix4d loc;
  Eigen::Vector3d post_scale = Eigen::Vector3d::Ones();
  bool loc_is_rotscale = false;  ///< loc is a copy of rotscale (their inverses are then equal too)
};

// Blender's normalize_v3_v3: a vector no longer than 1e-35 becomes zero and reports length 0.
// (Inline: constraints normalize the axes of most matrices they decompose.)
inline double normalizeInto(Eigen::Vector3d& out, const Eigen::Vector3d& v) {
  const double len = v.norm();
  if (len > 1e-35) {
    out = v / len;
    return len;
  }
  out.setZero();
  return 0.0;
}
/// Blender 3.4's mat3_to_quat: columns normalised, a negative matrix negated, Mike Day's branches
/// (which decide what a sheared matrix gives), w >= 0, normalised.
Eigen::Quaterniond matrixToQuat(const Eigen::Matrix3d& m);
void scaleAxes(Eigen::Matrix4d& m, const Eigen::Vector3d& s);
Eigen::Vector3d normalizeAxes(Eigen::Matrix4d& m);
void orthogonalizeStableY(Eigen::Matrix4d& m, bool normalize);

/// Bone i's parent transform given its parent's pose matrix (ignored for roots).
ParentTransform boneParentTransform(const Skeleton& skeleton, std::size_t i, const Eigen::Matrix4d* parent_pose);
/// BKE_bone_parent_transform_apply.
Eigen::Matrix4d applyParentTransform(const ParentTransform& t, const Eigen::Matrix4d& in);
/// Bone i's pose matrix before constraints into out[i], from its parent's entry in `out`.
void poseBone(const Skeleton& skeleton, const Pose& pose, std::size_t i, std::span<Eigen::Matrix4d> out);
/// posePass for a skeleton with constraints (constraint_eval.cpp): its bones in eval_order, each
/// posed then its stack solved; `capture` (bindAtRest) receives CHILD_OF inverses and STRETCH_TO
/// rest lengths measured on the way.
void constrainedPosePass(const Skeleton& skeleton, const Pose& pose, std::span<Eigen::Matrix4d> out,
                         std::vector<std::vector<Constraint>>* capture);
/// poseMatrices, with `capture` passed to constrainedPosePass.
void posePass(const Skeleton& skeleton, const Pose& pose, std::span<Eigen::Matrix4d> out,
              std::vector<std::vector<Constraint>>* capture);
/// An order of n bones with every bone after its parent and its constraints' target and space bones,
/// and, for a constraint that follows a bendy target's B-Bone shape, after that target's handle
/// bones (`connected` and `bbones` as in a Skeleton, by the same indices; `bbones` may be empty);
/// empty when index order is one. Errors name a cycle, a self-target or an index >= n.
[[nodiscard]] Status constraintOrder(std::size_t n, const int* parents, std::span<const std::uint8_t> connected,
                                     std::span<const BBone> bbones, const std::vector<std::vector<Constraint>>& constraints,
                                     std::span<const std::string> names, std::string_view label, std::vector<std::uint32_t>& order);
/// CHILD_OF inverses and STRETCH_TO rest lengths still unset, measured on the rest pose.
void bindAtRest(Skeleton& skeleton);

/// The bones whose poses shape bendy bone `bone`'s curve (BKE_pchan_bbone_handles_get): the start
/// handle (the connected parent, or the custom handle) and the end handle (the last connected
/// child in index order, or the custom handle); -1 for none. Indices as in a Skeleton or, with the
/// same meaning, in a PreparedRig (siblings keep their relative order in both).
void bboneHandleBones(std::size_t n, const int* parents, std::span<const std::uint8_t> connected, std::span<const BBone> bbones,
                      std::size_t bone, int& prev, int& next);

/// BKE_pchan_bbone_deform_segment_index: the joint before a position along a bone of `segments`
/// segments (0 = head, 1 = tail; clamped) and the blend towards the next joint.
void bboneSegmentAt(int segments, double head_tail, int& index, double& blend);

}  // namespace rigfit::detail
