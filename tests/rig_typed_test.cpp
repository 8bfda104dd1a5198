// RigParse::kTyped must agree with the full reader: same acceptance, same typed fields, same
// errors, and the same bytes when saved.
#include <filesystem>
#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "core/file_io.hpp"
#include "rig/rig_read_typed.hpp"
#include "rigfit/rig.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

void expectSameTyped(const RigDefinition& a, const RigDefinition& b, const std::string& what) {
  EXPECT_EQ(a.layout, b.layout) << what;
  EXPECT_EQ(a.source_version, b.source_version) << what;
  EXPECT_EQ(a.version, b.version) << what;
  EXPECT_EQ(a.is_subrig, b.is_subrig) << what;
  EXPECT_EQ(a.scale_factor, b.scale_factor) << what;
  EXPECT_EQ(a.collections, b.collections) << what;
  EXPECT_EQ(a.extra_bones, b.extra_bones) << what;
  EXPECT_EQ(a.final_newline, b.final_newline) << what;
  ASSERT_EQ(a.bones.size(), b.bones.size()) << what;
  for (std::size_t i = 0; i < a.bones.size(); ++i) {
    const BoneDef& x = a.bones[i];
    const BoneDef& y = b.bones[i];
    const std::string w = what + " bone " + x.name;
    EXPECT_EQ(x.name, y.name) << w;
    EXPECT_EQ(x.parent, y.parent) << w;
    EXPECT_TRUE(x.head == y.head) << w;
    EXPECT_TRUE(x.tail == y.tail) << w;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(x.roll), std::bit_cast<std::uint64_t>(y.roll)) << w;
    EXPECT_EQ(x.use_connect, y.use_connect) << w;
    EXPECT_EQ(x.use_local_location, y.use_local_location) << w;
    EXPECT_EQ(x.use_inherit_rotation, y.use_inherit_rotation) << w;
    EXPECT_EQ(x.inherit_scale, y.inherit_scale) << w;
    EXPECT_EQ(x.rotation_mode, y.rotation_mode) << w;
    EXPECT_EQ(x.roll_strategy, y.roll_strategy) << w;
    EXPECT_EQ(x.roll_reference_z, y.roll_reference_z) << w;
    EXPECT_EQ(x.collections, y.collections) << w;
  }
}

// Parses `text` both ways and checks they agree; returns whether the typed reader handled it
// itself (no fallback to the full reader).
bool agree(const std::string& text, const std::string& label) {
  auto full = parseRig(text, label, RigParse::kFull);
  auto typed = parseRig(text, label, RigParse::kTyped);
  EXPECT_EQ(full.ok(), typed.ok()) << label << ": " << (full.ok() ? typed.error().message : full.error().message);
  if (!full.ok() || !typed.ok()) {
    if (!full.ok() && !typed.ok()) {
      EXPECT_EQ(full.error().message, typed.error().message) << label;
    }
    return false;
  }
  expectSameTyped(*full, *typed, label);
  EXPECT_TRUE(typed->header.isNull()) << label;
  EXPECT_EQ(writeRig(*full), writeRig(*typed)) << label;
  RigDefinition direct;
  return detail::readRigTyped(detail::makeRigSource(text), label, direct);
}

TEST(RigTyped, ShippedAndHistoricRigsAgreeAndTakeTheTypedPath) {
  RIGFIT_REQUIRE_SHARED_DATA();
  std::size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(test::sharedData())) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.rfind("rig.", 0) != 0 || e.path().extension() != ".json") continue;
    auto text = readFile(e.path().string());
    ASSERT_TRUE(text.ok());
    const bool direct = agree(*text, e.path().string());
    // Version 100 files with Rigify data (historic rigify rigs) are upgraded by the full reader.
    const bool rigify100 = text->find("\"rigify_type\"") != std::string::npos && text->find("\"version\": 110") == std::string::npos;
    if (!rigify100) {
      EXPECT_TRUE(direct) << e.path() << " fell back to the full reader";
    }
    ++files;
  }
  EXPECT_GE(files, 10u);
}

TEST(RigTyped, CliFixturesAgree) {
  const std::string dir = std::string(RIGFIT_SOURCE_DIR) + "/tests/cli/cases";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    auto text = readFile(e.path().string());
    ASSERT_TRUE(text.ok());
    agree(*text, e.path().filename().string());
  }
}

