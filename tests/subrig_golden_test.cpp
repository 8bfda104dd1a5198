// The ponytail's sub-rig against MPFB + Blender (tests/golden/subrig, made by
// tools/blender/subrig_reference.py through make_asset_goldens.sh): on two main rigs (game_engine,
// cmu_mb) and three bodies, the CHILD_OF target MPFB resolves, the sub-rig's rest matrices, and
// Blender's posed sub-rig bones and deformed hair (main Armature modifier, then the sub-rig's mixed
// by mhmask-subrig) for poses of the target bone and the sub-rig's non-bendy bones. A missing
// golden or ../shared data fails.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include <unistd.h>

#include <gtest/gtest.h>

#include "rigfit/character.hpp"
#include "rigfit/character_export.hpp"
#include "rigfit/constraint.hpp"
#include "rigfit/data.hpp"
#include "rigfit/json.hpp"
#include "rigfit/posing.hpp"
#include "rigfit/shape.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

constexpr double kMatrixTolerance = 5e-5;    // Blender's float32 bone matrices
constexpr double kVertexTolerance = 1e-5;    // metres

struct Case {
  const char* golden;
  const char* rig;
  const char* macro;  // null: the plain base mesh
  bool ground;
};
constexpr const char* kMax = "gender=1,age=1,muscle=1,weight=1,height=1,proportions=1";
constexpr Case kCases[] = {
    {"base.game_engine", "game_engine", nullptr, false},
    {"default.game_engine", "game_engine", "default", true},
    {"base.cmu_mb", "cmu_mb", nullptr, false},
    {"max.cmu_mb", "cmu_mb", kMax, true},
};

std::string assetsDir() { return test::sharedData() + "/../assets"; }

Expected<Character> ponytailCharacter(const Case& c) {
  const DataSource data = DataSource::folder(test::sharedData());
  CharacterOptions options;
  options.rig = c.rig;
  if (c.macro) {
    auto m = parseMacroSettings(c.macro);
    if (!m) return m.error();
    options.shape.use_macros = true;
    options.shape.macros = *m;
  }
  options.shape.ground = c.ground;
  auto worn = loadWornAsset(assetsDir() + "/hair/ponytail01/ponytail01.mhclo", c.rig);
  if (!worn) return worn.error();
  options.assets.push_back(std::make_shared<const WornAsset>(std::move(*worn)));
  return loadCharacter(data, options);
}

// A sub-rig bone in the character's skeleton: its own name, or the asset's name before it when
// the main rig has a bone of that name.
int subrigBone(const Skeleton& s, const std::string& name) {
  for (const std::string& n : {name, "ponytail01." + name}) {
    const int b = s.find(n);
    if (b >= 0 && s.subrig_of[static_cast<std::size_t>(b)] == "ponytail01") return b;
  }
  return -1;
}

double matrixDifference(const Eigen::Matrix4d& m, const Json& rows) {
  double d = 0.0;
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t k = 0; k < 4; ++k)
      d = std::max(d, std::abs(m(static_cast<int>(r), static_cast<int>(k)) - rows.items()[r].items()[k].asDouble()));
  return d;
}

TEST(SubrigGolden, PonytailFollowsItsResolvedParentAsInBlender) {
  RIGFIT_REQUIRE_SHARED_DATA();
  for (const Case& gc : kCases) {
    const std::string path = test::sourceDir() + "/tests/golden/subrig/" + gc.golden + ".json";
    auto golden = readJsonFile(path);
    ASSERT_TRUE(golden.ok()) << "sub-rig golden missing: " << path;
    const Json& g = *golden;
    ASSERT_TRUE(g.find("identity_objects")->asBool());
    auto c = ponytailCharacter(gc);
    ASSERT_TRUE(c.ok()) << gc.golden << ": " << c.error().message;
    const Skeleton& s = c->fit.skeleton;

    // The CHILD_OF target MPFB resolved is the sub-rig root's parent.
    const Json& con = g.find("constraints")->items().at(0);
    ASSERT_EQ(con.find("type")->asString(), "CHILD_OF");
    const int root = subrigBone(s, "root");
    ASSERT_GE(root, 0) << gc.golden;
    const int parent = s.parents[static_cast<std::size_t>(root)];
    ASSERT_GE(parent, 0);
    EXPECT_EQ(s.names[static_cast<std::size_t>(parent)], con.find("subtarget")->asString()) << gc.golden;

    double rest = 0.0;
    for (const Json& gb : g.find("subrig_bones")->items()) {
      const int b = subrigBone(s, gb.find("name")->asString());
      ASSERT_GE(b, 0) << gc.golden << " " << gb.find("name")->asString();
      rest = std::max(rest, matrixDifference(s.rest[static_cast<std::size_t>(b)], *gb.find("matrix")));
    }
    EXPECT_LE(rest, kMatrixTolerance) << gc.golden;

    for (const auto& [pose_name, gp] : g.find("poses")->members()) {
      const std::string what = std::string(gc.golden) + " " + pose_name;
      Pose pose = Pose::rest(s);
      for (const Json& r : gp.find("rotations")->items()) {
        const std::string which = r.items()[0].asString(), bone = r.items()[1].asString();
        BoneRotation rot;
        rot.bone = which == "sub" ? s.names[static_cast<std::size_t>(subrigBone(s, bone))] : bone;
        for (std::size_t k = 0; k < 3; ++k) rot.values[k] = r.items()[2].items()[k].asDouble();
        ASSERT_TRUE(applyBoneRotation(rot, s, pose).ok()) << what << " " << bone;
      }
      PosedMesh posed;
      ASSERT_TRUE(poseCharacter(*c, pose, false, 1, posed).ok()) << what;
      double bones = 0.0;
      for (const auto& [name, m] : gp.find("subrig_pose_matrices")->members()) {
        const int b = subrigBone(s, name);
        ASSERT_GE(b, 0);
        bones = std::max(bones, matrixDifference(posed.pose_matrices[static_cast<std::size_t>(b)], m));
      }
      EXPECT_LE(bones, kMatrixTolerance) << what;
      ASSERT_EQ(c->meshes.back().name, "ponytail01");
      const std::vector<float>& hair = posed.more.back().positions;
      double vertices = 0.0;
      std::size_t worst = 0;
      for (const Json& row : gp.find("positions")->items()) {
        const auto v = static_cast<std::size_t>(row.items()[0].asInt());
        ASSERT_LT(3 * v + 2, hair.size());
        for (std::size_t k = 0; k < 3; ++k) {
          const double d = std::abs(hair[3 * v + k] - row.items()[k + 1].asDouble());
          if (d > vertices) vertices = d, worst = v;
        }
      }
      EXPECT_LE(vertices, kVertexTolerance) << what << ": vertex " << worst;
      std::printf("[sub-rig golden] %-20s %-18s rest %.2g, posed bones %.2g, hair vertices %.2g m\n", gc.golden,
                  pose_name.c_str(), rest, bones, vertices);
    }
  }
}

