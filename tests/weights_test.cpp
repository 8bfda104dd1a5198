// Weights files (parse, write, MPFB's rounding), binding to fitted skeletons
// (docs/mpfb-behaviour.md §7.2) and fixed-size influences.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include "rigfit/character.hpp"
#include "rigfit/data.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/number_format.hpp"
#include "rigfit/weights.hpp"
#include "core/file_io.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

const char* kShippedWeights[] = {"cmu_mb", "game_engine", "game_engine_with_breast", "mixamo", "mixamo_unity", "openpose"};

std::string weightsPath(const std::string& name) { return test::sharedData() + "/rigs/standard/weights." + name + ".json"; }

std::string parseError(std::string_view text, std::size_t vertex_count = 0) {
  auto r = parseWeights(text, "w.json", vertex_count);
  if (r.ok()) return "(no error)";
  return r.error().message;
}

ErrorCode parseErrorCode(std::string_view text, std::size_t vertex_count = 0) {
  auto r = parseWeights(text, "w.json", vertex_count);
  EXPECT_FALSE(r.ok());
  return r.ok() ? ErrorCode::kUsage : r.error().code;
}

// ---------------------------------------------------------------------------------------------
// Parsing

TEST(WeightsParse, GroupsPairsAndHeaderInFileOrder) {
  const std::string text = R"({"copyright": "c", "weights": {"b": [[0, 0.5], [2, 1], [7, 0.0]], "a": [], "c": [[3, 1e-05]]},
    "zeta": {"x": [1, 2.5], "a": null}, "version": 110})";
  auto w = parseWeights(text, "w.json");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->label, "w.json");
  EXPECT_FALSE(w->final_newline);
  ASSERT_EQ(w->header.members().size(), 3u);
  EXPECT_EQ(w->header.members()[0].first, "copyright");
  EXPECT_EQ(w->header.members()[1].first, "zeta");
  EXPECT_EQ(w->header.members()[2].first, "version");
  EXPECT_EQ(w->header.members()[0].second, Json("c"));
  EXPECT_EQ(w->header.members()[2].second, Json(110));
  auto zeta = parseJson(R"({"x": [1, 2.5], "a": null})", "z");
  ASSERT_TRUE(zeta.ok());
  EXPECT_EQ(w->header.members()[1].second, *zeta);  // unknown keys kept, nested order and kinds too

  ASSERT_EQ(w->groups.size(), 3u);
  EXPECT_EQ(w->groups[0].name, "b");
  EXPECT_EQ(w->groups[1].name, "a");
  EXPECT_EQ(w->groups[2].name, "c");
  EXPECT_EQ(w->groups[0].vertices, (std::vector<std::int64_t>{0, 2, 7}));
  EXPECT_EQ(w->groups[0].weights, (std::vector<double>{0.5, 1.0, 0.0}));
  EXPECT_EQ(w->groups[0].weight_is_int, (std::vector<std::uint8_t>{0, 1, 0}));  // 1 is an int, 0.0 a float
  EXPECT_TRUE(w->groups[1].vertices.empty());
  EXPECT_TRUE(w->groups[2].weight_is_int.empty());  // no integers: left empty
  EXPECT_EQ(w->groups[2].weights[0], 1e-05);
}

TEST(WeightsParse, FinalNewlineAndMinusZeroAndEscapedNames) {
  auto w = parseWeights("{\"weights\": {\"a\\\"b\\u00e9\": [[-0, -0], [1, -0.0]]}}\n", "w.json");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_TRUE(w->final_newline);
  ASSERT_EQ(w->groups.size(), 1u);
  EXPECT_EQ(w->groups[0].name, "a\"b\xc3\xa9");
  EXPECT_EQ(w->groups[0].vertices, (std::vector<std::int64_t>{0, 1}));  // Python reads -0 as the int 0
  EXPECT_EQ(w->groups[0].weight_is_int, (std::vector<std::uint8_t>{1, 0}));
  EXPECT_TRUE(std::signbit(w->groups[0].weights[1]));  // -0.0 is not negative and writes back as -0.0
  EXPECT_NE(writeWeights(*w).find("-0.0"), std::string::npos);
}

// Weights of every length and form read back as strtod reads them (long fractions take their own
// 8-digits-at-a-time path).
TEST(WeightsParse, NumbersReadExactly) {
  std::vector<std::string> tokens = {"0.12345678", "0.1234567890123456789", "0.12345678901234567890", "0.00000000", "0.000000000000000001",
                                     "0.99999999999999999", "0.9999999999999999999", "0.12345678e-3", "0.12345678E5", "0.5", "0.0",
                                     "0.123456789012345", "1.0", "1", "0", "2.5", "0.1e1", "0.00050000002374872565", "0.1000000000000000055511151231257827",
                                     // simdjson 3.0.1's On-Demand get_double reads these wrongly (issue #2093).
                                     "0.0548587265818475389167", "0.95000000000000000000", "0.12345678901234567890e-2"};
  std::mt19937_64 rng(3);
  for (int i = 0; i < 3000; ++i) {
    const double x = std::ldexp(static_cast<double>(rng() >> 11), -53);
    tokens.push_back(formatPythonFloat(i % 2 ? x : static_cast<double>(static_cast<float>(x))));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", 1 + i % 22, x);
    tokens.push_back(buf);
  }
  std::string text = "{\"weights\": {\"g\": [";
  for (std::size_t i = 0; i < tokens.size(); ++i) text += (i ? ", [" : "[") + std::to_string(i) + (i % 3 ? ",\n" : ",") + tokens[i] + (i % 2 ? "]" : "\n ]");
  text += "], \"h\": [[0, 0.12345678901234567]]}}";
  auto w = parseWeights(text, "w.json");
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_EQ(w->groups[0].weights.size(), tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) EXPECT_EQ(w->groups[0].weights[i], std::strtod(tokens[i].c_str(), nullptr)) << tokens[i];
  EXPECT_EQ(w->groups[1].weights[0], 0.12345678901234567);  // right before "]]}}"
  // A long fraction followed by something that is not JSON is still an error.
  EXPECT_EQ(parseErrorCode(R"({"weights": {"g": [[0, 0.123456789x]]}})"), ErrorCode::kSyntax);
  EXPECT_EQ(parseErrorCode(R"({"weights": {"g": [[0, 0.123456789.5]]}})"), ErrorCode::kSyntax);
}

TEST(WeightsParse, VertexCountBoundsIndices) {
  const std::string text = R"({"weights": {"g": [[9, 0.5]]}})";
  EXPECT_TRUE(parseWeights(text, "w.json", 10).ok());
  EXPECT_TRUE(parseWeights(text, "w.json", 0).ok());  // 0: unchecked
  EXPECT_EQ(parseError(text, 9), "w.json: weights[\"g\"][0][0]: vertex index 9 is out of range for a mesh of 9 vertices");
  EXPECT_EQ(parseErrorCode(text, 9), ErrorCode::kRange);
}

TEST(WeightsParse, SchemaErrorsNameThePathAndTheValue) {
  // The brief's example: the 13th pair of thigh_l.
  std::string pairs;
  for (int i = 0; i < 12; ++i) pairs += "[" + std::to_string(i) + ", 0.5], ";
  EXPECT_EQ(parseError(R"({"weights": {"thigh_l": [)" + pairs + "[12, -0.5]]}}"),
            "w.json: weights[\"thigh_l\"][12][1]: weight is negative (-0.5)");

  const std::pair<const char*, const char*> cases[] = {
      {R"([1])", "w.json: $: expected an object, got an array"},
      {R"("x")", "w.json: $: expected an object, got a string"},
      {R"({"name": "x"})", "w.json: $: missing key \"weights\""},
      {R"({"name": "x", "weights": {}, "name": "y"})", "w.json: $: duplicate key \"name\""},
      {R"({"weights": []})", "w.json: weights: expected an object of groups, got an array"},
      {R"({"weights": {"g": {}}})", "w.json: weights[\"g\"]: expected an array of [vertex, weight] pairs, got an object"},
      {R"({"weights": {"g": null}})", "w.json: weights[\"g\"]: expected an array of [vertex, weight] pairs, got null"},
      {R"({"weights": {"g": [], "h": [], "g": []}})", "w.json: weights[\"g\"]: duplicate group"},
      {R"({"weights": {"g": [1]}})", "w.json: weights[\"g\"][0]: expected a [vertex, weight] pair, got a number"},
      {R"({"weights": {"g": [[0, 1], []]}})", "w.json: weights[\"g\"][1]: expected a [vertex, weight] pair, got 0 elements"},
      {R"({"weights": {"g": [[1]]}})", "w.json: weights[\"g\"][0]: expected a [vertex, weight] pair, got 1 element"},
      {R"({"weights": {"g": [[1, 0.5, 3]]}})", "w.json: weights[\"g\"][0]: expected a [vertex, weight] pair, got more than 2 elements"},
      {R"({"weights": {"g": [[1.5, 0.5]]}})", "w.json: weights[\"g\"][0][0]: vertex index is not an integer (1.5)"},
      {R"({"weights": {"g": [[1e2, 0.5]]}})", "w.json: weights[\"g\"][0][0]: vertex index is not an integer (1e2)"},
      {R"({"weights": {"g": [["1", 0.5]]}})", "w.json: weights[\"g\"][0][0]: vertex index is not an integer (\"1\")"},
      {R"({"weights": {"g": [[[1], 0.5]]}})", "w.json: weights[\"g\"][0][0]: vertex index is not an integer (an array)"},
      {R"({"weights": {"g": [[-1, 0.5]]}})", "w.json: weights[\"g\"][0][0]: vertex index is negative (-1)"},
      {R"({"weights": {"g": [[9223372036854775808, 0.5]]}})",
       "w.json: weights[\"g\"][0][0]: vertex index is out of range (9223372036854775808)"},
      {R"({"weights": {"g": [[123456789012345678901234567890, 0.5]]}})",
       "w.json: weights[\"g\"][0][0]: vertex index is out of range (123456789012345678901234567890)"},
      {R"({"weights": {"g": [[0, -1]]}})", "w.json: weights[\"g\"][0][1]: weight is negative (-1)"},
      {R"({"weights": {"g": [[0, -1e400]]}})", "w.json: weights[\"g\"][0][1]: weight is negative (-1e400)"},
      {R"({"weights": {"g": [[0, "0.5"]]}})", "w.json: weights[\"g\"][0][1]: weight is not a number (\"0.5\")"},
      {R"({"weights": {"g": [[0, null]]}})", "w.json: weights[\"g\"][0][1]: weight is not a number (null)"},
      {R"({"weights": {"g": [[0, true]]}})", "w.json: weights[\"g\"][0][1]: weight is not a number (true)"},
      {R"({"weights": {"g": [[0, {}]]}})", "w.json: weights[\"g\"][0][1]: weight is not a number (an object)"},
      {R"({"weights": {"g": [[0, 1e400]]}})", "w.json: weights[\"g\"][0][1]: weight is not a finite number (1e400)"},
      {R"({"weights": {"g": [[0, 18446744073709551616]]}})",
       "w.json: weights[\"g\"][0][1]: weight is out of range (18446744073709551616)"},
      {R"({"weights": {"g": [[0, 9007199254740993]]}})", "w.json: weights[\"g\"][0][1]: weight is out of range (9007199254740993)"},
      {R"({"weights": {"a b": [[0, -2.5]]}})", "w.json: weights[\"a b\"][0][1]: weight is negative (-2.5)"},
  };
  for (const auto& [text, message] : cases) {
    EXPECT_EQ(parseError(text), message) << text;
    auto r = parseWeights(text, "w.json");
    if (!r.ok()) {
      EXPECT_NE(r.error().code, ErrorCode::kSyntax) << text;
    }
  }
  EXPECT_EQ(parseErrorCode(R"({"weights": {"g": [[-1, 0.5]]}})"), ErrorCode::kSchema);
}

