// Removing faces from a mesh (hidden body parts under clothes): vertices stay, so every per-vertex
// array (skin, vertex groups, targets) still applies; a vertex no face uses is not exported.
#include "rigfit/mesh.hpp"

namespace rigfit {

Mesh withoutFaces(const Mesh& mesh, std::span<const std::uint8_t> hidden) {
  Mesh out;
  out.positions = mesh.positions;
  out.normals = mesh.normals;
  out.uvs = mesh.uvs;
  out.group_names = mesh.group_names;
  out.scale_factor = mesh.scale_factor;
  out.face_offsets.push_back(0);
  const bool has_uvs = !mesh.corner_uvs.empty(), has_normals = !mesh.corner_normals.empty(), has_groups = !mesh.face_groups.empty();
  for (std::size_t f = 0; f < mesh.faceCount(); ++f) {
    if (f < hidden.size() && hidden[f]) continue;
    for (std::uint32_t k = mesh.face_offsets[f]; k < mesh.face_offsets[f + 1]; ++k) {
      out.corner_vertices.push_back(mesh.corner_vertices[k]);
      if (has_uvs) out.corner_uvs.push_back(mesh.corner_uvs[k]);
      if (has_normals) out.corner_normals.push_back(mesh.corner_normals[k]);
    }
    out.face_offsets.push_back(static_cast<std::uint32_t>(out.corner_vertices.size()));
    if (has_groups) out.face_groups.push_back(mesh.face_groups[f]);
  }
  if (out.face_offsets.size() == 1) out.face_offsets.clear();
  return out;
}

}  // namespace rigfit
