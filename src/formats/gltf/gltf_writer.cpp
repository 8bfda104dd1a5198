// glTF 2.0 writer (binary .glb or text .gltf) for a skinned ExportModel.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/SVD>

#include "core/base64.hpp"
#include "formats/gltf/gltf_write.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/json.hpp"
#include "rigfit/version.hpp"

namespace rigfit {
namespace {

using detail::GltfBuffer;
using detail::gltfNumbers;
using detail::kGltfFloat;

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

// The material images, each once (the same bytes object, or equal bytes under the same name),
// in order of first use; `texture_of` maps an image's bytes to its texture index.
struct Images {
  std::vector<const ExportImage*> list;
  std::map<const std::string*, int> texture_of;
};

Images collectImages(const ExportModel& model) {
  Images out;
  for (const ExportMesh& mesh : model.meshes)
    for (const auto* slot : {&mesh.material.base_color_texture, &mesh.material.normal_texture}) {
      if (!*slot || out.texture_of.count((*slot)->bytes.get())) continue;
      int same = -1;
      for (std::size_t i = 0; i < out.list.size() && same < 0; ++i)
        if (out.list[i]->file_name == (*slot)->file_name && *out.list[i]->bytes == *(*slot)->bytes) same = static_cast<int>(i);
      if (same < 0) {
        same = static_cast<int>(out.list.size());
        out.list.push_back(&**slot);
      }
      out.texture_of[(*slot)->bytes.get()] = same;
    }
  return out;
}

// images, textures (one per image) and the one sampler: linear, mipmapped, repeating. Image
// bytes go to the buffer (.glb), a data URI (embedded .gltf) or files beside the .gltf.
void writeImages(const Images& images, const GltfOptions& options, GltfBuffer& b, Json& doc, GltfFiles& files) {
  if (images.list.empty()) return;
  Json image_json = Json::array(), textures = Json::array();
  std::vector<std::string> taken;
  for (std::size_t i = 0; i < images.list.size(); ++i) {
    const ExportImage& image = *images.list[i];
    Json im = Json::object();
    im.set("name", image.name);
    if (options.container == GltfContainer::kGlb) {
      im.set("bufferView", b.view<char>(image.bytes->size(), 0, image.bytes->data()));
      im.set("mimeType", image.mime_type);
    } else if (options.container == GltfContainer::kGltfEmbedded) {
      im.set("uri", "data:" + image.mime_type + ";base64," + base64Encode(*image.bytes));
    } else {
      const std::string name = uniqueName(taken, image.file_name);
      im.set("uri", name);
      files.images.emplace_back(name, image.bytes);
    }
    image_json.push(std::move(im));
    Json t = Json::object();
    t.set("sampler", 0);
    t.set("source", static_cast<std::int64_t>(i));
    textures.push(std::move(t));
  }
  Json sampler = Json::object();
  sampler.set("magFilter", 9729);   // LINEAR
  sampler.set("minFilter", 9987);   // LINEAR_MIPMAP_LINEAR
  sampler.set("wrapS", 10497);      // REPEAT
  sampler.set("wrapT", 10497);
  Json samplers = Json::array();
  samplers.push(std::move(sampler));
  doc.set("images", std::move(image_json));
  doc.set("samplers", std::move(samplers));
  doc.set("textures", std::move(textures));
}

Json textureRef(const Images& images, const ExportImage& image) {
  Json ref = Json::object();
  ref.set("index", images.texture_of.at(image.bytes.get()));
  return ref;
}

// A mesh's material as glTF's metallic-roughness material.
Json material(const ExportMaterial& m, const Images& images) {
  Json pbr = Json::object();
  const auto& c = m.base_color;
  pbr.set("baseColorFactor", gltfNumbers({c[0], c[1], c[2], c[3]}));
  pbr.set("metallicFactor", m.metallic);
  pbr.set("roughnessFactor", m.roughness);
  if (m.base_color_texture) pbr.set("baseColorTexture", textureRef(images, *m.base_color_texture));
  Json out = Json::object();
  out.set("name", m.name);
  out.set("pbrMetallicRoughness", std::move(pbr));
  if (m.normal_texture) out.set("normalTexture", textureRef(images, *m.normal_texture));
  if (m.alpha_mode == AlphaMode::kBlend) out.set("alphaMode", "BLEND");
  if (m.alpha_mode == AlphaMode::kMask) {
    out.set("alphaMode", "MASK");
    out.set("alphaCutoff", m.alpha_cutoff);
  }
  if (m.double_sided) out.set("doubleSided", true);
  return out;
}


// Checks each mesh's skin streams against the mesh; returns the bytes the buffer will need: every
// stream padded to 4 (positions, normals, UVs, joints up to 2 bytes and weights up to 4 bytes per
// influence, indices, morph deltas, inverse bind matrices), and room for the .glb's header and
// JSON in front (about 300 bytes a bone).
Expected<std::size_t> checkStreams(const ExportModel& model, std::span<const GltfSkinStreams> skins, const GltfOptions& options) {
  const std::size_t nb = model.names.size(), nm = model.meshes.size();
  if (nb == 0) return makeError(ErrorCode::kUsage, "glTF: the skeleton has no bones");
  if (nm == 0) return makeError(ErrorCode::kUsage, "glTF: the model has no meshes");
  if (skins.size() != nm)
    return makeError(ErrorCode::kUsage, "glTF: " + std::to_string(skins.size()) + " skin streams for " + std::to_string(nm) + " meshes");
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
    if (options.container == GltfContainer::kGlb)  // images in the buffer (an upper bound: shared ones counted per use)
      for (const auto* image : {&mesh.material.base_color_texture, &mesh.material.normal_texture})
        if (*image) bytes += (*image)->bytes->size() + 4;
    if (mesh.material.normal_texture) bytes += 16 * nv;  // TANGENT
  }
  return bytes;
}

// A bone's node: TRS relative to its parent, and extras with its MakeHuman name, tail, roll and
// length.
Json boneNode(const ExportModel& model, std::size_t i, const Trs& trs) {
  Json n = Json::object();
  n.set("name", model.names[i]);
  if (trs.t != Eigen::Vector3d::Zero()) n.set("translation", gltfNumbers({trs.t.x(), trs.t.y(), trs.t.z()}));
  if (!trs.r.coeffs().isApprox(Eigen::Vector4d(0, 0, 0, 1), 0.0))
    n.set("rotation", gltfNumbers({trs.r.x(), trs.r.y(), trs.r.z(), trs.r.w()}));
  if (trs.s != Eigen::Vector3d::Ones()) n.set("scale", gltfNumbers({trs.s.x(), trs.s.y(), trs.s.z()}));
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
  return n;
}

// Node 0 "Armature" (the root bones below it) and one node per bone (1 + bone index); returns
// the inverse bind matrices' accessor, computed from exactly the written TRS so that the rest
// pose skins to identity.
int appendArmature(const ExportModel& model, GltfBuffer& b, Json& nodes) {
  const std::size_t nb = model.names.size();
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
    bone_nodes[i] = boneNode(model, i, trs);
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
  return b.accessor(b.copy(ibm, 0), kGltfFloat, nb, "MAT4");
}

// The one skin: every bone a joint. Its skeleton root is the top joint (bone 0: parents come
// first), or with several root bones the Armature node above them (their closest common root, as
// glTF asks). Tools that flatten the node hierarchy keep the joint.
Json skinJson(const ExportModel& model, int ibm_accessor) {
  Json joints = Json::array();
  for (std::size_t i = 0; i < model.names.size(); ++i) joints.push(static_cast<std::int64_t>(1 + i));
  Json skin = Json::object();
  skin.set("name", "Armature");
  skin.set("inverseBindMatrices", ibm_accessor);
  const bool one_root = std::count(model.parents.begin(), model.parents.end(), kNoParent) == 1;
  skin.set("skeleton", one_root ? 1 : 0);
  skin.set("joints", std::move(joints));
  Json skins = Json::array();
  skins.push(std::move(skin));
  return skins;
}

// The scene: the Armature node and the mesh nodes (which follow the bones).
Json scenesJson(const ExportModel& model, const GltfOptions& options) {
  Json scene = Json::object();
  scene.set("name", "Scene");
  Json scene_nodes = Json::array();
  scene_nodes.push(0);
  for (std::size_t m = 0; m < model.meshes.size(); ++m) scene_nodes.push(static_cast<std::int64_t>(1 + model.names.size() + m));
  scene.set("nodes", std::move(scene_nodes));
  if (!options.rig_name.empty()) {
    Json extras = Json::object();
    extras.set("rig", options.rig_name);
    scene.set("extras", std::move(extras));
  }
  Json scenes = Json::array();
  scenes.push(std::move(scene));
  return scenes;
}

// The .glb (header, JSON chunk padded with spaces, BIN chunk), built in `bin`'s reserved room.
Expected<std::string> packGlb(std::string json, std::string& bin) {
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
  return std::move(bin);
}

}  // namespace

