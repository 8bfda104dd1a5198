// rigfit's asset stage against MPFB itself (tests/golden/assets, made by
// tools/blender/make_asset_goldens.sh: MPFB 2.0.4 in Blender 3.4.1): every shipped asset fitted on
// three shaped bodies (base, MPFB's new human, all macros at 1) with game_engine, and shoes01 on
// the default rig. Fitted positions within 1e-6 m (bit for bit on the body vertices the golden
// reveals), interpolated + custom weights within 1e-6 and equal in float32, the body's delete
// groups and hidden faces and the proxy's carried-over masks exactly. These tests fail when
// ../shared data or the goldens are missing.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <gtest/gtest.h>

#include "rigfit/asset.hpp"
#include "rigfit/character.hpp"
#include "rigfit/data.hpp"
#include "rigfit/json.hpp"
#include "rigfit/shape.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

// Metres. rigfit fits in MPFB's float32 arithmetic, but its shaped bodies differ from MPFB's by a
// few float32 steps (up to 7.2e-7 m on the max body), which the fitted vertices inherit.
constexpr double kPositionTolerance = 1e-6;
constexpr double kWeightTolerance = 1e-6;

std::string assetsDir() { return test::sharedData() + "/../assets"; }
std::string goldenDir() { return test::sourceDir() + "/tests/golden/assets"; }

// The bodies of the goldens and how rigfit makes them (`rigfit_macro` in the golden's body).
struct BodyCase {
  const char* golden;  // file stem
  const char* body;    // body.case
  const char* rig;
  const char* macro;   // rigfit's --macro; null: the plain base mesh
  bool ground;
};
constexpr BodyCase kGameEngineCases[] = {
    {"base.game_engine", "base", "game_engine", nullptr, false},
    {"default.game_engine", "default", "game_engine", "default", true},
    {"max.game_engine", "max", "game_engine", "gender=1,age=1,muscle=1,weight=1,height=1,proportions=1", true},
};
constexpr BodyCase kDefaultShoesCase = {"base.default.shoes01", "base", "default", nullptr, false};

// Golden files, read once.
const Json* golden(const std::string& stem) {
  static std::map<std::string, std::unique_ptr<Json>> cache;
  auto it = cache.find(stem);
  if (it == cache.end()) {
    const std::string path = goldenDir() + "/" + stem + ".json";
    auto j = readJsonFile(path);
    EXPECT_TRUE(j.ok()) << "asset golden missing or unreadable: " << path << (j.ok() ? "" : ": " + j.error().message);
    it = cache.emplace(stem, j.ok() ? std::make_unique<Json>(std::move(*j)) : nullptr).first;
  }
  return it->second.get();
}

// Characters (shaped body, fitted rig, skin), built once per body case; the default rig case has
// no body weights, as in the golden's MPFB snapshot (it lacks weights.default.json).
const Character* character(const BodyCase& bc) {
  static std::map<std::string, std::unique_ptr<Character>> cache;
  auto it = cache.find(bc.golden);
  if (it == cache.end()) {
    const DataSource data = DataSource::folder(test::sharedData());
    CharacterOptions options;
    options.rig = bc.rig;
    if (std::string(bc.rig) == "default") options.weights = "none";
    if (bc.macro) {
      // As the CLI's --macro/--ground (src/cli/common.cpp ShapeOptions::request).
      auto m = parseMacroSettings(bc.macro);
      EXPECT_TRUE(m.ok()) << bc.macro;
      options.shape.use_macros = true;
      if (m.ok()) options.shape.macros = *m;
    }
    options.shape.ground = bc.ground;
    auto c = loadCharacter(data, options);
    EXPECT_TRUE(c.ok()) << bc.golden << ": " << (c.ok() ? "" : c.error().message);
    it = cache.emplace(bc.golden, c.ok() ? std::make_unique<Character>(std::move(*c)) : nullptr).first;
  }
  return it->second.get();
}

// Assets, loaded once per rig type (which selects the `<stem>.<rig>.mhw` sidecar).
const Asset* asset(const std::string& rel, const std::string& rig_type) {
  static std::map<std::pair<std::string, std::string>, std::unique_ptr<Asset>> cache;
  auto it = cache.find({rel, rig_type});
  if (it == cache.end()) {
    AssetLoadOptions options;
    options.rig_type = rig_type;
    auto a = loadAsset(assetsDir() + "/" + rel, options);
    EXPECT_TRUE(a.ok()) << rel << ": " << (a.ok() ? "" : a.error().message);
    it = cache.emplace(std::make_pair(rel, rig_type), a.ok() ? std::make_unique<Asset>(std::move(*a)) : nullptr).first;
  }
  return it->second.get();
}

#define REQUIRE_GOLDEN_DATA()                                                                                  \
  RIGFIT_REQUIRE_SHARED_DATA();                                                                                \
  ASSERT_TRUE(std::filesystem::is_directory(assetsDir())) << "assets missing at " << assetsDir();             \
  ASSERT_TRUE(std::filesystem::is_directory(goldenDir())) << "asset goldens missing at " << goldenDir()

// A golden's compact ranges [[first, last], ...] as one flag per index; false if malformed.
bool expandRanges(const Json& ranges, std::size_t n, std::vector<std::uint8_t>& flags) {
  flags.assign(n, 0);
  for (const Json& r : ranges.items()) {
    if (r.size() != 2) return false;
    const std::int64_t a = r.items()[0].asInt(), b = r.items()[1].asInt();
    if (a < 0 || b < a || static_cast<std::uint64_t>(b) >= n) return false;
    for (std::int64_t i = a; i <= b; ++i) flags[static_cast<std::size_t>(i)] = 1;
  }
  return true;
}

