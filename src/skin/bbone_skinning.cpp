// Vertices weighted to bendy bones, deformed as Blender's armature modifier does (Blender 3.4
// armature_deform.c: b_bone_deform, pchan_deform_accumulate; the CURVED mapping of Blender 4.0's
// find_bbone_segment_index_curved). Scalar, double precision: only vertices that have a weight on
// a bendy bone come here, after the SIMD job has deformed every vertex as if the bones were plain.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "pose/pose_internal.hpp"
#include "rigfit/bbone.hpp"
#include "rigfit/skeleton.hpp"
#include "rigfit/skinning.hpp"
#include "rigfit/weights.hpp"
#include "skin/skinning_math.hpp"

namespace rigfit {

namespace {

// find_bbone_segment_index_curved: a binary search over the rest joints' planes, linear between
// the two innermost planes, then smoothed towards the planes up the search stack.
double curvedHeadTail(const BBoneSkinning& bb, std::size_t bone, int segments, const Eigen::Vector3d& p) {
  const auto first = static_cast<std::size_t>(bb.first[bone]);
  std::array<double, kMaxBBoneSegments + 1> dist{};
  std::array<int, kMaxBBoneSegments> stack{};
  int top = -1;
  int start = -1, end = segments + 1, bias = 0;
  while (end - start > 1) {
    const int mid = (start + end + bias) / 2;
    const Eigen::Vector4d& plane = bb.planes[first + static_cast<std::size_t>(mid)];
    const double d = p.dot(plane.head<3>()) - plane[3];
    stack[static_cast<std::size_t>(++top)] = mid;
    dist[static_cast<std::size_t>(mid)] = d;
    if (d < 0) {
      end = mid;
      bias = 1;  // odd splits lean towards the previous plane
    } else {
      start = mid;
      bias = 0;
    }
  }
  const double segment_size = 1.0 / segments;
  double head_tail;
  if (end <= 0) {
    head_tail = 0.0;
  } else if (start >= segments) {
    head_tail = 1.0;
  } else {
    const double d1 = std::abs(dist[static_cast<std::size_t>(start)]), d2 = std::abs(dist[static_cast<std::size_t>(end)]);
    head_tail = segment_size * (start + d1 / (d1 + d2));
  }
  const double segment_scale = bb.arc_length_reciprocal[bone];
  for (int i = top; i >= 0; --i) {
    const int idx = stack[static_cast<std::size_t>(i)];
    const double boundary_pos = idx * segment_size;
    const double point_dist = dist[static_cast<std::size_t>(idx)] * segment_scale;
    const double point_dist_abs = std::abs(point_dist);
    const double slope_gap = std::abs(head_tail - boundary_pos) - point_dist_abs;
    if (slope_gap <= 0) continue;
    const double dist_coeff = 1.0 - point_dist_abs * bb.depth_scale[first + static_cast<std::size_t>(i)];
    if (dist_coeff <= 0) continue;
    const double scaled_gap = slope_gap * 3.0;
    const double slope_coeff = scaled_gap / (scaled_gap + point_dist_abs);
    const double smooth = dist_coeff * dist_coeff * 8.0 / (7.0 * dist_coeff + 1.0);
    const double f = slope_coeff * smooth;
    head_tail = f * (boundary_pos + point_dist) + (1.0 - f) * head_tail;
  }
  return head_tail;
}

}  // namespace

void bboneSegment(const Skeleton& skeleton, const BBoneSkinning& bb, std::size_t bone, const Eigen::Vector3d& p,
                  int& index, double& blend) {
  const BBone& b = skeleton.bbones[bone];
  double head_tail;
  if (b.mapping == BBoneMapping::kCurved) {
    head_tail = curvedHeadTail(bb, bone, b.segments, p);
  } else {
    // The rest position's Y in the bone's rest frame, over the bone's length.
    const Eigen::Matrix4d& rest = skeleton.rest[bone];
    const double y = rest.col(1).head<3>().dot(p - rest.col(3).head<3>());
    head_tail = y / skeleton.local_length[bone];
  }
  detail::bboneSegmentAt(b.segments, head_tail, index, blend);
}

BBoneJointWeights bboneJointWeights(const Skeleton& skeleton, const BBoneSkinning& bb, std::size_t bone, const Eigen::Vector3d& p,
                                    double weight) {
  int index = 0;
  double blend = 0.0;
  bboneSegment(skeleton, bb, bone, p, index, blend);
  return {static_cast<std::size_t>(bb.first[bone]) + static_cast<std::size_t>(index), weight * (1.0 - blend), weight * blend};
}

std::size_t skinBendyVertices(const Skeleton& skeleton, const BBoneSkinning& bb, std::span<const Eigen::Matrix4d> skinning,
                              const Skin& skin, bool dual_quaternion, std::span<const float> in_positions,
                              std::span<const float> in_normals, std::span<float> out_positions,
                              std::span<float> out_normals) {
  if (bb.empty()) return 0;
  const std::size_t nb = skeleton.size();
  const auto bendy = [&](std::uint16_t bone) { return bone < nb && bb.first[bone] >= 0; };
  using Record = std::array<double, detail::kSkinningDualQuatFloats>;
  std::vector<Record> bone_dq, joint_dq;
  if (dual_quaternion) {
    // Plain bones against their rest matrix; each B-Bone joint against its own rest frame (the
    // bone's rest matrix times the joint's rest matrix, axes normalised), as Blender 3.4 does.
    bone_dq.resize(nb);
    for (std::size_t b = 0; b < nb; ++b) detail::packDualQuat(detail::skinningDualQuat(skeleton.rest[b], skinning[b]), bone_dq[b].data());
    joint_dq.resize(bb.matrices.size());
    for (std::size_t b = 0; b < nb; ++b) {
      if (bb.first[b] < 0) continue;
      for (int a = 0; a <= skeleton.bbones[b].segments; ++a) {
        const std::size_t j = static_cast<std::size_t>(bb.first[b]) + static_cast<std::size_t>(a);
        detail::packDualQuat(detail::skinningDualQuat(bb.joint_rest[j], bb.matrices[j]), joint_dq[j].data());
      }
    }
  }
  const bool normals = !in_normals.empty() && !out_normals.empty();
  std::size_t count = 0;
  for (std::size_t v = 0; v < skin.vertex_count; ++v) {
    const std::uint32_t lo = skin.offsets[v], hi = skin.offsets[v + 1];
    bool any = false;
    for (std::uint32_t i = lo; i < hi && !any; ++i) any = skin.weights[i] != 0.0f && bendy(skin.bones[i]);
    if (!any) continue;
    ++count;
    const float* ip = in_positions.data() + 3 * v;
    const float* in = normals ? in_normals.data() + 3 * v : nullptr;
    float* op = out_positions.data() + 3 * v;
    float* on = normals ? out_normals.data() + 3 * v : nullptr;
    const std::span<const float> weights(skin.weights.data() + lo, hi - lo);
    if (!skinningDeforms(weights)) {
      std::copy(ip, ip + 3, op);
      if (on) std::copy(in, in + 3, on);
      continue;
    }
    double total = 0.0;
    for (float w : weights) total += w;
    const Eigen::Vector3d p(ip[0], ip[1], ip[2]);
    double m[12];
    if (!dual_quaternion) {
      Eigen::Matrix<double, 3, 4> sum = Eigen::Matrix<double, 3, 4>::Zero();
      for (std::uint32_t i = lo; i < hi; ++i) {
        const double w = skin.weights[i] / total;
        if (w == 0.0) continue;
        const std::uint16_t bone = skin.bones[i];
        if (bendy(bone)) {
          const BBoneJointWeights j = bboneJointWeights(skeleton, bb, bone, p, w);
          sum += j.weight0 * bb.matrices[j.joint].topRows<3>() + j.weight1 * bb.matrices[j.joint + 1].topRows<3>();
        } else {
          sum += w * skinning[bone].topRows<3>();
        }
      }
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) m[4 * r + c] = sum(r, c);
    } else {
      detail::DualQuatBlend<double> blend_dq;
      for (std::uint32_t i = lo; i < hi; ++i) {
        const double w = skin.weights[i];
        if (w == 0.0) continue;
        const std::uint16_t bone = skin.bones[i];
        if (bendy(bone)) {
          const BBoneJointWeights j = bboneJointWeights(skeleton, bb, bone, p, w);
          blend_dq.add(joint_dq[j.joint].data(), j.weight0);
          blend_dq.add(joint_dq[j.joint + 1].data(), j.weight1);
        } else {
          blend_dq.add(bone_dq[bone].data(), w);
        }
      }
      blend_dq.toMatrix(total, m);
    }
    detail::transformVertex<double>(m, ip, in, op, on);
  }
  return count;
}

}  // namespace rigfit