TEST(WeightsParse, SyntaxErrorsNameLineColumnAndByte) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "w.json: line 1, column 1 (byte 0): empty document"},
      {"   \n ", "w.json: line 2, column 2 (byte 5): empty document"},
      {"{\"weights\": {\"g\": [[0, 0.5]}}", "w.json: line 1, column 28 (byte 27): expected ',' or ']'"},
      {"{\"weights\": {\"g\": [[0, 0.5]]}", "w.json: line 1, column 30 (byte 29): unexpected end of file"},
      {"{\"weights\": {}} x", "w.json: line 1, column 17 (byte 16): unexpected text after the document"},
      {"{\"weights\": {}}{}", "w.json: line 1, column 16 (byte 15): unexpected text after the document"},
      {"{\"weights\": {\"g\": [[0, 01]]}}", "w.json: line 1, column 24 (byte 23): leading zero in number"},
      {"{\"weights\": {\"g\": [[0, 1.]]}}", "w.json: line 1, column 26 (byte 25): invalid number"},
      {"{\"weights\": {\"g\": [[0x1, 1]]}}", "w.json: line 1, column 22 (byte 21): expected ',' or ']'"},
      {"{\"x\": tru,\n \"weights\": {}}", "w.json: line 1, column 7 (byte 6): invalid literal"},
      {"{\"x\": [1, 2,], \"weights\": {}}", "w.json: line 1, column 13 (byte 12): unexpected character ']'"},
      {"{\"weights\": {\"g\": [[0, 0.5]]}, \"x\": \"a\\q\"}", "w.json: line 1, column 40 (byte 39): bad escape"},
      {"{\"weights\" {}}", "w.json: line 1, column 12 (byte 11): expected ':'"},
      {"{\"weights\": {\"g\": [[0, NaN]]}}", "w.json: line 1, column 24 (byte 23): unexpected character 'N'"},
  };
  for (const auto& [text, message] : cases) {
    EXPECT_EQ(parseError(text), message) << text;
    auto r = parseWeights(text, "w.json");
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, ErrorCode::kSyntax) << text;
    }
  }
}

TEST(WeightsParse, SyntaxErrorsWinOverValueErrors) {
  // Python's json.load fails before MPFB looks at a value; On-Demand reads lazily, so the whole
  // text is checked before a value error is reported.
  EXPECT_EQ(parseError("{\"weights\": {\"g\": [[-1, 0.5]]}, \"x\": tru}"), "w.json: line 1, column 38 (byte 37): invalid literal");
  EXPECT_EQ(parseError("{\"weights\": {\"g\": [[0, 0.5], [1]]}, \"x\": [}"), "w.json: line 1, column 43 (byte 42): unexpected character '}'");
  // Duplicate keys inside a header value are named at that key.
  EXPECT_EQ(parseError(R"({"x": {"a": 1, "a": 2}, "weights": {}})"), "w.json: x: duplicate key \"a\"");
  EXPECT_EQ(parseErrorCode(R"({"weights": {}, "weights": {}})"), ErrorCode::kSchema);
}

TEST(WeightsParse, TextEndingAtAnUnreadablePage) {
  // The text's last byte is the last byte before a PROT_NONE page: parseWeights copies it rather
  // than let simdjson read past the end.
  const long page = sysconf(_SC_PAGESIZE);
  void* mem = mmap(nullptr, static_cast<std::size_t>(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  ASSERT_EQ(mprotect(static_cast<char*>(mem) + page, static_cast<std::size_t>(page), PROT_NONE), 0);
  for (const std::string& text : {std::string(R"({"weights": {"g": [[0, 0.5], [1, 1]]}})"), std::string(R"({"weights": {"g": [[0, 0.5], [1, 1)"),
                                 std::string(R"({"weights": {"g": [[0, 0.5], [1, 12345)"), std::string(R"({"weights": {"g": [[0, "abc)")}) {
    char* at = static_cast<char*>(mem) + page - static_cast<long>(text.size());
    std::memcpy(at, text.data(), text.size());
    auto w = parseWeights(std::string_view(at, text.size()), "edge.json");
    if (text.back() == '}') {
      ASSERT_TRUE(w.ok()) << w.error().message;
      EXPECT_EQ(w->groups[0].weights, (std::vector<double>{0.5, 1.0}));
    } else {
      EXPECT_FALSE(w.ok());
    }
  }
  munmap(mem, static_cast<std::size_t>(2 * page));
}

TEST(WeightsParse, ReadErrors) {
  auto w = readWeights("/nonexistent/weights.json");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code, ErrorCode::kIo);
  EXPECT_EQ(w.error().message.rfind("/nonexistent/weights.json: ", 0), 0u);
}

TEST(WeightsParse, HostileInputNeverCrashes) {
  // Deep nesting in the header, inside a group and inside a pair.
  const std::string deep(5000, '[');
  EXPECT_EQ(parseError("{\"x\": " + deep + "}"), "w.json: line 1, column 1030 (byte 1029): nesting deeper than 1024");
  EXPECT_NE(parseError("{\"weights\": {\"g\": " + deep), "(no error)");
  EXPECT_NE(parseError("{\"weights\": {\"g\": [[0, " + deep + std::string(5000, ']') + "]]}}"), "(no error)");
  EXPECT_NE(parseError("{\"weights\": {\"g\": [" + deep + std::string(5000, ']') + "]}}"), "(no error)");
  // Huge numbers, odd bytes, invalid UTF-8.
  EXPECT_NE(parseError("{\"weights\": {\"g\": [[0, 1" + std::string(100000, '0') + "]]}}"), "(no error)");
  EXPECT_NE(parseError("{\"weights\": {\"g\": [[0, 0." + std::string(100000, '1') + "e99999999999]]}}"), "(no error)");
  EXPECT_NE(parseError(std::string("{\"weights\": {\"\xff\": []}}")), "(no error)");
  EXPECT_EQ(parseError(std::string("{\"weights\": {\"g\": []}}\0", 23)),
            "w.json: line 1, column 23 (byte 22): unexpected text after the document");
  EXPECT_EQ(parseErrorCode(std::string("{\"weights\": {\"\xc3\": []}}")), ErrorCode::kSyntax);

  // Every prefix of a small file is an error (or, for the whole text, fine); no crash.
  const std::string text = R"({"copyright": "c", "weights": {"b": [[0, 0.5], [2, 1]], "a": []}, "version": 110})";
  for (std::size_t n = 0; n < text.size(); ++n) {
    auto r = parseWeights(std::string_view(text).substr(0, n), "w.json");
    EXPECT_FALSE(r.ok()) << n;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, ErrorCode::kSyntax) << n << ": " << r.error().message;
    }
  }
  // Random byte flips.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string t = text;
    const int flips = 1 + trial % 3;
    for (int f = 0; f < flips; ++f) t[rng() % t.size()] = static_cast<char>(rng() % 256);
    auto r = parseWeights(t, "w.json");
    if (r.ok()) {
      // Whatever was accepted writes and reads back.
      auto again = parseWeights(writeWeights(*r), "w.json");
      EXPECT_TRUE(again.ok()) << t;
    } else {
      EXPECT_EQ(r.error().message.rfind("w.json: ", 0), 0u) << r.error().message;
      EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
    }
  }
}

