// Skinning: deform a mesh with a posed skeleton exactly as Blender's armature modifier does.
#pragma once

#include <cstdint>
#include <span>

#include <Eigen/Core>

#include "rigfit/weights.hpp"

namespace rigfit {

/// A skinning job (ozz style: spans in, spans out, no allocation in Run, no state).
///   v' = v + sum_i w_i (S_i v - v) / sum_i w_i   over the vertex's influences,
/// applied only when sum_i w_i > 1e-4 (otherwise the vertex keeps its rest position), with
/// S_i = pose_i * rest_i^-1 (skinningMatrices). This is Blender's armature modifier with vertex
/// groups ("preserve volume" off). Normals are transformed by the same blend of the matrices'
/// 3x3 parts and renormalised.
/// With dual_quaternion, the blend is Blender's "preserve volume" (dual-quaternion skinning).
struct SkinningJob {
  const Skin* skin = nullptr;
  /// One per skin bone: row-major 3x4 (rotation/scale | translation) as 12 floats.
  std::span<const float> matrices;
  std::span<const float> in_positions;   ///< 3 floats per vertex
  std::span<const float> in_normals;     ///< optional (empty), 3 floats per vertex
  std::span<float> out_positions;        ///< 3 floats per vertex
  std::span<float> out_normals;          ///< required when in_normals is given
  bool dual_quaternion = false;
  int threads = 1;                       ///< worker threads (1: the calling thread only)

  /// Rejects: no skin; matrices fewer than 12 * skin->bone_count; positions sizes not
  /// 3 * skin->vertex_count; normals given for one side only or of the wrong size.
  bool validate() const;
  bool run() const;
};

/// Packs 4x4 double matrices into the 3x4 float rows SkinningJob takes.
void packSkinningMatrices(std::span<const Eigen::Matrix4d> matrices, std::span<float> out);

}  // namespace rigfit
