// An export of one skeleton and several skinned meshes: validateExportModel's rules, addExportMesh
// (the body's path; a deform-only skeleton that grows), and a character of two meshes (the demo
// body and a hand-made skinned box with its own material) written as glTF and G4MF and read back.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <optional>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <gtest/gtest.h>
#include <stb_image_write.h>
#include <tiny_gltf.h>

#include "rigfit/character.hpp"
#include "rigfit/character_export.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/pose.hpp"
#include "rigfit/skinning.hpp"
#include "export_test_util.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// validateExportModel

// Two bones; two meshes ("Body", "Hair"), each a quad of 4 vertices: vertex 3 unweighted, a
// morph "Smile" moving vertices 1 and 3 (with normal deltas).
ExportModel validModel() {
  ExportModel m;
  m.names = {"Root", "Tip"};
  m.source_names = {"root", "tip.L"};
  m.source_bones = {0, 1};
  m.parents = {-1, 0};
  Eigen::Matrix4d tip = Eigen::Matrix4d::Identity();
  tip(1, 3) = 1.0;
  m.bind_global = {Eigen::Matrix4d::Identity(), tip};
  m.bind_local = m.bind_global;
  m.lengths = {1.0, 0.5};
  m.rolls = {0.0, 0.3};
  m.heads = {Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(0, 1, 0)};
  m.tails = {Eigen::Vector3d(0, 1, 0), Eigen::Vector3d(0, 1.5, 0)};
  for (const char* name : {"Body", "Hair"}) {
    ExportMesh& q = m.meshes.emplace_back();
    q.name = name;
    q.material.name = name;
    q.positions = {0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 0};
    q.normals = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    q.uvs = {0, 0, 1, 0, 1, 1, 0, 1};
    q.triangles = {0, 1, 2, 0, 2, 3};
    q.polygon_offsets = {0, 4};
    q.polygon_corners = {0, 1, 2, 3};
    q.source_vertex = {0, 1, 2, 3};
    q.skin.vertex_count = 4;
    q.skin.bone_count = 2;
    q.skin.offsets = {0, 1, 2, 4, 4};
    q.skin.bones = {0, 1, 0, 1};
    q.skin.weights = {1.0f, 1.0f, 0.5f, 0.5f};
    q.morphs.push_back({.name = "Smile", .vertices = {1, 3}, .deltas = {0, 0.1f, 0, 0, 0, 0.2f}, .normal_deltas = {0, 0, 0, 0.1f, 0, 0}});
  }
  return m;
}

struct Rule {
  const char* name;
  std::function<void(ExportModel&)> mutate;
  ErrorCode code;
  const char* message;
};

// Each rule broken alone, with the message worked out by hand.
TEST(ValidateExportModel, EveryRule) {
  const std::vector<Rule> rules = {
      {"lengths short", [](ExportModel& m) { m.lengths.pop_back(); }, ErrorCode::kUsage, "export model: the skeleton's arrays differ in size"},
      {"rolls short", [](ExportModel& m) { m.rolls = {0.0}; }, ErrorCode::kUsage, "export model: the skeleton's arrays differ in size"},
      {"source_bones long", [](ExportModel& m) { m.source_bones.push_back(2); }, ErrorCode::kUsage, "export model: the skeleton's arrays differ in size"},
      {"tails short", [](ExportModel& m) { m.tails.pop_back(); }, ErrorCode::kUsage, "export model: the skeleton's arrays differ in size"},
      {"parent after child", [](ExportModel& m) { m.parents[1] = 1; }, ErrorCode::kUsage, "export model: bone 1 (Tip) comes before its parent"},
      {"parent below -1", [](ExportModel& m) { m.parents[1] = -2; }, ErrorCode::kUsage, "export model: bone 1 (Tip) comes before its parent"},
      {"forbidden name", [](ExportModel& m) { m.names[1] = "tip.L"; }, ErrorCode::kUsage,
       "export model: bone name \"tip.L\" is empty or has a character exportName replaces"},
      {"C1 control in a name", [](ExportModel& m) { m.names[1] = "a\xC2\x85"; }, ErrorCode::kUsage,
       "export model: bone name \"a\xC2\x85\" is empty or has a character exportName replaces"},
      {"empty name", [](ExportModel& m) { m.names[1] = ""; }, ErrorCode::kUsage, "export model: bone name \"\" is empty or has a character exportName replaces"},
      {"name twice", [](ExportModel& m) { m.names[1] = "Root"; }, ErrorCode::kUsage, "export model: bone name \"Root\" is used twice"},
      {"negative length", [](ExportModel& m) { m.lengths[1] = -0.5; }, ErrorCode::kRange, "export model: bone Tip: length must be finite and >= 0"},
      {"infinite length", [](ExportModel& m) { m.lengths[1] = kInf; }, ErrorCode::kRange, "export model: bone Tip: length must be finite and >= 0"},
      {"NaN roll", [](ExportModel& m) { m.rolls[1] = kNan; }, ErrorCode::kRange, "export model: bone Tip: non-finite roll"},
      {"infinite bind_local", [](ExportModel& m) { m.bind_local[1](0, 3) = kInf; }, ErrorCode::kRange, "export model: bone Tip: non-finite bind matrix"},
      {"NaN bind_global", [](ExportModel& m) { m.bind_global[1](2, 2) = kNan; }, ErrorCode::kRange, "export model: bone Tip: non-finite bind matrix"},
      {"infinite tail", [](ExportModel& m) { m.tails[1].y() = kInf; }, ErrorCode::kRange, "export model: bone Tip: non-finite head or tail"},
      {"NaN head", [](ExportModel& m) { m.heads[0].x() = kNan; }, ErrorCode::kRange, "export model: bone Root: non-finite head or tail"},
      {"positions not 3 each", [](ExportModel& m) { m.meshes[1].positions.push_back(0); }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): positions are not 3 per vertex"},
      {"normals short", [](ExportModel& m) { m.meshes[1].normals.pop_back(); }, ErrorCode::kUsage, "export model: mesh 1 (Hair): normals are not 3 per vertex"},
      {"UVs short", [](ExportModel& m) { m.meshes[1].uvs.pop_back(); }, ErrorCode::kUsage, "export model: mesh 1 (Hair): UVs are not 2 per vertex"},
      {"source_vertex short", [](ExportModel& m) { m.meshes[1].source_vertex.pop_back(); }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): source_vertex is not 1 per vertex"},
      {"triangles not 3 each", [](ExportModel& m) { m.meshes[1].triangles.pop_back(); }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): triangles are not 3 indices each"},
      {"triangle index beyond", [](ExportModel& m) { m.meshes[1].triangles[5] = 4; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): triangle index 4 beyond the vertices"},
      {"corners without offsets", [](ExportModel& m) { m.meshes[1].polygon_offsets.clear(); }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): polygon corners without offsets"},
      {"offsets short of the corners", [](ExportModel& m) { m.meshes[1].polygon_offsets = {0, 3}; }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): polygon offsets do not match the corners"},
      {"offsets from 1", [](ExportModel& m) { m.meshes[1].polygon_offsets = {1, 4}; }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): polygon offsets do not match the corners"},
      {"a 2-corner polygon", [](ExportModel& m) { m.meshes[1].polygon_offsets = {0, 2, 4}; }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): polygon 0 has fewer than 3 corners"},
      {"corner beyond", [](ExportModel& m) { m.meshes[1].polygon_corners[2] = 9; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): polygon corner 9 beyond the vertices"},
      {"NaN position", [](ExportModel& m) { m.meshes[1].positions[4] = kNan; }, ErrorCode::kRange, "export model: mesh 1 (Hair): non-finite vertex position"},
      {"infinite UV", [](ExportModel& m) { m.meshes[1].uvs[3] = std::numeric_limits<float>::infinity(); }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): non-finite UV"},
      {"zero normal", [](ExportModel& m) { m.meshes[1].normals[5] = 0.0f; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): vertex 1 has a zero or non-finite normal"},
      {"NaN normal", [](ExportModel& m) { m.meshes[1].normals[9] = kNan; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): vertex 3 has a zero or non-finite normal"},
      {"influences without offsets", [](ExportModel& m) { m.meshes[1].skin.offsets.clear(); }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): skin influences without offsets"},
      {"skin offsets short", [](ExportModel& m) { m.meshes[1].skin.offsets.pop_back(); }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): the skin does not match the vertices"},
      {"skin offsets end before the bones", [](ExportModel& m) { m.meshes[1].skin.offsets.back() = 3; }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): the skin does not match the vertices"},
      {"a weight missing", [](ExportModel& m) { m.meshes[1].skin.weights.pop_back(); }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): the skin does not match the vertices"},
      {"skin offsets decrease", [](ExportModel& m) { m.meshes[1].skin.offsets = {0, 2, 1, 4, 4}; }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): skin offsets decrease"},
      {"skin bone beyond", [](ExportModel& m) { m.meshes[1].skin.bones[1] = 2; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): skin bone 2 beyond the skeleton"},
      {"negative weight", [](ExportModel& m) { m.meshes[1].skin.weights[2] = -0.5f; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): skin weight not finite and >= 0"},
      {"NaN weight", [](ExportModel& m) { m.meshes[1].skin.weights[3] = kNan; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): skin weight not finite and >= 0"},
      {"morph deltas short", [](ExportModel& m) { m.meshes[1].morphs[0].deltas.pop_back(); }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): morph \"Smile\": deltas are not 3 per vertex"},
      {"morph normal deltas short", [](ExportModel& m) { m.meshes[1].morphs[0].normal_deltas.pop_back(); }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): morph \"Smile\": deltas are not 3 per vertex"},
      {"normal deltas, no normals", [](ExportModel& m) { m.meshes[1].normals.clear(); }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): morph \"Smile\": normal deltas on a mesh without normals"},
      {"morph vertices descending", [](ExportModel& m) { m.meshes[1].morphs[0].vertices = {3, 1}; }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): morph \"Smile\": vertices are not ascending within the mesh"},
      {"morph vertex twice", [](ExportModel& m) { m.meshes[1].morphs[0].vertices = {1, 1}; }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): morph \"Smile\": vertices are not ascending within the mesh"},
      {"morph vertex beyond", [](ExportModel& m) { m.meshes[1].morphs[0].vertices = {1, 4}; }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): morph \"Smile\": vertices are not ascending within the mesh"},
      {"NaN delta", [](ExportModel& m) { m.meshes[1].morphs[0].deltas[4] = kNan; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): morph \"Smile\": non-finite delta"},
      {"infinite normal delta", [](ExportModel& m) { m.meshes[1].morphs[0].normal_deltas[0] = std::numeric_limits<float>::infinity(); }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): morph \"Smile\": non-finite delta"},
      {"base colour above 1", [](ExportModel& m) { m.meshes[1].material.base_color[1] = 1.5f; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): material \"Hair\": base colour components must be from 0 to 1"},
      {"NaN alpha", [](ExportModel& m) { m.meshes[1].material.base_color[3] = kNan; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): material \"Hair\": base colour components must be from 0 to 1"},
      {"roughness above 1", [](ExportModel& m) { m.meshes[1].material.roughness = 1.5; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): material \"Hair\": metallic and roughness must be from 0 to 1"},
      {"negative metallic", [](ExportModel& m) { m.meshes[1].material.metallic = -0.1; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): material \"Hair\": metallic and roughness must be from 0 to 1"},
      {"negative cutoff", [](ExportModel& m) { m.meshes[1].material.alpha_cutoff = -1.0; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): material \"Hair\": the alpha cutoff must be finite and >= 0"},
      {"infinite cutoff", [](ExportModel& m) { m.meshes[1].material.alpha_cutoff = kInf; }, ErrorCode::kRange,
       "export model: mesh 1 (Hair): material \"Hair\": the alpha cutoff must be finite and >= 0"},
      {"unknown alpha mode", [](ExportModel& m) { m.meshes[1].material.alpha_mode = static_cast<AlphaMode>(7); }, ErrorCode::kUsage,
       "export model: mesh 1 (Hair): material \"Hair\": unknown alpha mode"},
  };
  ASSERT_TRUE(validateExportModel(validModel()).ok()) << validateExportModel(validModel()).error().message;
  const std::vector<std::uint16_t> joints(16, 0);
  const std::vector<float> weights(16, 0.0f);
  const GltfSkinStreams stream{.influences = 4, .joints = joints, .weights = weights};
  const std::vector<GltfSkinStreams> streams(2, stream);
  for (const Rule& rule : rules) {
    SCOPED_TRACE(rule.name);
    ExportModel m = validModel();
    rule.mutate(m);
    const Status st = validateExportModel(m);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, rule.code);
    EXPECT_EQ(st.error().message, rule.message);
    // Both writers make this check, and fail with its error.
    auto g4 = writeG4mf(m);
    ASSERT_FALSE(g4.ok());
    EXPECT_EQ(g4.error().message, rule.message);
    if (m.meshes[1].positions.size() == 12) {  // the glTF streams fit 4 vertices
      auto gltf = writeGltf(m, streams, {});
      ASSERT_FALSE(gltf.ok());
      EXPECT_EQ(gltf.error().message, rule.message);
    }
  }
}