// Mutations of a small v110 rig: each is accepted or rejected, with the same message, by both.
TEST(RigTyped, MutationsAgree) {
  const std::string base = R"({
    "bones": {
        "root": {"collections": ["Bones"], "head": {"cube_name": "joint-ground", "default_position": [0.0, 0.0, 0.0], "strategy": "CUBE"},
                 "inherit_scale": "FULL", "parent": "", "rigify": {"rigify_parameters": {"a": [1, 2.5, "x"], "b": {"c": null}}, "rigify_type": "basic.super_copy"},
                 "roll": 0.25, "tail": {"default_position": [0, 0, 1], "strategy": "VERTEX", "vertex_index": -3},
                 "use_connect": false, "use_inherit_rotation": true, "use_local_location": true,
                 "constraints": [{"name": "c", "influence": 1e-05}], "bendy_bone": {"segments": 2}},
        "child": {"collections": [], "head": {"default_position": [0, 0, 1], "strategy": "MEAN", "vertex_indices": [1, 2], "offset": [0.1, 0, -0.2]},
                  "inherit_scale": "NONE", "parent": "root", "rigify": {}, "roll": -1, "rotation_mode": "XYZ",
                  "roll_strategy": "ALIGN_Z_REFERENCE_Z", "roll_reference_z": [0, 0, 1],
                  "tail": {"default_position": [0, 1, 1], "strategy": "XYZ", "vertex_indices": [4, 5, 6]},
                  "use_connect": true, "use_inherit_rotation": false, "use_local_location": false}
    },
    "collections": ["Bones"], "extra_bones": ["DEF-x"], "is_subrig": false, "rigify_ui": null, "scale_factor": 0.1, "version": 110
})";
  EXPECT_TRUE(agree(base, "base.json"));
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"\"c\": null", "\"c\": nul"},          {"\"c\": null", "\"c\": tru"},       {"\"c\": null", "\"c\": 01"},
      {"\"c\": null", "\"c\": 1, \"c\": 2"},  {"1e-05", "1e999"},                  {"1e-05", "123456789012345678901"},
      {"\"b\": {", "\"a\": 1, \"b\": {"},     {"-3", "-3.0"},                       {"-3", "\"3\""},
      {"[4, 5, 6]", "[4, 5]"},                {"[4, 5, 6]", "[4, 5, 6.5]"},         {"\"MEAN\"", "\"MEANS\""},
      {"\"roll\": -1", "\"roll\": null"},     {"\"NONE\"", "\"none\""},             {"\"rotation_mode\": \"XYZ\"", "\"rotation_mode\": \"xyz\""},
      {"\"ALIGN_Z_REFERENCE_Z\"", "\"\""},    {"\"ALIGN_Z_REFERENCE_Z\"", "null"},  {"\"ALIGN_Z_REFERENCE_Z\"", "\"ALIGN\""},
      {"\"roll_reference_z\": [0, 0, 1]", "\"roll_reference_z\": null"}, {"\"scale_factor\": 0.1", "\"scale_factor\": 0"},
      {"\"scale_factor\": 0.1", "\"scale_factor\": -1"}, {"\"version\": 110", "\"version\": 100"},
      {"\"version\": 110", "\"version\": 110.0"}, {"\"is_subrig\": false", "\"is_subrig\": 0"},
      {"\"extra_bones\": [\"DEF-x\"]", "\"extra_bones\": [1]"}, {"\"child\": {", "\"root\": {"},
      {"\"rigify\": {}", "\"rigify\": []"},   {"\"constraints\": [", "\"constraints\": {\"x\": ["},
      {"\"parent\": \"root\"", "\"parent\": \"ro\\u006ft\""}, {"\"use_connect\": true", "\"use_connect\": 1"},
      {"\"bones\": {", "\"joints\": {}, \"bones\": {"}, {"\"collections\": [\"Bones\"], \"extra", "\"collections\": \"Bones\", \"extra"},
      {"\"vertex_index\": -3", "\"vertex_index\": -3, \"cube_name\": 7"},
      {"\"roll\": 0.25", "\"roll\": 01.5"}, {"\"roll\": 0.25", "\"roll\": 1."}, {"\"roll\": 0.25", "\"roll\": -0.5e+2"},
      {"\"roll\": 0.25", "\"roll\": 0.0548587265818475389167"}, {"\"roll\": 0.25", "\"roll\": .5"},
      // [x, y, z] arrays in other forms (read on their own cursor): spacing, line breaks, wrong
      // lengths and separators, numbers of every form and non-numbers.
      {"[0, 1, 1]", "[0,1,1]"}, {"[0, 1, 1]", "[ 0 , 1 , 1 ]"}, {"[0, 1, 1]", "[\n  0,\n  1,\n  1\n]"},
      {"[0, 1, 1]", "[\t0,\r\n1,\n\n1 ]"}, {"[0, 1, 1]", "[0, 1]"}, {"[0, 1, 1]", "[0, 1, 1, 2]"},
      {"[0, 1, 1]", "[0, 1, 1,]"}, {"[0, 1, 1]", "[0 1 1]"}, {"[0, 1, 1]", "[0, 1; 1]"}, {"[0, 1, 1]", "[]"},
      {"[0, 1, 1]", "[0, 1, \"1\"]"}, {"[0, 1, 1]", "[0, 1, null]"}, {"[0, 1, 1]", "[0, 1, 1e400]"},
      {"[0, 1, 1]", "[0, 1, 1.]"}, {"[0, 1, 1]", "[0, 1, -]"}, {"[0, 1, 1]", "[0, 1, 12345678901234567890]"},
      {"[0, 1, 1]", "[-0.0, 1.5e-3, 123456789.125]"}, {"[0, 1, 1]", "[0.30000000000000004, -9.999999999999999999, 1E+2]"},
      {"[0, 1, 1]", "[0, 1, 1]]"}, {"[0, 1, 1]", "[0, 1, 1"}, {"[0, 1, 1]", "{0, 1, 1]"},
      // Objects of more than 8 keys (duplicates found through a hash set), with and without a duplicate.
      {"\"b\": {\"c\": null}", "\"b\": {\"k1\": 1, \"k2\": 2, \"k3\": 3, \"k4\": 4, \"k5\": 5, \"k6\": 6, \"k7\": 7, \"k8\": 8, \"k9\": 9, \"k10\": 10}"},
      {"\"b\": {\"c\": null}", "\"b\": {\"k1\": 1, \"k2\": 2, \"k3\": 3, \"k4\": 4, \"k5\": 5, \"k6\": 6, \"k7\": 7, \"k8\": 8, \"k9\": 9, \"k3\": 10}"},
      {"\"b\": {\"c\": null}", "\"b\": {\"a_long_key_1\": 1, \"a_long_key_2\": 2, \"a_long_key_3\": 3, \"a_long_key_4\": 4, \"a_long_key_5\": 5, \"a_long_key_6\": 6, \"a_long_key_7\": 7, \"a_long_key_8\": 8, \"a_long_key_9\": 9, \"a_long_key_1\": 0}"},
      {"\"b\": {\"c\": null}", "\"b\": {\"\": 1, \"x\": 2, \"xx\": 3, \"xxx\": 4, \"xxxx\": 5, \"xxxxx\": 6, \"xxxxxx\": 7, \"xxxxxxx\": 8, \"xxxxxxxx\": 9, \"xxxxxxxxx\": 10}"},
      {"\"b\": {\"c\": null}", "\"b\": {\"\": 1, \"x\": 2, \"xx\": 3, \"xxx\": 4, \"xxxx\": 5, \"xxxxx\": 6, \"xxxxxx\": 7, \"xxxxxxx\": 8, \"xxxxxxxx\": 9, \"\": 10}"},
  };
  for (const auto& [from, to] : edits) {
    std::string t = base;
    const auto p = t.find(from);
    ASSERT_NE(p, std::string::npos) << from;
    t.replace(p, from.size(), to);
    agree(t, "edit " + to);
  }
  // Valid [x, y, z] forms are read by the typed reader itself.
  for (const char* form : {"[0,1,1]", "[ 0 , 1 , 1 ]", "[\n  0,\n  1,\n  1\n]", "[\t0,\r\n1,\n\n1 ]", "[-0.0, 1.5e-3, 123456789.125]",
                           "[0.30000000000000004, -9.999999999999999999, 1E+2]", "[12345678901234567, -0, 5e-324]"}) {
    std::string t = base;
    t.replace(t.find("[0, 1, 1]"), 9, form);
    EXPECT_TRUE(agree(t, form)) << form;
  }
  // A legacy and a version 100 rig with layers take the typed path.
  const std::string v100 = R"({"bones": {"a": {"head": {"strategy": "DEFAULT", "default_position": [0, 0, 0]},
      "tail": {"strategy": "DEFAULT", "default_position": [0, 0, 1]}, "roll": 0, "parent": "", "use_connect": false,
      "use_local_location": true, "use_inherit_rotation": true, "inherit_scale": "FULL", "rigify": {},
      "layers": [true, false, true, false, false, false, false, false, false, false, false, false, false, false, false, false,
                 false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, true]}},
      "collections": ["x"], "version": 100})";
  EXPECT_TRUE(agree(v100, "v100.json"));
  auto typed = parseRig(v100, "v100.json", RigParse::kTyped);
  ASSERT_TRUE(typed.ok());
  EXPECT_EQ(typed->bones[0].collections, (std::vector<std::string>{"Bones", "Layer 3", "Layer 32"}));
  EXPECT_EQ(typed->collections, (std::vector<std::string>{"Bones", "Layer 3", "Layer 32"}));
}

