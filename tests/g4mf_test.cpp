// G4MF: writer -> reader round trips (hand-made model and the demo character, .g4tf / .g4b /
// .g4b+Zstd), byte determinism, the document layout docs/g4mf-rules.md asks for (the § below are
// its sections), the validator (one broken file per rule, each built from a valid written file),
// hostile headers, and the shared worked examples.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <set>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <gtest/gtest.h>
#include <zstd.h>

#include "rigfit/data.hpp"
#include "core/base64.hpp"
#include "core/file_io.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/json.hpp"
#include "rigfit/weights.hpp"
#include "export_test_util.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

// ---------------------------------------------------------------------------------------------
// Fixtures

Eigen::Matrix4d transform(const Eigen::Vector3d& t, const Eigen::Matrix3d& r) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.topLeftCorner<3, 3>() = r;
  m.topRightCorner<3, 1>() = t;
  return m;
}

// Four bones (Hips -> Spine -> Head, Hips -> LeftLeg), a strip of 3 quads and a triangle over 9
// export vertices of which vertex 8 splits vertex 5 at a UV seam (same source vertex). The
// triangle starts at the same vertex as the quad before it (the fan must be rotated).
ExportModel handModel() {
  ExportModel m;
  m.meshes.emplace_back();
  m.names = {"Hips", "Spine", "Head", "LeftLeg"};
  m.source_names = {"root", "spine.01", "head", "thigh.L"};
  m.parents = {-1, 0, 1, 0};
  const Eigen::Matrix3d rx = Eigen::AngleAxisd(0.2, Eigen::Vector3d::UnitX()).toRotationMatrix();
  const Eigen::Matrix3d down = Eigen::AngleAxisd(std::numbers::pi, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  m.bind_local = {transform({0, 1, 0}, Eigen::Matrix3d::Identity()), transform({0, 0.3, 0}, rx),
                  transform({0, 0.25, 0}, Eigen::Matrix3d::Identity()), transform({0.1, 0, 0}, down)};
  for (std::size_t i = 0; i < m.names.size(); ++i) {
    const int p = m.parents[i];
    m.bind_global.push_back(p < 0 ? m.bind_local[i] : Eigen::Matrix4d(m.bind_global[static_cast<std::size_t>(p)] * m.bind_local[i]));
    m.heads.push_back(m.bind_global[i].topRightCorner<3, 1>());
  }
  m.lengths = {0.3, 0.25, 0.2, 0.45};
  m.rolls = {0.0, 0.1, -0.2, 3.0};
  for (std::size_t i = 0; i < m.names.size(); ++i) m.tails.push_back((m.bind_global[i] * Eigen::Vector4d(0, m.lengths[i], 0, 1)).head<3>());
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 2; ++c) {
      const float x = c ? 0.1f : -0.1f, y = 0.5f * static_cast<float>(r);
      m.meshes[0].positions.insert(m.meshes[0].positions.end(), {x, y, 0.0f});
      m.meshes[0].normals.insert(m.meshes[0].normals.end(), {0.0f, 0.0f, 1.0f});
      m.meshes[0].uvs.insert(m.meshes[0].uvs.end(), {x / 0.2f + 0.5f, y / 1.5f});
      m.meshes[0].source_vertex.push_back(static_cast<std::uint32_t>(2 * r + c));
    }
  m.meshes[0].positions.insert(m.meshes[0].positions.end(), {0.1f, 1.0f, 0.0f});  // vertex 8 = source 5, another UV
  m.meshes[0].normals.insert(m.meshes[0].normals.end(), {0.0f, 0.0f, 1.0f});
  m.meshes[0].uvs.insert(m.meshes[0].uvs.end(), {0.25f, 0.75f});
  m.meshes[0].source_vertex.push_back(5);
  m.meshes[0].polygon_offsets = {0, 4, 8, 12, 15};
  m.meshes[0].polygon_corners = {0, 1, 3, 2, 2, 3, 5, 4, 4, 5, 7, 6, 4, 8, 6};
  for (std::size_t p = 0; p + 1 < m.meshes[0].polygon_offsets.size(); ++p)
    for (std::uint32_t k = m.meshes[0].polygon_offsets[p] + 1; k + 1 < m.meshes[0].polygon_offsets[p + 1]; ++k)
      m.meshes[0].triangles.insert(m.meshes[0].triangles.end(), {m.meshes[0].polygon_corners[m.meshes[0].polygon_offsets[p]], m.meshes[0].polygon_corners[k], m.meshes[0].polygon_corners[k + 1]});
  // Skin (sorted as rigfit's Skin is: weight descending, ties lower bone first).
  const std::vector<std::vector<std::pair<std::uint16_t, float>>> infl = {
      {{0, 1.0f}}, {{0, 1.0f}}, {{0, 0.5f}, {3, 0.2f}}, {{0, 0.5f}, {3, 0.2f}}, {{1, 0.6f}, {0, 0.4f}},
      {{1, 0.6f}, {0, 0.4f}}, {{1, 0.5f}, {2, 0.5f}}, {{2, 1.0f}, {3, 0.0f}}, {{1, 0.6f}, {0, 0.4f}}};
  m.meshes[0].skin.vertex_count = 9;
  m.meshes[0].skin.bone_count = 4;
  m.meshes[0].skin.offsets.push_back(0);
  for (const auto& v : infl) {
    for (const auto& [b, w] : v) {
      m.meshes[0].skin.bones.push_back(b);
      m.meshes[0].skin.weights.push_back(w);
    }
    m.meshes[0].skin.offsets.push_back(static_cast<std::uint32_t>(m.meshes[0].skin.bones.size()));
  }
  return m;
}

const ExportModel& demoModel() {
  static const ExportModel model = [] {
    const DataSource demo = DataSource::builtinDemo();
    auto mesh = loadBaseMesh(demo);
    auto groups = loadVertexGroups(demo, mesh->vertexCount());
    auto rig = loadRig(demo, *locateRig(demo, "demo"));
    auto fit = fitRig(*rig, *mesh, *groups);
    const Skeleton& s = fit->skeleton;
    // A hand-made skin: vertex v follows bone v mod n, every third vertex also the next bone.
    Skin skin;
    skin.vertex_count = mesh->vertexCount();
    skin.bone_count = s.size();
    skin.offsets.push_back(0);
    for (std::size_t v = 0; v < mesh->vertexCount(); ++v) {
      skin.bones.push_back(static_cast<std::uint16_t>(v % s.size()));
      skin.weights.push_back(v % 3 == 0 ? 0.7f : 1.0f);
      if (v % 3 == 0) {
        skin.bones.push_back(static_cast<std::uint16_t>((v + 1) % s.size()));
        skin.weights.push_back(0.3f);
      }
      skin.offsets.push_back(static_cast<std::uint32_t>(skin.bones.size()));
    }
    auto m = buildExportModel(*mesh, s, &skin, &*groups, {});
    return *m;
  }();
  return model;
}

// The hm08 base mesh with MPFB's game_engine rig and weights (../shared/data/mpfb).
const ExportModel& hm08Model() {
  static const ExportModel model = [] {
    ExportModel out;
    const DataSource data = DataSource::folder(test::sharedData());
    auto mesh = loadBaseMesh(data);
    if (!mesh) return out;
    auto groups = loadVertexGroups(data, mesh->vertexCount());
    auto where = locateRig(data, "game_engine");
    if (!groups || !where) return out;
    auto rig = loadRig(data, *where);
    if (!rig) return out;
    auto fit = fitRig(*rig, *mesh, *groups);
    auto weights = readWeights(test::sharedData() + "/rigs/standard/weights.game_engine.json", mesh->vertexCount());
    if (!fit || !weights) return out;
    auto skin = bindWeights(*weights, fit->skeleton, *rig, mesh->vertexCount());
    if (!skin) return out;
    auto m = buildExportModel(*mesh, fit->skeleton, &*skin, &*groups, {});
    return m.ok() ? *m : out;
  }();
  return model;
}

std::string issuesText(const std::vector<G4mfIssue>& issues) {
  std::string out;
  for (const auto& i : issues)
    out += std::string(i.severity == G4mfSeverity::kError ? "error " : "warning ") + (i.path.empty() ? "/" : i.path) + ": " + i.message + "\n";
  return out;
}

std::string write(const ExportModel& m, G4mfContainer c, bool zstd = false) {
  G4mfWriteOptions o;
  o.container = c;
  o.zstd = zstd;
  o.rig_name = "test_rig";
  auto bytes = writeG4mf(m, o);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  return bytes.ok() ? *bytes : std::string();
}

// ---------------------------------------------------------------------------------------------
// Round trips

void expectRoundTrip(const ExportModel& m, const G4mfDocument& d) {
  // Skeleton.
  const std::size_t nb = m.names.size();
  ASSERT_EQ(d.bone_names, m.names);
  EXPECT_EQ(d.source_names, m.source_names);
  EXPECT_EQ(d.parents, m.parents);
  EXPECT_EQ(d.rig_name, "test_rig");
  EXPECT_EQ(d.skeleton_name, "Armature");
  EXPECT_EQ(d.root_name, "Scene");
  ASSERT_EQ(d.meshes.size(), 1u);
  const G4mfMesh& dm = d.meshes[0];
  EXPECT_EQ(dm.node_name, "Body");
  EXPECT_EQ(dm.name, "BodyMesh");
  EXPECT_EQ(dm.material, 0);
  for (std::size_t i = 0; i < nb; ++i) {
    EXPECT_EQ(d.lengths[i], m.lengths[i]) << m.names[i];
    EXPECT_EQ(d.rolls[i], m.rolls[i]) << m.names[i];
    EXPECT_LT((d.global[i] - m.bind_global[i]).cwiseAbs().maxCoeff(), 1e-12) << m.names[i] << "\n" << d.global[i] << "\n" << m.bind_global[i];
    EXPECT_LT((d.local[i] - m.bind_local[i]).cwiseAbs().maxCoeff(), 1e-12) << m.names[i];
  }
  ASSERT_EQ(d.joints.size(), m.meshes[0].skin.offsets.empty() ? 0u : nb);
  for (std::size_t j = 0; j < d.joints.size(); ++j) EXPECT_EQ(d.joints[j], static_cast<int>(j));
  EXPECT_EQ(dm.group_names, m.meshes[0].skin.offsets.empty() ? std::vector<std::string>{} : m.names);

  // Polygons: the same order, each a cyclic rotation of the model's; corners carry the same
  // position, normal and UV (v flipped).
  const std::size_t np = m.meshes[0].polygon_offsets.size() - 1;
  ASSERT_EQ(dm.polygon_offsets.size(), np + 1);
  ASSERT_EQ(dm.normal_indices.size(), dm.triangles.size());
  ASSERT_EQ(dm.uv_indices.size(), dm.triangles.size());
  std::map<std::uint32_t, std::uint32_t> g4_of;  // export vertex -> G4MF vertex
  std::size_t tri = 0;
  for (std::size_t p = 0; p < np; ++p) {
    const std::uint32_t a = m.meshes[0].polygon_offsets[p], n = m.meshes[0].polygon_offsets[p + 1] - a;
    ASSERT_EQ(dm.polygon_offsets[p + 1] - dm.polygon_offsets[p], n) << "polygon " << p;
    auto pos = [&](const std::vector<float>& v, std::size_t i) { return Eigen::Vector3f(v[3 * i], v[3 * i + 1], v[3 * i + 2]); };
    int rotation = -1;
    for (std::uint32_t r = 0; r < n && rotation < 0; ++r) {
      bool same = true;
      for (std::uint32_t k = 0; k < n; ++k)
        same = same && pos(dm.positions, dm.polygon_corners[dm.polygon_offsets[p] + k]) == pos(m.meshes[0].positions, m.meshes[0].polygon_corners[a + (k + r) % n]);
      if (same) rotation = static_cast<int>(r);
    }
    ASSERT_GE(rotation, 0) << "polygon " << p << " is not a rotation of the model's";
    for (std::uint32_t k = 0; k < n; ++k)
      g4_of[m.meshes[0].polygon_corners[a + (k + static_cast<std::uint32_t>(rotation)) % n]] = dm.polygon_corners[dm.polygon_offsets[p] + k];
    // Fan triangles: corner (0, k, k+1) of the rotated polygon.
    for (std::uint32_t k = 1; k + 1 < n; ++k, ++tri)
      for (std::uint32_t c = 0; c < 3; ++c) {
        const std::uint32_t pk = c == 0 ? 0 : k + c - 1;
        const std::uint32_t e = m.meshes[0].polygon_corners[a + (pk + static_cast<std::uint32_t>(rotation)) % n];
        const std::uint32_t ni = dm.normal_indices[3 * tri + c], ui = dm.uv_indices[3 * tri + c];
        EXPECT_EQ(pos(dm.normals, ni), pos(m.meshes[0].normals, e));
        EXPECT_EQ(dm.uvs[2 * ui], m.meshes[0].uvs[2 * e]);
        EXPECT_EQ(dm.uvs[2 * ui + 1], 1.0f - m.meshes[0].uvs[2 * e + 1]);
      }
  }
  EXPECT_EQ(tri, dm.triangles.size() / 3);
  // Consecutive polygons never start at the same vertex (they would merge, §9.2).
  for (std::size_t p = 1; p < np; ++p) EXPECT_NE(dm.polygon_corners[dm.polygon_offsets[p]], dm.polygon_corners[dm.polygon_offsets[p - 1]]);

  // Vertices and skin, per export vertex through its G4MF vertex.
  std::map<std::uint32_t, std::vector<std::pair<std::uint32_t, float>>> skin;
  for (std::size_t k = 0; k < dm.skin_vertices.size(); ++k) skin[dm.skin_vertices[k]].emplace_back(dm.skin_groups[k], dm.skin_weights[k]);
  for (const auto& [e, g] : g4_of) {
    for (int c = 0; c < 3; ++c) EXPECT_EQ(dm.positions[3 * g + static_cast<std::uint32_t>(c)], m.meshes[0].positions[3 * e + static_cast<std::uint32_t>(c)]);
    if (!m.meshes[0].skin.offsets.empty()) {
      EXPECT_EQ(skin[g], test::storedInfluences(m.meshes[0].skin, e)) << "export vertex " << e;
    }
  }
}