// What is optional may be empty; more than 65535 bones is not supported.
TEST(ValidateExportModel, OptionalArraysAndTheBoneLimit) {
  ExportModel m = validModel();
  m.source_names.clear();
  m.source_bones.clear();
  m.bind_global.clear();
  m.rolls.clear();
  m.heads.clear();
  m.tails.clear();
  ExportMesh& q = m.meshes[1];
  q.normals.clear();
  q.morphs[0].normal_deltas.clear();
  q.uvs.clear();
  q.source_vertex.clear();
  q.polygon_offsets.clear();
  q.polygon_corners.clear();
  q.skin = Skin{};
  EXPECT_TRUE(validateExportModel(m).ok()) << validateExportModel(m).error().message;
  m.meshes.clear();
  EXPECT_TRUE(validateExportModel(m).ok());

  ExportModel big;
  const std::size_t n = 65536;
  for (std::size_t i = 0; i < n; ++i) big.names.push_back("b" + std::to_string(i));
  big.parents.assign(n, -1);
  big.bind_local.assign(n, Eigen::Matrix4d::Identity());
  big.lengths.assign(n, 0.1);
  const Status st = validateExportModel(big);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(st.error().message, "export model: more than 65535 bones");
  big.names.pop_back();
  big.parents.pop_back();
  big.bind_local.pop_back();
  big.lengths.pop_back();
  EXPECT_TRUE(validateExportModel(big).ok());
}

// ---------------------------------------------------------------------------------------------
// addExportMesh