TEST(WeightsParse, TruncatedShippedFileIsASyntaxError) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::string text = test::readText(weightsPath("game_engine"));
  ASSERT_GT(text.size(), 100000u);
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{99999}, text.size() - 1}) {
    auto r = parseWeights(std::string_view(text).substr(0, n), "weights.game_engine.json");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::kSyntax);
    EXPECT_EQ(r.error().message.rfind("weights.game_engine.json: line ", 0), 0u) << r.error().message;
  }
}

TEST(WeightsParse, ShippedFilesInPlaceAndCopied) {
  RIGFIT_REQUIRE_SHARED_DATA();
  for (const char* name : kShippedWeights) {
    const std::string path = weightsPath(name);
    auto file = loadFile(path);
    ASSERT_TRUE(file.ok()) << name;
    ASSERT_TRUE(file->padded());
    auto in_place = parseWeights(*file, name, 19158);  // the loaded bytes, read where they are
    ASSERT_TRUE(in_place.ok()) << in_place.error().message;
    auto copied = parseWeights(file->text(), name, 19158);
    ASSERT_TRUE(copied.ok()) << copied.error().message;
    EXPECT_EQ(writeWeights(*in_place), writeWeights(*copied)) << name;
    // Indices beyond a mesh of 100 vertices: the first one is named.
    auto small = parseWeights(*file, name, 100);
    ASSERT_FALSE(small.ok());
    EXPECT_EQ(small.error().code, ErrorCode::kRange);
    EXPECT_NE(small.error().message.find("is out of range for a mesh of 100 vertices"), std::string::npos) << small.error().message;
  }
}

// One value of a small file changed at a time: the value read, or the message of the first problem.
TEST(WeightsParse, EditsOfASmallFile) {
  const std::string base = "{\"copyright\": \"c\", \"version\": 110, \"list\": [1, {\"a\": null}], \"weights\": {\n"
                           "    \"a\": [\n        [\n            0,\n            0.5\n        ],\n        [\n            12,\n"
                           "            1\n        ],\n        [7, 0.000123456789012345678]\n    ],\n    \"b\": [],\n"
                           "    \"c\": [[3, 1e-05], [4, 0], [5, 2.5E+1]]\n}}\n";
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string t = base;
    const auto p = t.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    if (p != std::string::npos) t.replace(p, from.size(), to);
    return t;
  };
  const std::pair<std::pair<const char*, const char*>, const char*> rejected[] = {
      {{"0.5", "-0.5"}, "w.json: weights[\"a\"][0][1]: weight is negative (-0.5)"},
      {{"0.5", "0.5x"}, "w.json: line 5, column 16 (byte 125): expected ',' or ']'"},
      {{"0.5", "0.5.5"}, "w.json: line 5, column 16 (byte 125): expected ',' or ']'"},
      {{"0.5", "05"}, "w.json: line 5, column 13 (byte 122): leading zero in number"},
      {{"0.5", ".5"}, "w.json: line 5, column 13 (byte 122): unexpected character '.'"},
      {{"0.5", "1."}, "w.json: line 5, column 15 (byte 124): invalid number"},
      {{"0.5", "9007199254740992"}, "w.json: weights[\"a\"][0][1]: weight is out of range (9007199254740992)"},
      {{"0.5", "0.5, 1"}, "w.json: weights[\"a\"][0]: expected a [vertex, weight] pair, got more than 2 elements"},
      {{"0.5", "-9007199254740993"}, "w.json: weights[\"a\"][0][1]: weight is negative (-9007199254740993)"},
      {{"0.5", "9223372036854775808"}, "w.json: weights[\"a\"][0][1]: weight is out of range (9223372036854775808)"},
      {{"0.5", "-9223372036854775809"}, "w.json: weights[\"a\"][0][1]: weight is negative (-9223372036854775809)"},
      {{"12,", "1.0,"}, "w.json: weights[\"a\"][1][0]: vertex index is not an integer (1.0)"},
      {{"12,", "012,"}, "w.json: line 8, column 13 (byte 159): leading zero in number"},
      {{"12,", "18446744073709551615,"}, "w.json: weights[\"a\"][1][0]: vertex index is out of range (18446744073709551615)"},
      {{"12,", "-9223372036854775809,"}, "w.json: weights[\"a\"][1][0]: vertex index is negative (-9223372036854775809)"},
      {{"12,", "true,"}, "w.json: weights[\"a\"][1][0]: vertex index is not an integer (true)"},
      {{"12,", "{},"}, "w.json: weights[\"a\"][1][0]: vertex index is not an integer (an object)"},
      {{"12,", "1e400,"}, "w.json: weights[\"a\"][1][0]: vertex index is not an integer (1e400)"},
      {{"\"b\": []", "\"b\": [[1, 2, ]]"}, "w.json: line 13, column 18 (byte 249): unexpected character ']'"},
      {{"\"b\": []", "\"b\": [[1, 2]"}, "w.json: line 14, column 8 (byte 257): expected ',' or ']'"},
      {{"\"b\": []", "\"b\t\": []"}, "w.json: line 13, column 7 (byte 238): control character in string"},
      {{"\"list\": [1,", "\"list\": [1 2,"}, "w.json: line 1, column 47 (byte 46): expected ',' or ']'"},
      {{"{\"a\": null}", "{\"a\": null, \"a\": 1}"}, "w.json: list: duplicate key \"a\""},
      {{"}}\n", "}"}, "w.json: line 15, column 2 (byte 289): unexpected end of file"},
  };
  for (const auto& [change, message] : rejected) EXPECT_EQ(parseError(edit(change.first, change.second)), message) << change.second;
  // Accepted: the weight as Python reads it (and whether it is an int).
  const std::tuple<const char*, double, bool> weights[] = {
      {"-0.0", -0.0, false}, {"-0", 0.0, true}, {"1e-400", 0.0, false}, {"2e-324", 0.0, false}, {"1E5", 1e5, false},
      {"900719925474099", 900719925474099.0, true}, {"123456789012345678901234.5", 123456789012345678901234.5, false},
      {"0.1000000000000000055511151231257827", 0.1, false}, {"0.0548587265818475389167", 0.0548587265818475389167, false}};
  for (const auto& [token, value, is_int] : weights) {
    auto w = parseWeights(edit("0.5", token), "w.json");
    ASSERT_TRUE(w.ok()) << token << ": " << w.error().message;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(w->groups[0].weights[0]), std::bit_cast<std::uint64_t>(value)) << token;
    EXPECT_EQ(!w->groups[0].weight_is_int.empty() && w->groups[0].weight_is_int[0], is_int) << token;
  }
  auto minus_zero = parseWeights(edit("12,", "-0,"), "w.json");
  ASSERT_TRUE(minus_zero.ok());
  EXPECT_EQ(minus_zero->groups[0].vertices[1], 0);
  auto escaped = parseWeights(edit("\"b\": []", "\"b\\u0041\": []"), "w.json");
  ASSERT_TRUE(escaped.ok());
  EXPECT_EQ(escaped->groups[1].name, "bA");
  EXPECT_TRUE(parseWeights(edit("12,", "13379,"), "w.json", 13380).ok());
  EXPECT_EQ(parseError(edit("12,", "13380,"), 13380), "w.json: weights[\"a\"][1][0]: vertex index 13380 is out of range for a mesh of 13380 vertices");
  // Every prefix is a syntax error.
  for (std::size_t n = 0; n < base.size() - 1; ++n) EXPECT_EQ(parseErrorCode(base.substr(0, n)), ErrorCode::kSyntax) << n;
}

// The bytes after the text are not part of it, whatever they are: a text missing its last '}'
// stays an error even when the next bytes in memory would complete it.
TEST(WeightsParse, BytesAfterTheTextAreNotRead) {
  const std::string text = "{\"weights\": {\"a\": [[0, 0.5]]}";
  for (const std::string& after : std::vector<std::string>{"}", ", \"b\": []}}", std::string(100, ' ') + "}", "}" + std::string(100, ' ')}) {
    const std::string buffer = text + after;
    EXPECT_EQ(parseErrorCode(std::string_view(buffer).substr(0, text.size())), ErrorCode::kSyntax) << after;
  }
}

// Numbers of every form (integers, decimals of up to 32 digits, exponents) read as strtod reads them.
TEST(WeightsParse, NumbersOfEveryFormReadExactly) {
  std::mt19937_64 rng(11);
  std::vector<std::string> tokens;
  std::string text = "{\"weights\": {\"g\": [";
  for (int i = 0; i < 4000; ++i) {
    std::string s = std::to_string(rng() % 3);
    if (rng() % 4) {
      s += ".";
      s += std::string(rng() % 8, '0');
      for (int k = 0, n = 1 + static_cast<int>(rng() % 24); k < n; ++k) s += static_cast<char>('0' + rng() % 10);
    }
    if (rng() % 5 == 0) s += (rng() % 2 ? "e-" : "E") + std::to_string(rng() % 40);
    tokens.push_back(s);
    text += (i ? ", [" : "[") + std::to_string(i) + ", " + s + "]";
  }
  text += "]}}";
  auto w = parseWeights(text, "w.json");
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_EQ(w->groups[0].weights.size(), tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint64_t>(w->groups[0].weights[i]), std::bit_cast<std::uint64_t>(std::strtod(tokens[i].c_str(), nullptr))) << tokens[i];
}

// ---------------------------------------------------------------------------------------------
// Writing

