// ExportModel: the frame change, helper removal, vertex splitting, names and skin remap shared
// by the G4MF and glTF writers.
#include "rigfit/export_model.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Geometry>
#include <Eigen/LU>

namespace rigfit {

Eigen::Matrix4d rigToExportFrame() {
  Eigen::Matrix4d c = Eigen::Matrix4d::Zero();
  c(0, 0) = 1.0;   // x' = x
  c(1, 2) = 1.0;   // y' = z
  c(2, 1) = -1.0;  // z' = -y
  c(3, 3) = 1.0;
  return c;
}

std::string exportName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    const bool bad = c < 0x20 || c == 0x7F || std::string_view("\"#*.:|?@<>{}[]/\\%").find(ch) != std::string_view::npos;
    out.push_back(bad ? '_' : ch);
  }
  // U+0080..U+009F (C1 controls) arrive as C2 80..C2 9F in UTF-8.
  for (std::size_t k = 0; k + 1 < out.size(); ++k)
    if (static_cast<unsigned char>(out[k]) == 0xC2 && static_cast<unsigned char>(out[k + 1]) >= 0x80 &&
        static_cast<unsigned char>(out[k + 1]) <= 0x9F) {
      out.replace(k, 2, "_");
    }
  return out.empty() ? "_" : out;
}

std::string uniqueName(std::vector<std::string>& taken, const std::string& name) {
  std::string candidate = name;
  for (int n = 2; std::find(taken.begin(), taken.end(), candidate) != taken.end(); ++n) candidate = name + "_" + std::to_string(n);
  taken.push_back(candidate);
  return candidate;
}

namespace {

// Angle-weighted normals; faces whose vertices are all `skip`ped are left out (the normals of
// the other vertices do not depend on them).
void angleWeightedNormals(const Mesh& mesh, std::span<const float> positions, std::span<float> out, const std::uint8_t* skip) {
  std::fill(out.begin(), out.end(), 0.0f);
  std::vector<double> acc(positions.size(), 0.0);
  auto P = [&](std::uint32_t v) {
    return Eigen::Vector3d(positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]);
  };
  for (std::size_t f = 0; f < mesh.faceCount(); ++f) {
    const std::uint32_t a = mesh.face_offsets[f], b = mesh.face_offsets[f + 1];
    const std::uint32_t n = b - a;
    if (skip) {
      bool all = true;
      for (std::uint32_t k = a; k < b && all; ++k) all = skip[mesh.corner_vertices[k]] != 0;
      if (all) continue;
    }
    // Newell's method: robust for non-planar quads.
    Eigen::Vector3d fn = Eigen::Vector3d::Zero();
    for (std::uint32_t k = 0; k < n; ++k) {
      const Eigen::Vector3d p = P(mesh.corner_vertices[a + k]), q = P(mesh.corner_vertices[a + (k + 1) % n]);
      fn += Eigen::Vector3d((p.y() - q.y()) * (p.z() + q.z()), (p.z() - q.z()) * (p.x() + q.x()), (p.x() - q.x()) * (p.y() + q.y()));
    }
    const double len = fn.norm();
    if (len == 0.0) continue;
    fn /= len;
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t v = mesh.corner_vertices[a + k];
      const Eigen::Vector3d e1 = P(mesh.corner_vertices[a + (k + n - 1) % n]) - P(v);
      const Eigen::Vector3d e2 = P(mesh.corner_vertices[a + (k + 1) % n]) - P(v);
      const double l1 = e1.norm(), l2 = e2.norm();
      if (l1 == 0.0 || l2 == 0.0) continue;
      const double angle = std::acos(std::clamp(e1.dot(e2) / (l1 * l2), -1.0, 1.0));
      for (int c = 0; c < 3; ++c) acc[3 * v + static_cast<std::size_t>(c)] += fn[c] * angle;
    }
  }
  for (std::size_t v = 0; v + 2 < acc.size(); v += 3) {
    const double len = std::sqrt(acc[v] * acc[v] + acc[v + 1] * acc[v + 1] + acc[v + 2] * acc[v + 2]);
    if (len > 0.0) {
      for (int c = 0; c < 3; ++c) out[v + static_cast<std::size_t>(c)] = static_cast<float>(acc[v + static_cast<std::size_t>(c)] / len);
    } else {
      out[v + 2] = 1.0f;
    }
  }
}

}  // namespace

void vertexNormals(const Mesh& mesh, std::span<const float> positions, std::span<float> out) {
  angleWeightedNormals(mesh, positions, out, nullptr);
}

namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;

struct CornerKey {
  std::int32_t uv, n;
};