std::size_t countSet(const std::vector<std::uint8_t>& flags) {
  std::size_t k = 0;
  for (auto f : flags) k += f != 0;
  return k;
}

// The first index where two flag vectors differ, as text (empty when equal).
std::string firstDifference(const std::vector<std::uint8_t>& ours, const std::vector<std::uint8_t>& mpfb) {
  if (ours.size() != mpfb.size()) return "sizes " + std::to_string(ours.size()) + " vs " + std::to_string(mpfb.size());
  for (std::size_t i = 0; i < ours.size(); ++i)
    if ((ours[i] != 0) != (mpfb[i] != 0))
      return "index " + std::to_string(i) + ": rigfit " + std::to_string(ours[i] != 0) + ", MPFB " + std::to_string(mpfb[i] != 0);
  return {};
}

std::string stemOf(const std::string& rel) { return std::filesystem::path(rel).stem().string(); }

// --- Positions ---------------------------------------------------------------------------------

struct FitStats {
  double sampled = 0.0;    // max |Δ| over the golden's sampled vertices, metres
  std::size_t worst = 0;   // its vertex
  std::size_t exact = 0;   // sampled vertices equal to MPFB's float32 on all three axes
  double aggregate = 0.0;  // max over axes of |Δmin|, |Δmax| and |Δsum| / vertex count
};

FitStats checkFit(const Json& g, const Asset& a, const Character& c, const std::string& what) {
  FitStats st;
  const Mesh& body = c.body().mesh;
  std::vector<float> fitted(a.mesh.positions.size());
  const Status fit = fitAsset(a, body.positions, fitted, body.scale_factor);
  EXPECT_TRUE(fit.ok()) << what << ": " << (fit.ok() ? "" : fit.error().message);
  if (!fit.ok()) return st;
  const std::size_t n = a.mesh.vertexCount();
  EXPECT_EQ(g.find("vertex_count")->asInt(), static_cast<std::int64_t>(n)) << what;
  EXPECT_EQ(g.find("mhclo_vertex_count")->asInt(), static_cast<std::int64_t>(a.file.bindings.size())) << what;

  // Sampled vertices: 0, s, 2s, ... below n.
  const auto stride = static_cast<std::size_t>(g.find("stride")->asInt());
  const Json& positions = *g.find("positions");
  EXPECT_EQ(positions.size(), (n + stride - 1) / stride) << what;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    const auto& row = positions.items()[k].items();
    const auto v = static_cast<std::size_t>(row[0].asInt());
    EXPECT_EQ(v, k * stride) << what;
    if (v >= n) {
      ADD_FAILURE() << what << ": golden vertex " << v << " outside the asset of " << n;
      continue;
    }
    bool equal = true;
    for (std::size_t c3 = 0; c3 < 3; ++c3) {
      equal = equal && fitted[v * 3 + c3] == static_cast<float>(row[c3 + 1].asDouble());
      const double d = std::abs(double(fitted[v * 3 + c3]) - row[c3 + 1].asDouble());
      if (d > st.sampled) {
        st.sampled = d;
        st.worst = v;
      }
    }
    st.exact += equal;
  }
  EXPECT_LE(st.sampled, kPositionTolerance) << what << ": vertex " << st.worst;

  // Every vertex: exact sum of the float32 coordinates, min, max per axis.
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, sum[3] = {0, 0, 0};
  for (std::size_t v = 0; v < n; ++v)
    for (std::size_t c3 = 0; c3 < 3; ++c3) {
      const double x = fitted[v * 3 + c3];
      lo[c3] = std::min(lo[c3], x);
      hi[c3] = std::max(hi[c3], x);
      sum[c3] += x;
    }
  const Json& agg = *g.find("aggregate");
  for (std::size_t c3 = 0; c3 < 3; ++c3) {
    const double dsum = std::abs(sum[c3] - agg.find("sum")->items()[c3].asDouble());
    // The golden's sum is rounded to 9 digits; each vertex may differ by the tolerance.
    EXPECT_LE(dsum, kPositionTolerance * double(n)) << what << ": sum of axis " << c3;
    const double dlo = std::abs(lo[c3] - agg.find("min")->items()[c3].asDouble());
    const double dhi = std::abs(hi[c3] - agg.find("max")->items()[c3].asDouble());
    EXPECT_LE(dlo, kPositionTolerance) << what << ": min of axis " << c3;
    EXPECT_LE(dhi, kPositionTolerance) << what << ": max of axis " << c3;
    st.aggregate = std::max({st.aggregate, dsum / double(n), dlo, dhi});
  }
  return st;
}

// --- Weights -----------------------------------------------------------------------------------

// MPFB loads an asset's custom weights against [main rig, sub-rig] (docs/mpfb-assets.md §4.2, §5):
// the sub-rig's bones are bones the groups may map to. The main skeleton with the sub-rig's bone
// names appended (parents within the sub-rig; names the main rig has already keep its bone).
Skeleton withSubrigBones(const Skeleton& main, const std::string& subrig_path) {
  Skeleton s = main;
  if (subrig_path.empty()) return s;
  auto sub = readRig(subrig_path);
  EXPECT_TRUE(sub.ok()) << subrig_path << ": " << (sub.ok() ? "" : sub.error().message);
  if (!sub.ok()) return s;
  for (const BoneDef& b : sub->bones) {
    if (s.find(b.name) >= 0) continue;
    s.names.push_back(b.name);
    s.parents.push_back(b.parent.empty() ? kNoParent : s.find(b.parent));
  }
  return s;
}