TEST(WeightsWrite, PythonJsonDumpLayout) {
  auto w = parseWeights(R"({"weights": {"b": [[0, 0.5], [2, 1]], "a": [], "Z\u00e9": [[1, 1e-05]]}, "copyright": "c",
      "zeta": {"x": [1, 2.5], "a": "\u00e9"}, "version": 110})",
                        "w.json");
  ASSERT_TRUE(w.ok()) << w.error().message;
  // python3 -c 'import json; print(repr(json.dumps(d, indent=4, sort_keys=True)))'
  const std::string expected =
      "{\n    \"copyright\": \"c\",\n    \"version\": 110,\n    \"weights\": {\n        \"Z\\u00e9\": [\n            [\n"
      "                1,\n                1e-05\n            ]\n        ],\n        \"a\": [],\n        \"b\": [\n"
      "            [\n                0,\n                0.5\n            ],\n            [\n                2,\n"
      "                1\n            ]\n        ]\n    },\n    \"zeta\": {\n        \"a\": \"\\u00e9\",\n        \"x\": [\n"
      "            1,\n            2.5\n        ]\n    }\n}";
  EXPECT_EQ(writeWeights(*w), expected);
  w->final_newline = true;
  EXPECT_EQ(writeWeights(*w), expected + "\n");
}

TEST(WeightsWrite, EmptyFileAndHandBuiltGroups) {
  WeightsFile f;
  EXPECT_EQ(writeWeights(f), "{\n    \"weights\": {}\n}");
  f.groups.push_back({"g", {3, 1}, {1.0, 0.25}, {}});
  f.groups.push_back({"a", {}, {}, {}});
  EXPECT_EQ(writeWeights(f),
            "{\n    \"weights\": {\n        \"a\": [],\n        \"g\": [\n            [\n                3,\n                1.0\n"
            "            ],\n            [\n                1,\n                0.25\n            ]\n        ]\n    }\n}");
}

// The fast pair writer agrees with rigfit's general Python-compatible JSON writer on every kind
// of double (fixed and exponent forms, subnormals, the 1e16 boundary, integers).
TEST(WeightsWrite, FloatsMatchTheGeneralJsonWriter) {
  std::mt19937_64 rng(42);
  WeightsFile f;
  WeightsFile::Group& g = f.groups.emplace_back();
  g.name = "g";
  const double specials[] = {0.0, -0.0, 1.0, 0.1, 1e-5, 1e-4, 9.999999e-5, 0.0001, 1e16, 1e15, 9999999999999998.0, 1.5e16, 1e17,
                             123456789.125, 5e-324, 1.7976931348623157e308, 2.2250738585072014e-308, 0.30000000000000004, 1e22, 1e-7,
                             0.00015, 0.99999, 0.999995, 0.9999999999999999, 0.12345, 0.5, 1e-05, 9e-05, 0.00011, -0.25, -1e-7,
                             -0.99999, 1.5, 2.0, 123.0, 0.9999992251396179, 0.0005000000237487257, 1.0000001192092896, 99999.5};
  for (double s : specials) {
    g.vertices.push_back(static_cast<std::int64_t>(g.vertices.size()));
    g.weights.push_back(s);
  }
  std::uniform_int_distribution<int> expo(-330, 310);
  for (int i = 0; i < 20000; ++i) {
    double w = 0;
    switch (i % 4) {
      case 0: w = std::ldexp(static_cast<double>(rng() >> 11), -53); break;                 // [0, 1)
      case 1: w = static_cast<double>(static_cast<float>(std::ldexp(static_cast<double>(rng() >> 11), -53))); break;  // float32
      case 2: w = std::pow(10.0, expo(rng)) * static_cast<double>(rng() % 1000) / 7.0; break;
      case 3: w = roundPython(std::ldexp(static_cast<double>(rng() >> 11), -53), 5); break;
    }
    if (!std::isfinite(w)) w = 1.0;
    g.vertices.push_back(static_cast<std::int64_t>(rng() % 1000000000000ull));
    g.weights.push_back(w);
  }
  Json doc = Json::object();
  Json pairs = Json::array();
  for (std::size_t i = 0; i < g.vertices.size(); ++i) {
    Json pair = Json::array();
    pair.push(Json(g.vertices[i]));
    pair.push(Json(g.weights[i]));
    pairs.push(std::move(pair));
  }
  Json groups = Json::object();
  groups.set("g", std::move(pairs));
  doc.set("weights", std::move(groups));
  EXPECT_EQ(writeWeights(f), writeJson(doc));
}

TEST(WeightsRoundTrip, ShippedFilesAreByteIdentical) {
  RIGFIT_REQUIRE_SHARED_DATA();
  for (const char* name : kShippedWeights) {
    const std::string path = weightsPath(name);
    const std::string text = test::readText(path);
    auto w = readWeights(path, 19158);
    ASSERT_TRUE(w.ok()) << w.error().message;
    EXPECT_FALSE(w->final_newline) << name;  // MPFB's json.dump writes no final newline
    auto from_text = parseWeights(text, path);
    ASSERT_TRUE(from_text.ok());
    EXPECT_EQ(from_text->groups.size(), w->groups.size());
    const std::string written = writeWeights(*w);
    if (std::string_view(name) != "mixamo_unity") {
      EXPECT_TRUE(written == text) << name << ": load -> write differs";
      continue;
    }
    // mixamo_unity's groups and keys are not sorted: the same content, sorted, which is
    // what json.dump(sort_keys=True) of the loaded file gives.
    EXPECT_NE(written, text);
    auto reference = parseJson(text, path);
    ASSERT_TRUE(reference.ok());
    EXPECT_TRUE(written == writeJson(*reference)) << "mixamo_unity: not Python's sorted dump";
    auto reread = parseWeights(written, "written");
    ASSERT_TRUE(reread.ok());
    std::map<std::string, const WeightsFile::Group*> before;
    for (const auto& g : w->groups) before[g.name] = &g;
    ASSERT_EQ(reread->groups.size(), before.size());
    for (std::size_t k = 0; k < reread->groups.size(); ++k) {
      const auto& g = reread->groups[k];
      if (k) { EXPECT_LT(reread->groups[k - 1].name, g.name); }
      ASSERT_TRUE(before.count(g.name)) << g.name;
      EXPECT_EQ(g.vertices, before[g.name]->vertices);
      EXPECT_EQ(g.weights, before[g.name]->weights);
      EXPECT_EQ(g.weight_is_int, before[g.name]->weight_is_int);
    }
    EXPECT_EQ(reread->header, w->header);
  }
}

TEST(WeightsRoundTrip, ShippedFilesFacts) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::map<std::string, std::pair<std::size_t, std::size_t>> groups_and_ints = {
      {"cmu_mb", {31, 0}}, {"game_engine", {53, 0}}, {"game_engine_with_breast", {55, 0}},
      {"mixamo", {52, 6260}}, {"mixamo_unity", {64, 0}}, {"openpose", {24, 7549}}};
  for (const auto& [name, expect] : groups_and_ints) {
    auto w = readWeights(weightsPath(name));
    ASSERT_TRUE(w.ok()) << w.error().message;
    EXPECT_EQ(w->groups.size(), expect.first) << name;
    std::size_t ints = 0;
    for (const auto& g : w->groups)
      for (std::uint8_t b : g.weight_is_int) ints += b;
    EXPECT_EQ(ints, expect.second) << name;
    EXPECT_EQ(w->header.find("version")->asInt(), 110);
    EXPECT_EQ(w->header.find("license")->asString(), "CC0");
  }
}

TEST(WeightsWrite, MpfbRoundingOnCraftedWeights) {
  // Python: w = max(0, min(1, round(float32(w), 5) + 0)); kept if w >= 0.0001.
  auto w = parseWeights(R"({"weights": {"g": [[0, 0.123455], [1, 5e-05], [2, 9.5e-05], [3, 0.99999999], [4, 0.999996],
      [5, 1.0], [6, 1.5], [7, 0.5], [8, 0.000149], [9, 0.002675], [10, 0.1], [11, 0], [12, 1], [13, 0.0]]}})",
                        "w.json");
  ASSERT_TRUE(w.ok()) << w.error().message;
  const std::string out = writeWeights(*w, {.mpfb_rounding = true});
  auto back = parseWeights(out, "out");
  ASSERT_TRUE(back.ok()) << out;
  const auto& g = back->groups[0];
  EXPECT_EQ(g.vertices, (std::vector<std::int64_t>{0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12}));
  EXPECT_EQ(g.weights, (std::vector<double>{0.12346, 0.0001, 1, 1, 1, 1, 0.5, 0.00015, 0.00268, 0.1, 1}));
  // min(1, x) keeps Python's int 1 when x >= 1.
  EXPECT_EQ(g.weight_is_int, (std::vector<std::uint8_t>{0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1}));
  // Without the option nothing changes.
  EXPECT_EQ(parseWeights(writeWeights(*w), "x")->groups[0].weights, w->groups[0].weights);
}

TEST(WeightsWrite, MpfbRoundingMatchesPythonRoundOnRandomFloats) {
  std::mt19937 rng(11);
  WeightsFile f;
  WeightsFile::Group& g = f.groups.emplace_back();
  g.name = "g";
  for (int i = 0; i < 50000; ++i) {
    // Uniform float32 in [0, 1.2) and values on the 5-decimal half-way points (ties to even).
    const float x = i % 3 ? static_cast<float>(rng() % 12000000) / 1e7f : static_cast<float>(static_cast<double>(rng() % 100000) / 1e5 + 5e-6);
    g.vertices.push_back(i);
    g.weights.push_back(x);
  }
  auto back = parseWeights(writeWeights(f, {.mpfb_rounding = true}), "r");
  ASSERT_TRUE(back.ok());
  std::vector<double> expected;
  for (double x : g.weights) {
    const double r = std::min(1.0, roundPython(static_cast<float>(x), 5));
    if (r >= 0.0001) expected.push_back(r);
  }
  EXPECT_EQ(back->groups[0].weights, expected);
}