TEST(G4mfRoundTrip, HandMadeModelAllContainers) {
  const ExportModel m = handModel();
  for (auto [c, z] : {std::pair{G4mfContainer::kText, false}, {G4mfContainer::kBinary, false}, {G4mfContainer::kBinary, true}}) {
    SCOPED_TRACE(std::string(c == G4mfContainer::kText ? "g4tf" : "g4b") + (z ? "+zstd" : ""));
    const std::string bytes = write(m, c, z);
    const auto issues = validateG4mf(bytes, "hand");
    EXPECT_TRUE(issues.empty()) << issuesText(issues);
    auto d = readG4mf(bytes, "hand");
    ASSERT_TRUE(d.ok()) << d.error().message;
    ASSERT_EQ(d->meshes.size(), 1u);
    EXPECT_EQ(d->binary, c == G4mfContainer::kBinary);
    EXPECT_EQ(d->meshes[0].vertexCount(), 8u);  // export vertex 8 merged into vertex 5
    expectRoundTrip(m, *d);
  }
}

TEST(G4mfRoundTrip, DemoCharacterAllContainers) {
  const ExportModel& m = demoModel();
  ASSERT_GT(m.names.size(), 10u);
  for (auto [c, z] : {std::pair{G4mfContainer::kText, false}, {G4mfContainer::kBinary, false}, {G4mfContainer::kBinary, true}}) {
    SCOPED_TRACE(std::string(c == G4mfContainer::kText ? "g4tf" : "g4b") + (z ? "+zstd" : ""));
    const std::string bytes = write(m, c, z);
    const auto issues = validateG4mf(bytes, "demo");
    EXPECT_TRUE(issues.empty()) << issuesText(issues);
    auto d = readG4mf(std::as_bytes(std::span(bytes.data(), bytes.size())), "demo");
    ASSERT_TRUE(d.ok()) << d.error().message;
    expectRoundTrip(m, *d);
    // Heads and tails follow from the globals and lengths.
    for (std::size_t i = 0; i < m.names.size(); ++i) {
      EXPECT_LT((d->global[i].topRightCorner<3, 1>() - m.heads[i]).norm(), 1e-9);
      EXPECT_LT(((d->global[i] * Eigen::Vector4d(0, d->lengths[i], 0, 1)).head<3>() - m.tails[i]).norm(), 1e-6);
    }
  }
}

TEST(G4mfRoundTrip, Hm08GameEngineWithWeights) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const ExportModel& m = hm08Model();
  ASSERT_GT(m.meshes[0].vertexCount(), 13000u);
  ASSERT_FALSE(m.meshes[0].skin.offsets.empty());
  for (bool z : {false, true}) {
    const std::string bytes = write(m, G4mfContainer::kBinary, z);
    const auto issues = validateG4mf(bytes, "hm08");
    EXPECT_TRUE(issues.empty()) << issuesText(issues);
    auto d = readG4mf(bytes, "hm08");
    ASSERT_TRUE(d.ok()) << d.error().message;
    expectRoundTrip(m, *d);
  }
}

// Writes sample files for tools/g4mf/check.sh (schemas + g4tf_check.py) into $RIGFIT_G4MF_SAMPLES
// (default: a folder in the temporary directory).
TEST(G4mfFiles, WriteSamples) {
  const char* env = std::getenv("RIGFIT_G4MF_SAMPLES");
  const std::filesystem::path dir = env && *env ? std::filesystem::path(env) : std::filesystem::temp_directory_path() / "rigfit_g4mf_samples";
  std::filesystem::create_directories(dir);
  std::vector<std::pair<std::string, const ExportModel*>> models = {{"hand", nullptr}, {"demo", &demoModel()}};
  const ExportModel hand = handModel();
  models[0].second = &hand;
  if (std::filesystem::is_regular_file(test::sharedData() + "/3dobjs/base.obj")) {
    const std::size_t hm08_vertices = hm08Model().meshes.empty() ? 0 : hm08Model().meshes[0].vertexCount();
    EXPECT_GT(hm08_vertices, 13000u) << "the hm08 model could not be built";
    if (hm08_vertices) models.emplace_back("hm08_game_engine", &hm08Model());
  }
  for (const auto& [name, model] : models)
    for (auto [c, z, ext] : {std::tuple{G4mfContainer::kText, false, ".g4tf"}, {G4mfContainer::kBinary, false, ".g4b"},
                             {G4mfContainer::kBinary, true, ".zstd.g4b"}}) {
      const std::string bytes = write(*model, c, z);
      ASSERT_FALSE(bytes.empty());
      const std::string path = (dir / (name + ext)).string();
      ASSERT_TRUE(writeFileAtomic(path, bytes).ok()) << path;
      EXPECT_EQ(test::readText(path), bytes);
    }
}

TEST(G4mfRoundTrip, NoSkinNoUvs) {
  ExportModel m = handModel();
  m.meshes[0].skin = Skin{};
  m.meshes[0].uvs.clear();
  const std::string bytes = write(m, G4mfContainer::kText);
  EXPECT_TRUE(validateG4mf(bytes, "x").empty()) << issuesText(validateG4mf(bytes, "x"));
  auto d = readG4mf(bytes, "x");
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->meshes.size(), 1u);
  EXPECT_TRUE(d->meshes[0].skin_vertices.empty());
  EXPECT_TRUE(d->joints.empty());
  EXPECT_TRUE(d->meshes[0].uvs.empty());
  EXPECT_FALSE(d->meshes[0].normals.empty());
  EXPECT_EQ(bytes.find("\"joints\""), std::string::npos);
  EXPECT_EQ(bytes.find("\"textureMap\""), std::string::npos);
}

// Several root bones: all are children of the skeleton node (before the mesh node).
TEST(G4mfRoundTrip, TwoRootBones) {
  ExportModel m = handModel();
  m.parents[3] = -1;
  m.bind_local[3] = m.bind_global[3];
  const std::string bytes = write(m, G4mfContainer::kText);
  EXPECT_TRUE(validateG4mf(bytes, "x").empty()) << issuesText(validateG4mf(bytes, "x"));
  auto doc = parseJson(bytes, "x");
  EXPECT_EQ(writeJson(*doc->find("nodes")->items()[1].find("children"), {.indent = -1}), "[2, 5, 6]");
  auto d = readG4mf(bytes, "x");
  ASSERT_TRUE(d.ok()) << d.error().message;
  expectRoundTrip(m, *d);
}

TEST(G4mfRoundTrip, PlainTrianglesWithoutPolygons) {
  ExportModel m = handModel();
  m.meshes[0].polygon_offsets.clear();
  m.meshes[0].polygon_corners.clear();
  m.meshes[0].source_vertex.clear();  // nothing merges
  const std::string bytes = write(m, G4mfContainer::kBinary);
  EXPECT_TRUE(validateG4mf(bytes, "x").empty()) << issuesText(validateG4mf(bytes, "x"));
  auto d = readG4mf(bytes, "x");
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->meshes.size(), 1u);
  EXPECT_EQ(d->meshes[0].triangles, m.meshes[0].triangles);
  EXPECT_EQ(d->meshes[0].positions, m.meshes[0].positions);
  EXPECT_EQ(d->meshes[0].polygon_offsets.size(), m.meshes[0].triangles.size() / 3 + 1);
  EXPECT_EQ(bytes.find("polytopeSimplexes"), std::string::npos);
}

// A sheared / non-orthonormal bind matrix (as Blender makes near -Y) is stored as basis, exactly.
TEST(G4mfRoundTrip, NonOrthonormalBasisAndScale) {
  ExportModel m = handModel();
  m.bind_local[2](0, 1) += 3e-4;                                  // shear: basis
  m.bind_local[3].topLeftCorner<3, 3>() *= 2.0;                   // uniform scale: rotor + scale [2]
  m.bind_local[1].col(0).head<3>() *= 1.5;                        // non-uniform: rotor + scale [1.5, 1, 1]
  for (std::size_t i = 0; i < m.names.size(); ++i) {
    const int p = m.parents[i];
    m.bind_global[i] = p < 0 ? m.bind_local[i] : Eigen::Matrix4d(m.bind_global[static_cast<std::size_t>(p)] * m.bind_local[i]);
  }
  const std::string bytes = write(m, G4mfContainer::kText);
  auto doc = parseJson(bytes, "x");
  ASSERT_TRUE(doc.ok());
  const Json& nodes = *doc->find("nodes");
  EXPECT_TRUE(nodes.items()[4].contains("basis"));
  EXPECT_FALSE(nodes.items()[4].contains("rotor"));
  ASSERT_TRUE(nodes.items()[5].contains("scale"));
  EXPECT_EQ(nodes.items()[5].find("scale")->size(), 1u);
  ASSERT_TRUE(nodes.items()[3].contains("scale"));
  EXPECT_EQ(nodes.items()[3].find("scale")->size(), 3u);
  auto d = readG4mf(bytes, "x");
  ASSERT_TRUE(d.ok()) << d.error().message;
  for (std::size_t i = 0; i < m.names.size(); ++i) EXPECT_LT((d->global[i] - m.bind_global[i]).cwiseAbs().maxCoeff(), 1e-12) << i;
  EXPECT_EQ(d->local[2], m.bind_local[2]);  // basis numbers are exact doubles
}

// §7.2: a rotation of theta about +Z is rotor [cos θ/2, sin θ/2, 0, 0]; about +Y the xz part is
// negative.
TEST(G4mfWrite, RotorConvention) {
  ExportModel m = handModel();
  const double theta = 0.8;
  m.bind_local[1] = transform({0, 0.3, 0}, Eigen::AngleAxisd(theta, Eigen::Vector3d::UnitZ()).toRotationMatrix());
  m.bind_local[2] = transform({0, 0.25, 0}, Eigen::AngleAxisd(theta, Eigen::Vector3d::UnitY()).toRotationMatrix());
  const std::string bytes = write(m, G4mfContainer::kText);
  auto doc = parseJson(bytes, "x");
  ASSERT_TRUE(doc.ok());
  const Json& z = *doc->find("nodes")->items()[3].find("rotor");
  EXPECT_NEAR(z.items()[0].asDouble(), std::cos(theta / 2), 1e-15);
  EXPECT_NEAR(z.items()[1].asDouble(), std::sin(theta / 2), 1e-15);
  EXPECT_EQ(z.items()[2].asDouble(), 0.0);
  EXPECT_EQ(z.items()[3].asDouble(), 0.0);
  const Json& y = *doc->find("nodes")->items()[4].find("rotor");
  EXPECT_NEAR(y.items()[2].asDouble(), -std::sin(theta / 2), 1e-15);
  // §7.2's rotor -> matrix formula gives the same matrix as the reader.
  auto d = readG4mf(bytes, "x");
  ASSERT_TRUE(d.ok());
  const double s = y.items()[0].asDouble(), xy = y.items()[1].asDouble(), xz = y.items()[2].asDouble(), yz = y.items()[3].asDouble();
  Eigen::Matrix3d f;
  f.col(0) << s * s - xy * xy - xz * xz + yz * yz, 2 * (s * xy - xz * yz), 2 * (s * xz + xy * yz);
  f.col(1) << -2 * (s * xy + xz * yz), s * s - xy * xy + xz * xz - yz * yz, 2 * (s * yz - xy * xz);
  f.col(2) << 2 * (xy * yz - s * xz), -2 * (xy * xz + s * yz), s * s + xy * xy - xz * xz - yz * yz;
  EXPECT_LT((f - d->local[2].topLeftCorner<3, 3>()).cwiseAbs().maxCoeff(), 1e-15);
}

