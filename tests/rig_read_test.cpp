#include <gtest/gtest.h>

#include "rigfit/rig.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

// A minimal legacy rig: the object is the bone dictionary.
const char* kLegacy = R"({
  "root": {"head": {"strategy": "CUBE", "cube_name": "joint-ground", "default_position": [0, 0, 0]},
           "tail": {"strategy": "VERTEX", "vertex_index": 3, "default_position": [0, 0, 1]},
           "roll": 0, "parent": "", "use_connect": false, "use_local_location": true,
           "use_inherit_rotation": true, "inherit_scale": "FULL", "rigify": {}, "my_extra_key": [1, 2]}
})";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

TEST(RigRead, LegacyLayoutIsReadAsVersion100AndUpgraded) {
  auto rig = parseRig(kLegacy, "legacy.json");
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  EXPECT_EQ(rig->layout, RigLayout::kLegacy);
  EXPECT_EQ(rig->source_version, 100);
  EXPECT_EQ(rig->version, 110);
  ASSERT_EQ(rig->bones.size(), 1u);
  const BoneDef& b = rig->bones[0];
  EXPECT_EQ(b.head.strategy, Strategy::kCube);
  EXPECT_EQ(b.head.cube_name, "joint-ground");
  EXPECT_EQ(b.tail.strategy, Strategy::kVertex);
  EXPECT_EQ(b.tail.vertex_index, 3);
  EXPECT_TRUE(rig->collections.empty());  // no layers: no collections
  EXPECT_TRUE(b.json.contains("my_extra_key"));  // unknown keys are kept
}

TEST(RigRead, Version100LayersBecomeCollections) {
  std::string v100 = std::string(R"({"version": 100, "is_subrig": false, "scale_factor": 0.10000000149011612, "bones": )") + kLegacy + "}";
  std::string layers = "[true";
  for (int i = 1; i < 32; ++i) layers += i == 3 ? ", true" : ", false";
  layers += "]";
  v100 = replace(v100, "\"my_extra_key\"", "\"layers\": " + layers + ", \"my_extra_key\"");
  auto rig = parseRig(v100, "v100.json");
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  EXPECT_EQ(rig->layout, RigLayout::kBones);
  EXPECT_EQ(rig->source_version, 100);
  // Without rigify_ui, layer 0 is "Bones" and others "Layer N"; bone lists are sorted by name.
  EXPECT_EQ(rig->collections, (std::vector<std::string>{"Bones", "Layer 4"}));
  EXPECT_EQ(rig->bones[0].collections, (std::vector<std::string>{"Bones", "Layer 4"}));
  EXPECT_FALSE(rig->bones[0].json.contains("layers"));
  ASSERT_TRUE(rig->scale_factor.has_value());
  EXPECT_EQ(*rig->scale_factor, 0.10000000149011612);
}

TEST(RigRead, HistoricRigifyRigUpgradesTo24Collections) {
  RIGFIT_REQUIRE_SHARED_DATA();
  auto rig = readRig(test::sharedData() + "/history/21ce365a/rigs/rigify/rig.human.json");
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  EXPECT_EQ(rig->source_version, 100);
  const std::vector<std::string> expected{
      "Face", "Face (Primary)", "Face (Secondary)", "Torso", "Torso (Tweak)", "Fingers", "Fingers (Detail)",
      "Arm.L (IK)", "Arm.L (FK)", "Arm.L (Tweak)", "Arm.R (IK)", "Arm.R (FK)", "Arm.R (Tweak)", "Leg.L (IK)",
      "Leg.L (FK)", "Leg.L (Tweak)", "Leg.R (IK)", "Leg.R (FK)", "Leg.R (Tweak)", "Toes", "Toes (Detail)",
      "Root", "DEF", "MCH"};
  EXPECT_EQ(rig->collections, expected);
  const Json* ui = rig->header.find("rigify_ui");
  ASSERT_NE(ui, nullptr);
  EXPECT_FALSE(ui->contains("rigify_layers"));
  EXPECT_FALSE(ui->contains("layers"));
  const Json* cols = ui->find("collections");
  ASSERT_NE(cols, nullptr);
  EXPECT_EQ(cols->size(), 22u);  // named UI layers 0..20 and Root
  // Root's row is 3 below the lowest other row (14 -> 17).
  EXPECT_EQ(cols->find("Root")->find("ui_row")->asInt(), 17);
  EXPECT_EQ(cols->find("Face (Primary)")->find("color_set_id")->asInt(), 2);
  // *_layers rigify parameters become *_coll_refs; implicit defaults are filled in.
  const BoneDef* finger = rig->find("f_index.01.L");
  ASSERT_NE(finger, nullptr);
  const Json* params = finger->json.find("rigify")->find("rigify_parameters");
  ASSERT_NE(params->find("tweak_coll_refs"), nullptr);
  EXPECT_EQ(writeJson(*params->find("tweak_coll_refs"), {.indent = -1}), "[\"Fingers (Detail)\"]");
  EXPECT_FALSE(params->contains("tweak_layers"));
  // Every bone of the old file is still there.
  EXPECT_EQ(rig->bones.size(), 185u);
}

