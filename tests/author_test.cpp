// Rig authoring: the KD-tree, MPFB's automatic strategy choice (docs/mpfb-behaviour.md §6.3), saved
// strategies and locks (§6.4), rounding (§6.6) and the developer tools (§6.5) on hand-built cases
// with known answers.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include <unistd.h>

#include <gtest/gtest.h>

#include "rigfit/author.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/gltf.hpp"

namespace rigfit {
namespace {

// ---------------------------------------------------------------------------------------------
// KD-tree against brute force.

TEST(KdTree, NearestAndRangeMatchBruteForce) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Eigen::Vector3d> pts(3000);
  for (auto& p : pts) p = Eigen::Vector3d(u(rng), u(rng), u(rng));
  // Duplicates and a grid of equal distances: ties go to the lowest index.
  pts[2000] = pts[10];
  pts[2500] = pts[10];
  const KdTree tree(pts);
  for (int q = 0; q < 300; ++q) {
    const Eigen::Vector3d x = q == 0 ? pts[10] : Eigen::Vector3d(u(rng), u(rng), u(rng));
    std::uint32_t best = 0;
    double bd = 1e300;
    for (std::uint32_t i = 0; i < pts.size(); ++i) {
      const double d = (pts[i] - x).norm();
      if (d < bd) {
        bd = d;
        best = i;
      }
    }
    const auto hit = tree.nearest(x);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->index, best);
    EXPECT_DOUBLE_EQ(hit->distance, bd);
    const double r = 0.2;
    std::vector<std::pair<double, std::uint32_t>> want;
    for (std::uint32_t i = 0; i < pts.size(); ++i)
      if ((pts[i] - x).squaredNorm() <= r * r) want.emplace_back((pts[i] - x).squaredNorm(), i);
    std::sort(want.begin(), want.end());
    std::vector<KdTree::Hit> got;
    tree.range(x, r, got);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k].index, want[k].second);
  }
  EXPECT_EQ(tree.nearest(pts[10])->index, 10u);  // itself and two copies at distance 0
  EXPECT_FALSE(KdTree().nearest(Eigen::Vector3d::Zero()));
}

