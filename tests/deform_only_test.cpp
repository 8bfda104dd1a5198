// --deform-only: bones that carry weight, re-parented across removed ones, one root. Hand-made
// hierarchies with the expected selection worked out by hand, then shipped rigs on hm08.
#include <Eigen/Geometry>
#include <Eigen/LU>
#include <gtest/gtest.h>

#include "rigfit/character.hpp"
#include "rigfit/export_model.hpp"
#include "export_test_util.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

// A skin of one vertex per weighted bone (weight 0 entries are kept out, as bindWeights does).
Skin skinOn(std::size_t bones, std::initializer_list<int> weighted) {
  Skin s;
  s.vertex_count = weighted.size();
  s.bone_count = bones;
  s.offsets.push_back(0);
  for (int b : weighted) {
    s.bones.push_back(static_cast<std::uint16_t>(b));
    s.weights.push_back(0.5f);
    s.offsets.push_back(static_cast<std::uint32_t>(s.bones.size()));
  }
  return s;
}

TEST(DeformOnly, RemovedMiddleBoneReparentsItsChild) {
  // 0 root (no weight) -> 1 spine -> 2 gap (no weight) -> 3 head; 1 -> 4 arm
  const std::vector<int> parents = {-1, 0, 1, 2, 1};
  auto s = selectDeformBones(parents, skinOn(5, {1, 3, 4}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->bones, (std::vector<int>{1, 3, 4}));
  EXPECT_EQ(s->parents, (std::vector<int>{-1, 0, 0}));
}

TEST(DeformOnly, SiblingsUnderAnUnweightedBoneKeepTheirCommonAncestor) {
  // 0 Root (no weight) -> 1 pelvis-ish (no weight) -> {2 thigh.L -> 3 shin.L, 4 thigh.R}; 0 -> 5 ik (no weight)
  const std::vector<int> parents = {-1, 0, 1, 2, 1, 0};
  auto s = selectDeformBones(parents, skinOn(6, {3, 2, 4}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->bones, (std::vector<int>{1, 2, 3, 4}));  // bone 1 is the lowest common ancestor
  EXPECT_EQ(s->parents, (std::vector<int>{-1, 0, 1, 0}));
  // Deeper: tops 3 and 4 meet at 1 (not at 0).
  auto deep = selectDeformBones(parents, skinOn(6, {3, 4}));
  ASSERT_TRUE(deep.ok());
  EXPECT_EQ(deep->bones, (std::vector<int>{1, 3, 4}));
  // Tops in different branches of the root: the root comes back.
  auto wide = selectDeformBones(parents, skinOn(6, {3, 5}));
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(wide->bones, (std::vector<int>{0, 3, 5}));
  EXPECT_EQ(wide->parents, (std::vector<int>{-1, 0, 0}));
}

TEST(DeformOnly, SeveralTreesHangUnderTheLargest) {
  // Trees (openpose-like): 0 LHip -> 1 LKnee; 2 MidHip -> 3 Neck -> 4 Nose; 5 RHip
  const std::vector<int> parents = {-1, 0, -1, 2, 3, -1};
  auto s = selectDeformBones(parents, skinOn(6, {0, 1, 2, 3, 4, 5}));
  ASSERT_TRUE(s.ok());
  // MidHip's tree has 3 kept bones: it is the root; LHip and RHip become its children, and the
  // order is depth-first with children in skeleton order (LHip's subtree first).
  EXPECT_EQ(s->bones, (std::vector<int>{2, 0, 1, 3, 4, 5}));
  EXPECT_EQ(s->parents, (std::vector<int>{-1, 0, 1, 0, 3, 0}));
  // A tie goes to the first tree.
  auto tie = selectDeformBones(parents, skinOn(6, {0, 2, 5}));
  ASSERT_TRUE(tie.ok());
  EXPECT_EQ(tie->bones, (std::vector<int>{0, 2, 5}));
  EXPECT_EQ(tie->parents, (std::vector<int>{-1, 0, 0}));
}

TEST(DeformOnly, EverythingWeightedKeepsTheSkeleton) {
  const std::vector<int> parents = {-1, 0, 1, 1, 0};
  auto s = selectDeformBones(parents, skinOn(5, {4, 3, 2, 1, 0}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->bones, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(s->parents, parents);
}

TEST(DeformOnly, NoWeightIsAnError) {
  Skin none = skinOn(3, {1});
  none.weights[0] = 0.0f;
  auto s = selectDeformBones(std::vector<int>{-1, 0, 0}, none);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kUsage);
}

// buildExportModel: bind globals unchanged, locals relative to the new parent, skin remapped.
TEST(DeformOnly, ModelKeepsGlobalsAndRemapsTheSkin) {
  Mesh mesh;
  mesh.positions = {0, 0, 0, 1, 0, 0, 1, 0, 1};
  mesh.face_offsets = {0, 3};
  mesh.corner_vertices = {0, 1, 2};
  const Skeleton sk = test::handSkeleton({"Root", "spine", "gap", "head"}, {-1, 0, 1, 2});
  Skin skin;
  skin.vertex_count = 3;
  skin.bone_count = 4;
  skin.offsets = {0, 1, 3, 4};
  skin.bones = {1, 3, 1, 3};
  skin.weights = {1.0f, 0.7f, 0.3f, 0.9f};
  auto m = buildExportModel(mesh, sk, &skin, nullptr, {.deform_only = true});
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->source_bones, (std::vector<int>{1, 3}));
  EXPECT_EQ(m->names, (std::vector<std::string>{"spine", "head"}));
  EXPECT_EQ(m->parents, (std::vector<int>{-1, 0}));
  const Eigen::Matrix4d c = rigToExportFrame();
  EXPECT_LT((m->bind_global[0] - c * sk.rest[1]).norm(), 1e-15);
  EXPECT_LT((m->bind_global[1] - c * sk.rest[3]).norm(), 1e-15);
  EXPECT_LT((m->bind_local[1] - (c * sk.rest[1]).inverse() * (c * sk.rest[3])).norm(), 1e-14);
  EXPECT_LT((m->bind_global[0] * m->bind_local[1] - m->bind_global[1]).norm(), 1e-14);
  EXPECT_EQ(m->meshes[0].skin.bone_count, 2u);
  EXPECT_EQ(m->meshes[0].skin.bones, (std::vector<std::uint16_t>{0, 1, 0, 1}));
  EXPECT_EQ(m->meshes[0].skin.weights, skin.weights);
  // Without weights there is nothing to tell deforming bones by.
  EXPECT_FALSE(buildExportModel(mesh, sk, nullptr, nullptr, {.deform_only = true}).ok());
}

struct ShippedCase {
  const char* rig;
  std::size_t bones, kept;
  const char* root;
  std::vector<std::string> removed;
};

class DeformOnlyShipped : public ::testing::TestWithParam<ShippedCase> {};

TEST_P(DeformOnlyShipped, KeepsWeightedBonesUnderOneRoot) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const ShippedCase& w = GetParam();
  CharacterOptions o;
  o.rig = w.rig;
  auto c = loadCharacter(DataSource::folder(test::sharedData()), o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const Skeleton& s = c->fit.skeleton;
  ASSERT_EQ(s.size(), w.bones);
  auto full = buildExportModel(c->body().mesh, s, &c->body().skin, &c->body().groups, {});
  auto m = buildExportModel(c->body().mesh, s, &c->body().skin, &c->body().groups, {.deform_only = true});
  ASSERT_TRUE(full.ok() && m.ok());
  ASSERT_EQ(m->names.size(), w.kept);
  std::vector<std::string> removed;
  for (std::size_t b = 0; b < s.size(); ++b)
    if (std::find(m->source_bones.begin(), m->source_bones.end(), static_cast<int>(b)) == m->source_bones.end()) removed.push_back(s.names[b]);
  EXPECT_EQ(removed, w.removed);
  EXPECT_EQ(m->source_names[0], w.root);
  int roots = 0;
  for (std::size_t i = 0; i < m->names.size(); ++i) {
    roots += m->parents[i] < 0;
    EXPECT_LT(m->parents[i], static_cast<int>(i));  // parents first
    const auto src = static_cast<std::size_t>(m->source_bones[i]);
    EXPECT_EQ(m->bind_global[i], full->bind_global[src]);  // the same bind pose
    if (m->parents[i] >= 0) {
      EXPECT_LT((m->bind_global[static_cast<std::size_t>(m->parents[i])] * m->bind_local[i] - m->bind_global[i]).norm(), 1e-12);
    }
  }
  EXPECT_EQ(roots, 1);
  // The same influences, on the same bones by name.
  ASSERT_EQ(m->meshes[0].skin.offsets, full->meshes[0].skin.offsets);
  for (std::size_t k = 0; k < m->meshes[0].skin.bones.size(); ++k) {
    EXPECT_EQ(m->source_names[m->meshes[0].skin.bones[k]], full->source_names[full->meshes[0].skin.bones[k]]);
    EXPECT_EQ(m->meshes[0].skin.weights[k], full->meshes[0].skin.weights[k]);
  }
}

INSTANTIATE_TEST_SUITE_P(Hm08, DeformOnlyShipped,
                         ::testing::Values(ShippedCase{"game_engine", 53, 52, "pelvis", {"Root"}},
                                           ShippedCase{"mixamo_unity", 64, 63, "mixamorig:Hips", {"mixamorig:Root"}},
                                           ShippedCase{"cmu_mb", 31, 31, "Hips", {}},
                                           ShippedCase{"openpose", 24, 22, "MidHip", {"LSmallToe", "RSmallToe"}}),
                         [](const auto& param_info) { return std::string(param_info.param.rig); });

}  // namespace
}  // namespace rigfit