// MPFB cannot place the ponytail on the mixamo rig (no bone spans joint-head -> joint-head-2 and
// it has no bone "head"; Blender then drops the CHILD_OF relation): rigfit says so and stops.
TEST(SubrigGolden, AnUnresolvableParentIsAnErrorNamingTheConstraint) {
  RIGFIT_REQUIRE_SHARED_DATA();
  auto c = ponytailCharacter({"base.mixamo", "mixamo", nullptr, false});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("ponytail01.mpfbskel: bones.root.constraints[0].target: no bone of the main rig spans "
                                   "joint-head -> joint-head-2, and the main rig has no bone \"head\" (the subtarget)"),
            std::string::npos)
      << c.error().message;
}

// An ARMATURE constraint bound to a body vertex (§8.4): one target per main-rig bone weighting the
// vertex, with the body's raw weight; a vertex beyond the body is an error naming the path.
TEST(SubrigGolden, VertexReferenceTargetsTheBonesWeightingThatBodyVertex) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const auto dir = std::filesystem::temp_directory_path() / ("rigfit_subrig_vertex_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tiny.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n";
  std::ofstream(dir / "tiny.mhclo") << "name tiny\nobj_file tiny.obj\nverts 0\n5000\n5100\n5200\n";
  const auto skel = [&](int vertex) {
    std::ofstream(dir / "tiny.mpfbskel")
        << R"({"is_subrig": true, "version": 110, "bones": {"b": {"head": {"strategy": "VERTEX", "vertex_index": 0},)"
           R"( "tail": {"strategy": "VERTEX", "vertex_index": 1}, "parent": "", "roll": 0, "use_connect": false,)"
           R"( "use_local_location": true, "use_inherit_rotation": true, "inherit_scale": "FULL", "rigify": {},)"
           R"( "constraints": [{"type": "ARMATURE", "name": "VERTEX:)" << vertex
        << R"(", "target": {"strategy": "VERTEX", "vertex_index": )" << vertex << "}}]}}}";
  };
  const auto load = [&]() {
    CharacterOptions options;
    options.rig = "game_engine";
    auto worn = loadWornAsset((dir / "tiny.mhclo").string(), "game_engine");
    if (!worn) return Expected<Character>(worn.error());
    options.assets.push_back(std::make_shared<const WornAsset>(std::move(*worn)));
    return loadCharacter(DataSource::folder(test::sharedData()), options);
  };
  skel(5000);
  auto c = load();
  ASSERT_TRUE(c.ok()) << c.error().message;
  const Skeleton& s = c->fit.skeleton;
  const int b = s.find("b");
  ASSERT_GE(b, 0);
  ASSERT_EQ(s.constraints.size(), s.size());
  const std::vector<Constraint>& cons = s.constraints[static_cast<std::size_t>(b)];
  ASSERT_EQ(cons.size(), 1u);
  const Skin& body = c->body().skin;
  const std::size_t first = body.offsets[5000], count = body.offsets[5001] - first;
  ASSERT_GT(count, 0u);
  ASSERT_EQ(cons[0].targets.size(), count);
  for (std::size_t k = 0; k < count; ++k) {
    EXPECT_EQ(cons[0].targets[k].main_bone, body.bones[first + k]);
    EXPECT_EQ(cons[0].targets[k].subtarget, s.names[body.bones[first + k]]);
    EXPECT_EQ(cons[0].targets[k].weight, static_cast<double>(body.weights[first + k]));
  }
  // Engines do not evaluate constraints: the export report lists them.
  auto exported = exportCharacter(DataSource::folder(test::sharedData()), *c, {}, CharacterExportOptions{});
  ASSERT_TRUE(exported.ok()) << exported.error().message;
  EXPECT_EQ(exported->report.constraints, std::vector<std::string>{"b: VERTEX:5000 (ARMATURE)"});
  const Json report = exportReportJson(exported->report);
  const Json* listed = report.find("constraints");
  ASSERT_TRUE(listed && listed->isArray() && listed->size() == 1);
  EXPECT_EQ(listed->items()[0].asString(), "b: VERTEX:5000 (ARMATURE)");
  skel(99999);
  c = load();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, (dir / "tiny.mpfbskel").string() +
                                   ": bones.b.constraints[0].target.vertex_index: vertex 99999 is beyond the body of 19158 vertices");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rigfit
