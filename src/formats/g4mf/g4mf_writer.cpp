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
//                 which G4MF lacks, in extras
// One buffer (§4); one view per array, aligned to its component size (§6); identical views and
// accessors reused (§3 uniqueItems); indices in the smallest unsigned type; little-endian.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <zstd.h>

#include "core/base64.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/json.hpp"
#include "rigfit/version.hpp"

namespace rigfit {
namespace {

static_assert(std::endian::native == std::endian::little, "the G4MF writer stores native little-endian data");

constexpr const char* kSpecification = "https://github.com/godot-dimensions/g4mf";
constexpr double kRotationTolerance = 1e-10;  // |AᵀA - S²| per entry, relative, below which A = R·S

Error usage(std::string what) { return makeError(ErrorCode::kUsage, "G4MF: " + std::move(what)); }

class BufferBuilder {
 public:
  // Appends `size` bytes aligned to `component_size`; identical data of the same component size
  // reuses its view. Returns the view index.
  int view(const void* data, std::size_t size, std::size_t component_size) {
    std::string key(static_cast<const char*>(data), size);
    key.push_back(static_cast<char>(component_size));
    auto it = view_index_.find(key);
    if (it != view_index_.end()) return it->second;
    while (bin_.size() % component_size) bin_.push_back('\0');
    Json v = Json::object();
    v.set("byteLength", static_cast<std::int64_t>(size));
    if (!bin_.empty()) v.set("byteOffset", static_cast<std::int64_t>(bin_.size()));
    bin_.append(static_cast<const char*>(data), size);
    views_.push(std::move(v));
    const int index = static_cast<int>(views_.size() - 1);
    view_index_.emplace(std::move(key), index);
    return index;
  }
  int accessor(int view, const char* component_type, int vector_size) {
    const auto key = std::make_tuple(view, std::string(component_type), vector_size);
    auto it = accessor_index_.find(key);
    if (it != accessor_index_.end()) return it->second;
    Json a = Json::object();
    a.set("bufferView", view);
    a.set("componentType", component_type);
    if (vector_size != 1) a.set("vectorSize", vector_size);
    accessors_.push(std::move(a));
    const int index = static_cast<int>(accessors_.size() - 1);
    accessor_index_.emplace(key, index);
    return index;
  }
  int floats(const std::vector<float>& data, int vector_size) {
    return accessor(view(data.data(), data.size() * sizeof(float), sizeof(float)), "float32", vector_size);
  }
  // Unsigned integers in the smallest type that holds `max_value`.
  int indices(const std::vector<std::uint32_t>& data, std::uint64_t max_value, int vector_size) {
    if (max_value <= 0xFF) {
      std::vector<std::uint8_t> v(data.begin(), data.end());
      return accessor(view(v.data(), v.size(), 1), "uint8", vector_size);
    }
    if (max_value <= 0xFFFF) {
      std::vector<std::uint16_t> v(data.begin(), data.end());
      return accessor(view(v.data(), v.size() * 2, 2), "uint16", vector_size);
    }
    return accessor(view(data.data(), data.size() * 4, 4), "uint32", vector_size);
  }

  std::string bin_;
  Json views_ = Json::array(), accessors_ = Json::array();