Expected<GltfFiles> writeGltf(const ExportModel& model, std::span<const GltfSkinStreams> skins, const GltfOptions& options) {
  RIGFIT_TRY(validateExportModel(model));
  auto bytes = checkStreams(model, skins, options);
  if (!bytes) return bytes.error();
  const std::size_t nb = model.names.size(), nm = model.meshes.size();
  GltfBuffer b;
  b.reserve(*bytes);
  Json meshes = Json::array();
  for (std::size_t m = 0; m < nm; ++m) {
    auto mesh = detail::writeGltfMesh(b, model.meshes[m], skins[m], nb, static_cast<int>(m));
    if (!mesh) return mesh.error();
    meshes.push(std::move(*mesh));
  }
  Json nodes = Json::array();
  const int ibm_acc = appendArmature(model, b, nodes);
  for (std::size_t m = 0; m < nm; ++m) {
    Json node = Json::object();
    node.set("name", model.meshes[m].name);
    node.set("mesh", static_cast<std::int64_t>(m));
    node.set("skin", 0);
    nodes.push(std::move(node));
  }

  Json doc = Json::object();
  Json asset = Json::object();
  asset.set("version", "2.0");
  asset.set("generator", std::string("rigfit ") + RIGFIT_VERSION_STRING);
  if (options.asset_extras.isObject() && options.asset_extras.size()) asset.set("extras", options.asset_extras);
  doc.set("asset", std::move(asset));
  doc.set("scene", 0);
  doc.set("scenes", scenesJson(model, options));
  doc.set("nodes", std::move(nodes));
  doc.set("meshes", std::move(meshes));
  GltfFiles files;
  const Images images = collectImages(model);
  Json materials = Json::array();
  for (const ExportMesh& mesh : model.meshes) materials.push(material(mesh.material, images));
  doc.set("materials", std::move(materials));
  writeImages(images, options, b, doc, files);
  doc.set("skins", skinJson(model, ibm_acc));
  doc.set("accessors", std::move(b.accessors));
  doc.set("bufferViews", std::move(b.views));

  std::string& bin = b.bin();
  while (bin.size() % 4) bin.push_back('\0');
  Json buffer = Json::object();
  buffer.set("byteLength", static_cast<std::int64_t>(bin.size()));
  if (options.container == GltfContainer::kGltf) buffer.set("uri", options.bin_name);
  if (options.container == GltfContainer::kGltfEmbedded) buffer.set("uri", octetStreamDataUri(bin));
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
  auto glb = packGlb(std::move(json), bin);
  if (!glb) return glb.error();
  files.main = std::move(*glb);
  return files;
}

}  // namespace rigfit
