// G4MF writer (.g4tf text, .g4b binary with optional Zstd) for a skinned ExportModel (one skeleton,
// its meshes).
//
// Document layout (rules and section numbers from docs/g4mf-rules.md):
//   nodes[0]      root, no transform (§7.1), children [1]
//   nodes[1]      skeleton node (§12), identity transform, skeleton.joints = every bone node in
//                 increasing order (§12: strictly increasing, parents first; single root bone =
//                 first child = joints[0]); children = root bones, then the mesh nodes
//   nodes[2..]    one node per bone in ExportModel order (parents before children), transform =
//                 the bind pose relative to the parent (§13: the file pose is the bind pose):
//                 position + rotor (+ scale) when the 3x3 part is a rotation times a positive
//                 diagonal scale, else position + basis (column-major, §7.2); bone.length (§12);
//                 extras: makehumanName, roll
//   last nodes    one mesh node per ExportMesh, in order, each a direct child of the skeleton
//                 (§12: so the skeleton skins it), identity transform (§10, §15.4)
//   meshes[k]     one per ExportMesh: deduplicated vertices (§9.1: split export vertices with the same source vertex,
//                 position and skin are merged), one surface of polygon fans with
//                 polytopeSimplexes (§9.2, each polygon's fan rotated so its first vertex differs
//                 from the previous polygon's), normals and UVs (v flipped, §8) through bindings
//                 whose per-corner `simplexes` index per-export-vertex values (§9.3), and the skin
//                 (§11: vertices ascending, weights descending, ties by group, zero weights
//                 dropped, normalised per vertex; groups = bone index, groupNames = bone names,
//                 the same for every mesh as the spec asks of meshes sharing a skeleton); the
//                 surface uses materials[k]
//   materials[k]  the mesh's material (§9.4): baseColor factor RGBA, orm factor (occlusion 0 as
//                 the spec's default, roughness, metallic); alpha mode, cutoff and two-sidedness,
//                 which G4MF lacks, in extras; baseColor.texture and normal.texture for images
//   textures[t]   one per distinct material image: size, placeholder colour, files = [t]
//   files[t]      the image (mimeType) in a bare buffer view after the mesh data
// One buffer (§4); one view per array, aligned to its component size (§6); identical views and
// accessors reused (§3 uniqueItems); indices in the smallest unsigned type; little-endian.
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <zstd.h>

#include "core/base64.hpp"
#include "formats/g4mf/g4mf_write.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/json.hpp"
#include "rigfit/version.hpp"