TEST(KdTree, EqualDistancesGoToTheLowestIndex) {
  // The 8 corners of a cube, listed in reverse: all equidistant from the centre.
  std::vector<Eigen::Vector3d> pts;
  for (int i = 7; i >= 0; --i) pts.emplace_back(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
  EXPECT_EQ(KdTree(pts).nearest(Eigen::Vector3d::Zero())->index, 0u);
}

// ---------------------------------------------------------------------------------------------
// Rounding (Python's round(x, 5), values checked with CPython).

TEST(AuthorRounding, PythonRound5) {
  EXPECT_EQ(roundForRig(0.000005), 1e-05);
  EXPECT_EQ(roundForRig(2.675e-3), 0.00267);
  EXPECT_EQ(roundForRig(0.123455), 0.12345);
  EXPECT_EQ(roundForRig(1.000015), 1.00002);
  EXPECT_EQ(roundForRig(-0.500005), -0.50001);
  const double z = roundForRig(-0.000001);
  EXPECT_EQ(z, 0.0);
  EXPECT_FALSE(std::signbit(z));  // negative zero removed
}

// ---------------------------------------------------------------------------------------------
// A small body with known answers.
//   0-7   joint-a: cube of half-size 0.002 centred at the origin
//   8     a vertex at z = 1 (so H = 1.002)
//   9-16  joint-b: cube of half-size 0.0004 centred at (0.5, 0, 0.5)
//   17-19 vertices near P = (0.2, 0, 0.5): P + (0, 0, 0.005), P + (0.006, 0, 0.001), P - (0.006, 0, 0)
struct SmallBody {
  std::vector<float> positions;
  VertexGroups groups;
  PositionInfo info;
  Eigen::Vector3d v(std::size_t i) const { return info.vertices[i]; }
  // Brute force: the nearest vertex, lowest index on ties.
  std::int64_t nearest(const Eigen::Vector3d& p) const {
    std::size_t best = 0;
    for (std::size_t i = 1; i < info.vertices.size(); ++i)
      if ((info.vertices[i] - p).norm() < (info.vertices[best] - p).norm()) best = i;
    return static_cast<std::int64_t>(best);
  }
};

void addCube(std::vector<float>& p, double cx, double cy, double cz, double h) {
  for (int i = 0; i < 8; ++i) {
    p.push_back(static_cast<float>(cx + (i & 1 ? h : -h)));
    p.push_back(static_cast<float>(cy + (i & 2 ? h : -h)));
    p.push_back(static_cast<float>(cz + (i & 4 ? h : -h)));
  }
}

const Eigen::Vector3d kP(0.2, 0.0, 0.5);

SmallBody smallBody() {
  SmallBody b;
  addCube(b.positions, 0, 0, 0, 0.002);
  b.positions.insert(b.positions.end(), {0.0f, 0.0f, 1.0f});
  addCube(b.positions, 0.5, 0, 0.5, 0.0004);
  for (const Eigen::Vector3d& d : {Eigen::Vector3d(0, 0, 0.005), Eigen::Vector3d(0.006, 0, 0.001), Eigen::Vector3d(-0.006, 0, 0)}) {
    const Eigen::Vector3d q = kP + d;
    b.positions.insert(b.positions.end(), {static_cast<float>(q.x()), static_cast<float>(q.y()), static_cast<float>(q.z())});
  }
  b.groups.names = {"joint-a", "JointCubes", "joint-b"};
  b.groups.ranges = {{{0, 7}}, {{0, 7}, {9, 16}}, {{9, 16}}};
  for (std::uint32_t g = 0; g < 3; ++g) b.groups.index[b.groups.names[g]] = g;
  auto info = makePositionInfo(b.positions, b.groups, static_cast<double>(0.1f));
  EXPECT_TRUE(info.ok());
  b.info = std::move(*info);
  return b;
}

TEST(AuthorPositionInfo, CubesAndHeight) {
  const SmallBody b = smallBody();
  ASSERT_EQ(b.info.cube_names, (std::vector<std::string>{"joint-a", "joint-b"}));  // "JointCubes" is no cube
  EXPECT_NEAR(b.info.cubes[0].norm(), 0.0, 1e-9);
  EXPECT_NEAR((b.info.cubes[1] - Eigen::Vector3d(0.5, 0, 0.5)).norm(), 0.0, 1e-7);
  EXPECT_NEAR(b.info.height, 1.002, 1e-7);
}

TEST(AuthorChoose, CubeWithinOneCentimetre) {
  const SmallBody b = smallBody();
  double d = 0;
  const EndDef e = chooseStrategy(b.info, Eigen::Vector3d(0.004, 0, 0), {}, &d);
  EXPECT_EQ(e.strategy, Strategy::kCube);
  EXPECT_EQ(e.cube_name, "joint-a");
  EXPECT_NEAR(d, 0.004, 1e-9);
  ASSERT_TRUE(e.default_position);
  EXPECT_EQ((*e.default_position)[0], 0.004);
  // Just outside 1 cm of the cube (and of every vertex): no CUBE.
  EXPECT_NE(chooseStrategy(b.info, Eigen::Vector3d(0.0, 0.0, -0.0125)).strategy, Strategy::kCube);
}

TEST(AuthorChoose, ExactVertexBeatsInexactCube) {
  const SmallBody b = smallBody();
  // Corner 7 of joint-a: the vertex is exact (0), the cube 3.5 mm away.
  const EndDef e = chooseStrategy(b.info, b.v(7));
  EXPECT_EQ(e.strategy, Strategy::kVertex);
  EXPECT_EQ(e.vertex_index, 7);
}

TEST(AuthorChoose, ExactCubeBeatsExactVertex) {
  const SmallBody b = smallBody();
  // Corner 9 of the small joint-b: the cube centre is 0.69 mm away (exact too), so CUBE.
  const EndDef e = chooseStrategy(b.info, b.v(9));
  EXPECT_EQ(e.strategy, Strategy::kCube);
  EXPECT_EQ(e.cube_name, "joint-b");
}

TEST(AuthorChoose, InexactCubeBeatsCloserInexactVertex) {
  const SmallBody b = smallBody();
  // 2.5 mm beside a corner of joint-a along x: the vertex is 2.5 mm away, the cube 5.3 mm: CUBE.
  const Eigen::Vector3d p = b.v(7) + Eigen::Vector3d(0.0025, 0, 0);
  const EndDef e = chooseStrategy(b.info, p);
  EXPECT_EQ(e.strategy, Strategy::kCube);
}

TEST(AuthorChoose, MeanPairCloserThanTheVertex) {
  const SmallBody b = smallBody();
  double d = 0;
  const EndDef e = chooseStrategy(b.info, kP, {}, &d);
  // Vertex 17 is 5 mm away; pair (18, 19) has its mean 0.5 mm away and wins over pair (17, 19)
  // (mean 3.9 mm away) on distance + length penalty.
  EXPECT_EQ(e.strategy, Strategy::kMean);
  EXPECT_EQ(e.vertex_indices, (std::vector<std::int64_t>{18, 19}));
  EXPECT_NEAR(d, 0.0005, 1e-7);
  // Fast mode stops after CUBE / VERTEX.
  MatchOptions fast;
  fast.fast = true;
  const EndDef f = chooseStrategy(b.info, kP, fast);
  EXPECT_EQ(f.strategy, Strategy::kVertex);
  EXPECT_EQ(f.vertex_index, 17);
}

TEST(AuthorChoose, MeanSearchWeights) {
  const SmallBody b = smallBody();
  const MeanPair m = meanSearch(b.info, kP, 0.02, 0.02);
  ASSERT_TRUE(m.found);
  EXPECT_EQ(m.first, 18u);
  EXPECT_EQ(m.second, 19u);
  // With max_dist 0.3 mm no pair's mean is close enough.
  EXPECT_FALSE(meanSearch(b.info, kP, 0.0003, 0.02).found);
  // A box that holds only vertex 17 (Chebyshev < 5.5 mm, Euclidean range larger): its mirror's
  // nearest vertex is 19, so the pair (17, 19) is the only one found.
  const MeanPair only = meanSearch(b.info, kP, 0.02, 0.0055);
  ASSERT_TRUE(only.found);
  EXPECT_EQ(only.first, 17u);
  EXPECT_EQ(only.second, 19u);
}

TEST(AuthorChoose, NothingNearIsDefault) {
  const SmallBody b = smallBody();
  double d = 0;
  const EndDef e = chooseStrategy(b.info, Eigen::Vector3d(3, 3, 3), {}, &d);
  EXPECT_EQ(e.strategy, Strategy::kDefault);
  EXPECT_EQ(d, 100.0);
}

// ---------------------------------------------------------------------------------------------
// Saving with saved strategies (§6.4).

EndDef cube(const char* name) {
  EndDef e;
  e.strategy = Strategy::kCube;
  e.cube_name = name;
  return e;
}
EndDef vertex(std::int64_t i) {
  EndDef e;
  e.strategy = Strategy::kVertex;
  e.vertex_index = i;
  return e;
}
EndDef mean(std::vector<std::int64_t> v) {
  EndDef e;
  e.strategy = Strategy::kMean;
  e.vertex_indices = std::move(v);
  return e;
}

// Bone "a": joint-a -> joint-b; bone "b" (connected child): joint-b -> vertex 17.
RigDefinition smallRig() {
  RigDefinition r;
  r.label = "small";
  r.scale_factor = static_cast<double>(0.1f);
  BoneDef a;
  a.name = "a";
  a.head = cube("joint-a");
  a.tail = cube("joint-b");
  a.json = Json::object();
  BoneDef b;
  b.name = "b";
  b.parent = "a";
  b.use_connect = true;
  b.head = cube("joint-b");
  b.tail = vertex(17);
  b.json = Json::object();
  r.bones = {a, b};
  r.header = Json::object();
  return r;
}

TEST(AuthorSave, AutomaticSavedKeptReplacedAndLocked) {
  const SmallBody b = smallBody();
  RigDefinition base = smallRig();
  base.bones[0].head = mean({0, 7});          // saved: the cube's diagonal midpoint = its centre (0 away)
  base.bones[1].head = mean({9, 10});         // saved 0.4 mm from corner 9; auto CUBE 0.69 mm: kept
  base.bones[1].tail = vertex(18);            // saved 6.1 mm from vertex 17; auto VERTEX 17: replaced
  base.bones[1].roll_strategy = RollStrategy::kAlignZWorldZ;
  std::vector<BonePlacement> at(2);
  at[0] = {"a", "", b.info.cubes[0], b.info.cubes[1], 0.123456789};
  at[1] = {"b", "a", b.v(9), b.v(17), 0.3};
  SaveReport rep;
  auto rig = saveRig(base, at, b.info, {}, &rep);
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  const BoneDef& a = rig->bones[0];
  const BoneDef& c = rig->bones[1];
  EXPECT_EQ(a.head.strategy, Strategy::kMean);  // saved, as good as the automatic CUBE
  EXPECT_EQ(a.tail.strategy, Strategy::kCube);
  EXPECT_EQ(c.head.strategy, Strategy::kMean);
  EXPECT_EQ(c.head.vertex_indices, (std::vector<std::int64_t>{9, 10}));
  EXPECT_EQ(c.tail.strategy, Strategy::kVertex);
  EXPECT_EQ(c.tail.vertex_index, 17);
  EXPECT_EQ(rep.saved_replaced, 1u);
  EXPECT_EQ(rep.saved_kept, 3u);
  EXPECT_EQ(a.roll, 0.12346);
  EXPECT_EQ(c.roll, 0.0);  // ALIGN_Z_WORLD_Z clears the roll
  EXPECT_EQ((*c.tail.default_position)[0], roundForRig(b.v(17).x()));
  EXPECT_EQ(c.parent, "a");
  EXPECT_TRUE(c.use_connect);
  // Locked, the worse saved strategy stays.
  setEndLocked(base.bones[1], false, true);
  auto locked = saveRig(base, at, b.info, {}, &rep);
  ASSERT_TRUE(locked.ok());
  EXPECT_EQ(locked->bones[1].tail.vertex_index, 18);
  EXPECT_EQ(rep.saved_locked, 1u);
  EXPECT_TRUE(endLocked(locked->bones[1], false));
  // Automatic only: the base's strategies are ignored.
  SaveOptions o;
  o.use_saved = false;
  auto fresh = saveRig(base, at, b.info, o, &rep);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->bones[0].head.strategy, Strategy::kCube);
  EXPECT_EQ(fresh->bones[1].tail.vertex_index, 17);
  EXPECT_EQ(rep.automatic, 4u);
}

