// glTF 2.0 writer (binary .glb or text .gltf) for a skinned ExportModel.
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/SVD>

#include "core/base64.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/json.hpp"
#include "rigfit/version.hpp"

namespace rigfit {
namespace {

constexpr int kFloat = 5126, kUnsignedByte = 5121, kUnsignedShort = 5123, kUnsignedInt = 5125;
constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;

// The binary buffer, built in place: each stream is written straight into its bufferView. For a
// .glb the same string then receives the header and JSON in front (one move of the bytes instead
// of a copy into a new file image).
class BufferBuilder {
 public:
  // Room for `count` values of T, aligned to 4, as a new bufferView; returns its index. Its bytes
  // are at(index) (valid until the next view).
  // With `from`, the bytes are appended from there (no zero fill first).
  template <typename T>
  int view(std::size_t count, int target, const T* from = nullptr) {
    while (bin_.size() % 4) bin_.push_back('\0');
    const std::size_t offset = bin_.size(), size = count * sizeof(T);
    Json v = Json::object();
    v.set("buffer", 0);
    v.set("byteOffset", static_cast<std::int64_t>(offset));
    v.set("byteLength", static_cast<std::int64_t>(size));
    if (target) v.set("target", target);
    if (from)
      bin_.append(reinterpret_cast<const char*>(from), size);
    else
      bin_.resize(offset + size);
    views_.push(std::move(v));
    offsets_.push_back(offset);
    return static_cast<int>(offsets_.size() - 1);
  }
  template <typename T>
  T* at(int view) {  // offsets are multiples of 4 and sizeof(T) <= 4: aligned for T
    return reinterpret_cast<T*>(bin_.data() + offsets_[static_cast<std::size_t>(view)]);
  }
  template <typename T>
  int copy(const std::vector<T>& data, int target) {
    return view<T>(data.size(), target, data.empty() ? nullptr : data.data());
  }
  // view < 0: no bufferView (all zeros, unless sparse values are added).
  int accessor(int view, int component_type, std::size_t count, const char* type, bool normalized = false) {
    Json a = Json::object();
    if (view >= 0) a.set("bufferView", view);
    a.set("componentType", component_type);
    if (normalized) a.set("normalized", true);
    a.set("count", static_cast<std::int64_t>(count));
    a.set("type", type);
    accessors_.push(std::move(a));
    return static_cast<int>(accessors_.size() - 1);
  }
  Json& lastAccessor() { return accessors_.items().back(); }
  std::string& bin() { return bin_; }
  void reserve(std::size_t bytes) { bin_.reserve(bytes); }
  Json views_ = Json::array(), accessors_ = Json::array();