// An asset's weights as MPFB gives them: interpolated from the body's groups, then each custom
// weights sidecar with replace.
Expected<WeightsFile> assetWeights(const Asset& a, const Character& c) {
  Skin unweighted;  // a body without weights has no groups to interpolate from
  unweighted.vertex_count = c.body().mesh.vertexCount();
  unweighted.offsets.assign(unweighted.vertex_count + 1, 0);
  auto w = interpolateAssetWeights(c.has_skin ? c.body().skin : unweighted, c.fit.skeleton.names, a.file.bindings, a.path);
  if (!w) return w.error();
  const Skeleton skeleton = withSubrigBones(c.fit.skeleton, a.subrig_path);
  for (const auto& custom : a.custom_weights) {
    const Status st = applyCustomWeights(*w, custom.weights, custom.all_groups, skeleton, c.rig, a.mesh.vertexCount());
    if (!st.ok()) return st.error();
  }
  return w;
}

struct WeightStats {
  double sampled = 0.0;    // max |Δ| over the sampled vertices' weights
  double group_sum = 0.0;  // max over groups of |Δsum| / members
  std::size_t compared = 0;
  std::size_t inexact = 0;  // sampled weights whose float32 differs from MPFB's (Blender keeps float32)
};

// Vertex groups MPFB gives a body proxy from a table in its code, keyed by the proxy's uuid
// (socketobject/_extra_vertex_groups.py, added by HumanService._check_add_proxy): material slots
// (weight 1), not weights; rigfit's data has no such table.
const std::set<std::string> kProxyMaterialGroups = {"ears", "fingernails", "genitals", "lips", "nipple", "nipples", "nippleTip", "scalp", "toenails"};

bool skippedGroup(const Json& g, const std::string& name) {
  return g.find("object_type")->asString() == "Proxymeshes" && kProxyMaterialGroups.count(name) > 0;
}

WeightStats checkWeights(const Json& g, const Asset& a, const Character& c, const std::string& what) {
  WeightStats st;
  auto w = assetWeights(a, c);
  EXPECT_TRUE(w.ok()) << what << ": " << (w.ok() ? "" : w.error().message);
  if (!w.ok()) return st;
  const std::size_t n = a.mesh.vertexCount();
  std::vector<std::map<std::string, double>> per_vertex(n);
  for (const auto& group : w->groups)
    for (std::size_t k = 0; k < group.vertices.size(); ++k)
      per_vertex[static_cast<std::size_t>(group.vertices[k])][group.name] = group.weights[k];

  // Sampled vertices: the same groups (memberships of weight 0 included), weights within tolerance.
  for (const Json& row : g.find("weights")->items()) {
    const auto v = static_cast<std::size_t>(row.items()[0].asInt());
    if (v >= n) {
      ADD_FAILURE() << what << ": golden vertex " << v << " outside the asset of " << n;
      continue;
    }
    std::map<std::string, double> mpfb;
    for (const auto& [name, value] : row.items()[1].members())
      if (!skippedGroup(g, name)) mpfb[name] = value.asDouble();
    std::set<std::string> names_ours, names_mpfb;
    for (const auto& [name, value] : per_vertex[v]) names_ours.insert(name);
    for (const auto& [name, value] : mpfb) names_mpfb.insert(name);
    EXPECT_EQ(names_ours, names_mpfb) << what << ": groups of vertex " << v;
    for (const auto& [name, value] : mpfb) {
      auto it = per_vertex[v].find(name);
      if (it == per_vertex[v].end()) continue;
      const double d = std::abs(it->second - value);
      st.sampled = std::max(st.sampled, d);
      EXPECT_LE(d, kWeightTolerance) << what << ": vertex " << v << " group " << name;
      ++st.compared;
      st.inexact += static_cast<float>(it->second) != static_cast<float>(value);
    }
  }

  // Every vertex: the same groups with the same member counts and weight sums (the proxy's
  // Delete.* masks are checked with the masks).
  std::map<std::string, const WeightsFile::Group*> ours;
  for (const auto& group : w->groups) ours[group.name] = &group;
  std::set<std::string> mpfb_groups;
  for (const auto& [name, s] : g.find("group_stats")->members()) {
    if (name.rfind("Delete.", 0) == 0) continue;
    if (skippedGroup(g, name)) {
      EXPECT_EQ(s.find("sum")->asDouble(), double(s.find("count")->asInt())) << what << ": " << name << " is not all 1";
      continue;
    }
    mpfb_groups.insert(name);
    auto it = ours.find(name);
    if (it == ours.end()) {
      ADD_FAILURE() << what << ": MPFB has group " << name << ", rigfit does not";
      continue;
    }
    const WeightsFile::Group& group = *it->second;
    const auto members = static_cast<std::int64_t>(group.vertices.size());
    EXPECT_EQ(members, s.find("count")->asInt()) << what << ": members of " << name;
    double sum = 0.0;
    std::int64_t zero = 0;
    for (double x : group.weights) {
      sum += x;
      zero += x == 0.0;
    }
    EXPECT_EQ(zero, s.find("zero")->asInt()) << what << ": zero weights in " << name;
    const double d = std::abs(sum - s.find("sum")->asDouble());
    EXPECT_LE(d, kWeightTolerance * double(std::max<std::int64_t>(members, 1))) << what << ": weight sum of " << name;
    st.group_sum = std::max(st.group_sum, d / double(std::max<std::int64_t>(members, 1)));
  }
  for (const auto& [name, group] : ours) EXPECT_TRUE(mpfb_groups.count(name)) << what << ": rigfit has group " << name << ", MPFB does not";
  // The same float32 as Blender's vertex groups hold (the golden's 9 digits give them back exactly).
  EXPECT_EQ(st.inexact, 0u) << what;
  return st;
}

