// Bendy bones baked to plain joint chains (see rigfit/bbone_bake.hpp).
#include "rigfit/bbone_bake.hpp"

#include <algorithm>
#include <array>
#include <string>

#include <Eigen/Geometry>
#include <Eigen/LU>

#include "rigfit/bone_frame.hpp"

namespace rigfit {

namespace {

Eigen::Matrix4d unitAxes(Eigen::Matrix4d m) {
  for (int c = 0; c < 3; ++c) {
    const double n = m.col(c).head<3>().norm();
    if (n > 0.0) m.col(c).head<3>() /= n;
  }
  return m;
}

std::vector<Eigen::Matrix4d> restPoseMatrices(const Skeleton& s, Pose& rest) {
  rest = Pose::rest(s);
  std::vector<Eigen::Matrix4d> pm(s.size());
  poseMatrices(s, rest, pm);
  return pm;
}

}  // namespace

Skeleton bakeBendySkeleton(const Skeleton& skeleton) {
  Skeleton out = skeleton;
  if (!hasBendyBones(skeleton)) return out;
  out.bbones.clear();
  Pose rest;
  const std::vector<Eigen::Matrix4d> pm = restPoseMatrices(skeleton, rest);
  std::array<Eigen::Matrix4d, kMaxBBoneSegments + 1> joints;
  for (std::size_t b = 0; b < skeleton.size(); ++b) {
    const int segments = skeleton.bbones[b].segments;
    if (segments <= 1) continue;
    bboneJointMatrices(skeleton, rest, pm, b, true, joints);
    for (int a = 0; a <= segments; ++a) {
      const auto ja = static_cast<std::size_t>(a);
      const Eigen::Matrix4d frame = unitAxes(skeleton.rest[b] * joints[ja]);
      const Eigen::Vector3d head = frame.col(3).head<3>();
      // One segment long: to the next joint, or as long as the last segment for the tail joint.
      const std::size_t from = std::min(ja, static_cast<std::size_t>(segments) - 1);
      const double length = (joints[from + 1].col(3) - joints[from].col(3)).head<3>().norm();
      const int parent = a == 0 ? static_cast<int>(b) : static_cast<int>(out.size()) - 1;
      const auto p = static_cast<std::size_t>(parent);
      out.names.push_back(skeleton.names[b] + ".bbone" + std::to_string(a));
      out.parents.push_back(parent);
      out.heads.push_back(head);
      out.tails.push_back(head + frame.col(1).head<3>() * length);
      out.rolls.push_back(rollFromFrame(frame.topLeftCorner<3, 3>()));
      out.lengths.push_back(length);
      out.rest.push_back(frame);
      out.source.push_back(skeleton.source.empty() ? 0 : skeleton.source[b]);
      out.connected.push_back(0);
      // Blender's local rest data relative to the parent (rest = parent rest * [R | head + parent length Y]).
      const Eigen::Matrix3d pr = out.rest[p].topLeftCorner<3, 3>();
      out.local_rotation.push_back(pr.transpose() * frame.topLeftCorner<3, 3>());
      Eigen::Vector3d local_head = pr.transpose() * (head - out.rest[p].col(3).head<3>());
      local_head.y() -= out.local_length[p];
      out.local_head.push_back(local_head);
      out.local_length.push_back(length);
      if (!out.inherit_rotation.empty()) out.inherit_rotation.push_back(1);
      if (!out.inherit_scale.empty()) out.inherit_scale.push_back(InheritScale::kFull);
      if (!out.local_location.empty()) out.local_location.push_back(1);
      if (!out.rotation_mode.empty()) out.rotation_mode.push_back(RotationMode::kQuaternion);
    }
  }
  return out;
}

void bakedPoseMatrices(const Skeleton& skeleton, const Pose& pose, std::span<const Eigen::Matrix4d> pose_matrices,
                       std::span<Eigen::Matrix4d> out) {
  std::copy(pose_matrices.begin(), pose_matrices.end(), out.begin());
  if (!hasBendyBones(skeleton)) return;
  std::size_t k = skeleton.size();
  std::array<Eigen::Matrix4d, kMaxBBoneSegments + 1> joints;
  for (std::size_t b = 0; b < skeleton.size(); ++b) {
    const int segments = skeleton.bbones[b].segments;
    if (segments <= 1) continue;
    bboneJointMatrices(skeleton, pose, pose_matrices, b, false, joints);
    for (int a = 0; a <= segments; ++a) out[k++] = unitAxes(pose_matrices[b] * joints[static_cast<std::size_t>(a)]);
  }
}

Skin bakeBendySkin(const Skeleton& skeleton, const Skin& skin, std::span<const float> rest_positions) {
  if (!hasBendyBones(skeleton)) return skin;
  Pose rest;
  const std::vector<Eigen::Matrix4d> pm = restPoseMatrices(skeleton, rest);
  BBoneSkinning bb;
  bboneSkinningMatrices(skeleton, rest, pm, bb);
  // The first baked joint of each bendy bone.
  std::vector<int> first(skeleton.size(), -1);
  std::size_t next = skeleton.size();
  for (std::size_t b = 0; b < skeleton.size(); ++b) {
    if (skeleton.bbones[b].segments <= 1) continue;
    first[b] = static_cast<int>(next);
    next += static_cast<std::size_t>(skeleton.bbones[b].segments) + 1;
  }
  Skin out;
  out.vertex_count = skin.vertex_count;
  out.bone_count = next;
  out.mask_names = skin.mask_names;
  out.masks = skin.masks;
  out.offsets.reserve(skin.offsets.size());
  out.offsets.push_back(0);
  std::vector<std::pair<std::uint16_t, float>> row;
  for (std::size_t v = 0; v < skin.vertex_count; ++v) {
    row.clear();
    for (std::uint32_t i = skin.offsets[v]; i < skin.offsets[v + 1]; ++i) {
      const std::uint16_t bone = skin.bones[i];
      const float w = skin.weights[i];
      if (bone >= skeleton.size() || first[bone] < 0) {
        row.emplace_back(bone, w);
        continue;
      }
      const Eigen::Vector3d p(rest_positions[3 * v], rest_positions[3 * v + 1], rest_positions[3 * v + 2]);
      const BBoneJointWeights split = bboneJointWeights(skeleton, bb, bone, p, w);
      const auto j = static_cast<std::uint16_t>(first[bone] + static_cast<int>(split.joint - static_cast<std::size_t>(bb.first[bone])));
      const auto w0 = static_cast<float>(split.weight0), w1 = static_cast<float>(split.weight1);
      if (w0 != 0.0f) row.emplace_back(j, w0);
      if (w1 != 0.0f) row.emplace_back(static_cast<std::uint16_t>(j + 1), w1);
    }
    std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [bone, w] : row) {
      out.bones.push_back(bone);
      out.weights.push_back(w);
    }
    out.offsets.push_back(static_cast<std::uint32_t>(out.bones.size()));
  }
  return out;
}

}  // namespace rigfit
