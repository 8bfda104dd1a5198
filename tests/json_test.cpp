#include <gtest/gtest.h>

#include "rigfit/json.hpp"

namespace rigfit {
namespace {

TEST(Json, KeepsKeyOrderAndNumberKinds) {
  auto j = parseJson(R"({"b": 1, "a": 1.0, "c": [true, null, "x"]})", "t.json");
  ASSERT_TRUE(j.ok()) << j.error().message;
  ASSERT_EQ(j->members().size(), 3u);
  EXPECT_EQ(j->members()[0].first, "b");
  EXPECT_TRUE(j->find("b")->isInt());
  EXPECT_EQ(j->find("a")->type(), Json::Type::kFloat);
  EXPECT_FALSE(*j->find("a") == *j->find("b"));  // 1 and 1.0 are different values
}

TEST(Json, WritesLikePythonJsonDumpIndent4SortKeys) {
  auto j = parseJson(R"({"b": [1, 2.5, {}], "a": {"z": [], "Y": "\u00e9\"\n"}, "n": 1e-05})", "t.json");
  ASSERT_TRUE(j.ok());
  // json.dumps(obj, indent=4, sort_keys=True) in CPython:
  const char* expected =
      "{\n    \"a\": {\n        \"Y\": \"\\u00e9\\\"\\n\",\n        \"z\": []\n    },\n"
      "    \"b\": [\n        1,\n        2.5,\n        {}\n    ],\n    \"n\": 1e-05\n}";
  EXPECT_EQ(writeJson(*j), expected);
}

TEST(Json, WritesDeepNestingAndOneLineLayouts) {
  // 20 levels: indentation beyond the writer's 64-byte line-break copy.
  Json deep = Json::array();
  deep.push(1);
  for (int k = 0; k < 19; ++k) {
    Json outer = Json::array();
    outer.push(std::move(deep));
    deep = std::move(outer);
  }
  std::string expected;
  for (int k = 0; k < 20; ++k) expected += (k ? "\n" + std::string(4 * static_cast<std::size_t>(k), ' ') : "") + "[";
  expected += "\n" + std::string(80, ' ') + "1";
  for (int k = 19; k >= 0; --k) expected += "\n" + std::string(4 * static_cast<std::size_t>(k), ' ') + "]";
  EXPECT_EQ(writeJson(deep), expected);
  auto j = parseJson(R"({"b": [1, 2.5], "a": {"c": [], "d": {}}, "e": [1, "x"]})", "t.json");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(writeJson(*j, {.indent = -1}), R"({"a": {"c": [], "d": {}}, "b": [1, 2.5], "e": [1, "x"]})");
  EXPECT_EQ(writeJson(*j, {.indent = 2, .sort_keys = false, .inline_numbers = true, .final_newline = true}),
            "{\n  \"b\": [1, 2.5],\n  \"a\": {\n    \"c\": [],\n    \"d\": {}\n  },\n  \"e\": [\n    1,\n    \"x\"\n  ]\n}\n");
}

TEST(Json, AstralCharactersBecomeSurrogatePairs) {
  Json s(std::string("\xF0\x9F\x98\x80"));  // U+1F600
  EXPECT_EQ(writeJson(s), "\"\\ud83d\\ude00\"");
}

TEST(Json, SyntaxErrorNamesLineColumnAndByte) {
  auto j = parseJson("{\n  \"a\": 1,\n  \"b\": tru\n}", "bad.json");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().code, ErrorCode::kSyntax);
  EXPECT_EQ(j.error().message, "bad.json: line 3, column 8 (byte 19): invalid literal");
}

TEST(Json, UnexpectedBytesAreShownByValueNotRaw) {
  // A form feed (or a byte of a multi-byte character) where a value belongs: printed raw it would
  // put a control character or half a character into the one-line message.
  auto ff = parseJson("\x0c\xEF\xBF\xBDgB", "c.json");
  ASSERT_FALSE(ff.ok());
  EXPECT_EQ(ff.error().message, "c.json: line 1, column 1 (byte 0): unexpected byte 0x0C");
  auto utf8 = parseJson("[1, \xC3\xA9]", "u.json");
  ASSERT_FALSE(utf8.ok());
  EXPECT_EQ(utf8.error().message, "u.json: line 1, column 5 (byte 4): unexpected byte 0xC3");
  auto plain = parseJson("[1, x]", "p.json");
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.error().message, "p.json: line 1, column 5 (byte 4): unexpected character 'x'");
}

TEST(Json, TruncatedDocument) {
  auto j = parseJson("{\"a\": [1, 2", "cut.json");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.error().message.find("cut.json: line 1, column 12 (byte 11): unexpected end of file"), std::string::npos)
      << j.error().message;
}

TEST(Json, DuplicateKeysAreAnError) {
  auto j = parseJson(R"({"bones": {"a": 1, "a": 2}})", "dup.json");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.error().message.find("duplicate key \"a\""), std::string::npos) << j.error().message;
}

TEST(Json, PathsForMessages) {
  EXPECT_EQ(jsonPathKey("bones", "upperarm01.L"), "bones[\"upperarm01.L\"]");
  EXPECT_EQ(jsonPathKey("bones[\"a\"]", "head"), "bones[\"a\"].head");
  EXPECT_EQ(jsonPathIndex("x.vertex_indices", 2), "x.vertex_indices[2]");
}

TEST(Json, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  auto j = parseJson(deep, "deep.json");
  EXPECT_FALSE(j.ok());
}

}  // namespace
}  // namespace rigfit