// ---------------------------------------------------------------------------------------------
// Bytes: determinism and layout

TEST(G4mfWrite, DeterministicBytes) {
  const ExportModel& m = demoModel();
  for (auto [c, z] : {std::pair{G4mfContainer::kText, false}, {G4mfContainer::kBinary, false}, {G4mfContainer::kBinary, true}}) {
    const std::string a = write(m, c, z), b = write(m, c, z);
    EXPECT_EQ(a, b);
    ExportModel copy = m;
    EXPECT_EQ(write(copy, c, z), a);
  }
}

TEST(G4mfWrite, TextFileRules) {
  const std::string t = write(demoModel(), G4mfContainer::kText);
  ASSERT_FALSE(t.empty());
  EXPECT_NE(t.substr(0, 3), "\xEF\xBB\xBF");
  EXPECT_EQ(t.find('\r'), std::string::npos);
  for (char c : t) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u == '\n' || (u >= 0x20 && u < 0x7F)) << "byte " << int(u);  // ASCII only: no raw U+007F..U+009F
  }
  EXPECT_NE(t.find("\"uri\": \"data:application/octet-stream;base64,"), std::string::npos);
  EXPECT_EQ(t.find("\"chunk\""), std::string::npos);
  EXPECT_EQ(t.back(), '\n');
}

std::uint64_t u64At(const std::string& s, std::size_t off) {
  std::uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(s[off + static_cast<std::size_t>(k)]);
  return v;
}

TEST(G4mfWrite, BinaryContainerLayout) {
  for (bool z : {false, true}) {
    SCOPED_TRACE(z ? "zstd" : "plain");
    const std::string b = write(demoModel(), G4mfContainer::kBinary, z);
    ASSERT_GE(b.size(), 64u);
    EXPECT_EQ(b.substr(0, 8), std::string("G4MF\0\0\0\0", 8));
    EXPECT_EQ(u64At(b, 8), b.size());
    EXPECT_EQ(b.substr(16, 4), "JSON");
    EXPECT_EQ(b.substr(20, 4), z ? std::string("Zstd") : std::string(4, '\0'));
    const std::uint64_t json_size = u64At(b, 24);
    const std::size_t blob = (32 + json_size + 15) / 16 * 16;
    EXPECT_EQ(blob % 16, 0u);
    EXPECT_EQ(b.substr(blob, 4), "BLOB");
    EXPECT_EQ(b.substr(blob + 4, 4), z ? std::string("Zstd") : std::string(4, '\0'));
    EXPECT_EQ(blob + 16 + u64At(b, blob + 8), b.size());  // last chunk: no padding
    for (std::size_t k = 32 + json_size; k < blob; ++k) EXPECT_EQ(b[k], z ? '\0' : ' ');
    if (z) {
      EXPECT_EQ(b.substr(32, 4), "\x28\xB5\x2F\xFD");
      EXPECT_EQ(b.substr(blob + 16, 4), "\x28\xB5\x2F\xFD");
    } else {
      auto doc = parseJson(b.substr(32, json_size), "x");
      ASSERT_TRUE(doc.ok());
      const Json& buffer = doc->find("buffers")->items()[0];
      EXPECT_EQ(buffer.find("chunk")->asInt(), 1);
      EXPECT_FALSE(buffer.contains("uri"));
      EXPECT_FALSE(buffer.contains("encoding"));
    }
  }
  EXPECT_LT(write(demoModel(), G4mfContainer::kBinary, true).size(), write(demoModel(), G4mfContainer::kBinary).size());
}

TEST(G4mfWrite, DocumentLayout) {
  const ExportModel m = handModel();
  const std::string t = write(m, G4mfContainer::kText);
  auto doc = parseJson(t, "x");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->find("asset")->find("dimension")->asInt(), 3);
  EXPECT_FALSE(doc->find("asset")->contains("version"));
  const auto& nodes = doc->find("nodes")->items();
  ASSERT_EQ(nodes.size(), 2 + m.names.size() + 1);
  // Root: no transform, one child, the skeleton.
  for (const char* k : {"position", "basis", "rotor", "scale"}) EXPECT_FALSE(nodes[0].contains(k));
  EXPECT_EQ(writeJson(*nodes[0].find("children"), {.indent = -1}), "[1]");
  // Skeleton: the single root bone first, then the mesh node; joints every bone in order.
  EXPECT_TRUE(nodes[1].contains("skeleton"));
  EXPECT_EQ(writeJson(*nodes[1].find("children"), {.indent = -1}), "[2, 6]");
  EXPECT_EQ(writeJson(*nodes[1].find("skeleton")->find("joints"), {.indent = -1}), "[2, 3, 4, 5]");
  EXPECT_EQ(nodes[1].find("extras")->find("rig")->asString(), "test_rig");
  // Bones: bone.length, extras with the MakeHuman name; the mesh node has no transform.
  EXPECT_EQ(nodes[5].find("bone")->find("length")->asDouble(), 0.45);
  EXPECT_EQ(nodes[5].find("extras")->find("makehumanName")->asString(), "thigh.L");
  EXPECT_EQ(nodes[6].find("name")->asString(), "Body");
  EXPECT_EQ(nodes[6].find("meshInstance")->find("mesh")->asInt(), 0);
  EXPECT_EQ(nodes[6].members().size(), 2u);
  const Json& mesh = doc->find("meshes")->items()[0];
  EXPECT_EQ(mesh.find("name")->asString(), "BodyMesh");
  const Json& surface = mesh.find("surfaces")->items()[0];
  EXPECT_TRUE(surface.find("polytopeSimplexes")->asBool());
  EXPECT_EQ(surface.find("normals")->find("simplexes")->asInt(), surface.find("textureMap")->find("simplexes")->asInt());
  EXPECT_NE(surface.find("normals")->find("simplexes")->asInt(), surface.find("simplexes")->asInt());  // split vertex 8
  // The body's material: named apart from the node "Body"; base colour RGBA; ORM = (occlusion 0
  // as the spec's default, roughness 0.5, metallic 0); opaque and one-sided: no extras.
  EXPECT_EQ(surface.find("material")->asInt(), 0);
  const Json& material = doc->find("materials")->items()[0];
  EXPECT_EQ(doc->find("materials")->size(), 1u);
  EXPECT_EQ(material.find("name")->asString(), "BodyMaterial");
  EXPECT_EQ(writeJson(*material.find("baseColor")->find("factor"), {.indent = -1}), "[0.800000011920929, 0.800000011920929, 0.800000011920929, 1.0]");
  EXPECT_EQ(writeJson(*material.find("orm")->find("factor"), {.indent = -1}), "[0.0, 0.5, 0.0]");
  EXPECT_FALSE(material.contains("extras"));
  // Names that would collide are made unique.
  G4mfWriteOptions o;
  o.root_name = "a.b";
  ExportModel hips = m;
  hips.meshes[0].name = "Hips";
  auto renamed = writeG4mf(hips, o);
  ASSERT_TRUE(renamed.ok());
  EXPECT_NE(renamed->find("\"name\": \"Hips_2\""), std::string::npos);
  EXPECT_NE(renamed->find("\"name\": \"a_b\""), std::string::npos);
  EXPECT_TRUE(validateG4mf(*renamed, "x").empty()) << issuesText(validateG4mf(*renamed, "x"));
}

TEST(G4mfWrite, SkinWeightsNormalisedSortedAndTiny) {
  ExportModel m = handModel();
  // Vertex 7: a total of 5e-5 (Blender leaves such a vertex at rest): not listed at all.
  m.meshes[0].skin.weights[m.meshes[0].skin.offsets[7]] = 5e-5f;
  auto d = readG4mf(write(m, G4mfContainer::kText), "x");
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->meshes.size(), 1u);
  EXPECT_EQ(std::count(d->meshes[0].skin_vertices.begin(), d->meshes[0].skin_vertices.end(), 7u), 0);
  // Vertex 2: 0.5 / 0.2 -> 0.714.. / 0.285..; vertex 6: a tie, the lower group first.
  auto entries = [&](std::uint32_t v) {
    std::vector<std::pair<std::uint32_t, float>> out;
    for (std::size_t k = 0; k < d->meshes[0].skin_vertices.size(); ++k)
      if (d->meshes[0].skin_vertices[k] == v) out.emplace_back(d->meshes[0].skin_groups[k], d->meshes[0].skin_weights[k]);
    return out;
  };
  EXPECT_EQ(entries(2), (std::vector<std::pair<std::uint32_t, float>>{{0, float(0.5f / (0.5 + double(0.2f)))}, {3, float(0.2f / (0.5 + double(0.2f)))}}));
  EXPECT_EQ(entries(6), (std::vector<std::pair<std::uint32_t, float>>{{1, 0.5f}, {2, 0.5f}}));
  // Unnormalised: the stored weights (zero weights still dropped).
  G4mfWriteOptions o;
  o.normalize_weights = false;
  auto raw = readG4mf(*writeG4mf(handModel(), o), "x");
  ASSERT_TRUE(raw.ok());
  ASSERT_EQ(raw->meshes.size(), 1u);
  EXPECT_EQ(raw->meshes[0].skin_weights.size(), 13u);  // 14 influences of the 8 vertices, minus one zero weight
}

TEST(G4mfWrite, Errors) {
  ExportModel m = handModel();
  m.parents[1] = 2;
  EXPECT_FALSE(writeG4mf(m, {}).ok());
  m = handModel();
  m.names[1] = "spine.01";
  EXPECT_FALSE(writeG4mf(m, {}).ok());
  m = handModel();
  m.names[1] = "Hips";
  EXPECT_FALSE(writeG4mf(m, {}).ok());
  m = handModel();
  m.meshes[0].positions[4] = std::nanf("");
  EXPECT_EQ(writeG4mf(m, {}).error().code, ErrorCode::kRange);
  m = handModel();
  m.bind_local[2](0, 3) = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(writeG4mf(m, {}).ok());
  m = handModel();
  m.lengths[0] = -1.0;
  EXPECT_FALSE(writeG4mf(m, {}).ok());
  m = handModel();
  m.meshes[0].triangles[0] = 99;
  EXPECT_FALSE(writeG4mf(m, {}).ok());
  m = handModel();
  m.meshes[0].skin.bones[0] = 9;
  EXPECT_FALSE(writeG4mf(m, {}).ok());
  EXPECT_FALSE(writeG4mf(handModel(), {.container = G4mfContainer::kText, .zstd = true}).ok());
  EXPECT_FALSE(writeG4mf(handModel(), {.container = G4mfContainer::kBinary, .zstd = true, .zstd_level = 99}).ok());
}

// ---------------------------------------------------------------------------------------------
// Official examples

TEST(G4mfExamples, SharedWorkedExampleIsValidAndReadable) {
  for (const char* file : {"skinned_strip_2bones.g4tf", "skinned_strip_2bones.g4b"}) {
    SCOPED_TRACE(file);
    const std::string path = test::sharedData() + "/../../g4mf/examples/" + file;
    const std::string bytes = test::readText(path);
    ASSERT_FALSE(bytes.empty()) << path;
    const auto issues = validateG4mf(bytes, file);
    EXPECT_TRUE(issues.empty()) << issuesText(issues);
    auto d = readG4mf(bytes, file);
    ASSERT_TRUE(d.ok()) << d.error().message;
    ASSERT_EQ(d->meshes.size(), 1u);
    EXPECT_EQ(d->bone_names, (std::vector<std::string>{"Hips", "Spine"}));
    EXPECT_EQ(d->parents, (std::vector<int>{-1, 0}));
    EXPECT_EQ(d->joints, (std::vector<int>{0, 1}));
    EXPECT_DOUBLE_EQ(d->global[1](1, 3), 0.5);
    EXPECT_EQ(d->meshes[0].vertexCount(), 6u);
    EXPECT_EQ(d->meshes[0].triangles, (std::vector<std::uint32_t>{0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4}));
    EXPECT_EQ(d->meshes[0].polygon_offsets, (std::vector<std::uint32_t>{0, 4, 8}));
    EXPECT_EQ(d->meshes[0].skin_vertices, (std::vector<std::uint32_t>{0, 1, 2, 2, 3, 3, 4, 5}));
    EXPECT_EQ(d->meshes[0].skin_groups, (std::vector<std::uint32_t>{0, 0, 1, 0, 1, 0, 1, 1}));
    EXPECT_FLOAT_EQ(d->meshes[0].skin_weights[2], 0.6f);
    EXPECT_EQ(d->meshes[0].group_names, (std::vector<std::string>{"Hips", "Spine"}));
    EXPECT_EQ(d->meshes[0].uvs[1], 1.0f);  // v0 (bottom) -> top-left origin v = 1
  }
}

