// validateExportModel: the one check of an ExportModel that both writers make before writing.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "rigfit/export_model.hpp"

namespace rigfit {
namespace {

Error usage(std::string what) { return makeError(ErrorCode::kUsage, "export model: " + std::move(what)); }
Error range(std::string what) { return makeError(ErrorCode::kRange, "export model: " + std::move(what)); }

// The first i < n with bad(i), else n. A pass without branches (which the compiler vectorises)
// tells whether there is one; only then does a second find it. `bad` combines its tests with & and
// |, not && and ||, so that it has no branches either.
template <class Bad>
std::size_t firstBad(std::size_t n, const Bad& bad) {
  std::uint32_t any = 0;
  for (std::size_t i = 0; i < n; ++i) any |= static_cast<std::uint32_t>(bad(i));
  if (!any) return n;
  std::size_t i = 0;
  while (!bad(i)) ++i;
  return i;
}

// Infinity or NaN: every exponent bit set.
bool nonFinite(float f) { return (std::bit_cast<std::uint32_t>(f) & 0x7F800000u) == 0x7F800000u; }

bool allFinite(std::span<const float> values) {
  return firstBad(values.size(), [&](std::size_t i) { return nonFinite(values[i]); }) == values.size();
}

// The first index not below `n`, else indices.size().
std::size_t firstBeyond(std::span<const std::uint32_t> indices, std::size_t n) {
  if (n > 0xFFFFFFFFu) return indices.size();
  const auto limit = static_cast<std::uint32_t>(n);  // compared in 32 bits, which vectorises
  return firstBad(indices.size(), [&](std::size_t i) { return indices[i] >= limit; });
}

// One per bone, or (when `optional`) none.
bool perBone(std::size_t size, std::size_t nb, bool optional) { return size == nb || (optional && size == 0); }

Status checkSkeleton(const ExportModel& m) {
  const std::size_t nb = m.names.size();
  if (!perBone(m.parents.size(), nb, false) || !perBone(m.bind_local.size(), nb, false) || !perBone(m.lengths.size(), nb, false) ||
      !perBone(m.source_names.size(), nb, true) || !perBone(m.source_bones.size(), nb, true) ||
      !perBone(m.bind_global.size(), nb, true) || !perBone(m.rolls.size(), nb, true) || !perBone(m.heads.size(), nb, true) ||
      !perBone(m.tails.size(), nb, true))
    return usage("the skeleton's arrays differ in size");
  if (nb > 65535) return makeError(ErrorCode::kUnsupported, "export model: more than 65535 bones");
  for (std::size_t i = 0; i < nb; ++i) {
    const std::string& name = m.names[i];
    if (m.parents[i] < -1 || m.parents[i] >= static_cast<int>(i)) return usage("bone " + std::to_string(i) + " (" + name + ") comes before its parent");
    if (name.empty() || exportName(name) != name) return usage("bone name \"" + name + "\" is empty or has a character exportName replaces");
    if (!(m.lengths[i] >= 0.0) || !std::isfinite(m.lengths[i])) return range("bone " + name + ": length must be finite and >= 0");
    if (!m.rolls.empty() && !std::isfinite(m.rolls[i])) return range("bone " + name + ": non-finite roll");
    if (!m.bind_local[i].allFinite() || (!m.bind_global.empty() && !m.bind_global[i].allFinite()))
      return range("bone " + name + ": non-finite bind matrix");
    if ((!m.heads.empty() && !m.heads[i].allFinite()) || (!m.tails.empty() && !m.tails[i].allFinite()))
      return range("bone " + name + ": non-finite head or tail");
  }
  std::vector<std::string_view> sorted(m.names.begin(), m.names.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 1; k < sorted.size(); ++k)
    if (sorted[k] == sorted[k - 1]) return usage("bone name \"" + std::string(sorted[k]) + "\" is used twice");
  return {};
}

// A texture's image: bytes, a size, PNG or JPEG, and a plain file name (it may be written
// beside the output file: no folder part, no "..").
Status checkImage(const ExportImage& image, const std::string& where) {
  const std::string what = where + "image \"" + image.name + "\": ";
  if (!image.bytes || image.bytes->empty()) return usage(what + "has no bytes");
  if (image.mime_type != "image/png" && image.mime_type != "image/jpeg") return usage(what + "must be PNG or JPEG");
  if (image.width <= 0 || image.height <= 0) return usage(what + "has no size");
  const std::string& f = image.file_name;
  if (f.empty() || f == "." || f == ".." || f.find('/') != std::string::npos || f.find('\\') != std::string::npos)
    return usage(what + "file name must be a plain name");
  return {};
}

Status checkMaterial(const ExportMaterial& mat, const std::string& where) {
  const auto unit = [](double v) { return v >= 0.0 && v <= 1.0; };
  for (float c : mat.base_color)
    if (!unit(c)) return range(where + "material \"" + mat.name + "\": base colour components must be from 0 to 1");
  if (!unit(mat.metallic) || !unit(mat.roughness)) return range(where + "material \"" + mat.name + "\": metallic and roughness must be from 0 to 1");
  if (!(mat.alpha_cutoff >= 0.0) || !std::isfinite(mat.alpha_cutoff))
    return range(where + "material \"" + mat.name + "\": the alpha cutoff must be finite and >= 0");
  if (mat.alpha_mode != AlphaMode::kOpaque && mat.alpha_mode != AlphaMode::kMask && mat.alpha_mode != AlphaMode::kBlend)
    return usage(where + "material \"" + mat.name + "\": unknown alpha mode");
  for (const auto* image : {&mat.base_color_texture, &mat.normal_texture})
    if (*image) RIGFIT_TRY(checkImage(**image, where + "material \"" + mat.name + "\": "));
  return {};
}

Status checkMesh(const ExportMesh& m, std::size_t index, std::size_t nb) {
  const std::string where = "mesh " + std::to_string(index) + " (" + m.name + "): ";
  if (m.positions.size() % 3) return usage(where + "positions are not 3 per vertex");
  const std::size_t nv = m.vertexCount();
  if (m.normals.size() != 3 * nv && !m.normals.empty()) return usage(where + "normals are not 3 per vertex");
  if (m.uvs.size() != 2 * nv && !m.uvs.empty()) return usage(where + "UVs are not 2 per vertex");
  if (!m.source_vertex.empty() && m.source_vertex.size() != nv) return usage(where + "source_vertex is not 1 per vertex");
  if (m.triangles.size() % 3) return usage(where + "triangles are not 3 indices each");
  if (const std::size_t i = firstBeyond(m.triangles, nv); i < m.triangles.size())
    return range(where + "triangle index " + std::to_string(m.triangles[i]) + " beyond the vertices");
  if (m.polygon_offsets.empty() && !m.polygon_corners.empty()) return usage(where + "polygon corners without offsets");
  if (!m.polygon_offsets.empty()) {
    if (m.polygon_offsets.front() != 0 || m.polygon_offsets.back() != m.polygon_corners.size())
      return usage(where + "polygon offsets do not match the corners");
    const std::uint32_t* offsets = m.polygon_offsets.data();
    const std::size_t np = m.polygon_offsets.size() - 1;
    if (const std::size_t p = firstBad(np, [&](std::size_t i) { return offsets[i + 1] < offsets[i] + 3; }); p < np)
      return usage(where + "polygon " + std::to_string(p) + " has fewer than 3 corners");
    if (const std::size_t i = firstBeyond(m.polygon_corners, nv); i < m.polygon_corners.size())
      return range(where + "polygon corner " + std::to_string(m.polygon_corners[i]) + " beyond the vertices");
  }
  if (!allFinite(m.positions)) return range(where + "non-finite vertex position");
  if (!allFinite(m.uvs)) return range(where + "non-finite UV");
  // A normal of finite components has a length > 0 unless all three are 0 (squared in double,
  // no float's square is 0 or infinite).
  const float* normals = m.normals.data();
  const std::size_t with_normals = m.normals.size() / 3;
  if (const std::size_t v = firstBad(with_normals, [&](std::size_t i) {
        const float* n = normals + 3 * i;
        // Branch-free: every test is evaluated (as unsigned, so that clang sees the intent).
        const unsigned zero = unsigned{n[0] == 0.0f} & unsigned{n[1] == 0.0f} & unsigned{n[2] == 0.0f};
        return (zero | unsigned{nonFinite(n[0])} | unsigned{nonFinite(n[1])} | unsigned{nonFinite(n[2])}) != 0;
      });
      v < with_normals)
    return range(where + "vertex " + std::to_string(v) + " has a zero or non-finite normal");
  const Skin& s = m.skin;
  if (s.offsets.empty() && (!s.bones.empty() || !s.weights.empty())) return usage(where + "skin influences without offsets");
  if (!s.offsets.empty()) {
    if (s.offsets.size() != nv + 1 || s.offsets.front() != 0 || s.offsets.back() != s.bones.size() || s.weights.size() != s.bones.size())
      return usage(where + "the skin does not match the vertices");
    const std::uint32_t* offsets = s.offsets.data();
    if (firstBad(nv, [&](std::size_t v) { return offsets[v + 1] < offsets[v]; }) < nv) return usage(where + "skin offsets decrease");
    const std::uint16_t* bones = s.bones.data();
    const auto bone_limit = static_cast<std::uint32_t>(std::min<std::size_t>(nb, 0x10000));  // bones are 16-bit
    if (const std::size_t k = firstBad(s.bones.size(), [&](std::size_t i) { return bones[i] >= bone_limit; }); k < s.bones.size())
      return range(where + "skin bone " + std::to_string(s.bones[k]) + " beyond the skeleton");
    const float* weights = s.weights.data();
    if (firstBad(s.weights.size(), [&](std::size_t i) { return nonFinite(weights[i]) | (weights[i] < 0.0f); }) < s.weights.size())
      return range(where + "skin weight not finite and >= 0");
  }
  for (const ExportMorph& morph : m.morphs) {
    const std::string at = where + "morph \"" + morph.name + "\": ";
    if (morph.deltas.size() != 3 * morph.vertices.size() || (!morph.normal_deltas.empty() && morph.normal_deltas.size() != morph.deltas.size()))
      return usage(at + "deltas are not 3 per vertex");
    if (!morph.normal_deltas.empty() && m.normals.empty()) return usage(at + "normal deltas on a mesh without normals");
    for (std::size_t i = 0; i < morph.vertices.size(); ++i)
      if (morph.vertices[i] >= nv || (i > 0 && morph.vertices[i] <= morph.vertices[i - 1]))
        return usage(at + "vertices are not ascending within the mesh");
    if (!allFinite(morph.deltas) || !allFinite(morph.normal_deltas)) return range(at + "non-finite delta");
  }
  if ((m.material.base_color_texture || m.material.normal_texture) && m.uvs.empty())
    return usage(where + "a textured material needs UVs");
  if (m.material.normal_texture && m.normals.empty()) return usage(where + "a normal map needs normals");
  return checkMaterial(m.material, where);
}

}  // namespace

Status validateExportModel(const ExportModel& model) {
  RIGFIT_TRY(checkSkeleton(model));
  for (std::size_t k = 0; k < model.meshes.size(); ++k) RIGFIT_TRY(checkMesh(model.meshes[k], k, model.names.size()));
  return {};
}

}  // namespace rigfit
