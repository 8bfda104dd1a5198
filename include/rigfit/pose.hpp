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
#include "rigfit/pipeline_options.hpp"
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
  BBonePose bbone;  ///< B-Bone channels (used by bendy bones only)
};

/// A pose for a skeleton: one BonePose per skeleton bone (same order).
struct Pose {
  std::vector<BonePose> bones;
  /// The rest pose: identity channels, each bone in the skeleton's rotation mode.
  static Pose rest(const Skeleton& skeleton);
};

/// The bone's rotation channel as a matrix (Blender's BKE_pchan_rot_to_mat3): the quaternion
/// normalised first (a zero quaternion is Blender's (0, 1, 0, 0), a half turn about X); Euler
/// angles applied in rotation_mode's order (XYZ = Rz * Ry * Rx); the axis-angle axis normalised
/// (a zero axis is no rotation).
Eigen::Matrix3d rotationMatrix(const BonePose& pose);

/// The bone's local channel matrix (Blender's BKE_pchan_to_mat4): T(location) * R * S, with the
/// location ignored for connected bones.
Eigen::Matrix4d channelMatrix(const BonePose& pose, bool connected);

/// Armature-space pose matrices (Blender's PoseBone.matrix) for every bone, parents first:
/// use_inherit_rotation, inherit_scale (FULL, FIX_SHEAR, ALIGNED, AVERAGE, NONE, NONE_LEGACY) and
/// use_local_location as Blender's BKE_bone_parent_transform_calc_from_matrices, composed on
/// the Skeleton's Blender rest data (local_rotation, local_head, local_length; roots: rest).
/// Bone constraints (Skeleton::constraints) are evaluated after each bone's own transform, in
/// Blender 3.4's way (rigfit/constraint.hpp); IK is not. Flag vectors of the Skeleton that are
/// empty mean Blender's defaults. `pose` and `out` have skeleton.size() entries.
void poseMatrices(const Skeleton& skeleton, const Pose& pose, std::span<Eigen::Matrix4d> out);

/// Skinning matrices: pose * rest^-1 per bone (what Blender's armature modifier applies).
void skinningMatrices(const Skeleton& skeleton, std::span<const Eigen::Matrix4d> pose_matrices,
                      std::span<Eigen::Matrix4d> out);

struct PoseWarning {
  std::string message;             ///< one line; names at most 16 bones
  std::vector<std::string> bones;  ///< every bone the warning is about, in file order
};

/// Applies an MPFB pose file (poses/<rig>_fk/*.json, docs/mpfb-behaviour.md §9): clears the pose
/// (or only the mentioned bones for a partial pose), sets each bone's rotation mode and channel
/// (Euler for 3 values, quaternion for 4 unless bone_rotation_modes says otherwise), adds
/// translations (scaled for skeleton types containing "default", from the rig's measured spine and
/// shoulder sizes). Bones the skeleton lacks are reported as warnings.
///
/// Details, as MPFB's set_pose_from_dict does them in Blender:
/// - clearing resets location, rotation (all representations) and scale; rotation modes stay;
/// - the spine (|tail(spine01) - head(spine05)|) and shoulder (|tail(shoulder01.L) -
///   tail(shoulder01.R)|) sizes are measured on the pose after clearing (the rest pose for a full
///   pose); a factor is used only when the file's original size is > 1e-4;
/// - the whole file is checked before anything changes: on an error `pose` is left as it was.
///   Every value is checked, also those MPFB would not read (modes of bones without rotations,
///   entries of bones the skeleton lacks).
///   Errors are "LABEL: JSON_PATH: what" (kSchema), or kMismatch when a "default" skeleton type
///   meets a skeleton without the bones it measures (MPFB fails there too);
/// - `pose` is first reset to Pose::rest(skeleton) if it does not have one entry per bone.
[[nodiscard]] Status applyPoseJson(const Json& pose_file, std::string_view label, const Skeleton& skeleton,
                                   Pose& pose, std::vector<PoseWarning>* warnings, bool partial = false);

/// Sets one bone's rotation mode and rotation (Euler degrees, or a quaternion, normalised when
/// used). Errors: kMismatch `rotation: no bone "B" in the skeleton (...)`, kUsage for a quaternion
/// of length 0; `pose` is then unchanged. `pose` is first reset to Pose::rest(skeleton) if it does
/// not have one entry per bone.
[[nodiscard]] Status applyBoneRotation(const BoneRotation& rotation, const Skeleton& skeleton, Pose& pose);

}  // namespace rigfit
