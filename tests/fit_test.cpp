// Hand-computed fits on a tiny mesh: one joint cube plus a few loose vertices.
#include <cmath>

#include <gtest/gtest.h>

#include "rigfit/fit.hpp"

namespace rigfit {
namespace {

struct Tiny {
  Mesh mesh;
  VertexGroups groups;
};

// Vertices 0..7: an axis-aligned cube centred at (1, 2, 3) (half size 0.25, exact in float);
// 8: (0, 0, 0); 9: (0, 0, 2); 10: (1, 0.5, 4); 11: (3, 5, 7) (the last vertex).
Tiny tinyMesh() {
  Tiny t;
  for (int k = 0; k < 8; ++k) {
    t.mesh.positions.push_back(1.0f + ((k & 1) ? 0.25f : -0.25f));
    t.mesh.positions.push_back(2.0f + ((k & 2) ? 0.25f : -0.25f));
    t.mesh.positions.push_back(3.0f + ((k & 4) ? 0.25f : -0.25f));
  }
  for (float v : {0.f, 0.f, 0.f, 0.f, 0.f, 2.f, 1.f, 0.5f, 4.f, 3.f, 5.f, 7.f}) t.mesh.positions.push_back(v);
  t.groups.names = {"joint-box", "body"};
  t.groups.ranges = {{{0, 7}}, {{8, 11}}};
  t.groups.index = {{"joint-box", 0}, {"body", 1}};
  return t;
}

std::string bone(const std::string& name, const std::string& head, const std::string& tail, const std::string& parent = "",
                 const std::string& extra = "") {
  return "\"" + name + "\": {\"head\": " + head + ", \"tail\": " + tail + ", \"roll\": 0.0, \"parent\": \"" + parent +
         "\", \"use_connect\": false, \"use_local_location\": true, \"use_inherit_rotation\": true, "
         "\"inherit_scale\": \"FULL\", \"rigify\": {}" + extra + "}";
}

RigDefinition rigOf(const std::string& bones, const std::string& header = "") {
  auto rig = parseRig("{\"bones\": {" + bones + "}, \"version\": 110" + header + "}", "rig.json");
  EXPECT_TRUE(rig.ok()) << (rig.ok() ? "" : rig.error().message);
  return rig.ok() ? std::move(*rig) : RigDefinition{};
}

const char* kCube = R"({"strategy": "CUBE", "cube_name": "joint-box", "default_position": [9, 9, 9]})";
const char* kOrigin = R"({"strategy": "VERTEX", "vertex_index": 8, "default_position": [9, 9, 9]})";

void expectVec(const Eigen::Vector3d& a, double x, double y, double z, double tol = 1e-12) {
  EXPECT_NEAR(a.x(), x, tol);
  EXPECT_NEAR(a.y(), y, tol);
  EXPECT_NEAR(a.z(), z, tol);
}

TEST(Fit, EachStrategy) {
  const Tiny t = tinyMesh();
  const RigDefinition rig = rigOf(
      bone("cube", kCube, kOrigin) + "," +
      bone("vertex", R"({"strategy": "VERTEX", "vertex_index": -1})", R"({"strategy": "VERTEX", "vertex_index": 9})") + "," +
      // MEAN with a repeated index weights it: (2*(0,0,2) + (1,0.5,4)) / 3.
      bone("mean", R"({"strategy": "MEAN", "vertex_indices": [9, 9, 10]})", kOrigin) + "," +
      // XYZ: x of v10, y of v11, z of v9; extra indices are ignored.
      bone("xyz", R"({"strategy": "XYZ", "vertex_indices": [10, 11, 9, 0]})", kOrigin));
  auto fit = fitRig(rig, t.mesh, t.groups);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  const Skeleton& s = fit->skeleton;
  ASSERT_EQ(s.size(), 4u);
  expectVec(s.heads[s.find("cube")], 1, 2, 3);
  expectVec(s.heads[s.find("vertex")], 3, 5, 7);  // -1 wraps to the last vertex, as in Python
  expectVec(s.tails[s.find("vertex")], 0, 0, 2);
  expectVec(s.heads[s.find("mean")], 1.0 / 3, 0.5 / 3, 8.0 / 3);
  expectVec(s.heads[s.find("xyz")], 1, 5, 2);
  EXPECT_EQ(fit->fallback_count, 0u);
  EXPECT_TRUE(fit->warnings.empty());
  EXPECT_NEAR(s.lengths[s.find("cube")], std::sqrt(14.0), 1e-12);
}

TEST(Fit, OffsetIsScaledByTheRelativeScale) {
  const Tiny t = tinyMesh();  // mesh scale 0.1 (float32)
  const std::string head = R"({"strategy": "CUBE", "cube_name": "joint-box", "offset": [0.0, 0.0, 0.5]})";
  // No scale_factor in the rig: relative scale 1.
  auto a = fitRig(rigOf(bone("b", head, kOrigin)), t.mesh, t.groups);
  ASSERT_TRUE(a.ok());
  expectVec(a->skeleton.heads[0], 1, 2, 3.5);
  // Rig saved at half the mesh's scale: offsets count double.
  auto b = fitRig(rigOf(bone("b", head, kOrigin), ", \"scale_factor\": 0.05000000074505806"), t.mesh, t.groups);
  ASSERT_TRUE(b.ok());
  expectVec(b->skeleton.heads[0], 1, 2, 3 + 0.5 * (double(0.1f) / 0.05000000074505806));
  // MPFB's own files store the float32 0.1: relative scale exactly 1.
  auto c = fitRig(rigOf(bone("b", head, kOrigin), ", \"scale_factor\": 0.10000000149011612"), t.mesh, t.groups);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->skeleton.heads[0].z(), 3.5);
}

TEST(Fit, DefaultPositionIsTheFallbackAndWarns) {
  const Tiny t = tinyMesh();
  const RigDefinition dflt = rigOf(bone("d", R"({"strategy": "DEFAULT", "default_position": [1, 1, 1], "offset": [5, 5, 5]})", kOrigin));
  auto fit = fitRig(dflt, t.mesh, t.groups);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  expectVec(fit->skeleton.heads[0], 1, 1, 1);  // never offset
  EXPECT_EQ(fit->fallback_count, 1u);
  ASSERT_EQ(fit->warnings.size(), 1u);
  EXPECT_EQ(fit->warnings[0].bone, "d");
  EXPECT_EQ(fit->warnings[0].message, "head: DEFAULT strategy; default_position used");

  // A strategy that cannot be evaluated is an error, unless fallbacks are allowed.
  const RigDefinition far = rigOf(bone("f", kCube, R"({"strategy": "VERTEX", "vertex_index": 12, "default_position": [7, 7, 7]})"));
  auto strict = fitRig(far, t.mesh, t.groups);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.error().message, "rig.json: bones.f.tail.vertex_index: vertex 12 is beyond the mesh of 12 vertices");
  auto lenient = fitRig(far, t.mesh, t.groups, {.allow_fallback = true});
  ASSERT_TRUE(lenient.ok());
  expectVec(lenient->skeleton.tails[0], 7, 7, 7);
  ASSERT_EQ(lenient->warnings.size(), 1u);
  EXPECT_EQ(lenient->warnings[0].message, "tail: vertex 12 is beyond the mesh of 12 vertices; default_position used");