TEST(WeightsWrite, MpfbRoundingOnShippedFiles) {
  RIGFIT_REQUIRE_SHARED_DATA();
  // mixamo and openpose were saved by the current saver: rounding again changes nothing.
  for (const char* name : {"mixamo", "openpose"}) {
    const std::string text = test::readText(weightsPath(name));
    auto w = parseWeights(text, name);
    ASSERT_TRUE(w.ok());
    EXPECT_TRUE(writeWeights(*w, {.mpfb_rounding = true}) == text) << name;
  }
  // game_engine has full float32 digits: every weight becomes a 5-decimal value >= 1e-4.
  auto w = readWeights(weightsPath("game_engine"));
  ASSERT_TRUE(w.ok());
  auto rounded = parseWeights(writeWeights(*w, {.mpfb_rounding = true}), "rounded");
  ASSERT_TRUE(rounded.ok());
  ASSERT_EQ(rounded->groups.size(), w->groups.size());
  std::size_t before = 0, after = 0, expected_after = 0;
  for (std::size_t k = 0; k < w->groups.size(); ++k) {
    before += w->groups[k].weights.size();
    after += rounded->groups[k].weights.size();
    std::vector<double> expected;  // Python: max(0, min(1, round(float32(x), 5))), kept if >= 1e-4
    for (double x : w->groups[k].weights) {
      const double r = std::min(1.0, roundPython(static_cast<float>(x), 5));
      if (r >= 0.0001) expected.push_back(r);
    }
    expected_after += expected.size();
    EXPECT_EQ(rounded->groups[k].weights, expected) << w->groups[k].name;
    for (double x : rounded->groups[k].weights) {
      EXPECT_GE(x, 0.0001);
      EXPECT_LE(x, 1.0);
      EXPECT_EQ(roundPython(x, 5), x);
    }
  }
  EXPECT_EQ(after, expected_after);
  EXPECT_EQ(after, before);  // the old saver already dropped weights <= 1e-4; 5 decimals keep them
}

// ---------------------------------------------------------------------------------------------
// Binding

struct Fitted {
  RigDefinition rig;
  Skeleton skeleton;
};

class SkinBind : public ::testing::Test {
 protected:
  static const Mesh* mesh() {
    static std::optional<Mesh> m;
    static std::optional<VertexGroups> g;
    if (!m) {
      const DataSource data = DataSource::folder(test::sharedData());
      auto mm = loadBaseMesh(data);
      if (!mm) return nullptr;
      m = std::move(*mm);
      auto gg = loadVertexGroups(data, m->vertexCount());
      if (!gg) return nullptr;
      g = std::move(*gg);
      groups_ = &*g;
    }
    return &*m;
  }
  static const Fitted& fitted(const std::string& name) {
    static std::map<std::string, Fitted> cache;
    auto it = cache.find(name);
    if (it != cache.end()) return it->second;
    Fitted f;
    const DataSource data = DataSource::folder(test::sharedData());
    const Mesh* m = mesh();
    EXPECT_NE(m, nullptr);
    auto where = locateRig(data, name);
    EXPECT_TRUE(where.ok());
    auto rig = loadRig(data, *where);
    EXPECT_TRUE(rig.ok());
    auto fit = fitRig(*rig, *m, *groups_);
    EXPECT_TRUE(fit.ok()) << (fit.ok() ? "" : fit.error().message);
    f.rig = std::move(*rig);
    f.skeleton = std::move(fit->skeleton);
    return cache.emplace(name, std::move(f)).first->second;
  }
  static void checkSkinInvariants(const Skin& skin) {
    ASSERT_EQ(skin.offsets.size(), skin.vertex_count + 1);
    ASSERT_EQ(skin.bones.size(), skin.weights.size());
    EXPECT_EQ(skin.offsets.front(), 0u);
    EXPECT_EQ(skin.offsets.back(), skin.bones.size());
    for (std::size_t v = 0; v < skin.vertex_count; ++v) {
      ASSERT_LE(skin.offsets[v], skin.offsets[v + 1]);
      std::set<std::uint16_t> seen;
      for (std::size_t i = skin.offsets[v]; i < skin.offsets[v + 1]; ++i) {
        EXPECT_LT(skin.bones[i], skin.bone_count);
        EXPECT_GT(skin.weights[i], 0.0f);
        EXPECT_LE(skin.weights[i], 1.0f);
        EXPECT_TRUE(seen.insert(skin.bones[i]).second) << "bone twice at vertex " << v;
        if (i > skin.offsets[v]) {
          const bool ordered = skin.weights[i - 1] > skin.weights[i] ||
                               (skin.weights[i - 1] == skin.weights[i] && skin.bones[i - 1] < skin.bones[i]);
          EXPECT_TRUE(ordered) << "vertex " << v;
        }
      }
    }
  }
  static inline const VertexGroups* groups_ = nullptr;
};

constexpr std::size_t kBaseVertices = 19158;

TEST_F(SkinBind, ShippedRigsMapEveryGroup) {
  RIGFIT_REQUIRE_SHARED_DATA();
  struct Case {
    const char* rig;
    std::size_t groups, max_influences, weighted_vertices;
    std::vector<std::string> unweighted;
  };
  const Case cases[] = {
      {"game_engine", 53, 7, 19158, {"Root"}},
      {"game_engine_with_breast", 55, 7, 19158, {"Root"}},
      {"cmu_mb", 31, 8, 19158, {}},
      {"mixamo", 52, 6, 19158, {}},
      {"mixamo_unity", 64, 7, 19158, {"mixamorig:Root"}},
      {"openpose", 24, 5, 19150, {"LSmallToe", "RSmallToe"}},  // openpose covers 19150 vertices; its small-toe groups are empty
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.rig);
    const Fitted& f = fitted(c.rig);
    auto w = readWeights(weightsPath(c.rig), kBaseVertices);
    ASSERT_TRUE(w.ok()) << w.error().message;
    WeightsBinding binding;
    auto skin = bindWeights(*w, f.skeleton, f.rig, kBaseVertices, &binding);
    ASSERT_TRUE(skin.ok()) << skin.error().message;
    EXPECT_EQ(binding.matches.size(), c.groups);
    EXPECT_TRUE(binding.unmapped.empty()) << binding.unmapped.front();
    EXPECT_TRUE(binding.extra.empty());
    EXPECT_TRUE(binding.masks.empty());
    EXPECT_EQ(binding.unweighted_bones, c.unweighted);
    for (const auto& m : binding.matches) EXPECT_EQ(m.group, m.bone);  // exact names throughout
    EXPECT_EQ(skin->vertex_count, kBaseVertices);
    EXPECT_EQ(skin->bone_count, f.skeleton.size());
    EXPECT_EQ(skin->maxInfluences(), c.max_influences);
    std::size_t weighted = 0;
    for (std::size_t v = 0; v < kBaseVertices; ++v) weighted += skin->influenceCount(v) > 0;
    EXPECT_EQ(weighted, c.weighted_vertices);
    checkSkinInvariants(*skin);
    // The skin holds what Blender's float32 vertex groups hold after MPFB's ADD of every pair
    // (mixamo_unity has repeated pairs and 0.0 weights).
    std::map<std::pair<int, std::int64_t>, float> groups;
    for (const auto& g : w->groups) {
      const int b = f.skeleton.find(g.name);
      ASSERT_GE(b, 0);
      for (std::size_t i = 0; i < g.vertices.size(); ++i) {
        float& acc = groups[{b, g.vertices[i]}];
        acc = std::min(1.0f, acc + static_cast<float>(g.weights[i]));
      }
    }
    std::size_t nonzero = 0;
    for (const auto& [key, weight] : groups) {
      const auto v = static_cast<std::size_t>(key.second);
      bool found = false;
      for (std::size_t k = skin->offsets[v]; k < skin->offsets[v + 1]; ++k)
        if (skin->bones[k] == key.first) {
          EXPECT_EQ(skin->weights[k], weight);
          found = true;
        }
      EXPECT_EQ(found, weight > 0.0f);
      nonzero += weight > 0.0f;
    }
    EXPECT_EQ(skin->bones.size(), nonzero);
  }
}

TEST_F(SkinBind, GameEngineNumbers) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Fitted& f = fitted("game_engine");
  auto w = readWeights(weightsPath("game_engine"));
  ASSERT_TRUE(w.ok());
  auto skin = bindWeights(*w, f.skeleton, f.rig, kBaseVertices);
  ASSERT_TRUE(skin.ok());
  EXPECT_EQ(skin->bones.size(), 36416u);
  std::map<std::size_t, std::size_t> histogram;
  double lo = 2, hi = 0;
  for (std::size_t v = 0; v < kBaseVertices; ++v) {
    ++histogram[skin->influenceCount(v)];
    double sum = 0;
    for (std::size_t k = skin->offsets[v]; k < skin->offsets[v + 1]; ++k) sum += skin->weights[k];
    lo = std::min(lo, sum);
    hi = std::max(hi, sum);
  }
  const std::map<std::size_t, std::size_t> expected = {{1, 9369}, {2, 5586}, {3, 1941}, {4, 1281}, {5, 962}, {6, 15}, {7, 4}};
  EXPECT_EQ(histogram, expected);
  EXPECT_GT(lo, 0.99989);  // §7.1: sums 0.9999 - 1.0000002
  EXPECT_LT(hi, 1.0000003);
}