// --- Tests -------------------------------------------------------------------------------------

TEST(AssetGolden, GoldensDescribeTheBodiesRigfitBuilds) {
  REQUIRE_GOLDEN_DATA();
  for (const BodyCase& bc : {kGameEngineCases[0], kGameEngineCases[1], kGameEngineCases[2], kDefaultShoesCase}) {
    SCOPED_TRACE(bc.golden);
    const Json* g = golden(bc.golden);
    ASSERT_NE(g, nullptr);
    ASSERT_EQ(g->find("format")->asString(), "rigfit-asset-golden/1");
    EXPECT_EQ(g->find("rig")->asString(), bc.rig);
    const Json& body = *g->find("body");
    EXPECT_EQ(body.find("case")->asString(), bc.body);
    EXPECT_EQ(body.find("grounded")->asBool(), bc.ground);
    if (bc.macro) {
      EXPECT_EQ(body.find("rigfit_macro")->asString(), bc.macro);
    } else {
      EXPECT_TRUE(body.find("rigfit_macro")->isNull());
    }
    const Character* c = character(bc);
    ASSERT_NE(c, nullptr);
    const Mesh& mesh = c->body().mesh;
    ASSERT_EQ(body.find("vertex_count")->asInt(), static_cast<std::int64_t>(mesh.vertexCount()));
    ASSERT_EQ(body.find("face_count")->asInt(), static_cast<std::int64_t>(mesh.faceCount()));
    // The body vertices assets measure their size on, and the lowest body vertex.
    double worst = 0.0;
    for (const Json& row : body.find("scale_reference_vertices")->items()) {
      const auto v = static_cast<std::size_t>(row.items()[0].asInt());
      ASSERT_LT(v, mesh.vertexCount());
      for (std::size_t c3 = 0; c3 < 3; ++c3) worst = std::max(worst, std::abs(double(mesh.positions[v * 3 + c3]) - row.items()[c3 + 1].asDouble()));
    }
    EXPECT_LE(worst, kPositionTolerance);
    const double dz = std::abs(double(lowestBodyZ(mesh.positions)) - body.find("lowest_body_z")->asDouble());
    EXPECT_LE(dz, kPositionTolerance);
    std::printf("[asset golden] body %-22s scale reference vertices max |d| %.3g m, lowest z |d| %.3g m\n", bc.golden, worst, dz);
  }
}

TEST(AssetGolden, FittedPositionsMatchMpfb) {
  REQUIRE_GOLDEN_DATA();
  for (const BodyCase& bc : {kGameEngineCases[0], kGameEngineCases[1], kGameEngineCases[2], kDefaultShoesCase}) {
    const Json* g = golden(bc.golden);
    const Character* c = character(bc);
    ASSERT_TRUE(g && c) << bc.golden;
    const Json& assets = *g->find("assets");
    ASSERT_EQ(assets.size(), std::string(bc.rig) == "default" ? 1u : 12u) << bc.golden;
    double worst = 0.0;
    for (const auto& [name, ga] : assets.members()) {
      const std::string what = std::string(bc.golden) + " " + name;
      const Asset* a = asset(ga.find("file")->asString(), bc.rig);
      ASSERT_NE(a, nullptr) << what;
      EXPECT_EQ(stemOf(a->path), name);
      const FitStats st = checkFit(ga, *a, *c, what);
      worst = std::max(worst, st.sampled);
      std::printf("[asset golden] %-20s %-20s positions max |d| %.3g m (vertex %zu), %zu/%zu float32-equal, aggregates %.3g m\n",
                  bc.golden, name.c_str(), st.sampled, st.worst, st.exact, ga.find("positions")->size(), st.aggregate);
    }
    std::printf("[asset golden] %-20s all assets: positions max |d| %.3g m\n", bc.golden, worst);
  }
}

