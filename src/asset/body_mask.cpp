// Hiding the body under assets (docs/mpfb-assets.md §3): MPFB's conservative delete group
// (ClothesService.update_delete_group, _conservative_mask), the faces an inverted MASK modifier
// removes, and the carry-over to a body proxy (interpolate_vertex_group_from_basemesh_to_clothes).
#include <algorithm>

#include "rigfit/asset.hpp"

namespace rigfit {

void addDeleteGroup(std::span<const std::int64_t> delete_verts, std::span<const std::uint32_t> face_offsets,
                    std::span<const std::uint32_t> corner_vertices, std::span<std::uint8_t> in_group) {
  const std::size_t n = in_group.size();
  // How often each vertex is listed: MPFB removes one listing per partially listed face.
  std::vector<std::uint32_t> listed(n, 0);
  for (const std::int64_t v : delete_verts)
    if (v >= 0 && static_cast<std::uint64_t>(v) < n) ++listed[static_cast<std::size_t>(v)];
  std::vector<std::uint32_t> removals(n, 0);
  const std::size_t faces = face_offsets.empty() ? 0 : face_offsets.size() - 1;
  for (std::size_t f = 0; f < faces; ++f) {
    const std::uint32_t c0 = face_offsets[f], c1 = std::min<std::size_t>(face_offsets[f + 1], corner_vertices.size());
    bool any = false, all = true;
    for (std::uint32_t c = c0; c < c1; ++c) {
      const std::uint32_t v = corner_vertices[c];
      const bool in = v < n && listed[v] > 0;
      any = any || in;
      all = all && in;
    }
    if (!any || all) continue;
    // A face with a listed and an unlisted vertex: each listed vertex of it loses one listing.
    for (std::uint32_t c = c0; c < c1; ++c) {
      const std::uint32_t v = corner_vertices[c];
      if (v < n) ++removals[v];
    }
  }
  for (std::size_t v = 0; v < n; ++v)
    if (listed[v] > removals[v]) in_group[v] = 1;
}

void maskedFaces(std::span<const std::uint8_t> masked, std::span<const std::uint32_t> face_offsets,
                 std::span<const std::uint32_t> corner_vertices, std::span<std::uint8_t> face_hidden) {
  const std::size_t faces = std::min(face_hidden.size(), face_offsets.empty() ? std::size_t(0) : face_offsets.size() - 1);
  for (std::size_t f = 0; f < faces; ++f) {
    const std::uint32_t c0 = face_offsets[f], c1 = std::min<std::size_t>(face_offsets[f + 1], corner_vertices.size());
    std::uint8_t hidden = 0;
    for (std::uint32_t c = c0; c < c1 && !hidden; ++c) {
      const std::uint32_t v = corner_vertices[c];
      hidden = v < masked.size() && masked[v] != 0;
    }
    face_hidden[f] = hidden;
  }
}

BodyMask bodyMask(const Mesh& body, std::span<const ProxyFile* const> worn) {
  BodyMask mask;
  mask.vertex_masked.assign(body.vertexCount(), 0);
  mask.face_hidden.assign(body.faceCount(), 0);
  for (const ProxyFile* file : worn)
    if (file) addDeleteGroup(file->delete_verts, body.face_offsets, body.corner_vertices, mask.vertex_masked);
  maskedFaces(mask.vertex_masked, body.face_offsets, body.corner_vertices, mask.face_hidden);
  return mask;
}

void proxyMask(const AssetBindings& bindings, std::span<const std::uint8_t> body_masked, std::span<std::uint8_t> proxy_masked) {
  const std::size_t count = std::min(bindings.size(), proxy_masked.size());
  for (std::size_t i = 0; i < count; ++i) {
    std::uint8_t m = 0;
    for (int k = 0; k < 3; ++k) {
      const std::int64_t v = bindings.vertices[i * 3 + static_cast<std::size_t>(k)];
      if (v >= 0 && static_cast<std::uint64_t>(v) < body_masked.size() && body_masked[static_cast<std::size_t>(v)]) m = 1;
    }
    proxy_masked[i] = m;
  }
}

}  // namespace rigfit
