// Bendy bones (B-Bones) as Blender 3.4 computes and deforms them: a bone with `segments` > 1 is a
// cubic Bezier curve from its head to its tail, whose handles come from its neighbours (the
// connected parent and child, or custom handle bones), shaped by ease, roll, curve and scale
// settings of the bone (rest) and of its pose bone (animation). Vertices weighted to it follow
// the curve: each is deformed by the two curve joints around its rest position along the bone.
//
//   Settings      Bone.bbone_* (rig file `bendy_bone`, docs/mpfb-behaviour.md §5.3)  -> BBone
//   Pose channels PoseBone.bbone_*                                                   -> BBonePose
//   Joints        BKE_pchan_bbone_spline_setup(for_deform)  (PoseBone.bbone_segment_matrix)
//   Deformation   BKE_pchan_bbone_segments_cache_compute + b_bone_deform (armature modifier);
//                 the ARMATURE constraint's armdef_accumulate_bone uses the same segments
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "rigfit/error.hpp"

namespace rigfit {

class Json;
struct Skeleton;
struct Pose;
struct Skin;

/// Blender allows at most this many segments per bendy bone (MAX_BBONE_SUBDIV).
inline constexpr int kMaxBBoneSegments = 32;

/// Where a B-Bone end takes its handle from (Bone.bbone_handle_type_start / _end).
enum class BBoneHandleType : std::uint8_t {
  kAuto,      ///< the connected parent (start) / the last connected child (end)
  kAbsolute,  ///< the custom handle bone's head (start) / tail (end)
  kRelative,  ///< this bone's own end moved as the custom handle's head moved from rest
  kTangent,   ///< along the custom handle bone's direction
};

/// How a vertex finds its segment (Bone.bbone_mapping_mode; Blender 4.0, absent from 3.4).
enum class BBoneMapping : std::uint8_t {
  kStraight,  ///< by the projection of its rest position on the bone's axis
  kCurved,    ///< by the rest curve's joint planes (Blender 4.0's CURVED)
};

/// A bone's B-Bone settings (Blender's Bone.bbone_* and two Bone flags); defaults are Blender's.
/// A bone with segments == 1 is a plain bone.
struct BBone {
  int segments = 1;
  BBoneMapping mapping = BBoneMapping::kStraight;
  BBoneHandleType handle_type_start = BBoneHandleType::kAuto;
  BBoneHandleType handle_type_end = BBoneHandleType::kAuto;
  /// Custom handle bones (used unless the handle type is kAuto): bone indices (Skeleton order in a
  /// Skeleton, rig order in a PreparedRig); -1 for none.
  int custom_handle_start = -1;
  int custom_handle_end = -1;
  bool handle_use_ease_start = false;           ///< the start handle's Y scale multiplies ease in
  bool handle_use_ease_end = false;
  std::array<bool, 3> handle_use_scale_start{};  ///< the start handle's X, Y, Z scale multiplies scale in
  std::array<bool, 3> handle_use_scale_end{};
  double easein = 1.0, easeout = 1.0;
  double rollin = 0.0, rollout = 0.0;  ///< radians
  double curveinx = 0.0, curveinz = 0.0, curveoutx = 0.0, curveoutz = 0.0;
  Eigen::Vector3d scalein = Eigen::Vector3d::Ones();
  Eigen::Vector3d scaleout = Eigen::Vector3d::Ones();
  bool use_scale_easing = false;       ///< Bone.use_scale_easing: scale in/out Y multiplies ease and curve
  bool use_endroll_as_inroll = false;  ///< Bone.use_endroll_as_inroll: the start handle's roll out adds to roll in
};

/// A pose bone's B-Bone channels (PoseBone.bbone_*): added to the bone's settings (scales multiply).
struct BBonePose {
  double curveinx = 0.0, curveinz = 0.0, curveoutx = 0.0, curveoutz = 0.0;
  double rollin = 0.0, rollout = 0.0;
  double easein = 0.0, easeout = 0.0;
  Eigen::Vector3d scalein = Eigen::Vector3d::Ones();
  Eigen::Vector3d scaleout = Eigen::Vector3d::Ones();
};

/// Reads a rig bone's `bendy_bone` object (MPFB sets `bbone_<key>` on the Blender bone for each
/// key): segments (1..32), mapping_mode (STRAIGHT, CURVED), handle_type_start/_end (AUTO,
/// ABSOLUTE, RELATIVE, TANGENT), custom_handle_start/_end (a bone name or null; `find_bone` gives
/// its index or -1), handle_use_ease_start/_end (booleans), handle_use_scale_start/_end (3
/// booleans), easein, easeout, rollin, rollout, curveinx, curveinz, curveoutx, curveoutz (numbers),
/// scalein, scaleout (3 numbers), and the display-only x and z (checked, ignored). Errors (kSchema):
/// "WHERE.key: what" for a wrong type or value, an unknown key, or an unknown custom handle bone.
[[nodiscard]] Expected<BBone> readBendyBone(const Json& entry, std::string_view where,
                                            const std::function<int(std::string_view)>& find_bone);

/// Whether any bone of the skeleton is a bendy bone (segments > 1).
bool hasBendyBones(const Skeleton& skeleton);

/// The bone's B-Bone joint matrices, segments + 1 of them, in the bone's own space (head at the
/// origin, Y along the bone), as Blender's PoseBone.bbone_segment_matrix(i, rest) gives them:
/// the rest curve (`rest`) or the posed one. `pose_matrices` are poseMatrices(skeleton, pose).
/// `out` needs segments + 1 entries; the bone must be a bendy bone.
void bboneJointMatrices(const Skeleton& skeleton, const Pose& pose, std::span<const Eigen::Matrix4d> pose_matrices,
                        std::size_t bone, bool rest, std::span<Eigen::Matrix4d> out);

/// Deform matrices of every bendy bone for one pose (Blender's bbone_deform_mats): per joint a,
/// pose * rest^-1 * rest * joint_pose[a] * joint_rest[a]^-1 * rest^-1, in armature space like
/// skinningMatrices, plus what the segment mapping needs.
struct BBoneSkinning {
  std::vector<std::int32_t> first;          ///< per skeleton bone: its joint 0 in `matrices`, or -1
  std::vector<Eigen::Matrix4d> matrices;    ///< segments + 1 per bendy bone
  std::vector<Eigen::Matrix4d> joint_rest;  ///< per joint: its rest frame in armature space, unit axes
  /// CURVED mapping only: per joint, the rest joint's position and Y axis (armature space), and per
  /// bone its curve's arc length and BSP depth scales (see bboneSegment).
  std::vector<Eigen::Vector4d> planes;      ///< per joint: unit normal (xyz) and offset (w)
  std::vector<Eigen::Vector3d> points;      ///< per joint: rest position
  std::vector<double> depth_scale;          ///< per joint slot: BSP widening of that depth
  std::vector<double> arc_length_reciprocal;  ///< per skeleton bone (CURVED bones only)
  bool empty() const { return matrices.empty(); }
};

/// Fills `out` for `pose` (empty when the skeleton has no bendy bones).
void bboneSkinningMatrices(const Skeleton& skeleton, const Pose& pose, std::span<const Eigen::Matrix4d> pose_matrices,
                           BBoneSkinning& out);

/// Adds bendy bone `bone` to `out` unless it is there already (`first[bone]` >= 0); an `out` made
/// for another skeleton size (an empty one) is reset first, with every other bone's `first` -1.
/// What ARMATURE constraints need of their bendy targets: only the pose matrices of `bone` and of
/// its handle bones are read, so they may be the final ones of a pose still being evaluated.
void addBBoneSkinning(const Skeleton& skeleton, const Pose& pose, std::span<const Eigen::Matrix4d> pose_matrices,
                      std::size_t bone, BBoneSkinning& out);

/// Which two joints of bendy bone `bone` deform a vertex at rest position `p`, and the blend
/// towards the second (Blender's segment mapping, STRAIGHT or CURVED): the vertex's deform matrix
/// is (1 - blend) * matrices[first + index] + blend * matrices[first + index + 1].
void bboneSegment(const Skeleton& skeleton, const BBoneSkinning& bb, std::size_t bone, const Eigen::Vector3d& p,
                  int& index, double& blend);

/// A weight on bendy bone `bone` split over its two joints around rest position `p` (bboneSegment),
/// as Blender's armature modifier and ARMATURE constraint split it: `weight0` = weight * (1 - blend)
/// on slot `joint` of bb.matrices / bb.joint_rest, `weight1` = weight * blend on slot `joint` + 1.
struct BBoneJointWeights {
  std::size_t joint = 0;
  double weight0 = 0.0, weight1 = 0.0;
};
BBoneJointWeights bboneJointWeights(const Skeleton& skeleton, const BBoneSkinning& bb, std::size_t bone, const Eigen::Vector3d& p,
                                    double weight);

/// Deforms again, as Blender 3.4's armature modifier does, every vertex of `skin` that has a weight
/// on a bendy bone, overwriting its entries of out_positions (and out_normals, when given): each
/// bendy bone acts through its two joints around the vertex (bboneSegment), the other bones
/// through `skinning` (skinningMatrices). Linear blend or dual quaternions ("preserve volume":
/// each joint's dual quaternion taken against the joint's rest frame, joint_rest), in double
/// precision, with the SkinningJob's rules for weights, rest vertices and normals. Other vertices
/// are left as they are. Returns the number of vertices deformed. Spans as in SkinningJob.
std::size_t skinBendyVertices(const Skeleton& skeleton, const BBoneSkinning& bb, std::span<const Eigen::Matrix4d> skinning,
                              const Skin& skin, bool dual_quaternion, std::span<const float> in_positions,
                              std::span<const float> in_normals, std::span<float> out_positions,
                              std::span<float> out_normals);

}  // namespace rigfit
