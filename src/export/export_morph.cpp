// Morph targets on an exported mesh: MakeHuman targets (sparse offsets on the input mesh) carried
// through the vertex split and the change to the export frame.
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "rigfit/export_model.hpp"

namespace rigfit {

Status addExportMorph(ExportMesh& mesh, std::string name, std::size_t source_vertex_count,
                      std::span<const std::uint32_t> source_vertices, std::span<const double> offsets,
                      std::span<const float> source_normal_deltas) {
  if (offsets.size() != 3 * source_vertices.size())
    return makeError(ErrorCode::kUsage, "morph \"" + name + "\": " + std::to_string(offsets.size()) + " offsets for " +
                                            std::to_string(source_vertices.size()) + " vertices (3 each expected)");
  const bool with_normals = !source_normal_deltas.empty();
  if (with_normals && source_normal_deltas.size() != 3 * source_vertex_count)
    return makeError(ErrorCode::kUsage, "morph \"" + name + "\": normal deltas are not 3 per vertex of the input mesh");
  // The summed offset of each listed source vertex (input frame), found through a slot per vertex.
  constexpr std::uint32_t kUnlisted = 0xFFFFFFFFu;
  std::vector<std::uint32_t> slot(source_vertex_count, kUnlisted);
  std::vector<double> sum;
  sum.reserve(offsets.size());
  for (std::size_t k = 0; k < source_vertices.size(); ++k) {
    const std::uint32_t v = source_vertices[k];
    if (v >= source_vertex_count)
      return makeError(ErrorCode::kRange, "morph \"" + name + "\": vertex " + std::to_string(v) + " is beyond the mesh of " +
                                              std::to_string(source_vertex_count) + " vertices");
    if (slot[v] == kUnlisted) {
      slot[v] = static_cast<std::uint32_t>(sum.size() / 3);
      sum.insert(sum.end(), 3, 0.0);
    }
    for (std::size_t c = 0; c < 3; ++c) sum[3 * std::size_t(slot[v]) + c] += offsets[3 * k + c];
  }
  // Deltas are linear: the rotation part of the change of frame only (as the positions, in double).
  const Eigen::Matrix3d c3 = rigToExportFrame().topLeftCorner<3, 3>();
  ExportMorph morph;
  morph.name = std::move(name);
  const std::size_t ne = mesh.vertexCount();
  for (std::size_t e = 0; e < ne; ++e) {
    const std::size_t s = mesh.source_vertex.empty() ? e : mesh.source_vertex[e];
    if (s >= source_vertex_count) continue;
    const float* sn = with_normals ? &source_normal_deltas[3 * s] : nullptr;
    const bool turns = sn && (sn[0] != 0.0f || sn[1] != 0.0f || sn[2] != 0.0f);
    if (slot[s] == kUnlisted && !turns) continue;
    float f[3] = {0.0f, 0.0f, 0.0f}, fn[3] = {0.0f, 0.0f, 0.0f};
    if (slot[s] != kUnlisted) {
      const double* o = &sum[3 * std::size_t(slot[s])];
      const Eigen::Vector3d d = c3 * Eigen::Vector3d(o[0], o[1], o[2]);
      for (int c = 0; c < 3; ++c) f[c] = static_cast<float>(d[c]);
    }
    if (turns) {
      const Eigen::Vector3d d = c3 * Eigen::Vector3d(sn[0], sn[1], sn[2]);
      for (int c = 0; c < 3; ++c) fn[c] = static_cast<float>(d[c]);
    }
    const auto zero = [](const float* v) { return v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f; };
    if (zero(f) && zero(fn)) continue;
    morph.vertices.push_back(static_cast<std::uint32_t>(e));
    morph.deltas.insert(morph.deltas.end(), f, f + 3);
    if (with_normals) morph.normal_deltas.insert(morph.normal_deltas.end(), fn, fn + 3);
  }
  mesh.morphs.push_back(std::move(morph));
  return {};
}

}  // namespace rigfit
