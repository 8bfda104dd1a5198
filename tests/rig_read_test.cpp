#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <random>

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

// A v100 UI row beyond int64 (read as a float) or at its edge upgrades with the rows saturated,
// not with an undefined conversion or overflow (found by fuzz_rig_json).
TEST(RigRead, Version100RowsBeyondInt64Saturate) {
  for (const char* row : {"14444444444444444444", "9223372036854775807", "-1e300"}) {
    // Layer 0 "FK" at the row; layer 28 (Root) is placed 3 rows below the lowest other one.
    std::string layers = std::string(R"([{"name": "FK", "row": )") + row + "}";
    for (int i = 1; i < 28; ++i) layers += R"(, {"name": ""})";
    layers += R"(, {"name": "Root", "row": 1}])";
    std::string v100 = R"({"version": 100, "rigify_ui": {"rigify_layers": )" + layers + R"(}, "bones": )" + kLegacy + "}";
    auto rig = parseRig(v100, "v100.json");
    ASSERT_TRUE(rig.ok()) << rig.error().message;
    const Json* cols = rig->header.find("rigify_ui")->find("collections");
    ASSERT_NE(cols, nullptr);
    const Json* fk_col = cols->find("FK");
    const Json* root_col = cols->find("Root");
    ASSERT_TRUE(fk_col && root_col) << writeJson(*cols, {.indent = -1});
    const std::int64_t fk = fk_col->find("ui_row")->asInt();
    const std::int64_t root = root_col->find("ui_row")->asInt();
    if (row[0] == '-') {
      EXPECT_EQ(fk, INT64_MIN);
      EXPECT_EQ(root, 3);  // the rows' maximum starts at 0
    } else {
      EXPECT_EQ(fk, INT64_MAX) << row;
      EXPECT_EQ(root, INT64_MAX) << row;
    }
  }
  EXPECT_EQ(Json(1e19).asInt(), INT64_MAX);
  EXPECT_EQ(Json(-1e19).asInt(), INT64_MIN);
  EXPECT_EQ(Json(-2.9).asInt(), -2);
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
      // A v110 bone in a collection the header does not list (MPFB fails on it).
      {R"({"version": 110, "collections": ["Torso"], "bones": {"root": {
         "head": {"strategy": "CUBE", "cube_name": "joint-ground", "default_position": [0, 0, 0]},
         "tail": {"strategy": "VERTEX", "vertex_index": 3, "default_position": [0, 0, 1]},
         "roll": 0, "parent": "", "use_connect": false, "use_local_location": true,
         "use_inherit_rotation": true, "inherit_scale": "FULL", "rigify": {}, "collections": ["Torso", "Arms"]}}})",
       "r.json: bones.root.collections[1]: collection \"Arms\" is not among the rig's collections (MPFB could not build the armature)"},
  };
  for (const auto& c : cases) {
    auto rig = parseRig(c.text, "r.json");
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


// A small v110 rig with every optional key, unknown keys at each level and nested values.
const std::string kFullRig = R"({
    "bones": {
        "root": {"collections": ["Bones"], "head": {"cube_name": "joint-ground", "default_position": [0.0, 0.0, 0.0], "strategy": "CUBE"},
                 "inherit_scale": "FULL", "parent": "", "rigify": {"rigify_parameters": {"a": [1, 2.5, "x"], "b": {"c": null}}, "rigify_type": "basic.super_copy"},
                 "roll": 0.25, "tail": {"default_position": [0, 0, 1], "strategy": "VERTEX", "vertex_index": -3},
                 "use_connect": false, "use_inherit_rotation": true, "use_local_location": true,
                 "constraints": [{"name": "c", "type": "IK", "influence": 1e-05}], "bendy_bone": {"segments": 2}},
        "child": {"collections": [], "head": {"default_position": [0, 0, 1], "strategy": "MEAN", "vertex_indices": [1, 2], "offset": [0.1, 0, -0.2]},
                  "inherit_scale": "NONE", "parent": "root", "rigify": {}, "roll": -1, "rotation_mode": "XYZ",
                  "roll_strategy": "ALIGN_Z_REFERENCE_Z", "roll_reference_z": [0, 0, 1],
                  "tail": {"default_position": [0, 1, 1], "strategy": "XYZ", "vertex_indices": [4, 5, 6]},
                  "use_connect": true, "use_inherit_rotation": false, "use_local_location": false}
    },
    "collections": ["Bones"], "extra_bones": ["DEF-x"], "is_subrig": false, "rigify_ui": null, "scale_factor": 0.1, "version": 110
})";

