// Skeleton: the immutable, evaluation-side result of fitting a rig to a body. Bones are in
// parents-first (depth-first) order; every bone has its rest matrix in armature space.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "rigfit/bbone.hpp"
#include "rigfit/rig.hpp"

namespace rigfit {

inline constexpr int kNoParent = -1;

struct Skeleton {
  std::vector<std::string> names;
  std::vector<int> parents;              ///< kNoParent for roots; parents[i] < i
  std::vector<Eigen::Vector3d> heads;    ///< armature space (rig frame), metres
  std::vector<Eigen::Vector3d> tails;
  std::vector<double> rolls;             ///< Blender edit-bone roll, radians
  std::vector<double> lengths;
  /// Blender's Bone.matrix_local: columns X, Y (bone axis), Z, head (see blenderRestMatrices).
  std::vector<Eigen::Matrix4d> rest;
  std::vector<std::uint32_t> source;     ///< index of the bone in RigDefinition::bones
  std::vector<std::uint8_t> connected;   ///< use_connect as applied

  // Blender's object-mode rest data relative to the parent (what posing composes):
  // rest[i] = rest[parent] * [local_rotation | local_head + (0, local_length[parent], 0)], or
  // [local_rotation | local_head] for a root.
  std::vector<Eigen::Matrix3d> local_rotation;  ///< Bone.bone_mat
  std::vector<Eigen::Vector3d> local_head;      ///< Bone.head (relative to the parent's tail, parent frame)
  std::vector<double> local_length;             ///< Bone.length as Blender computes it

  // Pose-time flags from the rig.
  std::vector<std::uint8_t> inherit_rotation;   ///< use_inherit_rotation
  std::vector<InheritScale> inherit_scale;
  std::vector<std::uint8_t> local_location;     ///< use_local_location
  std::vector<RotationMode> rotation_mode;      ///< the rig's rotation_mode (MPFB forces XYZ for standard rigs)
  /// B-Bone settings per bone (custom handles as indices of this skeleton); empty: no bone of the
  /// rig has a `bendy_bone` entry (all plain bones).
  std::vector<BBone> bbones;

  /// Per bone, the worn asset whose sub-rig it comes from ("" for the main rig's bones); empty when
  /// no sub-rig is joined. A sub-rig bone's `source` indexes that sub-rig's bones.
  std::vector<std::string> subrig_of;

  /// Bone constraints per bone, in stack order, targets resolved to bone indices; empty: none.
  std::vector<std::vector<Constraint>> constraints;
  /// An order in which every bone comes after its parent and its constraints' targets (Blender's
  /// dependency order); empty: index order.
  std::vector<std::uint32_t> eval_order;

  std::size_t size() const { return names.size(); }
  /// Index of a bone by name, or -1.
  int find(std::string_view name) const;
};

}  // namespace rigfit