TEST(AuthorSave, HeaderAndJson) {
  const SmallBody b = smallBody();
  RigDefinition base = smallRig();
  base.collections = {"Bones"};
  base.header.set("rigify_ui", Json::object());
  std::vector<BonePlacement> at = {{"a", "", b.info.cubes[0], b.info.cubes[1], 0.0},
                                   {"b", "a", b.info.cubes[1], b.v(17), -0.0000001},
                                   {"c", "b", b.v(17), Eigen::Vector3d(5, 5, 5), 0.0}};
  SaveOptions o;
  o.subrig = true;
  o.rigify_ui = true;
  SaveReport rep;
  auto rig = saveRig(base, at, b.info, o, &rep);
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  EXPECT_EQ(rep.default_bones, (std::vector<std::string>{"c"}));
  EXPECT_EQ(rep.new_bones, (std::vector<std::string>{"c"}));
  const std::string text = writeRig(*rig);
  auto back = parseJson(text, "saved");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back->find("version"), Json(110));
  EXPECT_EQ(*back->find("is_subrig"), Json(true));
  EXPECT_EQ(*back->find("scale_factor"), Json(0.10000000149011612));
  EXPECT_TRUE(back->find("rigify_ui")->isObject());
  const Json& c = *back->find("bones")->find("c");
  EXPECT_EQ(*c.find("parent"), Json("b"));
  EXPECT_EQ(*c.find("tail")->find("strategy"), Json("DEFAULT"));
  EXPECT_EQ(*c.find("tail")->find("default_position"), Json::vec3(5.0, 5.0, 5.0));
  EXPECT_EQ(*back->find("bones")->find("b")->find("roll"), Json(0.0));  // -1e-7 rounds to 0.0, not -0.0
  EXPECT_NE(text.find("\"roll\": 0.0"), std::string::npos);
  // Errors: an unknown parent, a cycle.
  at[2].parent = "nobody";
  EXPECT_FALSE(saveRig(RigDefinition{}, at, b.info).ok());
  at[2].parent = "b";
  at[0].parent = "c";
  auto cyc = saveRig(RigDefinition{}, at, b.info);
  ASSERT_FALSE(cyc.ok());
  EXPECT_NE(cyc.error().message.find("cycle"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Editing (§6.5).

RigEditor smallEditor(const SmallBody& b) {
  auto ed = RigEditor::fromFit(smallRig(), b.info, b.positions, b.groups);
  EXPECT_TRUE(ed.ok());
  return std::move(*ed);
}

TEST(AuthorEdit, FromFitPositions) {
  const SmallBody b = smallBody();
  const RigEditor ed = smallEditor(b);
  EXPECT_NEAR((ed.position({0, true}) - b.info.cubes[0]).norm(), 0.0, 1e-12);
  EXPECT_NEAR((ed.position({1, true}) - b.info.cubes[1]).norm(), 0.0, 1e-12);
  EXPECT_NEAR((ed.position({1, false}) - b.v(17)).norm(), 0.0, 1e-12);
  auto e = ed.find("b", "tail");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->bone, 1u);
  EXPECT_FALSE(ed.find("b", "middle").ok());
  EXPECT_FALSE(ed.find("z", "head").ok());
}

TEST(AuthorEdit, SetStrategyKeepsConnectedEnds) {
  const SmallBody b = smallBody();
  RigEditor ed = smallEditor(b);
  // a.tail and b.head share position and strategy: both become VERTEX (the nearest corner of joint-b).
  const std::int64_t n = b.nearest(b.info.cubes[1]);
  ASSERT_GE(n, 9);
  ASSERT_LE(n, 16);
  auto p = ed.setStrategy({0, false}, Strategy::kVertex);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(ed.rig().bones[0].tail.strategy, Strategy::kVertex);
  EXPECT_EQ(ed.rig().bones[0].tail.vertex_index, n);
  EXPECT_EQ(ed.rig().bones[1].head.vertex_index, n);
  EXPECT_NEAR((*p - b.v(static_cast<std::size_t>(n))).norm(), 0.0, 1e-12);
  // Set strategy does not move the end (MPFB snaps the cursor, not the bone).
  EXPECT_NEAR((ed.position({0, false}) - b.info.cubes[1]).norm(), 0.0, 1e-12);
  // Without Keep Connected only the end itself.
  RigEditor solo = smallEditor(b);
  solo.keep_connected = false;
  ASSERT_TRUE(solo.setStrategy({0, false}, Strategy::kXyz).ok());
  EXPECT_EQ(solo.rig().bones[0].tail.vertex_indices, (std::vector<std::int64_t>{n, n, n}));
  EXPECT_EQ(solo.rig().bones[1].head.strategy, Strategy::kCube);
  // MEAN at vertex 17: no pair has its lower-index vertex's mirror partner (at 2 cm nor 0.15 H),
  // so [nearest vertex]; at joint-b's centre opposite corners pair up.
  ASSERT_TRUE(solo.setStrategy({1, false}, Strategy::kMean).ok());
  EXPECT_EQ(solo.rig().bones[1].tail.vertex_indices, (std::vector<std::int64_t>{17}));
  ASSERT_TRUE(solo.setStrategy({1, true}, Strategy::kMean).ok());
  ASSERT_EQ(solo.rig().bones[1].head.vertex_indices.size(), 2u);
  EXPECT_NEAR((*evaluateStrategy(b.info, solo.rig().bones[1].head) - b.info.cubes[1]).norm(), 0.0, 1e-7);
  ASSERT_TRUE(solo.setStrategy({1, false}, Strategy::kCube).ok());
  EXPECT_EQ(solo.rig().bones[1].tail.cube_name, "joint-b");
  EXPECT_FALSE(solo.setStrategy({1, false}, Strategy::kDefault).ok());
}

TEST(AuthorEdit, SetOffsetAndReapply) {
  const SmallBody b = smallBody();
  RigEditor ed = smallEditor(b);
  ASSERT_TRUE(ed.setStrategy({0, false}, Strategy::kVertex).ok());
  ASSERT_TRUE(ed.setOffset({0, false}).ok());
  // offset = cube centre - corner 9, on both ends linked by strategy.
  const Eigen::Vector3d want = b.info.cubes[1] - b.v(static_cast<std::size_t>(b.nearest(b.info.cubes[1])));
  for (std::size_t bone : {0u, 1u}) {
    const EndDef& e = bone == 0 ? ed.rig().bones[0].tail : ed.rig().bones[1].head;
    ASSERT_TRUE(e.offset);
    EXPECT_NEAR((*e.offset)[0], want.x(), 1e-12);
    EXPECT_NEAR((*e.offset)[2], want.z(), 1e-12);
    auto at = evaluateStrategy(b.info, e);
    EXPECT_NEAR((*at - b.info.cubes[1]).norm(), 0.0, 1e-12);
  }
  // An offset within 0.1 mm is stored as zero.
  ASSERT_TRUE(ed.setOffset({0, true}).ok());
  EXPECT_EQ(*ed.rig().bones[0].head.offset, (Vec3d{0, 0, 0}));
  // Reapply moves the end (and ends linked by strategy) to the strategy's position.
  RigEditor r = smallEditor(b);
  r.keep_connected = false;
  ASSERT_TRUE(r.setStrategy({1, false}, Strategy::kCube).ok());
  ASSERT_TRUE(r.reapply({1, false}).ok());
  EXPECT_NEAR((r.position({1, false}) - b.info.cubes[1]).norm(), 0.0, 1e-12);
  // The result carries the new positions as default_position, rounded.
  const RigDefinition out = r.result();
  EXPECT_EQ((*out.bones[1].tail.default_position)[0], roundForRig(b.info.cubes[1].x()));
}

TEST(AuthorEdit, LocksSetVerticesAndCube) {
  const SmallBody b = smallBody();
  RigEditor ed = smallEditor(b);
  ed.setLock({1, false}, true);
  EXPECT_TRUE(endLocked(ed.rig().bones[1], false));
  ed.setLock({1, false}, false);
  EXPECT_FALSE(endLocked(ed.rig().bones[1], false));
  // VERTEX end: the first index; locked.
  const std::int64_t idx[] = {19, 18};
  ASSERT_TRUE(ed.setVertices({1, false}, idx).ok());
  EXPECT_EQ(ed.rig().bones[1].tail.vertex_index, 19);
  EXPECT_TRUE(endLocked(ed.rig().bones[1], false));
  // CUBE ends (a.tail + b.head, linked) become MEAN of the sorted indices, both locked.
  ASSERT_TRUE(ed.setVertices({0, false}, idx).ok());
  EXPECT_EQ(ed.rig().bones[0].tail.vertex_indices, (std::vector<std::int64_t>{18, 19}));
  EXPECT_EQ(ed.rig().bones[1].head.vertex_indices, (std::vector<std::int64_t>{18, 19}));
  EXPECT_TRUE(endLocked(ed.rig().bones[1], true));
  // XYZ: the first three, padded with -1.
  ASSERT_TRUE(ed.setStrategy({0, true}, Strategy::kXyz).ok());
  const std::int64_t two[] = {3, 5};
  ASSERT_TRUE(ed.setVertices({0, true}, two).ok());
  EXPECT_EQ(ed.rig().bones[0].head.vertex_indices, (std::vector<std::int64_t>{3, 5, -1}));
  const std::int64_t beyond[] = {20};
  EXPECT_FALSE(ed.setVertices({0, true}, beyond).ok());
  // set-cube: a named joint group, locked.
  ASSERT_TRUE(ed.setCube({0, true}, "joint-b").ok());
  EXPECT_EQ(ed.rig().bones[0].head.cube_name, "joint-b");
  EXPECT_TRUE(endLocked(ed.rig().bones[0], true));
  EXPECT_FALSE(ed.setCube({0, true}, "joint-z").ok());
  // Lock survives writing and reading the rig file.
  auto back = parseRig(writeRig(ed.result()), "edited");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(endLocked(back->bones[0], true));
  EXPECT_TRUE(endLocked(back->bones[1], false));
  EXPECT_NE(writeRig(ed.result()).find("\"strategy_lock\": true"), std::string::npos);
}

TEST(AuthorEdit, RollStrategies) {
  const SmallBody b = smallBody();
  RigEditor ed = smallEditor(b);
  // Bone a runs along (1, 0, 1)/sqrt2; world Z projected gives roll -pi/4 (hand computed).
  ed.setRollStrategy(0, RollStrategy::kAlignZWorldZ);
  EXPECT_EQ(ed.rig().bones[0].roll_strategy, RollStrategy::kAlignZWorldZ);
  EXPECT_NEAR(ed.rig().bones[0].roll, -M_PI / 4, 1e-6);
  const RigDefinition out = ed.result();
  EXPECT_EQ(out.bones[0].roll, 0.0);  // saved as MPFB does
  auto fit = fitRig(out, Mesh{.positions = b.positions}, b.groups);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_NEAR(fit->skeleton.rolls[0], -M_PI / 4, 1e-6);
  // ALIGN_Z_REFERENCE_Z keeps the current Z axis as the reference.
  ed.setRollStrategy(1, RollStrategy::kAlignZReferenceZ);
  ASSERT_TRUE(ed.rig().bones[1].roll_reference_z);
  ed.setRollStrategy(1, RollStrategy::kNone);
  EXPECT_FALSE(ed.rig().bones[1].roll_reference_z);
}

TEST(AuthorEdit, CopyConnectedRespectsLocks) {
  const SmallBody b = smallBody();
  RigEditor ed = smallEditor(b);
  ed.keep_connected = false;
  ASSERT_TRUE(ed.setStrategy({0, false}, Strategy::kVertex).ok());  // a.tail VERTEX 9, b.head CUBE
  // b.head is locked, a.tail is not: nothing copied.
  ed.setLock({1, true}, true);
  EXPECT_EQ(ed.copyConnected(1), 0);
  EXPECT_EQ(ed.rig().bones[1].head.strategy, Strategy::kCube);
  // a.tail locked too: copied, lock included.
  ed.setLock({0, false}, true);
  EXPECT_EQ(ed.copyConnected(1), 1);
  EXPECT_EQ(ed.rig().bones[1].head.strategy, Strategy::kVertex);
  EXPECT_EQ(ed.rig().bones[1].head.vertex_index, b.nearest(b.info.cubes[1]));
  EXPECT_TRUE(endLocked(ed.rig().bones[1], true));
  // Unlocked end takes an unlocked neighbour's strategy (lock state copied: unlocked).
  RigEditor u = smallEditor(b);
  u.keep_connected = false;
  ASSERT_TRUE(u.setStrategy({1, true}, Strategy::kMean).ok());
  EXPECT_EQ(u.copyConnected(0), 1);  // a.tail copies b.head's MEAN
  EXPECT_EQ(u.rig().bones[0].tail.strategy, Strategy::kMean);
  EXPECT_EQ(u.copyConnected(0), 0);  // now the same: nothing differs
}

TEST(AuthorEdit, LinkedEnds) {
  const SmallBody b = smallBody();
  RigEditor ed = smallEditor(b);
  EXPECT_EQ(ed.linked({0, false}, true, false).size(), 2u);   // b.head at the same place
  EXPECT_EQ(ed.linked({0, true}, true, true).size(), 1u);
  ed.keep_connected = false;
  EXPECT_EQ(ed.linked({0, false}, true, true).size(), 1u);
  EXPECT_EQ(ed.linked({0, false}, true, true, true).size(), 2u);  // forced
}

// ---------------------------------------------------------------------------------------------
// Skeleton sources.

TEST(AuthorSources, SkeletonJsonRoundTrip) {
  const SmallBody b = smallBody();
  auto fit = fitRig(smallRig(), Mesh{.positions = b.positions}, b.groups);
  ASSERT_TRUE(fit.ok());
  auto json = parseJson(writeSkeletonJson(fit->skeleton), "s.json");
  ASSERT_TRUE(json.ok());
  auto src = parseSkeletonJson(*json, "s.json");
  ASSERT_TRUE(src.ok()) << src.error().message;
  ASSERT_EQ(src->bones.size(), 2u);
  EXPECT_EQ(src->bones[1].parent, "a");
  EXPECT_EQ(src->bones[1].tail, fit->skeleton.tails[1]);
  // Errors name the JSON path.
  auto bad = parseJson(R"({"bones": [{"name": "a", "head": [0, 0], "tail": [0, 0, 1]}]})", "bad.json");
  auto e = parseSkeletonJson(*bad, "bad.json");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "bad.json: bones[0].head: expected an array of 3 numbers");
  auto orphan = parseJson(R"({"bones": [{"name": "a", "parent": "x", "head": [0, 0, 0], "tail": [0, 0, 1]}]})", "o.json");
  EXPECT_EQ(parseSkeletonJson(*orphan, "o.json").error().message, "o.json: bones[0].parent: no bone named \"x\"");
}

