// Morph targets (glTF) / blend shapes (G4MF): MakeHuman targets carried through the vertex split
// and the change of frame, written sparse, read back by tinygltf and by rigfit's G4MF reader.
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include "rigfit/character.hpp"
#include "rigfit/character_export.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/mesh.hpp"
#include "rigfit/shape.hpp"
#include "rigfit/data.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

// One bone, a quad whose source vertex 1 was split in two (export vertices 1 and 2).
ExportModel splitQuad() {
  ExportModel m;
  m.meshes.emplace_back();
  m.names = {"Root"};
  m.source_names = {"root"};
  m.parents = {-1};
  m.bind_global = {Eigen::Matrix4d::Identity()};
  m.bind_local = m.bind_global;
  m.lengths = {1.0};
  m.rolls = {0.0};
  m.heads = {Eigen::Vector3d(0, 0, 0)};
  m.tails = {Eigen::Vector3d(0, 1, 0)};
  m.meshes[0].positions = {0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0};
  m.meshes[0].normals = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
  m.meshes[0].triangles = {0, 1, 3, 2, 3, 1};
  m.meshes[0].source_vertex = {0, 1, 1, 2};
  m.meshes[0].skin.vertex_count = 4;
  m.meshes[0].skin.offsets = {0, 1, 2, 3, 4};
  m.meshes[0].skin.bones = {0, 0, 0, 0};
  m.meshes[0].skin.weights = {1, 1, 1, 1};
  return m;
}