TEST_F(SkinBind, GroupsMappedToOneBoneAddWithClamping) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Fitted& f = fitted("game_engine");
  // "DEF-upperarm_l" reaches upperarm_l with DEF- stripped; it comes first in the file, but
  // both add up in the same vertex group.
  auto w = parseWeights(R"({"weights": {
      "DEF-upperarm_l": [[0, 0.5], [1, 0.5], [2, 0.3], [3, 0], [4, 0.0], [7, 0.2], [8, 0.5]],
      "upperarm_l": [[0, 0.25], [1, 0.75], [3, 0], [4, 0.6], [5, 0.7], [5, 0.7], [6, 0.5], [7, 0.1], [10, 1.5]],
      "thigh_l": [[6, 0.5], [8, 0.25]],
      "nothing_here": [[9, 1]],
      "mhmask-preserve-volume": [[2, 0.5], [2, 0.75], [9, 0.25]]
  }})",
                        "crafted.json", kBaseVertices);
  ASSERT_TRUE(w.ok()) << w.error().message;
  WeightsBinding binding;
  auto skin = bindWeights(*w, f.skeleton, f.rig, kBaseVertices, &binding);
  ASSERT_TRUE(skin.ok()) << skin.error().message;
  const int arm = f.skeleton.find("upperarm_l");
  const int thigh = f.skeleton.find("thigh_l");
  ASSERT_GE(arm, 0);
  ASSERT_GE(thigh, 0);
  ASSERT_EQ(binding.matches.size(), 3u);
  EXPECT_EQ(binding.matches[0].group, "DEF-upperarm_l");
  EXPECT_EQ(binding.matches[0].bone, "upperarm_l");
  EXPECT_EQ(binding.matches[1].bone, "upperarm_l");
  EXPECT_EQ(binding.unmapped, std::vector<std::string>{"nothing_here"});
  EXPECT_EQ(binding.masks, std::vector<std::string>{"mhmask-preserve-volume"});
  EXPECT_EQ(binding.unweighted_bones.size(), f.skeleton.size() - 2);

  auto influences = [&](std::size_t v) {
    std::vector<std::pair<int, float>> out;
    for (std::size_t k = skin->offsets[v]; k < skin->offsets[v + 1]; ++k) out.emplace_back(skin->bones[k], skin->weights[k]);
    return out;
  };
  using P = std::vector<std::pair<int, float>>;
  EXPECT_EQ(influences(0), (P{{arm, 0.75f}}));
  EXPECT_EQ(influences(1), (P{{arm, 1.0f}}));  // 0.5 + 0.75 clamped
  EXPECT_EQ(influences(2), (P{{arm, 0.3f}}));
  EXPECT_EQ(influences(3), P{});                // only zero weights: no influence
  EXPECT_EQ(influences(4), (P{{arm, 0.6f}}));   // 0 + 0.6
  EXPECT_EQ(influences(5), (P{{arm, 1.0f}}));   // the same pair twice adds too
  // A tie: the lower bone index first.
  EXPECT_EQ(influences(6), (P{{std::min(arm, thigh), 0.5f}, {std::max(arm, thigh), 0.5f}}));
  EXPECT_EQ(influences(7), (P{{arm, 0.2f + 0.1f}}));  // float32 sum, as Blender adds
  EXPECT_EQ(influences(8), (P{{arm, 0.5f}, {thigh, 0.25f}}));
  EXPECT_EQ(influences(9), P{});
  EXPECT_EQ(influences(10), (P{{arm, 1.0f}}));  // Blender takes weights in [0, 1]
  checkSkinInvariants(*skin);

  ASSERT_EQ(skin->mask_names, std::vector<std::string>{"mhmask-preserve-volume"});
  ASSERT_EQ(skin->masks.size(), 1u);
  ASSERT_EQ(skin->masks[0].size(), kBaseVertices);
  EXPECT_EQ(skin->masks[0][2], 1.0f);
  EXPECT_EQ(skin->masks[0][9], 0.25f);
  EXPECT_EQ(skin->masks[0][0], 0.0f);
}

TEST_F(SkinBind, ToeFallbackOnARigWithoutToes) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Fitted& f = fitted("default_no_toes");
  ASSERT_GE(f.skeleton.find("toe1-1.L"), 0);
  ASSERT_LT(f.skeleton.find("toe2-1.L"), 0);
  auto w = parseWeights(R"({"weights": {
      "toe1-1.L": [[0, 0.25]], "toe2-1.L": [[0, 0.25]], "toe5-3xL": [[0, 0.25]], "DEF-toe3-2.R": [[1, 0.5]],
      "toe4-1.R": [[1, 0.25]], "toe1-10.L": [[2, 1]], "toe1-1.LL": [[2, 1]], "xtoe1-1.L": [[2, 1]], "toe1-1\u00e9L": [[3, 0.125]],
      "toe1-1\nL": [[2, 1]]
  }})",
                        "toes.json");
  ASSERT_TRUE(w.ok()) << w.error().message;
  WeightsBinding binding;
  auto skin = bindWeights(*w, f.skeleton, f.rig, kBaseVertices, &binding);
  ASSERT_TRUE(skin.ok()) << skin.error().message;
  std::map<std::string, std::string> got;
  for (const auto& m : binding.matches) got[m.group] = m.bone;
  const std::map<std::string, std::string> expected = {{"toe1-1.L", "toe1-1.L"}, {"toe2-1.L", "toe1-1.L"}, {"toe5-3xL", "toe1-1.L"},
                                                       {"DEF-toe3-2.R", "toe1-1.R"}, {"toe4-1.R", "toe1-1.R"},
                                                       {"toe1-1\xc3\xa9L", "toe1-1.L"}};
  EXPECT_EQ(got, expected);
  EXPECT_EQ(binding.unmapped, (std::vector<std::string>{"toe1-10.L", "toe1-1.LL", "xtoe1-1.L", "toe1-1\nL"}));
  const auto left = static_cast<std::uint16_t>(f.skeleton.find("toe1-1.L"));
  const auto right = static_cast<std::uint16_t>(f.skeleton.find("toe1-1.R"));
  ASSERT_EQ(skin->influenceCount(0), 1u);
  EXPECT_EQ(skin->bones[skin->offsets[0]], left);
  EXPECT_EQ(skin->weights[skin->offsets[0]], 0.75f);
  ASSERT_EQ(skin->influenceCount(1), 1u);
  EXPECT_EQ(skin->bones[skin->offsets[1]], right);
  EXPECT_EQ(skin->weights[skin->offsets[1]], 0.75f);
  EXPECT_EQ(skin->influenceCount(2), 0u);
  EXPECT_EQ(skin->influenceCount(3), 1u);
}

TEST_F(SkinBind, ToeFallbackNeedsABoneWithoutToeChildren) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Fitted& f = fitted("default");
  // default has toes: toe1-1.L has the child toe1-2.L, so an unknown toe group is not folded in.
  ASSERT_GE(f.skeleton.find("toe1-2.L"), 0);
  auto w = parseWeights(R"({"weights": {"toe2-1.L": [[0, 0.5]], "toe9-9.L": [[0, 0.5]], "DEF-toe1-1.R": [[0, 0.5]]}})", "toes.json");
  ASSERT_TRUE(w.ok());
  WeightsBinding binding;
  auto skin = bindWeights(*w, f.skeleton, f.rig, kBaseVertices, &binding);
  ASSERT_TRUE(skin.ok()) << skin.error().message;
  ASSERT_EQ(binding.matches.size(), 2u);
  EXPECT_EQ(binding.matches[0].bone, "toe2-1.L");
  EXPECT_EQ(binding.matches[1].bone, "toe1-1.R");  // DEF- stripped
  EXPECT_EQ(binding.unmapped, std::vector<std::string>{"toe9-9.L"});
}

TEST_F(SkinBind, RigifyExtraBonesAreReportedApart) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Fitted& f = fitted("rigify.human");
  ASSERT_EQ(f.rig.extra_bones.size(), 12u);
  ASSERT_GE(f.skeleton.find("upper_arm.L"), 0);
  auto w = parseWeights(R"({"weights": {"upper_arm.L": [[0, 0.5]], "DEF-upper_arm.L": [[0, 0.25]], "upper_arm.L.001": [[0, 0.5]],
      "DEF-forearm.R.001": [[1, 1]], "DEF-unknown": [[2, 1]], "toe2-1.L": [[3, 1]]}})",
                        "rigify.json");
  ASSERT_TRUE(w.ok());
  WeightsBinding binding;
  auto skin = bindWeights(*w, f.skeleton, f.rig, kBaseVertices, &binding);
  ASSERT_TRUE(skin.ok()) << skin.error().message;
  ASSERT_EQ(binding.matches.size(), 3u);
  EXPECT_EQ(binding.matches[0].bone, "upper_arm.L");
  EXPECT_EQ(binding.matches[1].bone, "upper_arm.L");
  EXPECT_EQ(binding.matches[2].group, "toe2-1.L");  // toe fallback: rigify's toe.L has no toe children
  EXPECT_EQ(binding.matches[2].bone, "toe.L");
  ASSERT_EQ(binding.extra.size(), 2u);
  EXPECT_EQ(binding.extra[0].group, "upper_arm.L.001");
  EXPECT_EQ(binding.extra[0].bone, "DEF-upper_arm.L.001");
  EXPECT_EQ(binding.extra[1].group, "DEF-forearm.R.001");
  EXPECT_EQ(binding.extra[1].bone, "DEF-forearm.R.001");
  EXPECT_EQ(binding.unmapped, std::vector<std::string>{"DEF-unknown"});
  // Only the real bone's weights are in the skin.
  ASSERT_EQ(skin->influenceCount(0), 1u);
  EXPECT_EQ(skin->weights[skin->offsets[0]], 0.75f);
  EXPECT_EQ(skin->influenceCount(1), 0u);
  EXPECT_EQ(skin->influenceCount(2), 0u);
}

