#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "rigfit/shape.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

TEST(Shape, ParsesTargetText) {
  // MakeHuman writes ".904" and "-.002"; offsets become rig-frame scale * (dx, -dz, dy).
  auto t = parseTarget("# comment\n\"quoted\n0 .5 -.25 1\n\n7 1 2 3\n99 1 1 1\n", "t.target", 10);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->vertices, (std::vector<std::uint32_t>{0, 7}));  // 99 is beyond the mesh: ignored
  const double s = double(0.1f);
  EXPECT_EQ(t->offsets[0], s * 0.5);
  EXPECT_EQ(t->offsets[1], s * -1.0);
  EXPECT_EQ(t->offsets[2], s * -0.25);
  auto bad = parseTarget("0 1 2\n", "b.target", 10);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "b.target: line 1: expected three offsets");
  auto gz = decodeTarget(std::string("\x1f\x8b\x08\x00", 4), "g.target.gz", 10);
  EXPECT_FALSE(gz.ok());
}

// Each bad line is named with what was found there (a long word elided).
TEST(Shape, TargetErrorsNameWhatWasFound) {
  const std::pair<std::string, std::string> cases[] = {
      {"x 1 2 3\n", "t.target: line 1: expected a vertex index, found \"x\""},
      {"99999999999999999999999 1 2 3\n", "t.target: line 1: vertex index 99999999999999999999999 is too large"},
      {"1 2 y 3\n", "t.target: line 1: expected three offsets, found \"y\""},
      {"1 2 nan 3\n", "t.target: line 1: expected three offsets, found \"nan\""},
      {"1 2 3 1e400\n", "t.target: line 1: offset 1e400 is beyond single precision"},
      {"1 2 3 4 5\n", "t.target: line 1: unexpected text after the offsets: \"5\""},
  };
  for (const auto& [text, message] : cases) {
    auto t = parseTarget(text, "t.target", 10);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.error().message, message);
  }
  auto huge = parseTarget("1 0 0 " + std::string(100000, '9') + "\n", "t.target", 10);
  ASSERT_FALSE(huge.ok());
  EXPECT_LE(huge.error().message.size(), 300u);
  EXPECT_EQ(huge.error().message.rfind("t.target: line 1: offset 99999", 0), 0u) << huge.error().message;
}

TEST(Shape, OffsetsBeyondSinglePrecisionAreErrors) {
  // Shape keys are float: 1e308 decimetres is finite as a double but infinite as a key.
  auto huge = parseTarget("0 0 0 0\n7 -1e308 .041 0\n", "h.target", 10);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().message, "h.target: line 2: offset -1e308 is beyond single precision");
  // Two targets each within float range whose sum is not: the second one is named.
  const auto dir = std::filesystem::temp_directory_path() / ("rigfit_shape_overflow_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "targets");
  std::ofstream(dir / "targets" / "a.target") << "0 3e39 0 0\n";
  std::ofstream(dir / "targets" / "b.target") << "1 1 0 0\n0 3e39 0 0\n";
  TargetCache cache(DataSource::folder(dir.string()));
  ShapeRequest request;
  request.targets = {{"a", 1.0}, {"b", 1.0}};
  std::vector<float> positions(9, 0.0f);
  const Status st = shapeBody(cache, request, positions);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kRange);
  EXPECT_NE(st.error().message.find("targets/b.target: vertex 0: the shaped position overflows single precision"), std::string::npos)
      << st.error().message;
}