// The positions above differ from MPFB's by the bodies' own difference (MPFB's body is already a
// few float32 steps away from rigfit's on the plain base mesh: its import applies the rotation and
// the 0.1 resize through Blender's float matrices). Where the golden shows MPFB's body itself (the
// vertices exact-copy bindings reproduce, and the scale reference vertices), fitting on those
// values gives MPFB's float32 results bit for bit: the fit's arithmetic is MPFB's.
TEST(AssetGolden, FitOnMpfbsBodyVerticesIsBitExact) {
  REQUIRE_GOLDEN_DATA();
  for (const BodyCase& bc : kGameEngineCases) {
    const Json* g = golden(bc.golden);
    const Character* c = character(bc);
    ASSERT_TRUE(g && c) << bc.golden;
    const Mesh& body = c->body().mesh;
    const std::size_t nb = body.vertexCount();
    std::vector<float> mpfb_body = body.positions;
    std::vector<std::uint8_t> known(nb, 0);
    auto learn = [&](std::size_t v, const std::vector<Json>& row) {
      for (std::size_t c3 = 0; c3 < 3; ++c3) mpfb_body[v * 3 + c3] = static_cast<float>(row[c3 + 1].asDouble());
      known[v] = 1;
    };
    for (const Json& row : g->find("body")->find("scale_reference_vertices")->items())
      learn(static_cast<std::size_t>(row.items()[0].asInt()), row.items());
    const Json& assets = *g->find("assets");
    for (const auto& [name, ga] : assets.members()) {
      const Asset* a = asset(ga.find("file")->asString(), bc.rig);
      ASSERT_NE(a, nullptr) << name;
      const AssetBindings& b = a->file.bindings;
      for (const Json& row : ga.find("positions")->items()) {
        const auto i = static_cast<std::size_t>(row.items()[0].asInt());
        const bool copy = b.vertices[i * 3] == b.vertices[i * 3 + 1] && b.vertices[i * 3] == b.vertices[i * 3 + 2] && b.weights[i * 3] == 1.0 &&
                          b.weights[i * 3 + 1] == 0.0 && b.weights[i * 3 + 2] == 0.0 && b.offsets[i * 3] == 0.0f &&
                          b.offsets[i * 3 + 1] == 0.0f && b.offsets[i * 3 + 2] == 0.0f;
        if (copy && b.vertices[i * 3] >= 0 && static_cast<std::size_t>(b.vertices[i * 3]) < nb)
          learn(static_cast<std::size_t>(b.vertices[i * 3]), row.items());
      }
    }
    std::size_t compared = 0, equal = 0, fitted_compared = 0;  // the last: not exact copies
    std::set<std::string> fitted_assets;
    for (const auto& [name, ga] : assets.members()) {
      const Asset* a = asset(ga.find("file")->asString(), bc.rig);
      const AssetBindings& b = a->file.bindings;
      std::vector<float> fitted(a->mesh.positions.size());
      const Status st = fitAsset(*a, mpfb_body, fitted, body.scale_factor);
      ASSERT_TRUE(st.ok()) << name << ": " << st.error().message;
      for (const Json& row : ga.find("positions")->items()) {
        const auto i = static_cast<std::size_t>(row.items()[0].asInt());
        bool all_known = true;
        for (std::size_t k = 0; k < 3; ++k) {
          std::int64_t v = b.vertices[i * 3 + k];
          if (v < 0) v += static_cast<std::int64_t>(nb);
          all_known = all_known && v >= 0 && static_cast<std::size_t>(v) < nb && known[static_cast<std::size_t>(v)];
        }
        if (!all_known) continue;
        ++compared;
        if (b.weights[i * 3] != 1.0 || b.offsets[i * 3] != 0.0f || b.offsets[i * 3 + 1] != 0.0f || b.offsets[i * 3 + 2] != 0.0f) {
          ++fitted_compared;
          fitted_assets.insert(name);
        }
        bool same = true;
        for (std::size_t c3 = 0; c3 < 3; ++c3) same = same && fitted[i * 3 + c3] == static_cast<float>(row.items()[c3 + 1].asDouble());
        equal += same;
        EXPECT_TRUE(same) << bc.golden << " " << name << ": vertex " << i;
      }
    }
    EXPECT_GT(fitted_compared, 100u) << bc.golden;
    std::size_t known_count = 0;
    for (auto k : known) known_count += k;
    std::string names;
    for (const auto& n : fitted_assets) names += " " + n;
    std::printf("[asset golden] %-20s on MPFB's body (%zu vertices known): %zu/%zu sampled asset vertices float32-equal, %zu of them "
                "not exact copies (%s)\n",
                bc.golden, known_count, equal, compared, fitted_compared, names.c_str() + (names.empty() ? 0 : 1));
  }
}

TEST(AssetGolden, WeightsMatchMpfb) {
  REQUIRE_GOLDEN_DATA();
  for (const BodyCase& bc : kGameEngineCases) {
    const Json* g = golden(bc.golden);
    const Character* c = character(bc);
    ASSERT_TRUE(g && c) << bc.golden;
    ASSERT_TRUE(c->has_skin);
    for (const auto& [name, ga] : g->find("assets")->members()) {
      const std::string what = std::string(bc.golden) + " " + name;
      const Asset* a = asset(ga.find("file")->asString(), bc.rig);
      ASSERT_NE(a, nullptr) << what;
      const WeightStats st = checkWeights(ga, *a, *c, what);
      std::printf("[asset golden] %-20s %-20s weights max |d| %.3g over %zu sampled weights (%zu not float32-equal), group sums %.3g per member\n",
                  bc.golden, name.c_str(), st.sampled, st.compared, st.inexact, st.group_sum);
    }
  }
}