// ---------------------------------------------------------------------------------------------
// Validator: one broken file per rule

constexpr const char* kPrefix = "data:application/octet-stream;base64,";

// A valid written .g4tf taken apart: its JSON and its buffer bytes, to break one thing at a time.
struct Doc {
  Json json;
  std::string bin;
  Json& nodes() { return *json.find("nodes"); }
  Json& node(std::size_t i) { return nodes().items()[i]; }
  Json& mesh() { return json.find("meshes")->items()[0]; }
  Json& surface() { return mesh().find("surfaces")->items()[0]; }
  Json& skin() { return *mesh().find("skin"); }
  Json& accessor(std::size_t i) { return json.find("accessors")->items()[i]; }
  Json& view(std::size_t i) { return json.find("bufferViews")->items()[i]; }
  Json& buffer() { return json.find("buffers")->items()[0]; }
  std::int64_t acc(Json& holder, const char* key) { return holder.find(key)->asInt(); }
  // Byte range of an accessor's data in `bin`.
  std::size_t offset(std::int64_t accessor_index) {
    const Json& v = view(static_cast<std::size_t>(accessor(static_cast<std::size_t>(accessor_index)).find("bufferView")->asInt()));
    return v.contains("byteOffset") ? static_cast<std::size_t>(v.find("byteOffset")->asInt()) : 0;
  }
  std::string componentType(std::int64_t accessor_index) { return accessor(static_cast<std::size_t>(accessor_index)).find("componentType")->asString(); }
  void setUint(std::int64_t a, std::size_t element, std::uint32_t value) {
    const std::string ct = componentType(a);
    const std::size_t size = ct == "uint8" ? 1 : ct == "uint16" ? 2 : 4;
    for (std::size_t k = 0; k < size; ++k) bin[offset(a) + element * size + k] = static_cast<char>((value >> (8 * k)) & 0xFF);
  }
  void setFloat(std::int64_t a, std::size_t element, float value) { std::memcpy(&bin[offset(a) + 4 * element], &value, 4); }
  std::int64_t addAccessor(Json a) {
    json.find("accessors")->push(std::move(a));
    return static_cast<std::int64_t>(json.find("accessors")->size() - 1);
  }
  std::int64_t addView(std::int64_t offset_bytes, std::int64_t length) {
    Json v = Json::object();
    v.set("byteLength", length);
    v.set("byteOffset", offset_bytes);
    json.find("bufferViews")->push(std::move(v));
    return static_cast<std::int64_t>(json.find("bufferViews")->size() - 1);
  }
  std::string text() const {
    Json copy = json;
    Json& b = copy.find("buffers")->items()[0];
    if (b.contains("uri") && b.find("uri")->asString().rfind(kPrefix, 0) == 0) b.set("uri", std::string(kPrefix) + base64Encode(bin));
    return writeJson(copy, {.indent = 1, .sort_keys = false, .inline_numbers = true});
  }
};

Doc baseDoc() {
  static const std::string text = write(handModel(), G4mfContainer::kText);
  Doc d;
  d.json = *parseJson(text, "base");
  const std::string& uri = d.buffer().find("uri")->asString();
  std::size_t bad = 0;
  EXPECT_TRUE(base64Decode(std::string_view(uri).substr(std::strlen(kPrefix)), d.bin, bad));
  return d;
}

// A .g4b from JSON text and chunk bytes (chunk = {type, encoding, data}), 16-byte aligned.
struct RawChunk {
  std::string type, encoding, data;
  char pad = '\0';
};
std::string container(const std::vector<RawChunk>& chunks) {
  std::string out = "G4MF" + std::string(12, '\0');
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const RawChunk& c = chunks[i];
    out += c.type + c.encoding;
    for (int s = 0; s < 64; s += 8) out.push_back(static_cast<char>((std::uint64_t(c.data.size()) >> s) & 0xFF));
    out += c.data;
    if (i + 1 < chunks.size()) out.append((16 - out.size() % 16) % 16, c.pad);
  }
  for (int s = 0; s < 64; s += 8) out[8 + static_cast<std::size_t>(s / 8)] = static_cast<char>((std::uint64_t(out.size()) >> s) & 0xFF);
  return out;
}
std::string zstd(std::string_view data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3));
  return out;
}
// The base model's JSON with its buffer as chunk 1 (optionally Zstd).
std::string binaryDoc(Doc d, bool zstd_blob = false, bool zstd_json = false) {
  Json& b = d.buffer();
  b.erase("uri");
  b.set("chunk", 1);
  if (zstd_blob) b.set("encoding", "Zstd");
  const std::string json = writeJson(d.json, {.indent = -1, .sort_keys = false});
  return container({{"JSON", zstd_json ? "Zstd" : std::string(4, '\0'), zstd_json ? zstd(json) : json, zstd_json ? '\0' : ' '},
                    {"BLOB", zstd_blob ? "Zstd" : std::string(4, '\0'), zstd_blob ? zstd(d.bin) : d.bin}});
}
void setU64(std::string& s, std::size_t off, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) s[off + static_cast<std::size_t>(k)] = static_cast<char>((v >> (8 * k)) & 0xFF);
}

struct BrokenCase {
  std::string name;
  std::string path;  ///< expected issue path; a trailing '*' matches a prefix
  G4mfSeverity severity = G4mfSeverity::kError;
  std::function<std::string()> make;
};

BrokenCase jsonCase(std::string name, std::string path, std::function<void(Doc&)> f, G4mfSeverity sev = G4mfSeverity::kError) {
  return {std::move(name), std::move(path), sev, [f] {
            Doc d = baseDoc();
            f(d);
            return d.text();
          }};
}
BrokenCase textCase(std::string name, std::function<std::string(std::string)> f) {
  return {std::move(name), "text:*", G4mfSeverity::kError, [f] { return f(baseDoc().text()); }};
}
BrokenCase binCase(std::string name, std::string path, std::function<std::string()> f, G4mfSeverity sev = G4mfSeverity::kError) {
  return {std::move(name), std::move(path), sev, std::move(f)};
}

Json arr(std::initializer_list<std::int64_t> v) {
  Json a = Json::array();
  for (auto x : v) a.push(x);
  return a;
}

