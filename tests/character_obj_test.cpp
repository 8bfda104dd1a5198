// A posed or shaped character with worn assets as one OBJ (writeCharacterObj): one object and
// group per mesh, the body first without the faces the clothes hide, every vertex of every mesh,
// read back with parseObj. And the export report's per-mesh entries.
#include <algorithm>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "rigfit/character.hpp"
#include "rigfit/character_export.hpp"
#include "rigfit/json.hpp"
#include "rigfit/mesh.hpp"
#include "rigfit/posing.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

std::shared_ptr<const WornAsset> worn(const std::string& rel) {
  auto a = loadWornAsset(test::sharedData() + "/../assets/" + rel, "game_engine");
  EXPECT_TRUE(a.ok()) << a.error().message;
  return a.ok() ? std::make_shared<const WornAsset>(std::move(*a)) : nullptr;
}

// Per `o` object of an OBJ text: its name and how many `v` lines it has.
std::vector<std::pair<std::string, std::size_t>> objectVertexCounts(const std::string& text) {
  std::vector<std::pair<std::string, std::size_t>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("o ", 0) == 0) out.emplace_back(line.substr(2), 0);
    if (line.rfind("v ", 0) == 0 && !out.empty()) ++out.back().second;
  }
  return out;
}

struct Dressed {
  Character c;
  PosedMesh posed;
};

const Dressed& dressed() {
  static const Dressed d = [] {
    Dressed out;
    const DataSource data = DataSource::folder(test::sharedData());
    CharacterOptions o{.rig = "game_engine"};
    for (const char* path : {"tongue/tongue01/tongue01.mhclo", "clothes/female_casualsuit01/female_casualsuit01.mhclo",
                             "clothes/shoes01/shoes01.mhclo"})
      o.assets.push_back(worn(path));
    auto c = loadCharacter(data, o);
    EXPECT_TRUE(c.ok()) << c.error().message;
    if (!c) return out;
    out.c = std::move(*c);
    PoseRequest request{.pose_file = "game_engine_fk/t-pose.json"};
    request.rotations.push_back({"head", BoneRotation::Kind::kEulerXyzDegrees, {20, 0, 10}});
    Pose pose;
    EXPECT_TRUE(buildPose(data, out.c, request, pose, nullptr).ok());
    EXPECT_TRUE(poseCharacter(out.c, pose, false, 1, out.posed).ok());
    return out;
  }();
  return d;
}