TEST(RigRead, EveryTypedFieldAndKey) {
  auto rig = parseRig(kFullRig, "full.json");
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  EXPECT_EQ(rig->extra_bones, std::vector<std::string>{"DEF-x"});
  ASSERT_TRUE(rig->scale_factor.has_value());
  EXPECT_EQ(*rig->scale_factor, 0.1);
  ASSERT_EQ(rig->bones.size(), 2u);
  const BoneDef& root = rig->bones[0];
  EXPECT_EQ(root.tail.strategy, Strategy::kVertex);
  EXPECT_EQ(root.tail.vertex_index, -3);
  EXPECT_EQ(root.roll, 0.25);
  EXPECT_TRUE(root.json.contains("constraints"));
  EXPECT_TRUE(root.json.contains("bendy_bone"));
  const BoneDef& child = rig->bones[1];
  EXPECT_EQ(child.parent, "root");
  EXPECT_EQ(child.head.vertex_indices, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(child.head.offset, (Vec3d{0.1, 0.0, -0.2}));
  EXPECT_EQ(child.tail.strategy, Strategy::kXyz);
  EXPECT_EQ(child.inherit_scale, InheritScale::kNone);
  EXPECT_EQ(child.rotation_mode, RotationMode::kXYZ);
  EXPECT_EQ(child.roll_strategy, RollStrategy::kAlignZReferenceZ);
  EXPECT_EQ(child.roll_reference_z, (Vec3d{0.0, 0.0, 1.0}));
  EXPECT_TRUE(child.use_connect);
  EXPECT_TRUE(rig->header.contains("rigify_ui"));
}

// Values each rejected (or accepted) with the message of the first problem.
TEST(RigRead, EditsOfAFullRig) {
  struct Edit {
    std::string from, to, message;
  };
  const Edit rejected[] = {
      {"\"c\": null", "\"c\": nul", "e.json: line 4, column 121 (byte 276): invalid literal"},
      {"\"c\": null", "\"c\": 1, \"c\": 2", "e.json: $: duplicate key \"c\""},
      {"[4, 5, 6]", "[4, 5]", "e.json: bones.child.tail.vertex_indices: XYZ needs at least 3 indices, found 2"},
      {"[4, 5, 6]", "[4, 5, 6.5]", "e.json: bones.child.tail.vertex_indices[2]: expected an integer, found a number"},
      {"\"MEAN\"", "\"MEANS\"", "e.json: bones.child.head.strategy: unknown strategy \"MEANS\" (expected CUBE, VERTEX, MEAN, XYZ or DEFAULT)"},
      {"\"roll\": -1", "\"roll\": null", "e.json: bones.child.roll: expected a number, found null"},
      {"\"ALIGN_Z_REFERENCE_Z\"", "\"ALIGN\"",
       "e.json: bones.child.roll_strategy: unknown roll strategy \"ALIGN\" (expected ALIGN_Z_WORLD_Z, ALIGN_X_WORLD_X or ALIGN_Z_REFERENCE_Z)"},
      {"\"scale_factor\": 0.1", "\"scale_factor\": -1", "e.json: scale_factor: must be a finite number >= 0"},
      {"\"version\": 110", "\"version\": 110.0", "e.json: version: expected an integer, found a number"},
      {"\"is_subrig\": false", "\"is_subrig\": 0", "e.json: is_subrig: expected a boolean"},
      {"\"extra_bones\": [\"DEF-x\"]", "\"extra_bones\": [1]", "e.json: extra_bones[0]: expected a string"},
      {"\"child\": {", "\"root\": {", "e.json: $: duplicate key \"root\""},
      {"\"rigify\": {}", "\"rigify\": []", "e.json: bones.child.rigify: expected an object"},
      {"[{\"name\": \"c\", \"type\": \"IK\", \"influence\": 1e-05}]", "{\"name\": \"c\"}", "e.json: bones.root.constraints: expected an array"},
      {"\"use_connect\": true", "\"use_connect\": 1", "e.json: bones.child.use_connect: expected a boolean, found an integer"},
      {"\"roll\": 0.25", "\"roll\": 01.5", "e.json: line 5, column 26 (byte 345): leading zero in number"},
      // Well-formed, but beyond double's range: simdjson's message, at the end.
      {"[0, 1, 1]", "[0, 1, 1e400]", "e.json: line 15, column 2 (byte 1345): Problem while parsing a number"},
      {"[0, 1, 1]", "[0, 1, \"1\"]", "e.json: bones.child.tail.default_position[2]: expected a number, found a string"},
      {"[0, 1, 1]", "[0, 1, 1, 2]", "e.json: bones.child.tail.default_position: expected [x, y, z]"},
      {"\"vertex_index\": -3", "\"vertex_index\": -3.0", "e.json: bones.root.tail.vertex_index: expected an integer, found a number"},
      {"\"bones\": {", "\"joints\": {}, \"bones\": {", "e.json: $: a MakeHuman .mhskel skeleton, not an MPFB rig"},
  };
  for (const Edit& e : rejected) {
    auto rig = parseRig(replace(kFullRig, e.from, e.to), "e.json");
    ASSERT_FALSE(rig.ok()) << e.to;
    EXPECT_EQ(rig.error().message, e.message) << e.to;
  }
  // Accepted: other spellings of the same values, null or empty optional values, escapes.
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"[0, 1, 1]", "[0,1,1]"}, {"[0, 1, 1]", "[\n  0,\n  1,\n  1\n]"}, {"[0, 1, 1]", "[\t0,\r\n1,\n\n1 ]"},
           {"[0, 1, 1]", "[-0.0, 1.5e-3, 123456789.125]"}, {"[0, 1, 1]", "[0.30000000000000004, -9.999999999999999999, 1E+2]"},
           {"[0, 1, 1]", "[12345678901234567, -0, 5e-324]"}, {"\"ALIGN_Z_REFERENCE_Z\"", "\"\""}, {"\"ALIGN_Z_REFERENCE_Z\"", "null"},
           {"\"roll_reference_z\": [0, 0, 1]", "\"roll_reference_z\": null"}, {"\"scale_factor\": 0.1", "\"scale_factor\": 0"},
           {"\"parent\": \"root\"", "\"parent\": \"ro\\u006ft\""}, {"\"vertex_index\": -3", "\"vertex_index\": -3, \"cube_name\": 7"},
           {"\"roll\": 0.25", "\"roll\": -0.5e+2"}, {"\"version\": 110", "\"version\": 100"}}) {
    auto rig = parseRig(replace(kFullRig, from, to), "e.json");
    EXPECT_TRUE(rig.ok()) << to << ": " << rig.error().message;
  }
  auto escaped = parseRig(replace(kFullRig, "\"parent\": \"root\"", "\"parent\": \"ro\\u006ft\""), "e.json");
  ASSERT_TRUE(escaped.ok());
  EXPECT_EQ(escaped->bones[1].parent, "root");
  auto zero = parseRig(replace(kFullRig, "\"scale_factor\": 0.1", "\"scale_factor\": 0"), "e.json");
  ASSERT_TRUE(zero.ok());
  EXPECT_FALSE(zero->scale_factor.has_value());  // only truthy values count
}