 private:
  std::string bin_;
  std::vector<std::size_t> offsets_;
};

Json numbers(std::initializer_list<double> v) {
  Json a = Json::array();
  for (double x : v) a.push(x);
  return a;
}

struct Trs {
  Eigen::Vector3d t;
  Eigen::Quaterniond r;
  Eigen::Vector3d s;
  Eigen::Matrix4d matrix() const {
    Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
    m.topLeftCorner<3, 3>() = r.toRotationMatrix() * s.asDiagonal();
    m.topRightCorner<3, 1>() = t;
    return m;
  }
};

// Rest transforms are rotations up to Blender's own rounding near -Y; the polar decomposition
// gives the nearest rotation and the column lengths the scale.
// Set `set` (JOINTS_set, WEIGHTS_set) of every vertex's k influences (k per vertex in `joints`
// and `weights`, heaviest first): slots whose stored weight is 0 point at joint 0, as the
// validator expects, and a vertex with no weight at all gets `one` on joint 0 in set 0. False
// when a joint is not below nb.
template <typename J, typename W, typename S>
bool fillInfluenceSet(std::size_t nv, int k, int set, const std::uint16_t* joints, const S* weights, W one, std::size_t nb,
                      J* jout, W* wout) {
  const auto kk = static_cast<std::size_t>(k), s0 = 4 * static_cast<std::size_t>(set);
  for (std::size_t v = 0; v < nv; ++v) {
    const S* w = weights + v * kk;
    bool weighted = false;
    for (std::size_t c = 0; c < kk; ++c) weighted = weighted || w[c] != S(0);
    for (std::size_t c = 0; c < 4; ++c) {
      const std::size_t i = v * kk + s0 + c, o = 4 * v + c;
      const bool first = !weighted && set == 0 && c == 0;
      const std::uint16_t joint = weighted && weights[i] != S(0) ? joints[i] : 0;
      if (joint >= nb) return false;
      jout[o] = static_cast<J>(joint);
      wout[o] = first ? one : weighted ? static_cast<W>(weights[i]) : W(0);
    }
  }
  return true;
}

Trs decompose(const Eigen::Matrix4d& m) {
  Trs out;
  out.t = m.topRightCorner<3, 1>();
  const Eigen::Matrix3d a = m.topLeftCorner<3, 3>();
  out.s = Eigen::Vector3d(a.col(0).norm(), a.col(1).norm(), a.col(2).norm());
  const Eigen::Matrix3d unscaled = a * out.s.cwiseInverse().asDiagonal();
  Eigen::JacobiSVD<Eigen::Matrix3d> svd(unscaled, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d r = svd.matrixU() * svd.matrixV().transpose();
  if (r.determinant() < 0) r = -r;
  out.r = Eigen::Quaterniond(r).normalized();
  if (out.r.w() < 0) out.r.coeffs() *= -1.0;
  for (int k = 0; k < 3; ++k)
    if (std::abs(out.s[k] - 1.0) < 1e-9) out.s[k] = 1.0;
  return out;
}

// One mesh's streams (positions, normals, UVs, joints and weights, indices, morph targets) into
// `b`, and its glTF mesh (one primitive with material `material`). Joint indices are checked
// against `nb`.
Expected<Json> writeMesh(BufferBuilder& b, const ExportMesh& mesh, const GltfSkinStreams& skin, std::size_t nb, int material) {
  const std::size_t nv = mesh.vertexCount();
  const int k = skin.influences;
  // Vertex streams.
  const int pos_acc = b.accessor(b.copy(mesh.positions, kArrayBuffer), kFloat, nv, "VEC3");
  float lo[3] = {std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
  float hi[3] = {-lo[0], -lo[1], -lo[2]};
  for (std::size_t v = 0; v < nv; ++v)
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], mesh.positions[3 * v + static_cast<std::size_t>(c)]);
      hi[c] = std::max(hi[c], mesh.positions[3 * v + static_cast<std::size_t>(c)]);
    }
  b.lastAccessor().set("min", numbers({lo[0], lo[1], lo[2]}));
  b.lastAccessor().set("max", numbers({hi[0], hi[1], hi[2]}));
  const int nrm_acc = mesh.normals.empty() ? -1 : b.accessor(b.copy(mesh.normals, kArrayBuffer), kFloat, nv, "VEC3");
  int uv_acc = -1;
  if (!mesh.uvs.empty()) {
    const int view = b.view<float>(mesh.uvs.size(), kArrayBuffer);
    float* uv = b.at<float>(view);
    for (std::size_t i = 0; i < mesh.uvs.size(); i += 2) {
      uv[i] = mesh.uvs[i];
      uv[i + 1] = 1.0f - mesh.uvs[i + 1];  // OBJ origin bottom-left, glTF top-left
    }
    uv_acc = b.accessor(view, kFloat, nv, "VEC2");
  }
  // Skin streams, in sets of four. Vertices with no weight follow the first joint fully.
  const bool small_joints = nb <= 256;
  int joint_acc[2] = {-1, -1}, weight_acc[2] = {-1, -1};
  for (int set = 0; set < k / 4; ++set) {
    const int jview = small_joints ? b.view<std::uint8_t>(4 * nv, kArrayBuffer) : b.view<std::uint16_t>(4 * nv, kArrayBuffer);
    const int wview = skin.weight_bits == 8    ? b.view<std::uint8_t>(4 * nv, kArrayBuffer)
                      : skin.weight_bits == 16 ? b.view<std::uint16_t>(4 * nv, kArrayBuffer)
                                               : b.view<float>(4 * nv, kArrayBuffer);
    std::uint8_t* j8 = b.at<std::uint8_t>(jview);
    std::uint16_t* j16 = b.at<std::uint16_t>(jview);
    // One loop per joint and weight format (the formats do not change inside a stream).
    const auto withJoints = [&](auto* wout, const auto* weights, auto one) {
      return small_joints ? fillInfluenceSet(nv, k, set, skin.joints.data(), weights, one, nb, j8, wout)
                          : fillInfluenceSet(nv, k, set, skin.joints.data(), weights, one, nb, j16, wout);
    };
    const bool in_range = skin.weight_bits == 8    ? withJoints(b.at<std::uint8_t>(wview), skin.quantized_weights.data(), std::uint8_t{255})
                          : skin.weight_bits == 16 ? withJoints(b.at<std::uint16_t>(wview), skin.quantized_weights.data(), std::uint16_t{65535})
                                                   : withJoints(b.at<float>(wview), skin.weights.data(), 1.0f);
    if (!in_range) return makeError(ErrorCode::kRange, "glTF: joint index beyond the skeleton");
    joint_acc[set] = b.accessor(jview, small_joints ? kUnsignedByte : kUnsignedShort, nv, "VEC4");
    weight_acc[set] = skin.weight_bits == 8    ? b.accessor(wview, kUnsignedByte, nv, "VEC4", true)
                      : skin.weight_bits == 16 ? b.accessor(wview, kUnsignedShort, nv, "VEC4", true)
                                               : b.accessor(wview, kFloat, nv, "VEC4");
  }
  // Indices.
  int idx_acc;
  if (nv <= 65535) {
    const int view = b.view<std::uint16_t>(mesh.triangles.size(), kElementArrayBuffer);
    std::uint16_t* idx = b.at<std::uint16_t>(view);
    for (std::size_t i = 0; i < mesh.triangles.size(); ++i) idx[i] = static_cast<std::uint16_t>(mesh.triangles[i]);
    idx_acc = b.accessor(view, kUnsignedShort, mesh.triangles.size(), "SCALAR");
  } else {
    idx_acc = b.accessor(b.copy(mesh.triangles, kElementArrayBuffer), kUnsignedInt, mesh.triangles.size(), "SCALAR");
  }