// shoes01.mhw names the default rig's bones: on game_engine its groups map to nothing and MPFB
// ignores them; rigfit does too, and says so.
TEST(AssetGolden, CustomWeightsForAnotherRigAreAWarning) {
  REQUIRE_GOLDEN_DATA();
  CharacterOptions options;
  options.rig = "game_engine";
  auto worn = loadWornAsset(assetsDir() + "/clothes/shoes01/shoes01.mhclo", "game_engine");
  ASSERT_TRUE(worn.ok()) << worn.error().message;
  options.assets.push_back(std::make_shared<const WornAsset>(std::move(*worn)));
  auto c = loadCharacter(DataSource::folder(test::sharedData()), options);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const std::string want = assetsDir() + "/clothes/shoes01/shoes01.mhw: 162 of its 163 groups name no bone of rig game_engine "
                           "and are ignored, as MPFB ignores them (breast.L, breast.R, clavicle.L, clavicle.R, eye.L, eye.R, ...)";
  EXPECT_NE(std::find(c->warnings.begin(), c->warnings.end(), want), c->warnings.end());
}

// The ponytail's sub-rig, worn: fitted on the fitted hair and the body's joint cubes as MPFB fits it
// (bone heads and tails within 1e-6 m of MPFB's), its root put under the game_engine rig's `head`
// (its CHILD_OF's JOINTS reference joint-head -> joint-head-2), and the hair's skin mixing the
// sub-rig's deformation over the main rig's by mhmask-subrig.
TEST(AssetGolden, PonytailSubrigFitsAndJoinsAsMpfb) {
  REQUIRE_GOLDEN_DATA();
  for (const BodyCase& bc : kGameEngineCases) {
    const Json* g = golden(bc.golden);
    ASSERT_TRUE(g) << bc.golden;
    const Json& gp = *g->find("assets")->find("ponytail01");
    const Json* gsub = gp.find("subrig");
    ASSERT_TRUE(gsub) << bc.golden;
    EXPECT_TRUE(gsub->find("matrix_world_is_identity")->asBool());

    const DataSource data = DataSource::folder(test::sharedData());
    CharacterOptions options;
    options.rig = bc.rig;
    if (bc.macro) {
      auto m = parseMacroSettings(bc.macro);
      ASSERT_TRUE(m.ok());
      options.shape.use_macros = true;
      options.shape.macros = *m;
    }
    options.shape.ground = bc.ground;
    auto worn = loadWornAsset(assetsDir() + "/" + gp.find("file")->asString(), bc.rig);
    ASSERT_TRUE(worn.ok()) << worn.error().message;
    options.assets.push_back(std::make_shared<const WornAsset>(std::move(*worn)));
    auto c = loadCharacter(data, options);
    ASSERT_TRUE(c.ok()) << c.error().message;
    const Skeleton& s = c->fit.skeleton;
    const Character* plain = character(bc);
    ASSERT_TRUE(plain);
    const std::size_t first = plain->fit.skeleton.size();
    ASSERT_EQ(s.size(), first + 6) << bc.golden;
    ASSERT_EQ(s.subrig_of.size(), s.size());
    double worst = 0.0;
    for (const Json& gb : gsub->find("bones")->items()) {
      const std::string name = gb.find("name")->asString();
      const int b = s.find(name);
      ASSERT_GE(b, static_cast<int>(first)) << bc.golden << " " << name;
      EXPECT_EQ(s.subrig_of[static_cast<std::size_t>(b)], "ponytail01");
      for (int k = 0; k < 3; ++k) {
        worst = std::max(worst, std::abs(s.heads[static_cast<std::size_t>(b)][k] - gb.find("head")->items()[static_cast<std::size_t>(k)].asDouble()));
        worst = std::max(worst, std::abs(s.tails[static_cast<std::size_t>(b)][k] - gb.find("tail")->items()[static_cast<std::size_t>(k)].asDouble()));
      }
      const Json* gparent = gb.find("parent");
      const int parent = s.parents[static_cast<std::size_t>(b)];
      if (gparent->isNull())
        EXPECT_EQ(parent >= 0 ? s.names[static_cast<std::size_t>(parent)] : "", "head") << bc.golden << ": the CHILD_OF target";
      else
        EXPECT_EQ(parent >= 0 ? s.names[static_cast<std::size_t>(parent)] : "", gparent->asString()) << bc.golden << " " << name;
    }
    EXPECT_LE(worst, kPositionTolerance) << bc.golden;
    std::printf("[asset golden] %-20s ponytail01 sub-rig heads and tails max |d| %.3g m\n", bc.golden, worst);
    // The root's rest matrix is unchanged by its new parent; its local rest data compose back to it.
    const std::size_t root = static_cast<std::size_t>(s.find("root"));
    const std::size_t head = static_cast<std::size_t>(s.parents[root]);
    Eigen::Matrix4d local = Eigen::Matrix4d::Identity();
    local.topLeftCorner<3, 3>() = s.local_rotation[root];
    local.topRightCorner<3, 1>() = s.local_head[root] + Eigen::Vector3d(0, s.local_length[head], 0);
    EXPECT_LE((s.rest[head] * local - s.rest[root]).cwiseAbs().maxCoeff(), 1e-12);

    // The hair's skin: main-rig weights scaled by 1 - m, sub-rig weights by m, each part summing
    // to its share (mhmask-subrig m).
    const CharacterMesh& hair = c->meshes.back();
    ASSERT_EQ(hair.name, "ponytail01");
    const Skin& skin = hair.skin;
    EXPECT_EQ(skin.bone_count, s.size());
    const auto mask = std::find(skin.mask_names.begin(), skin.mask_names.end(), "mhmask-subrig");
    ASSERT_NE(mask, skin.mask_names.end());
    const std::vector<float>& m = skin.masks[static_cast<std::size_t>(mask - skin.mask_names.begin())];
    std::size_t mixed = 0;
    for (std::size_t v = 0; v < skin.vertex_count; ++v) {
      double main_part = 0.0, sub_part = 0.0;
      for (std::uint32_t k = skin.offsets[v]; k < skin.offsets[v + 1]; ++k)
        (skin.bones[k] >= first ? sub_part : main_part) += skin.weights[k];
      EXPECT_NEAR(sub_part, m[v], 1e-6) << bc.golden << " vertex " << v;
      EXPECT_NEAR(main_part, 1.0 - m[v], 1e-6) << bc.golden << " vertex " << v;
      mixed += m[v] > 0.0f && m[v] < 1.0f;
    }
    EXPECT_GT(mixed, 500u);
  }
}