// Duplicate keys are an error at every level: bone names, bone keys, end keys, nested values.
TEST(RigRead, DuplicateKeysAtEveryLevel) {
  auto rig = [](int n, const std::string& bone_extra, const std::string& end_extra) {
    std::string text = "{\"bones\": {";
    for (int b = 0; b < n; ++b)
      text += (b ? ", \"bone" : "\"bone") + std::to_string(b) + "\": {\"head\": {\"strategy\": \"DEFAULT\", \"default_position\": [0, 0, 0]" +
              (b == n - 1 ? end_extra : "") + "}, \"tail\": {\"strategy\": \"DEFAULT\", \"default_position\": [0, 0, 1]}, \"roll\": 0, \"parent\": \"\", " +
              "\"use_connect\": false, \"use_local_location\": true, \"use_inherit_rotation\": true, \"inherit_scale\": \"FULL\", \"rigify\": {}" +
              (b == n - 1 ? bone_extra : "") + "}";
    return text + "}, \"version\": 110}";
  };
  EXPECT_TRUE(parseRig(rig(40, "", ""), "d.json").ok());
  std::string dup_name = rig(40, "", "");
  dup_name.replace(dup_name.rfind("\"bone39\""), 8, "\"bone17\"");
  for (const auto& [text, key] : std::vector<std::pair<std::string, std::string>>{
           {dup_name, "bone17"}, {rig(40, ", \"roll\": 1", ""), "roll"}, {rig(3, "", ", \"strategy\": \"CUBE\""), "strategy"},
           {rig(3, ", \"custom\": {\"a\": 1, \"a\": 2}", ""), "a"}, {rig(3, ", \"x\": 1, \"x\": 2", ""), "x"}}) {
    auto r = parseRig(text, "d.json");
    ASSERT_FALSE(r.ok()) << key;
    EXPECT_EQ(r.error().message, "d.json: $: duplicate key \"" + key + "\"");
    EXPECT_EQ(r.error().code, ErrorCode::kSyntax);
  }
}

