// Standard glTF skinning of a real export reproduces rigfit's own posed mesh.
//
// The .glb (shipped rig + weights on hm08, 4 float influences) is read with tinygltf. The pose is
// set on the joint nodes as an engine animates them: each node's local transform becomes its
// rest local (the file's TRS) times the bone's pose delta (rest local^-1 * posed local, taken
// from rigfit's Blender-semantics pose, frame independent), decomposed back into TRS. Then, as
// the glTF specification says, jointMatrix_j = globalTransform(joint_j) * IBM_j (the file's
// float IBMs) and each POSITION is sum_k WEIGHTS[k] * jointMatrix_JOINTS[k] * p. Vertices with at
// most 4 influences must land on rigfit's posed vertex within 1e-5 m.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <Eigen/LU>
#include <Eigen/SVD>
#include <gtest/gtest.h>

#include "export_test_util.hpp"
#include "rigfit/character.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

void setTrs(tinygltf::Node& n, const Eigen::Matrix4d& m) {
  const Eigen::Matrix3d a = m.topLeftCorner<3, 3>();
  const Eigen::Vector3d s(a.col(0).norm(), a.col(1).norm(), a.col(2).norm());
  Eigen::JacobiSVD<Eigen::Matrix3d> svd(a * s.cwiseInverse().asDiagonal(), Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::Quaterniond q(Eigen::Matrix3d(svd.matrixU() * svd.matrixV().transpose()));
  n.translation = {m(0, 3), m(1, 3), m(2, 3)};
  n.rotation = {q.x(), q.y(), q.z(), q.w()};
  n.scale = {s.x(), s.y(), s.z()};
}

struct Case {
  const char* rig;
  const char* pose_file;
  bool deform_only;
  const char* label;
  int renamed = 0;  // 1: default's, 2: Rigify's bones with game_engine's renamed weights
};

class GltfSkinning : public ::testing::TestWithParam<Case> {};

TEST_P(GltfSkinning, PosedGlbMatchesRigfitWithinTenMicrometres) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  std::optional<Character> c;
  test::loadSkinnedCharacter(data, test::sharedData(), GetParam().rig, GetParam().renamed, c);
  if (HasFatalFailure()) return;
  const Skeleton& sk = c->fit.skeleton;
  const Pose pose = test::testPose(data, *c, GetParam().pose_file);
  PosedMesh posed;
  ASSERT_TRUE(poseCharacter(*c, pose, false, 1, posed).ok());
  auto model = buildExportModel(c->body().mesh, sk, &c->body().skin, &c->body().groups, {.deform_only = GetParam().deform_only});
  ASSERT_TRUE(model.ok()) << model.error().message;
  std::vector<std::uint16_t> joints, quantized;
  std::vector<float> weights;
  tinygltf::Model g = test::loadGlb(test::exportGlb(*model, 4, 0, joints, weights, quantized));
  const tinygltf::Skin& skin = g.skins[0];
  const std::size_t nb = skin.joints.size();
  ASSERT_EQ(nb, model->names.size());

  // Pose the joint nodes: local = file rest local * delta, delta = rest_local^-1 * posed_local
  // (bone -> new parent, in rigfit's own double-precision matrices).
  for (std::size_t j = 0; j < nb; ++j) {
    const auto b = static_cast<std::size_t>(model->source_bones[j]);
    const int p = model->parents[j];
    const auto pb = p < 0 ? std::size_t(0) : static_cast<std::size_t>(model->source_bones[static_cast<std::size_t>(p)]);
    const Eigen::Matrix4d rest_local = p < 0 ? sk.rest[b] : Eigen::Matrix4d(sk.rest[pb].inverse() * sk.rest[b]);
    const Eigen::Matrix4d posed_local =
        p < 0 ? posed.pose_matrices[b] : Eigen::Matrix4d(posed.pose_matrices[pb].inverse() * posed.pose_matrices[b]);
    const Eigen::Matrix4d delta = rest_local.inverse() * posed_local;  // (C R)^-1 (C P) = R^-1 P: any frame
    tinygltf::Node& n = g.nodes[static_cast<std::size_t>(skin.joints[j])];
    setTrs(n, test::nodeMatrix(n) * delta);
  }
  const std::vector<Eigen::Matrix4d> global = test::nodeGlobals(g), ibm = test::inverseBindMatrices(g);
  std::vector<Eigen::Matrix4d> joint_matrix(nb);
  for (std::size_t j = 0; j < nb; ++j) joint_matrix[j] = global[static_cast<std::size_t>(skin.joints[j])] * ibm[j];

  const tinygltf::Primitive& prim = g.meshes[0].primitives[0];
  const int pos = prim.attributes.at("POSITION"), ja = prim.attributes.at("JOINTS_0"), wa = prim.attributes.at("WEIGHTS_0");
  const Eigen::Matrix4d C = rigToExportFrame();
  double worst_le4 = 0.0, worst_gt4 = 0.0;
  std::size_t le4 = 0, gt4 = 0, moved = 0;
  for (std::size_t v = 0; v < model->meshes[0].vertexCount(); ++v) {
    const Eigen::Vector4d p(test::accessorValue(g, pos, v, 0), test::accessorValue(g, pos, v, 1), test::accessorValue(g, pos, v, 2), 1.0);
    Eigen::Vector4d out = Eigen::Vector4d::Zero();
    for (int k = 0; k < 4; ++k)
      out += test::accessorValue(g, wa, v, k) * (joint_matrix[static_cast<std::size_t>(test::accessorValue(g, ja, v, k))] * p);
    const std::size_t sv = model->meshes[0].source_vertex[v];
    const Eigen::Vector3d want = (C * Eigen::Vector4d(posed.positions[3 * sv], posed.positions[3 * sv + 1], posed.positions[3 * sv + 2], 1)).head<3>();
    const std::size_t n = model->meshes[0].skin.influenceCount(v);
    // Unweighted (or total <= 1e-4): Blender leaves it at rest, the file binds it to joint 0.
    if (n == 0 || std::all_of(&weights[4 * v], &weights[4 * v] + 4, [](float w) { return w == 0.0f; })) continue;
    const double err = (out.head<3>() - want).norm();
    moved += (want - p.head<3>()).norm() > 0.01;
    if (n <= 4) {
      ++le4;
      worst_le4 = std::max(worst_le4, err);
    } else {
      ++gt4;
      worst_gt4 = std::max(worst_gt4, err);
    }
  }
  EXPECT_GT(le4, model->meshes[0].vertexCount() / 2);
  EXPECT_GT(moved, model->meshes[0].vertexCount() / 4) << "the pose must move much of the body";
  EXPECT_LT(worst_le4, 1e-5) << GetParam().rig;
  std::printf("[ glTF skin ] %s: %zu vertices with <= 4 influences, max error %.3g m; %zu with more (4 kept), max error %.3g m; %zu moved > 1 cm\n",
              GetParam().label, le4, worst_le4, gt4, worst_gt4, moved);
}

INSTANTIATE_TEST_SUITE_P(ShippedRigs, GltfSkinning,
                         ::testing::Values(Case{"game_engine", "game_engine_fk/t-pose.json", false, "game_engine"},
                                           Case{"game_engine", "game_engine_fk/t-pose.json", true, "game_engine_deform_only"},
                                           Case{"cmu_mb", "cmu_mb_fk/t-pose.json", false, "cmu_mb"},
                                           Case{"mixamo_unity", "mixamo_unity_fk/t-pose.json", false, "mixamo_unity"},
                                           Case{"mixamo", "", false, "mixamo"}, Case{"openpose", "", true, "openpose_deform_only"},
                                           Case{"default", "default_fk/t-pose.json", false, "default", 1},
                                           Case{"default", "default_fk/t-pose.json", true, "default_deform_only", 1},
                                           Case{"rigify.human", "", true, "rigify_deform_only", 2}),
                         [](const auto& param_info) { return std::string(param_info.param.label); });

}  // namespace
}  // namespace rigfit
