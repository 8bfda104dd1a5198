#include "rigfit/posing.hpp"

#include <filesystem>

#include "rigfit/skinning.hpp"

namespace rigfit {

Status buildPose(const DataSource& data, const Character& c, const PoseRequest& request, Pose& pose,
                 std::vector<PoseWarning>* warnings) {
  pose = Pose::rest(c.fit.skeleton);
  if (!request.pose_file.empty()) {
    std::error_code ec;
    Expected<Json> json = makeError(ErrorCode::kIo, "");
    std::string label = request.pose_file;
    if (std::filesystem::is_regular_file(request.pose_file, ec)) {
      json = readJsonFile(request.pose_file);
    } else if (data.exists("poses/" + request.pose_file)) {
      label = data.label("poses/" + request.pose_file);
      auto text = data.read("poses/" + request.pose_file);
      if (!text) return text.error();
      json = parseJson(*text, label);
    } else {
      return makeError(ErrorCode::kIo, request.pose_file + ": no such pose file");
    }
    if (!json) return json.error();
    RIGFIT_TRY(applyPoseJson(*json, label, c.fit.skeleton, pose, warnings));
  }
  for (const auto& r : request.rotations) RIGFIT_TRY(applyBoneRotation(r, c.fit.skeleton, pose));
  return {};
}

Status poseCharacter(const Character& c, const Pose& pose, bool dual_quaternion, int threads, PosedMesh& out) {
  if (!c.has_skin) return makeError(ErrorCode::kUsage, c.rig.label + ": no weights for this rig");
  const Skeleton& s = c.fit.skeleton;
  out.pose_matrices.assign(s.size(), Eigen::Matrix4d::Identity());
  poseMatrices(s, pose, out.pose_matrices);
  std::vector<Eigen::Matrix4d> skinning(s.size());
  skinningMatrices(s, out.pose_matrices, skinning);
  std::vector<float> packed(12 * s.size()), rest(12 * s.size());
  packSkinningMatrices(skinning, packed);
  packSkinningMatrices(s.rest, rest);
  auto layout = SkinningLayout::build(c.skin);
  if (!layout) return layout.error();
  out.positions.assign(c.mesh.positions.size(), 0.0f);
  SkinningJob job;
  job.layout = &*layout;
  job.matrices = packed;
  job.rest_matrices = rest;
  job.in_positions = c.mesh.positions;
  job.out_positions = out.positions;
  job.dual_quaternion = dual_quaternion;
  job.threads = threads;
  if (!job.run()) return makeError(ErrorCode::kUsage, "pose: the skinning job rejected its inputs");
  out.normals.clear();
  const std::size_t nn = c.mesh.normals.size() / 3;
  if (nn == 0) return {};
  // One virtual vertex per OBJ normal, with the influences of the first vertex that uses it.
  std::vector<std::int64_t> owner(nn, -1);
  for (std::size_t k = 0; k < c.mesh.corner_normals.size(); ++k) {
    const std::int32_t n = c.mesh.corner_normals[k];
    if (n >= 0 && owner[static_cast<std::size_t>(n)] < 0) owner[static_cast<std::size_t>(n)] = c.mesh.corner_vertices[k];
  }
  Skin vs;
  vs.vertex_count = nn;
  vs.bone_count = c.skin.bone_count;
  vs.offsets.push_back(0);
  std::vector<float> pos(3 * nn, 0.0f);
  for (std::size_t k = 0; k < nn; ++k) {
    if (owner[k] >= 0) {
      const auto v = static_cast<std::size_t>(owner[k]);
      for (std::uint32_t i = c.skin.offsets[v]; i < c.skin.offsets[v + 1]; ++i) {
        vs.bones.push_back(c.skin.bones[i]);
        vs.weights.push_back(c.skin.weights[i]);
      }
      for (int d = 0; d < 3; ++d) pos[3 * k + static_cast<std::size_t>(d)] = c.mesh.positions[3 * v + static_cast<std::size_t>(d)];
    }
    vs.offsets.push_back(static_cast<std::uint32_t>(vs.bones.size()));
  }
  auto vlayout = SkinningLayout::build(vs);
  if (!vlayout) return vlayout.error();
  std::vector<float> pos_out(3 * nn);
  out.normals.assign(3 * nn, 0.0f);
  SkinningJob nj = job;
  nj.layout = &*vlayout;
  nj.in_positions = pos;
  nj.out_positions = pos_out;
  nj.in_normals = c.mesh.normals;
  nj.out_normals = out.normals;
  if (!nj.run()) return makeError(ErrorCode::kUsage, "pose: the normal skinning job rejected its inputs");
  return {};
}

}  // namespace rigfit
