// Bendy bones baked to plain joints, for engines that know only joints and linear skinning.
//
// A bendy bone B of N segments keeps its place (its children still hang from it) and gets a chain
// of N + 1 joints below it, "B.bbone0" .. "B.bboneN", one per B-Bone joint (head, the N - 1 joints
// between segments, tail): joint a rests at B's rest curve joint a (position and frame, axes made
// unit) and is posed at B's posed curve joint a. A weight w on B at a vertex whose rest position
// maps to (index i, blend b) (bboneSegment) becomes w (1 - b) on joint i and w b on joint i + 1;
// B keeps none. An engine that poses the joints at the posed curve joints and skins linearly then
// moves each vertex by (1 - b) S_i + b S_{i+1} with S_a = joint pose * joint rest^-1, which is
// Blender's B-Bone deformation exactly (linear blend) when the bones only turn: bends and twists
// (roll) are carried by the joints' frames and positions (the ponytail's layout bent up to 45
// degrees per bone: 3e-7 m). Joint frames are unit, so what scales a joint is lost: a stretched
// bone (non-uniform pose scale; 1.3 times along Y: 2.1 mm) is followed only through the joints'
// positions, and a joint's pose-time thickness (scale in/out X/Z, handle scale) not at all
// (7-16 mm in tests/bbone_test.cpp's cases).
#pragma once

#include <span>
#include <vector>

#include <Eigen/Core>

#include "rigfit/bbone.hpp"
#include "rigfit/pose.hpp"
#include "rigfit/skeleton.hpp"
#include "rigfit/weights.hpp"

namespace rigfit {

/// The skeleton with every bendy bone's joint chain added after the input's bones (which keep
/// their indices), as plain bones: rest frames from the rest curve, heads at the curve joints,
/// tails one segment length along each joint's Y, rolls from the frames; `bbones` empty. A
/// skeleton without bendy bones comes back unchanged.
Skeleton bakeBendySkeleton(const Skeleton& skeleton);

/// Armature-space pose matrices of the baked skeleton for a pose of the input skeleton: the input's
/// `pose_matrices`, then each joint's posed curve frame (B's pose matrix times the posed joint
/// matrix, axes made unit). `out` has bakeBendySkeleton(skeleton).size() entries.
void bakedPoseMatrices(const Skeleton& skeleton, const Pose& pose, std::span<const Eigen::Matrix4d> pose_matrices,
                       std::span<Eigen::Matrix4d> out);

/// `skin` (over `skeleton`) moved to the baked skeleton: weights on bendy bones split over the two
/// joints around each vertex's rest position (3 floats per vertex), zero parts dropped, each
/// vertex's influences by descending weight; other weights unchanged.
Skin bakeBendySkin(const Skeleton& skeleton, const Skin& skin, std::span<const float> rest_positions);

}  // namespace rigfit
