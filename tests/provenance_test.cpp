// Exports record their weights file by name, with the licence and copyright it states (user need:
// clear licensing of what is exported), in glTF and G4MF alike and in the report.
#include <string>

#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include "rigfit/character.hpp"
#include "rigfit/character_export.hpp"
#include "rigfit/g4mf.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

TEST(Provenance, WeightsFileAndItsLicenceAreRecorded) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  auto c = loadCharacter(data, {.rig = "mixamo_unity"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->weights_statements.find("license")->asString(), "CC0");
  EXPECT_EQ(c->weights_statements.find("name")->asString(), "MakeHuman mixamorig weights");

  auto glb = exportCharacter(data, *c, {}, {});
  ASSERT_TRUE(glb.ok()) << glb.error().message;
  tinygltf::TinyGLTF loader;
  tinygltf::Model g;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromMemory(&g, &err, &warn, reinterpret_cast<const unsigned char*>(glb->main.data()),
                                          static_cast<unsigned>(glb->main.size())))
      << err;
  const tinygltf::Value& weights = g.asset.extras.Get("weights");
  ASSERT_TRUE(weights.IsObject());
  EXPECT_EQ(weights.Get("file").Get<std::string>(), "weights.mixamo_unity.json");  // a name, not the data folder's path
  EXPECT_EQ(weights.Get("license").Get<std::string>(), "CC0");
  EXPECT_EQ(weights.Get("copyright").Get<std::string>(), "(c) the guy who clicked the save weights button");
  EXPECT_EQ(exportReportJson(glb->report).find("weights")->find("license")->asString(), "CC0");

  CharacterExportOptions g4;
  g4.format = ExportFormat::kG4tf;
  auto text = exportCharacter(data, *c, {}, g4);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_TRUE(validateG4mf(text->main, "p.g4tf").empty());
  auto doc = parseJson(text->main, "p.g4tf");
  ASSERT_TRUE(doc.ok());
  const Json* extras = doc->find("asset")->find("extras");
  ASSERT_NE(extras, nullptr);
  EXPECT_EQ(extras->find("weights")->find("file")->asString(), "weights.mixamo_unity.json");
  EXPECT_EQ(extras->find("weights")->find("license")->asString(), "CC0");
}

}  // namespace
}  // namespace rigfit