// loadCharacter parses the weights before the body's vertex count is known: an index beyond the
// mesh is still reported as a checked parse reports it, for a group the rig does not use as well.
TEST(CharacterWeights, IndexBeyondTheMeshNamesTheEntry) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::string path = ::testing::TempDir() + "rigfit_beyond.json";
  for (const char* group : {"thigh_l", "no_bone"}) {
    {
      FILE* f = std::fopen(path.c_str(), "wb");
      ASSERT_NE(f, nullptr);
      std::fprintf(f, R"({"weights": {"%s": [[0, 0.5], [19158, 0.5]]}})", group);
      std::fclose(f);
    }
    CharacterOptions o;
    o.rig = "game_engine";
    o.weights = path;
    auto c = loadCharacter(DataSource::folder(test::sharedData()), o);
    ASSERT_FALSE(c.ok()) << group;
    EXPECT_EQ(c.error().code, ErrorCode::kRange);
    EXPECT_EQ(c.error().message, path + ": weights[\"" + group + "\"][1][0]: vertex index 19158 is out of range for a mesh of 19158 vertices");
  }
  std::remove(path.c_str());
}

TEST_F(SkinBind, VertexBeyondTheMeshIsAnError) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Fitted& f = fitted("game_engine");
  auto w = parseWeights(R"({"weights": {"thigh_l": [[0, 0.5], [19158, 0.5]]}})", "big.json");
  ASSERT_TRUE(w.ok());
  auto skin = bindWeights(*w, f.skeleton, f.rig, kBaseVertices);
  ASSERT_FALSE(skin.ok());
  EXPECT_EQ(skin.error().code, ErrorCode::kRange);
  EXPECT_EQ(skin.error().message, "big.json: weights[\"thigh_l\"][1][0]: vertex index 19158 is out of range for a mesh of 19158 vertices");
  // Unmapped groups are not loaded (MPFB drops them), so they are not checked.
  auto w2 = parseWeights(R"({"weights": {"no_bone": [[0, 0.5], [19158, 0.5]]}})", "big.json");
  ASSERT_TRUE(w2.ok());
  EXPECT_TRUE(bindWeights(*w2, f.skeleton, f.rig, kBaseVertices).ok());
  // Hand-built files: mismatched arrays, negative indices and weights.
  WeightsFile hand;
  hand.label = "hand";
  hand.groups.push_back({"thigh_l", {0, 1}, {0.5}, {}});
  EXPECT_EQ(bindWeights(hand, f.skeleton, f.rig, kBaseVertices).error().code, ErrorCode::kMismatch);
  hand.groups[0] = {"thigh_l", {-1}, {0.5}, {}};
  EXPECT_EQ(bindWeights(hand, f.skeleton, f.rig, kBaseVertices).error().message,
            "hand: weights[\"thigh_l\"][0][0]: vertex index -1 is out of range for a mesh of 19158 vertices");
  hand.groups[0] = {"thigh_l", {0}, {-0.5}, {}};
  EXPECT_EQ(bindWeights(hand, f.skeleton, f.rig, kBaseVertices).error().message, "hand: weights[\"thigh_l\"][0][1]: weight is negative (-0.5)");
  hand.groups[0] = {"thigh_l", {0}, {std::nan("")}, {}};
  EXPECT_EQ(bindWeights(hand, f.skeleton, f.rig, kBaseVertices).error().message, "hand: weights[\"thigh_l\"][0][1]: weight is NaN");
}

// ---------------------------------------------------------------------------------------------
// Fixed-size influences

Skin handSkin() {
  // v0: 6 influences; v1: 2; v2: none; v3: total 5e-5 (left at rest by Blender); v4: 4 equal.
  Skin s;
  s.vertex_count = 5;
  s.bone_count = 10;
  s.offsets = {0, 6, 8, 8, 9, 13};
  s.bones = {3, 1, 7, 2, 9, 4, /**/ 5, 6, /**/ /**/ 8, /**/ 1, 2, 3, 4};
  s.weights = {0.4f, 0.3f, 0.1f, 0.1f, 0.06f, 0.04f, /**/ 0.3f, 0.2f, /**/ /**/ 5e-5f, /**/ 0.25f, 0.25f, 0.25f, 0.25f};
  return s;
}

float slotSum(const float* w, int k) {
  float s = 0.0f;
  for (int i = 0; i < k; ++i) s += w[i];
  return s;
}

TEST(InfluencesLimit, TopKRenormalisedHeaviestFirst) {
  const Skin s = handSkin();
  std::vector<std::uint16_t> bones(5 * 4, 99);
  std::vector<float> weights(5 * 4, -1.0f);
  double dropped = -1;
  EXPECT_EQ(limitInfluences(s, 4, bones, weights, &dropped), 1u);
  EXPECT_DOUBLE_EQ(dropped, double(0.06f) / (double(0.4f) + 0.3f + 0.1f + 0.1f + 0.06f + 0.04f));
  EXPECT_EQ(std::vector<std::uint16_t>(bones.begin(), bones.begin() + 4), (std::vector<std::uint16_t>{3, 1, 7, 2}));
  const double kept = double(0.4f) + double(0.3f) + double(0.1f) + double(0.1f);
  EXPECT_NEAR(weights[0], 0.4f / kept, 1e-7);
  EXPECT_NEAR(weights[1], 0.3f / kept, 1e-7);
  EXPECT_EQ(slotSum(&weights[0], 4), 1.0f);
  EXPECT_GE(weights[0], weights[1]);
  EXPECT_GE(weights[1], weights[2]);
  EXPECT_GE(weights[2], weights[3]);
  // v1: two influences, the rest unused (bone 0, weight 0).
  EXPECT_EQ(std::vector<std::uint16_t>(bones.begin() + 4, bones.begin() + 8), (std::vector<std::uint16_t>{5, 6, 0, 0}));
  EXPECT_NEAR(weights[4], 0.6, 1e-7);
  EXPECT_EQ(weights[6], 0.0f);
  EXPECT_EQ(slotSum(&weights[4], 4), 1.0f);
  // v2, v3: all zero.
  for (int i = 8; i < 16; ++i) {
    EXPECT_EQ(bones[static_cast<std::size_t>(i)], 0);
    EXPECT_EQ(weights[static_cast<std::size_t>(i)], 0.0f);
  }
  EXPECT_EQ(std::vector<float>(weights.begin() + 16, weights.end()), (std::vector<float>{0.25f, 0.25f, 0.25f, 0.25f}));

  // K = 8 keeps everything.
  std::vector<std::uint16_t> b8(5 * 8);
  std::vector<float> w8(5 * 8);
  EXPECT_EQ(limitInfluences(s, 8, b8, w8, &dropped), 0u);
  EXPECT_EQ(dropped, 0.0);
  EXPECT_EQ(slotSum(&w8[0], 8), 1.0f);
  EXPECT_EQ(b8[5], 4);
  // Invalid arguments: nothing written.
  EXPECT_EQ(limitInfluences(s, 5, b8, w8), 0u);
  EXPECT_EQ(limitInfluences(s, 8, std::span<std::uint16_t>(b8).first(10), w8), 0u);
}

TEST(InfluencesQuantize, SumsAreExact) {
  const Skin s = handSkin();
  std::vector<std::uint16_t> bones(5 * 4);
  std::vector<float> weights(5 * 4);
  (void)limitInfluences(s, 4, bones, weights);
  std::vector<std::uint16_t> q8(weights.size()), q16(weights.size());
  quantizeInfluences(weights, 4, 8, q8);
  quantizeInfluences(weights, 4, 16, q16);
  EXPECT_EQ(std::vector<std::uint16_t>(q8.begin() + 4, q8.begin() + 8), (std::vector<std::uint16_t>{153, 102, 0, 0}));  // 0.6/0.4
  // 4 x 63.75: rounded down to 63, the 3 missing units to the first three (equal remainders).
  EXPECT_EQ(std::vector<std::uint16_t>(q8.begin() + 16, q8.end()), (std::vector<std::uint16_t>{64, 64, 64, 63}));
  EXPECT_EQ(std::vector<std::uint16_t>(q16.begin() + 16, q16.end()), (std::vector<std::uint16_t>{16384, 16384, 16384, 16383}));
  for (std::size_t v = 0; v < 5; ++v) {
    int s8 = 0, s16 = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      s8 += q8[v * 4 + i];
      s16 += q16[v * 4 + i];
    }
    const bool weighted = v != 2 && v != 3;
    EXPECT_EQ(s8, weighted ? 255 : 0) << v;
    EXPECT_EQ(s16, weighted ? 65535 : 0) << v;
  }
  // 64.6, 64.6, 62.9, 62.9 units: rounding each to nearest gives 65 + 65 + 63 + 63 = 256, and
  // taking the extra unit off the heaviest would put 64 before 65. Largest remainders: 64, 64, 62,
  // 62 + one unit each to the .9, .9 and the first .6: 65, 64, 63, 63, still heaviest first.
  const std::vector<float> close = {64.6f / 255, 64.6f / 255, 62.9f / 255, 62.9f / 255};
  std::vector<std::uint16_t> qc(4);
  quantizeInfluences(close, 4, 8, qc);
  EXPECT_EQ(qc, (std::vector<std::uint16_t>{65, 64, 63, 63}));
  // A weight that rounds to 0 is kept as 0.
  const std::vector<float> tiny = {0.999f, 0.001f, 0.0f, 0.0f};
  std::vector<std::uint16_t> qt(4);
  quantizeInfluences(tiny, 4, 8, qt);
  EXPECT_EQ(qt, (std::vector<std::uint16_t>{255, 0, 0, 0}));
}