TEST(Shape, MissingTargetNamesTheTableThatNamedIt) {
  // A data folder whose macro.json names targets it does not ship: the error says that the file
  // came from macro.json, not from the user's own --target.
  RIGFIT_REQUIRE_SHARED_DATA();
  const auto dir = std::filesystem::temp_directory_path() / ("rigfit_shape_missing_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "targets" / "macrodetails");
  std::filesystem::copy_file(test::sharedData() + "/targets/macrodetails/macro.json", dir / "targets" / "macrodetails" / "macro.json",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "targets" / "mine.target") << "0 0 0 0\n";
  TargetCache cache(DataSource::folder(dir.string()));
  ShapeRequest request;
  request.use_macros = true;
  std::vector<float> positions(3, 0.0f);
  const Status by_macro = shapeBody(cache, request, positions);
  request.use_macros = false;
  request.targets = {{"nose/nope", 1.0}};
  const Status by_user = shapeBody(cache, request, positions);
  request.targets = {{"mine", 1.0}};
  const Status fine = shapeBody(cache, request, positions);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(by_macro.ok());
  const std::string& m = by_macro.error().message;
  EXPECT_NE(m.find(": no such target (a target of the macro settings, named by "), std::string::npos) << m;
  EXPECT_NE(m.find("targets/macrodetails/macro.json)"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
  ASSERT_FALSE(by_user.ok());
  EXPECT_EQ(by_user.error().message, "nose/nope: no such target file (looked for nose/nope{,.target.gz,.target} in ., " + dir.string() + ", " +
                                         (dir / "targets").string() + ")");
  EXPECT_TRUE(fine.ok()) << fine.error().message;
}

TEST(Shape, MacroSettingsParse) {
  auto m = parseMacroSettings("gender=1,age=0.25,african=0.5");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->gender, 1.0);
  EXPECT_EQ(m->age, 0.25);
  EXPECT_EQ(m->african, 0.5);
  EXPECT_EQ(m->asian, 0.33);
  EXPECT_FALSE(parseMacroSettings("gender=2").ok());
  EXPECT_FALSE(parseMacroSettings("girth=0.5").ok());
  EXPECT_FALSE(parseMacroSettings("gender").ok());
}

// docs/mpfb-behaviour.md §10.3: the default human and an all-max example.
TEST(Shape, MacroTargetsAsMpfb) {
  RIGFIT_REQUIRE_SHARED_DATA();
  TargetCache cache(DataSource::folder(test::sharedData()));
  auto table = cache.macroTable();
  ASSERT_TRUE(table.ok()) << table.error().message;
  const auto defaults = macroTargets(**table, MacroSettings{});
  std::vector<std::pair<std::string, double>> expected;
  for (const char* race : {"african", "asian", "caucasian"})
    for (const char* g : {"female", "male"}) expected.emplace_back(std::string("macrodetails/") + race + "-" + g + "-young", 0.165);
  expected.emplace_back("macrodetails/universal-female-young-averagemuscle-averageweight", 0.5);
  expected.emplace_back("macrodetails/universal-male-young-averagemuscle-averageweight", 0.5);
  ASSERT_EQ(defaults.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(defaults[k].first, expected[k].first);
    EXPECT_NEAR(defaults[k].second, expected[k].second, 1e-12);
  }
  MacroSettings max;
  max.gender = max.muscle = max.weight = max.height = max.proportions = 1.0;
  const auto all = macroTargets(**table, max);
  auto weightOf = [&](const std::string& path) {
    for (const auto& [p, w] : all)
      if (p == path) return w;
    return -1.0;
  };
  EXPECT_NEAR(weightOf("macrodetails/african-male-young"), 0.326766, 1e-9);
  EXPECT_NEAR(weightOf("macrodetails/universal-male-young-maxmuscle-maxweight"), 0.9902 * 0.9804 * 0.9804, 1e-12);
  EXPECT_NEAR(weightOf("macrodetails/height/male-young-maxmuscle-maxweight-maxheight"), 0.93273, 5e-6);
  EXPECT_NEAR(weightOf("macrodetails/proportions/male-young-maxmuscle-maxweight-idealproportions"), 0.93311, 5e-6);
  EXPECT_EQ(weightOf("macrodetails/african-female-young"), -1.0);  // 0.33 * 0.0098 < 0.01: dropped
  for (const auto& [p, w] : all) {
    EXPECT_GT(w, 0.01) << p;
    auto t = cache.get(p, 19158);
    EXPECT_TRUE(t.ok()) << p;
  }
}

// docs/mpfb-behaviour.md §11.2: the default character's lowest body z (before grounding) and height
// after grounding.
TEST(Shape, DefaultHumanMatchesMpfbNumbers) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  auto mesh = loadBaseMesh(data);
  ASSERT_TRUE(mesh.ok());
  TargetCache cache(data);
  std::vector<float> p = mesh->positions;
  ShapeRequest request;
  request.use_macros = true;
  ASSERT_TRUE(shapeBody(cache, request, p).ok());
  EXPECT_NEAR(lowestBodyZ(p), -0.8177425, 1e-7);
  request.ground = true;
  std::vector<float> grounded = mesh->positions;
  std::vector<std::pair<std::string, double>> applied;
  ASSERT_TRUE(shapeBody(cache, request, grounded, &applied).ok());
  EXPECT_EQ(applied.size(), 8u);
  EXPECT_NEAR(lowestBodyZ(grounded), 0.0, 1e-7);
  float lo = 1e9f, hi = -1e9f;
  for (std::size_t v = 0; v < grounded.size() / 3; ++v) {
    lo = std::min(lo, grounded[3 * v + 2]);
    hi = std::max(hi, grounded[3 * v + 2]);
  }
  EXPECT_NEAR(hi - lo, 1.6939405, 1e-6);
}

TEST(Shape, ModifiersResolveThroughTargetJson) {
  RIGFIT_REQUIRE_SHARED_DATA();
  TargetCache cache(DataSource::folder(test::sharedData()));
  auto tj = cache.targetJson();
  ASSERT_TRUE(tj.ok());
  const std::vector<std::pair<std::string, double>> mods = {{"nose/nose-nostrils-angle-down-up", 0.5},
                                                            {"nose/nose-nostrils-angle-down-up", -0.25},
                                                            {"arms/l-lowerarm-scale-depth-decr-incr", 1.0},
                                                            {"nose/nose-base-up", 0.3}};
  auto r = resolveModifiers(**tj, mods);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0], (std::pair<std::string, double>{"nose/nose-nostrils-angle-up", 0.5}));
  EXPECT_EQ((*r)[1], (std::pair<std::string, double>{"nose/nose-nostrils-angle-down", 0.25}));
  EXPECT_EQ((*r)[2], (std::pair<std::string, double>{"arms/l-lowerarm-scale-depth-incr", 1.0}));
  EXPECT_EQ((*r)[3], (std::pair<std::string, double>{"nose/nose-base-up", 0.3}));
  const std::vector<std::pair<std::string, double>> bad = {{"nose/no-such-thing", 1.0}};
  auto e = resolveModifiers(**tj, bad);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "modifier \"nose/no-such-thing\": no modifier or target \"no-such-thing\" in group \"nose\" (available: "
            "nose-nostrils-angle-down-up, nose-nostrils-angle-down, nose-nostrils-angle-up, and 60 more)");
  // A near miss names the modifier or group meant.
  const std::vector<std::pair<std::string, double>> typo = {{"nose/nose-flaring-decr-inc", 1.0}};
  auto t = resolveModifiers(**tj, typo);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, "modifier \"nose/nose-flaring-decr-inc\": no modifier or target \"nose-flaring-decr-inc\" in "
                               "group \"nose\" (did you mean \"nose-flaring-decr-incr\"?)");
  const std::vector<std::pair<std::string, double>> group = {{"noes/nose-flaring-decr-incr", 1.0}};
  auto g = resolveModifiers(**tj, group);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().message, "modifier \"noes/nose-flaring-decr-incr\": no modifier group \"noes\" (did you mean \"nose\"?)");
}

}  // namespace
}  // namespace rigfit