TEST(CharacterObj, PosedAssetsOneGroupEach) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Dressed& d = dressed();
  const Character& c = d.c;
  ASSERT_EQ(c.meshes.size(), 4u);
  const std::string text = writeCharacterObj(c, &d.posed, false, "posed");
  auto obj = parseObj(text, "posed.obj");
  ASSERT_TRUE(obj.ok()) << obj.error().message;
  const std::vector<std::string> names = {"Body", "tongue01", "female_casualsuit01", "shoes01"};
  EXPECT_EQ(obj->group_names, names);
  // Every vertex of every mesh, each object's own.
  const auto counts = objectVertexCounts(text);
  ASSERT_EQ(counts.size(), names.size());
  std::vector<std::size_t> first{0};
  for (std::size_t m = 0; m < names.size(); ++m) {
    EXPECT_EQ(counts[m].first, names[m]);
    EXPECT_EQ(counts[m].second, c.meshes[m].mesh.vertexCount()) << names[m];
    first.push_back(first.back() + counts[m].second);
  }
  ASSERT_EQ(obj->vertexCount(), first.back());
  // Faces per group: the body lost the hidden ones, the assets kept all; each group's faces use
  // its own object's vertices and UVs.
  std::map<std::uint32_t, std::size_t> faces;
  for (std::size_t f = 0; f < obj->faceCount(); ++f) {
    const std::uint32_t g = obj->face_groups[f];
    ++faces[g];
    for (std::uint32_t k = obj->face_offsets[f]; k < obj->face_offsets[f + 1]; ++k) {
      ASSERT_GE(obj->corner_vertices[k], first[g]);
      ASSERT_LT(obj->corner_vertices[k], first[g + 1]);
    }
  }
  const std::size_t hidden = static_cast<std::size_t>(std::count(c.body().hidden_faces.begin(), c.body().hidden_faces.end(), 1));
  EXPECT_GT(hidden, 1000u);
  EXPECT_EQ(faces[0], c.body().mesh.faceCount() - hidden);
  for (std::uint32_t m = 1; m < names.size(); ++m) EXPECT_EQ(faces[m], c.meshes[m].mesh.faceCount()) << names[m];
  EXPECT_EQ(obj->uvs.size(), c.meshes[0].mesh.uvs.size() + c.meshes[1].mesh.uvs.size() + c.meshes[2].mesh.uvs.size() +
                                 c.meshes[3].mesh.uvs.size());
  // The tongue is an exact copy of the body's helper-tongue vertices: posed, they are written
  // to the same text, so they read back the same.
  const VertexGroups& groups = c.body().groups;
  const auto* helper = groups.find("helper-tongue");
  ASSERT_NE(helper, nullptr);
  const AssetBindings& b = c.meshes[1].asset->asset.file.bindings;
  const std::size_t nt = c.meshes[1].mesh.vertexCount();
  ASSERT_EQ(b.vertices.size(), 3 * nt);
  for (std::size_t v = 0; v < nt; ++v) {
    ASSERT_EQ(b.weights[3 * v], 1.0) << v;
    const auto body_v = static_cast<std::uint32_t>(b.vertices[3 * v]);
    EXPECT_TRUE(std::any_of(helper->begin(), helper->end(), [&](const auto& r) { return body_v >= r.first && body_v <= r.last; })) << v;
    for (std::size_t k = 0; k < 3; ++k) {
      ASSERT_EQ(obj->positions[3 * (first[1] + v) + k], obj->positions[3 * body_v + k]) << v;
      ASSERT_EQ(d.posed.more[0].positions[3 * v + k], d.posed.positions[3 * body_v + k]) << v;
    }
  }
  // Posed: the body moved from its rest positions.
  EXPECT_NE(d.posed.positions, c.body().mesh.positions);
}

TEST(CharacterObj, KeepHiddenAndBodyAlone) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Dressed& d = dressed();
  auto kept = parseObj(writeCharacterObj(d.c, &d.posed, true, ""), "kept.obj");
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  std::size_t total = 0;
  for (const CharacterMesh& m : d.c.meshes) total += m.mesh.faceCount();
  EXPECT_EQ(kept->faceCount(), total);
  // A body wearing nothing: writeObj's text (the input OBJ's groups), posed or not.
  Character alone;
  alone.meshes.push_back(d.c.body());
  alone.meshes[0].hidden_faces.clear();
  const std::span<const float> none;
  EXPECT_EQ(writeCharacterObj(alone, nullptr, false, "h"), writeObj(alone.body().mesh, none, none, "h"));
  PosedMesh body_only{.positions = d.posed.positions, .normals = d.posed.normals};
  EXPECT_EQ(writeCharacterObj(alone, &body_only, false, "h"), writeObj(alone.body().mesh, d.posed.positions, d.posed.normals, "h"));
}