  const RigDefinition cube = rigOf(bone("c", R"({"strategy": "CUBE", "cube_name": "joint-nope"})", kOrigin));
  auto missing = fitRig(cube, t.mesh, t.groups);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "rig.json: bones.c.head.cube_name: no joint cube group \"joint-nope\" in the mesh's vertex groups");
  // "body" is a group but not a joint cube (the name must contain "joint").
  auto not_cube = fitRig(rigOf(bone("c", R"({"strategy": "CUBE", "cube_name": "body", "default_position": [0,0,0]})", kOrigin)),
                         t.mesh, t.groups);
  EXPECT_FALSE(not_cube.ok());
}

// Roll strategies on hand-worked directions (docs/mpfb-behaviour.md §4.2).
TEST(Fit, RollStrategies) {
  Tiny t = tinyMesh();
  // v12 = (1, 0, 1): a bone from v8 (origin) to v12 points along (1, 0, 1)/sqrt2.
  for (float v : {1.f, 0.f, 1.f}) t.mesh.positions.push_back(v);
  const std::string tail = R"({"strategy": "VERTEX", "vertex_index": 12})";
  // ALIGN_X_WORLD_X: desired Z = normalize(X x n) = (0,-1,0); X0 = (.5,-.707,-.5), Z0 = (-.5,-.707,.5)
  // -> roll = atan2(Z.X0, Z.Z0) = pi/4.
  auto xw = fitRig(rigOf(bone("b", kOrigin, tail, "", ", \"roll_strategy\": \"ALIGN_X_WORLD_X\"")), t.mesh, t.groups);
  ASSERT_TRUE(xw.ok()) << xw.error().message;
  EXPECT_NEAR(xw->skeleton.rolls[0], M_PI / 4, 1e-15);
  expectVec(xw->skeleton.rest[0].col(2).head<3>(), 0, -1, 0, 1e-15);
  // ALIGN_Z_WORLD_Z: desired X = n x Z = (0,-1,0), desired Z = X x n = (-1, 0, 1)/sqrt2;
  // Z.X0 = -1/sqrt2, Z.Z0 = 1/sqrt2 -> roll = -pi/4.
  auto zw = fitRig(rigOf(bone("b", kOrigin, tail, "", ", \"roll_strategy\": \"ALIGN_Z_WORLD_Z\"")), t.mesh, t.groups);
  ASSERT_TRUE(zw.ok());
  EXPECT_NEAR(zw->skeleton.rolls[0], -M_PI / 4, 1e-15);
  expectVec(zw->skeleton.rest[0].col(2).head<3>(), -M_SQRT1_2, 0, M_SQRT1_2, 1e-15);
  // Vertical bone with ALIGN_Z_WORLD_Z: degenerate cross product, roll 0 as in Blender.
  std::string rolled = bone("v", kOrigin, R"({"strategy": "VERTEX", "vertex_index": 9})", "", ", \"roll_strategy\": \"ALIGN_Z_WORLD_Z\"");
  rolled.replace(rolled.find("\"roll\": 0.0"), 11, "\"roll\": 0.4");
  auto vert = fitRig(rigOf(rolled), t.mesh, t.groups);
  ASSERT_TRUE(vert.ok());
  EXPECT_EQ(vert->skeleton.rolls[0], 0.0);
  // ALIGN_Z_REFERENCE_Z with a reference: (0,-1,0) again gives pi/4; a reference along the bone gives 0.
  auto rz = fitRig(rigOf(bone("b", kOrigin, tail, "", ", \"roll_strategy\": \"ALIGN_Z_REFERENCE_Z\", \"roll_reference_z\": [0, -2, 0]")),
                   t.mesh, t.groups);
  ASSERT_TRUE(rz.ok());
  EXPECT_NEAR(rz->skeleton.rolls[0], M_PI / 4, 1e-15);
  auto par = fitRig(rigOf(bone("b", kOrigin, tail, "", ", \"roll_strategy\": \"ALIGN_Z_REFERENCE_Z\", \"roll_reference_z\": [1, 0, 1]")),
                    t.mesh, t.groups);
  ASSERT_TRUE(par.ok());
  EXPECT_EQ(par->skeleton.rolls[0], 0.0);
  // Without a reference the bone's own Z axis (from the file's roll) is used and recorded.
  std::string own = bone("b", kOrigin, tail, "", ", \"roll_strategy\": \"ALIGN_Z_REFERENCE_Z\"");
  own.replace(own.find("\"roll\": 0.0"), 11, "\"roll\": 0.3");
  auto self = fitRig(rigOf(own), t.mesh, t.groups);
  ASSERT_TRUE(self.ok());
  EXPECT_NEAR(self->skeleton.rolls[0], 0.3, 1e-14);
  EXPECT_LT((self->roll_reference_z[0] - self->skeleton.rest[0].col(2).head<3>()).norm(), 1e-14);
}

