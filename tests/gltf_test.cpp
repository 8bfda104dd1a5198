// glTF writer: read back with an independent reader (tinygltf) and checked value by value.
#include <array>
#include <cmath>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include "export_test_util.hpp"
#include "rigfit/gltf.hpp"

namespace rigfit {
namespace {

// Two bones up +Y (root at the origin, child at y = 1), a quad of 4 vertices.
ExportModel twoBoneQuad() {
  ExportModel m;
  m.meshes.emplace_back();
  m.names = {"Root", "Tip"};
  m.source_names = {"root", "tip.L"};
  m.parents = {-1, 0};
  Eigen::Matrix4d g0 = Eigen::Matrix4d::Identity(), g1 = Eigen::Matrix4d::Identity();
  g1(1, 3) = 1.0;
  Eigen::Matrix3d r = Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitY()).toRotationMatrix();
  g1.topLeftCorner<3, 3>() = r;
  m.bind_global = {g0, g1};
  m.bind_local = {g0, g1};
  m.lengths = {1.0, 0.5};
  m.rolls = {0.0, 0.3};
  m.heads = {Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(0, 1, 0)};
  m.tails = {Eigen::Vector3d(0, 1, 0), Eigen::Vector3d(0, 1.5, 0)};
  m.meshes[0].positions = {0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 0};
  m.meshes[0].normals = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
  m.meshes[0].uvs = {0, 0, 1, 0, 1, 1, 0, 1};
  m.meshes[0].triangles = {0, 1, 2, 0, 2, 3};
  m.meshes[0].source_vertex = {0, 1, 2, 3};
  return m;
}

using test::accessorData;

tinygltf::Model load(const std::string& bytes, bool binary) { return test::loadGltf(bytes, binary); }

TEST(Gltf, ReadBackJointsIbmsAndWeights) {
  const ExportModel m = twoBoneQuad();
  const std::vector<std::uint16_t> joints = {0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<float> weights = {0.75f, 0.25f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};  // vertex 3 unweighted
  for (GltfContainer c : {GltfContainer::kGlb, GltfContainer::kGltfEmbedded}) {
    auto files = writeGltf(m, {.influences = 4, .joints = joints, .weights = weights}, {.container = c, .rig_name = "test"});
    ASSERT_TRUE(files.ok()) << files.error().message;
    const tinygltf::Model g = load(files->main, c == GltfContainer::kGlb);
    ASSERT_EQ(g.skins.size(), 1u);
    const tinygltf::Skin& skin = g.skins[0];
    ASSERT_EQ(skin.joints.size(), 2u);
    EXPECT_EQ(g.nodes[static_cast<std::size_t>(skin.joints[0])].name, "Root");
    EXPECT_EQ(g.nodes[static_cast<std::size_t>(skin.joints[1])].name, "Tip");
    // Inverse bind matrices invert the bone globals (column-major floats).
    const float* ibm = accessorData<float>(g, skin.inverseBindMatrices);
    Eigen::Matrix4f ibm1;
    for (int c2 = 0; c2 < 4; ++c2)
      for (int r = 0; r < 4; ++r) ibm1(r, c2) = ibm[16 + 4 * c2 + r];
    EXPECT_LT((ibm1.cast<double>() * m.bind_global[1] - Eigen::Matrix4d::Identity()).norm(), 1e-6);
    // The child's TRS reproduces its local matrix.
    const tinygltf::Node& tip = g.nodes[static_cast<std::size_t>(skin.joints[1])];
    ASSERT_EQ(tip.translation.size(), 3u);
    EXPECT_DOUBLE_EQ(tip.translation[1], 1.0);
    ASSERT_EQ(tip.rotation.size(), 4u);
    EXPECT_NEAR(tip.rotation[1], std::sin(0.15), 1e-15);
    EXPECT_NEAR(tip.rotation[3], std::cos(0.15), 1e-15);
    // Weights, and the unweighted vertex bound fully to the first joint.
    const tinygltf::Primitive& p = g.meshes[0].primitives[0];
    const float* w = accessorData<float>(g, p.attributes.at("WEIGHTS_0"));
    EXPECT_EQ(w[0], 0.75f);
    EXPECT_EQ(w[1], 0.25f);
    EXPECT_EQ(w[12], 1.0f);
    const std::uint8_t* j = accessorData<std::uint8_t>(g, p.attributes.at("JOINTS_0"));
    EXPECT_EQ(j[1], 1);
    EXPECT_EQ(j[4], 1);
    // UVs flipped to glTF's top-left origin; POSITION has exact min/max.
    const float* uv = accessorData<float>(g, p.attributes.at("TEXCOORD_0"));
    EXPECT_EQ(uv[1], 1.0f);
    EXPECT_EQ(uv[5], 0.0f);
    const tinygltf::Accessor& pos = g.accessors[static_cast<std::size_t>(p.attributes.at("POSITION"))];
    EXPECT_EQ(pos.maxValues, (std::vector<double>{1, 2, 0}));
    EXPECT_EQ(g.nodes[static_cast<std::size_t>(skin.joints[1])].extras.Get("name").Get<std::string>(), "tip.L");
    EXPECT_EQ(g.asset.generator.rfind("rigfit ", 0), 0u);
    // skin.skeleton is the single root joint; the tail is an object (no arrays in node extras).
    EXPECT_EQ(skin.skeleton, skin.joints[0]);
    const tinygltf::Value& tail = tip.extras.Get("tail");
    ASSERT_TRUE(tail.IsObject());
    EXPECT_EQ(tail.Get("x").GetNumberAsDouble(), 0.0);
    EXPECT_EQ(tail.Get("y").GetNumberAsDouble(), 1.5);
    EXPECT_EQ(tail.Get("z").GetNumberAsDouble(), 0.0);
    for (const tinygltf::Node& n : g.nodes)
      for (const std::string& key : n.extras.Keys()) EXPECT_FALSE(n.extras.Get(key).IsArray()) << n.name << " extras." << key;
  }
}

// Several root bones: skin.skeleton is the Armature node above them (their closest common root).
TEST(Gltf, SkeletonRootWithSeveralRootBones) {
  ExportModel m = twoBoneQuad();
  m.parents = {-1, -1};
  const std::vector<std::uint16_t> joints(16, 0);
  const std::vector<float> weights = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  auto files = writeGltf(m, {.influences = 4, .joints = joints, .weights = weights}, {});
  ASSERT_TRUE(files.ok()) << files.error().message;
  const tinygltf::Model g = load(files->main, true);
  ASSERT_EQ(g.skins.size(), 1u);
  EXPECT_EQ(g.skins[0].skeleton, 0);
  EXPECT_EQ(g.nodes[0].name, "Armature");
  EXPECT_EQ(g.nodes[0].children, (std::vector<int>{1, 2}));
}

TEST(Gltf, QuantizedWeightsAndEightInfluences) {
  const ExportModel m = twoBoneQuad();
  std::vector<std::uint16_t> joints(4 * 8, 0), q(4 * 8, 0);
  for (std::size_t v = 0; v < 4; ++v) {
    joints[8 * v + 1] = 1;
    q[8 * v] = 200;
    q[8 * v + 1] = 55;
  }
  auto files = writeGltf(m, {.influences = 8, .joints = joints, .weight_bits = 8, .quantized_weights = q}, {});
  ASSERT_TRUE(files.ok()) << files.error().message;
  const tinygltf::Model g = load(files->main, true);
  const tinygltf::Primitive& p = g.meshes[0].primitives[0];
  ASSERT_TRUE(p.attributes.count("JOINTS_1") && p.attributes.count("WEIGHTS_1"));
  const tinygltf::Accessor& w = g.accessors[static_cast<std::size_t>(p.attributes.at("WEIGHTS_0"))];
  EXPECT_TRUE(w.normalized);
  EXPECT_EQ(w.componentType, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE);
  const std::uint8_t* wd = accessorData<std::uint8_t>(g, p.attributes.at("WEIGHTS_0"));
  EXPECT_EQ(wd[0] + wd[1] + wd[2] + wd[3], 255);
}

// The body gets a non-metallic material (glTF's default material is fully metallic).
TEST(Gltf, BodyMaterialIsNotMetallic) {
  ExportModel m = twoBoneQuad();
  const std::vector<std::uint16_t> joints(16, 0);
  const std::vector<float> weights = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  GltfOptions options{.container = GltfContainer::kGlb, .rig_name = "t"};
  for (const std::array<float, 4> color : {std::array<float, 4>{0.8f, 0.8f, 0.8f, 1.0f}, std::array<float, 4>{0.9f, 0.5f, 0.25f, 0.5f}}) {
    m.meshes[0].material.base_color = color;
    m.meshes[0].material.alpha_mode = color[3] < 1.0f ? AlphaMode::kBlend : AlphaMode::kOpaque;
    auto files = writeGltf(m, {.influences = 4, .joints = joints, .weights = weights}, options);
    ASSERT_TRUE(files.ok()) << files.error().message;
    const tinygltf::Model g = load(files->main, true);
    ASSERT_EQ(g.materials.size(), 1u);
    EXPECT_EQ(g.meshes[0].primitives[0].material, 0);
    const tinygltf::Material& mat = g.materials[0];
    EXPECT_EQ(mat.name, "Body");
    EXPECT_EQ(mat.pbrMetallicRoughness.metallicFactor, 0.0);
    EXPECT_EQ(mat.pbrMetallicRoughness.roughnessFactor, 0.5);
    ASSERT_EQ(mat.pbrMetallicRoughness.baseColorFactor.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(mat.pbrMetallicRoughness.baseColorFactor[i], double(color[i]));
    EXPECT_EQ(mat.alphaMode, color[3] < 1.0f ? "BLEND" : "OPAQUE");
  }
  m.meshes[0].material.base_color = {1.5f, 0.0f, 0.0f, 1.0f};
  EXPECT_FALSE(writeGltf(m, {.influences = 4, .joints = joints, .weights = weights}, options).ok());
}

TEST(Gltf, DeterministicBytes) {
  const ExportModel m = twoBoneQuad();
  const std::vector<std::uint16_t> joints(16, 0);
  std::vector<float> weights(16, 0.0f);
  for (int v = 0; v < 4; ++v) weights[4 * v] = 1.0f;
  auto a = writeGltf(m, {.joints = joints, .weights = weights}, {});
  auto b = writeGltf(m, {.joints = joints, .weights = weights}, {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->main, b->main);
  EXPECT_EQ(a->main.substr(0, 4), "glTF");
  EXPECT_EQ(a->main.size() % 4, 0u);
}

}  // namespace
}  // namespace rigfit
