// Helpers shared by the export tests: a test pose on a shipped character, and glTF exports of it
// built as `rigfit export` builds them, read back with tinygltf.
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Geometry>
#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include "rigfit/character.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/posing.hpp"

namespace rigfit::test {

/// A shipped pose (when `pose_file` is not empty) plus XYZ Euler rotations on every third bone
/// (angles from -18 to +18, -16 to +16 and -12 to +12 degrees), so chains, both sides and leaves
/// all move.
inline Pose testPose(const DataSource& data, const Character& c, const std::string& pose_file) {
  PoseRequest request;
  request.pose_file = pose_file;
  const Skeleton& s = c.fit.skeleton;
  for (std::size_t i = 1; i < s.size(); i += 3) {
    const int a = static_cast<int>(i % 7) * 6 - 18, b = static_cast<int>(i % 5) * 8 - 16, g = static_cast<int>(i % 3) * 12 - 12;
    request.rotations.push_back({s.names[i], BoneRotation::Kind::kEulerXyzDegrees, {double(a), double(b), double(g), 0.0}});
  }
  Pose pose;
  std::vector<PoseWarning> warnings;
  const Status st = buildPose(data, c, request, pose, &warnings);
  EXPECT_TRUE(st.ok()) << st.error().message;
  return pose;
}

/// MPFB's data folder has no weights for the default and Rigify rigs. Tests use game_engine's,
/// each group renamed to the bone of the same body part (as tests/export/map_weights.py does for
/// the command-line tests); bones left without a group (metacarpals, palms, face, some spine
/// bones) deform nothing.
inline std::string renamedGameEngineGroup(const std::string& g, bool rigify) {
  static const std::map<std::string, std::pair<std::string, std::string>> centre = {
      {"pelvis", {"root", "spine"}},        {"spine_01", {"spine05", "spine.001"}}, {"spine_02", {"spine03", "spine.002"}},
      {"spine_03", {"spine01", "spine.003"}}, {"neck_01", {"neck01", "spine.004"}},  {"head", {"head", "spine.006"}}};
  static const std::map<std::string, std::pair<std::string, std::string>> limbs = {
      {"clavicle", {"clavicle", "shoulder"}}, {"upperarm", {"upperarm01", "upper_arm"}}, {"lowerarm", {"lowerarm01", "forearm"}},
      {"hand", {"wrist", "hand"}},            {"thigh", {"upperleg01", "thigh"}},        {"calf", {"lowerleg01", "shin"}},
      {"foot", {"foot", "foot"}},             {"ball", {"toe1-1", "toe"}}};
  static const std::map<std::string, std::pair<std::string, std::string>> fingers = {
      {"thumb", {"finger1", "thumb"}}, {"index", {"finger2", "f_index"}}, {"middle", {"finger3", "f_middle"}},
      {"ring", {"finger4", "f_ring"}}, {"pinky", {"finger5", "f_pinky"}}};
  auto pick = [rigify](const std::pair<std::string, std::string>& p) { return rigify ? p.second : p.first; };
  if (auto it = centre.find(g); it != centre.end()) return pick(it->second);
  const std::size_t u = g.find('_');
  const std::string side = g.back() == 'l' ? "L" : "R";
  if (auto it = fingers.find(g.substr(0, u)); it != fingers.end())  // thumb_02_l
    return pick(it->second) + (rigify ? ".0" : "-") + g.substr(u + 2, 1) + "." + side;
  if (auto it = limbs.find(g.substr(0, u)); it != limbs.end()) return pick(it->second) + "." + side;
  ADD_FAILURE() << "no counterpart for game_engine group " << g;
  return g;
}

/// Binds game_engine's renamed weights (renamedGameEngineGroup) to a character loaded without
/// weights (CharacterOptions::weights = "none").
inline void bindRenamedWeights(const std::string& data_dir, Character& c, bool rigify) {
  auto w = readWeights(data_dir + "/rigs/standard/weights.game_engine.json", c.body().mesh.vertexCount());
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<WeightsFile::Group> groups;
  for (auto& g : w->groups)
    if (g.name != "Root") {  // Root carries no weight in game_engine
      g.name = renamedGameEngineGroup(g.name, rigify);
      groups.push_back(std::move(g));
    }
  w->groups = std::move(groups);
  auto skin = bindWeights(*w, c.fit.skeleton, c.rig, c.body().mesh.vertexCount(), &c.binding);
  ASSERT_TRUE(skin.ok()) << skin.error().message;
  ASSERT_TRUE(c.binding.unmapped.empty());
  c.body().skin = std::move(*skin);
  c.has_skin = true;
}

/// A shipped rig's character on the base mesh, skinned with its own weights, or (renamed: 1 for
/// default's, 2 for Rigify's bones) with game_engine's weights renamed to its bones. Check
/// HasFatalFailure() after the call.
inline void loadSkinnedCharacter(const DataSource& data, const std::string& data_dir, const char* rig, int renamed,
                                 std::optional<Character>& out) {
  CharacterOptions o;
  o.rig = rig;
  if (renamed) o.weights = "none";
  auto c = loadCharacter(data, o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  out = std::move(*c);
  if (renamed) bindRenamedWeights(data_dir, *out, renamed == 2);
  ASSERT_TRUE(out->has_skin);
}

/// The glTF bytes `rigfit export --out x.glb [--influences K] [--quantize --weight-bits B]` writes
/// for `model` (its body, meshes[0]); `joints`/`weights`/`quantized` receive the streams it was given.
inline std::string exportGlb(const ExportModel& model, int k, int bits, std::vector<std::uint16_t>& joints,
                             std::vector<float>& weights, std::vector<std::uint16_t>& quantized) {
  GltfSkins skins = gltfSkins(model, k, bits);
  auto files = writeGltf(model, skins.streams, {.container = GltfContainer::kGlb, .rig_name = "test"});
  EXPECT_TRUE(files.ok()) << files.error().message;
  joints = std::move(skins.joints[0]);
  weights = std::move(skins.weights[0]);
  quantized = std::move(skins.quantized_weights[0]);
  return files.ok() ? files->main : std::string();
}

/// A .glb (`binary`) or a .gltf with its buffers embedded, read with tinygltf (no warnings expected).
inline tinygltf::Model loadGltf(const std::string& bytes, bool binary) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string err, warn;
  const bool ok = binary ? loader.LoadBinaryFromMemory(&model, &err, &warn, reinterpret_cast<const unsigned char*>(bytes.data()),
                                                       static_cast<unsigned>(bytes.size()))
                         : loader.LoadASCIIFromString(&model, &err, &warn, bytes.data(), static_cast<unsigned>(bytes.size()), "");
  EXPECT_TRUE(ok) << err;
  EXPECT_TRUE(warn.empty()) << warn;
  return model;
}

inline tinygltf::Model loadGlb(const std::string& bytes) { return loadGltf(bytes, true); }

/// An accessor's data (tightly packed) as T.
template <typename T>
const T* accessorData(const tinygltf::Model& m, int accessor) {
  const tinygltf::Accessor& a = m.accessors[static_cast<std::size_t>(accessor)];
  const tinygltf::BufferView& v = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
  return reinterpret_cast<const T*>(m.buffers[static_cast<std::size_t>(v.buffer)].data.data() + v.byteOffset + a.byteOffset);
}

/// A hand-made skeleton: bone i turned 0.3 i rad about (1, 2, 3) at (0.1 i, -0.2 i, 0.3 i^2), its
/// tail 0.1 above its head, roll 0, length 0.1.
inline Skeleton handSkeleton(std::vector<std::string> names, std::vector<int> parents) {
  Skeleton sk;
  sk.names = std::move(names);
  sk.parents = std::move(parents);
  for (std::size_t i = 0; i < sk.names.size(); ++i) {
    const double k = static_cast<double>(i);
    Eigen::Matrix4d r = Eigen::Matrix4d::Identity();
    r.topLeftCorner<3, 3>() = Eigen::AngleAxisd(0.3 * k, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
    r.topRightCorner<3, 1>() = Eigen::Vector3d(0.1 * k, -0.2 * k, 0.3 * k * k);
    sk.rest.push_back(r);
    sk.heads.push_back(r.topRightCorner<3, 1>());
    sk.tails.push_back(r.topRightCorner<3, 1>() + Eigen::Vector3d(0, 0, 0.1));
    sk.rolls.push_back(0.0);
    sk.lengths.push_back(0.1);
  }
  return sk;
}

/// Element `i`, component `c` of an accessor as a double (normalised integers divided out).
inline double accessorValue(const tinygltf::Model& m, int accessor, std::size_t i, int c) {
  const tinygltf::Accessor& a = m.accessors[static_cast<std::size_t>(accessor)];
  const tinygltf::BufferView& v = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
  const int comps = tinygltf::GetNumComponentsInType(static_cast<std::uint32_t>(a.type));
  const int size = tinygltf::GetComponentSizeInBytes(static_cast<std::uint32_t>(a.componentType));
  const std::size_t stride = v.byteStride ? v.byteStride : static_cast<std::size_t>(comps * size);
  const unsigned char* p = m.buffers[static_cast<std::size_t>(v.buffer)].data.data() + v.byteOffset + a.byteOffset + i * stride +
                           static_cast<std::size_t>(c * size);
  switch (a.componentType) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return a.normalized ? *p / 255.0 : *p;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
      std::uint16_t u;
      std::memcpy(&u, p, 2);
      return a.normalized ? u / 65535.0 : u;
    }
    default: ADD_FAILURE() << "unexpected component type " << a.componentType; return 0.0;
  }
}