// Node indices of the base document: 0 root, 1 skeleton, 2 Hips, 3 Spine, 4 Head, 5 LeftLeg, 6 mesh.
std::vector<BrokenCase> brokenCases() {
  using S = G4mfSeverity;
  std::vector<BrokenCase> c;
  // JSON text (§1.1).
  c.push_back(textCase("Bom", [](std::string t) { return "\xEF\xBB\xBF" + t; }));
  c.push_back(textCase("CarriageReturn", [](std::string t) {
    const std::size_t lf = t.find("\n");
    return t.insert(lf == std::string::npos ? 0 : lf, "\r");
  }));
  c.push_back(textCase("RawC1Control", [](std::string t) { return t.insert(t.find("rigfit ") + 6, "\xC2\x85"); }));
  c.push_back(textCase("RawDelete", [](std::string t) { return t.insert(t.find("rigfit ") + 6, "\x7F"); }));
  c.push_back(textCase("InvalidUtf8", [](std::string t) { return t.insert(t.find("rigfit ") + 6, "\xFF"); }));
  c.push_back(binCase("NotJson", "text", [] { return baseDoc().text().substr(0, 100); }));
  c.push_back(binCase("NotAnObject", "", [] { return std::string("[1, 2]"); }));
  // Asset (§2).
  c.push_back(jsonCase("NoAsset", "/asset", [](Doc& d) { d.json.erase("asset"); }));
  c.push_back(jsonCase("NoDimension", "/asset/dimension", [](Doc& d) { d.json.find("asset")->erase("dimension"); }));
  c.push_back(jsonCase("FractionalDimension", "/asset/dimension", [](Doc& d) { d.json.find("asset")->set("dimension", 3.5); }));
  c.push_back(jsonCase("StringDimension", "/asset/dimension", [](Doc& d) { d.json.find("asset")->set("dimension", "3"); }));
  c.push_back(jsonCase("BadVersion", "/asset/version", [](Doc& d) { d.json.find("asset")->set("version", "1"); }));
  c.push_back(jsonCase("GeneratorNotString", "/asset/generator", [](Doc& d) { d.json.find("asset")->set("generator", 1); }));
  c.push_back(jsonCase("RequiredWithoutUsed", "/asset/extensionsUsed", [](Doc& d) {
    Json a = Json::array();
    d.json.find("asset")->set("extensionsRequired", a);
  }));
  c.push_back(jsonCase("RequiredNotUsed", "/asset/extensionsRequired", [](Doc& d) {
    Json a = Json::array();
    d.json.find("asset")->set("extensionsUsed", a);
    a.push("X_thing");
    d.json.find("asset")->set("extensionsRequired", a);
  }));
  c.push_back(jsonCase("ExtensionNotListed", "/nodes/0/extensions/X_thing", [](Doc& d) {
    Json e = Json::object();
    e.set("X_thing", Json::object());
    d.node(0).set("extensions", e);
  }));
  c.push_back(jsonCase("ExtrasNotObject", "/nodes/2/extras", [](Doc& d) { d.node(2).set("extras", 1); }));
  // Names (§3).
  c.push_back(jsonCase("DuplicateName", "/meshes/0/name", [](Doc& d) { d.mesh().set("name", "Hips"); }));
  c.push_back(jsonCase("DuplicateNameAcrossKinds", "/accessors/0/name", [](Doc& d) { d.accessor(0).set("name", "Body"); }));
  c.push_back(jsonCase("NameWithDot", "/nodes/3/name", [](Doc& d) { d.node(3).set("name", "spine.01"); }));
  c.push_back(jsonCase("NameWithPercent", "/nodes/3/name", [](Doc& d) { d.node(3).set("name", "a%b"); }));
  c.push_back(jsonCase("NameWithEscapedControl", "/nodes/3/name", [](Doc& d) { d.node(3).set("name", "a\xC2\x85" "b"); }));
  c.push_back(jsonCase("NameWithTab", "/nodes/3/name", [](Doc& d) { d.node(3).set("name", "a\tb"); }));
  c.push_back(jsonCase("NameNotString", "/nodes/3/name", [](Doc& d) { d.node(3).set("name", 5); }));
  // Top-level arrays, uniqueItems.
  c.push_back(jsonCase("AccessorsNotArray", "/accessors", [](Doc& d) { d.json.set("accessors", Json::object()); }));
  c.push_back(jsonCase("DuplicateAccessor", "/accessors/8", [](Doc& d) { d.addAccessor(d.accessor(0)); }));
  c.push_back(jsonCase("DuplicateBufferView", "/bufferViews/8", [](Doc& d) { d.json.find("bufferViews")->push(d.view(0)); }));
  // Buffers (§4).
  c.push_back(jsonCase("TextBufferWithChunk", "/buffers/0/chunk", [](Doc& d) { d.buffer().set("chunk", 1); }));
  c.push_back(jsonCase("TextBufferWithoutUri", "/buffers/0", [](Doc& d) { d.buffer().erase("uri"); }));
  c.push_back(jsonCase("BufferWithoutByteLength", "/buffers/0/byteLength", [](Doc& d) { d.buffer().erase("byteLength"); }));
  c.push_back(jsonCase("NegativeByteLength", "/buffers/0/byteLength", [](Doc& d) { d.buffer().set("byteLength", -4); }));
  c.push_back(jsonCase("DataShorterThanByteLength", "/buffers/0/byteLength", [](Doc& d) { d.bin.resize(d.bin.size() - 1); }));
  c.push_back(jsonCase("BadEncodingLength", "/buffers/0/encoding", [](Doc& d) { d.buffer().set("encoding", "Zst"); }));
  c.push_back(jsonCase("ZeroEncoding", "/buffers/0/encoding", [](Doc& d) { d.buffer().set("encoding", std::string(4, '\0')); }));
  c.push_back(jsonCase("ReservedEncoding", "/buffers/0/encoding", [](Doc& d) { d.buffer().set("encoding", "\xC3\xBF\xC3\xBF\xC3\xBF\xC3\xBF"); }));
  c.push_back(jsonCase("UnknownEncoding", "/buffers/0/encoding", [](Doc& d) { d.buffer().set("encoding", "LZ4 "); }, S::kWarning));
  c.push_back(binCase("WrongDataUriPrefix", "/buffers/0/uri", [] {
    std::string t = baseDoc().text();
    const std::size_t at = t.find(kPrefix);
    return t.replace(at, std::strlen(kPrefix), "data:application/gltf-buffer;base64,");
  }));
  c.push_back(binCase("BadBase64", "/buffers/0/uri", [] {
    std::string t = baseDoc().text();
    t[t.find(kPrefix) + std::strlen(kPrefix) + 5] = '!';
    return t;
  }));
  c.push_back(binCase("Base64NotPadded", "/buffers/0/uri", [] {
    std::string t = baseDoc().text();
    return t.insert(t.find(kPrefix) + std::strlen(kPrefix) + 4, "A");
  }));
  c.push_back(jsonCase("ExternalUri", "/buffers/0/uri", [](Doc& d) { d.buffer().set("uri", "model.bin"); }, S::kWarning));
  // Binary buffers (§1.2, §4).
  c.push_back(binCase("BinaryBufferChunkAndUri", "/buffers/0", [] {
    Doc d = baseDoc();
    d.buffer().set("chunk", 1);
    return container({{"JSON", std::string(4, '\0'), writeJson(d.json, {.indent = -1}), ' '}, {"BLOB", std::string(4, '\0'), d.bin}});
  }));
  c.push_back(binCase("BinaryBufferNeither", "/buffers/0", [] {
    Doc d = baseDoc();
    d.buffer().erase("uri");
    return container({{"JSON", std::string(4, '\0'), writeJson(d.json, {.indent = -1}), ' '}, {"BLOB", std::string(4, '\0'), d.bin}});
  }));
  c.push_back(binCase("BinaryChunkOutOfRange", "/buffers/0/chunk", [] {
    Doc d = baseDoc();
    d.buffer().erase("uri");
    d.buffer().set("chunk", 5);
    return container({{"JSON", std::string(4, '\0'), writeJson(d.json, {.indent = -1}), ' '}, {"BLOB", std::string(4, '\0'), d.bin}});
  }));
  c.push_back(binCase("BinaryBufferIsJsonChunk", "/buffers/0/chunk", [] {
    Doc d = baseDoc();
    d.buffer().erase("uri");
    d.buffer().set("chunk", 0);
    return container({{"JSON", std::string(4, '\0'), writeJson(d.json, {.indent = -1}), ' '}, {"BLOB", std::string(4, '\0'), d.bin}});
  }));
  c.push_back(binCase("EncodingMismatch", "/buffers/0/encoding", [] {
    Doc d = baseDoc();
    d.buffer().erase("uri");
    d.buffer().set("chunk", 1);
    d.buffer().set("encoding", "Zstd");
    return container({{"JSON", std::string(4, '\0'), writeJson(d.json, {.indent = -1}), ' '}, {"BLOB", std::string(4, '\0'), d.bin}});
  }));
  c.push_back(binCase("PlainChunkShorterThanByteLength", "/buffers/0/byteLength", [] {
    Doc d = baseDoc();
    d.bin.resize(d.bin.size() - 2);
    d.buffer().set("byteLength", static_cast<std::int64_t>(d.bin.size() + 2));
    return binaryDoc(d);
  }));
  c.push_back(binCase("ZstdChunkShorterThanByteLength", "/buffers/0/byteLength", [] {
    Doc d = baseDoc();
    d.bin.resize(d.bin.size() - 2);
    d.buffer().set("byteLength", static_cast<std::int64_t>(d.bin.size() + 2));
    return binaryDoc(d, true);
  }));
  c.push_back(binCase("DataUriInBinary", "/buffers/0/uri", [] {
    Doc d = baseDoc();
    return container({{"JSON", std::string(4, '\0'), d.text(), ' '}});
  }, S::kWarning));
  // Buffer views (§5).
  c.push_back(jsonCase("ViewBeyondBuffer", "/bufferViews/0", [](Doc& d) { d.view(0).set("byteOffset", static_cast<std::int64_t>(d.bin.size())); }));
  c.push_back(jsonCase("ViewBadBuffer", "/bufferViews/0/buffer", [](Doc& d) { d.view(0).set("buffer", 3); }));
  c.push_back(jsonCase("ViewWithoutByteLength", "/bufferViews/0/byteLength", [](Doc& d) { d.view(0).erase("byteLength"); }));
  c.push_back(jsonCase("ViewNegativeOffset", "/bufferViews/1/byteOffset", [](Doc& d) { d.view(1).set("byteOffset", -8); }));
  // Accessors (§6).
  c.push_back(jsonCase("UnknownComponentType", "/accessors/0/componentType", [](Doc& d) { d.accessor(0).set("componentType", "float"); }));
  c.push_back(jsonCase("NoComponentType", "/accessors/0/componentType", [](Doc& d) { d.accessor(0).erase("componentType"); }));
  c.push_back(jsonCase("ZeroVectorSize", "/accessors/0/vectorSize", [](Doc& d) { d.accessor(0).set("vectorSize", 0); }));
  c.push_back(jsonCase("NoBufferView", "/accessors/0/bufferView", [](Doc& d) { d.accessor(0).erase("bufferView"); }));
  c.push_back(jsonCase("MinusOneIndex", "/accessors/0/bufferView", [](Doc& d) { d.accessor(0).set("bufferView", -1); }));
  c.push_back(jsonCase("FractionalIndex", "/accessors/0/bufferView", [](Doc& d) { d.accessor(0).set("bufferView", 0.5); }));
  c.push_back(jsonCase("LengthNotMultipleOfElement", "/accessors/0/bufferView", [](Doc& d) {
    d.view(0).set("byteLength", d.view(0).find("byteLength")->asInt() - 4);
  }));
  c.push_back(jsonCase("OffsetNotMultipleOfComponent", "/accessors/1/bufferView", [](Doc& d) {
    d.view(1).set("byteOffset", d.view(1).find("byteOffset")->asInt() + 2);
    d.view(1).set("byteLength", d.view(1).find("byteLength")->asInt() - 12);
  }));
  // Nodes (§7).
  c.push_back(jsonCase("RootTransform", "/nodes/0/position", [](Doc& d) { d.node(0).set("position", arr({0, 0, 0})); }));
  c.push_back(jsonCase("RootAsChild", "/nodes/1/children/2", [](Doc& d) { d.node(1).find("children")->push(0); }));
  c.push_back(jsonCase("TwoParents", "/nodes/1/children/0", [](Doc& d) { d.node(0).find("children")->push(2); }));
  c.push_back(jsonCase("ChildListedTwice", "/nodes/1/children/2", [](Doc& d) { d.node(1).find("children")->push(2); }));
  c.push_back(jsonCase("ChildOutOfRange", "/nodes/0/children/0", [](Doc& d) { d.node(0).set("children", arr({99})); }));
  c.push_back(jsonCase("EmptyChildren", "/nodes/4/children", [](Doc& d) { d.node(4).set("children", Json::array()); }));
  c.push_back(jsonCase("Cycle", "/nodes/3/children", [](Doc& d) {
    d.node(1).set("children", arr({6}));
    d.node(3).set("children", arr({4, 2}));
  }));
  c.push_back(jsonCase("UnusedNode", "/nodes/7", [](Doc& d) {
    Json n = Json::object();
    n.set("name", "Stray");
    d.nodes().push(n);
  }, S::kWarning));
  c.push_back(jsonCase("TwoComponents", "/nodes/6", [](Doc& d) { d.node(6).set("bone", Json::object()); }));
  c.push_back(jsonCase("BasisAndRotor", "/nodes/3/basis", [](Doc& d) { d.node(3).set("basis", arr({1, 0, 0, 0, 1, 0, 0, 0, 1})); }));
  c.push_back(jsonCase("BasisAndScale", "/nodes/4/basis", [](Doc& d) {
    d.node(4).set("basis", arr({1, 0, 0, 0, 1, 0, 0, 0, 1}));
    d.node(4).set("scale", arr({2}));
  }));
  c.push_back(jsonCase("PositionLength", "/nodes/3/position", [](Doc& d) { d.node(3).set("position", arr({0, 1})); }));
  c.push_back(jsonCase("BasisLength", "/nodes/4/basis", [](Doc& d) { d.node(4).set("basis", arr({1, 0, 0, 1})); }));
  c.push_back(jsonCase("RotorLength", "/nodes/3/rotor", [](Doc& d) { d.node(3).set("rotor", arr({1, 0, 0})); }));
  c.push_back(jsonCase("RotorRange", "/nodes/3/rotor/0", [](Doc& d) { d.node(3).find("rotor")->items()[0] = Json(1.5); }));
  c.push_back(jsonCase("ZeroRotor", "/nodes/3/rotor", [](Doc& d) { d.node(3).set("rotor", arr({0, 0, 0, 0})); }));
  c.push_back(jsonCase("ZeroScale", "/nodes/3/scale/0", [](Doc& d) { d.node(3).set("scale", arr({0})); }));
  c.push_back(jsonCase("NegativeScale", "/nodes/3/scale/1", [](Doc& d) { d.node(3).set("scale", arr({1, -1, 1})); }));
  c.push_back(jsonCase("ScaleLength", "/nodes/3/scale", [](Doc& d) { d.node(3).set("scale", arr({1, 1})); }));
  c.push_back(jsonCase("VisibleNotBool", "/nodes/3/visible", [](Doc& d) { d.node(3).set("visible", "yes"); }));
  // Bones and skeletons (§12).
  c.push_back(jsonCase("NegativeBoneLength", "/nodes/3/bone/length", [](Doc& d) { d.node(3).find("bone")->set("length", -1.0); }));
  c.push_back(jsonCase("NegativeBoneMass", "/nodes/3/bone/mass", [](Doc& d) { d.node(3).find("bone")->set("mass", -2.0); }));
  c.push_back(jsonCase("ZeroBoneMass", "/nodes/3/bone/mass", [](Doc& d) { d.node(3).find("bone")->set("mass", 0.0); }, S::kWarning));
  c.push_back(jsonCase("ShapeWithoutLength", "/nodes/3/bone/shape", [](Doc& d) {
    Json shapes = Json::array();
    shapes.push(Json::object());
    d.json.set("shapes", shapes);
    Json bone = Json::object();
    bone.set("shape", 0);
    d.node(3).set("bone", bone);
  }));
  c.push_back(jsonCase("BoneUnderNonBone", "/nodes/7/bone", [](Doc& d) {
    Json n = Json::object();
    n.set("name", "Stray");
    n.set("bone", Json::object());
    d.nodes().push(n);
    d.node(6).set("children", arr({7}));
  }));
  c.push_back(jsonCase("JointNotBone", "/nodes/1/skeleton/joints/3", [](Doc& d) { d.node(1).find("skeleton")->set("joints", arr({2, 3, 4, 6})); }));
  c.push_back(jsonCase("JointOfNoSkeleton", "/nodes/1/skeleton/joints/4", [](Doc& d) {
    Json n = Json::object();
    n.set("name", "Stray");
    n.set("bone", Json::object());
    d.nodes().push(n);
    d.node(0).find("children")->push(7);
    d.node(1).find("skeleton")->set("joints", arr({2, 3, 4, 5, 7}));
  }));
  c.push_back(jsonCase("JointsNotIncreasing", "/nodes/1/skeleton/joints/2", [](Doc& d) { d.node(1).find("skeleton")->set("joints", arr({2, 4, 3, 5})); }));
  c.push_back(jsonCase("JointRepeated", "/nodes/1/skeleton/joints/2", [](Doc& d) { d.node(1).find("skeleton")->set("joints", arr({2, 3, 3, 4, 5})); }, S::kWarning));
  c.push_back(jsonCase("JointMinusOne", "/nodes/1/skeleton/joints/4", [](Doc& d) { d.node(1).find("skeleton")->set("joints", arr({2, 3, 4, 5, -1})); }, S::kWarning));
  c.push_back(jsonCase("JointOutOfRange", "/nodes/1/skeleton/joints/3", [](Doc& d) { d.node(1).find("skeleton")->set("joints", arr({2, 3, 4, 40})); }));
  c.push_back(jsonCase("RootBoneNotFirstChild", "/nodes/1/children", [](Doc& d) { d.node(1).set("children", arr({6, 2})); }));
  c.push_back(jsonCase("RootBoneNotFirstJoint", "/nodes/1/skeleton/joints/0", [](Doc& d) { d.node(1).find("skeleton")->set("joints", arr({3, 2})); }));
  c.push_back(jsonCase("ChildJointBeforeParent", "/nodes/1/skeleton/joints/0", [](Doc& d) {
    // Node 3 (Spine) becomes the root bone and node 2 (Hips) its child: joints [2, 3] list a child first.
    d.node(1).set("children", arr({3, 6}));
    d.node(3).set("children", arr({2}));
    d.node(2).set("children", arr({4, 5}));
    d.node(1).find("skeleton")->set("joints", arr({2, 3}));
  }));
  c.push_back(jsonCase("SkeletonNotObject", "/nodes/1/skeleton", [](Doc& d) { d.node(1).set("skeleton", 1); }));
  // Meshes and surfaces (§9).
  c.push_back(jsonCase("MeshWithoutVertices", "/meshes/0/vertices", [](Doc& d) { d.mesh().erase("vertices"); }));
  c.push_back(jsonCase("VerticesWrongVectorSize", "/meshes/0/vertices", [](Doc& d) { d.mesh().set("vertices", d.acc(*d.surface().find("textureMap"), "values")); }));
  c.push_back(jsonCase("EmptySurfaces", "/meshes/0/surfaces", [](Doc& d) { d.mesh().set("surfaces", Json::array()); }));
  c.push_back(jsonCase("DuplicateSurface", "/meshes/0/surfaces/1", [](Doc& d) { d.mesh().find("surfaces")->push(d.surface()); }));
  c.push_back(jsonCase("FloatSimplexes", "/meshes/0/surfaces/0/simplexes", [](Doc& d) { d.surface().set("simplexes", d.acc(d.mesh(), "vertices")); }));
  c.push_back(jsonCase("SimplexOutOfRange", "/meshes/0/surfaces/0/simplexes", [](Doc& d) { d.setUint(d.acc(d.surface(), "simplexes"), 4, 8); }));
  c.push_back(jsonCase("PolytopesWithoutSimplexes", "/meshes/0/surfaces/0/polytopeSimplexes", [](Doc& d) {
    d.surface().erase("simplexes");
    d.surface().erase("normals");
    d.surface().erase("textureMap");
  }));
  c.push_back(jsonCase("PolytopesNotBool", "/meshes/0/surfaces/0/polytopeSimplexes", [](Doc& d) { d.surface().set("polytopeSimplexes", 1); }));
  c.push_back(jsonCase("GeometryWithoutEdges", "/meshes/0/surfaces/0/geometry", [](Doc& d) { d.surface().set("geometry", arr({d.acc(d.skin(), "vertices")})); }));
  c.push_back(jsonCase("EdgesWrongVectorSize", "/meshes/0/surfaces/0/edges", [](Doc& d) { d.surface().set("edges", d.acc(d.surface(), "simplexes")); }));
  c.push_back(jsonCase("MaterialOutOfRange", "/meshes/0/surfaces/0/material", [](Doc& d) { d.surface().set("material", 1); }));  // one material
  c.push_back(jsonCase("NormalsNotFloat", "/meshes/0/surfaces/0/normals/values", [](Doc& d) { d.surface().find("normals")->set("values", d.acc(d.surface(), "simplexes")); }));
  c.push_back(jsonCase("NormalsWrongVectorSize", "/meshes/0/surfaces/0/normals/values", [](Doc& d) {
    d.surface().find("normals")->set("values", d.acc(*d.surface().find("textureMap"), "values"));
  }));
  c.push_back(jsonCase("NormalNotUnit", "/meshes/0/surfaces/0/normals/values", [](Doc& d) {
    d.setFloat(d.acc(*d.surface().find("normals"), "values"), 3 * 3 + 2, 0.5f);
  }));
  c.push_back(jsonCase("NormalsWithoutValues", "/meshes/0/surfaces/0/normals/values", [](Doc& d) { d.surface().find("normals")->erase("values"); }));
  c.push_back(jsonCase("UvsNotFloat", "/meshes/0/surfaces/0/textureMap/values", [](Doc& d) { d.surface().find("textureMap")->set("values", d.acc(d.skin(), "groups")); }));
  c.push_back(jsonCase("BindingCountMismatch", "/meshes/0/surfaces/0/normals/simplexes", [](Doc& d) {
    const std::int64_t a = d.acc(*d.surface().find("normals"), "simplexes");
    Json acc = d.accessor(static_cast<std::size_t>(a));
    acc.set("bufferView", d.addView(static_cast<std::int64_t>(d.offset(a)), 3));
    d.surface().find("normals")->set("simplexes", d.addAccessor(acc));
  }));
  c.push_back(jsonCase("BindingIndexOutOfRange", "/meshes/0/surfaces/0/textureMap/simplexes", [](Doc& d) {
    d.setUint(d.acc(*d.surface().find("textureMap"), "simplexes"), 5, 9);
  }));
  c.push_back(jsonCase("BindingWithoutSurfaceSimplexes", "/meshes/0/surfaces/0/normals/simplexes", [](Doc& d) {
    d.surface().erase("simplexes");
    d.surface().erase("polytopeSimplexes");
  }));
  c.push_back(jsonCase("PerSimplexCount", "/meshes/0/surfaces/0/normals/perSimplex", [](Doc& d) {
    d.surface().find("normals")->erase("simplexes");
    d.surface().find("normals")->set("perSimplex", d.acc(d.skin(), "groups"));
  }));
  // Skin (§11).
  c.push_back(jsonCase("SkinWithoutWeights", "/meshes/0/skin/weights", [](Doc& d) { d.skin().erase("weights"); }));
  c.push_back(jsonCase("SkinVerticesSigned", "/meshes/0/skin/vertices", [](Doc& d) { d.accessor(static_cast<std::size_t>(d.acc(d.skin(), "vertices"))).set("componentType", "int8"); }));
  c.push_back(jsonCase("SkinGroupsFloat", "/meshes/0/skin/groups", [](Doc& d) { d.skin().set("groups", d.acc(d.skin(), "weights")); }));
  c.push_back(jsonCase("SkinWeightsInteger", "/meshes/0/skin/weights", [](Doc& d) { d.skin().set("weights", d.acc(d.skin(), "groups")); }));
  c.push_back(jsonCase("SkinGroupsVectorSize", "/meshes/0/skin/groups", [](Doc& d) { d.skin().set("groups", d.acc(d.surface(), "simplexes")); }));
  c.push_back(jsonCase("SkinCountsDiffer", "/meshes/0/skin/groups", [](Doc& d) {
    const std::int64_t a = d.acc(d.skin(), "groups");
    Json acc = d.accessor(static_cast<std::size_t>(a));
    acc.set("bufferView", d.addView(static_cast<std::int64_t>(d.offset(a)), 3));
    d.skin().set("groups", d.addAccessor(acc));
  }));
  c.push_back(jsonCase("SkinVerticesNotAscending", "/meshes/0/skin/vertices", [](Doc& d) { d.setUint(d.acc(d.skin(), "vertices"), 1, 5); }));
  c.push_back(jsonCase("SkinVertexOutOfRange", "/meshes/0/skin/vertices", [](Doc& d) {
    const std::int64_t a = d.acc(d.skin(), "vertices");
    d.setUint(a, 12, 200);  // the last of 13 entries
  }));
  c.push_back(jsonCase("SkinWeightsNotDescending", "/meshes/0/skin/weights", [](Doc& d) { d.setFloat(d.acc(d.skin(), "weights"), 3, 0.9f); }));
  c.push_back(jsonCase("SkinWeightNaN", "/meshes/0/skin/weights", [](Doc& d) { d.setFloat(d.acc(d.skin(), "weights"), 0, std::nanf("")); }));
  c.push_back(jsonCase("GroupNamesDuplicate", "/meshes/0/skin/groupNames/1", [](Doc& d) { d.skin().find("groupNames")->items()[1] = Json("Hips"); }));
  c.push_back(jsonCase("GroupNamesEmpty", "/meshes/0/skin/groupNames/0", [](Doc& d) { d.skin().find("groupNames")->items()[0] = Json(""); }));
  c.push_back(jsonCase("SkinnedMeshNotUnderSkeleton", "/nodes/6/meshInstance", [](Doc& d) {
    d.node(1).set("children", arr({2}));
    d.node(0).set("children", arr({1, 6}));
  }, S::kWarning));
  c.push_back(jsonCase("GroupNamesDifferAcrossMeshes", "/meshes/1/skin/groupNames/0", [](Doc& d) {
    Json mesh = d.mesh();
    mesh.set("name", "OtherMesh");
    mesh.find("surfaces")->items()[0].set("name", "OtherSurface");
    mesh.find("skin")->find("groupNames")->items()[0] = Json("Pelvis");
    d.json.find("meshes")->push(mesh);
    Json n = Json::object();
    n.set("name", "Other");
    Json mi = Json::object();
    mi.set("mesh", 1);
    n.set("meshInstance", mi);
    d.nodes().push(n);
    d.node(1).find("children")->push(7);
  }));
  // Mesh instances (§10).
  c.push_back(jsonCase("InstanceWithoutMesh", "/nodes/6/meshInstance/mesh", [](Doc& d) { d.node(6).set("meshInstance", Json::object()); }));
  c.push_back(jsonCase("InstanceMeshOutOfRange", "/nodes/6/meshInstance/mesh", [](Doc& d) { d.node(6).find("meshInstance")->set("mesh", 1); }));
  c.push_back(jsonCase("EmptyMaterials", "/nodes/6/meshInstance/materials", [](Doc& d) { d.node(6).find("meshInstance")->set("materials", Json::array()); }));
  c.push_back(jsonCase("BlendAmountsLength", "/nodes/6/meshInstance/blendAmounts", [](Doc& d) { d.node(6).find("meshInstance")->set("blendAmounts", arr({1})); }));
  // Blend shapes (§14).
  auto withBlend = [](Doc& d, Json shape) {
    Json shapes = Json::array();
    shapes.push(std::move(shape));
    Json blend = Json::object();
    blend.set("shapes", shapes);
    d.mesh().set("blend", blend);
  };
  c.push_back(jsonCase("BlendCountsDiffer", "/meshes/0/blend/shapes/0/position/offsets", [withBlend](Doc& d) {
    Json target = Json::object();
    target.set("indices", d.acc(d.skin(), "vertices"));
    target.set("offsets", d.acc(d.mesh(), "vertices"));
    Json shape = Json::object();
    shape.set("name", "Bulge");
    shape.set("position", target);
    withBlend(d, shape);
  }));
  c.push_back(jsonCase("BlendAmountsCount", "/meshes/0/blend/amounts", [withBlend](Doc& d) {
    withBlend(d, Json::object());
    d.mesh().find("blend")->set("amounts", arr({0, 0}));
  }));
  c.push_back(jsonCase("BlendEmptySurfaces", "/meshes/0/blend/shapes/0/surfaces", [withBlend](Doc& d) {
    Json shape = Json::object();
    shape.set("surfaces", Json::array());
    withBlend(d, shape);
  }));
  c.push_back(jsonCase("BlendSurfaceOnlyEntry", "/meshes/0/blend/shapes/0/surfaces/0", [withBlend](Doc& d) {
    Json entry = Json::object();
    entry.set("surface", 0);
    Json surfaces = Json::array();
    surfaces.push(entry);
    Json shape = Json::object();
    shape.set("surfaces", surfaces);
    withBlend(d, shape);
  }));
  c.push_back(jsonCase("BlendWithoutShapes", "/meshes/0/blend/shapes", [](Doc& d) { d.mesh().set("blend", Json::object()); }));
  // Binary container (§1.2).
  c.push_back(binCase("ShortFile", "g4b:header", [] { return std::string("G4MF") + std::string(20, '\0'); }));
  c.push_back(binCase("Version1", "g4b:header/version", [] {
    std::string b = binaryDoc(baseDoc());
    b[4] = 1;
    return b;
  }));
  c.push_back(binCase("FileSizeMismatch", "g4b:header/fileSize", [] {
    std::string b = binaryDoc(baseDoc());
    setU64(b, 8, b.size() + 16);
    return b;
  }));
  c.push_back(binCase("FileSizeTopBit", "g4b:header/fileSize", [] {
    std::string b = binaryDoc(baseDoc());
    setU64(b, 8, b.size() | (std::uint64_t(1) << 63));
    return b;
  }));
  c.push_back(binCase("ChunkSizeTopBit", "g4b:chunks/0/dataSize", [] {
    std::string b = binaryDoc(baseDoc());
    setU64(b, 24, std::uint64_t(1) << 63);
    return b;
  }));
  c.push_back(binCase("HugeChunk", "g4b:chunks/1/dataSize", [] {
    std::string b = binaryDoc(baseDoc());
    const std::size_t blob = (32 + u64At(b, 24) + 15) / 16 * 16;
    setU64(b, blob + 8, std::uint64_t(1) << 62);
    return b;
  }));
  c.push_back(binCase("ChunkNotAligned", "g4b:chunks/1*", [] {
    Doc d = baseDoc();
    d.buffer().erase("uri");
    d.buffer().set("chunk", 1);
    std::string json = writeJson(d.json, {.indent = -1});
    while (json.size() % 16 != 8) json += " ";  // the reader's aligned header then straddles BLOB's size and data
    std::string b = container({{"JSON", std::string(4, '\0'), json}});
    b += "BLOB" + std::string(4, '\0');  // right after the JSON, no padding
    for (int s = 0; s < 64; s += 8) b.push_back(static_cast<char>((std::uint64_t(d.bin.size()) >> s) & 0xFF));
    b += d.bin;
    setU64(b, 8, b.size());
    return b;
  }));
  c.push_back(binCase("ReservedChunkEncoding", "g4b:chunks/1/encoding", [] {
    std::string b = binaryDoc(baseDoc());
    const std::size_t blob = (32 + u64At(b, 24) + 15) / 16 * 16;
    b.replace(blob + 4, 4, "\xFF\xFF\xFF\xFF");
    return b;
  }));
  c.push_back(binCase("ZstdChunkWithoutMagic", "g4b:chunks/1/data", [] {
    Doc d = baseDoc();
    d.buffer().erase("uri");
    d.buffer().set("chunk", 1);
    d.buffer().set("encoding", "Zstd");
    return container({{"JSON", std::string(4, '\0'), writeJson(d.json, {.indent = -1}), ' '}, {"BLOB", "Zstd", d.bin}});
  }));
  c.push_back(binCase("TruncatedZstdBlob", "/buffers/0/chunk", [] {
    Doc d = baseDoc();
    d.buffer().erase("uri");
    d.buffer().set("chunk", 1);
    d.buffer().set("encoding", "Zstd");
    const std::string packed = zstd(d.bin);
    return container({{"JSON", std::string(4, '\0'), writeJson(d.json, {.indent = -1}), ' '}, {"BLOB", "Zstd", packed.substr(0, packed.size() - 5)}});
  }));
  c.push_back(binCase("NoJsonChunk", "g4b:chunks", [] {
    std::string b = binaryDoc(baseDoc());
    b.replace(16, 4, "JSOX");
    return b;
  }));
  c.push_back(binCase("UnsupportedJsonEncoding", "g4b:chunks/0/encoding", [] {
    std::string b = binaryDoc(baseDoc());
    b.replace(20, 4, "LZ4 ");
    return b;
  }));
  c.push_back(binCase("TruncatedZstdJson", "g4b:chunks/0/data", [] {
    Doc d = baseDoc();
    d.buffer().erase("uri");
    d.buffer().set("chunk", 1);
    const std::string packed = zstd(writeJson(d.json, {.indent = -1}));
    return container({{"JSON", "Zstd", packed.substr(0, packed.size() - 5)}, {"BLOB", std::string(4, '\0'), d.bin}});
  }));
  c.push_back(binCase("JsonPaddingNotSpaces", "g4b:chunks/0/padding", [] {
    Doc d = baseDoc();
    d.buffer().erase("uri");
    d.buffer().set("chunk", 1);
    std::string json = writeJson(d.json, {.indent = -1});
    if (json.size() % 16 == 0) json += " ";
    return container({{"JSON", std::string(4, '\0'), json, '\0'}, {"BLOB", std::string(4, '\0'), d.bin}});
  }, S::kWarning));
  c.push_back(binCase("UnknownChunkType", "g4b:chunks/2/type", [] {
    Doc d = baseDoc();
    d.buffer().erase("uri");
    d.buffer().set("chunk", 1);
    return container({{"JSON", std::string(4, '\0'), writeJson(d.json, {.indent = -1}), ' '}, {"BLOB", std::string(4, '\0'), d.bin}, {"XTRA", std::string(4, '\0'), "abc"}});
  }, S::kWarning));
  c.push_back(binCase("BinaryControlInJson", "text:*", [] {
    Doc d = baseDoc();
    d.buffer().erase("uri");
    d.buffer().set("chunk", 1);
    std::string json = writeJson(d.json, {.indent = -1});
    json.insert(json.find("rigfit ") + 6, "\r");
    return container({{"JSON", std::string(4, '\0'), json, ' '}, {"BLOB", std::string(4, '\0'), d.bin}});
  }));
  return c;
}