TEST(AuthorSources, GltfWithoutExtras) {
  // Y-up nodes: root at the origin turned so its +Y is glTF +Y (rig +Z), a child 0.5 up, a leaf.
  const char* text = R"({"asset": {"version": "2.0"}, "nodes": [
      {"name": "Armature", "children": [1], "translation": [0, 0, 0]},
      {"name": "hip", "children": [2], "translation": [0, 1, 0]},
      {"name": "spine", "children": [3], "translation": [0, 0.5, 0], "rotation": [0, 0, 0.7071067811865476, 0.7071067811865476]},
      {"name": "tip", "translation": [0, 0.25, 0]}],
    "skins": [{"joints": [1, 2, 3]}]})";
  auto src = parseGltfSkeleton(text, "t.gltf");
  ASSERT_TRUE(src.ok()) << src.error().message;
  ASSERT_EQ(src->bones.size(), 3u);
  const auto& hip = src->bones[0];
  EXPECT_NEAR((hip.head - Eigen::Vector3d(0, 0, 1)).norm(), 0.0, 1e-12);     // glTF (0,1,0) -> rig (0,0,1)
  EXPECT_NEAR((hip.tail - Eigen::Vector3d(0, 0, 1.5)).norm(), 0.0, 1e-12);   // to the child on its +Y
  const auto& spine = src->bones[1];
  EXPECT_EQ(spine.parent, "hip");
  // spine is rotated 90 degrees about glTF Z: its +Y points to glTF -X = rig -X.
  EXPECT_NEAR((spine.tail - spine.head - Eigen::Vector3d(-0.25, 0, 0)).norm(), 0.0, 1e-12);
  const auto& tip = src->bones[2];
  EXPECT_NEAR((tip.tail - tip.head).norm(), 0.25, 1e-12);  // a leaf takes its parent's length
  EXPECT_FALSE(src->notes.empty());
  // A .glb container around the same JSON.
  std::string json = text;
  while (json.size() % 4) json += ' ';
  std::string glb = "glTF";
  auto u32 = [&](std::uint32_t v) { glb.append(reinterpret_cast<const char*>(&v), 4); };
  u32(2);
  u32(static_cast<std::uint32_t>(20 + json.size()));
  u32(static_cast<std::uint32_t>(json.size()));
  u32(0x4E4F534Au);
  glb += json;
  auto fromGlb = parseGltfSkeleton(glb, "t.glb");
  ASSERT_TRUE(fromGlb.ok()) << fromGlb.error().message;
  EXPECT_EQ(fromGlb->bones[1].tail, spine.tail);
  // Broken containers are errors naming the byte.
  EXPECT_EQ(parseGltfSkeleton(glb.substr(0, 30), "t.glb").error().message.substr(0, 13), "t.glb: byte 8");
  EXPECT_FALSE(parseGltfSkeleton(R"({"nodes": [{"name": "x"}]})", "n.gltf").ok());
}