TEST(RigRead, Errors) {
  struct Case {
    std::string text, message;
  };
  const std::string legacy = kLegacy;
  const Case cases[] = {
      {replace(legacy, "\"roll\": 0, ", ""), "r.json: bones.root.roll: missing (required)"},
      {replace(legacy, "\"roll\": 0", "\"roll\": \"0\""), "r.json: bones.root.roll: expected a number, found a string"},
      {replace(legacy, "\"CUBE\"", "\"NEAREST\""),
       "r.json: bones.root.head.strategy: unknown strategy \"NEAREST\" (expected CUBE, VERTEX, MEAN, XYZ or DEFAULT)"},
      {replace(legacy, "\"vertex_index\": 3", "\"vertex_index\": 3.5"),
       "r.json: bones.root.tail.vertex_index: expected an integer, found a number"},
      {replace(legacy, "\"cube_name\": \"joint-ground\", ", ""), "r.json: bones.root.head.cube_name: missing (required by CUBE)"},
      {replace(legacy, "\"FULL\"", "\"SOME\""),
       "r.json: bones.root.inherit_scale: expected one of FULL, FIX_SHEAR, ALIGNED, AVERAGE, NONE, NONE_LEGACY"},
      {replace(legacy, "[0, 0, 1]", "[0, 0]"), "r.json: bones.root.tail.default_position: expected [x, y, z]"},
      {"{\"bones\": {}}", "r.json: version: missing (required when the file has \"bones\")"},
      {"{\"bones\": {}, \"version\": 120}", "r.json: version: 120 is newer than 110, the newest rigfit reads"},
      {"{\"bones\": {}, \"version\": 110, \"joints\": {}}", "r.json: $: a MakeHuman .mhskel skeleton, not an MPFB rig"},
      {"[1, 2]", "r.json: $: expected an object, found an array"},
      {"{}", "r.json: $: no bones (a rig needs at least one)"},
      {"{\"bones\": {}, \"version\": 110}", "r.json: bones: no bones (a rig needs at least one)"},
  };
  for (const auto& c : cases)
    for (const RigParse mode : {RigParse::kFull, RigParse::kTyped}) {
      auto rig = parseRig(c.text, "r.json", mode);
      ASSERT_FALSE(rig.ok()) << c.message;
      EXPECT_EQ(rig.error().message, c.message);
    }
}

TEST(RigRead, MixamoVersion100AllBonesInBones) {
  RIGFIT_REQUIRE_SHARED_DATA();
  auto rig = readRig(test::sharedData() + "/rigs/standard/rig.mixamo.json");
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  EXPECT_EQ(rig->layout, RigLayout::kBones);
  EXPECT_EQ(rig->source_version, 100);
  EXPECT_EQ(rig->collections, std::vector<std::string>{"Bones"});
  for (const auto& b : rig->bones) EXPECT_EQ(b.collections, std::vector<std::string>{"Bones"}) << b.name;
}

}  // namespace
}  // namespace rigfit
