// Every MakeHuman asset in ../shared/data/assets: loads, fits the base body, masks it and gets
// weights (docs/mpfb-assets.md). These tests fail when the data is missing.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include <gtest/gtest.h>

#include "rigfit/asset.hpp"
#include "rigfit/character.hpp"
#include "rigfit/data.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

std::string assetsDir() { return test::sharedData() + "/../assets"; }

const char* kAssets[] = {
    "eyes/high-poly/high-poly.mhclo",     "eyes/low-poly/low-poly.mhclo",
    "eyebrows/eyebrow001/eyebrow001.mhclo", "eyelashes/eyelashes01/eyelashes01.mhclo",
    "teeth/teeth_base/teeth_base.mhclo",  "tongue/tongue01/tongue01.mhclo",
    "hair/ponytail01/ponytail01.mhclo",   "hair/short02/short02.mhclo",
    "clothes/female_casualsuit01/female_casualsuit01.mhclo", "clothes/male_casualsuit01/male_casualsuit01.mhclo",
    "clothes/shoes01/shoes01.mhclo",      "proxymeshes/female_generic/female_generic.proxy"};

const Mesh& baseBody() {
  static std::optional<Mesh> body;
  if (!body) {
    auto m = loadBaseMesh(DataSource::folder(test::sharedData()));
    EXPECT_TRUE(m.ok()) << m.error().message;
    body = m.ok() ? std::move(*m) : Mesh{};
  }
  return *body;
}

Asset load(const std::string& rel, const AssetLoadOptions& options = {}) {
  auto a = loadAsset(assetsDir() + "/" + rel, options);
  EXPECT_TRUE(a.ok()) << rel << ": " << (a.ok() ? "" : a.error().message);
  return a.ok() ? std::move(*a) : Asset{};
}

TEST(AssetShipped, EveryAssetLoadsAndFitsTheBaseBody) {
  RIGFIT_REQUIRE_SHARED_DATA();
  ASSERT_TRUE(std::filesystem::is_directory(assetsDir())) << "assets missing at " << assetsDir();
  const Mesh& body = baseBody();
  ASSERT_GT(body.vertexCount(), 19000u);  // hm08 with helpers
  for (const char* rel : kAssets) {
    SCOPED_TRACE(rel);
    const Asset a = load(rel);
    ASSERT_GT(a.file.bindings.size(), 0u);
    EXPECT_EQ(a.mesh.vertexCount(), a.file.bindings.size());
    EXPECT_GT(a.mesh.faceCount(), 0u);
    EXPECT_FALSE(a.mesh.uvs.empty());
    EXPECT_FALSE(a.file.uuid.empty());
    // Every asset names a material; the body proxy does not.
    EXPECT_EQ(a.material.has_value(), std::string(rel).find(".proxy") == std::string::npos) << a.material_path;
    std::vector<float> fitted(a.mesh.positions.size());
    const Status st = fitAsset(a, body.positions, fitted, body.scale_factor);
    ASSERT_TRUE(st.ok()) << st.error().message;
    for (float x : fitted) ASSERT_TRUE(std::isfinite(x));
    // Each vertex lies within 15 cm of its weighted body point (offsets are centimetres: a wrong
    // unit or axis would show).
    double worst = 0.0;
    const AssetBindings& b = a.file.bindings;
    for (std::size_t i = 0; i < b.size(); ++i)
      for (int k = 0; k < 3; ++k) {
        double p = 0.0;
        for (int j = 0; j < 3; ++j) p += b.weights[i * 3 + j] * body.positions[static_cast<std::size_t>(b.vertices[i * 3 + j]) * 3 + k];
        worst = std::max(worst, std::abs(fitted[i * 3 + k] - p));
      }
    EXPECT_LT(worst, 0.15);
  }
}

TEST(AssetShipped, ExactCopiesReproduceTheBodyVertices) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Mesh& body = baseBody();
  for (const char* rel : {"tongue/tongue01/tongue01.mhclo", "eyes/low-poly/low-poly.mhclo", "eyelashes/eyelashes01/eyelashes01.mhclo"}) {
    SCOPED_TRACE(rel);
    const Asset a = load(rel);
    std::vector<float> fitted(a.mesh.positions.size());
    ASSERT_TRUE(fitAsset(a, body.positions, fitted, body.scale_factor).ok());
    for (std::size_t i = 0; i < a.file.bindings.size(); ++i) {
      const auto v = static_cast<std::size_t>(a.file.bindings.vertices[i * 3]);
      ASSERT_EQ(a.file.bindings.vertices[i * 3 + 1], a.file.bindings.vertices[i * 3]);
      for (int k = 0; k < 3; ++k) ASSERT_EQ(fitted[i * 3 + k], body.positions[v * 3 + k]) << "vertex " << i;
    }
  }
}

