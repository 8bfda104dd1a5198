// Body targets carried over to assets (docs/mpfb-assets.md §7), and through the export: teeth and
// tongue follow an open mouth, a proxy carries the body's morphs.
#include <cmath>

#include <gtest/gtest.h>

#include "rigfit/asset.hpp"
#include "rigfit/character.hpp"
#include "rigfit/character_export.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

TEST(TransferTarget, HandComputed) {
  // Asset vertex 0 copies body vertex 2; vertex 1 blends 0, 1 and the last vertex (index -1)
  // with a negative weight; vertex 2 is bound to unmoved vertices; vertex 3 moves 1e-4 m (kept
  // only above it).
  AssetBindings b;
  b.vertices = {2, 2, 2, 0, 1, -1, 1, 1, 1, 0, 0, 0};
  b.weights = {1, 0, 0, 0.5, 0.75, -0.25, 1, 0, 0, 0.001, 0, 0};
  b.offsets.assign(12, 0.0f);
  Target body{.vertices = {0, 2, 3}, .offsets = {0.1, 0, 0, 0, 0.2, 0, 0, 0, 0.4}};
  Target out;
  transferTarget(b, body, 4, out);
  ASSERT_EQ(out.vertices, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(out.offsets[0], 0.0);
  EXPECT_EQ(out.offsets[1], 0.2);
  EXPECT_EQ(out.offsets[2], 0.0);
  EXPECT_DOUBLE_EQ(out.offsets[3], 0.5 * 0.1);      // body 0
  EXPECT_DOUBLE_EQ(out.offsets[4], 0.0);            // body 1 does not move
  EXPECT_DOUBLE_EQ(out.offsets[5], -0.25 * 0.4);    // body 3, as index -1
  // 0.001 x 0.1 m = 1e-4 m: not above the threshold.
  b.weights[9] = 0.0011;
  transferTarget(b, body, 4, out);
  ASSERT_EQ(out.vertices, (std::vector<std::uint32_t>{0, 1, 3}));
  EXPECT_NEAR(out.offsets[6], 0.0011 * 0.1, 1e-18);
  // A target moving body vertex 1 only.
  transferTarget(b, Target{.vertices = {1}, .offsets = {1, 1, 1}}, 4, out);
  ASSERT_EQ(out.vertices, (std::vector<std::uint32_t>{1, 2}));  // bound to body 1 with weights 0.75 and 1
  EXPECT_DOUBLE_EQ(out.offsets[0], 0.75);
  EXPECT_DOUBLE_EQ(out.offsets[3], 1.0);
}

TEST(AssetMorphs, TeethAndTongueFollowTheJaw) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::string data_dir = test::sharedData();
  const DataSource data = DataSource::folder(data_dir);
  CharacterOptions o{.rig = "game_engine"};
  for (const char* path : {"teeth/teeth_base/teeth_base.mhclo", "tongue/tongue01/tongue01.mhclo", "clothes/shoes01/shoes01.mhclo"}) {
    auto worn = loadWornAsset(data_dir + "/../assets/" + path, "game_engine");
    ASSERT_TRUE(worn.ok()) << worn.error().message;
    o.assets.push_back(std::make_shared<const WornAsset>(std::move(*worn)));
  }
  auto c = loadCharacter(data, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->meshes.size(), 4u);
  CharacterExportOptions e{.format = ExportFormat::kG4tf};
  e.morphs.push_back({.path = "expression/units/caucasian/mouth-open", .name = "jawOpen"});
  auto out = exportCharacter(data, *c, {}, e);
  ASSERT_TRUE(out.ok()) << out.error().message;
  auto doc = parseJson(out->main, "g4tf");
  ASSERT_TRUE(doc.ok());
  // Body, teeth and tongue carry the blend shape; the shoes do not move with the jaw.
  std::vector<std::string> with;
  for (const Json& mesh : doc->find("meshes")->items())
    if (mesh.find("blend")) with.push_back(mesh.find("name")->asString());
  EXPECT_EQ(with, (std::vector<std::string>{"BodyMesh", "Teeth_BaseMesh", "tongue01Mesh"}));
}

}  // namespace
}  // namespace rigfit