  // Morph targets: sparse POSITION deltas (zero where a target does not move a vertex), with the
  // bounds over every vertex, zeros included, as the specification requires.
  std::vector<std::pair<int, int>> morph_acc;  // POSITION and NORMAL (-1: none) accessors
  for (const ExportMorph& morph : mesh.morphs) {
    const std::size_t count = morph.vertices.size();
    float mlo[3] = {0.0f, 0.0f, 0.0f}, mhi[3] = {0.0f, 0.0f, 0.0f};
    for (std::size_t i = 0; i < count; ++i)
      for (std::size_t c = 0; c < 3; ++c) {
        mlo[c] = std::min(mlo[c], morph.deltas[3 * i + c]);
        mhi[c] = std::max(mhi[c], morph.deltas[3 * i + c]);
      }
    const int acc = b.accessor(-1, kFloat, nv, "VEC3");
    Json& a = b.lastAccessor();
    a.set("min", numbers({mlo[0], mlo[1], mlo[2]}));
    a.set("max", numbers({mhi[0], mhi[1], mhi[2]}));
    int normal_acc = -1;
    if (count > 0) {
      int index_view;
      if (nv <= 65535) {
        index_view = b.view<std::uint16_t>(count, 0);
        std::uint16_t* out = b.at<std::uint16_t>(index_view);
        for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<std::uint16_t>(morph.vertices[i]);
      } else {
        index_view = b.copy(morph.vertices, 0);
      }
      // The NORMAL target shares the indices' view.
      const auto sparse = [&](const std::vector<float>& values) {
        Json sp = Json::object();
        sp.set("count", static_cast<std::int64_t>(count));
        Json indices = Json::object();
        indices.set("bufferView", index_view);
        indices.set("componentType", nv <= 65535 ? kUnsignedShort : kUnsignedInt);
        sp.set("indices", std::move(indices));
        Json vals = Json::object();
        vals.set("bufferView", b.copy(values, 0));
        sp.set("values", std::move(vals));
        return sp;
      };
      b.accessors_.items()[static_cast<std::size_t>(acc)].set("sparse", sparse(morph.deltas));
      if (!morph.normal_deltas.empty()) {
        normal_acc = b.accessor(-1, kFloat, nv, "VEC3");
        b.lastAccessor().set("sparse", sparse(morph.normal_deltas));
      }
    }
    morph_acc.emplace_back(acc, normal_acc);
  }

