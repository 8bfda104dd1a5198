// Blender's bone frame: the rest orientation of a bone from its direction and roll
// (docs/mpfb-behaviour.md §4.1). Computed in double precision.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace rigfit {

/// Blender's zero-roll frame for a unit direction n: the minimal rotation taking +Y to n, with
/// Blender's special case for n close to -Y. Columns: X0, Y0 = n, Z0.
Eigen::Matrix3d zeroRollFrame(const Eigen::Vector3d& n);

/// The bone frame with roll r: the zero-roll frame rotated by r about n (right-handed), so
/// X = X0 cos r - Z0 sin r, Z = Z0 cos r + X0 sin r away from the -Y singularity.
Eigen::Matrix3d boneFrame(const Eigen::Vector3d& n, double roll);
/// The same with cos(roll) and sin(roll) given (precomputed for rolls that do not change).
Eigen::Matrix3d boneFrame(const Eigen::Vector3d& n, double roll, double cos_roll, double sin_roll);

/// The bone rest matrix in armature space: columns X, Y, Z of boneFrame(normalize(tail-head), roll),
/// translation = head. A zero-length bone uses +Y as its direction.
Eigen::Matrix4d boneMatrix(const Eigen::Vector3d& head, const Eigen::Vector3d& tail, double roll);

/// Storage blenderRestMatrices can reuse from call to call (a caller that repeats fits keeps one);
/// what it holds between calls means nothing.
struct RestMatricesScratch {
  std::vector<double> length;
  std::vector<std::uint8_t> clean;
};

/// Blender's rest matrices (Bone.matrix_local) for a whole armature, as Blender derives them when
/// it leaves edit mode: head and tail are re-expressed in the parent's final rest matrix, the
/// local frame is Blender's frame of that local direction with the roll that best matches the edit
/// frame's Z axis, and matrix_local = parent's matrix_local x [local frame | local head + parent
/// length along Y]. Away from the -Y singularity this equals boneMatrix(head, tail, roll) to
/// rounding; near -Y its Y axis is the bone's true direction, as in Blender.
/// `parents[i] < i` (parents first), kNoParent (-1) for roots.
/// Optional outputs (may be null): each bone's Bone.bone_mat, Bone.head and Bone.length.
/// Optional inputs: cos and sin of each roll (both or neither), when the caller already has them;
/// `scratch`, storage to reuse (null: the call allocates its own).
void blenderRestMatrices(const Eigen::Vector3d* heads, const Eigen::Vector3d* tails, const double* rolls,
                         const int* parents, std::size_t count, Eigen::Matrix4d* out,
                         Eigen::Matrix3d* local_rotation = nullptr, Eigen::Vector3d* local_head = nullptr,
                         double* local_length = nullptr, const double* cos_rolls = nullptr,
                         const double* sin_rolls = nullptr, RestMatricesScratch* scratch = nullptr);

/// The roll that points the bone's Z axis along `z` (projected onto the plane normal to n):
/// atan2(z.X0, z.Z0), in (-pi, pi].
double rollFromZAxis(const Eigen::Vector3d& n, const Eigen::Vector3d& z);

/// The roll of an orthonormal bone frame (columns X, Y, Z) relative to its zero-roll frame.
double rollFromFrame(const Eigen::Matrix3d& frame);

}  // namespace rigfit