// A box of 8 vertices and 6 quads (outward), rig frame (Z up), one UV square per face.
Mesh box(const Eigen::Vector3d& center, double half) {
  Mesh b;
  for (int i = 0; i < 8; ++i) {
    const Eigen::Vector3d p = center + half * Eigen::Vector3d(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
    for (int c = 0; c < 3; ++c) b.positions.push_back(static_cast<float>(p[c]));
  }
  b.uvs = {0, 0, 1, 0, 1, 1, 0, 1};
  const std::uint32_t faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  b.face_offsets.push_back(0);
  for (const auto& f : faces) {
    for (int k = 0; k < 4; ++k) {
      b.corner_vertices.push_back(f[k]);
      b.corner_uvs.push_back(k);
    }
    b.face_offsets.push_back(static_cast<std::uint32_t>(b.corner_vertices.size()));
  }
  return b;  // no OBJ normals: the export computes them
}

// The export vertices a mesh splits into: its distinct (vertex, UV) corners (`top`: only those
// of vertices 4..7, the box's top).
std::size_t distinctCorners(const Mesh& m, bool top = false) {
  std::vector<std::pair<std::uint32_t, std::int32_t>> keys;
  for (std::size_t k = 0; k < m.corner_vertices.size(); ++k)
    if (!top || (m.corner_vertices[k] & 4)) keys.emplace_back(m.corner_vertices[k], m.corner_uvs[k]);
  std::sort(keys.begin(), keys.end());
  return static_cast<std::size_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
}

// The box's skin: the bottom 4 vertices follow `low` fully, the top 4 `high` 0.75 and `low` 0.25.
Skin boxSkin(std::uint16_t low, std::uint16_t high, std::size_t bones) {
  Skin s;
  s.vertex_count = 8;
  s.bone_count = bones;
  s.offsets.push_back(0);
  for (int i = 0; i < 8; ++i) {
    if (i & 4) {
      s.bones.insert(s.bones.end(), {high, low});
      s.weights.insert(s.weights.end(), {0.75f, 0.25f});
    } else {
      s.bones.push_back(low);
      s.weights.push_back(1.0f);
    }
    s.offsets.push_back(static_cast<std::uint32_t>(s.bones.size()));
  }
  return s;
}

// A w x h RGBA checker board as PNG bytes, read back through exportImage.
ExportImage checkerImage(const std::string& file_name, int w, int h) {
  std::vector<unsigned char> rgba(static_cast<std::size_t>(4 * w * h));
  for (int i = 0; i < w * h; ++i)
    for (int c = 0; c < 4; ++c) rgba[static_cast<std::size_t>(4 * i + c)] = ((i + i / w) % 2) ? 255 : static_cast<unsigned char>(40 * c);
  std::string png;
  const auto append = [](void* out, void* data, int size) { static_cast<std::string*>(out)->append(static_cast<const char*>(data), static_cast<std::size_t>(size)); };
  EXPECT_NE(stbi_write_png_to_func(append, &png, w, h, 4, rgba.data(), 4 * w), 0);
  auto bytes = std::make_shared<const std::string>(std::move(png));
  auto image = exportImage(bytes, "textures/" + file_name);
  EXPECT_TRUE(image.ok()) << image.error().message;
  return image.ok() ? *image : ExportImage{};
}

// The box's material: a masked, two-sided blue with a base colour image and a normal map (so the
// glTF mesh gets tangents).
ExportMaterial visor() {
  static const ExportImage colour = checkerImage("visor_colour.png", 4, 2), normal = checkerImage("visor_normal.png", 2, 2);
  return {.name = "Visor", .base_color = {0.1f, 0.2f, 0.9f, 0.6f}, .metallic = 0.25, .roughness = 0.2,
          .alpha_mode = AlphaMode::kMask, .alpha_cutoff = 0.4, .double_sided = true, .base_color_texture = colour,
          .normal_texture = normal};
}

const Character& demo() {
  static const Character c = [] {
    auto loaded = loadCharacter(DataSource::builtinDemo(), {});
    EXPECT_TRUE(loaded.ok()) << loaded.error().message;
    return loaded.ok() ? std::move(*loaded) : Character{};
  }();
  return c;
}

// The demo body and a box around its head, skinned to neck and head, with a morph "Bulge" that
// raises the box's top (5 cm up in the rig frame: +Y in the export frame).
struct TwoMeshes {
  ExportModel model;
  Mesh box_mesh;
  Skin box_skin;
};

const TwoMeshes& twoMeshes() {
  static const TwoMeshes t = [] {
    TwoMeshes out;
    const Character& c = demo();
    const Skeleton& s = c.fit.skeleton;
    if (!c.has_skin) return out;
    auto model = buildExportModel(c.body().mesh, s, &c.body().skin, &c.body().groups, {});
    EXPECT_TRUE(model.ok()) << model.error().message;
    if (!model) return out;
    const int head = s.find("head"), neck = s.find("neck");
    EXPECT_GE(head, 0);
    EXPECT_GE(neck, 0);
    out.box_mesh = box(s.heads[static_cast<std::size_t>(head)], 0.1);
    out.box_skin = boxSkin(static_cast<std::uint16_t>(neck), static_cast<std::uint16_t>(head), s.size());
    const Status added = addExportMesh(*model, s, out.box_mesh, out.box_skin, "Visor", visor(), {});
    EXPECT_TRUE(added.ok()) << added.error().message;
    const Status morph = addExportMorph(model->meshes[1], "Bulge", 8, std::vector<std::uint32_t>{4, 5, 6, 7},
                                        std::vector<double>{0, 0, 0.05, 0, 0, 0.05, 0, 0, 0.05, 0, 0, 0.05});
    EXPECT_TRUE(morph.ok()) << morph.error().message;
    out.model = std::move(*model);
    return out;
  }();
  return t;
}

// The same mesh added again comes out exactly as the body: one code path.
TEST(AddExportMesh, TheBodysPath) {
  const Character& c = demo();
  ASSERT_TRUE(c.has_skin);
  for (const bool deform_only : {false, true}) {
    SCOPED_TRACE(deform_only ? "deform-only" : "every bone");
    const ExportOptions o{.deform_only = deform_only};
    auto model = buildExportModel(c.body().mesh, c.fit.skeleton, &c.body().skin, &c.body().groups, o);
    ASSERT_TRUE(model.ok()) << model.error().message;
    const ExportModel before = *model;
    ASSERT_TRUE(addExportMesh(*model, c.fit.skeleton, c.body().mesh, c.body().skin, "Copy", visor(), o, &c.body().groups).ok());
    ASSERT_EQ(model->meshes.size(), 2u);
    EXPECT_EQ(model->names, before.names);  // the same weights: the same skeleton
    EXPECT_EQ(model->bind_local, before.bind_local);
    const ExportMesh &a = model->meshes[0], &b = model->meshes[1];
    EXPECT_EQ(a.name, "Body");
    EXPECT_EQ(a.material.name, "Body");
    EXPECT_EQ(b.name, "Copy");
    EXPECT_EQ(b.material.name, "Visor");
    EXPECT_EQ(b.material.alpha_mode, AlphaMode::kMask);
    EXPECT_EQ(b.positions, a.positions);
    EXPECT_EQ(b.normals, a.normals);
    EXPECT_EQ(b.uvs, a.uvs);
    EXPECT_EQ(b.triangles, a.triangles);
    EXPECT_EQ(b.polygon_offsets, a.polygon_offsets);
    EXPECT_EQ(b.polygon_corners, a.polygon_corners);
    EXPECT_EQ(b.source_vertex, a.source_vertex);
    EXPECT_EQ(b.skin.offsets, a.skin.offsets);
    EXPECT_EQ(b.skin.bones, a.skin.bones);
    EXPECT_EQ(b.skin.weights, a.skin.weights);
    EXPECT_EQ(b.skin.bone_count, a.skin.bone_count);
  }
}

// The box: positions (x, y, z) -> (x, z, -y); computed normals point out of the box; the skin
// keeps the skeleton's bone indices (every bone exported).
TEST(AddExportMesh, BoxInTheExportFrame) {
  const TwoMeshes& t = twoMeshes();
  ASSERT_EQ(t.model.meshes.size(), 2u);
  const ExportMesh& b = t.model.meshes[1];
  const Skeleton& s = demo().fit.skeleton;
  EXPECT_EQ(t.model.names.size(), s.size());
  EXPECT_EQ(b.vertexCount(), distinctCorners(t.box_mesh));
  EXPECT_EQ(b.triangles.size(), 6u * 2 * 3);
  EXPECT_EQ(b.polygon_offsets, (std::vector<std::uint32_t>{0, 4, 8, 12, 16, 20, 24}));
  const Eigen::Vector3d center = s.heads[static_cast<std::size_t>(s.find("head"))];
  for (std::size_t e = 0; e < b.vertexCount(); ++e) {
    const std::uint32_t v = b.source_vertex[e];
    EXPECT_EQ(b.positions[3 * e], t.box_mesh.positions[3 * v]);
    EXPECT_EQ(b.positions[3 * e + 1], t.box_mesh.positions[3 * v + 2]);
    EXPECT_EQ(b.positions[3 * e + 2], -t.box_mesh.positions[3 * v + 1]);
    // A box corner's angle-weighted normal is its diagonal, outward.
    const Eigen::Vector3d out(t.box_mesh.positions[3 * v] - center.x(), t.box_mesh.positions[3 * v + 2] - center.z(),
                              -(t.box_mesh.positions[3 * v + 1] - center.y()));
    const Eigen::Vector3d n(b.normals[3 * e], b.normals[3 * e + 1], b.normals[3 * e + 2]);
    EXPECT_NEAR((n - out.normalized()).norm(), 0.0, 1e-6) << "vertex " << e;
    ASSERT_EQ(b.skin.influenceCount(e), t.box_skin.influenceCount(v));
    for (std::size_t k = 0; k < b.skin.influenceCount(e); ++k) {
      EXPECT_EQ(b.skin.bones[b.skin.offsets[e] + k], t.box_skin.bones[t.box_skin.offsets[v] + k]);
      EXPECT_EQ(b.skin.weights[b.skin.offsets[e] + k], t.box_skin.weights[t.box_skin.offsets[v] + k]);
    }
  }
  ASSERT_EQ(b.morphs.size(), 1u);
  EXPECT_EQ(b.morphs[0].name, "Bulge");
  EXPECT_EQ(b.morphs[0].vertices.size(), distinctCorners(t.box_mesh, true));  // every export vertex of vertices 4..7
  EXPECT_EQ(b.morphs[0].deltas[1], 0.05f);
  EXPECT_TRUE(t.model.meshes[0].morphs.empty());
  EXPECT_TRUE(validateExportModel(t.model).ok());
}

// Root -> spine -> (armL, armR); Root -> leg. The body weights armL and armR (and spine with 0):
// the deform-only skeleton is spine, armL, armR. A mesh weighting leg makes it Root, armL, armR,
// leg (Root now holds them together; spine no longer does): the body is remapped and its zero
// influence on spine goes with spine.
TEST(AddExportMesh, DeformOnlySkeletonGrowsForAnyMeshsWeights) {
  Mesh tri;
  tri.positions = {0, 0, 0, 1, 0, 0, 1, 0, 1};
  tri.face_offsets = {0, 3};
  tri.corner_vertices = {0, 1, 2};
  const Skeleton sk = test::handSkeleton({"Root", "spine", "armL", "armR", "leg"}, {-1, 0, 1, 1, 0});
  Skin body;
  body.vertex_count = 3;
  body.bone_count = 5;
  body.offsets = {0, 1, 4, 5};
  body.bones = {2, 3, 1, 2, 3};
  body.weights = {1.0f, 0.6f, 0.0f, 0.4f, 1.0f};
  const ExportOptions o{.deform_only = true};
  auto m = buildExportModel(tri, sk, &body, nullptr, o);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->source_bones, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(m->parents, (std::vector<int>{-1, 0, 0}));
  EXPECT_EQ(m->meshes[0].skin.bones, (std::vector<std::uint16_t>{1, 2, 0, 1, 2}));
  EXPECT_EQ(m->weighted_bones, (std::vector<std::uint8_t>{0, 0, 1, 1, 0}));

  // A mesh on bones already weighted leaves the skeleton as it is.
  Skin arms = body;
  ASSERT_TRUE(addExportMesh(*m, sk, tri, arms, "Sleeves", {}, o).ok());
  EXPECT_EQ(m->source_bones, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(m->meshes[1].skin.bones, m->meshes[0].skin.bones);

  Skin legs;
  legs.vertex_count = 3;
  legs.bone_count = 5;
  legs.offsets = {0, 1, 2, 3};
  legs.bones = {4, 4, 4};
  legs.weights = {1.0f, 1.0f, 1.0f};
  ASSERT_TRUE(addExportMesh(*m, sk, tri, legs, "Trousers", {}, o).ok());
  EXPECT_EQ(m->source_bones, (std::vector<int>{0, 2, 3, 4}));
  EXPECT_EQ(m->names, (std::vector<std::string>{"Root", "armL", "armR", "leg"}));
  EXPECT_EQ(m->parents, (std::vector<int>{-1, 0, 0, 0}));
  EXPECT_EQ(m->weighted_bones, (std::vector<std::uint8_t>{0, 0, 1, 1, 1}));
  const Eigen::Matrix4d c = rigToExportFrame();
  EXPECT_LT((m->bind_global[1] - c * sk.rest[2]).norm(), 1e-15);
  EXPECT_LT((m->bind_local[1] - (c * sk.rest[0]).inverse() * (c * sk.rest[2])).norm(), 1e-14);
  ASSERT_EQ(m->meshes.size(), 3u);
  for (std::size_t k = 0; k < 2; ++k) {
    const Skin& s = m->meshes[k].skin;
    EXPECT_EQ(s.offsets, (std::vector<std::uint32_t>{0, 1, 3, 4})) << k;
    EXPECT_EQ(s.bones, (std::vector<std::uint16_t>{1, 2, 1, 2})) << k;
    EXPECT_EQ(s.weights, (std::vector<float>{1.0f, 0.6f, 0.4f, 1.0f})) << k;
    EXPECT_EQ(s.bone_count, 4u);
  }
  EXPECT_EQ(m->meshes[2].skin.bones, (std::vector<std::uint16_t>{3, 3, 3}));
  EXPECT_TRUE(validateExportModel(*m).ok());
}

// Errors leave the model as it was.
TEST(AddExportMesh, ErrorsLeaveTheModelUnchanged) {
  const Character& c = demo();
  ASSERT_TRUE(c.has_skin);
  const Skeleton& s = c.fit.skeleton;
  auto model = buildExportModel(c.body().mesh, s, &c.body().skin, &c.body().groups, {});
  ASSERT_TRUE(model.ok());
  const std::size_t vertices = model->meshes[0].vertexCount();
  const Mesh b = box(Eigen::Vector3d(0, 0, 1), 0.1);
  const Skin skin = boxSkin(0, 1, s.size());
  auto expectError = [&](const Status& st, ErrorCode code, const std::string& message) {
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, code);
    EXPECT_EQ(st.error().message, message);
    EXPECT_EQ(model->meshes.size(), 1u);
    EXPECT_EQ(model->meshes[0].vertexCount(), vertices);
    EXPECT_EQ(model->names.size(), s.size());
  };
  Skin short_skin = skin;
  short_skin.vertex_count = 7;
  expectError(addExportMesh(*model, s, b, short_skin, "Box", {}, {}), ErrorCode::kMismatch,
              "export: mesh \"Box\": the skin is for 7 vertices, the mesh has 8");
  std::vector<Eigen::Matrix4d> moved = s.rest;
  moved[3](0, 3) += 0.01;
  expectError(addExportMesh(*model, s, b, skin, "Box", {}, {}, nullptr, {}, moved), ErrorCode::kUsage,
              "export: mesh \"Box\": the skeleton or its bind pose is not the model's (bone " + model->names[3] + ")");
  expectError(addExportMesh(*model, s, b, skin, "Box", {}, {.deform_only = true}), ErrorCode::kUsage,
              "export: mesh \"Box\": the model was built with every bone; add the mesh the same way");
  expectError(addExportMesh(*model, s, b, skin, "Box", {}, {}, nullptr, std::vector<float>(3, 0.0f)), ErrorCode::kUsage,
              "export: mesh \"Box\": positions do not match the mesh");
  auto deform = buildExportModel(c.body().mesh, s, &c.body().skin, &c.body().groups, {.deform_only = true});
  ASSERT_TRUE(deform.ok());
  const Status st = addExportMesh(*deform, s, b, skin, "Box", {}, {});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "export: mesh \"Box\": the model was built deform-only; add the mesh the same way");
  EXPECT_EQ(deform->meshes.size(), 1u);
}

