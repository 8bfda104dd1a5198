// Fitting assets (docs/mpfb-assets.md §2), the body mask (§3) and asset weights (§4) on small
// hand-computed cases.
#include <gtest/gtest.h>

#include "rigfit/asset.hpp"

namespace rigfit {
namespace {

ProxyFile parse(std::string_view text) {
  auto r = parseProxyFile(text, "t.mhclo");
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(*r) : ProxyFile{};
}

// Five body vertices, rig frame.
const std::vector<float> kBody = {0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 3, 0, 4, 8, 12};

TEST(AssetFit, ScaleFactorsUseTheRigFrameAxes) {
  // x from rig x (v0-v1: 1), y_scale from rig z (v0-v2: 2), z_scale from rig y (v0-v3: 3).
  const ProxyFile f = parse("x_scale 0 1 2\ny_scale 2 0 4\nz_scale 0 3 1.5\nverts 0\n1\n");
  auto s = assetScaleFactors(f, kBody);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->x, 0.5);
  EXPECT_EQ(s->y, 0.5);
  EXPECT_EQ(s->z, 2.0);
  // Without scale lines: the body's scale factor (float32 0.1 as a double).
  auto d = assetScaleFactors(parse("verts 0\n1\n"), kBody);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->x, static_cast<double>(0.1f));
  EXPECT_EQ(d->y, static_cast<double>(0.1f));
  EXPECT_EQ(d->z, static_cast<double>(0.1f));
}

TEST(AssetFit, ScaleIndexOutsideTheBodyIsAnError) {
  auto s = assetScaleFactors(parse("x_scale 0 1 2\ny_scale 2 0 4\nz_scale 0 5 1.5\nverts 0\n1\n"), kBody);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "t.mhclo: z_scale: vertex 5 is outside the body of 5 vertices (MPFB refuses to fit)");
  s = assetScaleFactors(parse("x_scale 0 1 2\nverts 0\n1\n"), kBody);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "t.mhclo: x_scale without y_scale (MPFB cannot fit it)");
}

// A reference length of 0 (MPFB divides by it) and bindings that overflow float are errors naming
// the file and the line or the asset vertex, not infinite vertices in the output.
TEST(AssetFit, NonFiniteScaleOrPositionIsAnError) {
  auto s = assetScaleFactors(parse("x_scale 0 1 0\ny_scale 2 0 4\nz_scale 0 3 1.5\nverts 0\n1\n"), kBody);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kRange);
  EXPECT_EQ(s.error().message, "t.mhclo: x_scale: the reference length 0.0 gives no finite scale (MPFB fails on it)");
  const ProxyFile f = parse("verts 0\n4\n4 1 2 1e38 0 0 0 0 0\n");
  auto d = assetScaleFactors(f, kBody);
  ASSERT_TRUE(d.ok());
  std::vector<float> out(6, 0.0f);
  const Status st = fitAssetPositions(f.bindings, *d, kBody, std::vector<float>(6, 0.0f), out, "t.mhclo");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "t.mhclo: asset vertex 1: the fitted position overflows single precision (its weights or offsets are too large)");
}

TEST(AssetFit, HandComputedPositions) {
  const ProxyFile f = parse(
      "x_scale 0 1 2\ny_scale 2 0 4\nz_scale 0 3 1.5\nverts 0\n"
      "1 2 4 0.5 0.25 0.25 1 2 4\n"  // offset (1, 2, 4) MH -> (1, -4, 2) rig, scaled (sx, sz, sy)
      "4\n"                          // exact copy of body vertex 4
      "5 0 0 1 0 0 0 0 0\n"          // first index outside: keeps the OBJ position
      "0 6 0 1 0 0 0 0 0\n"          // second index > n: keeps the OBJ position
      "0 -1 1 0 1 0 0 0 0\n"         // -1: Python counts from the end (body vertex 4)
      "0 0 5 1 0 0 0 0 0\n");        // third index outside: keeps the OBJ position
  auto s = assetScaleFactors(f, kBody);
  ASSERT_TRUE(s.ok());
  const std::vector<float> obj = {9, 9, 9, 9, 9, 9, 7, 7, 7, 6, 6, 6, 9, 9, 9, 5, 5, 5};
  std::vector<float> out(obj.size(), -1.0f);
  ASSERT_TRUE(fitAssetPositions(f.bindings, *s, kBody, obj, out, "t.mhclo").ok());
  // 0.5*(1,0,0) + 0.25*(0,0,2) + 0.25*(4,8,12) + (1*0.5, -4*2, 2*0.5)
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[1], -6.0f);
  EXPECT_EQ(out[2], 4.5f);
  EXPECT_EQ((std::vector<float>(out.begin() + 3, out.begin() + 6)), (std::vector<float>{4, 8, 12}));
  EXPECT_EQ((std::vector<float>(out.begin() + 6, out.begin() + 9)), (std::vector<float>{7, 7, 7}));
  EXPECT_EQ((std::vector<float>(out.begin() + 9, out.begin() + 12)), (std::vector<float>{6, 6, 6}));
  EXPECT_EQ((std::vector<float>(out.begin() + 12, out.begin() + 15)), (std::vector<float>{4, 8, 12}));
  EXPECT_EQ((std::vector<float>(out.begin() + 15, out.begin() + 18)), (std::vector<float>{5, 5, 5}));
  // In place (out = the OBJ positions) gives the same.
  std::vector<float> inplace = obj;
  ASSERT_TRUE(fitAssetPositions(f.bindings, *s, kBody, inplace, inplace, "t.mhclo").ok());
  EXPECT_EQ(inplace, out);
}