TEST(Fit, ConnectSnapsTheChildHeadToTheParentTail) {
  const Tiny t = tinyMesh();
  std::string child = bone("child", R"({"strategy": "VERTEX", "vertex_index": 10})", R"({"strategy": "VERTEX", "vertex_index": 11})", "parent");
  child.replace(child.find("\"use_connect\": false"), 20, "\"use_connect\": true");
  // The child comes first in the file; the skeleton still lists the parent first.
  auto fit = fitRig(rigOf(child + "," + bone("parent", kOrigin, kCube)), t.mesh, t.groups);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  const Skeleton& s = fit->skeleton;
  EXPECT_EQ(s.names, (std::vector<std::string>{"parent", "child"}));
  EXPECT_EQ(s.parents, (std::vector<int>{kNoParent, 0}));
  expectVec(s.heads[1], 1, 2, 3);  // the parent's tail (the cube), not vertex 10
  expectVec(s.tails[1], 3, 5, 7);
  EXPECT_EQ(s.connected[1], 1);
}

TEST(Fit, ZeroLengthBonesAreRemovedAsBlenderDoes) {
  const Tiny t = tinyMesh();
  auto fit = fitRig(rigOf(bone("a", kOrigin, kCube) + "," + bone("zero", kCube, kCube, "a") + "," +
                          bone("c", kCube, R"({"strategy": "VERTEX", "vertex_index": 11})", "zero")),
                    t.mesh, t.groups);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  const Skeleton& s = fit->skeleton;
  EXPECT_EQ(s.names, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(s.parents, (std::vector<int>{kNoParent, 0}));  // c moved to zero's parent
  ASSERT_EQ(fit->warnings.size(), 1u);
  EXPECT_EQ(fit->warnings[0].bone, "zero");
}

TEST(Fit, HierarchyErrors) {
  const Tiny t = tinyMesh();
  auto unknown = fitRig(rigOf(bone("a", kOrigin, kCube, "ghost")), t.mesh, t.groups);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "rig.json: bones.a.parent: unknown bone \"ghost\"");
  auto cycle = fitRig(rigOf(bone("a", kOrigin, kCube, "b") + "," + bone("b", kOrigin, kCube, "a")), t.mesh, t.groups);
  ASSERT_FALSE(cycle.ok());
  EXPECT_EQ(cycle.error().message, "rig.json: bones.a.parent: parent chain forms a cycle: a -> b -> a");
  // A bone that merely leads into a cycle is not named; the cycle's bones are, from the first in
  // the file; a bone that is its own parent says so.
  auto into = fitRig(rigOf(bone("c", kOrigin, kCube, "b") + "," + bone("d", kOrigin, kCube, "e") + "," + bone("b", kOrigin, kCube, "e") +
                           "," + bone("e", kOrigin, kCube, "d")),
                     t.mesh, t.groups);
  ASSERT_FALSE(into.ok());
  EXPECT_EQ(into.error().message, "rig.json: bones.d.parent: parent chain forms a cycle: d -> e -> d");
  auto self = fitRig(rigOf(bone("a", kOrigin, kCube) + "," + bone("s", kOrigin, kCube, "s")), t.mesh, t.groups);
  ASSERT_FALSE(self.ok());
  EXPECT_EQ(self.error().message, "rig.json: bones.s.parent: the bone is its own parent");
  auto sub = fitRig(rigOf(bone("a", kOrigin, kCube), ", \"is_subrig\": true"), t.mesh, t.groups);
  ASSERT_FALSE(sub.ok());
  EXPECT_EQ(sub.error().code, ErrorCode::kUnsupported);
}