// shoes01.mhw names the default rig's bones: on default it replaces every group (the body has no
// bone groups here, so nothing interpolated is left), memberships of weight 0 included.
TEST(AssetGolden, DefaultRigShoesTakeTheirCustomWeights) {
  REQUIRE_GOLDEN_DATA();
  const Json* g = golden(kDefaultShoesCase.golden);
  const Character* c = character(kDefaultShoesCase);
  ASSERT_TRUE(g && c);
  EXPECT_FALSE(c->has_skin);
  const Json& ga = *g->find("assets")->find("shoes01");
  const Asset* a = asset(ga.find("file")->asString(), "default");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->custom_weights.size(), 1u);
  const WeightStats st = checkWeights(ga, *a, *c, "base.default shoes01");
  EXPECT_GT(st.compared, 0u);
  std::printf("[asset golden] base.default.shoes01  shoes01              weights max |d| %.3g over %zu sampled weights (%zu not float32-equal), group sums %.3g per member\n",
              st.sampled, st.compared, st.inexact, st.group_sum);
  // Replacing on empty groups is loading the file: the golden's groups are shoes01.mhw's non-empty ones.
  std::set<std::string> listed, mpfb;
  for (const auto& group : a->custom_weights[0].weights.groups)
    if (!group.vertices.empty()) listed.insert(group.name);
  for (const auto& [name, s] : ga.find("group_stats")->members()) mpfb.insert(name);
  EXPECT_EQ(listed, mpfb);
}

// The body's Delete.* groups and the faces their masks hide: each clothes item alone and all worn
// together; the same on every body.
TEST(AssetGolden, DeleteGroupsAndHiddenFacesMatchMpfb) {
  REQUIRE_GOLDEN_DATA();
  for (const BodyCase& bc : {kGameEngineCases[0], kGameEngineCases[1], kGameEngineCases[2], kDefaultShoesCase}) {
    const Json* g = golden(bc.golden);
    const Character* c = character(bc);
    ASSERT_TRUE(g && c) << bc.golden;
    const Mesh& body = c->body().mesh;
    std::vector<const ProxyFile*> worn;
    std::vector<std::string> groups;
    for (const auto& [name, ga] : g->find("assets")->members()) {
      const std::string what = std::string(bc.golden) + " " + name;
      const Asset* a = asset(ga.find("file")->asString(), bc.rig);
      ASSERT_NE(a, nullptr) << what;
      worn.push_back(&a->file);
      const ProxyFile* alone[] = {&a->file};
      const BodyMask mask = bodyMask(body, alone);
      const Json* dg = ga.find("delete_group");
      if (!dg) {
        // No group on the body: nothing masked.
        EXPECT_EQ(countSet(mask.vertex_masked), 0u) << what;
        continue;
      }
      EXPECT_TRUE(a->file.has_delete_verts) << what;
      EXPECT_EQ(dg->find("name")->asString(), "Delete." + name) << what;
      groups.push_back(dg->find("name")->asString());
      std::vector<std::uint8_t> vertices, faces;
      ASSERT_TRUE(expandRanges(*dg->find("body_vertices"), body.vertexCount(), vertices)) << what;
      ASSERT_TRUE(expandRanges(*dg->find("hidden_body_faces"), body.faceCount(), faces)) << what;
      EXPECT_EQ(countSet(vertices), static_cast<std::size_t>(dg->find("body_vertex_count")->asInt())) << what;
      EXPECT_EQ(countSet(faces), static_cast<std::size_t>(dg->find("hidden_body_face_count")->asInt())) << what;
      EXPECT_EQ(firstDifference(mask.vertex_masked, vertices), "") << what << ": delete group";
      EXPECT_EQ(firstDifference(mask.face_hidden, faces), "") << what << ": hidden faces";
      std::printf("[asset golden] %-20s %-20s delete group %zu vertices, %zu hidden faces: %s\n", bc.golden, name.c_str(),
                  countSet(mask.vertex_masked), countSet(mask.face_hidden),
                  mask.vertex_masked == vertices && mask.face_hidden == faces ? "equal" : "DIFFERENT");
    }
    const Json& together = *g->find("worn_together");
    std::vector<std::string> mpfb_groups;
    for (const Json& s : together.find("groups")->items()) mpfb_groups.push_back(s.asString());
    EXPECT_EQ(groups, mpfb_groups) << bc.golden;
    const BodyMask all = bodyMask(body, worn);
    std::vector<std::uint8_t> faces;
    ASSERT_TRUE(expandRanges(*together.find("hidden_body_faces"), body.faceCount(), faces)) << bc.golden;
    EXPECT_EQ(countSet(faces), static_cast<std::size_t>(together.find("hidden_body_face_count")->asInt()));
    EXPECT_EQ(firstDifference(all.face_hidden, faces), "") << bc.golden << ": hidden faces, all worn";
    std::printf("[asset golden] %-20s all worn: %zu hidden body faces: %s\n", bc.golden, countSet(all.face_hidden),
                all.face_hidden == faces ? "equal" : "DIFFERENT");
  }
}

