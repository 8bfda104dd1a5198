// The character pipeline end to end on the built-in demo: the typed export report.
#include <gtest/gtest.h>

#include "rigfit/character_export.hpp"

namespace rigfit {
namespace {

TEST(Pipeline, TypedExportReport) {
  const DataSource data = DataSource::builtinDemo();
  auto c = loadCharacter(data, {});
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto glb = exportCharacter(data, *c, {}, {.format = ExportFormat::kGlb, .deform_only = true});
  ASSERT_TRUE(glb.ok()) << glb.error().message;
  const ExportReport& r = glb->report;
  EXPECT_EQ(r.format, ExportFormat::kGlb);
  EXPECT_EQ(r.rig, "demo");
  EXPECT_GE(r.vertices, c->body().mesh.vertexCount());  // UV seams split vertices
  EXPECT_GT(r.triangles, 0u);
  ASSERT_EQ(r.meshes.size(), 1u);
  EXPECT_EQ(r.meshes[0].vertices, r.vertices);
  EXPECT_EQ(r.meshes[0].triangles, r.triangles);
  ASSERT_TRUE(r.removed_bones.has_value());
  EXPECT_EQ(r.joints + r.removed_bones->size(), c->fit.skeleton.size());
  ASSERT_TRUE(r.influences.has_value());
  EXPECT_EQ(r.influences->per_vertex, 4);
  EXPECT_EQ(r.bytes, glb->main.size());
  const Json json = exportReportJson(r);
  EXPECT_EQ(json.find("format")->asString(), "glb");
  EXPECT_EQ(json.find("meshes"), nullptr);  // one mesh: no per-mesh list
  ASSERT_NE(json.find("removed_bones"), nullptr);
  EXPECT_EQ(json.find("removed_bones")->size(), r.removed_bones->size());
  auto g4 = exportCharacter(data, *c, {}, {.format = ExportFormat::kG4tf});
  ASSERT_TRUE(g4.ok()) << g4.error().message;
  EXPECT_FALSE(g4->report.influences.has_value());  // a glTF limit only
  EXPECT_FALSE(g4->report.removed_bones.has_value());
  EXPECT_EQ(exportReportJson(g4->report).find("influences"), nullptr);
}

}  // namespace
}  // namespace rigfit