class G4mfBroken : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(G4mfBroken, ReportsTheRule) {
  const BrokenCase& c = GetParam();
  const std::string bytes = c.make();
  const auto issues = validateG4mf(bytes, c.name);
  const bool prefix = !c.path.empty() && c.path.back() == '*';
  const std::string want = prefix ? c.path.substr(0, c.path.size() - 1) : c.path;
  bool found = false;
  for (const G4mfIssue& i : issues)
    found = found || (i.severity == c.severity && (prefix ? i.path.rfind(want, 0) == 0 : i.path == want));
  EXPECT_TRUE(found) << "expected " << (c.severity == G4mfSeverity::kError ? "an error" : "a warning") << " at " << c.path << ", got:\n"
                     << issuesText(issues);
  // The strict reader refuses a file with an error and accepts one with only warnings.
  auto read = readG4mf(bytes, c.name);
  if (c.severity == G4mfSeverity::kError) {
    EXPECT_FALSE(read.ok());
  } else if (!hasG4mfErrors(issues) && c.name != "ExternalUri" && c.name != "UnknownEncoding") {
    EXPECT_TRUE(read.ok()) << read.error().message;
  }
}

INSTANTIATE_TEST_SUITE_P(G4mfRules, G4mfBroken, ::testing::ValuesIn(brokenCases()),
                         [](const ::testing::TestParamInfo<BrokenCase>& p) { return p.param.name; });