/// A node's local matrix from its TRS (or matrix).
inline Eigen::Matrix4d nodeMatrix(const tinygltf::Node& n) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  if (n.matrix.size() == 16) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) m(r, c) = n.matrix[static_cast<std::size_t>(4 * c + r)];
    return m;
  }
  Eigen::Vector3d t = Eigen::Vector3d::Zero(), s = Eigen::Vector3d::Ones();
  Eigen::Quaterniond q = Eigen::Quaterniond::Identity();
  if (n.translation.size() == 3) t = Eigen::Vector3d(n.translation[0], n.translation[1], n.translation[2]);
  if (n.rotation.size() == 4) q = Eigen::Quaterniond(n.rotation[3], n.rotation[0], n.rotation[1], n.rotation[2]);
  if (n.scale.size() == 3) s = Eigen::Vector3d(n.scale[0], n.scale[1], n.scale[2]);
  m.topLeftCorner<3, 3>() = q.toRotationMatrix() * s.asDiagonal();
  m.topRightCorner<3, 1>() = t;
  return m;
}

/// Global matrices of every node of the default scene (parents from `children`).
inline std::vector<Eigen::Matrix4d> nodeGlobals(const tinygltf::Model& m) {
  std::vector<Eigen::Matrix4d> g(m.nodes.size(), Eigen::Matrix4d::Identity());
  std::vector<int> stack;
  for (int n : m.scenes[static_cast<std::size_t>(std::max(m.defaultScene, 0))].nodes) {
    g[static_cast<std::size_t>(n)] = nodeMatrix(m.nodes[static_cast<std::size_t>(n)]);
    stack.push_back(n);
  }
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    for (int c : m.nodes[static_cast<std::size_t>(n)].children) {
      g[static_cast<std::size_t>(c)] = g[static_cast<std::size_t>(n)] * nodeMatrix(m.nodes[static_cast<std::size_t>(c)]);
      stack.push_back(c);
    }
  }
  return g;
}