// A .glb around `json` (padded with spaces), with a BIN chunk of `bin` bytes when not empty.
std::string makeGlb(std::string json, const std::string& bin = {}) {
  while (json.size() % 4) json += ' ';
  std::string glb = "glTF";
  auto u32 = [&](std::size_t v) {
    const auto x = static_cast<std::uint32_t>(v);
    glb.append(reinterpret_cast<const char*>(&x), 4);
  };
  u32(2);
  u32(20 + json.size() + (bin.empty() ? 0 : 8 + bin.size()));
  u32(json.size());
  u32(0x4E4F534Au);
  glb += json;
  if (!bin.empty()) {
    u32(bin.size());
    u32(0x004E4942u);
    glb += bin;
  }
  return glb;
}

void expectOneLine(const Error& e, std::string_view prefix) {
  EXPECT_EQ(e.message.substr(0, prefix.size()), prefix) << e.message;
  EXPECT_EQ(e.message.find('\n'), std::string::npos) << e.message;
  EXPECT_LE(e.message.size(), 260u) << e.message;
}

constexpr const char* kTinySkin = R"("nodes": [{"name": "hip", "children": [1]}, {"name": "leg", "translation": [0, 1, 0]}],
    "skins": [{"joints": [0, 1]}])";

// No other file is opened: a buffer in another file is refused even when that file exists with
// the right size; an image naming another file (here not an image at all) is skipped.
TEST(AuthorSources, GltfOpensNoOtherFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("rigfit_gltf_reader_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string bin = (dir / "skeleton.bin").string();
  ASSERT_TRUE(writeFileAtomic(bin, "abcd").ok());
  for (const std::string& uri : {bin, std::string("skeleton.bin")}) {
    const std::string text = R"({"asset": {"version": "2.0"}, "buffers": [{"uri": ")" + uri + R"(", "byteLength": 4}], )" + kTinySkin + "}";
    auto e = parseGltfSkeleton(text, "ext.gltf");
    ASSERT_FALSE(e.ok()) << uri;
    EXPECT_EQ(e.error().code, ErrorCode::kUnsupported);
    expectOneLine(e.error(), "ext.gltf: buffers: \"" + uri + "\" is a separate file, which is not read");
  }
  const std::string with_image = R"({"asset": {"version": "2.0"}, "images": [{"uri": ")" + bin + R"("}], )" + kTinySkin + "}";
  auto read = parseGltfSkeleton(with_image, "img.gltf");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->bones.size(), 2u);
  // Embedded buffers (data: URIs and the GLB's BIN chunk) are read.
  const std::string embedded = R"({"asset": {"version": "2.0"}, "buffers": [{"uri": "data:application/octet-stream;base64,YWJjZA==", "byteLength": 4}], )" +
                               std::string(kTinySkin) + "}";
  EXPECT_TRUE(parseGltfSkeleton(embedded, "emb.gltf").ok());
  EXPECT_TRUE(parseGltfSkeleton(makeGlb(R"({"asset": {"version": "2.0"}, "buffers": [{"byteLength": 4}], )" + std::string(kTinySkin) + "}", "abcd"),
                                "bin.glb").ok());
  std::filesystem::remove_all(dir);
}