TEST(CharacterObj, ShapedBodyDressedAsLoadCharacterDressesIt) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const Dressed& d = dressed();
  const Character& c = d.c;
  std::vector<std::shared_ptr<const WornAsset>> assets;
  for (std::size_t m = 1; m < c.meshes.size(); ++m) assets.push_back(c.meshes[m].asset);
  auto dressed_body = dressBody(c.body().mesh, assets, nullptr);
  ASSERT_TRUE(dressed_body.ok()) << dressed_body.error().message;
  ASSERT_EQ(dressed_body->assets.size(), 3u);
  EXPECT_FALSE(dressed_body->proxy);
  EXPECT_EQ(dressed_body->body_hidden_faces, c.body().hidden_faces);
  for (std::size_t m = 0; m < 3; ++m) {
    EXPECT_EQ(dressed_body->assets[m].name, c.meshes[m + 1].name);
    EXPECT_EQ(dressed_body->assets[m].mesh.positions, c.meshes[m + 1].mesh.positions);
    EXPECT_EQ(dressed_body->assets[m].skin.vertex_count, 0u);  // no rig: no skin
  }
  // A proxy takes the body's place, masked under the suit.
  auto proxy = dressBody(c.body().mesh, assets, worn("proxymeshes/female_generic/female_generic.proxy"));
  ASSERT_TRUE(proxy.ok()) << proxy.error().message;
  ASSERT_TRUE(proxy->proxy);
  EXPECT_TRUE(proxy->body_hidden_faces.empty());
  EXPECT_EQ(proxy->proxy->hidden_faces.size(), proxy->proxy->mesh.faceCount());
  EXPECT_GT(std::count(proxy->proxy->hidden_faces.begin(), proxy->proxy->hidden_faces.end(), 1), 100);
}

// The report's per-mesh entries: material, texture, influences limited, the asset's warnings.
TEST(CharacterObj, ExportReportPerMesh) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  CharacterOptions o{.rig = "game_engine"};
  for (const char* path : {"eyes/high-poly/high-poly.mhclo", "clothes/female_casualsuit01/female_casualsuit01.mhclo",
                           "hair/ponytail01/ponytail01.mhclo"})
    o.assets.push_back(worn(path));
  auto c = loadCharacter(data, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto glb = exportCharacter(data, *c, {}, {});
  ASSERT_TRUE(glb.ok()) << glb.error().message;
  const Json json = exportReportJson(glb->report);
  const Json* meshes = json.find("meshes");
  ASSERT_NE(meshes, nullptr);
  ASSERT_EQ(meshes->items().size(), 4u);
  std::int64_t limited = 0;
  for (std::size_t m = 0; m < 4; ++m) {
    const Json& e = meshes->items()[m];
    std::vector<std::string> keys;
    for (const auto& [key, value] : e.members()) keys.push_back(key);
    EXPECT_EQ(keys, (std::vector<std::string>{"name", "vertices", "triangles", "material", "texture", "vertices_limited", "warnings"}));
    EXPECT_EQ(e.find("material")->asString(), c->meshes[m].material.name);
    limited += e.find("vertices_limited")->asInt();
    std::vector<std::string> warnings;
    for (const Json& w : e.find("warnings")->items()) warnings.push_back(w.asString());
    EXPECT_EQ(warnings, c->meshes[m].asset ? c->meshes[m].asset->warnings : std::vector<std::string>{});
  }
  EXPECT_EQ(limited, json.find("vertices_limited")->asInt());
  EXPECT_TRUE(meshes->items()[0].find("texture")->isNull());  // the body: colour only
  EXPECT_EQ(meshes->items()[1].find("texture")->asString(), "brown_eye.png");
  EXPECT_EQ(meshes->items()[0].find("material")->asString(), "Body");
  // Some asset misses a texture file: the warning is on its mesh, and in the report's list.
  bool missing = false;
  for (const auto& m : glb->report.meshes)
    for (const auto& w : m.warnings) missing = missing || w.find("texture file") != std::string::npos;
  EXPECT_TRUE(missing);
  // G4MF: no influence limit, so no vertices_limited.
  auto g4 = exportCharacter(data, *c, {}, {.format = ExportFormat::kG4tf});
  ASSERT_TRUE(g4.ok()) << g4.error().message;
  const Json g4json = exportReportJson(g4->report);
  for (const Json& e : g4json.find("meshes")->items()) EXPECT_EQ(e.find("vertices_limited"), nullptr);
}

}  // namespace
}  // namespace rigfit