// Many bones: their names are checked for duplicates through a hash set.
TEST(RigTyped, ManyBonesWithADuplicateName) {
  auto rig = [](int n, int repeat) {
    std::string text = "{\"bones\": {";
    for (int b = 0; b < n; ++b) {
      text += (b ? ", \"bone" : "\"bone") + std::to_string(b == n - 1 && repeat >= 0 ? repeat : b) +
              "\": {\"head\": {\"strategy\": \"DEFAULT\", \"default_position\": [0, 0, 0]}, \"tail\": {\"strategy\": \"DEFAULT\", "
              "\"default_position\": [0, 0, 1]}, \"roll\": 0, \"parent\": \"\", \"use_connect\": false, \"use_local_location\": true, "
              "\"use_inherit_rotation\": true, \"inherit_scale\": \"FULL\", \"rigify\": {}}";
    }
    return text + "}, \"version\": 110}";
  };
  EXPECT_TRUE(agree(rig(40, -1), "40 bones"));
  EXPECT_FALSE(agree(rig(40, 17), "40 bones, a duplicate"));
  EXPECT_FALSE(parseRig(rig(40, 17), "dup.json", RigParse::kTyped).ok());
}

// Bones and ends whose keys come in a different order each time, with other spacing around the
// ':' and with duplicates: the reader predicts each key from the previous object's order, and
// must read the same whether or not the prediction holds.
TEST(RigTyped, KeyOrdersSpacingAndDuplicatesAgree) {
  std::mt19937_64 rng(9);
  auto rig = [&](int bones, bool duplicate) {
    std::string text = "{\"bones\": {";
    const int dup_bone = duplicate ? static_cast<int>(rng() % static_cast<unsigned>(bones)) : -1;
    for (int b = 0; b < bones; ++b) {
      auto colon = [&] {
        switch (rng() % 6) {
          case 0: return std::string(" : ");
          case 1: return std::string(":");
          case 2: return std::string(":\n    ");
          default: return std::string(": ");  // the usual form, mostly
        }
      };
      auto object = [&](std::vector<std::pair<std::string, std::string>> members, bool dup) {
        if (rng() % 4) std::shuffle(members.begin(), members.end(), rng);  // else: the last order again, mostly
        if (dup) members.insert(members.begin() + static_cast<std::ptrdiff_t>(rng() % (members.size() + 1)), members[rng() % members.size()]);
        std::string o = "{";
        for (std::size_t i = 0; i < members.size(); ++i) o += (i ? ", \"" : "\"") + members[i].first + "\"" + colon() + members[i].second;
        return o + "}";
      };
      const bool dup_here = b == dup_bone;
      const int dup_where = static_cast<int>(rng() % 3);  // the bone, its head or its tail
      std::vector<std::pair<std::string, std::string>> head = {{"strategy", "\"CUBE\""}, {"cube_name", "\"joint-" + std::to_string(b) + "\""},
                                                               {"default_position", "[0.5, -0.25, 1.125]"}};
      std::vector<std::pair<std::string, std::string>> tail = {{"strategy", "\"MEAN\""}, {"vertex_indices", "[1, 2, " + std::to_string(b) + "]"},
                                                               {"default_position", "[0, 0, 1]"}};
      if (rng() % 3 == 0) tail = {{"strategy", "\"VERTEX\""}, {"vertex_index", std::to_string(b)}, {"offset", "[0.125, 0, 0]"},
                                  {"default_position", "[0, 0.0625, 1]"}};
      std::vector<std::pair<std::string, std::string>> members = {
          {"head", object(head, dup_here && dup_where == 1)}, {"tail", object(tail, dup_here && dup_where == 2)},
          {"roll", "-0.0" + std::to_string(b + 1)}, {"parent", b ? "\"b" + std::to_string(b - 1) + "\"" : "\"\""},
          {"use_connect", "false"}, {"use_local_location", "true"}, {"use_inherit_rotation", "true"}, {"inherit_scale", "\"FULL\""},
          {"rigify", "{}"}, {"collections", "[\"Bones\"]"}, {"rotation_mode", "\"XYZ\""}, {"bendy_bone", "{\"segments\": 2}"}};
      if (rng() % 2) members.emplace_back("custom_key", "[1, {\"a\": null}]");
      text += (b ? ", \"b" : "\"b") + std::to_string(b) + "\": " + object(members, dup_here && dup_where == 0);
    }
    return text + "}, \"collections\": [\"Bones\"], \"version\": 110}";
  };
  for (int i = 0; i < 60; ++i) {
    const std::string text = rig(3 + i % 20, false);
    EXPECT_TRUE(agree(text, "orders " + std::to_string(i))) << text;
    const std::string dup = rig(3 + i % 20, true);
    EXPECT_FALSE(agree(dup, "duplicate " + std::to_string(i))) << dup;
    EXPECT_FALSE(parseRig(dup, "dup.json", RigParse::kTyped).ok());
  }
}