TEST(AssetFit, SecondIndexEqualToTheVertexCountFailsAsInMpfb) {
  // MPFB's `v2 > n` lets v2 == n through, and the lookup then fails.
  const ProxyFile f = parse("verts 0\n0 5 0 1 0 0 0 0 0\n");
  std::vector<float> out(3);
  const Status st = fitAssetPositions(f.bindings, {}, kBody, std::vector<float>{0, 0, 0}, out, "t.mhclo");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "t.mhclo: asset vertex 0: body vertex 5 is outside the body of 5 vertices (MPFB fails on it)");
  const ProxyFile g = parse("verts 0\n0 0 -6 1 0 0 0 0 0\n");
  EXPECT_FALSE(fitAssetPositions(g.bindings, {}, kBody, std::vector<float>{0, 0, 0}, out, "t.mhclo").ok());
}

TEST(AssetFit, Float32ArithmeticAsMathutils) {
  // Weights rounded to float32, products and sums in float32 left to right, the offset scaled in
  // double then rounded: a double computation rounds differently for these numbers.
  const std::vector<float> body = {0.1f, 0.7f, 1.3f, 0.2f, 0.9f, 1.7f, 0.3f, 0.11f, 1.9f};
  const ProxyFile f = parse("verts 0\n0 1 2 0.33331 0.33337 0.33332 0.01606 0.04671 -0.18255\n");
  const AssetScaleFactors s{0.0713, 0.0911, 0.1213};
  std::vector<float> out(3);
  ASSERT_TRUE(fitAssetPositions(f.bindings, s, body, std::vector<float>{0, 0, 0}, out, "t").ok());
  for (int a = 0; a < 3; ++a) {
    const float w0 = 0.33331f, w1 = 0.33337f, w2 = 0.33332f;
    const float t0 = w0 * body[a], t1 = w1 * body[3 + a], t2 = w2 * body[6 + a];
    const float d[3] = {0.01606f, 0.18255f, 0.04671f};
    const double scale[3] = {s.x, s.z, s.y};
    const float off = static_cast<float>(static_cast<double>(d[a]) * scale[a]);
    float acc = t0 + t1;
    acc = acc + t2;
    EXPECT_EQ(out[a], acc + off) << a;
  }
}

// ---------------------------------------------------------------------------------------------
// Body mask

// A strip of three quads: 0-1-2-3 along the bottom, 4-5-6-7 along the top.
struct Strip {
  std::vector<std::uint32_t> offsets = {0, 4, 8, 12};
  std::vector<std::uint32_t> corners = {0, 1, 5, 4, 1, 2, 6, 5, 2, 3, 7, 6};
};

std::vector<int> members(const std::vector<std::uint8_t>& flags) {
  std::vector<int> out;
  for (std::size_t i = 0; i < flags.size(); ++i)
    if (flags[i]) out.push_back(static_cast<int>(i));
  return out;
}

TEST(AssetMask, ConservativeDeleteGroup) {
  const Strip s;
  std::vector<std::uint8_t> group(8, 0), faces(3, 0);
  // Face 0 is fully listed; face 1 has 1, 2, 5 listed but not 6: those lose their listing.
  addDeleteGroup(std::vector<std::int64_t>{0, 1, 4, 5, 2, 100, -3}, s.offsets, s.corners, group);
  EXPECT_EQ(members(group), (std::vector<int>{0, 4}));
  maskedFaces(group, s.offsets, s.corners, faces);
  EXPECT_EQ(members(faces), (std::vector<int>{0}));

  // Each partial face removes one listing: vertices listed twice survive one partial face.
  std::fill(group.begin(), group.end(), 0);
  addDeleteGroup(std::vector<std::int64_t>{0, 1, 4, 5, 2, 1, 5}, s.offsets, s.corners, group);
  EXPECT_EQ(members(group), (std::vector<int>{0, 1, 4, 5}));
  maskedFaces(group, s.offsets, s.corners, faces);
  EXPECT_EQ(members(faces), (std::vector<int>{0, 1}));

  // Nothing fully listed: nothing hidden.
  std::fill(group.begin(), group.end(), 0);
  addDeleteGroup(std::vector<std::int64_t>{1, 2, 5}, s.offsets, s.corners, group);
  EXPECT_TRUE(members(group).empty());
}