std::vector<std::uint8_t> helperMask(const VertexGroups* groups, std::size_t n) {
  std::vector<std::uint8_t> helper(n, 0);
  if (!groups) return helper;
  for (std::size_t g = 0; g < groups->names.size(); ++g) {
    const std::string& name = groups->names[g];
    const bool is_helper = name == "HelperGeometry" || name == "JointCubes" || name.rfind("helper-", 0) == 0 ||
                           name.rfind("joint-", 0) == 0;
    if (!is_helper) continue;
    for (const auto& r : groups->ranges[g])
      for (std::uint32_t v = r.first; v <= r.last && v < n; ++v) helper[v] = 1;
  }
  return helper;
}

}  // namespace

Expected<ExportModel> buildExportModel(const Mesh& mesh, const Skeleton& skeleton, const Skin* skin, const VertexGroups* groups,
                                       const ExportOptions& options, std::span<const float> positions,
                                       std::span<const Eigen::Matrix4d> bind, std::span<const float> normals) {
  const std::size_t nv = mesh.vertexCount();
  if (positions.empty()) positions = mesh.positions;
  if (bind.empty()) bind = skeleton.rest;
  if (positions.size() != 3 * nv) return makeError(ErrorCode::kUsage, "export: positions do not match the mesh");
  if (bind.size() != skeleton.size()) return makeError(ErrorCode::kUsage, "export: bind matrices do not match the skeleton");
  if (!normals.empty() && normals.size() != 3 * nv) return makeError(ErrorCode::kUsage, "export: normals do not match the mesh");
  if (skin && skin->vertex_count != nv) return makeError(ErrorCode::kMismatch, "export: the skin is for " + std::to_string(skin->vertex_count) +
                                                                                   " vertices, the mesh has " + std::to_string(nv));
  if (skeleton.size() > 65535) return makeError(ErrorCode::kUnsupported, "export: more than 65535 bones");
  ExportModel m;
  const Eigen::Matrix4d c = rigToExportFrame();
  const Eigen::Matrix3d c3 = c.topLeftCorner<3, 3>();

  // Skeleton: every bone, or the deforming ones re-parented (globals kept, locals recomputed).
  BoneSelection selection;
  if (options.deform_only) {
    if (!skin) return makeError(ErrorCode::kUsage, "export: --deform-only needs weights to tell deforming bones");
    auto s = selectDeformBones(skeleton.parents, *skin);
    if (!s) return s.error();
    selection = std::move(*s);
  } else {
    for (std::size_t i = 0; i < skeleton.size(); ++i) selection.bones.push_back(static_cast<int>(i));
    selection.parents = skeleton.parents;
  }
  const std::size_t nb = selection.bones.size();
  std::vector<int> new_index(skeleton.size(), -1);
  std::vector<std::string> taken;
  for (std::size_t k = 0; k < nb; ++k) {
    const auto i = static_cast<std::size_t>(selection.bones[k]);
    new_index[i] = static_cast<int>(k);
    m.source_bones.push_back(static_cast<int>(i));
    m.source_names.push_back(skeleton.names[i]);
    m.names.push_back(uniqueName(taken, exportName(skeleton.names[i])));
    const int p = selection.parents[k];
    m.parents.push_back(p);
    m.bind_global.push_back(c * bind[i]);
    m.bind_local.push_back(p < 0 ? m.bind_global.back() : Eigen::Matrix4d(m.bind_global[static_cast<std::size_t>(p)].inverse() * m.bind_global.back()));
    m.lengths.push_back(skeleton.lengths[i]);
    m.rolls.push_back(skeleton.rolls[i]);
    m.heads.push_back(c3 * skeleton.heads[i]);
    m.tails.push_back(c3 * skeleton.tails[i]);
  }

  // Normals in the rig frame: given, else per-corner OBJ normals, else computed.
  const std::vector<std::uint8_t> helper = options.keep_helpers ? std::vector<std::uint8_t>(nv, 0) : helperMask(groups, nv);
  std::vector<float> computed;
  const bool corner_normals = normals.empty() && !mesh.normals.empty();
  if (normals.empty() && !corner_normals) {
    computed.resize(3 * nv);
    angleWeightedNormals(mesh, positions, computed, helper.data());  // helpers' own normals are not exported
    normals = computed;
  }
  const bool has_uv = !mesh.uvs.empty();

  // Export vertices per (vertex, UV, normal) corner key, found through a chain per source vertex
  // (first_of[v], then next_of[e]): chains are one to four long on MakeHuman meshes.
  std::vector<std::uint32_t> first_of(nv, kNone), next_of;
  std::vector<std::int32_t> key_uv, key_n;
  const std::size_t corners_guess = mesh.corner_vertices.size();
  next_of.reserve(nv + nv / 4);
  key_uv.reserve(nv + nv / 4);
  key_n.reserve(nv + nv / 4);
  m.source_vertex.reserve(nv + nv / 4);
  m.positions.reserve(3 * (nv + nv / 4));
  m.normals.reserve(3 * (nv + nv / 4));
  if (has_uv) m.uvs.reserve(2 * (nv + nv / 4));
  m.polygon_corners.reserve(corners_guess);
  m.polygon_offsets.reserve(mesh.faceCount() + 1);
  m.triangles.reserve(3 * (corners_guess - std::min(corners_guess, 2 * mesh.faceCount())));
  m.polygon_offsets.push_back(0);
  for (std::size_t f = 0; f < mesh.faceCount(); ++f) {
    const std::uint32_t a = mesh.face_offsets[f], b = mesh.face_offsets[f + 1];
    bool keep = true;
    for (std::uint32_t k = a; k < b; ++k) keep = keep && !helper[mesh.corner_vertices[k]];
    if (!keep) continue;
    for (std::uint32_t k = a; k < b; ++k) {
      const std::uint32_t v = mesh.corner_vertices[k];
      const std::int32_t kuv = has_uv ? mesh.corner_uvs[k] : -1, kn = corner_normals ? mesh.corner_normals[k] : -1;
      std::uint32_t* link = &first_of[v];
      while (*link != kNone && (key_uv[*link] != kuv || key_n[*link] != kn)) link = &next_of[*link];
      const bool added = *link == kNone;
      if (added) *link = static_cast<std::uint32_t>(m.source_vertex.size());
      const std::uint32_t e = *link;  // (next_of may grow below)
      if (added) {
        next_of.push_back(kNone);
        key_uv.push_back(kuv);
        key_n.push_back(kn);
        const CornerKey key{kuv, kn};
        m.source_vertex.push_back(v);
        const Eigen::Vector3d p = c3 * Eigen::Vector3d(positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]);
        Eigen::Vector3d n;
        if (corner_normals && key.n >= 0) {
          const auto q = static_cast<std::size_t>(key.n);
          n = Eigen::Vector3d(mesh.normals[3 * q], mesh.normals[3 * q + 1], mesh.normals[3 * q + 2]);
        } else if (!corner_normals) {
          n = Eigen::Vector3d(normals[3 * v], normals[3 * v + 1], normals[3 * v + 2]);
        } else {
          n = Eigen::Vector3d(0, 0, 1);
        }
        n = c3 * n;
        for (int k2 = 0; k2 < 3; ++k2) {
          m.positions.push_back(static_cast<float>(p[k2]));
          m.normals.push_back(static_cast<float>(n[k2]));
        }
        if (has_uv) {
          const auto t = static_cast<std::size_t>(std::max(key.uv, 0));
          m.uvs.push_back(key.uv >= 0 ? mesh.uvs[2 * t] : 0.0f);
          m.uvs.push_back(key.uv >= 0 ? mesh.uvs[2 * t + 1] : 0.0f);
        }
      }
      m.polygon_corners.push_back(e);
    }
    m.polygon_offsets.push_back(static_cast<std::uint32_t>(m.polygon_corners.size()));
    const std::uint32_t first = m.polygon_offsets[m.polygon_offsets.size() - 2];
    for (std::uint32_t k = first + 1; k + 1 < m.polygon_offsets.back(); ++k) {
      m.triangles.push_back(m.polygon_corners[first]);
      m.triangles.push_back(m.polygon_corners[k]);
      m.triangles.push_back(m.polygon_corners[k + 1]);
    }
  }

  if (skin) {
    Skin& s = m.skin;
    s.vertex_count = m.source_vertex.size();
    s.bone_count = options.deform_only ? nb : skin->bone_count;
    s.offsets.assign(1, 0);
    for (std::uint32_t v : m.source_vertex) {
      for (std::uint32_t k = skin->offsets[v]; k < skin->offsets[v + 1]; ++k) {
        const int b = skin->bones[k] < new_index.size() ? new_index[skin->bones[k]] : -1;
        if (b < 0) continue;  // a removed bone: it carries no weight
        s.bones.push_back(static_cast<std::uint16_t>(b));
        s.weights.push_back(skin->weights[k]);
      }
      s.offsets.push_back(static_cast<std::uint32_t>(s.bones.size()));
    }
    s.mask_names = skin->mask_names;
    for (const auto& mask : skin->masks) {
      std::vector<float> remapped;
      remapped.reserve(m.source_vertex.size());
      for (std::uint32_t v : m.source_vertex) remapped.push_back(mask[v]);
      s.masks.push_back(std::move(remapped));
    }
  }
  return m;
}

}  // namespace rigfit
