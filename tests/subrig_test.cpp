// Sub-rig parent references on hand-built parent rigs: JOINTS chains, head_tail re-split along
// a chain, the nearest bone without head_tail, single-bone chains first, the split fallback, and
// the ORG- / deform / chain-length / name preferences (docs/mpfb-behaviour.md §8.3, §8.6).
#include <gtest/gtest.h>

#include "rigfit/character.hpp"
#include "rigfit/data.hpp"
#include "rigfit/subrig.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

// A parent rig over bones given as (name, parent, head, tail, head cube, tail cube).
struct Bone {
  const char* name;
  int parent;
  Eigen::Vector3d head, tail;
  int head_cube, tail_cube;
};

struct Parent {
  Skeleton skeleton;
  ParentRig rig;
};

Parent makeParent(std::initializer_list<Bone> bones, std::initializer_list<std::pair<const char*, Eigen::Vector3d>> cubes) {
  Parent p;
  for (const Bone& b : bones) {
    p.skeleton.names.push_back(b.name);
    p.skeleton.parents.push_back(b.parent);
    p.skeleton.heads.push_back(b.head);
    p.skeleton.tails.push_back(b.tail);
    p.skeleton.lengths.push_back((b.tail - b.head).norm());
    p.rig.head_cube.push_back(b.head_cube);
    p.rig.tail_cube.push_back(b.tail_cube);
    p.rig.deform.push_back(1);
  }
  for (const auto& [name, at] : cubes) {
    p.rig.cube_names.push_back(name);
    p.rig.cubes.push_back(at);
  }
  return p;
}

const Eigen::Vector3d kOrigin = Eigen::Vector3d::Zero();

// upper (length 1) -> lower (length 2) spans joint-a -> joint-b.
Parent twoBoneChain() {
  Parent p = makeParent({{"upper", kNoParent, {0, 0, 0}, {0, 0, 1}, 0, -1}, {"lower", 0, {0, 0, 1}, {0, 0, 3}, -1, 1}},
                        {{"joint-a", {0, 0, 0}}, {"joint-b", {0, 0, 3}}});
  p.rig.skeleton = &p.skeleton;
  return p;
}

TEST(SubrigParent, HeadTailPicksTheChainBoneAndIsRewrittenToIt) {
  Parent p = twoBoneChain();
  p.rig.skeleton = &p.skeleton;
  // Fractions along the chain: 0, 1/3, 1.
  auto r = resolveJoints(p.rig, "joint-a", "joint-b", 0.5, kOrigin);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bone, 1);
  ASSERT_TRUE(r->head_tail);
  EXPECT_NEAR(*r->head_tail, (0.5 - 1.0 / 3.0) / (2.0 / 3.0), 1e-15);
  r = resolveJoints(p.rig, "joint-a", "joint-b", 0.25, kOrigin);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bone, 0);
  EXPECT_NEAR(*r->head_tail, 0.75, 1e-15);
  r = resolveJoints(p.rig, "joint-a", "joint-b", 1.0, kOrigin);  // the end of the chain
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bone, 1);
  EXPECT_EQ(*r->head_tail, 1.0);
  EXPECT_FALSE(resolveJoints(p.rig, "joint-a", "joint-b", 1.5, kOrigin));  // outside the chain: no candidate
}

TEST(SubrigParent, WithoutHeadTailTheBoneNearestTheOwnerHead) {
  Parent p = twoBoneChain();
  p.rig.skeleton = &p.skeleton;
  auto r = resolveJoints(p.rig, "joint-a", "joint-b", std::nullopt, Eigen::Vector3d(0.5, 0, 0.4));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bone, 0);
  EXPECT_FALSE(r->head_tail);
  r = resolveJoints(p.rig, "joint-a", "joint-b", std::nullopt, Eigen::Vector3d(0, 0.2, 5));  // beyond the tail: clamped
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bone, 1);
}

TEST(SubrigParent, NoChainWhenTheJointsAreNotSpannedOrAGapBreaksIt) {
  Parent p = twoBoneChain();
  p.skeleton.heads[1] = Eigen::Vector3d(0, 0, 1.002);  // lower's head 2 mm from upper's tail
  p.rig.skeleton = &p.skeleton;
  EXPECT_FALSE(resolveJoints(p.rig, "joint-a", "joint-b", 0.5, kOrigin));
  EXPECT_FALSE(resolveJoints(p.rig, "joint-b", "joint-a", 0.5, kOrigin));
  EXPECT_FALSE(resolveJoints(p.rig, "joint-a", "joint-none", 0.5, kOrigin));
}