// From a file, the buffers a document names in files of their own are read from its folder; the
// same skeleton as with the data embedded.
class GltfFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("rigfit_gltf_file_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "sub");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // Writes `text` to dir/sub/NAME and returns its path.
  std::string put(const std::string& name, std::string_view text) {
    const std::string path = (dir_ / "sub" / name).string();
    EXPECT_TRUE(writeFileAtomic(path, text).ok()) << path;
    return path;
  }
  static std::string withBuffers(const std::string& buffers) {
    return R"({"asset": {"version": "2.0"}, "buffers": )" + buffers + ", " + kTinySkin + "}";
  }
  std::filesystem::path dir_;
};

TEST_F(GltfFile, ReadsTheBuffersBesideIt) {
  auto embedded = parseGltfSkeleton(withBuffers(R"([{"uri": "data:application/octet-stream;base64,YWJjZA==", "byteLength": 4}])"), "e.gltf");
  ASSERT_TRUE(embedded.ok()) << embedded.error().message;
  put("skeleton.bin", "abcd");
  const std::string path = put("t.gltf", withBuffers(R"([{"uri": "skeleton.bin", "byteLength": 4}])"));
  // From memory the .bin is not read; from the file it is.
  EXPECT_FALSE(parseGltfSkeleton(withBuffers(R"([{"uri": "skeleton.bin", "byteLength": 4}])"), path).ok());
  auto read = readGltfSkeleton(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->bones.size(), embedded->bones.size());
  for (std::size_t i = 0; i < read->bones.size(); ++i) {
    EXPECT_EQ(read->bones[i].name, embedded->bones[i].name);
    EXPECT_EQ(read->bones[i].parent, embedded->bones[i].parent);
    EXPECT_EQ(read->bones[i].head, embedded->bones[i].head);
    EXPECT_EQ(read->bones[i].tail, embedded->bones[i].tail);
    EXPECT_EQ(read->bones[i].roll, embedded->bones[i].roll);
  }
  // A file longer than byteLength (glTF allows it); a sub-folder; percent-encoded names ('+' is
  // itself); one file named by two buffers of different lengths; a data URI beside a file; a .glb
  // whose second buffer is a file.
  put("long.bin", "abcdefgh");
  put("a b+c.bin", "abcd");
  std::filesystem::create_directories(dir_ / "sub" / "bin");
  put("bin/x.bin", "abcdef");
  const std::string many = put("many.gltf", withBuffers(R"([{"uri": "long.bin", "byteLength": 4}, {"uri": "./bin/x.bin", "byteLength": 6},
      {"uri": "a%20b+c.bin", "byteLength": 4}, {"uri": "bin/%78.bin", "byteLength": 2}, {"uri": "bin//x.bin", "byteLength": 6},
      {"uri": "data:application/octet-stream;base64,YWJjZA==", "byteLength": 4}])"));
  EXPECT_TRUE(readGltfSkeleton(many).ok()) << readGltfSkeleton(many).error().message;
  const std::string glb = put("t.glb", makeGlb(withBuffers(R"([{"byteLength": 4}, {"uri": "skeleton.bin", "byteLength": 4}])"), "abcd"));
  EXPECT_TRUE(readGltfSkeleton(glb).ok()) << readGltfSkeleton(glb).error().message;
  // Images are neither opened nor decoded, even one naming the buffer's file.
  const std::string img = put("img.gltf", R"({"asset": {"version": "2.0"}, "buffers": [{"uri": "skeleton.bin", "byteLength": 4}],
      "images": [{"uri": "skeleton.bin"}, {"uri": "nowhere.png"}], )" + std::string(kTinySkin) + "}");
  EXPECT_TRUE(readGltfSkeleton(img).ok()) << readGltfSkeleton(img).error().message;
  // A relative path to the .gltf: the .bin is found beside it, not in the current folder.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  auto relative = readGltfSkeleton("sub/t.gltf");
  std::filesystem::current_path(cwd);
  EXPECT_TRUE(relative.ok()) << relative.error().message;
}