  Json attributes = Json::object();
  attributes.set("POSITION", pos_acc);
  if (nrm_acc >= 0) attributes.set("NORMAL", nrm_acc);
  if (uv_acc >= 0) attributes.set("TEXCOORD_0", uv_acc);
  for (int set = 0; set < k / 4; ++set) {
    attributes.set("JOINTS_" + std::to_string(set), joint_acc[set]);
    attributes.set("WEIGHTS_" + std::to_string(set), weight_acc[set]);
  }
  Json primitive = Json::object();
  primitive.set("attributes", std::move(attributes));
  primitive.set("indices", idx_acc);
  primitive.set("mode", 4);
  primitive.set("material", material);
  if (!morph_acc.empty()) {
    Json targets = Json::array();
    for (const auto& [position, normal] : morph_acc) {
      Json t = Json::object();
      t.set("POSITION", position);
      if (normal >= 0) t.set("NORMAL", normal);
      targets.push(std::move(t));
    }
    primitive.set("targets", std::move(targets));
  }
  Json primitives = Json::array();
  primitives.push(std::move(primitive));
  Json out = Json::object();
  out.set("name", mesh.name);
  out.set("primitives", std::move(primitives));
  if (!morph_acc.empty()) {
    // Default weights 0; the names in extras.targetNames, the convention Blender, three.js,
    // Babylon.js and Unity's importers read.
    Json weights = Json::array(), names = Json::array();
    for (const ExportMorph& morph : mesh.morphs) {
      weights.push(0.0);
      names.push(morph.name);
    }
    out.set("weights", std::move(weights));
    Json extras = Json::object();
    extras.set("targetNames", std::move(names));
    out.set("extras", std::move(extras));
  }
  return out;
}

// A mesh's material as glTF's metallic-roughness material.
Json material(const ExportMaterial& m) {
  Json pbr = Json::object();
  const auto& c = m.base_color;
  pbr.set("baseColorFactor", numbers({c[0], c[1], c[2], c[3]}));
  pbr.set("metallicFactor", m.metallic);
  pbr.set("roughnessFactor", m.roughness);
  Json out = Json::object();
  out.set("name", m.name);
  out.set("pbrMetallicRoughness", std::move(pbr));
  if (m.alpha_mode == AlphaMode::kBlend) out.set("alphaMode", "BLEND");
  if (m.alpha_mode == AlphaMode::kMask) {
    out.set("alphaMode", "MASK");
    out.set("alphaCutoff", m.alpha_cutoff);
  }
  if (m.double_sided) out.set("doubleSided", true);
  return out;
}

}  // namespace