TEST_F(SkinBind, InfluencesOnShippedRigs) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::map<std::string, std::pair<std::size_t, double>> lost_at_4 = {
      {"game_engine", {981, 0.1072}}, {"mixamo", {23, 0.115037122}}, {"openpose", {80, 0.0345291239}}};
  for (const auto& [name, expect_lost] : lost_at_4) {
    SCOPED_TRACE(name);
    const Fitted& f = fitted(name);
    auto w = readWeights(weightsPath(name), kBaseVertices);
    ASSERT_TRUE(w.ok());
    auto skin = bindWeights(*w, f.skeleton, f.rig, kBaseVertices);
    ASSERT_TRUE(skin.ok());
    for (int k : {4, 8}) {
      const auto kk = static_cast<std::size_t>(k);
      std::vector<std::uint16_t> bones(kBaseVertices * kk);
      std::vector<float> weights(kBaseVertices * kk);
      double dropped = 0;
      const std::size_t lost = limitInfluences(*skin, k, bones, weights, &dropped);
      EXPECT_EQ(lost, k == 4 ? expect_lost.first : 0u);  // at most 7 influences (game_engine)
      EXPECT_NEAR(dropped, k == 4 ? expect_lost.second : 0.0, 1e-6);
      std::vector<std::uint16_t> q8(weights.size()), q16(weights.size());
      quantizeInfluences(weights, k, 8, q8);
      quantizeInfluences(weights, k, 16, q16);
      for (std::size_t v = 0; v < kBaseVertices; ++v) {
        const float* wv = &weights[v * kk];
        double total = 0;
        for (std::size_t i = skin->offsets[v]; i < skin->offsets[v + 1]; ++i) total += skin->weights[i];
        const bool weighted = total > 1e-4;
        ASSERT_EQ(slotSum(wv, k), weighted ? 1.0f : 0.0f) << v;
        for (std::size_t i = 1; i < kk; ++i) ASSERT_GE(wv[i - 1], wv[i]) << v;
        int s8 = 0, s16 = 0;
        for (std::size_t i = 0; i < kk; ++i) {
          s8 += q8[v * kk + i];
          s16 += q16[v * kk + i];
        }
        ASSERT_EQ(s8, weighted ? 255 : 0) << v;
        ASSERT_EQ(s16, weighted ? 65535 : 0) << v;
        for (std::size_t i = 1; i < kk; ++i) {
          ASSERT_GE(q8[v * kk + i - 1], q8[v * kk + i]) << v;  // heaviest first, also quantised
          ASSERT_GE(q16[v * kk + i - 1], q16[v * kk + i]) << v;
        }
      }
    }
  }
}

TEST(InfluencesLimit, DroppedWeightIsReportedOnACrowdedVertex) {
  // Eight equal influences limited to four: half of the weight goes, each dropped one 1/8.
  Skin s;
  s.vertex_count = 1;
  s.bone_count = 8;
  s.offsets = {0, 8};
  s.bones = {0, 1, 2, 3, 4, 5, 6, 7};
  s.weights.assign(8, 0.125f);
  std::vector<std::uint16_t> bones(4);
  std::vector<float> weights(4);
  double dropped = 0;
  EXPECT_EQ(limitInfluences(s, 4, bones, weights, &dropped), 1u);
  EXPECT_EQ(dropped, 0.125);
  EXPECT_EQ(bones, (std::vector<std::uint16_t>{0, 1, 2, 3}));
  EXPECT_EQ(weights, (std::vector<float>{0.25f, 0.25f, 0.25f, 0.25f}));
}

}  // namespace
}  // namespace rigfit

namespace rigfit {
namespace {

// With two threads loadCharacter binds the weights before the body is in (a second thread reads
// the body's OBJ), to the skeleton's names and parents known before the fit (skeletonTopology):
// the skin and binding are those of a bind to the fitted skeleton, as on one thread. When the fit
// removes a zero-length bone the early skin is not used.
TEST(CharacterWeights, EarlySkinIsTheFittedSkeletonsSkin) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  auto check = [&](CharacterOptions o, const std::string& weights_path, std::size_t expect_removed) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      o.threads = threads;
      auto c = loadCharacter(data, o);
      ASSERT_TRUE(c.ok()) << c.error().message;
      ASSERT_TRUE(c->has_skin);
      auto topology = skeletonTopology(c->rig);
      ASSERT_TRUE(topology.has_value());
      EXPECT_EQ(topology->names.size() - c->fit.skeleton.names.size(), expect_removed) << o.rig;
      if (expect_removed == 0) {
        EXPECT_EQ(topology->names, c->fit.skeleton.names) << o.rig;
        EXPECT_EQ(topology->parents, c->fit.skeleton.parents) << o.rig;
      }
      auto file = readWeights(weights_path, c->body().mesh.vertexCount());
      ASSERT_TRUE(file.ok()) << file.error().message;
      WeightsBinding binding;
      auto skin = bindWeights(*file, c->fit.skeleton, c->rig, c->body().mesh.vertexCount(), &binding);
      ASSERT_TRUE(skin.ok()) << skin.error().message;
      EXPECT_EQ(c->body().skin.bone_count, skin->bone_count) << o.rig;
      EXPECT_EQ(c->body().skin.offsets, skin->offsets) << o.rig;
      EXPECT_EQ(c->body().skin.bones, skin->bones) << o.rig;
      EXPECT_EQ(c->body().skin.weights, skin->weights) << o.rig;
      EXPECT_EQ(c->body().skin.mask_names, skin->mask_names) << o.rig;
      EXPECT_EQ(c->binding.unmapped, binding.unmapped) << o.rig;
      EXPECT_EQ(c->binding.unweighted_bones, binding.unweighted_bones) << o.rig;
      ASSERT_EQ(c->binding.matches.size(), binding.matches.size()) << o.rig;
      for (std::size_t k = 0; k < binding.matches.size(); ++k) {
        EXPECT_EQ(c->binding.matches[k].group, binding.matches[k].group);
        EXPECT_EQ(c->binding.matches[k].bone, binding.matches[k].bone);
      }
    }
  };
  for (const char* rig : {"game_engine", "cmu_mb", "mixamo", "mixamo_unity", "openpose"}) {
    CharacterOptions o;
    o.rig = rig;
    check(o, test::sharedData() + "/rigs/standard/weights." + rig + ".json", 0);
  }
  // game_engine with ball_l's tail on its head's cube: the fit removes the bone, and the skin is
  // bound to the fitted skeleton (ball_l's group then names no bone).
  std::string text = test::readText(test::sharedData() + "/rigs/standard/rig.game_engine.json");
  const std::size_t at = text.find("\"joint-l-toe-2-4\"", text.find("\"ball_l\""));
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"joint-l-toe-2-4\"").size(), "\"joint-l-foot-1\"");
  const std::string dir = ::testing::TempDir() + "rigfit_zero_bone";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(writeFileAtomic(dir + "/rig.zero.json", text).ok());
  CharacterOptions o;
  o.rig = dir + "/rig.zero.json";
  o.weights = test::sharedData() + "/rigs/standard/weights.game_engine.json";
  check(o, o.weights, 1);
  std::filesystem::remove_all(dir);
}

// The errors of a character whose body or weights are wrong are the same on one thread and two
// (the body read on the second thread, the weights parsed before the body is in): a missing body
// OBJ wins over bad weights, a body of the wrong vertex count is named, and a weights index beyond
// the body is reported after the fit, as a checked parse names it.
TEST(CharacterWeights, ErrorsDoNotDependOnThreads) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  const std::string dir = ::testing::TempDir() + "rigfit_thread_errors";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(writeFileAtomic(dir + "/small.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").ok());
  ASSERT_TRUE(writeFileAtomic(dir + "/weights.far.json", "{\"weights\": {\"root\": [[0, 1.0], [19158, 0.5]]}}\n").ok());
  struct Case {
    std::string mesh, weights, expect;
  };
  const Case cases[] = {
      {dir + "/missing.obj", dir + "/weights.far.json", "missing.obj"},
      {dir + "/small.obj", "", "small.obj: has 3 vertices"},
      {"", dir + "/weights.far.json", "weights[\"root\"][1][0]: vertex index 19158 is out of range for a mesh of 19158 vertices"},
  };
  for (const Case& k : cases) {
    std::string first;
    for (int threads : {1, 2}) {
      CharacterOptions o;
      o.rig = "game_engine";
      o.mesh = k.mesh;
      o.weights = k.weights;
      o.threads = threads;
      auto c = loadCharacter(data, o);
      ASSERT_FALSE(c.ok()) << k.expect;
      EXPECT_NE(c.error().message.find(k.expect), std::string::npos) << c.error().message;
      if (threads == 1) first = c.error().message;
      else EXPECT_EQ(c.error().message, first);
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rigfit