// Random byte changes to a shipped rig: the typed reader accepts exactly what the full reader
// accepts, with the same fields, and otherwise the same error.
TEST(RigTyped, RandomByteChangesAgree) {
  RIGFIT_REQUIRE_SHARED_DATA();
  auto text = readFile(test::sharedData() + "/rigs/standard/rig.openpose.json");
  ASSERT_TRUE(text.ok());
  std::mt19937_64 rng(5);
  const char kBytes[] = {'"', '\\', ',', ':', '[', ']', '{', '}', '0', '9', '-', '.', 'e', ' ', '\n', '\t', 'x', '\x01', '\xc3', '\xff'};
  std::size_t accepted = 0;
  for (int i = 0; i < 400; ++i) {
    std::string t = *text;
    const int changes = 1 + static_cast<int>(rng() % 2);
    for (int c = 0; c < changes; ++c) t[rng() % t.size()] = kBytes[rng() % sizeof kBytes];
    agree(t, "change " + std::to_string(i));
    accepted += parseRig(t, "x", RigParse::kFull).ok();
  }
  EXPECT_GT(accepted, 20u);  // some changes keep the file valid (inside strings, numbers)
}

// Decimals of every length (leading zeros, up to 25 decimals, near 2^53) read bit for bit as the
// full reader reads them (simdjson's DOM parser, correctly rounded).
TEST(RigTyped, DecimalsAgreeBitForBit) {
  std::mt19937_64 rng(7);
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
      return s;
    };
    if (b) text += ", ";
    text += "\"b" + std::to_string(b) + "\": {\"head\": {\"strategy\": \"DEFAULT\", \"default_position\": [" + decimal() + ", " +
            decimal() + ", " + decimal() + "]}, \"tail\": {\"strategy\": \"DEFAULT\", \"default_position\": [" + decimal() +
            ", 9007199254740993.5, 0.9007199254740993]}, \"roll\": " + decimal() +
            ", \"parent\": \"\", \"use_connect\": false, \"use_local_location\": true, \"use_inherit_rotation\": true, "
            "\"inherit_scale\": \"FULL\", \"rigify\": {}}";
  }
  text += "}, \"version\": 110}";
  EXPECT_TRUE(agree(text, "decimals.json"));
}

}  // namespace
}  // namespace rigfit