// `rigfit export --base-color` with alpha below 1 makes the body's material blend.
TEST(AddExportMesh, CharacterBaseColourAlphaBlends) {
  const Character& c = demo();
  ASSERT_TRUE(c.has_skin);
  for (const float alpha : {1.0f, 0.5f}) {
    CharacterExportOptions o;
    o.base_color = {0.9f, 0.5f, 0.25f, alpha};
    auto glb = exportCharacter(DataSource::builtinDemo(), c, {}, o);
    ASSERT_TRUE(glb.ok()) << glb.error().message;
    const tinygltf::Model g = test::loadGlb(glb->main);
    ASSERT_EQ(g.materials.size(), 1u);
    EXPECT_EQ(g.materials[0].alphaMode, alpha < 1.0f ? "BLEND" : "OPAQUE");
    EXPECT_EQ(g.materials[0].pbrMetallicRoughness.baseColorFactor[3], double(alpha));
  }
}

// ---------------------------------------------------------------------------------------------
// The two meshes as glTF and G4MF

using test::accessorData;
using test::loadGltf;

TEST(TwoMeshes, GltfReadBack) {
  const TwoMeshes& t = twoMeshes();
  const ExportModel& model = t.model;
  ASSERT_EQ(model.meshes.size(), 2u);
  const std::size_t nb = model.names.size();
  for (const int bits : {0, 8}) {
    const GltfSkins skins = gltfSkins(model, 4, bits);
    ASSERT_EQ(skins.streams.size(), 2u);
    for (GltfContainer container : {GltfContainer::kGlb, GltfContainer::kGltfEmbedded}) {
      SCOPED_TRACE(std::to_string(bits) + (container == GltfContainer::kGlb ? " .glb" : " .gltf"));
      auto files = writeGltf(model, skins.streams, {.container = container, .rig_name = "demo"});
      ASSERT_TRUE(files.ok()) << files.error().message;
      const tinygltf::Model g = loadGltf(files->main, container == GltfContainer::kGlb);
      // Both meshes, each on its own node under the scene, both skinned by the one skin.
      ASSERT_EQ(g.meshes.size(), 2u);
      EXPECT_EQ(g.meshes[0].name, "Body");
      EXPECT_EQ(g.meshes[1].name, "Visor");
      ASSERT_EQ(g.scenes.size(), 1u);
      EXPECT_EQ(g.scenes[0].nodes, (std::vector<int>{0, static_cast<int>(nb) + 1, static_cast<int>(nb) + 2}));
      for (int m = 0; m < 2; ++m) {
        const tinygltf::Node& node = g.nodes[nb + 1 + static_cast<std::size_t>(m)];
        EXPECT_EQ(node.name, g.meshes[static_cast<std::size_t>(m)].name);
        EXPECT_EQ(node.mesh, m);
        EXPECT_EQ(node.skin, 0);
        EXPECT_TRUE(node.translation.empty() && node.rotation.empty() && node.scale.empty() && node.matrix.empty());
      }
      ASSERT_EQ(g.skins.size(), 1u);
      const tinygltf::Skin& skin = g.skins[0];
      ASSERT_EQ(skin.joints.size(), nb);
      for (std::size_t j = 0; j < nb; ++j) EXPECT_EQ(skin.joints[j], static_cast<int>(1 + j));
      EXPECT_EQ(skin.skeleton, 1);  // the demo's single root bone
      // Inverse bind matrices, once: each inverts its joint's bind global.
      const tinygltf::Accessor& ibm_acc = g.accessors[static_cast<std::size_t>(skin.inverseBindMatrices)];
      EXPECT_EQ(ibm_acc.count, nb);
      const float* ibm = accessorData<float>(g, skin.inverseBindMatrices);
      for (std::size_t j = 0; j < nb; ++j) {
        Eigen::Matrix4f inv;
        for (int c = 0; c < 4; ++c)
          for (int r = 0; r < 4; ++r) inv(r, c) = ibm[16 * j + 4 * static_cast<std::size_t>(c) + static_cast<std::size_t>(r)];
        EXPECT_LT((inv.cast<double>() * model.bind_global[j] - Eigen::Matrix4d::Identity()).norm(), 1e-5) << model.names[j];
      }
      // Each mesh's joints and weights are its own streams, as given.
      for (int m = 0; m < 2; ++m) {
        const tinygltf::Primitive& p = g.meshes[static_cast<std::size_t>(m)].primitives[0];
        const std::size_t nv = model.meshes[static_cast<std::size_t>(m)].vertexCount();
        EXPECT_EQ(g.accessors[static_cast<std::size_t>(p.attributes.at("POSITION"))].count, nv);
        EXPECT_EQ(p.material, m);
        const std::uint8_t* j = accessorData<std::uint8_t>(g, p.attributes.at("JOINTS_0"));
        const GltfSkinStreams& s = skins.streams[static_cast<std::size_t>(m)];
        for (std::size_t i = 0; i < 4 * nv; ++i) {
          const bool weighted = bits ? s.quantized_weights[i] != 0 : s.weights[i] != 0.0f;  // empty slots point at joint 0
          ASSERT_EQ(j[i], weighted ? s.joints[i] : 0) << "mesh " << m << " slot " << i;
        }
        if (bits == 0) {
          const float* w = accessorData<float>(g, p.attributes.at("WEIGHTS_0"));
          for (std::size_t i = 0; i < 4 * nv; ++i) ASSERT_EQ(w[i], s.weights[i]) << "mesh " << m << " slot " << i;
        } else {
          const std::uint8_t* w = accessorData<std::uint8_t>(g, p.attributes.at("WEIGHTS_0"));
          for (std::size_t i = 0; i < 4 * nv; ++i) ASSERT_EQ(w[i], s.quantized_weights[i]) << "mesh " << m << " slot " << i;
        }
      }
      // The box: top vertices 0.75 head + 0.25 neck, by name.
      const tinygltf::Primitive& bp = g.meshes[1].primitives[0];
      const std::uint8_t* bj = accessorData<std::uint8_t>(g, bp.attributes.at("JOINTS_0"));
      const ExportMesh& boxm = model.meshes[1];
      for (std::size_t e = 0; e < boxm.vertexCount(); ++e) {
        const bool top = boxm.source_vertex[e] & 4;
        EXPECT_EQ(g.nodes[static_cast<std::size_t>(skin.joints[bj[4 * e]])].name, top ? "head" : "neck");
        if (top) {
          EXPECT_EQ(g.nodes[static_cast<std::size_t>(skin.joints[bj[4 * e + 1]])].name, "neck");
        }
      }
      // Materials: the body's default and the box's own.
      ASSERT_EQ(g.materials.size(), 2u);
      EXPECT_EQ(g.materials[0].name, "Body");
      EXPECT_EQ(g.materials[0].alphaMode, "OPAQUE");
      EXPECT_FALSE(g.materials[0].doubleSided);
      const tinygltf::Material& v = g.materials[1];
      EXPECT_EQ(v.name, "Visor");
      EXPECT_EQ(v.alphaMode, "MASK");
      EXPECT_EQ(v.alphaCutoff, 0.4);
      EXPECT_TRUE(v.doubleSided);
      EXPECT_EQ(v.pbrMetallicRoughness.baseColorFactor, (std::vector<double>{0.1f, 0.2f, 0.9f, 0.6f}));
      EXPECT_EQ(v.pbrMetallicRoughness.metallicFactor, 0.25);
      EXPECT_EQ(v.pbrMetallicRoughness.roughnessFactor, 0.2);
      // Morph targets per mesh.
      EXPECT_TRUE(g.meshes[0].primitives[0].targets.empty());
      ASSERT_EQ(bp.targets.size(), 1u);
      EXPECT_EQ(g.meshes[1].weights, (std::vector<double>{0.0}));
      EXPECT_EQ(g.meshes[1].extras.Get("targetNames").Get(0).Get<std::string>(), "Bulge");
      const tinygltf::Accessor& target = g.accessors[static_cast<std::size_t>(bp.targets[0].at("POSITION"))];
      EXPECT_TRUE(target.sparse.isSparse);
      EXPECT_EQ(static_cast<std::size_t>(target.sparse.count), distinctCorners(t.box_mesh, true));
      EXPECT_EQ(target.maxValues, (std::vector<double>{0, 0.05f, 0}));
    }
  }
  // One set of streams per mesh.
  const GltfSkins skins = gltfSkins(model, 4);
  EXPECT_FALSE(writeGltf(model, std::span<const GltfSkinStreams>(skins.streams).first(1), {}).ok());
  EXPECT_EQ(writeGltf(model, skins.streams[0], {}).error().message, "glTF: 1 skin streams for 2 meshes");
}