TEST_F(GltfFile, BufferFileErrorsNameTheBuffer) {
  put("short.bin", "abc");
  put("abcd.bin", "abcd");
  std::filesystem::create_directories(dir_ / "sub" / "folder.bin");
  ASSERT_TRUE(writeFileAtomic((dir_ / "outside.bin").string(), "abcd").ok());
  const std::string sub = (dir_ / "sub").string();
  struct Case {
    const char* buffers;
    ErrorCode code;
    std::string message;  // after "PATH: "
  };
  const std::vector<Case> cases = {
      {R"([{"uri": "abcd.bin", "byteLength": 4}, {"uri": "missing.bin", "byteLength": 4}])", ErrorCode::kIo,
       "buffers[1].uri: cannot open \"" + sub + "/missing.bin\": No such file or directory"},
      {R"([{"uri": "short.bin", "byteLength": 4}])", ErrorCode::kRange,
       "buffers[0].uri: \"" + sub + "/short.bin\" has 3 bytes, fewer than its byteLength of 4"},
      // A length no file has: refused before anything is allocated.
      {R"([{"uri": "abcd.bin", "byteLength": 4611686018427387904}])", ErrorCode::kRange,
       "buffers[0].uri: \"" + sub + "/abcd.bin\" has 4 bytes, fewer than its byteLength of 4611686018427387904"},
      {R"([{"uri": "abcd.bin", "byteLength": 18446744073709551615}])", ErrorCode::kRange,
       "buffers[0].uri: \"" + sub + "/abcd.bin\" has 4 bytes, fewer than its byteLength"},
      {R"([{"uri": "folder.bin", "byteLength": 4}])", ErrorCode::kIo, "buffers[0].uri: \"" + sub + "/folder.bin\" is not a regular file"},
      {R"([{"uri": "../outside.bin", "byteLength": 4}])", ErrorCode::kUnsupported,
       "buffers[0].uri: \"../outside.bin\": a path through \"..\" (only files in the glTF file's folder or below are read)"},
      {R"([{"uri": "x/%2E%2E/../outside.bin", "byteLength": 4}])", ErrorCode::kUnsupported,
       "buffers[0].uri: \"x/%2E%2E/../outside.bin\": a path through \"..\" (only files in the glTF file's folder or below are read)"},
      {R"([{"uri": "..%2Foutside.bin", "byteLength": 4}])", ErrorCode::kUnsupported,
       "buffers[0].uri: \"..%2Foutside.bin\": a path through \"..\" (only files in the glTF file's folder or below are read)"},
      {R"([{"uri": "%2Ftmp/abcd.bin", "byteLength": 4}])", ErrorCode::kUnsupported,
       "buffers[0].uri: \"%2Ftmp/abcd.bin\": an absolute path (only files in the glTF file's folder or below are read)"},
      {R"([{"uri": "file:///etc/hostname", "byteLength": 4}])", ErrorCode::kUnsupported,
       "buffers[0].uri: \"file:///etc/hostname\": a URI with a scheme (only files in the glTF file's folder or below are read)"},
      {R"([{"uri": "data:text/html;base64,YWJjZA==", "byteLength": 4}])", ErrorCode::kUnsupported,
       "buffers[0].uri: \"data:text/html;base64,YWJjZA==\": a URI with a scheme (only files in the glTF file's folder or below are read)"},
      {R"([{"uri": "abcd%00.bin", "byteLength": 4}])", ErrorCode::kUnsupported, "buffers[0].uri: \"abcd%00.bin\": a file name with a NUL byte"},
      {R"([{"byteLength": 4}])", ErrorCode::kSchema, "buffers[0]: no uri (a .gltf keeps each buffer in a file or a data: URI)"},
  };
  for (const Case& c : cases) {
    const std::string path = put("t.gltf", withBuffers(c.buffers));
    auto e = readGltfSkeleton(path);
    ASSERT_FALSE(e.ok()) << c.buffers;
    EXPECT_EQ(e.error().code, c.code) << e.error().message;
    expectOneLine(e.error(), path + ": " + c.message);
    EXPECT_EQ(e.error().message, path + ": " + c.message);
  }
  // An absolute path and the whole file's own path.
  const std::string absolute = put("abs.gltf", withBuffers(R"([{"uri": ")" + sub + R"(/abcd.bin", "byteLength": 4}])"));
  expectOneLine(readGltfSkeleton(absolute).error(), absolute + ": buffers[0].uri: \"" + sub + "/abcd.bin\": an absolute path");
  expectOneLine(readGltfSkeleton(sub + "/none.gltf").error(), sub + "/none.gltf: cannot open: No such file or directory");
  // A long name with a line break is cut short on one line.
  const std::string long_name = "x%0A" + std::string(300, 'y') + ".bin";
  auto long_error = readGltfSkeleton(put("long.gltf", withBuffers(R"([{"uri": ")" + long_name + R"(", "byteLength": 4}])")));
  ASSERT_FALSE(long_error.ok());
  expectOneLine(long_error.error(), sub + "/long.gltf: buffers[0].uri: cannot open \"" + sub + "/x?yyy");
  // JSON tinygltf reads but rigfit's reader does not (a key twice): with a buffer file, rigfit's
  // error; without one, the skeleton.
  const std::string twice = put("twice.gltf", R"({"asset": {"version": "2.0"}, "asset": {"version": "2.0"}, "buffers": [{"uri": "abcd.bin", "byteLength": 4}], )" +
                                                  std::string(kTinySkin) + "}");
  auto dup = readGltfSkeleton(twice);
  ASSERT_FALSE(dup.ok());
  expectOneLine(dup.error(), twice + ": ");
  EXPECT_NE(dup.error().message.find("asset"), std::string::npos) << dup.error().message;
  const std::string twice_embedded =
      put("twice_embedded.gltf", R"({"asset": {"version": "2.0"}, "asset": {"version": "2.0"}, )" + std::string(kTinySkin) + "}");
  EXPECT_TRUE(readGltfSkeleton(twice_embedded).ok());
}

TEST(AuthorSources, GltfContainerErrorsNameTheByte) {
  const std::string json = R"({"asset": {"version": "2.0"}, "buffers": [{"byteLength": 4}], )" + std::string(kTinySkin) + "}";
  const std::string glb = makeGlb(json, "abcd");
  ASSERT_TRUE(parseGltfSkeleton(glb, "t.glb").ok());
  expectOneLine(parseGltfSkeleton(glb.substr(0, 16), "t.glb").error(), "t.glb: byte 0: a GLB file shorter than its header");
  // Truncated: the header's length, then the JSON chunk, then the BIN chunk beyond the buffer.
  expectOneLine(parseGltfSkeleton(glb.substr(0, glb.size() - 2), "t.glb").error(), "t.glb: byte 8: the header says");
  std::string cut = glb.substr(0, 40);
  const std::uint32_t forty = 40;
  std::memcpy(cut.data() + 8, &forty, 4);
  expectOneLine(parseGltfSkeleton(cut, "t.glb").error(), "t.glb: byte 12: the JSON chunk of");
  // A BIN chunk whose data would end 4 bytes past the file (tinygltf 2.7 alone reads them).
  std::string past = glb;
  const std::uint32_t eight = 8;
  const std::size_t bin_at = glb.size() - 12;
  std::memcpy(past.data() + bin_at, &eight, 4);
  auto e = parseGltfSkeleton(past, "t.glb");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, ErrorCode::kSyntax);
  expectOneLine(e.error(), "t.glb: byte " + std::to_string(bin_at) + ": a chunk of 8 bytes runs past the end of the file");
  std::string version = glb;
  version[4] = 1;
  EXPECT_EQ(parseGltfSkeleton(version, "t.glb").error().message, "t.glb: byte 4: GLB version 1 (expected 2)");
}

