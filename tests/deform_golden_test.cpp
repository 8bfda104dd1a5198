// Posed meshes compared with Blender 3.4.1's armature modifier (tests/golden/deform, see its
// README): every 10th vertex of hm08, MPFB t-poses and large synthetic poses, base and shaped
// bodies, linear and dual-quaternion skinning. Agreement required: 1e-5 m.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "rigfit/posing.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

TEST(DeformGolden, PosedMeshesMatchBlendersArmatureModifier) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::string dir = test::sourceDir() + "/tests/golden/deform";
  const DataSource data = DataSource::folder(test::sharedData());
  TargetCache cache(data);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    auto golden = readJsonFile(entry.path().string());
    ASSERT_TRUE(golden.ok()) << golden.error().message;
    CharacterOptions o;
    o.rig = golden->find("rig")->asString();
    o.targets = &cache;
    const std::string body = golden->find("body")->asString();
    if (body != "base") {
      auto macros = parseMacroSettings(body);
      ASSERT_TRUE(macros.ok());
      o.shape.use_macros = true;
      o.shape.macros = *macros;
    }
    o.shape.ground = golden->find("ground")->asBool();
    auto c = loadCharacter(data, o);
    ASSERT_TRUE(c.ok()) << c.error().message;
    PoseRequest request;
    if (const Json* p = golden->find("pose"); p && p->isString()) request.pose_file = p->asString().substr(6);  // "poses/..."
    if (const Json* r = golden->find("rotate"); r && r->isArray())
      for (const Json& s : r->items()) {
        auto rotation = parseBoneRotation(s.asString(), BoneRotation::Kind::kEulerXyzDegrees);
        ASSERT_TRUE(rotation.ok()) << rotation.error().message;
        request.rotations.push_back(std::move(*rotation));
      }
    Pose pose;
    ASSERT_TRUE(buildPose(data, *c, request, pose, nullptr).ok());
    PosedMesh posed;
    ASSERT_TRUE(poseCharacter(*c, pose, golden->find("dqs")->asBool(), 1, posed).ok());
    double worst = 0.0, moved = 0.0;
    for (const Json& v : golden->find("vertices")->items()) {
      const auto i = static_cast<std::size_t>(v.items()[0].asInt());
      double d2 = 0.0, m2 = 0.0;
      for (int k = 0; k < 3; ++k) {
        const double b = v.items()[static_cast<std::size_t>(k + 1)].asDouble();
        const double r = posed.positions[3 * i + static_cast<std::size_t>(k)];
        d2 += (r - b) * (r - b);
        m2 += (b - c->body().mesh.positions[3 * i + static_cast<std::size_t>(k)]) * (b - c->body().mesh.positions[3 * i + static_cast<std::size_t>(k)]);
      }
      worst = std::max(worst, std::sqrt(d2));
      moved = std::max(moved, std::sqrt(m2));
    }
    EXPECT_LE(worst, 1e-5) << entry.path().filename();
    EXPECT_GT(moved, 0.1) << entry.path().filename() << ": the pose should move the body";
    ++files;
  }
  EXPECT_EQ(files, 11);
}

}  // namespace
}  // namespace rigfit