// The names and parents known before a fit are the fitted skeleton's (parents first), and the
// rigs a fit rejects for their hierarchy have none.
TEST(Fit, SkeletonTopologyWithoutAFit) {
  const Tiny t = tinyMesh();
  // Rig order c, a, b with c a child of b: parents first is a, b, c.
  const RigDefinition rig = rigOf(bone("c", kCube, kOrigin, "b") + "," + bone("a", kOrigin, kCube) + "," + bone("b", kOrigin, kCube, "a"));
  auto topology = skeletonTopology(rig);
  ASSERT_TRUE(topology.has_value());
  EXPECT_EQ(topology->names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(topology->parents, (std::vector<int>{kNoParent, 0, 1}));
  auto fit = fitRig(rig, t.mesh, t.groups);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_EQ(topology->names, fit->skeleton.names);
  EXPECT_EQ(topology->parents, fit->skeleton.parents);
  EXPECT_FALSE(skeletonTopology(rigOf(bone("a", kOrigin, kCube, "ghost"))).has_value());
  EXPECT_FALSE(skeletonTopology(rigOf(bone("a", kOrigin, kCube, "b") + "," + bone("b", kOrigin, kCube, "a"))).has_value());
}

TEST(Fit, WrongVertexCountIsRejected) {
  const Tiny t = tinyMesh();
  auto prepared = prepareRig(rigOf(bone("a", kOrigin, kCube)), t.groups, 12, 0.1);
  ASSERT_TRUE(prepared.ok());
  FitResult out;
  const std::vector<float> fewer(30, 0.0f);
  EXPECT_FALSE(fitSkeleton(*prepared, fewer, out).ok());
}

TEST(Fit, RefitReusesStorageAndFollowsTheBody) {
  Tiny t = tinyMesh();
  auto prepared = prepareRig(rigOf(bone("a", kOrigin, kCube)), t.groups, t.mesh.vertexCount(), 0.1);
  ASSERT_TRUE(prepared.ok());
  FitResult out;
  ASSERT_TRUE(fitSkeleton(*prepared, t.mesh.positions, out).ok());
  for (std::size_t k = 2; k < t.mesh.positions.size(); k += 3) t.mesh.positions[k] += 1.0f;  // lift the body 1 m
  ASSERT_TRUE(fitSkeleton(*prepared, t.mesh.positions, out).ok());
  expectVec(out.skeleton.heads[0], 0, 0, 1);
  expectVec(out.skeleton.tails[0], 1, 2, 4);
}

}  // namespace
}  // namespace rigfit