TEST(TwoMeshes, G4mf) {
  const TwoMeshes& t = twoMeshes();
  const ExportModel& model = t.model;
  ASSERT_EQ(model.meshes.size(), 2u);
  const std::size_t nb = model.names.size();
  ExportModel body_only = model;
  body_only.meshes.pop_back();
  for (const G4mfContainer container : {G4mfContainer::kText, G4mfContainer::kBinary}) {
    auto bytes = writeG4mf(model, {.container = container, .rig_name = "demo"});
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    const auto issues = validateG4mf(*bytes, "two");
    for (const G4mfIssue& i : issues) ADD_FAILURE() << i.path << ": " << i.message;
    // The body reads back as in a file of the body alone (the box's data comes after it).
    auto d = readG4mf(*bytes, "two");
    auto alone = readG4mf(*writeG4mf(body_only, {.container = container, .rig_name = "demo"}), "body");
    ASSERT_TRUE(d.ok() && alone.ok());
    ASSERT_EQ(d->meshes.size(), 2u);
    ASSERT_EQ(alone->meshes.size(), 1u);
    EXPECT_EQ(d->meshes[0].node_name, "Body");
    EXPECT_EQ(d->meshes[0].positions, alone->meshes[0].positions);
    EXPECT_EQ(d->meshes[0].triangles, alone->meshes[0].triangles);
    EXPECT_EQ(d->meshes[0].normals, alone->meshes[0].normals);
    EXPECT_EQ(d->meshes[0].uvs, alone->meshes[0].uvs);
    EXPECT_EQ(d->meshes[0].skin_groups, alone->meshes[0].skin_groups);
    EXPECT_EQ(d->meshes[0].skin_weights, alone->meshes[0].skin_weights);
    EXPECT_EQ(d->bone_names, alone->bone_names);
    if (container != G4mfContainer::kText) continue;
    // The document: both mesh nodes are children of the skeleton (so it skins them), each mesh
    // has a skin with the same group names, its own material and its blend shapes.
    auto doc = parseJson(*bytes, "two.g4tf");
    ASSERT_TRUE(doc.ok());
    const auto& nodes = doc->find("nodes")->items();
    ASSERT_EQ(nodes.size(), 2 + nb + 2);
    const std::int64_t body_node = static_cast<std::int64_t>(2 + nb), box_node = body_node + 1;
    const auto& children = nodes[1].find("children")->items();
    ASSERT_GE(children.size(), 2u);
    EXPECT_EQ(children[children.size() - 2].asInt(), body_node);
    EXPECT_EQ(children.back().asInt(), box_node);
    EXPECT_EQ(nodes[1].find("skeleton")->find("joints")->size(), nb);
    EXPECT_EQ(nodes[static_cast<std::size_t>(box_node)].find("name")->asString(), "Visor");
    EXPECT_EQ(nodes[static_cast<std::size_t>(box_node)].find("meshInstance")->find("mesh")->asInt(), 1);
    const auto& meshes = doc->find("meshes")->items();
    ASSERT_EQ(meshes.size(), 2u);
    EXPECT_EQ(meshes[1].find("name")->asString(), "VisorMesh");
    EXPECT_EQ(writeJson(*meshes[1].find("skin")->find("groupNames")), writeJson(*meshes[0].find("skin")->find("groupNames")));
    EXPECT_EQ(meshes[1].find("surfaces")->items()[0].find("material")->asInt(), 1);
    EXPECT_EQ(meshes[1].find("blend")->find("shapes")->items()[0].find("name")->asString(), "Bulge");
    EXPECT_FALSE(meshes[0].contains("blend"));
    const auto& materials = doc->find("materials")->items();
    ASSERT_EQ(materials.size(), 2u);
    EXPECT_EQ(materials[0].find("name")->asString(), "BodyMaterial");
    // "Visor" is the box's node: its material is named apart.
    EXPECT_EQ(materials[1].find("name")->asString(), "VisorMaterial");
    const Json& color = *materials[1].find("baseColor")->find("factor");
    ASSERT_EQ(color.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(color.items()[i].asDouble(), double(visor().base_color[i]));
    EXPECT_EQ(writeJson(*materials[1].find("orm")->find("factor"), {.indent = -1}), "[0.0, 0.2, 0.25]");
    EXPECT_EQ(writeJson(*materials[1].find("extras"), {.indent = -1, .sort_keys = false}),
              R"({"alphaMode": "MASK", "alphaCutoff": 0.4, "doubleSided": true})");
  }
}

// Per G4MF vertex of an exported mesh, its first export vertex: the writer merges the export
// vertices of one source vertex (same position and influences, as in these meshes), numbering
// them in first-appearance order. `g4_of`: per export vertex, its G4MF vertex.
std::vector<std::uint32_t> firstExportVertices(const ExportMesh& m, std::vector<std::uint32_t>& g4_of) {
  std::map<std::uint32_t, std::uint32_t> by_source;
  std::vector<std::uint32_t> first;
  g4_of.assign(m.vertexCount(), 0);
  for (std::uint32_t e = 0; e < m.vertexCount(); ++e) {
    auto [it, added] = by_source.emplace(m.source_vertex[e], static_cast<std::uint32_t>(first.size()));
    if (added) first.push_back(e);
    g4_of[e] = it->second;
  }
  return first;
}

// One read-back mesh against the export mesh it was written from: vertices, per-corner normals
// and UVs, polygons, skin and blend shapes, all as written (export frame).
void expectMeshReadBack(const ExportMesh& m, const G4mfMesh& g, const std::vector<std::string>& bone_names) {
  std::vector<std::uint32_t> g4_of;
  const std::vector<std::uint32_t> first = firstExportVertices(m, g4_of);
  ASSERT_EQ(g.vertexCount(), first.size());
  for (std::size_t e = 0; e < m.vertexCount(); ++e)
    for (std::size_t c = 0; c < 3; ++c) ASSERT_EQ(g.positions[3 * g4_of[e] + c], m.positions[3 * e + c]) << "export vertex " << e;
  // Corners: the normal and UV bindings index per-export-vertex values; the normals as written
  // (normalised where not unit within 1e-6), v flipped.
  ASSERT_EQ(g.triangles.size(), m.triangles.size());
  ASSERT_EQ(g.normal_indices.size(), g.triangles.size());
  ASSERT_EQ(g.uv_indices, g.normal_indices);
  ASSERT_EQ(g.normals.size(), m.normals.size());
  ASSERT_EQ(g.uvs.size(), m.uvs.size());
  for (std::size_t i = 0; i < g.triangles.size(); ++i) {
    const std::uint32_t e = g.normal_indices[i];
    ASSERT_LT(e, m.vertexCount());
    ASSERT_EQ(g.triangles[i], g4_of[e]) << "corner " << i;
  }
  for (std::size_t e = 0; e < m.vertexCount(); ++e) {
    const Eigen::Vector3f n(m.normals[3 * e], m.normals[3 * e + 1], m.normals[3 * e + 2]);
    const double len = n.cast<double>().norm();
    const Eigen::Vector3f want = std::abs(len - 1.0) > 1e-6 ? Eigen::Vector3f((n.cast<double>() / len).cast<float>()) : n;
    EXPECT_EQ(Eigen::Vector3f(g.normals[3 * e], g.normals[3 * e + 1], g.normals[3 * e + 2]), want) << "export vertex " << e;
    EXPECT_EQ(g.uvs[2 * e], m.uvs[2 * e]);
    EXPECT_EQ(g.uvs[2 * e + 1], 1.0f - m.uvs[2 * e + 1]);
  }
  // Polygons: the model's, in order, each fanned from one of its corners.
  const std::size_t np = m.polygon_offsets.size() - 1;
  ASSERT_EQ(g.polygon_offsets.size(), np + 1);
  std::size_t tri = 0;
  for (std::size_t p = 0; p < np; ++p) {
    const std::uint32_t a = m.polygon_offsets[p], n = m.polygon_offsets[p + 1] - a;
    ASSERT_EQ(g.polygon_offsets[p + 1] - g.polygon_offsets[p], n) << "polygon " << p;
    std::vector<std::uint32_t> want(m.polygon_corners.begin() + a, m.polygon_corners.begin() + a + n), got, corners;
    for (std::uint32_t k = 0; k < 3 * (n - 2); ++k) got.push_back(g.normal_indices[3 * tri + k]);
    tri += n - 2;
    for (std::uint32_t k = 0; k < n; ++k) corners.push_back(g.polygon_corners[g.polygon_offsets[p] + k]);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    got.erase(std::unique(got.begin(), got.end()), got.end());
    ASSERT_EQ(got, want) << "polygon " << p;
    for (std::uint32_t& e : want) e = g4_of[e];
    std::sort(want.begin(), want.end());
    std::sort(corners.begin(), corners.end());
    ASSERT_EQ(corners, want) << "polygon " << p;
  }
  // Skin: groups are bone indices, named like the bones; per vertex the stored influences.
  EXPECT_EQ(g.group_names, bone_names);
  std::vector<std::vector<std::pair<std::uint32_t, float>>> skin(first.size());
  for (std::size_t k = 0; k < g.skin_vertices.size(); ++k) {
    ASSERT_LT(g.skin_vertices[k], first.size());
    skin[g.skin_vertices[k]].emplace_back(g.skin_groups[k], g.skin_weights[k]);
  }
  for (std::size_t v = 0; v < first.size(); ++v) ASSERT_EQ(skin[v], test::storedInfluences(m.skin, first[v])) << "vertex " << v;
  // Blend shapes: each morph's moved vertices as G4MF vertices, with their deltas.
  ASSERT_EQ(g.blend_shapes.size(), m.morphs.size());
  for (std::size_t k = 0; k < m.morphs.size(); ++k) {
    const ExportMorph& morph = m.morphs[k];
    const G4mfBlendShape& shape = g.blend_shapes[k];
    EXPECT_EQ(shape.name, morph.name);
    EXPECT_EQ(shape.amount, 0.0);
    std::vector<std::uint32_t> vertices;
    std::vector<float> offsets;
    for (std::size_t i = 0; i < morph.vertices.size(); ++i) {
      const std::uint32_t e = morph.vertices[i];
      const float* d = &morph.deltas[3 * i];
      if (first[g4_of[e]] != e || (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f)) continue;
      vertices.push_back(g4_of[e]);
      offsets.insert(offsets.end(), d, d + 3);
    }
    EXPECT_EQ(shape.vertices, vertices) << morph.name;
    EXPECT_EQ(shape.offsets, offsets) << morph.name;
    EXPECT_TRUE(shape.normal_values.empty() && shape.normal_offsets.empty()) << morph.name;  // no normal deltas given
  }
}

// Each form the writer makes, read back by the strict reader: the shared skeleton, both meshes
// (the body and the box, in that order) with their skins and blend shapes, and both materials.
TEST(TwoMeshes, G4mfReadBackEveryMeshAndMaterial) {
  const TwoMeshes& t = twoMeshes();
  const ExportModel& model = t.model;
  ASSERT_EQ(model.meshes.size(), 2u);
  const std::size_t nb = model.names.size();
  for (int form = 0; form < 3; ++form) {
    const char* form_name[] = {"g4tf", "g4b", "g4b+zstd"};
    SCOPED_TRACE(form_name[form]);
    auto bytes = writeG4mf(model, {.container = form ? G4mfContainer::kBinary : G4mfContainer::kText, .zstd = form == 2, .rig_name = "demo"});
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    auto d = readG4mf(*bytes, form_name[form]);
    ASSERT_TRUE(d.ok()) << d.error().message;
    EXPECT_EQ(d->binary, form > 0);
    // The skeleton, shared: every bone a joint, in model order.
    EXPECT_EQ(d->skeleton_name, "Armature");
    EXPECT_EQ(d->rig_name, "demo");
    ASSERT_EQ(d->bone_names, model.names);
    EXPECT_EQ(d->source_names, model.source_names);
    EXPECT_EQ(d->parents, model.parents);
    ASSERT_EQ(d->joints.size(), nb);
    for (std::size_t i = 0; i < nb; ++i) {
      EXPECT_EQ(d->joints[i], static_cast<int>(i));
      EXPECT_LT((d->global[i] - model.bind_global[i]).cwiseAbs().maxCoeff(), 1e-12) << model.names[i];
      EXPECT_EQ(d->lengths[i], model.lengths[i]);
    }
    // Both meshes, in model order, each on its node with its own material.
    ASSERT_EQ(d->meshes.size(), 2u);
    EXPECT_EQ(d->meshes[0].node_name, "Body");
    EXPECT_EQ(d->meshes[0].name, "BodyMesh");
    EXPECT_EQ(d->meshes[1].node_name, "Visor");
    EXPECT_EQ(d->meshes[1].name, "VisorMesh");
    for (std::size_t k = 0; k < 2; ++k) {
      SCOPED_TRACE("mesh " + std::to_string(k));
      EXPECT_EQ(d->meshes[k].material, static_cast<int>(k));
      expectMeshReadBack(model.meshes[k], d->meshes[k], model.names);
    }
    // The box: 8 G4MF vertices (its corners), the top following the head 0.75 and the neck 0.25,
    // raised 5 cm (+Y) by "Bulge".
    const G4mfMesh& box = d->meshes[1];
    EXPECT_EQ(box.vertexCount(), 8u);
    std::size_t top = 0;
    for (std::size_t k = 0; k < box.skin_vertices.size(); ++k) {
      const std::string& group = box.group_names[box.skin_groups[k]];
      const bool first = k == 0 || box.skin_vertices[k] != box.skin_vertices[k - 1];
      if (first && group == "head") {
        ++top;
        EXPECT_EQ(box.skin_weights[k], 0.75f);
      } else {
        EXPECT_EQ(group, "neck");
      }
    }
    EXPECT_EQ(top, 4u);
    EXPECT_TRUE(d->meshes[0].blend_shapes.empty());
    ASSERT_EQ(box.blend_shapes.size(), 1u);
    ASSERT_EQ(box.blend_shapes[0].vertices.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(box.blend_shapes[0].offsets[3 * i], 0.0f);
      EXPECT_FLOAT_EQ(box.blend_shapes[0].offsets[3 * i + 1], 0.05f);
      EXPECT_EQ(box.blend_shapes[0].offsets[3 * i + 2], 0.0f);
    }
    // Materials: the body's default and the box's own, alpha settings from the extras.
    ASSERT_EQ(d->materials.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
      const ExportMaterial& want = model.meshes[k].material;
      const G4mfMaterial& got = d->materials[k];
      EXPECT_EQ(got.name, k == 0 ? "BodyMaterial" : "VisorMaterial");
      for (std::size_t c = 0; c < 4; ++c) EXPECT_EQ(got.base_color[c], double(want.base_color[c])) << k;
      EXPECT_EQ(got.orm, (std::array<double, 3>{0.0, want.roughness, want.metallic})) << k;
      EXPECT_EQ(got.alpha_mode, want.alpha_mode) << k;
      EXPECT_EQ(got.alpha_cutoff, want.alpha_cutoff) << k;
      EXPECT_EQ(got.double_sided, want.double_sided) << k;
    }
    EXPECT_EQ(d->materials[1].alpha_mode, AlphaMode::kMask);
    EXPECT_EQ(d->materials[1].alpha_cutoff, 0.4);
    EXPECT_TRUE(d->materials[1].double_sided);
    EXPECT_FALSE(d->materials[0].double_sided);
  }
}

// Both read-back meshes skinned by the G4MF rule (docs/g4mf-rules.md §13, as
// tests/g4mf_skinning_test.cpp does for the body: K = B_cur * B_rest^-1 from the file's bind pose,
// p' = sum w K p) land where rigfit's own skinning puts the input meshes, in the export frame.
TEST(TwoMeshes, G4mfMeshesSkinnedByTheG4mfRule) {
  const TwoMeshes& t = twoMeshes();
  const ExportModel& model = t.model;
  ASSERT_EQ(model.meshes.size(), 2u);
  const Character& c = demo();
  const Skeleton& s = c.fit.skeleton;
  // A pose: every third bone and the neck and head turned, so the box bends between them.
  Pose pose = Pose::rest(s);
  constexpr double kDegree = std::numbers::pi / 180.0;
  auto turn = [&](std::size_t bone, const Eigen::Quaterniond& q) {
    pose.bones[bone].rotation_mode = RotationMode::kQuaternion;
    pose.bones[bone].quaternion = Eigen::Vector4d(q.w(), q.x(), q.y(), q.z());
  };
  for (std::size_t i = 1; i < s.size(); i += 3) {
    const double a = static_cast<int>(i % 7) * 6 - 18, b = static_cast<int>(i % 5) * 8 - 16;
    turn(i, Eigen::AngleAxisd(a * kDegree, Eigen::Vector3d::UnitX()) * Eigen::AngleAxisd(b * kDegree, Eigen::Vector3d::UnitZ()));
  }
  for (auto [bone, angle] : {std::pair{"neck", 25.0}, {"head", -30.0}}) {
    ASSERT_GE(s.find(bone), 0) << bone;
    turn(static_cast<std::size_t>(s.find(bone)), Eigen::Quaterniond(Eigen::AngleAxisd(angle * kDegree, Eigen::Vector3d(1, 0, 1).normalized())));
  }
  std::vector<Eigen::Matrix4d> pose_matrices(s.size()), skinning(s.size());
  poseMatrices(s, pose, pose_matrices);
  skinningMatrices(s, pose_matrices, skinning);
  std::vector<float> packed(12 * s.size());
  packSkinningMatrices(skinning, packed);
  // rigfit's skinning of the input meshes (rig frame), double-precision reference path.
  auto skin = [&](const Mesh& mesh, const Skin& weights) {
    std::vector<float> out(mesh.positions.size());
    SkinningJob job;
    job.skin = &weights;
    job.reference = true;
    job.matrices = packed;
    job.in_positions = mesh.positions;
    job.out_positions = out;
    EXPECT_TRUE(job.run());
    return out;
  };
  const std::vector<float> posed[2] = {skin(c.body().mesh, c.body().skin), skin(t.box_mesh, t.box_skin)};
  const Eigen::Matrix4d C = rigToExportFrame();

  for (int form = 0; form < 3; ++form) {
    const char* form_name[] = {"g4tf", "g4b", "g4b+zstd"};
    SCOPED_TRACE(form_name[form]);
    auto bytes = writeG4mf(model, {.container = form ? G4mfContainer::kBinary : G4mfContainer::kText, .zstd = form == 2});
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    auto d = readG4mf(*bytes, form_name[form]);
    ASSERT_TRUE(d.ok()) << d.error().message;
    ASSERT_EQ(d->meshes.size(), 2u);
    // The pose as the file's bones' local transforms (model order = file order), composed down
    // the file's hierarchy; K against the file's bind pose.
    const std::size_t nb = d->bone_names.size();
    ASSERT_EQ(nb, model.source_bones.size());
    auto posedY = [&](std::size_t i) { return Eigen::Matrix4d(C * pose_matrices[static_cast<std::size_t>(model.source_bones[i])]); };
    std::vector<Eigen::Matrix4d> current(nb), K(nb);
    for (std::size_t i = 0; i < nb; ++i) {
      const int p = d->parents[i];
      const Eigen::Matrix4d local = p < 0 ? posedY(i) : Eigen::Matrix4d(posedY(static_cast<std::size_t>(p)).inverse() * posedY(i));
      current[i] = p < 0 ? local : Eigen::Matrix4d(current[static_cast<std::size_t>(p)] * local);
      K[i] = current[i] * d->global[i].inverse();
    }
    for (std::size_t k = 0; k < 2; ++k) {
      const G4mfMesh& g = d->meshes[k];
      std::vector<std::uint32_t> g4_of;
      const std::vector<std::uint32_t> first = firstExportVertices(model.meshes[k], g4_of);
      ASSERT_EQ(g.vertexCount(), first.size());
      std::vector<Eigen::Vector3d> out(g.vertexCount(), Eigen::Vector3d::Zero());
      std::vector<std::uint8_t> listed(g.vertexCount(), 0);
      for (std::size_t i = 0; i < g.skin_vertices.size(); ++i) {
        const std::uint32_t v = g.skin_vertices[i];
        const int j = d->joints[g.skin_groups[i]];
        ASSERT_GE(j, 0);
        const Eigen::Vector4d p(g.positions[3 * v], g.positions[3 * v + 1], g.positions[3 * v + 2], 1.0);
        out[v] += static_cast<double>(g.skin_weights[i]) * (K[static_cast<std::size_t>(j)] * p).head<3>();
        listed[v] = 1;
      }
      double worst = 0.0;
      std::size_t moved = 0;
      for (std::size_t v = 0; v < g.vertexCount(); ++v) {
        const Eigen::Vector3d rest(g.positions[3 * v], g.positions[3 * v + 1], g.positions[3 * v + 2]);
        const Eigen::Vector3d mine = listed[v] ? out[v] : rest;
        const std::size_t sv = model.meshes[k].source_vertex[first[v]];
        const float* q = &posed[k][3 * sv];
        const Eigen::Vector3d want = (C * Eigen::Vector4d(q[0], q[1], q[2], 1)).head<3>();
        worst = std::max(worst, (mine - want).norm());
        moved += (want - rest).norm() > 0.01;
      }
      // Float32 data and matrices on both sides, evaluated in double: a few ulps of ~1.7 m.
      EXPECT_LT(worst, 1e-6) << "mesh " << k;
      EXPECT_GT(moved, k == 0 ? g.vertexCount() / 4 : g.vertexCount() - 1) << "the pose must move the mesh " << k;
      std::printf("[ g4mf skin ] two meshes %s, mesh %zu: %zu vertices, %zu moved > 1 cm, max |G4MF rule - rigfit| = %.3g m\n",
                  form_name[form], k, g.vertexCount(), moved, worst);
    }
  }
}

// Writes the two-mesh character as .glb, .gltf (+ .bin), embedded .gltf, .g4tf, .g4b and Zstd
// .g4b into $RIGFIT_EXPORT_SAMPLES (else a temporary folder) for tests/export/two_meshes.sh, which
// runs the Khronos glTF-Validator, `rigfit validate`, the G4MF schemas and the G4MF rule checker.
// The demo character with a second mesh of its own: the box around the head, skinned to neck and
// head, with the visor material. Export writes both meshes on the one skeleton; pose skins both.
Character twoMeshCharacter() {
  Character c = demo();
  const Skeleton& s = c.fit.skeleton;
  const int head = s.find("head"), neck = s.find("neck");
  EXPECT_TRUE(head >= 0 && neck >= 0);
  c.meshes.push_back({.name = "Visor",
                      .mesh = box(s.heads[static_cast<std::size_t>(head)], 0.1),
                      .skin = boxSkin(static_cast<std::uint16_t>(neck), static_cast<std::uint16_t>(head), s.size()),
                      .material = visor()});
  return c;
}

TEST(TwoMeshCharacter, ExportsEveryMesh) {
  const DataSource data = DataSource::builtinDemo();
  const Character c = twoMeshCharacter();
  ASSERT_TRUE(c.has_skin);
  auto glb = exportCharacter(data, c, {}, {.format = ExportFormat::kGlb});
  ASSERT_TRUE(glb.ok()) << glb.error().message;
  const tinygltf::Model g = loadGltf(glb->main, true);
  ASSERT_EQ(g.meshes.size(), 2u);
  EXPECT_EQ(g.meshes[0].name, "Body");
  EXPECT_EQ(g.meshes[1].name, "Visor");
  ASSERT_EQ(g.skins.size(), 1u);
  ASSERT_EQ(g.materials.size(), 2u);
  EXPECT_EQ(g.materials[1].name, "Visor");
  EXPECT_EQ(g.materials[1].alphaMode, "MASK");
  // Its images: in the .glb's buffer, each a texture with the one sampler; tangents for the
  // normal map on the visor only.
  ASSERT_EQ(g.images.size(), 2u);
  ASSERT_EQ(g.textures.size(), 2u);
  EXPECT_EQ(g.materials[0].pbrMetallicRoughness.baseColorTexture.index, -1);
  const int colour = g.materials[1].pbrMetallicRoughness.baseColorTexture.index;
  ASSERT_EQ(colour, 0);
  EXPECT_EQ(g.materials[1].normalTexture.index, 1);
  EXPECT_EQ(g.meshes[0].primitives[0].attributes.count("TANGENT"), 0u);
  ASSERT_EQ(g.meshes[1].primitives[0].attributes.count("TANGENT"), 1u);
  const tinygltf::Image& colour_image = g.images[static_cast<std::size_t>(g.textures[static_cast<std::size_t>(colour)].source)];
  EXPECT_EQ(colour_image.name, "visor_colour");
  EXPECT_EQ(colour_image.mimeType, "image/png");
  EXPECT_EQ(colour_image.width, 4);  // tinygltf decoded the image from the buffer
  EXPECT_EQ(colour_image.height, 2);
  EXPECT_EQ(g.samplers.size(), 1u);
  for (const tinygltf::Node& node : g.nodes) {
    if (node.mesh >= 0) {
      EXPECT_EQ(node.skin, 0) << node.name;
    }
  }
  EXPECT_EQ(g.accessors[static_cast<std::size_t>(g.meshes[1].primitives[0].attributes.at("POSITION"))].count,
            distinctCorners(c.meshes[1].mesh));
  // The report has an entry per mesh; the body's numbers stay at the top.
  const ExportReport& r = glb->report;
  ASSERT_EQ(r.meshes.size(), 2u);
  EXPECT_EQ(r.meshes[1].name, "Visor");
  EXPECT_EQ(r.meshes[1].vertices, distinctCorners(c.meshes[1].mesh));
  EXPECT_EQ(r.meshes[1].triangles, 12u);
  EXPECT_EQ(r.vertices, r.meshes[0].vertices);
  ASSERT_NE(exportReportJson(r).find("meshes"), nullptr);
  // The body's bytes do not depend on the second mesh being there: the same body accessor data.
  auto alone = exportCharacter(data, demo(), {}, {.format = ExportFormat::kGlb});
  ASSERT_TRUE(alone.ok());
  const tinygltf::Model a = loadGltf(alone->main, true);
  const auto positions = [](const tinygltf::Model& m) {
    const int acc = m.meshes[0].primitives[0].attributes.at("POSITION");
    const float* p = accessorData<float>(m, acc);
    return std::vector<float>(p, p + 3 * m.accessors[static_cast<std::size_t>(acc)].count);
  };
  EXPECT_EQ(positions(a), positions(g));
  // G4MF: both meshes, no issues.
  for (const ExportFormat f : {ExportFormat::kG4tf, ExportFormat::kG4b}) {
    auto g4 = exportCharacter(data, c, {}, {.format = f});
    ASSERT_TRUE(g4.ok()) << g4.error().message;
    for (const G4mfIssue& i : validateG4mf(g4->main, "two")) ADD_FAILURE() << i.path << ": " << i.message;
    EXPECT_EQ(g4->report.meshes.size(), 2u);
  }
  // G4MF text: the images as textures with their sizes and files, used by the visor's channels
  // (with a normal map too, and the body using the same colour image: written once).
  Character mapped = c;
  mapped.meshes[0].material.base_color_texture = mapped.meshes[1].material.base_color_texture;
  auto g4 = exportCharacter(data, mapped, {}, {.format = ExportFormat::kG4tf});
  ASSERT_TRUE(g4.ok());
  auto doc = parseJson(g4->main, "two.g4tf");
  ASSERT_TRUE(doc.ok());
  const Json& textures = *doc->find("textures");
  ASSERT_EQ(textures.size(), 2u);
  const Json& size = *textures.items()[0].find("size");
  ASSERT_EQ(size.size(), 2u);
  EXPECT_EQ(size.items()[0].asInt(), 4);
  EXPECT_EQ(size.items()[1].asInt(), 2);
  EXPECT_EQ(doc->find("files")->items()[1].find("mimeType")->asString(), "image/png");
  const Json& material = doc->find("materials")->items()[1];
  EXPECT_EQ(material.find("baseColor")->find("texture")->asInt(), 0);
  EXPECT_EQ(material.find("normal")->find("texture")->asInt(), 1);
  EXPECT_EQ(doc->find("materials")->items()[0].find("baseColor")->find("texture")->asInt(), 0);
  for (const G4mfIssue& i : validateG4mf(g4->main, "mapped")) ADD_FAILURE() << i.path << ": " << i.message;
}

// A unit square in the XY plane, u along +x and OBJ v along +y: glTF's v runs down, so the
// tangent is +x with w = -1 (bitangent cross(+z, +x) = +y, against v's direction -y).
TEST(ExportTangents, HandComputedQuad) {
  ExportMesh m;
  m.positions = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  m.normals = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
  m.uvs = {0, 0, 1, 0, 1, 1, 0, 1};
  m.triangles = {0, 1, 2, 0, 2, 3};
  const std::vector<float> t = exportTangents(m);
  ASSERT_EQ(t.size(), 16u);
  for (std::size_t v = 0; v < 4; ++v) {
    EXPECT_FLOAT_EQ(t[4 * v], 1.0f) << v;
    EXPECT_FLOAT_EQ(t[4 * v + 1], 0.0f) << v;
    EXPECT_FLOAT_EQ(t[4 * v + 2], 0.0f) << v;
    EXPECT_EQ(t[4 * v + 3], -1.0f) << v;
  }
  // Mirrored UVs (u along -x) flip the tangent; a tilted normal keeps it perpendicular.
  m.uvs = {1, 0, 0, 0, 0, 1, 1, 1};
  m.normals[2] = 0.8f;
  m.normals[0] = 0.6f;
  const std::vector<float> f = exportTangents(m);
  EXPECT_NEAR(f[0] * 0.6f + f[2] * 0.8f, 0.0, 1e-7);
  EXPECT_NEAR(std::hypot(f[0], f[1], f[2]), 1.0, 1e-6);
  EXPECT_LT(f[0], 0.0f);
  EXPECT_FLOAT_EQ(f[4], -1.0f);
  // No UVs: no tangents.
  m.uvs.clear();
  EXPECT_TRUE(exportTangents(m).empty());
}

TEST(ExportImage, FormatAndSizeFromTheHeader) {
  const ExportImage png = checkerImage("a.png", 3, 5);
  EXPECT_EQ(png.width, 3);
  EXPECT_EQ(png.height, 5);
  EXPECT_EQ(png.name, "a");
  EXPECT_EQ(png.file_name, "a.png");
  auto bytes = [](std::string s) { return std::make_shared<const std::string>(std::move(s)); };
  auto gif = exportImage(bytes("GIF89a....."), "x/y.gif");
  ASSERT_FALSE(gif.ok());
  EXPECT_EQ(gif.error().message, "x/y.gif: not a PNG or JPEG image (glTF readers need one of those)");
  auto cut = exportImage(bytes(png.bytes->substr(0, 12)), "cut.png");
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, "cut.png: unreadable image header (image/png)");
  EXPECT_FALSE(exportImage(bytes(""), "empty.png").ok());
  // A model whose texture has no UVs to map it, or a file name with a folder, is refused.
  ExportModel m = twoMeshes().model;
  m.meshes[1].material.base_color_texture->file_name = "../x.png";
  auto bad = validateExportModel(m);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("file name must be a plain name"), std::string::npos) << bad.error().message;
  m = twoMeshes().model;
  m.meshes[1].uvs.clear();
  bad = validateExportModel(m);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("a textured material needs UVs"), std::string::npos) << bad.error().message;
}