// Decimals of every length (leading zeros, up to 25 decimals, near 2^53) read correctly rounded,
// as std::from_chars reads them.
TEST(RigRead, DecimalsReadCorrectlyRounded) {
  std::mt19937_64 rng(7);
  std::vector<std::string> numbers;
  std::string text = "{\"bones\": {";
  for (int b = 0; b < 400; ++b) {
    auto decimal = [&] {
      std::string s = (rng() & 1) ? "-" : "";
      const int int_digits = static_cast<int>(rng() % 4);
      s += int_digits == 0 ? "0" : std::to_string(1 + rng() % 9) + std::string(static_cast<std::size_t>(int_digits - 1), static_cast<char>('0' + rng() % 10));
      s += ".";
      const int zeros = static_cast<int>(rng() % 6), frac = 1 + static_cast<int>(rng() % 20);
      s += std::string(static_cast<std::size_t>(zeros), '0');
      for (int k = 0; k < frac; ++k) s += static_cast<char>('0' + rng() % 10);
      numbers.push_back(s);
      return s;
    };
    if (b) text += ", ";
    text += "\"b" + std::to_string(b) + "\": {\"head\": {\"strategy\": \"DEFAULT\", \"default_position\": [";
    text += decimal() + ", ";
    text += decimal() + ", ";
    text += decimal() + "]}, \"tail\": {\"strategy\": \"DEFAULT\", \"default_position\": [0, 9007199254740993.5, 0.9007199254740993]}, \"roll\": ";
    text += decimal() +
            ", \"parent\": \"\", \"use_connect\": false, \"use_local_location\": true, \"use_inherit_rotation\": true, "
            "\"inherit_scale\": \"FULL\", \"rigify\": {}}";
  }
  text += "}, \"version\": 110}";
  auto rig = parseRig(text, "decimals.json");
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  auto exact = [](const std::string& s) {
    double d = 0.0;
    std::from_chars(s.data(), s.data() + s.size(), d);
    return std::bit_cast<std::uint64_t>(d);
  };
  for (std::size_t b = 0; b < rig->bones.size(); ++b) {
    const BoneDef& bone = rig->bones[b];
    for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(std::bit_cast<std::uint64_t>((*bone.head.default_position)[k]), exact(numbers[4 * b + k])) << numbers[4 * b + k];
    EXPECT_EQ(std::bit_cast<std::uint64_t>(bone.roll), exact(numbers[4 * b + 3])) << numbers[4 * b + 3];
    EXPECT_EQ((*bone.tail.default_position)[1], 9007199254740993.5);
    EXPECT_EQ((*bone.tail.default_position)[2], 0.9007199254740993);
  }
}

// Every rig file in the shared data (shipped, historic, sub-rigs) reads; v110 ones save back
// byte for byte.
TEST(RigRead, EveryRigFileInTheSharedData) {
  RIGFIT_REQUIRE_SHARED_DATA();
  std::size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(test::sharedData())) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.rfind("rig.", 0) != 0 || e.path().extension() != ".json") continue;
    auto rig = readRig(e.path().string());
    ASSERT_TRUE(rig.ok()) << rig.error().message;
    if (rig->source_version == 110) {
      EXPECT_EQ(writeRig(*rig), test::readText(e.path().string())) << e.path();
    }
    ++files;
  }
  EXPECT_GE(files, 10u);
}

// The text's last byte is the last byte before a page that cannot be read: parseRig copies it
// (simdjson reads past the end of what it parses), and the text is all it reads.
TEST(RigRead, TextEndingAtAnUnreadablePage) {
  const long page = sysconf(_SC_PAGESIZE);
  void* mem = mmap(nullptr, static_cast<std::size_t>(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  ASSERT_EQ(mprotect(static_cast<char*>(mem) + page, static_cast<std::size_t>(page), PROT_NONE), 0);
  for (const bool whole : {true, false}) {
    const std::string text = whole ? std::string(kLegacy) : std::string(kLegacy).substr(0, std::strlen(kLegacy) - 2);
    char* at = static_cast<char*>(mem) + page - static_cast<long>(text.size());
    std::memcpy(at, text.data(), text.size());
    auto rig = parseRig(std::string_view(at, text.size()), "edge.json");
    EXPECT_EQ(rig.ok(), whole) << (rig.ok() ? "" : rig.error().message);
  }
  munmap(mem, static_cast<std::size_t>(2 * page));
}

}  // namespace
}  // namespace rigfit
