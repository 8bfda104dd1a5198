#include "rigfit/posing.hpp"

#include <filesystem>
#include <span>
#include <vector>

#include "rigfit/skinning.hpp"

namespace rigfit {

Status buildPose(const DataSource& data, const Character& c, const PoseRequest& request, Pose& pose,
                 std::vector<PoseWarning>* warnings) {
  pose = Pose::rest(c.fit.skeleton);
  if (!request.pose_file.empty()) {
    auto file = resolveDataFile(data, DataFileKind::kPose, request.pose_file);
    if (!file) return file.error();
    auto text = viewDataFile(data, *file);
    if (!text) return text.error();
    auto json = parseJson(text->text(), file->label);
    if (!json) return json.error();
    RIGFIT_TRY(applyPoseJson(*json, file->label, c.fit.skeleton, pose, warnings));
  }
  for (const auto& r : request.rotations) RIGFIT_TRY(applyBoneRotation(r, c.fit.skeleton, pose));
  if (warnings)
    for (auto& w : constraintWarnings(c.fit.skeleton)) warnings->push_back(std::move(w));
  return {};
}

namespace {

// What bendy bones add to a skinning job: vertices weighted to them are deformed again by their
// B-Bone joints (null: the skeleton has none).
struct BendySkinning {
  const Skeleton& skeleton;
  const BBoneSkinning& bb;
  std::span<const Eigen::Matrix4d> skinning;
};

// One mesh through the skinning job `base` (matrices, mode, threads set): its positions, and its
// OBJ normals, each with the influences of the first vertex that uses it.
Status skinMesh(const Mesh& mesh, const Skin& skin, const SkinningJob& base, const BendySkinning* bendy,
                std::vector<float>& positions, std::vector<float>& normals) {
  auto layout = SkinningLayout::build(skin);
  if (!layout) return layout.error();
  positions.assign(mesh.positions.size(), 0.0f);
  SkinningJob job = base;
  job.layout = &*layout;
  job.in_positions = mesh.positions;
  job.out_positions = positions;
  if (!job.run()) return makeError(ErrorCode::kUsage, "pose: the skinning job rejected its inputs");
  if (bendy)
    skinBendyVertices(bendy->skeleton, bendy->bb, bendy->skinning, skin, base.dual_quaternion, mesh.positions, {}, positions, {});
  normals.clear();
  const std::size_t nn = mesh.normals.size() / 3;
  if (nn == 0) return {};
  // One virtual vertex per OBJ normal, with the influences of the first vertex that uses it.
  std::vector<std::int64_t> owner(nn, -1);
  for (std::size_t k = 0; k < mesh.corner_normals.size(); ++k) {
    const std::int32_t n = mesh.corner_normals[k];
    if (n >= 0 && owner[static_cast<std::size_t>(n)] < 0) owner[static_cast<std::size_t>(n)] = mesh.corner_vertices[k];
  }
  Skin vs;
  vs.vertex_count = nn;
  vs.bone_count = skin.bone_count;
  vs.offsets.push_back(0);
  std::vector<float> pos(3 * nn, 0.0f);
  for (std::size_t k = 0; k < nn; ++k) {
    if (owner[k] >= 0) {
      const auto v = static_cast<std::size_t>(owner[k]);
      for (std::uint32_t i = skin.offsets[v]; i < skin.offsets[v + 1]; ++i) {
        vs.bones.push_back(skin.bones[i]);
        vs.weights.push_back(skin.weights[i]);
      }
      for (int d = 0; d < 3; ++d) pos[3 * k + static_cast<std::size_t>(d)] = mesh.positions[3 * v + static_cast<std::size_t>(d)];
    }
    vs.offsets.push_back(static_cast<std::uint32_t>(vs.bones.size()));
  }
  auto vlayout = SkinningLayout::build(vs);
  if (!vlayout) return vlayout.error();
  std::vector<float> pos_out(3 * nn);
  normals.assign(3 * nn, 0.0f);
  SkinningJob nj = base;
  nj.layout = &*vlayout;
  nj.in_positions = pos;
  nj.out_positions = pos_out;
  nj.in_normals = mesh.normals;
  nj.out_normals = normals;
  if (!nj.run()) return makeError(ErrorCode::kUsage, "pose: the normal skinning job rejected its inputs");
  if (bendy)
    skinBendyVertices(bendy->skeleton, bendy->bb, bendy->skinning, vs, base.dual_quaternion, pos, mesh.normals, pos_out, normals);
  return {};
}

}  // namespace

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
  SkinningJob job;
  job.matrices = packed;
  job.rest_matrices = rest;
  job.dual_quaternion = dual_quaternion;
  job.threads = threads;
  // Bendy bones (B-Bones): their joints' deform matrices for this pose.
  BBoneSkinning bb;
  bboneSkinningMatrices(s, pose, out.pose_matrices, bb);
  const BendySkinning bendy{s, bb, skinning};
  const BendySkinning* bendy_ptr = bb.empty() ? nullptr : &bendy;
  RIGFIT_TRY(skinMesh(c.body().mesh, c.body().skin, job, bendy_ptr, out.positions, out.normals));
  out.more.resize(c.meshes.size() - 1);
  for (std::size_t m = 1; m < c.meshes.size(); ++m)
    RIGFIT_TRY(skinMesh(c.meshes[m].mesh, c.meshes[m].skin, job, bendy_ptr, out.more[m - 1].positions, out.more[m - 1].normals));
  return {};
}

std::string writeCharacterObj(const Character& c, const PosedMesh* posed, bool keep_hidden, std::string_view header_comment) {
  const auto positions = [&](std::size_t m) -> std::span<const float> {
    if (!posed) return {};
    return m == 0 ? std::span<const float>(posed->positions) : std::span<const float>(posed->more[m - 1].positions);
  };
  const auto normals = [&](std::size_t m) -> std::span<const float> {
    if (!posed) return {};
    return m == 0 ? std::span<const float>(posed->normals) : std::span<const float>(posed->more[m - 1].normals);
  };
  if (c.meshes.size() == 1 && !c.body().asset) return writeObj(c.body().mesh, positions(0), normals(0), header_comment);
  std::vector<Mesh> shown(c.meshes.size());
  std::vector<ObjObject> objects;
  for (std::size_t m = 0; m < c.meshes.size(); ++m) {
    const CharacterMesh& cm = c.meshes[m];
    const Mesh* mesh = &cm.mesh;
    if (!keep_hidden && !cm.hidden_faces.empty()) mesh = &(shown[m] = withoutFaces(cm.mesh, cm.hidden_faces));
    objects.push_back({cm.name, mesh, positions(m), normals(m)});
  }
  return writeObjObjects(objects, header_comment);
}

}  // namespace rigfit