// The body proxy's masks: each Clothes item's delete group carried over (a proxy vertex is masked
// when any of its binding vertices is in the body's group), and the proxy faces they hide.
TEST(AssetGolden, ProxyMasksMatchMpfb) {
  REQUIRE_GOLDEN_DATA();
  for (const BodyCase& bc : kGameEngineCases) {
    const Json* g = golden(bc.golden);
    const Character* c = character(bc);
    ASSERT_TRUE(g && c) << bc.golden;
    const Mesh& body = c->body().mesh;
    const Json& assets = *g->find("assets");
    const Json& gp = *assets.find("female_generic");
    ASSERT_EQ(gp.find("object_type")->asString(), "Proxymeshes");
    const Asset* proxy = asset(gp.find("file")->asString(), bc.rig);
    ASSERT_NE(proxy, nullptr);
    const Mesh& pm = proxy->mesh;
    const Json& masks = *gp.find("masks");

    // Only Clothes carry their group to the proxy (MPFB compares the type with "Clothes").
    std::vector<const ProxyFile*> clothes;
    std::vector<std::string> carried;
    for (const auto& [name, ga] : assets.members())
      if (ga.find("object_type")->asString() == "Clothes") {
        const Asset* a = asset(ga.find("file")->asString(), bc.rig);
        ASSERT_NE(a, nullptr) << name;
        clothes.push_back(&a->file);
        carried.push_back("Delete." + name);
      }
    std::vector<std::string> mpfb_carried;
    for (const auto& [name, m] : masks.members()) mpfb_carried.push_back(name);
    EXPECT_EQ(carried, mpfb_carried) << bc.golden;

    for (std::size_t k = 0; k < clothes.size() && k < mpfb_carried.size(); ++k) {
      const std::string what = std::string(bc.golden) + " proxy " + carried[k];
      const Json& m = *masks.find(carried[k]);
      EXPECT_TRUE(m.find("equals_any_binding_vertex_rule")->asBool()) << what;
      const ProxyFile* alone[] = {clothes[k]};
      const BodyMask body_mask = bodyMask(body, alone);
      std::vector<std::uint8_t> masked(proxy->file.bindings.size()), hidden(pm.faceCount());
      proxyMask(proxy->file.bindings, body_mask.vertex_masked, masked);
      maskedFaces(masked, pm.face_offsets, pm.corner_vertices, hidden);
      std::vector<std::uint8_t> vertices, faces;
      ASSERT_TRUE(expandRanges(*m.find("proxy_vertices"), masked.size(), vertices)) << what;
      ASSERT_TRUE(expandRanges(*m.find("hidden_proxy_faces"), hidden.size(), faces)) << what;
      EXPECT_EQ(countSet(vertices), static_cast<std::size_t>(m.find("proxy_vertex_count")->asInt())) << what;
      EXPECT_EQ(countSet(faces), static_cast<std::size_t>(m.find("hidden_proxy_face_count")->asInt())) << what;
      EXPECT_EQ(firstDifference(masked, vertices), "") << what << ": masked proxy vertices";
      EXPECT_EQ(firstDifference(hidden, faces), "") << what << ": hidden proxy faces";
      // The group in the proxy's vertex groups too (weight 1).
      const Json* stats = gp.find("group_stats")->find(carried[k]);
      ASSERT_NE(stats, nullptr) << what;
      EXPECT_EQ(stats->find("count")->asInt(), static_cast<std::int64_t>(countSet(masked))) << what;
      std::printf("[asset golden] %-20s proxy %-26s %zu vertices, %zu hidden faces: %s\n", bc.golden, carried[k].c_str(),
                  countSet(masked), countSet(hidden), masked == vertices && hidden == faces ? "equal" : "DIFFERENT");
    }

    // All worn together.
    const Json& together = *g->find("worn_together");
    std::vector<std::string> proxy_groups;
    for (const Json& s : together.find("proxy_groups")->items()) proxy_groups.push_back(s.asString());
    EXPECT_EQ(proxy_groups, carried);
    const BodyMask body_mask = bodyMask(body, clothes);
    std::vector<std::uint8_t> masked(proxy->file.bindings.size()), hidden(pm.faceCount()), faces;
    proxyMask(proxy->file.bindings, body_mask.vertex_masked, masked);
    maskedFaces(masked, pm.face_offsets, pm.corner_vertices, hidden);
    ASSERT_TRUE(expandRanges(*together.find("hidden_proxy_faces"), hidden.size(), faces)) << bc.golden;
    EXPECT_EQ(countSet(faces), static_cast<std::size_t>(together.find("hidden_proxy_face_count")->asInt()));
    EXPECT_EQ(firstDifference(hidden, faces), "") << bc.golden << ": hidden proxy faces, all worn";
    std::printf("[asset golden] %-20s proxy, all worn: %zu hidden faces: %s\n", bc.golden, countSet(hidden),
                hidden == faces ? "equal" : "DIFFERENT");
  }
}

}  // namespace
}  // namespace rigfit