TEST(AssetShipped, MaterialsSidecarsAndMetadata) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Asset eyes = load("eyes/low-poly/low-poly.mhclo");
  EXPECT_EQ(eyes.file.material, "../materials/brown.mhmat");
  EXPECT_EQ(std::filesystem::path(eyes.material_path).filename(), "brown.mhmat");
  ASSERT_TRUE(eyes.material);
  EXPECT_EQ(eyes.material->name, "Eye_brown");
  ASSERT_NE(eyes.material->texture("diffuseTexture"), nullptr);
  EXPECT_TRUE(eyes.material->texture("diffuseTexture")->exists);  // brown_eye.png is shipped
  EXPECT_TRUE(eyes.warnings.empty());

  const Asset teeth = load("teeth/teeth_base/teeth_base.mhclo");
  ASSERT_TRUE(teeth.material);
  EXPECT_EQ(teeth.material->name, "teethMaterial");
  EXPECT_EQ(exportMaterial(*teeth.material).alpha_mode, AlphaMode::kOpaque);

  // Hair, eyebrows and eyelashes are transparent cut-outs; their textures are not shipped.
  for (const char* rel : {"hair/ponytail01/ponytail01.mhclo", "eyebrows/eyebrow001/eyebrow001.mhclo",
                          "eyelashes/eyelashes01/eyelashes01.mhclo"}) {
    SCOPED_TRACE(rel);
    const Asset a = load(rel);
    ASSERT_TRUE(a.material);
    EXPECT_EQ(exportMaterial(*a.material).alpha_mode, AlphaMode::kMask);
    EXPECT_TRUE(exportMaterial(*a.material).double_sided);
    ASSERT_FALSE(a.warnings.empty());
    EXPECT_NE(a.warnings[0].find("diffuseTexture: texture file"), std::string::npos) << a.warnings[0];
  }

  const Asset ponytail = load("hair/ponytail01/ponytail01.mhclo");
  EXPECT_EQ(ponytail.file.name, "ponytail01");
  EXPECT_EQ(ponytail.file.tags, "makehuman™,female,long");
  EXPECT_EQ(ponytail.file.material, "ponytail01.mhmat");  // written inside the vertex list
  ASSERT_EQ(ponytail.custom_weights.size(), 1u);
  EXPECT_FALSE(ponytail.custom_weights[0].all_groups);
  EXPECT_EQ(std::filesystem::path(ponytail.custom_weights[0].path).filename(), "ponytail01.mhw");
  EXPECT_EQ(std::filesystem::path(ponytail.subrig_path).filename(), "ponytail01.mpfbskel");

  const Asset shoes = load("clothes/shoes01/shoes01.mhclo");
  EXPECT_EQ(shoes.file.vertexboneweights_file, "shoes01.mhw");
  ASSERT_EQ(shoes.custom_weights.size(), 1u);
  EXPECT_TRUE(shoes.subrig_path.empty());
  EXPECT_TRUE(shoes.file.has_delete_verts);
  // Scale references of their own.
  ASSERT_TRUE(shoes.file.x_scale);
  EXPECT_EQ(shoes.file.x_scale->a, 12839);
  EXPECT_EQ(shoes.file.x_scale->ref, 0.7045);

  const Asset proxy = load("proxymeshes/female_generic/female_generic.proxy");
  EXPECT_EQ(proxy.file.description, "no description");  // `description` is not a key MPFB reads
  EXPECT_FALSE(proxy.material);
  EXPECT_TRUE(proxy.material_path.empty());
}