namespace rigfit {
namespace {

using detail::G4mfBuffer;
using detail::G4mfMeshNames;
using detail::numberArray;

static_assert(std::endian::native == std::endian::little, "the G4MF writer stores native little-endian data");

constexpr const char* kSpecification = "https://github.com/godot-dimensions/g4mf";
constexpr double kRotationTolerance = 1e-10;  // |AᵀA - S²| per entry, relative, below which A = R·S

Error usage(std::string what) { return makeError(ErrorCode::kUsage, "G4MF: " + std::move(what)); }

// Writes a bone's local transform (§7.2): rotor (+ scale) for R·S with S positive
// diagonal, basis otherwise. Defaults (zero position, identity rotor, unit scale) are omitted.
Status setTransform(Json& node, const Eigen::Matrix4d& m, std::size_t bone) {
  if (!m.allFinite()) return makeError(ErrorCode::kRange, "G4MF: bone " + std::to_string(bone) + ": non-finite bind matrix");
  const Eigen::Vector3d t = m.topRightCorner<3, 1>();
  const Eigen::Matrix3d a = m.topLeftCorner<3, 3>();
  if (t != Eigen::Vector3d::Zero()) node.set("position", numberArray(t.data(), 3));
  const Eigen::Vector3d s(a.col(0).norm(), a.col(1).norm(), a.col(2).norm());
  bool rotation_scale = s.minCoeff() > 0.0 && a.determinant() > 0.0;
  Eigen::Matrix3d unscaled = Eigen::Matrix3d::Identity();
  if (rotation_scale) {
    unscaled = a * s.cwiseInverse().asDiagonal();
    const Eigen::Matrix3d gram = unscaled.transpose() * unscaled - Eigen::Matrix3d::Identity();
    rotation_scale = gram.cwiseAbs().maxCoeff() <= kRotationTolerance;
  }
  if (!rotation_scale) {
    double basis[9];
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) basis[3 * c + r] = a(r, c);  // column-major: X image first
    node.set("basis", numberArray(basis, 9));
    return {};
  }
  // Nearest rotation (polar decomposition), then quaternion (x, y, z, w) -> rotor [w, z, -y, x].
  Eigen::JacobiSVD<Eigen::Matrix3d> svd(unscaled, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::Matrix3d r = svd.matrixU() * svd.matrixV().transpose();
  Eigen::Quaterniond q(r);
  q.normalize();
  if (q.w() < 0.0) q.coeffs() *= -1.0;
  if (!(q.w() == 1.0 && q.x() == 0.0 && q.y() == 0.0 && q.z() == 0.0)) {
    const double rotor[4] = {std::clamp(q.w(), -1.0, 1.0), std::clamp(q.z(), -1.0, 1.0), std::clamp(-q.y(), -1.0, 1.0),
                             std::clamp(q.x(), -1.0, 1.0)};
    node.set("rotor", numberArray(rotor, 4));
  }
  Eigen::Vector3d scale = s;
  for (int k = 0; k < 3; ++k)
    if (std::abs(scale[k] - 1.0) <= 1e-12) scale[k] = 1.0;
  if (scale != Eigen::Vector3d::Ones()) {
    if (scale[0] == scale[1] && scale[1] == scale[2]) node.set("scale", numberArray(scale.data(), 1));
    else node.set("scale", numberArray(scale.data(), 3));
  }
  return {};
}

Expected<std::string> zstdCompress(std::string_view data, int level) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
  if (ZSTD_isError(n)) return makeError(ErrorCode::kIo, std::string("G4MF: Zstd compression failed: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

void putU32(std::string& out, std::uint32_t v) {
  for (int s = 0; s < 32; s += 8) out.push_back(static_cast<char>((v >> s) & 0xFF));
}
void putU64(std::string& out, std::uint64_t v) {
  for (int s = 0; s < 64; s += 8) out.push_back(static_cast<char>((v >> s) & 0xFF));
}
std::size_t align16(std::size_t n) { return (n + 15) & ~std::size_t(15); }


// The material images as G4MF textures (§9.4): each image once (by its bytes), its file in
// the buffer as a bare view (§6: uint8 data), with its size and a placeholder colour (white for
// base colour, so the factor shows; the flat normal for normal maps).
struct Textures {
  Json files = Json::array(), textures = Json::array();
  std::map<const std::string*, int> index_of;
};

Textures writeTextures(const ExportModel& m, G4mfBuffer& buf, std::vector<std::string>& taken) {
  Textures out;
  for (const ExportMesh& mesh : m.meshes)
    for (const auto* slot : {&mesh.material.base_color_texture, &mesh.material.normal_texture}) {
      if (!*slot || out.index_of.count((*slot)->bytes.get())) continue;
      const ExportImage& image = **slot;
      const std::string name = uniqueName(taken, exportName(image.name));
      Json file = Json::object();
      file.set("name", uniqueName(taken, name + "File"));
      file.set("mimeType", image.mime_type);
      file.set("bufferView", buf.view(image.bytes->data(), image.bytes->size(), 1));
      Json texture = Json::object();
      texture.set("name", name);
      Json sizes = Json::array();
      sizes.push(static_cast<std::int64_t>(image.width));
      sizes.push(static_cast<std::int64_t>(image.height));
      texture.set("size", std::move(sizes));
      const bool normal = slot == &mesh.material.normal_texture;
      const double white[4] = {1.0, 1.0, 1.0, 1.0}, flat[3] = {0.5, 0.5, 1.0};
      texture.set("placeholder", normal ? numberArray(flat, 3) : numberArray(white, 4));
      Json files = Json::array();
      files.push(static_cast<std::int64_t>(out.files.size()));
      texture.set("files", std::move(files));
      out.files.push(std::move(file));
      out.index_of[image.bytes.get()] = static_cast<int>(out.textures.size());
      out.textures.push(std::move(texture));
    }
  return out;
}

// A mesh's material (§9.4): base colour (factor, texture), normal map and ORM factors. G4MF has
// no alpha mode or sidedness: those go to extras (alphaMode, alphaCutoff, doubleSided) when not
// glTF's defaults.
Json material(const ExportMaterial& mat, const std::string& name, const Textures& textures) {
  Json out = Json::object();
  out.set("name", name);
  Json base = Json::object(), orm = Json::object();
  const auto& c = mat.base_color;
  const double color[4] = {c[0], c[1], c[2], c[3]};
  base.set("factor", numberArray(color, 4));
  if (mat.base_color_texture) base.set("texture", textures.index_of.at(mat.base_color_texture->bytes.get()));
  out.set("baseColor", std::move(base));
  if (mat.normal_texture) {
    Json normal = Json::object();
    normal.set("texture", textures.index_of.at(mat.normal_texture->bytes.get()));
    out.set("normal", std::move(normal));
  }
  const double factors[3] = {0.0, mat.roughness, mat.metallic};  // occlusion 0: the spec's default
  orm.set("factor", numberArray(factors, 3));
  out.set("orm", std::move(orm));
  Json extras = Json::object();
  if (mat.alpha_mode != AlphaMode::kOpaque) extras.set("alphaMode", mat.alpha_mode == AlphaMode::kBlend ? "BLEND" : "MASK");
  if (mat.alpha_mode == AlphaMode::kMask) extras.set("alphaCutoff", mat.alpha_cutoff);
  if (mat.double_sided) extras.set("doubleSided", true);
  if (extras.size()) out.set("extras", std::move(extras));
  return out;
}

// Item names (§3): bones keep theirs; the root, the skeleton and each mesh's node, mesh and
// surface are made unique against them. Materials keep their name when it is free, else get the
// suffix "Material" ("Body" is the body's node: its material is "BodyMaterial").
struct DocumentNames {
  std::string root, skeleton;
  std::vector<G4mfMeshNames> meshes;
};

DocumentNames documentNames(const ExportModel& m, const G4mfWriteOptions& options, std::vector<std::string>& taken) {
  DocumentNames out;
  out.root = uniqueName(taken, exportName(options.root_name));
  out.skeleton = uniqueName(taken, exportName(options.skeleton_name));
  for (const ExportMesh& mesh : m.meshes) {
    G4mfMeshNames& n = out.meshes.emplace_back();
    n.node = uniqueName(taken, exportName(mesh.name));
    n.mesh = uniqueName(taken, n.node + "Mesh");
    n.surface = uniqueName(taken, n.node + "Surface");
  }
  for (std::size_t k = 0; k < m.meshes.size(); ++k) {
    const std::string name = exportName(m.meshes[k].material.name);
    const bool free = std::find(taken.begin(), taken.end(), name) == taken.end();
    out.meshes[k].material = uniqueName(taken, free ? name : name + "Material");
  }
  return out;
}

// The root node and the skeleton node (nodes 0 and 1; see the layout above).
void appendRootAndSkeleton(const ExportModel& m, const DocumentNames& names, const G4mfWriteOptions& options,
                           bool any_skin, Json& nodes) {
  const std::int64_t nb = static_cast<std::int64_t>(m.names.size()), first_bone = 2, first_mesh_node = first_bone + nb;
  Json root = Json::object();
  root.set("name", names.root);
  Json root_children = Json::array();
  root_children.push(std::int64_t{1});
  root.set("children", std::move(root_children));
  nodes.push(std::move(root));

  Json skeleton = Json::object();
  skeleton.set("name", names.skeleton);
  Json skel = Json::object();
  if (any_skin && nb) {
    Json joints = Json::array();
    for (std::int64_t i = 0; i < nb; ++i) joints.push(first_bone + i);
    skel.set("joints", std::move(joints));
  }
  skeleton.set("skeleton", std::move(skel));
  Json children = Json::array();
  for (std::int64_t i = 0; i < nb; ++i)
    if (m.parents[static_cast<std::size_t>(i)] < 0) children.push(first_bone + i);
  for (std::size_t k = 0; k < m.meshes.size(); ++k) children.push(first_mesh_node + static_cast<std::int64_t>(k));
  skeleton.set("children", std::move(children));
  if (!options.rig_name.empty()) {
    Json extras = Json::object();
    extras.set("rig", options.rig_name);
    skeleton.set("extras", std::move(extras));
  }
  nodes.push(std::move(skeleton));
}

// One node per bone, in ExportModel order (nodes 2..): bind transform, length, children, extras.
Status appendBones(const ExportModel& m, Json& nodes) {
  const std::size_t nb = m.names.size();
  const std::int64_t first_bone = 2;
  std::vector<Json> bone_children(nb, Json::array());
  for (std::size_t i = 0; i < nb; ++i)
    if (m.parents[i] >= 0) bone_children[static_cast<std::size_t>(m.parents[i])].push(first_bone + static_cast<std::int64_t>(i));
  for (std::size_t i = 0; i < nb; ++i) {
    Json n = Json::object();
    n.set("name", m.names[i]);
    RIGFIT_TRY(setTransform(n, m.bind_local[i], i));
    Json bone = Json::object();
    bone.set("length", m.lengths[i]);
    n.set("bone", std::move(bone));
    if (bone_children[i].size()) n.set("children", std::move(bone_children[i]));
    Json extras = Json::object();
    if (!m.source_names.empty()) extras.set("makehumanName", m.source_names[i]);
    if (!m.rolls.empty()) extras.set("roll", m.rolls[i] == 0.0 ? 0.0 : m.rolls[i]);
    if (extras.size()) n.set("extras", std::move(extras));
    nodes.push(std::move(n));
  }
  return {};
}

// The buffers array (§4): the binary container's BLOB chunk (Zstd-compressed into `blob` when
// asked) or, in text, a data URI.
Expected<Json> buffersJson(std::string bin, const G4mfWriteOptions& options, std::string& blob) {
  Json buffer = Json::object();
  buffer.set("byteLength", static_cast<std::int64_t>(bin.size()));
  if (options.container == G4mfContainer::kBinary) {
    buffer.set("chunk", 1);
    if (options.zstd) {
      buffer.set("encoding", "Zstd");
      auto packed = zstdCompress(bin, options.zstd_level);
      if (!packed) return packed.error();
      blob = std::move(*packed);
    } else {
      blob = std::move(bin);
    }
  } else {
    buffer.set("uri", octetStreamDataUri(bin));
  }
  Json buffers = Json::array();
  buffers.push(std::move(buffer));
  return buffers;
}

// Binary container (§1.2): header, JSON chunk, BLOB chunk; headers on 16-byte boundaries; plain
// JSON padded with spaces, compressed JSON with zeros.
Expected<std::string> packBinary(const std::string& json, const std::string& blob, const G4mfWriteOptions& options) {
  std::string json_data = json;
  if (options.zstd) {
    auto packed = zstdCompress(json, options.zstd_level);
    if (!packed) return packed.error();
    json_data = std::move(*packed);
  }
  const std::size_t json_end = 32 + json_data.size();
  const std::size_t total = align16(json_end) + 16 + blob.size();
  std::string out;
  out.reserve(total);
  out += "G4MF";
  putU32(out, 0);
  putU64(out, total);
  out += "JSON";
  if (options.zstd) out += "Zstd";
  else putU32(out, 0);
  putU64(out, json_data.size());
  out += json_data;
  out.append(align16(json_end) - json_end, options.zstd ? '\0' : ' ');
  out += "BLOB";
  if (options.zstd) out += "Zstd";
  else putU32(out, 0);
  putU64(out, blob.size());
  out += blob;
  return out;
}

Status checkOptions(const G4mfWriteOptions& options) {
  if (options.zstd && options.container != G4mfContainer::kBinary) return usage("Zstd compression needs the binary container (.g4b)");
  if (options.zstd && (options.zstd_level < ZSTD_minCLevel() || options.zstd_level > ZSTD_maxCLevel()))
    return usage("Zstd level " + std::to_string(options.zstd_level) + " out of range");
  return {};
}

}  // namespace

Expected<std::string> writeG4mf(const ExportModel& m, const G4mfWriteOptions& options) {
  RIGFIT_TRY(validateExportModel(m));
  RIGFIT_TRY(checkOptions(options));
  std::vector<std::string> taken(m.names.begin(), m.names.end());
  const DocumentNames names = documentNames(m, options, taken);

  G4mfBuffer b;
  Json meshes = Json::array();
  bool any_skin = false;
  for (std::size_t k = 0; k < m.meshes.size(); ++k) {
    bool skinned = false;
    auto mesh = writeG4mfMesh(m.meshes[k], names.meshes[k], static_cast<int>(k), m.names, options, b, taken, skinned);
    if (!mesh) return mesh.error();
    meshes.push(std::move(*mesh));
    any_skin = any_skin || skinned;
  }
  Json nodes = Json::array();
  appendRootAndSkeleton(m, names, options, any_skin, nodes);
  RIGFIT_TRY(appendBones(m, nodes));
  for (std::size_t k = 0; k < m.meshes.size(); ++k) {
    Json node = Json::object();
    node.set("name", names.meshes[k].node);
    Json instance = Json::object();
    instance.set("mesh", static_cast<std::int64_t>(k));
    node.set("meshInstance", std::move(instance));
    nodes.push(std::move(node));
  }

  Json doc = Json::object();
  Json asset = Json::object();
  asset.set("dimension", 3);
  asset.set("generator", std::string("rigfit ") + RIGFIT_VERSION_STRING);
  asset.set("specification", kSpecification);
  if (options.asset_extras.isObject() && options.asset_extras.size()) asset.set("extras", options.asset_extras);
  doc.set("asset", std::move(asset));
  doc.set("nodes", std::move(nodes));
  doc.set("meshes", std::move(meshes));
  Textures textures = writeTextures(m, b, taken);
  Json materials = Json::array();
  for (std::size_t k = 0; k < m.meshes.size(); ++k) materials.push(material(m.meshes[k].material, names.meshes[k].material, textures));
  doc.set("materials", std::move(materials));
  if (textures.textures.size()) {
    doc.set("textures", std::move(textures.textures));
    doc.set("files", std::move(textures.files));
  }
  doc.set("accessors", std::move(b.accessors));
  doc.set("bufferViews", std::move(b.views));
  std::string blob;
  auto buffers = buffersJson(std::move(b.bin), options, blob);
  if (!buffers) return buffers.error();
  doc.set("buffers", std::move(*buffers));

  JsonWriteOptions jo;
  jo.sort_keys = false;
  jo.inline_numbers = true;
  jo.indent = options.container == G4mfContainer::kBinary ? -1 : 1;
  // ASCII only (every other character \u-escaped), LF only, no BOM (§1.1).
  std::string json = writeJson(doc, jo);
  if (options.container != G4mfContainer::kBinary) return json + '\n';
  return packBinary(json, blob, options);
}

}  // namespace rigfit
