// Posing with Blender's semantics: local location / rotation / scale channels on top of the rest
// pose, composed down the hierarchy exactly as Blender's pose evaluation does.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "rigfit/error.hpp"
#include "rigfit/json.hpp"
#include "rigfit/rig.hpp"
#include "rigfit/skeleton.hpp"

namespace rigfit {

/// One pose bone's channels (Blender's PoseBone.location / rotation_* / scale).
struct BonePose {
  Eigen::Vector3d location = Eigen::Vector3d::Zero();
  RotationMode rotation_mode = RotationMode::kQuaternion;
  Eigen::Vector4d quaternion{1, 0, 0, 0};   ///< w, x, y, z (QUATERNION); normalised when used, as Blender does
  Eigen::Vector3d euler = Eigen::Vector3d::Zero();  ///< radians, applied in rotation_mode's order
  Eigen::Vector4d axis_angle{0, 0, 1, 0};   ///< angle, x, y, z (AXIS_ANGLE); Blender's default axis is +Y
  Eigen::Vector3d scale = Eigen::Vector3d::Ones();
};

/// A pose for a skeleton: one BonePose per skeleton bone (same order).
struct Pose {
  std::vector<BonePose> bones;
  /// The rest pose: identity channels, each bone in the skeleton's rotation mode.
  static Pose rest(const Skeleton& skeleton);
};

/// The bone's local channel matrix (Blender's BKE_pchan_to_mat4): T(location) * R * S, with the
/// location ignored for connected bones.
Eigen::Matrix4d channelMatrix(const BonePose& pose, bool connected);

/// Armature-space pose matrices (Blender's PoseBone.matrix) for every bone, parents first:
/// use_inherit_rotation, inherit_scale (FULL, FIX_SHEAR, ALIGNED, AVERAGE, NONE, NONE_LEGACY) and
/// use_local_location as Blender's BKE_bone_parent_transform_calc_from_matrices. `out` has
/// skeleton.size() entries.
void poseMatrices(const Skeleton& skeleton, const Pose& pose, std::span<Eigen::Matrix4d> out);

/// Skinning matrices: pose * rest^-1 per bone.
void skinningMatrices(const Skeleton& skeleton, std::span<const Eigen::Matrix4d> pose_matrices,
                      std::span<Eigen::Matrix4d> out);

struct PoseWarning {
  std::string message;
};

/// Applies an MPFB pose file (poses/<rig>_fk/*.json, §9): clears the pose (or only the mentioned
/// bones for a partial pose), sets each bone's rotation mode and channel (Euler for 3 values,
/// quaternion for 4 unless bone_rotation_modes says otherwise), adds translations (scaled for
/// skeleton types containing "default", from the rig's measured spine and shoulder sizes). Bones
/// the skeleton lacks are reported as warnings.
[[nodiscard]] Status applyPoseJson(const Json& pose_file, std::string_view label, const Skeleton& skeleton,
                                   Pose& pose, std::vector<PoseWarning>* warnings, bool partial = false);

}  // namespace rigfit