 private:
  std::map<std::string, int> view_index_;
  std::map<std::tuple<int, std::string, int>, int> accessor_index_;
};

std::uint32_t maxOf(const std::vector<std::uint32_t>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

Json numberArray(const double* v, int n) {
  Json a = Json::array();
  for (int k = 0; k < n; ++k) a.push(v[k] == 0.0 ? 0.0 : v[k]);  // no "-0.0"
  return a;
}

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

// The names of a mesh's items (§3: file-unique).
struct MeshNames {
  std::string node, mesh, surface, material;
};

// A mesh's material (§9.4): base colour and ORM factors. G4MF has no alpha mode or sidedness:
// those go to extras (alphaMode, alphaCutoff, doubleSided) when not glTF's defaults.
Json material(const ExportMaterial& mat, const std::string& name) {
  Json out = Json::object();
  out.set("name", name);
  Json base = Json::object(), orm = Json::object();
  const auto& c = mat.base_color;
  const double color[4] = {c[0], c[1], c[2], c[3]};
  base.set("factor", numberArray(color, 4));
  out.set("baseColor", std::move(base));
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

// One mesh (§9, §11, §14) into `buf`: returns its JSON (its surface uses material `material`);
// `skinned` tells whether it has a skin. Blend shape names are made unique against `taken`.
Expected<Json> writeMesh(const ExportMesh& m, const MeshNames& names, int material, const std::vector<std::string>& bone_names,
                         const G4mfWriteOptions& options, BufferBuilder& buf, std::vector<std::string>& taken, bool& skinned) {
  const std::size_t nv = m.vertexCount();
  const bool has_skin = !m.skin.offsets.empty();

  // G4MF vertices: export vertices with the same source vertex, position and influences merge.
  std::vector<std::uint32_t> g4_of(nv);
  std::vector<std::uint32_t> first_export;  // per G4MF vertex
  {
    std::unordered_map<std::uint32_t, std::uint32_t> by_source;
    by_source.reserve(nv);
    auto sameSkin = [&](std::size_t a, std::size_t b) {
      if (!has_skin) return true;
      const Skin& s = m.skin;
      if (s.influenceCount(a) != s.influenceCount(b)) return false;
      return std::equal(s.bones.begin() + s.offsets[a], s.bones.begin() + s.offsets[a + 1], s.bones.begin() + s.offsets[b]) &&
             std::equal(s.weights.begin() + s.offsets[a], s.weights.begin() + s.offsets[a + 1], s.weights.begin() + s.offsets[b]);
    };
    for (std::size_t e = 0; e < nv; ++e) {
      if (!m.source_vertex.empty()) {
        auto it = by_source.find(m.source_vertex[e]);
        if (it != by_source.end()) {
          const std::uint32_t f = first_export[it->second];
          if (std::memcmp(&m.positions[3 * e], &m.positions[3 * std::size_t(f)], 3 * sizeof(float)) == 0 && sameSkin(e, f)) {
            g4_of[e] = it->second;
            continue;
          }
        }
      }
      g4_of[e] = static_cast<std::uint32_t>(first_export.size());
      if (!m.source_vertex.empty()) by_source.emplace(m.source_vertex[e], g4_of[e]);
      first_export.push_back(static_cast<std::uint32_t>(e));
    }
  }
  const std::size_t ng = first_export.size();
  std::vector<float> g4_positions;
  g4_positions.reserve(3 * ng);
  for (std::uint32_t e : first_export) g4_positions.insert(g4_positions.end(), &m.positions[3 * std::size_t(e)], &m.positions[3 * std::size_t(e)] + 3);

  // Simplexes: polygon fans (rotated against accidental merging, §9.2) or the plain triangles.
  std::vector<std::uint32_t> simplexes, corner_values;  // G4MF vertex / export vertex per corner
  const bool polytopes = m.polygon_offsets.size() >= 2;
  if (polytopes) {
    std::uint32_t previous_first = 0xFFFFFFFFu;
    for (std::size_t p = 0; p + 1 < m.polygon_offsets.size(); ++p) {
      const std::uint32_t a = m.polygon_offsets[p], n = m.polygon_offsets[p + 1] - a;
      std::uint32_t start = 0;
      while (start < n && g4_of[m.polygon_corners[a + start]] == previous_first) ++start;
      if (start == n) start = 0;
      auto corner = [&](std::uint32_t k) { return m.polygon_corners[a + (start + k) % n]; };
      for (std::uint32_t k = 1; k + 1 < n; ++k)
        for (std::uint32_t e : {corner(0), corner(k), corner(k + 1)}) {
          simplexes.push_back(g4_of[e]);
          corner_values.push_back(e);
        }
      previous_first = g4_of[corner(0)];
    }
  } else {
    for (std::uint32_t e : m.triangles) {
      simplexes.push_back(g4_of[e]);
      corner_values.push_back(e);
    }
  }

  // Skin triples (§11), per G4MF vertex from its first export vertex.
  std::vector<std::uint32_t> skin_vertices, skin_groups;
  std::vector<float> skin_weights;
  if (has_skin) {
    std::vector<std::pair<float, std::uint32_t>> entries;
    for (std::size_t g = 0; g < ng; ++g) {
      const std::size_t e = first_export[g];
      entries.clear();
      double total = 0.0;
      for (std::uint32_t k = m.skin.offsets[e]; k < m.skin.offsets[e + 1]; ++k) {
        if (m.skin.weights[k] > 0.0f) entries.emplace_back(m.skin.weights[k], m.skin.bones[k]);
        total += m.skin.weights[k];
      }
      if (options.normalize_weights) {
        if (total <= 1e-4) continue;
        for (auto& [w, b] : entries) w = static_cast<float>(w / total);
      }
      std::sort(entries.begin(), entries.end(), [](const auto& x, const auto& y) {
        return x.first != y.first ? x.first > y.first : x.second < y.second;
      });
      for (const auto& [w, b] : entries) {
        skin_vertices.push_back(static_cast<std::uint32_t>(g));
        skin_groups.push_back(b);
        skin_weights.push_back(w);
      }
    }
  }

  // Buffer: floats first, then integers (each view aligned to its component size).
  const int vertices_acc = buf.floats(g4_positions, 3);
  int normals_acc = -1, uvs_acc = -1, weights_acc = -1;
  const bool has_simplexes = !simplexes.empty();
  if (has_simplexes && !m.normals.empty()) {
    std::vector<float> normals(m.normals);
    for (std::size_t v = 0; v < nv; ++v) {
      float* n = &normals[3 * v];
      const double len = std::sqrt(double(n[0]) * n[0] + double(n[1]) * n[1] + double(n[2]) * n[2]);  // > 0 (validated)
      if (std::abs(len - 1.0) > 1e-6)
        for (int c = 0; c < 3; ++c) n[c] = static_cast<float>(n[c] / len);
    }
    normals_acc = buf.floats(normals, 3);
  }
  if (has_simplexes && !m.uvs.empty()) {
    std::vector<float> uv(m.uvs);
    for (std::size_t i = 1; i < uv.size(); i += 2) uv[i] = 1.0f - uv[i];  // OBJ origin bottom-left, G4MF top-left (§8)
    uvs_acc = buf.floats(uv, 2);
  }
  if (!skin_weights.empty()) weights_acc = buf.floats(skin_weights, 1);
  int simplexes_acc = -1, corner_acc = -1;
  if (has_simplexes) {
    simplexes_acc = buf.indices(simplexes, ng ? ng - 1 : 0, 3);
    if (normals_acc >= 0 || uvs_acc >= 0) corner_acc = buf.indices(corner_values, nv ? nv - 1 : 0, 3);
  }
  int skin_vertices_acc = -1, skin_groups_acc = -1;
  if (!skin_weights.empty()) {
    skin_vertices_acc = buf.indices(skin_vertices, maxOf(skin_vertices), 1);
    skin_groups_acc = buf.indices(skin_groups, maxOf(skin_groups), 1);
  }

  // Mesh.
  Json surface = Json::object();
  surface.set("name", names.surface);
  surface.set("material", material);
  if (has_simplexes) {
    surface.set("simplexes", simplexes_acc);
    if (polytopes) surface.set("polytopeSimplexes", true);
    auto binding = [&](int values) {
      Json bnd = Json::object();
      bnd.set("values", values);
      bnd.set("simplexes", corner_acc);
      return bnd;
    };
    if (normals_acc >= 0) surface.set("normals", binding(normals_acc));
    if (uvs_acc >= 0) surface.set("textureMap", binding(uvs_acc));
  }
  Json surfaces = Json::array();
  surfaces.push(std::move(surface));
  Json mesh = Json::object();
  mesh.set("name", names.mesh);
  mesh.set("vertices", vertices_acc);
  mesh.set("surfaces", std::move(surfaces));
  if (!skin_weights.empty()) {
    Json skin = Json::object();
    Json group_names = Json::array();
    for (const std::string& name : bone_names) group_names.push(name);
    skin.set("groupNames", std::move(group_names));
    skin.set("vertices", skin_vertices_acc);
    skin.set("groups", skin_groups_acc);
    skin.set("weights", weights_acc);
    mesh.set("skin", std::move(skin));
  }
  if (!m.morphs.empty()) {
    // Blend shapes: each morph's moved vertices as G4MF vertices (the first export vertex of each
    // merged G4MF vertex carries it; merged vertices share their source vertex, so their delta).
    Json shapes = Json::array();
    for (const ExportMorph& morph : m.morphs) {
      std::vector<std::uint32_t> indices;
      std::vector<float> offsets;
      for (std::size_t i = 0; i < morph.vertices.size(); ++i) {
        const std::uint32_t e = morph.vertices[i];
        const std::uint32_t g = g4_of[e];
        const float* d = &morph.deltas[3 * i];
        if (first_export[g] != e || (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f)) continue;
        indices.push_back(g);
        offsets.insert(offsets.end(), &morph.deltas[3 * i], &morph.deltas[3 * i] + 3);
      }
      Json shape = Json::object();
      shape.set("name", uniqueName(taken, exportName(morph.name)));
      if (!indices.empty()) {
        Json position = Json::object();
        position.set("indices", buf.indices(indices, maxOf(indices), 1));
        position.set("offsets", buf.floats(offsets, 3));
        shape.set("position", std::move(position));
      }
      // Normal deltas: the surface's normal values are the export vertices' normals, so the
      // target indexes them by export vertex.
      if (normals_acc >= 0 && !morph.normal_deltas.empty()) {
        std::vector<std::uint32_t> turned;
        std::vector<float> turns;
        for (std::size_t i = 0; i < morph.vertices.size(); ++i) {
          const float* d = &morph.normal_deltas[3 * i];
          if (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f) continue;
          turned.push_back(morph.vertices[i]);
          turns.insert(turns.end(), d, d + 3);
        }
        if (!turned.empty()) {
          Json normal = Json::object();
          normal.set("indices", buf.indices(turned, maxOf(turned), 1));
          normal.set("offsets", buf.floats(turns, 3));
          Json surface_target = Json::object();
          surface_target.set("surface", 0);
          surface_target.set("normal", std::move(normal));
          Json shape_surfaces = Json::array();
          shape_surfaces.push(std::move(surface_target));
          shape.set("surfaces", std::move(shape_surfaces));
        }
      }
      shapes.push(std::move(shape));
    }
    Json blend = Json::object();
    blend.set("shapes", std::move(shapes));
    mesh.set("blend", std::move(blend));
  }
  skinned = !skin_weights.empty();
  return mesh;
}

}  // namespace

Expected<std::string> writeG4mf(const ExportModel& m, const G4mfWriteOptions& options) {
  RIGFIT_TRY(validateExportModel(m));
  if (options.zstd && options.container != G4mfContainer::kBinary) return usage("Zstd compression needs the binary container (.g4b)");
  if (options.zstd && (options.zstd_level < ZSTD_minCLevel() || options.zstd_level > ZSTD_maxCLevel()))
    return usage("Zstd level " + std::to_string(options.zstd_level) + " out of range");
  const std::size_t nb = m.names.size(), nm = m.meshes.size();

  // Item names: bones keep theirs; the others are made unique against them (§3).
  std::vector<std::string> taken(m.names.begin(), m.names.end());
  const std::string root_name = uniqueName(taken, exportName(options.root_name));
  const std::string skeleton_name = uniqueName(taken, exportName(options.skeleton_name));
  std::vector<MeshNames> mesh_names;
  for (const ExportMesh& mesh : m.meshes) {
    MeshNames& n = mesh_names.emplace_back();
    n.node = uniqueName(taken, exportName(mesh.name));
    n.mesh = uniqueName(taken, n.node + "Mesh");
    n.surface = uniqueName(taken, n.node + "Surface");
  }
  // Materials keep their name when it is free, else get the suffix "Material" ("Body" is the
  // body's node: its material is "BodyMaterial").
  for (std::size_t k = 0; k < nm; ++k) {
    const std::string name = exportName(m.meshes[k].material.name);
    const bool free = std::find(taken.begin(), taken.end(), name) == taken.end();
    mesh_names[k].material = uniqueName(taken, free ? name : name + "Material");
  }

  BufferBuilder b;
  Json meshes = Json::array();
  bool any_skin = false;
  for (std::size_t k = 0; k < nm; ++k) {
    bool skinned = false;
    auto mesh = writeMesh(m.meshes[k], mesh_names[k], static_cast<int>(k), m.names, options, b, taken, skinned);
    if (!mesh) return mesh.error();
    meshes.push(std::move(*mesh));
    any_skin = any_skin || skinned;
  }

  // Nodes.
  const std::int64_t skeleton_node = 1, first_bone = 2, first_mesh_node = first_bone + static_cast<std::int64_t>(nb);
  Json nodes = Json::array();
  {
    Json root = Json::object();
    root.set("name", root_name);
    Json children = Json::array();
    children.push(skeleton_node);
    root.set("children", std::move(children));
    nodes.push(std::move(root));
  }
  {
    Json skeleton = Json::object();
    skeleton.set("name", skeleton_name);
    Json skel = Json::object();
    if (any_skin && nb) {
      Json joints = Json::array();
      for (std::size_t i = 0; i < nb; ++i) joints.push(first_bone + static_cast<std::int64_t>(i));
      skel.set("joints", std::move(joints));
    }
    skeleton.set("skeleton", std::move(skel));
    Json children = Json::array();
    for (std::size_t i = 0; i < nb; ++i)
      if (m.parents[i] < 0) children.push(first_bone + static_cast<std::int64_t>(i));
    for (std::size_t k = 0; k < nm; ++k) children.push(first_mesh_node + static_cast<std::int64_t>(k));
    skeleton.set("children", std::move(children));
    if (!options.rig_name.empty()) {
      Json extras = Json::object();
      extras.set("rig", options.rig_name);
      skeleton.set("extras", std::move(extras));
    }
    nodes.push(std::move(skeleton));
  }
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
  for (std::size_t k = 0; k < nm; ++k) {
    Json node = Json::object();
    node.set("name", mesh_names[k].node);
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
  Json materials = Json::array();
  for (std::size_t k = 0; k < nm; ++k) materials.push(material(m.meshes[k].material, mesh_names[k].material));
  doc.set("materials", std::move(materials));
  doc.set("accessors", std::move(b.accessors_));
  doc.set("bufferViews", std::move(b.views_));

  const bool binary = options.container == G4mfContainer::kBinary;
  std::string blob;
  {
    Json buffer = Json::object();
    buffer.set("byteLength", static_cast<std::int64_t>(b.bin_.size()));
    if (binary) {
      buffer.set("chunk", 1);
      if (options.zstd) {
        buffer.set("encoding", "Zstd");
        auto packed = zstdCompress(b.bin_, options.zstd_level);
        if (!packed) return packed.error();
        blob = std::move(*packed);
      } else {
        blob = std::move(b.bin_);
      }
    } else {
      buffer.set("uri", octetStreamDataUri(b.bin_));
    }
    Json buffers = Json::array();
    buffers.push(std::move(buffer));
    doc.set("buffers", std::move(buffers));
  }

  JsonWriteOptions jo;
  jo.sort_keys = false;
  jo.inline_numbers = true;
  jo.indent = binary ? -1 : 1;
  // ASCII only (every other character \u-escaped), LF only, no BOM (§1.1).
  std::string json = writeJson(doc, jo);
  if (!binary) {
    json.push_back('\n');
    return json;
  }

  // Binary container (§1.2): header, JSON chunk, BLOB chunk; headers on 16-byte boundaries.
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
  out.append(align16(json_end) - json_end, options.zstd ? '\0' : ' ');  // spaces after plain JSON
  out += "BLOB";
  if (options.zstd) out += "Zstd";
  else putU32(out, 0);
  putU64(out, blob.size());
  out += blob;
  return out;
}

}  // namespace rigfit