TEST(ExportMorph, CarriesTargetsThroughTheSplitAndTheFrame) {
  ExportModel m = splitQuad();
  // Source vertex 1 listed twice (the offsets add up), vertex 0 with a zero offset (left out).
  const std::vector<std::uint32_t> vertices = {1, 2, 1, 0};
  const std::vector<double> offsets = {1, 2, 3, 0, 0, -1, 0.5, 0, 0, 0, 0, 0};
  ASSERT_TRUE(addExportMorph(m.meshes[0], "smile", 3, vertices, offsets).ok());
  ASSERT_EQ(m.meshes[0].morphs.size(), 1u);
  const ExportMorph& morph = m.meshes[0].morphs[0];
  EXPECT_EQ(morph.name, "smile");
  // (x, y, z) in the rig frame is (x, z, -y) in the export frame.
  EXPECT_EQ(morph.vertices, (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(morph.deltas, (std::vector<float>{1.5f, 3.0f, -2.0f, 1.5f, 3.0f, -2.0f, 0.0f, -1.0f, 0.0f}));

  // With normal deltas (per input vertex): vertex 0 does not move but its normal turns, so it is
  // listed with a zero position delta; the split vertex carries its normal delta twice.
  const std::vector<float> normal_deltas = {0, 0.5f, 0, 0, 0, 0, 0.25f, 0, 0};
  ASSERT_TRUE(addExportMorph(m.meshes[0], "turn", 3, std::vector<std::uint32_t>{1}, std::vector<double>{1, 0, 0}, normal_deltas).ok());
  const ExportMorph& turn = m.meshes[0].morphs[1];
  EXPECT_EQ(turn.vertices, (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(turn.deltas, (std::vector<float>{0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(turn.normal_deltas, (std::vector<float>{0, 0, -0.5f, 0, 0, 0, 0, 0, 0, 0.25f, 0, 0}));
  m.meshes[0].morphs.pop_back();
  EXPECT_FALSE(addExportMorph(m.meshes[0], "short", 3, std::vector<std::uint32_t>{1}, std::vector<double>{1, 0, 0}, std::vector<float>{0, 0, 0}).ok());

  auto beyond = addExportMorph(m.meshes[0], "far", 3, std::vector<std::uint32_t>{5}, std::vector<double>{1, 0, 0});
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.error().code, ErrorCode::kRange);
  EXPECT_EQ(beyond.error().message, "morph \"far\": vertex 5 is beyond the mesh of 3 vertices");
  auto uneven = addExportMorph(m.meshes[0], "odd", 3, std::vector<std::uint32_t>{0}, std::vector<double>{1, 0});
  ASSERT_FALSE(uneven.ok());
  EXPECT_EQ(uneven.error().code, ErrorCode::kUsage);
  EXPECT_EQ(m.meshes[0].morphs.size(), 1u);  // nothing added on an error
}

tinygltf::Model loadGlb(const std::string& bytes) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string err, warn;
  EXPECT_TRUE(loader.LoadBinaryFromMemory(&model, &err, &warn, reinterpret_cast<const unsigned char*>(bytes.data()),
                                          static_cast<unsigned>(bytes.size())))
      << err;
  EXPECT_TRUE(warn.empty()) << warn;
  return model;
}

// The dense deltas of a (sparse, or all-zero) POSITION target accessor.
std::vector<float> denseTarget(const tinygltf::Model& g, int accessor) {
  const tinygltf::Accessor& a = g.accessors[static_cast<std::size_t>(accessor)];
  std::vector<float> out(3 * a.count, 0.0f);
  EXPECT_EQ(a.bufferView, -1);  // no dense data: zeros plus the sparse entries
  if (!a.sparse.isSparse) return out;
  const auto bytesOf = [&](int view, int offset) {
    const tinygltf::BufferView& v = g.bufferViews[static_cast<std::size_t>(view)];
    return g.buffers[static_cast<std::size_t>(v.buffer)].data.data() + v.byteOffset + offset;
  };
  const unsigned char* idx = bytesOf(a.sparse.indices.bufferView, a.sparse.indices.byteOffset);
  const float* val = reinterpret_cast<const float*>(bytesOf(a.sparse.values.bufferView, a.sparse.values.byteOffset));
  for (int k = 0; k < a.sparse.count; ++k) {
    const std::size_t v = a.sparse.indices.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT
                              ? reinterpret_cast<const std::uint16_t*>(idx)[k]
                              : reinterpret_cast<const std::uint32_t*>(idx)[k];
    for (int c = 0; c < 3; ++c) out[3 * v + static_cast<std::size_t>(c)] = val[3 * k + c];
  }
  return out;
}

// A float VEC3 attribute of the first primitive (tightly packed, as rigfit writes it).
std::vector<float> attribute(const tinygltf::Model& model, const char* name) {
  const tinygltf::Accessor& a = model.accessors[static_cast<std::size_t>(model.meshes[0].primitives[0].attributes.at(name))];
  const tinygltf::BufferView& v = model.bufferViews[static_cast<std::size_t>(a.bufferView)];
  const float* p = reinterpret_cast<const float*>(model.buffers[0].data.data() + v.byteOffset + a.byteOffset);
  return std::vector<float>(p, p + 3 * a.count);
}

TEST(Gltf, MorphTargetsAreSparseNamedAndBounded) {
  ExportModel m = splitQuad();
  ASSERT_TRUE(addExportMorph(m.meshes[0], "smile", 3, std::vector<std::uint32_t>{1, 2}, std::vector<double>{1, 2, 3, 0, 0, -1}).ok());
  ASSERT_TRUE(addExportMorph(m.meshes[0], "none", 3, std::vector<std::uint32_t>{}, std::vector<double>{}).ok());
  const std::vector<std::uint16_t> joints(16, 0);
  const std::vector<float> weights = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  auto files = writeGltf(m, {.influences = 4, .joints = joints, .weights = weights}, {.container = GltfContainer::kGlb, .rig_name = "t"});
  ASSERT_TRUE(files.ok()) << files.error().message;
  const tinygltf::Model g = loadGlb(files->main);
  ASSERT_EQ(g.meshes.size(), 1u);
  const tinygltf::Mesh& mesh = g.meshes[0];
  EXPECT_EQ(mesh.weights, (std::vector<double>{0.0, 0.0}));
  ASSERT_TRUE(mesh.extras.Has("targetNames"));
  ASSERT_EQ(mesh.extras.Get("targetNames").ArrayLen(), 2u);
  EXPECT_EQ(mesh.extras.Get("targetNames").Get(0).Get<std::string>(), "smile");
  EXPECT_EQ(mesh.extras.Get("targetNames").Get(1).Get<std::string>(), "none");
  const auto& targets = mesh.primitives[0].targets;
  ASSERT_EQ(targets.size(), 2u);
  const int smile = targets[0].at("POSITION"), none = targets[1].at("POSITION");
  const tinygltf::Accessor& a = g.accessors[static_cast<std::size_t>(smile)];
  EXPECT_EQ(a.count, 4u);
  ASSERT_TRUE(a.sparse.isSparse);
  EXPECT_EQ(a.sparse.count, 3);
  EXPECT_EQ(denseTarget(g, smile), (std::vector<float>{0, 0, 0, 1, 3, -2, 1, 3, -2, 0, -1, 0}));
  // Bounds over every vertex, the unlisted (zero) ones included.
  EXPECT_EQ(a.minValues, (std::vector<double>{0, -1, -2}));
  EXPECT_EQ(a.maxValues, (std::vector<double>{1, 3, 0}));
  const tinygltf::Accessor& z = g.accessors[static_cast<std::size_t>(none)];
  EXPECT_FALSE(z.sparse.isSparse);
  EXPECT_EQ(denseTarget(g, none), std::vector<float>(12, 0.0f));
  EXPECT_EQ(z.minValues, (std::vector<double>{0, 0, 0}));
}

TEST(G4mf, BlendShapesOnMergedVerticesWithUniqueNames) {
  ExportModel m = splitQuad();
  // A morph named like the bone gets a unique G4MF name; the split vertex is one G4MF vertex.
  // Normal deltas (per input vertex): source 1 turns (export vertices 1 and 2, one G4MF vertex but
  // two normal values), source 0 turns without moving.
  const std::vector<float> turns = {0, 0, 0.5f, 0, 0.25f, 0, 0, 0, 0};
  ASSERT_TRUE(addExportMorph(m.meshes[0], "Root", 3, std::vector<std::uint32_t>{1, 2}, std::vector<double>{1, 2, 3, 0, 0, -1}, turns).ok());
  auto bytes = writeG4mf(m, {.container = G4mfContainer::kText});
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  auto doc = readG4mf(*bytes, "blend.g4tf");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  ASSERT_EQ(doc->meshes.size(), 1u);
  ASSERT_EQ(doc->meshes[0].vertexCount(), 3u);  // export vertices 1 and 2 merged
  ASSERT_EQ(doc->meshes[0].blend_shapes.size(), 1u);
  const G4mfBlendShape& s = doc->meshes[0].blend_shapes[0];
  EXPECT_EQ(s.name, "Root_2");
  EXPECT_EQ(s.amount, 0.0);
  EXPECT_EQ(s.vertices, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(s.offsets, (std::vector<float>{1, 3, -2, 0, -1, 0}));
  // The surface's normal values are per export vertex: (x, y, z) -> (x, z, -y) again.
  EXPECT_EQ(s.normal_values, (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(s.normal_offsets, (std::vector<float>{0, 0.5f, 0, 0, 0, -0.25f, 0, 0, -0.25f}));
  EXPECT_TRUE(validateG4mf(*bytes, "blend.g4tf").empty());
}

// On the real body: a morph's deltas are exactly what the same target adds to the exported
// positions when it shapes the body at weight 1 (same vertex split, as the OBJ has no normals).
TEST(MorphShipped, DeltasEqualTheTargetAppliedAsAShape) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  const std::string target = "expression/units/caucasian/mouth-open";
  CharacterOptions base_options;
  base_options.rig = "game_engine";
  auto base = loadCharacter(data, base_options);
  ASSERT_TRUE(base.ok()) << base.error().message;
  CharacterOptions shaped_options = base_options;
  shaped_options.shape.targets = {{target, 1.0}};
  auto shaped = loadCharacter(data, shaped_options);
  ASSERT_TRUE(shaped.ok()) << shaped.error().message;

  CharacterExportOptions options;
  options.morphs = {{target, "jawOpen"}, {"nose/nose-base-up", "nose-base-up"}};
  auto with_morphs = exportCharacter(data, *base, {}, options);
  ASSERT_TRUE(with_morphs.ok()) << with_morphs.error().message;
  auto plain_shaped = exportCharacter(data, *shaped, {}, {});
  ASSERT_TRUE(plain_shaped.ok()) << plain_shaped.error().message;
  const tinygltf::Model g = loadGlb(with_morphs->main);
  const tinygltf::Model s = loadGlb(plain_shaped->main);
  const std::vector<float> p0 = attribute(g, "POSITION"), p1 = attribute(s, "POSITION");
  const std::vector<float> n0 = attribute(g, "NORMAL"), n1 = attribute(s, "NORMAL");
  ASSERT_EQ(p0.size(), p1.size());
  ASSERT_EQ(g.meshes[0].primitives[0].targets.size(), 2u);
  const std::vector<float> d = denseTarget(g, g.meshes[0].primitives[0].targets[0].at("POSITION"));
  ASSERT_EQ(d.size(), p0.size());
  std::size_t moved = 0;
  double worst = 0.0;
  for (std::size_t i = 0; i < p0.size(); ++i) {
    worst = std::max(worst, std::abs(double(p0[i]) + d[i] - p1[i]));
    moved += d[i] != 0.0f;
  }
  EXPECT_LT(worst, 2e-7);  // float rounding of the shaped positions only
  EXPECT_GT(moved, 1000u);
  // The NORMAL target: the shaped body's normals (vertices around the moved ones change too).
  const std::vector<float> dn = denseTarget(g, g.meshes[0].primitives[0].targets[0].at("NORMAL"));
  ASSERT_EQ(dn.size(), n0.size());
  double worst_normal = 0.0;
  std::size_t turned = 0;
  for (std::size_t i = 0; i < n0.size(); ++i) {
    worst_normal = std::max(worst_normal, std::abs(double(n0[i]) + dn[i] - n1[i]));
    turned += dn[i] != 0.0f;
  }
  EXPECT_LT(worst_normal, 1e-6);
  EXPECT_GT(turned, moved);
  EXPECT_EQ(g.meshes[0].extras.Get("targetNames").Get(0).Get<std::string>(), "jawOpen");
  EXPECT_EQ(g.meshes[0].extras.Get("targetNames").Get(1).Get<std::string>(), "nose-base-up");
  // The report lists them; an empty name and a missing file are errors.
  ASSERT_EQ(with_morphs->report.morphs.size(), 2u);
  EXPECT_EQ(exportReportJson(with_morphs->report).find("morphs")->size(), 2u);
  auto unnamed = parseMorphSpec(target + "=");
  ASSERT_FALSE(unnamed.ok());
  EXPECT_EQ(unnamed.error().message, "morph \"" + target + "=\": expected PATH or PATH=NAME (PATH a target file, or relative to targets/)");
  // A folder stands for its targets in name order.
  options.morphs = {*parseMorphSpec("expression/units/asian/")};
  auto folder = exportCharacter(data, *base, {}, options);
  ASSERT_TRUE(folder.ok()) << folder.error().message;
  const Json report = exportReportJson(folder->report);
  const Json* listed = report.find("morphs");
  ASSERT_EQ(listed->size(), 34u);
  EXPECT_EQ(listed->items()[0].find("name")->asString(), "eye-left-closure");
  EXPECT_EQ(listed->items()[33].find("name")->asString(), "nose-right-elevation");
  options.morphs = {*parseMorphSpec("expression/none")};
  auto missing = exportCharacter(data, *base, {}, options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "expression/none: no such target file (looked for expression/none{,.target.gz,.target} in ., " +
                                         data.describe() + ", " + data.label("targets") + ")");
}

// With a pose as the bind pose (MPFB's t-pose, plus a turned head), a morph's deltas are what the
// target changes in the posed body: the export of the same character whose mesh carries the
// target (skeleton and skin unchanged), posed the same way, minus the export without it.
TEST(MorphShipped, PosedBindPoseCarriesTheDeltasThroughTheSkinning) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  CharacterOptions co;
  co.rig = "game_engine";
  auto base = loadCharacter(data, co);
  ASSERT_TRUE(base.ok()) << base.error().message;
  const std::string target = "expression/units/caucasian/mouth-open";
  TargetCache cache(data);
  auto t = cache.get(target, base->body().mesh.vertexCount());
  ASSERT_TRUE(t.ok());
  Character moved = *base;
  for (std::size_t k = 0; k < (*t)->vertices.size(); ++k)
    for (std::size_t j = 0; j < 3; ++j) {
      float& p = moved.body().mesh.positions[3 * std::size_t((*t)->vertices[k]) + j];
      p = static_cast<float>(static_cast<double>(p) + (*t)->offsets[3 * k + j]);
    }
  PoseRequest pose;
  pose.pose_file = "game_engine_fk/t-pose.json";
  pose.rotations = {{"head", BoneRotation::Kind::kEulerXyzDegrees, {0, 0, -30, 0}}, {"neck_01", BoneRotation::Kind::kEulerXyzDegrees, {20, 0, 0, 0}}};
  CharacterExportOptions options;
  options.morphs = {*parseMorphSpec(target)};
  auto with_morph = exportCharacter(data, *base, pose, options);
  ASSERT_TRUE(with_morph.ok()) << with_morph.error().message;
  auto expected = exportCharacter(data, moved, pose, {});
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  const tinygltf::Model g = loadGlb(with_morph->main), e = loadGlb(expected->main);
  const std::vector<float> p0 = attribute(g, "POSITION"), p1 = attribute(e, "POSITION");
  const std::vector<float> n0 = attribute(g, "NORMAL"), n1 = attribute(e, "NORMAL");
  ASSERT_EQ(p0.size(), p1.size());
  const auto& targets = g.meshes[0].primitives[0].targets;
  ASSERT_EQ(targets.size(), 1u);
  const std::vector<float> dp = denseTarget(g, targets[0].at("POSITION")), dn = denseTarget(g, targets[0].at("NORMAL"));
  double worst = 0.0, worst_normal = 0.0, largest = 0.0, unposed_gap = 0.0;
  // The deltas turned with the head: the rest-pose deltas differ from them.
  CharacterExportOptions rest_options;
  rest_options.morphs = {*parseMorphSpec(target)};
  auto at_rest = exportCharacter(data, *base, {}, rest_options);
  ASSERT_TRUE(at_rest.ok());
  const tinygltf::Model r = loadGlb(at_rest->main);
  const std::vector<float> dr = denseTarget(r, r.meshes[0].primitives[0].targets[0].at("POSITION"));
  ASSERT_EQ(dr.size(), dp.size());
  std::size_t loose = 0;
  for (std::size_t i = 0; i < p0.size(); ++i) {
    worst = std::max(worst, std::abs(double(p0[i]) + dp[i] - p1[i]));
    const double en = std::abs(double(n0[i]) + dn[i] - n1[i]);
    loose += en > 1e-5;
    worst_normal = std::max(worst_normal, en);
    largest = std::max(largest, std::abs(double(dp[i])));
    unposed_gap = std::max(unposed_gap, std::abs(double(dp[i]) - dr[i]));
  }
  EXPECT_LT(worst, 1e-6);
  // The two sides' posed positions round differently (the skinning kernel in float, here the
  // offset carried in double) by ~1e-7 m; on the lips' millimetre faces that tilts a normal by up
  // to ~1e-4. Elsewhere the normals agree to 1e-5.
  EXPECT_LT(worst_normal, 1e-3);
  std::size_t turned = 0;
  for (float x : dn) turned += x != 0.0f;
  EXPECT_LT(loose * 20, turned) << loose << " of " << turned;
  EXPECT_GT(largest, 0.02);
  EXPECT_GT(unposed_gap, 0.005);  // not the rest-pose deltas: the head turned them
}

// MorphNormals visits only the faces around the moved vertices: its deltas equal, bit for bit,
// the difference of the whole body's normals computed twice.
TEST(MorphShipped, NormalDeltasEqualTheWholeBodyRecomputed) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  auto mesh = loadBaseMesh(data);
  ASSERT_TRUE(mesh.ok()) << mesh.error().message;
  const std::size_t n = mesh->vertexCount();
  TargetCache cache(data);
  MorphNormals normals(*mesh, mesh->positions, 2);
  std::vector<float> base(3 * n), moved_normals(3 * n), deltas;
  vertexNormals(*mesh, mesh->positions, base, 1);
  for (const char* path : {"expression/units/caucasian/mouth-open", "nose/nose-base-up", "expression/units/african/eye-left-closure"}) {
    auto t = cache.get(path, n);
    ASSERT_TRUE(t.ok()) << t.error().message;
    std::vector<float> moved = mesh->positions;
    for (std::size_t k = 0; k < (*t)->vertices.size(); ++k)
      for (std::size_t j = 0; j < 3; ++j) {
        const std::size_t i = 3 * std::size_t((*t)->vertices[k]) + j;
        moved[i] = static_cast<float>(static_cast<double>(mesh->positions[i]) + (*t)->offsets[3 * k + j]);
      }
    vertexNormals(*mesh, moved, moved_normals, 1);
    normals.deltas((*t)->vertices, (*t)->offsets, deltas);
    ASSERT_EQ(deltas.size(), 3 * n);
    std::size_t turned = 0;
    for (std::size_t i = 0; i < 3 * n; ++i) {
      ASSERT_EQ(deltas[i], moved_normals[i] - base[i]) << path << " component " << i;
      turned += deltas[i] != 0.0f;
    }
    EXPECT_GT(turned, 100u) << path;
  }
  // An index beyond the mesh is ignored (as MPFB ignores it); nothing moves, nothing turns.
  normals.deltas(std::vector<std::uint32_t>{static_cast<std::uint32_t>(n)}, std::vector<double>{1, 1, 1}, deltas);
  EXPECT_EQ(deltas, std::vector<float>(3 * n, 0.0f));
}

TEST(CharacterExport, BaseColorParses) {
  auto c = parseBaseColor("0.9,0.7,0.6");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, (std::array<float, 4>{0.9f, 0.7f, 0.6f, 1.0f}));
  c = parseBaseColor("0,1,0.5,0.25");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, (std::array<float, 4>{0.0f, 1.0f, 0.5f, 0.25f}));
  for (const char* bad : {"", "1,1", "1,1,1,1,1", "1,,1", "1,1,2", "1,1,-0.5", "1,1,x", "1,1,nan", "1,1,1 "}) {
    auto st = parseBaseColor(bad);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.error().message, "colour \"" + std::string(bad) + "\": expected R,G,B or R,G,B,A, each from 0 to 1");
    EXPECT_EQ(replaceSubject(st.error(), "--base-color").message,
              "--base-color \"" + std::string(bad) + "\": expected R,G,B or R,G,B,A, each from 0 to 1");
  }
}

}  // namespace
}  // namespace rigfit