TEST(G4mfValidate, AcceptsIntegralFloatsAndDefaults) {
  Doc d = baseDoc();
  d.json.find("asset")->set("dimension", 3.0);                      // 3.0 is an integer
  d.accessor(0).set("bufferView", 0.0);
  d.view(0).set("buffer", 0);                                         // explicit defaults are fine
  d.view(0).set("byteOffset", 0);
  d.json.find("asset")->set("version", "0.1");
  const auto issues = validateG4mf(d.text(), "x");
  EXPECT_TRUE(issues.empty()) << issuesText(issues);
}

TEST(G4mfValidate, AnyDimension) {
  // A 2D file with no meshes: the validator checks it; the reader reads only 3D.
  const std::string t = R"({"asset": {"dimension": 2}, "nodes": [{"name": "R", "children": [1]}, {"name": "A", "position": [1, 2], "rotor": [1, 0]}]})";
  EXPECT_TRUE(validateG4mf(t, "x").empty()) << issuesText(validateG4mf(t, "x"));
  EXPECT_EQ(readG4mf(t, "x").error().code, ErrorCode::kUnsupported);
  const std::string bad = R"({"asset": {"dimension": 2}, "nodes": [{"name": "R", "children": [1]}, {"name": "A", "position": [1, 2, 3]}]})";
  EXPECT_TRUE(hasG4mfErrors(validateG4mf(bad, "x")));
}

// Which meshes the reader returns, and materials as a foreign file may state them: every skinned
// mesh on a direct child of the skeleton (an instance elsewhere is not skinned by it), the
// instance's material override, factors with the spec's defaults, extras read only when valid;
// without skinned meshes, one mesh as before.
TEST(G4mfRead, MeshesOfTheSkeletonAndMaterials) {
  Doc d = baseDoc();
  ASSERT_EQ(d.nodes().size(), 7u);  // root, skeleton, 4 bones, "Body"
  Json again = Json::object();
  again.set("name", "Again");
  Json instance = Json::object();
  instance.set("mesh", 0);
  Json override_materials = Json::array();
  override_materials.push(1);
  instance.set("materials", std::move(override_materials));
  again.set("meshInstance", std::move(instance));
  d.nodes().push(std::move(again));  // node 7, under the skeleton
  Json elsewhere = Json::object();
  elsewhere.set("name", "Elsewhere");
  Json plain = Json::object();
  plain.set("mesh", 0);
  elsewhere.set("meshInstance", std::move(plain));
  d.nodes().push(std::move(elsewhere));  // node 8, under the root
  d.node(1).find("children")->push(7);
  d.node(0).find("children")->push(8);
  auto paint = parseJson(R"({"name": "Paint", "baseColor": {"factor": [0.5, 0.25, 1]},
                             "extras": {"alphaMode": "GLASS", "alphaCutoff": "high", "doubleSided": true}})", "paint");
  ASSERT_TRUE(paint.ok());
  d.json.find("materials")->push(std::move(*paint));
  {
    const auto issues = validateG4mf(d.text(), "x");
    EXPECT_FALSE(hasG4mfErrors(issues)) << issuesText(issues);
    auto r = readG4mf(d.text(), "x");
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->meshes.size(), 2u);
    EXPECT_EQ(r->meshes[0].node_name, "Body");
    EXPECT_EQ(r->meshes[0].material, 0);
    EXPECT_EQ(r->meshes[1].node_name, "Again");
    EXPECT_EQ(r->meshes[1].name, "BodyMesh");
    EXPECT_EQ(r->meshes[1].material, 1);
    EXPECT_EQ(r->meshes[1].positions, r->meshes[0].positions);
    EXPECT_EQ(r->meshes[1].skin_weights, r->meshes[0].skin_weights);
    ASSERT_EQ(r->materials.size(), 2u);
    EXPECT_EQ(r->materials[0].name, "BodyMaterial");
    EXPECT_EQ(r->materials[0].base_color, (std::array<double, 4>{0.8f, 0.8f, 0.8f, 1.0}));
    EXPECT_EQ(r->materials[0].orm, (std::array<double, 3>{0.0, 0.5, 0.0}));
    const G4mfMaterial& m = r->materials[1];
    EXPECT_EQ(m.name, "Paint");
    EXPECT_EQ(m.base_color, (std::array<double, 4>{0.5, 0.25, 1.0, 1.0}));  // RGB: alpha 1
    EXPECT_EQ(m.orm, (std::array<double, 3>{0.0, 1.0, 0.0}));              // no orm: the spec's default
    EXPECT_EQ(m.alpha_mode, AlphaMode::kOpaque);                            // not a glTF mode
    EXPECT_EQ(m.alpha_cutoff, 0.5);                                         // not a number
    EXPECT_TRUE(m.double_sided);
  }
  // Without a skin the skeleton skins nothing: one mesh, the first instanced under it.
  d.mesh().erase("skin");
  d.node(1).find("skeleton")->erase("joints");
  {
    const auto issues = validateG4mf(d.text(), "x");
    EXPECT_FALSE(hasG4mfErrors(issues)) << issuesText(issues);
    auto r = readG4mf(d.text(), "x");
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->meshes.size(), 1u);
    EXPECT_EQ(r->meshes[0].node_name, "Body");
    EXPECT_TRUE(r->meshes[0].skin_vertices.empty());
    EXPECT_EQ(r->materials.size(), 2u);
  }
  // No instance under the skeleton: the first instanced mesh; no instance at all: meshes[0].
  for (std::size_t node : {6u, 7u}) d.node(node).erase("meshInstance");
  for (const char* expected_node : {"Elsewhere", ""}) {
    const auto issues = validateG4mf(d.text(), "x");
    EXPECT_FALSE(hasG4mfErrors(issues)) << issuesText(issues);
    auto r = readG4mf(d.text(), "x");
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->meshes.size(), 1u);
    EXPECT_EQ(r->meshes[0].node_name, expected_node);
    EXPECT_EQ(r->meshes[0].name, "BodyMesh");
    EXPECT_EQ(r->meshes[0].material, 0);
    EXPECT_EQ(r->meshes[0].vertexCount(), 8u);
    d.node(8).erase("meshInstance");
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile input

