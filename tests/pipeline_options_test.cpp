// The typed pipeline options and the string forms the command line and manifests share.
#include <gtest/gtest.h>

#include "rigfit/pipeline_options.hpp"

namespace rigfit {
namespace {

TEST(PipelineOptions, ExportFormats) {
  EXPECT_EQ(exportFormatFromExtension("out/a.b.glb"), ExportFormat::kGlb);
  EXPECT_EQ(exportFormatFromExtension("a.gltf"), ExportFormat::kGltf);
  EXPECT_EQ(exportFormatFromExtension("a.g4tf"), ExportFormat::kG4tf);
  EXPECT_EQ(exportFormatFromExtension("a.g4b"), ExportFormat::kG4b);
  for (const char* none : {"a.obj", "glb", "a.glb.bak", "a.GLB", ""}) EXPECT_EQ(exportFormatFromExtension(none), std::nullopt) << none;
  for (ExportFormat f : {ExportFormat::kGlb, ExportFormat::kGltf, ExportFormat::kG4tf, ExportFormat::kG4b})
    EXPECT_EQ(exportFormatFromName(exportFormatName(f)), f);
  EXPECT_EQ(exportFormatFromName("fbx"), std::nullopt);
  EXPECT_TRUE(isGltf(ExportFormat::kGltf));
  EXPECT_FALSE(isGltf(ExportFormat::kG4b));
}

TEST(PipelineOptions, BoneRotations) {
  auto r = parseBoneRotation(" upperarm01.L = 90, -45,+30", BoneRotation::Kind::kEulerXyzDegrees);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, (BoneRotation{"upperarm01.L", BoneRotation::Kind::kEulerXyzDegrees, {90, -45, 30, 0}}));
  r = parseBoneRotation("a=b=1,0,0,1", BoneRotation::Kind::kQuaternion);  // the bone is everything before the last '='
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, (BoneRotation{"a=b", BoneRotation::Kind::kQuaternion, {1, 0, 0, 1}}));
  const std::pair<const char*, const char*> bad[] = {
      {"spine=1,2", R"(rotation "spine=1,2": expected 3 comma-separated numbers RX,RY,RZ (degrees, XYZ Euler) after '=', found 2)"},
      {"=1,2,3", R"(rotation "=1,2,3": expected BONE=RX,RY,RZ (degrees, XYZ Euler))"},
      {"spine=1,inf,3", R"(rotation "spine=1,inf,3": "inf" is not a finite number)"},
  };
  for (const auto& [text, message] : bad) {
    auto e = parseBoneRotation(text, BoneRotation::Kind::kEulerXyzDegrees);
    ASSERT_FALSE(e.ok()) << text;
    EXPECT_EQ(e.error().code, ErrorCode::kUsage);
    EXPECT_EQ(e.error().message, message);
    EXPECT_EQ(e.error().message.find("--"), std::string::npos);
  }
  auto zero = parseBoneRotation("spine=0,0,0,0", BoneRotation::Kind::kQuaternion);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message, R"(rotation "spine=0,0,0,0": the quaternion has length 0)");
  EXPECT_EQ(replaceSubject(zero.error(), "--rotate-quat").message, R"(--rotate-quat "spine=0,0,0,0": the quaternion has length 0)");
}

TEST(PipelineOptions, MorphSpecs) {
  auto m = parseMorphSpec("expression/units/caucasian/mouth-open");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, (MorphSpec{"expression/units/caucasian/mouth-open", "mouth-open", false}));
  m = parseMorphSpec("nose/nose-base-up=Up");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, (MorphSpec{"nose/nose-base-up", "Up", false}));
  m = parseMorphSpec("expression/units/asian/");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, (MorphSpec{"expression/units/asian", "", true}));
  // A target file is named after the file, without its extension.
  EXPECT_EQ(*parseMorphSpec("/x/smile.target.gz"), (MorphSpec{"/x/smile.target.gz", "smile", false}));
  EXPECT_EQ(*parseMorphSpec("./smile.target"), (MorphSpec{"./smile.target", "smile", false}));
  EXPECT_EQ(*parseMorphSpec("./smile.target=grin"), (MorphSpec{"./smile.target", "grin", false}));
  for (const char* bad : {"", "=x", "a="}) {
    auto e = parseMorphSpec(bad);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.error().message, "morph \"" + std::string(bad) + "\": expected PATH or PATH=NAME (PATH a target file, or relative to targets/)");
  }
}

}  // namespace
}  // namespace rigfit