TEST(TwoMeshCharacter, PoseSkinsEveryMesh) {
  const DataSource data = DataSource::builtinDemo();
  const Character c = twoMeshCharacter();
  const PoseRequest request{.rotations = {{"head", BoneRotation::Kind::kEulerXyzDegrees, {0, 0, 30, 0}}}};
  Pose pose;
  ASSERT_TRUE(buildPose(data, c, request, pose, nullptr).ok());
  PosedMesh posed;
  ASSERT_TRUE(poseCharacter(c, pose, false, 1, posed).ok());
  ASSERT_EQ(posed.more.size(), 1u);
  const std::vector<float>& box_posed = posed.more[0].positions;
  ASSERT_EQ(box_posed.size(), c.meshes[1].mesh.positions.size());
  // The bottom follows the neck (not rotated): unchanged; the top turns with the head: moved.
  const std::vector<float>& rest = c.meshes[1].mesh.positions;
  for (std::size_t v = 0; v < 8; ++v) {
    const double d = std::hypot(box_posed[3 * v] - rest[3 * v], box_posed[3 * v + 1] - rest[3 * v + 1], box_posed[3 * v + 2] - rest[3 * v + 2]);
    if (v < 4) {
      EXPECT_LT(d, 1e-6) << v;
    } else {
      EXPECT_GT(d, 1e-3) << v;
    }
  }
  // The body is skinned as when it is alone.
  PosedMesh alone;
  ASSERT_TRUE(poseCharacter(demo(), pose, false, 1, alone).ok());
  EXPECT_EQ(alone.positions, posed.positions);
  EXPECT_TRUE(alone.more.empty());
  // A pose as the bind pose carries both meshes.
  auto glb = exportCharacter(data, c, request, {});
  ASSERT_TRUE(glb.ok()) << glb.error().message;
  EXPECT_EQ(glb->report.meshes.size(), 2u);
}

