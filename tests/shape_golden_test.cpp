// rigfit's shaped bodies against Blender's own shape-key mix (tests/golden/shape, made by
// tools/blender/make_shape_goldens.sh): the macro targets and weights, sampled vertices and
// whole-body statistics agree within 2e-6 m.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include <gtest/gtest.h>

#include "rigfit/json.hpp"
#include "rigfit/shape.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

constexpr double kTolerance = 2e-6;  // metres

std::vector<std::string> goldenFiles() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(test::sourceDir() + "/tests/golden/shape"))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ShapeGolden, MixMatchesBlender) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const auto files = goldenFiles();
  ASSERT_GE(files.size(), 4u);  // the default human and at least three extremes
  const DataSource data = DataSource::folder(test::sharedData());
  auto base = loadBaseMesh(data);
  ASSERT_TRUE(base.ok()) << base.error().message;
  TargetCache cache(data);
  auto table = cache.macroTable();
  ASSERT_TRUE(table.ok()) << table.error().message;
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    auto golden = readJsonFile(file);
    ASSERT_TRUE(golden.ok()) << golden.error().message;
    const Json& g = *golden;
    ASSERT_EQ(g.find("format")->asString(), "rigfit-shape-golden/1");
    ASSERT_EQ(g.find("vertex_count")->asInt(), static_cast<std::int64_t>(base->vertexCount()));

    // The weights Blender was given are the ones rigfit computes for the macro settings.
    auto settings = parseMacroSettings(g.find("macro")->asString());
    ASSERT_TRUE(settings.ok()) << settings.error().message;
    const auto list = macroTargets(**table, *settings);
    const Json& targets = *g.find("targets");
    ASSERT_EQ(list.size(), targets.size());
    for (std::size_t k = 0; k < list.size(); ++k) {
      EXPECT_EQ(list[k].first, targets.items()[k].items()[0].asString());
      EXPECT_EQ(list[k].second, targets.items()[k].items()[1].asDouble());
    }

    ShapeRequest request{.use_macros = true, .macros = *settings};
    std::vector<float> p = base->positions;
    ASSERT_TRUE(shapeBody(cache, request, p).ok());
    double worst = 0.0;
    std::size_t worst_vertex = 0;
    const Json& vertices = *g.find("vertices");
    ASSERT_GT(vertices.size(), 400u);
    for (const Json& row : vertices.items()) {
      const auto v = static_cast<std::size_t>(row.items()[0].asInt());
      for (std::size_t c = 0; c < 3; ++c) {
        const double d = std::abs(double(p[3 * v + c]) - row.items()[c + 1].asDouble());
        if (d > worst) {
          worst = d;
          worst_vertex = v;
        }
      }
    }
    EXPECT_LE(worst, kTolerance) << "vertex " << worst_vertex;

    // Whole-body statistics: every vertex takes part.
    const Json& stats = *g.find("stats");
    const std::size_t n = base->vertexCount();
    double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9}, sum[3] = {0, 0, 0};
    for (std::size_t v = 0; v < n; ++v)
      for (std::size_t c = 0; c < 3; ++c) {
        lo[c] = std::min(lo[c], double(p[3 * v + c]));
        hi[c] = std::max(hi[c], double(p[3 * v + c]));
        sum[c] += p[3 * v + c];
      }
    double worst_stat = std::abs(lowestBodyZ(p) - stats.find("lowest_body_z")->asDouble());
    worst_stat = std::max(worst_stat, std::abs((hi[2] - lo[2]) - stats.find("height")->asDouble()));
    for (std::size_t c = 0; c < 3; ++c) {
      worst_stat = std::max(worst_stat, std::abs(lo[c] - stats.find("min")->items()[c].asDouble()));
      worst_stat = std::max(worst_stat, std::abs(hi[c] - stats.find("max")->items()[c].asDouble()));
      worst_stat = std::max(worst_stat, std::abs(sum[c] / double(n) - stats.find("centroid")->items()[c].asDouble()));
    }
    EXPECT_LE(worst_stat, kTolerance);
    std::cout << "[shape golden] " << g.find("case")->asString() << ": " << list.size() << " targets, max |d| "
              << worst << " m over " << vertices.size() << " vertices (worst " << worst_vertex << "), statistics "
              << worst_stat << " m\n";
  }
}

// docs/mpfb-behaviour.md §11.2 numbers from the Blender golden of MPFB's new human: lowest body z
// and height.
TEST(ShapeGolden, DefaultHumanNumbers) {
  auto g = readJsonFile(test::sourceDir() + "/tests/golden/shape/default.json");
  ASSERT_TRUE(g.ok()) << g.error().message;
  const Json& stats = *g->find("stats");
  EXPECT_NEAR(stats.find("lowest_body_z")->asDouble(), -0.8177425, 1e-7);
  EXPECT_NEAR(stats.find("height")->asDouble(), 1.6939405, 1e-6);
}

}  // namespace
}  // namespace rigfit
