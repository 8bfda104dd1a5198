// Every rig MPFB ships loads and fits on the hm08 base mesh.
#include <Eigen/LU>
#include <gtest/gtest.h>

#include "rigfit/data.hpp"
#include "rigfit/fit.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

TEST(FitShipped, EveryRigFitsTheBaseMeshWithoutFallbacks) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  auto mesh = loadBaseMesh(data);
  ASSERT_TRUE(mesh.ok()) << mesh.error().message;
  auto groups = loadVertexGroups(data, mesh->vertexCount());
  ASSERT_TRUE(groups.ok()) << groups.error().message;
  const std::pair<const char*, std::size_t> rigs[] = {
      {"cmu_mb", 31}, {"default", 163}, {"default_no_toes", 137}, {"game_engine", 53}, {"game_engine_with_breast", 55},
      {"mixamo", 52}, {"mixamo_unity", 64}, {"openpose", 24}, {"rigify.human", 185}, {"rigify.human_toes", 213}};
  EXPECT_EQ(listRigs(data).size(), std::size(rigs));
  for (const auto& [name, bones] : rigs) {
    auto where = locateRig(data, name);
    ASSERT_TRUE(where.ok()) << where.error().message;
    auto rig = loadRig(data, *where);
    ASSERT_TRUE(rig.ok()) << rig.error().message;
    auto fit = fitRig(*rig, *mesh, *groups);
    ASSERT_TRUE(fit.ok()) << fit.error().message;
    const Skeleton& s = fit->skeleton;
    EXPECT_EQ(s.size(), bones) << name;
    auto topology = skeletonTopology(*rig);  // names and parents known before the fit
    ASSERT_TRUE(topology.has_value()) << name;
    EXPECT_EQ(topology->names, s.names) << name;
    EXPECT_EQ(topology->parents, s.parents) << name;
    EXPECT_EQ(fit->fallback_count, 0u) << name;
    EXPECT_TRUE(fit->warnings.empty()) << name << ": " << (fit->warnings.empty() ? "" : fit->warnings[0].message);
    for (std::size_t i = 0; i < s.size(); ++i) {
      EXPECT_LT(s.parents[i], static_cast<int>(i)) << name << " " << s.names[i];
      EXPECT_GT(s.lengths[i], 1e-6) << name << " " << s.names[i];
      const Eigen::Matrix3d r = s.rest[i].topLeftCorner<3, 3>();
      // Orthonormal, except where Blender's truncated series near -Y (in a bone's or an
      // ancestor's frame) leaves its rest matrix slightly non-orthonormal, as Blender's is.
      const double tol = 1e-4;
      EXPECT_LT((r.transpose() * r - Eigen::Matrix3d::Identity()).norm(), tol) << name << " " << s.names[i];
      EXPECT_NEAR(r.determinant(), 1.0, tol);
      // Blender's object-mode rest data composes back into matrix_local.
      Eigen::Matrix4d local = Eigen::Matrix4d::Identity();
      local.topLeftCorner<3, 3>() = s.local_rotation[i];
      local.topRightCorner<3, 1>() = s.local_head[i];
      if (s.parents[i] >= 0) local(1, 3) += s.local_length[static_cast<std::size_t>(s.parents[i])];
      const Eigen::Matrix4d composed = s.parents[i] >= 0 ? Eigen::Matrix4d(s.rest[static_cast<std::size_t>(s.parents[i])] * local) : local;
      EXPECT_LT((composed - s.rest[i]).norm(), 1e-12) << name << " " << s.names[i];
      EXPECT_NEAR(s.local_length[i], s.lengths[i], 1e-12);
      if (s.connected[i]) { EXPECT_EQ(s.heads[i], s.tails[static_cast<std::size_t>(s.parents[i])]) << name << " " << s.names[i]; }
    }
  }
}

// The first root's head of game_engine is the joint-ground cube centre: mean of vertices
// 19150..19157 of base.obj (MH y = -8.18305 -> rig z = -0.818305).
TEST(FitShipped, GameEngineRootSitsOnTheGroundCube) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  auto mesh = loadBaseMesh(data);
  ASSERT_TRUE(mesh.ok());
  auto groups = loadVertexGroups(data, mesh->vertexCount());
  ASSERT_TRUE(groups.ok());
  auto rig = loadRig(data, *locateRig(data, "game_engine"));
  ASSERT_TRUE(rig.ok());
  auto fit = fitRig(*rig, *mesh, *groups);
  ASSERT_TRUE(fit.ok());
  const Skeleton& s = fit->skeleton;
  ASSERT_EQ(s.names[0], "Root");
  double mean[3] = {0, 0, 0};
  for (std::size_t v = 19150; v <= 19157; ++v)
    for (int k = 0; k < 3; ++k) mean[k] += mesh->positions[3 * v + static_cast<std::size_t>(k)] / 8.0;
  EXPECT_EQ(s.heads[0].x(), mean[0]);
  EXPECT_EQ(s.heads[0].y(), mean[1]);
  EXPECT_EQ(s.heads[0].z(), mean[2]);
  EXPECT_NEAR(s.heads[0].z(), -0.818305, 1e-6);
  // Its tail is the MEAN of vertices 19152 and 19155.
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(s.tails[0][k], (double(mesh->positions[3 * 19152 + static_cast<std::size_t>(k)]) +
                              double(mesh->positions[3 * 19155 + static_cast<std::size_t>(k)])) / 2.0);
}

}  // namespace
}  // namespace rigfit