Expected<GltfFiles> writeGltf(const ExportModel& model, std::span<const GltfSkinStreams> skins, const GltfOptions& options) {
  RIGFIT_TRY(validateExportModel(model));
  const std::size_t nb = model.names.size(), nm = model.meshes.size();
  if (nb == 0) return makeError(ErrorCode::kUsage, "glTF: the skeleton has no bones");
  if (nm == 0) return makeError(ErrorCode::kUsage, "glTF: the model has no meshes");
  if (skins.size() != nm)
    return makeError(ErrorCode::kUsage, "glTF: " + std::to_string(skins.size()) + " skin streams for " + std::to_string(nm) + " meshes");
  // Every stream, each padded to 4: positions, normals, UVs, joints (up to 2 bytes) and weights
  // (up to 4 bytes) per influence, indices, inverse bind matrices; and room for the .glb's
  // header and JSON in front (about 300 bytes a bone).
  std::size_t bytes = 64 * nb + 64 + (options.container == GltfContainer::kGlb ? 4096 + 512 * nb : 0);
  for (std::size_t m = 0; m < nm; ++m) {
    const ExportMesh& mesh = model.meshes[m];
    const GltfSkinStreams& skin = skins[m];
    const std::size_t nv = mesh.vertexCount();
    const auto k = static_cast<std::size_t>(skin.influences);
    const std::string where = "glTF: mesh \"" + mesh.name + "\": ";
    if (k != 4 && k != 8) return makeError(ErrorCode::kUsage, where + "influences must be 4 or 8");
    if (skin.joints.size() != nv * k || (skin.weight_bits == 0 ? skin.weights.size() : skin.quantized_weights.size()) != nv * k)
      return makeError(ErrorCode::kUsage, where + "skin streams do not match the vertex count");
    if (skin.weight_bits != 0 && skin.weight_bits != 8 && skin.weight_bits != 16)
      return makeError(ErrorCode::kUsage, where + "quantised weights must have 8 or 16 bits");
    if (nv == 0) return makeError(ErrorCode::kUsage, where + "the mesh has no vertices");
    std::size_t morph_bytes = 0;  // sparse indices (up to 4 bytes), position and normal deltas; JSON
    for (const ExportMorph& morph : mesh.morphs) morph_bytes += 28 * morph.vertices.size() + 8 + 600;
    bytes += nv * (12 + 12 + 8 + 6 * k) + 4 * mesh.triangles.size() + morph_bytes;
  }

  BufferBuilder b;
  b.reserve(bytes);
  Json meshes = Json::array();
  for (std::size_t m = 0; m < nm; ++m) {
    auto mesh = writeMesh(b, model.meshes[m], skins[m], nb, static_cast<int>(m));
    if (!mesh) return mesh.error();
    meshes.push(std::move(*mesh));
  }

  // Bones: TRS relative to the parent; inverse bind matrices from exactly those TRS.
  Json nodes = Json::array();
  Json armature = Json::object();
  armature.set("name", "Armature");
  Json armature_children = Json::array();
  for (std::size_t i = 0; i < nb; ++i)
    if (model.parents[i] < 0) armature_children.push(static_cast<std::int64_t>(1 + i));
  armature.set("children", std::move(armature_children));
  nodes.push(std::move(armature));
  std::vector<Eigen::Matrix4d> global(nb);
  std::vector<Json> bone_nodes(nb);
  for (std::size_t i = 0; i < nb; ++i) {
    const Trs trs = decompose(model.bind_local[i]);
    const int p = model.parents[i];
    global[i] = p < 0 ? trs.matrix() : Eigen::Matrix4d(global[static_cast<std::size_t>(p)] * trs.matrix());
    Json n = Json::object();
    n.set("name", model.names[i]);
    if (trs.t != Eigen::Vector3d::Zero()) n.set("translation", numbers({trs.t.x(), trs.t.y(), trs.t.z()}));
    if (!trs.r.coeffs().isApprox(Eigen::Vector4d(0, 0, 0, 1), 0.0))
      n.set("rotation", numbers({trs.r.x(), trs.r.y(), trs.r.z(), trs.r.w()}));
    if (trs.s != Eigen::Vector3d::Ones()) n.set("scale", numbers({trs.s.x(), trs.s.y(), trs.s.z()}));
    Json extras = Json::object();
    if (!model.source_names.empty()) extras.set("name", model.source_names[i]);
    if (!model.tails.empty()) {
      // An object, not an array: Assimp's glTF importer (5.2) aborts on arrays in node extras.
      Json tail = Json::object();
      tail.set("x", model.tails[i].x());
      tail.set("y", model.tails[i].y());
      tail.set("z", model.tails[i].z());
      extras.set("tail", std::move(tail));
    }
    if (!model.rolls.empty()) extras.set("roll", model.rolls[i]);
    extras.set("length", model.lengths[i]);
    n.set("extras", std::move(extras));
    bone_nodes[i] = std::move(n);
  }
  for (std::size_t i = 0; i < nb; ++i) {
    Json children = Json::array();
    for (std::size_t c = 0; c < nb; ++c)
      if (model.parents[c] == static_cast<int>(i)) children.push(static_cast<std::int64_t>(1 + c));
    if (children.size()) bone_nodes[i].set("children", std::move(children));
    nodes.push(std::move(bone_nodes[i]));
  }
  std::vector<float> ibm;
  ibm.reserve(16 * nb);
  for (std::size_t i = 0; i < nb; ++i) {
    const Eigen::Matrix4d inv = global[i].inverse();
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) ibm.push_back(static_cast<float>(r == 3 ? (c == 3 ? 1.0 : 0.0) : inv(r, c)));  // column-major
  }
  const int ibm_acc = b.accessor(b.copy(ibm, 0), kFloat, nb, "MAT4");

  for (std::size_t m = 0; m < nm; ++m) {
    Json node = Json::object();
    node.set("name", model.meshes[m].name);
    node.set("mesh", static_cast<std::int64_t>(m));
    node.set("skin", 0);
    nodes.push(std::move(node));
  }

  Json joints = Json::array();
  for (std::size_t i = 0; i < nb; ++i) joints.push(static_cast<std::int64_t>(1 + i));
  Json skin_json = Json::object();
  skin_json.set("name", "Armature");
  skin_json.set("inverseBindMatrices", ibm_acc);
  // The skeleton root: the top joint (bone 0: parents come first), or with several root bones the
  // Armature node above them (their closest common root, as glTF asks). Tools that flatten the
  // node hierarchy keep the joint.
  const bool one_root = std::count(model.parents.begin(), model.parents.end(), kNoParent) == 1;
  skin_json.set("skeleton", one_root ? 1 : 0);
  skin_json.set("joints", std::move(joints));

  Json doc = Json::object();
  Json asset = Json::object();
  asset.set("version", "2.0");
  asset.set("generator", std::string("rigfit ") + RIGFIT_VERSION_STRING);
  if (options.asset_extras.isObject() && options.asset_extras.size()) asset.set("extras", options.asset_extras);
  doc.set("asset", std::move(asset));
  doc.set("scene", 0);
  Json scene = Json::object();
  scene.set("name", "Scene");
  Json scene_nodes = Json::array();
  scene_nodes.push(0);
  for (std::size_t m = 0; m < nm; ++m) scene_nodes.push(static_cast<std::int64_t>(1 + nb + m));
  scene.set("nodes", std::move(scene_nodes));
  if (!options.rig_name.empty()) {
    Json extras = Json::object();
    extras.set("rig", options.rig_name);
    scene.set("extras", std::move(extras));
  }
  Json scenes = Json::array();
  scenes.push(std::move(scene));
  doc.set("scenes", std::move(scenes));
  doc.set("nodes", std::move(nodes));
  doc.set("meshes", std::move(meshes));
  Json materials = Json::array();
  for (const ExportMesh& mesh : model.meshes) materials.push(material(mesh.material));
  doc.set("materials", std::move(materials));
  Json skins_json = Json::array();
  skins_json.push(std::move(skin_json));
  doc.set("skins", std::move(skins_json));
  doc.set("accessors", std::move(b.accessors_));
  doc.set("bufferViews", std::move(b.views_));

  std::string& bin = b.bin();
  while (bin.size() % 4) bin.push_back('\0');
  Json buffer = Json::object();
  buffer.set("byteLength", static_cast<std::int64_t>(bin.size()));
  GltfFiles files;
  if (options.container == GltfContainer::kGltf) {
    buffer.set("uri", options.bin_name);
  } else if (options.container == GltfContainer::kGltfEmbedded) {
    buffer.set("uri", octetStreamDataUri(bin));
  }
  Json buffers = Json::array();
  buffers.push(std::move(buffer));
  doc.set("buffers", std::move(buffers));

  JsonWriteOptions jo;
  jo.sort_keys = false;
  jo.indent = options.container == GltfContainer::kGlb ? -1 : 1;
  jo.inline_numbers = true;
  std::string json = writeJson(doc, jo);
  if (options.container != GltfContainer::kGlb) {
    files.main = std::move(json);
    files.main.push_back('\n');
    if (options.container == GltfContainer::kGltf) files.bin = std::move(bin);
    return files;
  }
  while (json.size() % 4) json.push_back(' ');
  const std::size_t total = 12 + 8 + json.size() + 8 + bin.size();
  if (total > 0xFFFFFFFFull) return makeError(ErrorCode::kUnsupported, "glTF: the binary file would exceed 4 GiB");
  std::string head;
  head.reserve(28 + json.size());
  auto u32 = [&head](std::uint32_t v) {
    for (int s = 0; s < 32; s += 8) head.push_back(static_cast<char>((v >> s) & 0xFF));
  };
  head += "glTF";
  u32(2);
  u32(static_cast<std::uint32_t>(total));
  u32(static_cast<std::uint32_t>(json.size()));
  head += "JSON";
  head += json;
  u32(static_cast<std::uint32_t>(bin.size()));
  head.append("BIN\0", 4);
  bin.insert(0, head);  // within the reserved room: the buffer moves up, nothing is reallocated
  files.main = std::move(bin);
  return files;
}

}  // namespace rigfit