TEST(AssetShipped, RigSpecificWeightsSidecarsFollowTheFallbackChain) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const auto dir = std::filesystem::temp_directory_path() / ("rigfit_sidecars_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string stem = (dir / "x").string();
  for (const char* f : {"x.mhw", "x.force.mhw", "x.default.mhw", "x.rigify.human_toes.mhw"}) std::ofstream(dir / f) << "{}";
  auto names = [&](std::string_view rig) {
    std::vector<std::string> out;
    for (const auto& [p, all] : customWeightsPaths(stem, rig)) out.push_back(std::filesystem::path(p).filename().string() + (all ? "*" : ""));
    return out;
  };
  EXPECT_EQ(names(""), (std::vector<std::string>{"x.mhw", "x.force.mhw*"}));
  EXPECT_EQ(names("default_no_toes"), (std::vector<std::string>{"x.mhw", "x.force.mhw*", "x.default.mhw"}));
  EXPECT_EQ(names("rigify_generated.human"), (std::vector<std::string>{"x.mhw", "x.force.mhw*", "x.rigify.human_toes.mhw"}));
  EXPECT_EQ(names("game_engine"), (std::vector<std::string>{"x.mhw", "x.force.mhw*"}));
  EXPECT_EQ(names("rigify.unknown"), (std::vector<std::string>{"x.mhw", "x.force.mhw*"}));
  std::filesystem::remove_all(dir);
}

TEST(AssetShipped, BodyMaskUnderTheClothes) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Mesh& body = baseBody();
  const Asset suit = load("clothes/female_casualsuit01/female_casualsuit01.mhclo");
  const Asset shoes = load("clothes/shoes01/shoes01.mhclo");
  const ProxyFile* worn[] = {&suit.file, &shoes.file};
  const BodyMask mask = bodyMask(body, worn);
  ASSERT_EQ(mask.face_hidden.size(), body.faceCount());
  std::size_t hidden = 0;
  for (auto h : mask.face_hidden) hidden += h;
  EXPECT_GT(hidden, 1000u);
  // Every hidden face has a vertex listed by one asset; a face is hidden only through a vertex of
  // a group, and a group vertex's faces are all listed by its asset (or it is listed twice: a range start).
  std::set<std::int64_t> listed(suit.file.delete_verts.begin(), suit.file.delete_verts.end());
  listed.insert(shoes.file.delete_verts.begin(), shoes.file.delete_verts.end());
  for (std::size_t v = 0; v < body.vertexCount(); ++v)
    if (mask.vertex_masked[v]) {
      ASSERT_TRUE(listed.count(static_cast<std::int64_t>(v))) << v;
    }

  // Carried over to the body proxy: proxy vertices bound to a masked body vertex.
  const Asset proxy = load("proxymeshes/female_generic/female_generic.proxy");
  std::vector<std::uint8_t> proxy_masked(proxy.file.bindings.size());
  proxyMask(proxy.file.bindings, mask.vertex_masked, proxy_masked);
  std::size_t masked = 0;
  for (auto m : proxy_masked) masked += m;
  EXPECT_GT(masked, 1000u);
  EXPECT_LT(masked, proxy_masked.size());
}