TEST(TwoMeshes, WriteSamples) {
  const TwoMeshes& t = twoMeshes();
  ASSERT_EQ(t.model.meshes.size(), 2u);
  const char* env = std::getenv("RIGFIT_EXPORT_SAMPLES");
  const std::filesystem::path dir = env && *env ? std::filesystem::path(env) : std::filesystem::temp_directory_path() / "rigfit_two_meshes";
  std::filesystem::create_directories(dir);
  const GltfSkins skins = gltfSkins(t.model, 4, 8);
  auto put = [&](const std::string& name, const std::string& bytes) {
    ASSERT_FALSE(bytes.empty()) << name;
    ASSERT_TRUE(writeFileAtomic((dir / name).string(), bytes).ok()) << name;
  };
  for (auto [container, name] : {std::pair{GltfContainer::kGlb, "two_meshes.glb"}, {GltfContainer::kGltf, "two_meshes.gltf"},
                                 {GltfContainer::kGltfEmbedded, "two_meshes.embedded.gltf"}}) {
    auto files = writeGltf(t.model, skins.streams, {.container = container, .bin_name = "two_meshes.bin", .rig_name = "demo"});
    ASSERT_TRUE(files.ok()) << files.error().message;
    put(name, files->main);
    if (container == GltfContainer::kGltf) put("two_meshes.bin", files->bin);
    ASSERT_EQ(files->images.size(), container == GltfContainer::kGltf ? 2u : 0u);
    for (const auto& [image_name, bytes] : files->images) put(image_name, *bytes);
  }
  for (auto [container, zstd, name] : {std::tuple{G4mfContainer::kText, false, "two_meshes.g4tf"}, {G4mfContainer::kBinary, false, "two_meshes.g4b"},
                                       {G4mfContainer::kBinary, true, "two_meshes.zstd.g4b"}}) {
    auto bytes = writeG4mf(t.model, {.container = container, .zstd = zstd, .rig_name = "demo"});
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    put(name, *bytes);
  }
  // The same through the pipeline: a character of two meshes, exported.
  const Character c = twoMeshCharacter();
  for (auto [format, name] : {std::pair{ExportFormat::kGlb, "character.glb"}, {ExportFormat::kG4tf, "character.g4tf"}}) {
    auto files = exportCharacter(DataSource::builtinDemo(), c, {}, {.format = format});
    ASSERT_TRUE(files.ok()) << files.error().message;
    put(name, files->main);
  }
}

}  // namespace
}  // namespace rigfit