TEST(AssetMask, SeveralAssetsAndTheProxyCarryOver) {
  Mesh body;
  const Strip s;
  body.positions.assign(8 * 3, 0.0f);
  body.face_offsets = s.offsets;
  body.corner_vertices = s.corners;
  const ProxyFile a = parse("verts 0\n1\n\ndelete_verts\n0 - 1 4 - 5\n");
  const ProxyFile b = parse("verts 0\n1\n\ndelete_verts\n3 2 6 7\n");
  const ProxyFile* worn[] = {&a, &b};
  const BodyMask mask = bodyMask(body, worn);
  // Each asset's group is made conservative on its own (MPFB: one Delete group per asset): face 1,
  // whose vertices are all listed by one asset or the other, stays.
  EXPECT_EQ(members(mask.vertex_masked), (std::vector<int>{0, 3, 4, 7}));
  EXPECT_EQ(members(mask.face_hidden), (std::vector<int>{0, 2}));

  const ProxyFile proxy = parse("verts 0\n3\n1 2 3 0.3 0.3 0.4 0 0 0\n2 2 9 1 0 0 0 0 0\n");
  std::vector<std::uint8_t> group(8, 0);
  group[1] = 1;
  std::vector<std::uint8_t> proxy_masked(3, 7);
  proxyMask(proxy.bindings, group, proxy_masked);
  EXPECT_EQ(proxy_masked, (std::vector<std::uint8_t>{0, 1, 0}));
}

// ---------------------------------------------------------------------------------------------
// Weights

struct TinyRig {
  Skeleton skeleton;
  RigDefinition rig;
  TinyRig() {
    skeleton.names = {"root", "a", "b"};
    skeleton.parents = {kNoParent, 0, 0};
  }
};

WeightsFile weightsOf(std::string_view json) {
  auto w = parseWeights(json, "w.json");
  EXPECT_TRUE(w.ok()) << w.error().message;
  return w.ok() ? std::move(*w) : WeightsFile{};
}

const WeightsFile::Group* group(const WeightsFile& f, std::string_view name) {
  for (const auto& g : f.groups)
    if (g.name == name) return &g;
  return nullptr;
}

std::vector<std::pair<std::int64_t, double>> pairs(const WeightsFile::Group* g) {
  std::vector<std::pair<std::int64_t, double>> out;
  if (g)
    for (std::size_t i = 0; i < g->vertices.size(); ++i) out.emplace_back(g->vertices[i], g->weights[i]);
  return out;
}

using Pairs = std::vector<std::pair<std::int64_t, double>>;

TEST(AssetWeights, InterpolatedFromTheBody) {
  const TinyRig t;
  const WeightsFile body = weightsOf(
      R"({"weights": {"root": [[0, 1.0]], "a": [[1, 0.5], [2, 0.25]], "b": [[2, 0.75]], "mhmask-x": [[0, 0.5]], "other": [[1, 1]]}})");
  const ProxyFile f = parse(
      "verts 0\n"
      "0 1 2 0.5 0.25 0.25 0 0 0\n"
      "2\n"
      "0 1 2 2 -1 0 0 0 0\n"
      "0 2 2 0.0005 0.9995 0 0 0 0\n"
      "1 1 1 0.5 0.5 0 0 0 0\n");
  auto w = interpolateAssetWeights(body, t.skeleton, t.rig, 3, f.bindings, "asset");
  ASSERT_TRUE(w.ok()) << w.error().message;
  // Skeleton order, then masks; groups with no weight left out; groups naming no bone never read.
  ASSERT_EQ(w->groups.size(), 4u);
  EXPECT_EQ(w->groups[0].name, "root");
  EXPECT_EQ(w->groups[1].name, "a");
  EXPECT_EQ(w->groups[2].name, "b");
  EXPECT_EQ(w->groups[3].name, "mhmask-x");
  EXPECT_EQ(pairs(group(*w, "root")), (Pairs{{0, 0.5}, {2, 1.0}}));  // 2.0 kept as Blender's 1.0
  // Python: (g(v0)*w0 + g(v1)*w1 + g(v2)*w2) / sum(weights), in double, kept as float32.
  const double total3 = 0.0005 + 0.9995 + 0.0;
  const auto kept = [&](double g) { return static_cast<double>(static_cast<float>((0.9995 * g + 0.0 * g) / total3)); };
  EXPECT_EQ(pairs(group(*w, "a")), (Pairs{{0, 0.1875}, {1, 0.25}, {3, kept(0.25)}, {4, 0.5}}));
  EXPECT_EQ(pairs(group(*w, "b")), (Pairs{{0, 0.1875}, {1, 0.75}, {3, kept(0.75)}}));
  EXPECT_EQ(pairs(group(*w, "mhmask-x")), (Pairs{{0, 0.25}, {2, 1.0}}));
  // Binding the result on the same skeleton gives the bones back by name.
  auto skin = bindWeights(*w, t.skeleton, t.rig, f.bindings.size());
  ASSERT_TRUE(skin.ok());
  EXPECT_EQ(skin->influenceCount(0), 3u);
  ASSERT_EQ(skin->mask_names.size(), 1u);
  EXPECT_EQ(skin->masks[0][0], 0.25f);
}

