// glTF 2.0 writer (binary .glb or text .gltf) for a skinned ExportModel.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/SVD>

#include "rigfit/gltf.hpp"
#include "rigfit/json.hpp"

namespace rigfit {
namespace {

constexpr int kFloat = 5126, kUnsignedByte = 5121, kUnsignedShort = 5123, kUnsignedInt = 5125;
constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;

class BufferBuilder {
 public:
  // Appends bytes aligned to 4 and returns the bufferView index.
  int view(const void* data, std::size_t size, int target) {
    while (bin_.size() % 4) bin_.push_back('\0');
    Json v = Json::object();
    v.set("buffer", 0);
    v.set("byteOffset", static_cast<std::int64_t>(bin_.size()));
    v.set("byteLength", static_cast<std::int64_t>(size));
    if (target) v.set("target", target);
    bin_.append(static_cast<const char*>(data), size);
    views_.push(std::move(v));
    return static_cast<int>(views_.size() - 1);
  }
  int accessor(int view, int component_type, std::size_t count, const char* type, bool normalized = false) {
    Json a = Json::object();
    a.set("bufferView", view);
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
};

template <typename T>
int addStream(BufferBuilder& b, const std::vector<T>& data, int target) {
  return b.view(data.data(), data.size() * sizeof(T), target);
}

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

}  // namespace

Expected<GltfFiles> writeGltf(const ExportModel& model, const GltfSkinStreams& skin, const GltfOptions& options) {
  const std::size_t nv = model.vertexCount(), nb = model.names.size();
  const int k = skin.influences;
  if (k != 4 && k != 8) return makeError(ErrorCode::kUsage, "glTF: influences must be 4 or 8");
  if (skin.joints.size() != nv * static_cast<std::size_t>(k) ||
      (skin.weight_bits == 0 ? skin.weights.size() : skin.quantized_weights.size()) != nv * static_cast<std::size_t>(k))
    return makeError(ErrorCode::kUsage, "glTF: skin streams do not match the vertex count");
  if (skin.weight_bits != 0 && skin.weight_bits != 8 && skin.weight_bits != 16)
    return makeError(ErrorCode::kUsage, "glTF: quantised weights must have 8 or 16 bits");
  if (nb == 0) return makeError(ErrorCode::kUsage, "glTF: the skeleton has no bones");
  if (nv == 0) return makeError(ErrorCode::kUsage, "glTF: the mesh has no vertices");

  BufferBuilder b;
  // Every stream, each padded to 4: positions, normals, UVs, joints (up to 2 bytes) and weights
  // (up to 4 bytes) per influence, indices, inverse bind matrices.
  b.reserve(nv * (12 + 12 + 8 + 6 * static_cast<std::size_t>(k)) + 4 * model.triangles.size() + 64 * nb + 64);
  // Vertex streams.
  const int pos_view = addStream(b, model.positions, kArrayBuffer);
  const int pos_acc = b.accessor(pos_view, kFloat, nv, "VEC3");
  float lo[3] = {std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
  float hi[3] = {-lo[0], -lo[1], -lo[2]};
  for (std::size_t v = 0; v < nv; ++v)
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], model.positions[3 * v + static_cast<std::size_t>(c)]);
      hi[c] = std::max(hi[c], model.positions[3 * v + static_cast<std::size_t>(c)]);
    }
  b.lastAccessor().set("min", numbers({lo[0], lo[1], lo[2]}));
  b.lastAccessor().set("max", numbers({hi[0], hi[1], hi[2]}));
  const int nrm_acc = b.accessor(addStream(b, model.normals, kArrayBuffer), kFloat, nv, "VEC3");
  int uv_acc = -1;
  if (!model.uvs.empty()) {
    std::vector<float> uv(model.uvs);
    for (std::size_t i = 1; i < uv.size(); i += 2) uv[i] = 1.0f - uv[i];  // OBJ origin bottom-left, glTF top-left
    uv_acc = b.accessor(addStream(b, uv, kArrayBuffer), kFloat, nv, "VEC2");
  }
  // Skin streams, in sets of four. Vertices with no weight follow the first joint fully.
  const bool small_joints = nb <= 256;
  int joint_acc[2] = {-1, -1}, weight_acc[2] = {-1, -1};
  for (int set = 0; set < k / 4; ++set) {
    std::vector<std::uint8_t> j8;
    std::vector<std::uint16_t> j16, w16;
    std::vector<std::uint8_t> w8;
    std::vector<float> wf;
    for (std::size_t v = 0; v < nv; ++v) {
      const std::size_t base = v * static_cast<std::size_t>(k);
      bool weighted = false;
      for (int c = 0; c < k; ++c) {
        const std::size_t i = base + static_cast<std::size_t>(c);
        weighted = weighted || (skin.weight_bits ? skin.quantized_weights[i] != 0 : skin.weights[i] != 0.0f);
      }
      for (int c = 0; c < 4; ++c) {
        const std::size_t i = base + static_cast<std::size_t>(4 * set + c);
        const bool first = !weighted && set == 0 && c == 0;
        // Slots whose (stored) weight is 0 point at joint 0, as the validator expects.
        const bool used = skin.weight_bits ? skin.quantized_weights[i] != 0 : skin.weights[i] != 0.0f;
        const std::uint16_t joint = weighted && used ? skin.joints[i] : 0;
        if (joint >= nb) return makeError(ErrorCode::kRange, "glTF: joint index beyond the skeleton");
        small_joints ? j8.push_back(static_cast<std::uint8_t>(joint)) : j16.push_back(joint);
        if (skin.weight_bits == 8) w8.push_back(first ? 255 : weighted ? static_cast<std::uint8_t>(skin.quantized_weights[i]) : 0);
        else if (skin.weight_bits == 16) w16.push_back(first ? 65535 : weighted ? skin.quantized_weights[i] : 0);
        else wf.push_back(first ? 1.0f : weighted ? skin.weights[i] : 0.0f);
      }
    }
    joint_acc[set] = small_joints ? b.accessor(addStream(b, j8, kArrayBuffer), kUnsignedByte, nv, "VEC4")
                                  : b.accessor(addStream(b, j16, kArrayBuffer), kUnsignedShort, nv, "VEC4");
    if (skin.weight_bits == 8) weight_acc[set] = b.accessor(addStream(b, w8, kArrayBuffer), kUnsignedByte, nv, "VEC4", true);
    else if (skin.weight_bits == 16) weight_acc[set] = b.accessor(addStream(b, w16, kArrayBuffer), kUnsignedShort, nv, "VEC4", true);
    else weight_acc[set] = b.accessor(addStream(b, wf, kArrayBuffer), kFloat, nv, "VEC4");
  }
  // Indices.
  int idx_acc;
  if (nv <= 65535) {
    std::vector<std::uint16_t> idx(model.triangles.begin(), model.triangles.end());
    idx_acc = b.accessor(addStream(b, idx, kElementArrayBuffer), kUnsignedShort, idx.size(), "SCALAR");
  } else {
    idx_acc = b.accessor(addStream(b, model.triangles, kElementArrayBuffer), kUnsignedInt, model.triangles.size(), "SCALAR");
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
    extras.set("name", model.source_names[i]);
    extras.set("tail", numbers({model.tails[i].x(), model.tails[i].y(), model.tails[i].z()}));
    extras.set("roll", model.rolls[i]);
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
  const int ibm_acc = b.accessor(addStream(b, ibm, 0), kFloat, nb, "MAT4");

  const std::int64_t mesh_node = static_cast<std::int64_t>(1 + nb);
  Json body = Json::object();
  body.set("name", "Body");
  body.set("mesh", 0);
  body.set("skin", 0);
  nodes.push(std::move(body));

  Json attributes = Json::object();
  attributes.set("POSITION", pos_acc);
  attributes.set("NORMAL", nrm_acc);
  if (uv_acc >= 0) attributes.set("TEXCOORD_0", uv_acc);
  for (int set = 0; set < k / 4; ++set) {
    attributes.set("JOINTS_" + std::to_string(set), joint_acc[set]);
    attributes.set("WEIGHTS_" + std::to_string(set), weight_acc[set]);
  }
  Json primitive = Json::object();
  primitive.set("attributes", std::move(attributes));
  primitive.set("indices", idx_acc);
  primitive.set("mode", 4);
  Json primitives = Json::array();
  primitives.push(std::move(primitive));
  Json mesh = Json::object();
  mesh.set("name", "Body");
  mesh.set("primitives", std::move(primitives));

  Json joints = Json::array();
  for (std::size_t i = 0; i < nb; ++i) joints.push(static_cast<std::int64_t>(1 + i));
  Json skin_json = Json::object();
  skin_json.set("name", "Armature");
  skin_json.set("inverseBindMatrices", ibm_acc);
  skin_json.set("skeleton", 0);
  skin_json.set("joints", std::move(joints));

  Json doc = Json::object();
  Json asset = Json::object();
  asset.set("version", "2.0");
  asset.set("generator", std::string("rigfit ") + RIGFIT_VERSION_STRING);
  doc.set("asset", std::move(asset));
  doc.set("scene", 0);
  Json scene = Json::object();
  scene.set("name", "Scene");
  Json scene_nodes = Json::array();
  scene_nodes.push(0);
  scene_nodes.push(mesh_node);
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
  Json meshes = Json::array();
  meshes.push(std::move(mesh));
  doc.set("meshes", std::move(meshes));
  Json skins = Json::array();
  skins.push(std::move(skin_json));
  doc.set("skins", std::move(skins));
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
    static const char* kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string uri = "data:application/octet-stream;base64,";
    uri.reserve(uri.size() + bin.size() * 4 / 3 + 4);
    for (std::size_t i = 0; i < bin.size(); i += 3) {
      const std::uint32_t a = static_cast<unsigned char>(bin[i]);
      const std::uint32_t b1 = i + 1 < bin.size() ? static_cast<unsigned char>(bin[i + 1]) : 0;
      const std::uint32_t b2 = i + 2 < bin.size() ? static_cast<unsigned char>(bin[i + 2]) : 0;
      const std::uint32_t triple = (a << 16) | (b1 << 8) | b2;
      uri.push_back(kB64[(triple >> 18) & 63]);
      uri.push_back(kB64[(triple >> 12) & 63]);
      uri.push_back(i + 1 < bin.size() ? kB64[(triple >> 6) & 63] : '=');
      uri.push_back(i + 2 < bin.size() ? kB64[triple & 63] : '=');
    }
    buffer.set("uri", std::move(uri));
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
  auto u32 = [](std::string& out, std::uint32_t v) {
    for (int s = 0; s < 32; s += 8) out.push_back(static_cast<char>((v >> s) & 0xFF));
  };
  const std::size_t total = 12 + 8 + json.size() + 8 + bin.size();
  if (total > 0xFFFFFFFFull) return makeError(ErrorCode::kUnsupported, "glTF: the binary file would exceed 4 GiB");
  std::string& out = files.main;
  out.reserve(total);
  out += "glTF";
  u32(out, 2);
  u32(out, static_cast<std::uint32_t>(total));
  u32(out, static_cast<std::uint32_t>(json.size()));
  out += "JSON";
  out += json;
  u32(out, static_cast<std::uint32_t>(bin.size()));
  out.append("BIN\0", 4);
  out += bin;
  return files;
}

}  // namespace rigfit