TEST(G4mfHostile, HugeDeclaredSizesAreErrorsNotAllocations) {
  // A chunk of 2^62 bytes, a view of 2^62 bytes, a buffer of 2^62 bytes backed by 10 Zstd bytes,
  // a vector size of 2^62: each is an error, and the process neither allocates nor crashes.
  std::string b = binaryDoc(baseDoc());
  setU64(b, 24, std::uint64_t(1) << 62);
  EXPECT_TRUE(hasG4mfErrors(validateG4mf(b, "x")));
  EXPECT_FALSE(readG4mf(b, "x").ok());

  Doc d = baseDoc();
  d.view(0).set("byteLength", std::int64_t(1) << 62);
  EXPECT_FALSE(readG4mf(d.text(), "x").ok());
  d = baseDoc();
  d.accessor(0).set("vectorSize", std::int64_t(1) << 62);
  EXPECT_FALSE(readG4mf(d.text(), "x").ok());
  d = baseDoc();
  d.buffer().set("byteLength", std::int64_t(1) << 62);
  EXPECT_FALSE(readG4mf(d.text(), "x").ok());
  d = baseDoc();
  d.buffer().set("byteLength", 1e300);
  EXPECT_FALSE(readG4mf(d.text(), "x").ok());

  d = baseDoc();
  d.buffer().set("byteLength", std::int64_t(1) << 62);
  const std::string zb = binaryDoc(d, true);
  const auto issues = validateG4mf(zb, "x");
  EXPECT_TRUE(hasG4mfErrors(issues)) << issuesText(issues);
  EXPECT_FALSE(readG4mf(zb, "x").ok());

  // A Zstd bomb: 64 MiB of zeros (a few KiB compressed) declared as 16 bytes: only 16 are decoded.
  d = baseDoc();
  const std::string zeros(64u << 20, '\0');
  const std::string packed = zstd(zeros);
  EXPECT_LT(packed.size(), 10000u);
  d.buffer().erase("uri");
  d.buffer().set("chunk", 1);
  d.buffer().set("encoding", "Zstd");
  d.buffer().set("byteLength", 16);
  d.json.erase("meshes");
  d.json.erase("accessors");
  d.json.erase("bufferViews");
  d.node(6).erase("meshInstance");
  const std::string bomb = container({{"JSON", std::string(4, '\0'), writeJson(d.json, {.indent = -1}), ' '}, {"BLOB", "Zstd", packed}});
  EXPECT_TRUE(validateG4mf(bomb, "x").empty()) << issuesText(validateG4mf(bomb, "x"));
}

TEST(G4mfHostile, EveryPrefixAndByteFlipNeverCrashes) {
  const std::string files[] = {write(handModel(), G4mfContainer::kText), write(handModel(), G4mfContainer::kBinary),
                               write(handModel(), G4mfContainer::kBinary, true)};
  std::uint64_t seed = 12345;
  auto next = [&] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return seed >> 33;
  };
  for (const std::string& f : files) {
    for (std::size_t n = 0; n + 1 < f.size(); n += (f.size() > 4000 ? 7 : 1)) {  // (text minus its final LF is complete)
      const std::string prefix = f.substr(0, n);
      EXPECT_FALSE(readG4mf(prefix, "x").ok()) << n;
      (void)validateG4mf(prefix, "x");
    }
    for (int k = 0; k < 3000; ++k) {
      std::string g = f;
      const int flips = 1 + static_cast<int>(next() % 4);
      for (int j = 0; j < flips; ++j) g[next() % g.size()] = static_cast<char>(next());
      (void)readG4mf(g, "x");
      (void)validateG4mf(g, "x");
    }
  }
}

// A 100 000-bone chain (every bone a joint): the hierarchy checks stay linear (a quadratic pass
// would exceed the test time limit in tests/CMakeLists.txt).
TEST(G4mfHostile, LongBoneChainIsLinear) {
  const std::size_t n = 100000;
  std::string t = R"({"asset": {"dimension": 3}, "nodes": [{"children": [1]}, {"skeleton": {"joints": [)";
  for (std::size_t i = 0; i < n; ++i) t += (i ? ", " : "") + std::to_string(2 + i);
  t += "]}, \"children\": [2]}";
  for (std::size_t i = 0; i < n; ++i)
    t += ", {\"bone\": {\"length\": 0.1}, \"position\": [0, 0.1, 0]" + (i + 1 < n ? ", \"children\": [" + std::to_string(3 + i) + "]" : std::string()) + "}";
  t += "]}";
  const auto issues = validateG4mf(t, "chain");
  EXPECT_TRUE(issues.empty()) << issuesText(issues);
  auto d = readG4mf(t, "chain");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->bone_names.size(), n);
  EXPECT_NEAR(d->global.back()(1, 3), 0.1 * n, 1e-6);
}

TEST(G4mfHostile, ControlCharactersInQuotedTextAreEscaped) {
  // Text from the file (a URI, a node name) is quoted in messages: a line break or an escape
  // character there would split the one-line issue or reach the terminal raw.
  const std::string t =
      R"({"asset": {"dimension": 3}, "nodes": [{"name": "a\u001bb\tc"}, {"name": "a\u001bb\tc"}], "buffers": [{"byteLength": 4, "uri": "x\ny.bin"}]})";
  const auto issues = validateG4mf(t, "x");
  bool uri = false, name = false;
  for (const auto& i : issues) {
    for (char c : i.path + i.message) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20) << i.path << ": " << i.message;
    uri = uri || (i.path == "/buffers/0/uri" && i.message == "external buffer \"x\\ny.bin\" is not read; its data is not checked");
    name = name || i.message.find("a\\u001bb\\tc") != std::string::npos;
  }
  EXPECT_TRUE(uri) << issuesText(issues);
  EXPECT_TRUE(name) << issuesText(issues);
}

TEST(G4mfHostile, DeepNestingAndGarbage) {
  EXPECT_FALSE(readG4mf(std::string(100000, '['), "x").ok());
  EXPECT_FALSE(readG4mf(std::string(), "x").ok());
  EXPECT_FALSE(readG4mf(std::string("G4MF"), "x").ok());
  EXPECT_FALSE(readG4mf(std::string("G4MF") + std::string(12, '\xFF') + std::string(16, '\xFF'), "x").ok());
  EXPECT_FALSE(readG4mf(std::string("{}"), "x").ok());
  std::string deep = R"({"asset": {"dimension": 3}, "extras": )" + std::string(5000, '[') + std::string(5000, ']') + "}";
  (void)validateG4mf(deep, "x");
}

}  // namespace
}  // namespace rigfit

namespace rigfit {
namespace {

// A file that is neither container is named by its first bytes, not parsed as JSON text.
TEST(G4mfMagic, WrongMagicIsNamed) {
  const std::string bad_magic = std::string("G4MX\0\0\0\0", 8) + std::string(56, '\0');
  const std::vector<G4mfIssue> issues = validateG4mf(bad_magic, "x.g4b");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "header/magic");
  EXPECT_EQ(issues[0].message, "not a G4MF file: it starts with \"G4MX\" (a binary file starts with the magic \"G4MF\", a text file with '{')");
  const std::vector<G4mfIssue> binary = validateG4mf(std::string("\x00\x01\"\\rest", 7), "y.g4b");
  ASSERT_EQ(binary.size(), 1u);
  EXPECT_NE(binary[0].message.find("starts with \"\\x00\\x01\\x22\\x5C\""), std::string::npos) << binary[0].message;
  auto read = readG4mf(std::string_view("glTF\x02\0\0\0", 8), "z.g4b");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("not a G4MF file: it starts with \"glTF\""), std::string::npos) << read.error().message;
  // Text with leading whitespace or a BOM is still text.
  EXPECT_NE(validateG4mf(std::string_view("\xEF\xBB\xBF  {}"), "t.g4tf")[0].path, "header/magic");
}

// An encoding the reader does not decode: the validator cannot check the data (a warning), the
// strict reader fails naming the encoding, and in a .g4b the chunk and its byte offset.
TEST(G4mfEncoding, UnsupportedEncodingIsAReadErrorNamingIt) {
  Doc d = baseDoc();
  d.buffer().set("encoding", "LZ4 ");
  const std::string text = d.text();
  auto issues = validateG4mf(text, "t.g4tf");
  EXPECT_FALSE(hasG4mfErrors(issues)) << issuesText(issues);
  auto read = readG4mf(text, "t.g4tf");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message, "t.g4tf: /buffers/0/encoding: unsupported encoding \"LZ4 \"; rigfit reads plain and Zstd data");

  d = baseDoc();
  d.buffer().erase("uri");
  d.buffer().set("chunk", 1);
  d.buffer().set("encoding", "LZ4 ");
  const std::string json = writeJson(d.json, {.indent = -1});
  const std::string b = container({{"JSON", std::string(4, '\0'), json, ' '}, {"BLOB", "LZ4 ", d.bin}});
  const std::size_t blob = (32 + json.size() + 15) / 16 * 16;
  issues = validateG4mf(b, "b.g4b");
  EXPECT_FALSE(hasG4mfErrors(issues)) << issuesText(issues);
  bool chunk_warned = false;
  for (const G4mfIssue& i : issues)
    chunk_warned = chunk_warned || (i.path == "g4b:chunks/1/encoding" &&
                                    i.message == "unsupported encoding \"LZ4 \" (the chunk at byte " + std::to_string(blob) + "; its data is not checked)");
  EXPECT_TRUE(chunk_warned) << issuesText(issues);
  read = readG4mf(b, "b.g4b");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message, "b.g4b: /buffers/0/encoding: unsupported encoding \"LZ4 \" (chunk 1, at byte " + std::to_string(blob) +
                                      "); rigfit reads plain and Zstd data");

  // A chunk no buffer uses is only a warning, for the reader too.
  d = baseDoc();
  d.buffer().erase("uri");
  d.buffer().set("chunk", 1);
  const std::string unused = container({{"JSON", std::string(4, '\0'), writeJson(d.json, {.indent = -1}), ' '},
                                        {"BLOB", std::string(4, '\0'), d.bin},
                                        {"XTRA", "LZ4 ", "abc"}});
  EXPECT_FALSE(hasG4mfErrors(validateG4mf(unused, "u.g4b")));
  EXPECT_TRUE(readG4mf(unused, "u.g4b").ok());

  // The JSON chunk in an unsupported encoding: nothing can be read.
  std::string j = binaryDoc(baseDoc());
  j.replace(20, 4, "LZ4 ");
  read = readG4mf(j, "j.g4b");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message,
            "j.g4b: g4b:chunks/0/encoding: the JSON chunk's encoding \"LZ4 \" (the chunk at byte 16) is not supported; rigfit reads plain and "
            "Zstd chunks");
}

// Every size in a binary header is checked against the file before it is used: each claim below
// is an error naming the header field, and none allocates what it claims.
TEST(G4mfHostile, BinaryHeaderSizesAreCheckedAgainstTheFile) {
  const std::string good = binaryDoc(baseDoc(), true, true);
  ASSERT_TRUE(readG4mf(good, "g.g4b").ok());
  const std::size_t json_size = u64At(good, 24);
  const std::size_t blob = (32 + json_size + 15) / 16 * 16;
  struct Claim {
    const char* name;
    std::size_t offset;
    std::uint64_t value;
    const char* path;
    std::string message;
  };
  const std::uint64_t big = std::uint64_t(1) << 62;
  const Claim claims[] = {
      {"file size beyond the file", 8, good.size() + 1, "g4b:header/fileSize",
       "the header declares " + std::to_string(good.size() + 1) + " bytes, the file has " + std::to_string(good.size())},
      {"file size 2^62", 8, big, "g4b:header/fileSize",
       "the header declares " + std::to_string(big) + " bytes, the file has " + std::to_string(good.size())},
      {"JSON chunk one byte beyond the file", 24, good.size() - 32 + 1, "g4b:chunks/0/dataSize",
       "the chunk declares " + std::to_string(good.size() - 31) + " bytes of data, only " + std::to_string(good.size() - 32) + " remain"},
      {"JSON chunk 2^62", 24, big, "g4b:chunks/0/dataSize",
       "the chunk declares " + std::to_string(big) + " bytes of data, only " + std::to_string(good.size() - 32) + " remain"},
      {"BLOB chunk one byte beyond the file", blob + 8, good.size() - blob - 16 + 1, "g4b:chunks/1/dataSize",
       "the chunk declares " + std::to_string(good.size() - blob - 15) + " bytes of data, only " + std::to_string(good.size() - blob - 16) +
           " remain"},
  };
  for (const Claim& c : claims) {
    SCOPED_TRACE(c.name);
    std::string b = good;
    setU64(b, c.offset, c.value);
    const auto issues = validateG4mf(b, "h.g4b");
    bool found = false;
    for (const G4mfIssue& i : issues) found = found || (i.severity == G4mfSeverity::kError && i.path == c.path && i.message == c.message);
    EXPECT_TRUE(found) << issuesText(issues);
    EXPECT_FALSE(readG4mf(b, "h.g4b").ok());
  }
}

}  // namespace
}  // namespace rigfit
