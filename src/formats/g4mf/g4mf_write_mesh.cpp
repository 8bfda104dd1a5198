// The G4MF writer's meshes (§9, §11, §14): merged vertices, polygon-fan simplexes, normals and
// UVs through corner bindings, the skin as triples and the blend shapes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "formats/g4mf/g4mf_write.hpp"

namespace rigfit::detail {
namespace {

// G4MF vertices (§9.1): export vertices with the same source vertex, position and influences
// merge. g4_of: export vertex -> G4MF vertex; first_export: G4MF vertex -> its first export vertex.
struct MergedVertices {
  std::vector<std::uint32_t> g4_of, first_export;
};

bool sameInfluences(const Skin& s, std::size_t a, std::size_t b) {
  if (s.influenceCount(a) != s.influenceCount(b)) return false;
  return std::equal(s.bones.begin() + s.offsets[a], s.bones.begin() + s.offsets[a + 1], s.bones.begin() + s.offsets[b]) &&
         std::equal(s.weights.begin() + s.offsets[a], s.weights.begin() + s.offsets[a + 1], s.weights.begin() + s.offsets[b]);
}

MergedVertices mergeVertices(const ExportMesh& m) {
  const std::size_t nv = m.vertexCount();
  const bool has_skin = !m.skin.offsets.empty();
  MergedVertices out;
  out.g4_of.resize(nv);
  std::unordered_map<std::uint32_t, std::uint32_t> by_source;
  by_source.reserve(nv);
  for (std::size_t e = 0; e < nv; ++e) {
    if (!m.source_vertex.empty()) {
      auto it = by_source.find(m.source_vertex[e]);
      if (it != by_source.end()) {
        const std::uint32_t f = out.first_export[it->second];
        if (std::memcmp(&m.positions[3 * e], &m.positions[3 * std::size_t(f)], 3 * sizeof(float)) == 0 &&
            (!has_skin || sameInfluences(m.skin, e, f))) {
          out.g4_of[e] = it->second;
          continue;
        }
      }
    }
    out.g4_of[e] = static_cast<std::uint32_t>(out.first_export.size());
    if (!m.source_vertex.empty()) by_source.emplace(m.source_vertex[e], out.g4_of[e]);
    out.first_export.push_back(static_cast<std::uint32_t>(e));
  }
  return out;
}

// Simplexes (§9.2): polygon fans, each rotated so that its first vertex differs from the previous
// polygon's (against accidental merging), or the plain triangles. Per corner: the G4MF vertex and
// the export vertex (which indexes the normal and UV values).
struct Simplexes {
  std::vector<std::uint32_t> vertices, corner_values;
  bool polytopes = false;
};

Simplexes buildSimplexes(const ExportMesh& m, const std::vector<std::uint32_t>& g4_of) {
  Simplexes out;
  auto add = [&](std::uint32_t e) {
    out.vertices.push_back(g4_of[e]);
    out.corner_values.push_back(e);
  };
  out.polytopes = m.polygon_offsets.size() >= 2;
  if (!out.polytopes) {
    for (std::uint32_t e : m.triangles) add(e);
    return out;
  }
  std::uint32_t previous_first = 0xFFFFFFFFu;
  for (std::size_t p = 0; p + 1 < m.polygon_offsets.size(); ++p) {
    const std::uint32_t a = m.polygon_offsets[p], n = m.polygon_offsets[p + 1] - a;
    std::uint32_t start = 0;
    while (start < n && g4_of[m.polygon_corners[a + start]] == previous_first) ++start;
    if (start == n) start = 0;
    auto corner = [&](std::uint32_t k) { return m.polygon_corners[a + (start + k) % n]; };
    for (std::uint32_t k = 1; k + 1 < n; ++k) {
      add(corner(0));
      add(corner(k));
      add(corner(k + 1));
    }
    previous_first = g4_of[corner(0)];
  }
  return out;
}

// Skin triples (§11), per G4MF vertex from its first export vertex: vertices ascending, weights
// descending (ties by group), zero weights dropped, optionally normalised per vertex (a vertex
// whose total is at most 1e-4 then gets none).
struct SkinTriples {
  std::vector<std::uint32_t> vertices, groups;
  std::vector<float> weights;
};

SkinTriples skinTriples(const Skin& skin, const std::vector<std::uint32_t>& first_export, bool normalize) {
  SkinTriples out;
  std::vector<std::pair<float, std::uint32_t>> entries;
  for (std::size_t g = 0; g < first_export.size(); ++g) {
    const std::size_t e = first_export[g];
    entries.clear();
    double total = 0.0;
    for (std::uint32_t k = skin.offsets[e]; k < skin.offsets[e + 1]; ++k) {
      if (skin.weights[k] > 0.0f) entries.emplace_back(skin.weights[k], skin.bones[k]);
      total += skin.weights[k];
    }
    if (normalize) {
      if (total <= 1e-4) continue;
      for (auto& [w, b] : entries) w = static_cast<float>(w / total);
    }
    std::sort(entries.begin(), entries.end(),
              [](const auto& x, const auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
    for (const auto& [w, b] : entries) {
      out.vertices.push_back(static_cast<std::uint32_t>(g));
      out.groups.push_back(b);
      out.weights.push_back(w);
    }
  }
  return out;
}

// Unit normals per export vertex (validated non-zero); lengths already within 1e-6 of 1 are kept.
std::vector<float> unitNormals(const std::vector<float>& normals) {
  std::vector<float> out(normals);
  for (std::size_t v = 0; v < out.size() / 3; ++v) {
    float* n = &out[3 * v];
    const double len = std::sqrt(double(n[0]) * n[0] + double(n[1]) * n[1] + double(n[2]) * n[2]);
    if (std::abs(len - 1.0) > 1e-6)
      for (int c = 0; c < 3; ++c) n[c] = static_cast<float>(n[c] / len);
  }
  return out;
}

// A blend shape's normal deltas (§14): the surface's normal values are the export vertices'
// normals, so the target indexes them by export vertex. Null when no normal turns.
Json normalTarget(const ExportMorph& morph, G4mfBuffer& buf) {
  std::vector<std::uint32_t> turned;
  std::vector<float> turns;
  for (std::size_t i = 0; i < morph.vertices.size(); ++i) {
    const float* d = &morph.normal_deltas[3 * i];
    if (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f) continue;
    turned.push_back(morph.vertices[i]);
    turns.insert(turns.end(), d, d + 3);
  }
  if (turned.empty()) return Json();
  Json normal = Json::object();
  normal.set("indices", buf.indices(turned, maxOf(turned), 1));
  normal.set("offsets", buf.floats(turns, 3));
  Json surface_target = Json::object();
  surface_target.set("surface", 0);
  surface_target.set("normal", std::move(normal));
  Json shape_surfaces = Json::array();
  shape_surfaces.push(std::move(surface_target));
  return shape_surfaces;
}

// A morph as a blend shape (§14): its moved vertices as G4MF vertices (the first export vertex of
// each merged G4MF vertex carries it; merged vertices share their source vertex, so their delta).
Json blendShape(const ExportMorph& morph, const MergedVertices& merged, bool has_normals, G4mfBuffer& buf,
                std::vector<std::string>& taken) {
  std::vector<std::uint32_t> indices;
  std::vector<float> offsets;
  for (std::size_t i = 0; i < morph.vertices.size(); ++i) {
    const std::uint32_t e = morph.vertices[i];
    const std::uint32_t g = merged.g4_of[e];
    const float* d = &morph.deltas[3 * i];
    if (merged.first_export[g] != e || (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f)) continue;
    indices.push_back(g);
    offsets.insert(offsets.end(), d, d + 3);
  }
  Json shape = Json::object();
  shape.set("name", uniqueName(taken, exportName(morph.name)));
  if (!indices.empty()) {
    Json position = Json::object();
    position.set("indices", buf.indices(indices, maxOf(indices), 1));
    position.set("offsets", buf.floats(offsets, 3));
    shape.set("position", std::move(position));
  }
  if (has_normals && !morph.normal_deltas.empty()) {
    Json surfaces = normalTarget(morph, buf);
    if (!surfaces.isNull()) shape.set("surfaces", std::move(surfaces));
  }
  return shape;
}

Json skinJson(const SkinTriples& triples, const std::vector<std::string>& bone_names, G4mfBuffer& buf, int weights_acc) {
  Json skin = Json::object();
  Json group_names = Json::array();
  for (const std::string& name : bone_names) group_names.push(name);
  skin.set("groupNames", std::move(group_names));
  skin.set("vertices", buf.indices(triples.vertices, maxOf(triples.vertices), 1));
  skin.set("groups", buf.indices(triples.groups, maxOf(triples.groups), 1));
  skin.set("weights", weights_acc);
  return skin;
}

}  // namespace

Expected<Json> writeG4mfMesh(const ExportMesh& m, const G4mfMeshNames& names, int material,
                             const std::vector<std::string>& bone_names, const G4mfWriteOptions& options,
                             G4mfBuffer& buf, std::vector<std::string>& taken, bool& skinned) {
  const std::size_t nv = m.vertexCount();
  const MergedVertices merged = mergeVertices(m);
  const std::size_t ng = merged.first_export.size();
  std::vector<float> g4_positions;
  g4_positions.reserve(3 * ng);
  for (std::uint32_t e : merged.first_export)
    g4_positions.insert(g4_positions.end(), &m.positions[3 * std::size_t(e)], &m.positions[3 * std::size_t(e)] + 3);
  const Simplexes simplexes = buildSimplexes(m, merged.g4_of);
  SkinTriples triples;
  if (!m.skin.offsets.empty()) triples = skinTriples(m.skin, merged.first_export, options.normalize_weights);

  // Buffer order: floats first, then integers (each view aligned to its component size).
  const int vertices_acc = buf.floats(g4_positions, 3);
  int normals_acc = -1, uvs_acc = -1, weights_acc = -1;
  const bool has_simplexes = !simplexes.vertices.empty();
  if (has_simplexes && !m.normals.empty()) normals_acc = buf.floats(unitNormals(m.normals), 3);
  if (has_simplexes && !m.uvs.empty()) {
    std::vector<float> uv(m.uvs);
    for (std::size_t i = 1; i < uv.size(); i += 2) uv[i] = 1.0f - uv[i];  // OBJ origin bottom-left, G4MF top-left (§8)
    uvs_acc = buf.floats(uv, 2);
  }
  if (!triples.weights.empty()) weights_acc = buf.floats(triples.weights, 1);
  int simplexes_acc = -1, corner_acc = -1;
  if (has_simplexes) {
    simplexes_acc = buf.indices(simplexes.vertices, ng ? ng - 1 : 0, 3);
    if (normals_acc >= 0 || uvs_acc >= 0) corner_acc = buf.indices(simplexes.corner_values, nv ? nv - 1 : 0, 3);
  }

  Json surface = Json::object();
  surface.set("name", names.surface);
  surface.set("material", material);
  if (has_simplexes) {
    surface.set("simplexes", simplexes_acc);
    if (simplexes.polytopes) surface.set("polytopeSimplexes", true);
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
  if (!triples.weights.empty()) mesh.set("skin", skinJson(triples, bone_names, buf, weights_acc));
  if (!m.morphs.empty()) {
    Json shapes = Json::array();
    for (const ExportMorph& morph : m.morphs) shapes.push(blendShape(morph, merged, normals_acc >= 0, buf, taken));
    Json blend = Json::object();
    blend.set("shapes", std::move(shapes));
    mesh.set("blend", std::move(blend));
  }
  skinned = !triples.weights.empty();
  return mesh;
}

}  // namespace rigfit::detail
