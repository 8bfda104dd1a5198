// Normal deltas of morph targets: only the faces around the vertices a target moves are visited.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "rigfit/export_model.hpp"

namespace rigfit {

MorphNormals::MorphNormals(const Mesh& mesh, std::span<const float> positions, int threads)
    : mesh_(mesh), positions_(positions), base_(positions.size()) {
  vertexNormals(mesh, positions, base_, threads);
  const std::size_t n = mesh.vertexCount(), nf = mesh.faceCount();
  star_offsets_.assign(n + 1, 0);
  for (std::uint32_t v : mesh.corner_vertices) ++star_offsets_[v + 1];
  for (std::size_t v = 0; v < n; ++v) star_offsets_[v + 1] += star_offsets_[v];
  star_.resize(mesh.corner_vertices.size());
  std::vector<std::uint32_t> fill(star_offsets_.begin(), star_offsets_.end() - 1);
  for (std::size_t f = 0; f < nf; ++f)  // faces in order: each vertex's star ascends
    for (std::uint32_t k = mesh.face_offsets[f]; k < mesh.face_offsets[f + 1]; ++k) star_[fill[mesh.corner_vertices[k]]++] = static_cast<std::uint32_t>(f);
  moved_.assign(positions.begin(), positions.end());
  mark_.assign(std::max(n, nf), 0);
  local_.assign(n, kNoVertex);
}

void MorphNormals::deltas(std::span<const std::uint32_t> vertices, std::span<const double> offsets, std::vector<float>& out) {
  const std::size_t n = mesh_.vertexCount();
  out.assign(3 * n, 0.0f);
  // The moved body (float, as the shape key mix at weight 1).
  std::vector<std::uint32_t> moved;
  for (std::size_t k = 0; k < vertices.size(); ++k) {
    const std::uint32_t v = vertices[k];
    if (v >= n) continue;
    for (std::size_t j = 0; j < 3; ++j) moved_[3 * v + j] = static_cast<float>(static_cast<double>(positions_[3 * v + j]) + offsets[3 * k + j]);
    moved.push_back(v);
  }
  // Vertices whose normal can change: those of the faces around a moved vertex. Their normals
  // need every face around them: the sub-mesh holds those faces, in the mesh's order.
  std::vector<std::uint32_t> changed, faces;
  const auto visitFaces = [&](std::uint32_t v, auto&& onFace) {
    for (std::uint32_t s = star_offsets_[v]; s < star_offsets_[v + 1]; ++s) onFace(star_[s]);
  };
  for (std::uint32_t v : moved)
    visitFaces(v, [&](std::uint32_t f) {
      for (std::uint32_t k = mesh_.face_offsets[f]; k < mesh_.face_offsets[f + 1]; ++k) {
        const std::uint32_t u = mesh_.corner_vertices[k];
        if (!(mark_[u] & 1)) {
          mark_[u] |= 1;
          changed.push_back(u);
        }
      }
    });
  for (std::uint32_t u : changed)
    visitFaces(u, [&](std::uint32_t f) {
      if (!(mark_[f] & 2)) {
        mark_[f] |= 2;
        faces.push_back(f);
      }
    });
  std::sort(faces.begin(), faces.end());
  // The sub-mesh numbers its vertices compactly (the sums per vertex keep the faces' order).
  sub_.positions.clear();
  sub_.face_offsets.assign(1, 0);
  sub_.corner_vertices.clear();
  std::vector<std::uint32_t> used;
  for (std::uint32_t f : faces) {
    for (std::uint32_t k = mesh_.face_offsets[f]; k < mesh_.face_offsets[f + 1]; ++k) {
      const std::uint32_t u = mesh_.corner_vertices[k];
      if (local_[u] == kNoVertex) {
        local_[u] = static_cast<std::uint32_t>(used.size());
        used.push_back(u);
        sub_.positions.insert(sub_.positions.end(), &moved_[3 * std::size_t(u)], &moved_[3 * std::size_t(u)] + 3);
      }
      sub_.corner_vertices.push_back(local_[u]);
    }
    sub_.face_offsets.push_back(static_cast<std::uint32_t>(sub_.corner_vertices.size()));
  }
  normals_.resize(sub_.positions.size());
  vertexNormals(sub_, sub_.positions, normals_, 1);
  for (std::uint32_t u : changed)
    for (std::size_t j = 0; j < 3; ++j) out[3 * u + j] = normals_[3 * std::size_t(local_[u]) + j] - base_[3 * u + j];
  for (std::uint32_t u : used) local_[u] = kNoVertex;
  // Restore the scratch for the next target.
  for (std::uint32_t u : changed) mark_[u] &= static_cast<std::uint8_t>(~1u);
  for (std::uint32_t f : faces) mark_[f] &= static_cast<std::uint8_t>(~2u);
  for (std::uint32_t v : moved)
    for (std::size_t j = 0; j < 3; ++j) moved_[3 * v + j] = positions_[3 * v + j];
}

}  // namespace rigfit
