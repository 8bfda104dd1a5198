// Bone constraints as MPFB writes them in a rig file (each bone's `constraints` array, v110 keys:
// docs/mpfb-behaviour.md §8.2, §8.5), typed, and evaluated in pose evaluation with Blender 3.4's
// semantics (see poseMatrices).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "rigfit/error.hpp"
#include "rigfit/json.hpp"

namespace rigfit {

struct Skeleton;
struct PoseWarning;

/// The constraint types rigfit evaluates; kOther is any other Blender type (kept, skipped, warned).
enum class ConstraintType : std::uint8_t {
  kArmature,
  kTransform,
  kCopyTransforms,
  kChildOf,
  kCopyLocation,
  kCopyRotation,
  kCopyScale,
  kDampedTrack,
  kStretchTo,
  kLimitLocation,
  kLimitRotation,
  kLimitScale,
  kOther,
};
const char* constraintTypeName(ConstraintType t);

/// Blender's constraint spaces (owner_space / target_space).
enum class ConstraintSpace : std::uint8_t { kWorld, kCustom, kPose, kLocalWithParent, kLocal, kLocalOwnerOrient };
const char* constraintSpaceName(ConstraintSpace s);

/// An Euler order for a constraint (kAuto: the owner's rotation mode, XYZ unless it is Euler).
enum class EulerOrder : std::uint8_t { kAuto, kXYZ, kXZY, kYXZ, kYZX, kZXY, kZYX };

/// TRANSFORM's from_rotation_mode.
enum class RotationSource : std::uint8_t { kAuto, kXYZ, kXZY, kYXZ, kYZX, kZXY, kZYX, kQuaternion, kSwingTwistX, kSwingTwistY, kSwingTwistZ };

/// One target of a constraint: a bone of the rig (or of the parent rig, for sub-rigs).
struct ConstraintTarget {
  std::string subtarget;  ///< bone name; empty: the armature object itself
  bool has_target = false;  ///< `target` is true (own armature) or a parent reference
  /// A `target` dict (a sub-rig's parent-rig reference, §8.3/§8.4), kept for the sub-rig join.
  std::optional<Json> parent_reference;
  double weight = 1.0;      ///< ARMATURE targets
  int bone = -1;            ///< skeleton index once resolved; -1: unresolved or not a bone
  /// A parent reference resolved by the sub-rig join: the bone's index in the joined skeleton
  /// (the one the constraint is evaluated in); -1 while unresolved (the constraint is skipped).
  int main_bone = -1;
};

/// What TRANSFORM maps (map_from / map_to).
enum class TransformChannel : std::uint8_t { kLocation, kRotation, kScale };

struct Constraint {
  ConstraintType type = ConstraintType::kOther;
  std::string type_name;  ///< as in the file (names the unevaluated types in warnings)
  std::string name;
  bool mute = false;
  double influence = 1.0;
  ConstraintSpace owner_space = ConstraintSpace::kWorld;
  ConstraintSpace target_space = ConstraintSpace::kWorld;
  double head_tail = 0.0;  ///< where along the target bone (0 head, 1 tail) its matrix is taken
  /// A bendy target's point at head_tail on its posed B-Bone curve (COPY_TRANSFORMS: the curve's
  /// frame there, at any head_tail) instead of the straight bone's; not for ARMATURE.
  bool use_bbone_shape = false;
  /// `space_object: true` with `space_subtarget`: the bone whose pose is the CUSTOM space.
  ConstraintTarget space;
  /// One entry for single-target types (possibly without a target), one per ARMATURE target.
  std::vector<ConstraintTarget> targets;
  /// ARMATURE: a VERTEX parent reference as top-level `target` (sub-rigs), kept for the join.
  std::optional<Json> vertex_reference;