/// The parent node of every node (-1 for scene roots).
inline std::vector<int> nodeParents(const tinygltf::Model& m) {
  std::vector<int> p(m.nodes.size(), -1);
  for (std::size_t n = 0; n < m.nodes.size(); ++n)
    for (int c : m.nodes[n].children) p[static_cast<std::size_t>(c)] = static_cast<int>(n);
  return p;
}

/// The skin's inverse bind matrices.
inline std::vector<Eigen::Matrix4d> inverseBindMatrices(const tinygltf::Model& m) {
  const tinygltf::Skin& skin = m.skins[0];
  std::vector<Eigen::Matrix4d> out(skin.joints.size());
  for (std::size_t j = 0; j < out.size(); ++j)
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) out[j](r, c) = accessorValue(m, skin.inverseBindMatrices, j, 4 * c + r);
  return out;
}

// An export vertex's influences as G4MF stores them: zero weights dropped, divided by their sum,
// strongest first (ties: the lower group first); none when the sum is <= 1e-4.
inline std::vector<std::pair<std::uint32_t, float>> storedInfluences(const Skin& s, std::size_t e) {
  std::vector<std::pair<std::uint32_t, float>> out;
  double total = 0.0;
  for (std::uint32_t k = s.offsets[e]; k < s.offsets[e + 1]; ++k) {
    total += s.weights[k];
    if (s.weights[k] > 0.0f) out.emplace_back(s.bones[k], s.weights[k]);
  }
  if (total <= 1e-4) return {};
  for (auto& [b, w] : out) w = static_cast<float>(w / total);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  return out;
}

}  // namespace rigfit::test
