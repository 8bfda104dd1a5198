#include <gtest/gtest.h>

#include "rigfit/rig.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

TEST(RigRoundTrip, ShippedVersion110FilesAreByteIdentical) {
  RIGFIT_REQUIRE_SHARED_DATA();
  int checked = 0;
  for (const char* rel : test::kShippedRigs) {
    const std::string path = test::sharedData() + "/" + rel;
    const std::string text = test::readText(path);
    auto rig = parseRig(text, path);
    ASSERT_TRUE(rig.ok()) << rig.error().message;
    if (rig->source_version != 110) continue;
    EXPECT_EQ(writeRig(*rig), text) << rel;
    ++checked;
  }
  EXPECT_EQ(checked, 3);  // openpose, rigify human, rigify human_toes
}

// Every key of every bone of a legacy / v100 file survives the upgrade (layers become collections).
TEST(RigRoundTrip, OlderFilesBecomeVersion110WithNothingLost) {
  RIGFIT_REQUIRE_SHARED_DATA();
  int checked = 0;
  for (const char* rel : test::kShippedRigs) {
    const std::string path = test::sharedData() + "/" + rel;
    auto original = readJsonFile(path);
    ASSERT_TRUE(original.ok());
    auto rig = readRig(path);
    ASSERT_TRUE(rig.ok()) << rig.error().message;
    if (rig->source_version == 110) continue;
    ++checked;
    const std::string written = writeRig(*rig);
    auto reread = parseRig(written, "written");
    ASSERT_TRUE(reread.ok()) << reread.error().message;
    EXPECT_EQ(reread->source_version, 110);
    EXPECT_EQ(writeRig(*reread), written) << "saving is idempotent: " << rel;
    const Json& old_bones = original->contains("bones") ? *original->find("bones") : *original;
    ASSERT_EQ(reread->bones.size(), old_bones.size());
    for (const auto& [name, entry] : old_bones.members()) {
      const BoneDef* b = reread->find(name);
      ASSERT_NE(b, nullptr) << name;
      for (const auto& [key, value] : entry.members()) {
        if (key == "layers") continue;
        const Json* kept = b->json.find(key);
        ASSERT_NE(kept, nullptr) << rel << " " << name << "." << key;
        EXPECT_TRUE(*kept == value) << rel << " " << name << "." << key;
      }
    }
  }
  EXPECT_EQ(checked, 7);
}

TEST(RigRoundTrip, EditedValuesAreWrittenOverTheLoadedEntry) {
  auto rig = parseRig(R"({"bones": {"a": {"head": {"strategy": "CUBE", "cube_name": "joint-a", "default_position": [0.0, 0.0, 0.0]},
    "tail": {"strategy": "DEFAULT", "default_position": [0.0, 0.0, 1.0]}, "roll": 0.0, "parent": "", "use_connect": false,
    "use_local_location": true, "use_inherit_rotation": true, "inherit_scale": "FULL", "rigify": {}, "collections": []}},
    "is_subrig": false, "version": 110})", "e.json");
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  BoneDef& b = rig->bones[0];
  b.tail.strategy = Strategy::kMean;
  b.tail.vertex_indices = {4, 9};
  b.head.offset = Vec3d{0.0, 0.0, 0.01};
  b.roll = 0.5;
  const std::string out = writeRig(*rig);
  auto again = parseRig(out, "again.json");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->bones[0].tail.strategy, Strategy::kMean);
  EXPECT_EQ(again->bones[0].tail.vertex_indices, (std::vector<std::int64_t>{4, 9}));
  EXPECT_EQ(again->bones[0].roll, 0.5);
  ASSERT_TRUE(again->bones[0].head.offset.has_value());
  EXPECT_EQ((*again->bones[0].head.offset)[2], 0.01);
  EXPECT_NE(out.find("\"offset\": [\n                    0.0,\n                    0.0,\n                    0.01\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace rigfit