TEST(SubrigParent, SingleBoneChainsWinThenOrgThenDeformThenName) {
  Parent p = makeParent({{"upper", kNoParent, {0, 0, 0}, {0, 0, 1}, 0, -1},
                         {"lower", 0, {0, 0, 1}, {0, 0, 3}, -1, 1},
                         {"zeta", kNoParent, {0, 0, 0}, {0, 0, 3}, 0, 1},
                         {"alpha", kNoParent, {0, 0, 0}, {0, 0, 3}, 0, 1}},
                        {{"joint-a", {0, 0, 0}}, {"joint-b", {0, 0, 3}}});
  p.rig.skeleton = &p.skeleton;
  auto r = resolveJoints(p.rig, "joint-a", "joint-b", 0.5, kOrigin);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bone, 3);  // single-bone chains only; by name
  EXPECT_EQ(*r->head_tail, 0.5);  // unchanged on a single bone
  p.rig.deform[3] = 0;
  r = resolveJoints(p.rig, "joint-a", "joint-b", 0.5, kOrigin);
  EXPECT_EQ(r->bone, 2);  // deform bones first
  p.skeleton.names[3] = "ORG-alpha";
  r = resolveJoints(p.rig, "joint-a", "joint-b", 0.5, kOrigin);
  EXPECT_EQ(r->bone, 3);  // ORG- bones before the deform filter
}

TEST(SubrigParent, ShoulderSplitFallbackMovesTheJointAndHeadTail) {
  // One shoulder bone from the clavicle to the shoulder joint; the reference names the scapula.
  Parent p = makeParent({{"shoulder", kNoParent, {0, 0, 0}, {3, 0, 0}, 0, 2}},
                        {{"joint-l-clavicle", {0, 0, 0}}, {"joint-l-scapula", {1, 0, 0}}, {"joint-l-shoulder", {3, 0, 0}}});
  p.rig.skeleton = &p.skeleton;
  // Head replaced: a = |clavicle - scapula| = 1, b = |shoulder - scapula| = 2, h = (a + h b) / (a + b).
  auto r = resolveJoints(p.rig, "joint-l-scapula", "joint-l-shoulder", 0.5, kOrigin);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bone, 0);
  EXPECT_NEAR(*r->head_tail, 2.0 / 3.0, 1e-15);
  // Tail replaced: a = |clavicle - scapula| = 1, b = |shoulder - scapula| = 2, h = h a / (a + b).
  r = resolveJoints(p.rig, "joint-l-clavicle", "joint-l-scapula", 0.5, kOrigin);
  ASSERT_TRUE(r);
  EXPECT_NEAR(*r->head_tail, 0.5 / 3.0, 1e-15);
  r = resolveJoints(p.rig, "joint-l-clavicle", "joint-l-scapula", std::nullopt, kOrigin);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->head_tail);
}

TEST(SubrigParent, VertexBindingTakesTheDeformBonesRawWeights) {
  Parent p = twoBoneChain();
  p.rig.skeleton = &p.skeleton;
  p.rig.deform[0] = 0;
  Skin skin;
  skin.vertex_count = 2;
  skin.bone_count = 2;
  skin.offsets = {0, 2, 3};
  skin.bones = {0, 1, 1};
  skin.weights = {0.25f, 0.5f, 0.75f};
  auto w = vertexBinding(p.rig, skin, 0);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].first, 1);
  EXPECT_EQ(w[0].second, 0.5f);
  EXPECT_TRUE(vertexBinding(p.rig, skin, 2).empty());
}

// fastCube is chooseStrategy's fast-mode CUBE answer without the vertex tree: checked on every
// bone end of the game_engine rig on the base body, moved 0 to 12 mm in several directions.
TEST(SubrigParent, FastCubeAgreesWithFastStrategyMatching) {
  RIGFIT_REQUIRE_SHARED_DATA();
  CharacterOptions options;
  options.rig = "game_engine";
  auto c = loadCharacter(DataSource::folder(test::sharedData()), options);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const Mesh& body = c->body().mesh;
  auto full = makePositionInfo(body.positions, c->body().groups, body.scale_factor);
  auto light = makePositionInfo(body.positions, c->body().groups, body.scale_factor, false);
  ASSERT_TRUE(full.ok() && light.ok());
  std::size_t cubes = 0, checked = 0;
  const Skeleton& s = c->fit.skeleton;
  for (std::size_t b = 0; b < s.size(); ++b)
    for (const Eigen::Vector3d& end : {s.heads[b], s.tails[b]})
      for (double mm : {0.0, 0.0005, 0.002, 0.006, 0.0095, 0.012})
        for (const Eigen::Vector3d& dir : {Eigen::Vector3d(1, 0, 0), Eigen::Vector3d(0, -0.6, 0.8)}) {
          const Eigen::Vector3d at = end + mm * dir;
          const EndDef e = chooseStrategy(*full, at, MatchOptions{.fast = true});
          const int want = e.strategy == Strategy::kCube ? full->findCube(e.cube_name) : -1;
          EXPECT_EQ(fastCube(*light, at), want) << s.names[b] << " moved " << mm;
          cubes += want >= 0;
          ++checked;
        }
  EXPECT_GT(cubes, checked / 4);
  EXPECT_LT(cubes, checked);
}

}  // namespace
}  // namespace rigfit