TEST(AssetShipped, InterpolatedAndCustomWeights) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  CharacterOptions options;
  options.rig = "game_engine";
  auto c = loadCharacter(data, options);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->has_skin);
  const Skeleton& skeleton = c->fit.skeleton;
  const Skin& body_skin = c->body().skin;
  auto body_file = readWeights(test::sharedData() + "/" + defaultWeightsPath(data, "game_engine"));
  ASSERT_TRUE(body_file.ok()) << body_file.error().message;
  for (const char* rel : kAssets) {
    SCOPED_TRACE(rel);
    const Asset a = load(rel);
    auto w = interpolateAssetWeights(body_skin, skeleton.names, a.file.bindings, a.path);
    ASSERT_TRUE(w.ok()) << w.error().message;
    {
      // The same from the body's weights file.
      auto w2 = interpolateAssetWeights(*body_file, skeleton, c->rig, c->body().mesh.vertexCount(), a.file.bindings, a.path);
      ASSERT_TRUE(w2.ok());
      ASSERT_EQ(w2->groups.size(), w->groups.size());
      for (std::size_t g = 0; g < w->groups.size(); ++g) {
        EXPECT_EQ(w2->groups[g].vertices, w->groups[g].vertices);
        EXPECT_EQ(w2->groups[g].weights, w->groups[g].weights);
      }
    }
    for (const auto& custom : a.custom_weights) ASSERT_TRUE(applyCustomWeights(*w, custom.weights, custom.all_groups, skeleton, c->rig, a.mesh.vertexCount()).ok());
    WeightsBinding binding;
    auto skin = bindWeights(*w, skeleton, c->rig, a.mesh.vertexCount(), &binding);
    ASSERT_TRUE(skin.ok()) << skin.error().message;
    EXPECT_TRUE(binding.unmapped.empty());
    // Every vertex of a body-hugging asset is weighted.
    std::size_t weightless = 0;
    for (std::size_t v = 0; v < skin->vertex_count; ++v) weightless += skin->influenceCount(v) == 0;
    EXPECT_EQ(weightless, 0u);
  }
  // Exact copies inherit the body's weights.
  const Asset tongue = load("tongue/tongue01/tongue01.mhclo");
  auto w = interpolateAssetWeights(body_skin, skeleton.names, tongue.file.bindings, tongue.path);
  ASSERT_TRUE(w.ok());
  auto skin = bindWeights(*w, skeleton, c->rig, tongue.mesh.vertexCount());
  ASSERT_TRUE(skin.ok());
  for (std::size_t i = 0; i < skin->vertex_count; ++i) {
    const auto v = static_cast<std::size_t>(tongue.file.bindings.vertices[i * 3]);
    std::map<int, float> body_w, asset_w;
    for (auto e = body_skin.offsets[v]; e < body_skin.offsets[v + 1]; ++e)
      if (body_skin.weights[e] > 0.001f) body_w[body_skin.bones[e]] = body_skin.weights[e];
    for (auto e = skin->offsets[i]; e < skin->offsets[i + 1]; ++e) asset_w[skin->bones[e]] = skin->weights[e];
    ASSERT_EQ(asset_w, body_w) << "tongue vertex " << i;
  }

  // shoes01.mhw names the default rig's bones: on game_engine its groups map to nothing and the
  // interpolation stays; on the default rig it replaces every group it lists.
  const Asset shoes = load("clothes/shoes01/shoes01.mhclo");
  auto ws = interpolateAssetWeights(body_skin, skeleton.names, shoes.file.bindings, shoes.path);
  ASSERT_TRUE(ws.ok());
  const WeightsFile before = *ws;
  ASSERT_TRUE(applyCustomWeights(*ws, shoes.custom_weights[0].weights, false, skeleton, c->rig, shoes.mesh.vertexCount()).ok());
  ASSERT_EQ(ws->groups.size(), before.groups.size());
  for (std::size_t g = 0; g < before.groups.size(); ++g) EXPECT_EQ(ws->groups[g].weights, before.groups[g].weights);

  options.rig = "default";
  options.weights = "none";
  auto d = loadCharacter(data, options);
  ASSERT_TRUE(d.ok()) << d.error().message;
  Skin unweighted;  // a body with no weights: nothing to interpolate
  unweighted.vertex_count = d->body().mesh.vertexCount();
  unweighted.offsets.assign(unweighted.vertex_count + 1, 0);
  auto wd = interpolateAssetWeights(unweighted, d->fit.skeleton.names, shoes.file.bindings, shoes.path);
  ASSERT_TRUE(wd.ok());
  EXPECT_TRUE(wd->groups.empty());
  ASSERT_TRUE(applyCustomWeights(*wd, shoes.custom_weights[0].weights, false, d->fit.skeleton, d->rig, shoes.mesh.vertexCount()).ok());
  WeightsBinding binding;
  auto shoe_skin = bindWeights(*wd, d->fit.skeleton, d->rig, shoes.mesh.vertexCount(), &binding);
  ASSERT_TRUE(shoe_skin.ok()) << shoe_skin.error().message;
  EXPECT_TRUE(binding.unmapped.empty());
  // The same as binding shoes01.mhw itself: replace on empty groups is loading the file.
  auto direct = bindWeights(shoes.custom_weights[0].weights, d->fit.skeleton, d->rig, shoes.mesh.vertexCount());
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(shoe_skin->offsets, direct->offsets);
  EXPECT_EQ(shoe_skin->bones, direct->bones);
  EXPECT_EQ(shoe_skin->weights, direct->weights);
  std::size_t weighted = 0;
  for (std::size_t v = 0; v < shoe_skin->vertex_count; ++v) weighted += shoe_skin->influenceCount(v) > 0;
  EXPECT_EQ(weighted, shoe_skin->vertex_count);
}

}  // namespace
}  // namespace rigfit