TEST(AuthorSources, GltfSyntaxErrorsAreOneLine) {
  // Garbage JSON: the line, column and byte, as rigfit's JSON reader gives them.
  auto e = parseGltfSkeleton(R"({"asset": {"version": "2.0"},
 "nodes": [x]})", "g.gltf");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, ErrorCode::kSyntax);
  expectOneLine(e.error(), "g.gltf: line 2, column 12 (byte 41): syntax error");
  // In a .glb the byte counts from the file's start.
  auto g = parseGltfSkeleton(makeGlb(R"({"asset": {"version": "2.0"}, "nodes": [x]})"), "g.glb");
  ASSERT_FALSE(g.ok());
  expectOneLine(g.error(), "g.glb: JSON chunk line 1, column 41 (byte 60): syntax error");
  expectOneLine(parseGltfSkeleton("garbage, not glTF", "x.gltf").error(), "x.gltf: line 1, column 1 (byte 0): syntax error");
  // Nesting deep enough to exhaust the stack of a recursive reader is refused first: depth 3 at
  // byte 51, so the 1025th level opens at byte 51 + 1021.
  const std::string deep = R"({"asset": {"version": "2.0"}, "nodes": [{"extras": )" + std::string(100000, '[') + std::string(100000, ']') + "}]}";
  expectOneLine(parseGltfSkeleton(deep, "d.gltf").error(), "d.gltf: byte 1072: JSON nested deeper than 1024 levels");
  // tinygltf's own messages, cut to one short line with the long value elided.
  const std::string long_uri = R"({"asset": {"version": "2.0"}, "buffers": [{"uri": "data:application/octet-stream;base64,)" + std::string(20000, 'A') +
                               R"(", "byteLength": 4}], )" + std::string(kTinySkin) + "}";
  auto l = parseGltfSkeleton(long_uri, "l.gltf");
  ASSERT_FALSE(l.ok());
  expectOneLine(l.error(), "l.gltf: (document): Failed to decode 'uri' : data:application/octet-stream;base64,");
  // An exception inside tinygltf (2.7 indexes the empty data of a zero-length GLB buffer) is an Error.
  auto x = parseGltfSkeleton(makeGlb(R"({"asset": {"version": "2.0"}, "buffers": [{"byteLength": 0}], )" + std::string(kTinySkin) + "}", "abcd"),
                             "x.glb");
  ASSERT_FALSE(x.ok());
  expectOneLine(x.error(), "x.glb: (document): tinygltf failed: ");
}

TEST(AuthorSources, GltfWithoutSkeleton) {
  auto none = parseGltfSkeleton(R"({"asset": {"version": "2.0"}})", "n.gltf");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "n.gltf: nodes: no nodes: the file holds no skeleton");
  auto loose = parseGltfSkeleton(R"({"asset": {"version": "2.0"}, "nodes": [{"name": "a", "children": [1]}, {"name": "b"}]})", "l.gltf");
  ASSERT_FALSE(loose.ok());
  EXPECT_EQ(loose.error().message, "l.gltf: skins: no skin joints and no node below an \"Armature\" node: the file holds no skeleton");
  auto bad_joint = parseGltfSkeleton(R"({"asset": {"version": "2.0"}, "nodes": [{"name": "a"}], "skins": [{"joints": [0, 3]}]})", "j.gltf");
  EXPECT_EQ(bad_joint.error().message, "j.gltf: skins[0].joints[1]: expected a node index below 1");
  auto cycle = parseGltfSkeleton(R"({"asset": {"version": "2.0"}, "nodes": [{"children": [1]}, {"children": [0]}], "skins": [{"joints": [0]}]})", "c.gltf");
  EXPECT_EQ(cycle.error().message, "c.gltf: nodes[0]: the node hierarchy has a cycle");
  auto matrix = parseGltfSkeleton(R"({"asset": {"version": "2.0"}, "nodes": [{"matrix": [1, 0, 0]}], "skins": [{"joints": [0]}]})", "m.gltf");
  EXPECT_EQ(matrix.error().message, "m.gltf: nodes[0].matrix: expected 16 numbers");
  auto tail = parseGltfSkeleton(R"({"asset": {"version": "2.0"}, "nodes": [{"extras": {"tail": [0, 1]}}], "skins": [{"joints": [0]}]})", "t.gltf");
  EXPECT_EQ(tail.error().message, "t.gltf: nodes[0].extras.tail: expected an array of 3 numbers");
  auto no_asset = parseGltfSkeleton(R"({"nodes": [{"name": "x"}], "skins": [{"joints": [0]}]})", "a.gltf");
  ASSERT_FALSE(no_asset.ok());
  expectOneLine(no_asset.error(), "a.gltf: (document): \"asset\" object not found");
}

// Without extras.length the tail is extras.tail (glTF frame): an object {x, y, z} as rigfit writes
// it, or an array as it wrote before.
TEST(AuthorSources, GltfExtrasTailObjectOrArray) {
  for (const char* tail : {R"({"x": 0.25, "y": 1.5, "z": -0.5})", "[0.25, 1.5, -0.5]"}) {
    SCOPED_TRACE(tail);
    const std::string text = std::string(R"({"asset": {"version": "2.0"}, "nodes": [
        {"name": "Armature", "children": [1]},
        {"name": "hip", "translation": [0, 1, 0], "extras": {"name": "hip.L", "roll": 0.5, "tail": )") + tail + R"(}}],
      "skins": [{"joints": [1]}]})";
    auto src = parseGltfSkeleton(text, "t.gltf");
    ASSERT_TRUE(src.ok()) << src.error().message;
    ASSERT_EQ(src->bones.size(), 1u);
    EXPECT_EQ(src->bones[0].name, "hip.L");
    EXPECT_EQ(src->bones[0].roll, 0.5);
    EXPECT_EQ(src->bones[0].tail, Eigen::Vector3d(0.25, 0.5, 1.5));  // glTF (x, y, z) -> rig (x, -z, y)
  }
  auto bad = parseGltfSkeleton(R"({"asset": {"version": "2.0"}, "nodes": [{"name": "Armature", "children": [1]}, {"name": "a", "extras": {"tail": {"x": 0, "y": "1", "z": 0}}}]})",
                               "b.gltf");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "b.gltf: nodes[1].extras.tail.y: expected a finite number");
}

}  // namespace
}  // namespace rigfit