TEST(AssetWeights, InterpolationErrors) {
  const TinyRig t;
  const WeightsFile body = weightsOf(R"({"weights": {"root": [[0, 1.0]]}})");
  auto w = interpolateAssetWeights(body, t.skeleton, t.rig, 3, parse("verts 0\n0 3 1 1 0 0 0 0 0\n").bindings, "asset");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message, "asset: asset vertex 0: body vertex 3 is outside the body of 3 vertices (MPFB fails on it)");
  w = interpolateAssetWeights(body, t.skeleton, t.rig, 3, parse("verts 0\n0 1 2 1 -1 0 0 0 0\n").bindings, "asset");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message, "asset: asset vertex 0: its binding weights sum to 0 (MPFB divides by the sum)");
  // A weightless vertex never divides.
  EXPECT_TRUE(interpolateAssetWeights(body, t.skeleton, t.rig, 3, parse("verts 0\n1 2 1 1 -1 0 0 0 0\n").bindings, "asset").ok());
}

TEST(AssetWeights, CustomWeightsReplaceTheGroupsTheyList) {
  const TinyRig t;
  WeightsFile asset = weightsOf(R"({"weights": {"root": [[0, 0.5], [1, 0.5]], "a": [[1, 0.3]], "b": [[0, 0.2]]}})");
  const WeightsFile custom = weightsOf(
      R"({"weights": {"a": [[0, 0.5], [0, 0.75], [2, 0.0]], "root": [], "unknown": [[1, 0.3]], "mhmask-y": [[2, 0.4]],)"
      R"( "DEF-c": [[1, 0.5]], "DEF-b": [[3, 0.2]], "b": [[3, 0.9]]}})");
  WeightsFile all = asset;
  ASSERT_TRUE(applyCustomWeights(asset, custom, false, t.skeleton, t.rig, 4).ok());
  EXPECT_EQ(pairs(group(asset, "root")), Pairs{});                  // listed empty: emptied
  EXPECT_EQ(pairs(group(asset, "a")), (Pairs{{0, 1.0}, {2, 0.0}}));  // ADD, clamped to 1; the 0.3 at 1 gone
  EXPECT_EQ(pairs(group(asset, "b")), (Pairs{{3, 1.0}}));            // DEF-b and b both feed b
  EXPECT_EQ(pairs(group(asset, "mhmask-y")), (Pairs{{2, static_cast<double>(0.4f)}}));
  EXPECT_EQ(group(asset, "unknown"), nullptr);  // maps to no bone: ignored
  EXPECT_EQ(group(asset, "DEF-c"), nullptr);

  // .force.mhw: every group is loaded.
  ASSERT_TRUE(applyCustomWeights(all, custom, true, t.skeleton, t.rig, 4).ok());
  EXPECT_EQ(pairs(group(all, "unknown")), (Pairs{{1, static_cast<double>(0.3f)}}));
  EXPECT_EQ(pairs(group(all, "DEF-c")), (Pairs{{1, 0.5}}));

  const WeightsFile bad = weightsOf(R"({"weights": {"unknown": [[9, 0.3]]}})");
  const Status st = applyCustomWeights(all, bad, true, t.skeleton, t.rig, 4);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "w.json: weights[\"unknown\"][0][0]: vertex index 9 is out of range for an asset of 4 vertices");
}

}  // namespace
}  // namespace rigfit