  // Per-type settings, Blender's defaults for a new constraint of the type.
  std::array<bool, 3> use_xyz{true, true, true};      ///< COPY_LOCATION/ROTATION/SCALE use_x/y/z
  std::array<bool, 3> invert_xyz{false, false, false};
  bool use_offset = false;                             ///< COPY_LOCATION, COPY_SCALE
  bool use_add = false;                                ///< COPY_SCALE
  bool use_make_uniform = false;                       ///< COPY_SCALE
  double power = 1.0;                                  ///< COPY_SCALE
  EulerOrder euler_order = EulerOrder::kAuto;          ///< COPY_ROTATION, LIMIT_ROTATION
  /// COPY_ROTATION: REPLACE, ADD, BEFORE, AFTER, OFFSET; COPY_TRANSFORMS: REPLACE, BEFORE_FULL,
  /// BEFORE, BEFORE_SPLIT, AFTER_FULL, AFTER, AFTER_SPLIT; TRANSFORM (location): REPLACE, ADD.
  std::string mix_mode;
  bool remove_target_shear = false;                    ///< COPY_TRANSFORMS
  // CHILD_OF
  std::array<bool, 9> child_of_channels{true, true, true, true, true, true, true, true, true};  ///< loc, rot, scale xyz
  bool set_inverse_pending = true;
  Eigen::Matrix4d inverse_matrix = Eigen::Matrix4d::Identity();  ///< set at rest when pending (fit)
  // DAMPED_TRACK: 0..5 = X, Y, Z, -X, -Y, -Z
  int track_axis = 1;
  // STRETCH_TO
  double rest_length = 0.0;  ///< 0: measured at rest when the skeleton is built
  double bulge = 1.0, bulge_min = 1.0, bulge_max = 1.0, bulge_smooth = 0.0;
  bool use_bulge_min = false, use_bulge_max = false;
  int volume = 0;    ///< VOLUME_XZX, VOLUME_X, VOLUME_Z, NO_VOLUME
  int keep_axis = 2; ///< PLANE_X, PLANE_Z, SWING_Y
  // LIMIT_LOCATION / LIMIT_SCALE (use_min, use_max, min, max per axis); LIMIT_ROTATION (use_limit)
  std::array<bool, 3> use_min{}, use_max{}, use_limit{};
  std::array<double, 3> min{}, max{};
  // TRANSFORM
  TransformChannel map_from = TransformChannel::kLocation, map_to = TransformChannel::kLocation;
  std::array<int, 3> map_to_from{0, 1, 2};
  bool use_motion_extrapolate = false;
  RotationSource from_rotation_mode = RotationSource::kAuto;
  EulerOrder to_euler_order = EulerOrder::kAuto;
  std::string mix_mode_rot = "ADD";     ///< REPLACE, ADD, BEFORE, AFTER
  std::string mix_mode_scale = "REPLACE";  ///< REPLACE, MULTIPLY
  /// from/to min/max for location, rotation, scale: [channel][from_min, from_max, to_min, to_max][axis]
  std::array<std::array<std::array<double, 3>, 4>, 3> ranges{{
      {{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}},
      {{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}},
      {{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}}},
  }};
  // ARMATURE
  bool use_deform_preserve_volume = false;
  bool use_bone_envelopes = false;
  bool use_current_location = false;

  bool evaluated() const { return type != ConstraintType::kOther; }
};

/// Parses one bone's `constraints` array. `path` is the array's JSON path for messages
/// ("bones/NAME/constraints"); errors are "LABEL: PATH/INDEX/KEY: what" (kSchema). Keys a type
/// does not have are ignored; the types rigfit does not evaluate keep only the generic settings.
[[nodiscard]] Expected<std::vector<Constraint>> parseConstraints(const Json& constraints, std::string_view label,
                                                                 std::string_view path);

/// Makes a skeleton's constraints ready to evaluate once their targets are resolved to bone indices
/// (fitting does this; a sub-rig join again after resolving parent references): an evaluation order
/// with every bone after its parent and its targets, and after the handle bones of the B-Bone curves
/// it follows (Skeleton::eval_order), then, on the rest pose, CHILD_OF inverses (always bound at
/// rest, as MPFB asks Blender to) and STRETCH_TO rest lengths that are 0. Errors: a cycle of
/// targets, handles and parents, naming the bones; a constraint targeting its own bone or following
/// a curve its own bone is a handle of. `label` (the rig file) starts the messages.
[[nodiscard]] Status prepareConstraints(Skeleton& skeleton, std::string_view label);

/// One warning per constraint that posing skips or simplifies: types rigfit does not evaluate,
/// targets that are not resolved or were removed, ARMATURE envelopes (not evaluated).
std::vector<PoseWarning> constraintWarnings(const Skeleton& skeleton);

}  // namespace rigfit
