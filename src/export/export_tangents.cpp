// Tangents for normal-mapped meshes (glTF's TANGENT): per vertex, the direction in which the
// texture's u grows, accumulated over the vertex's triangles from their UV derivatives,
// Gram-Schmidt-orthogonalised against the normal, with the bitangent's handedness in w.
#include <cmath>

#include "rigfit/export_model.hpp"

namespace rigfit {

std::vector<float> exportTangents(const ExportMesh& mesh) {
  const std::size_t nv = mesh.vertexCount();
  if (mesh.normals.size() != 3 * nv || mesh.uvs.size() != 2 * nv) return {};
  std::vector<double> tan_u(3 * nv, 0.0), tan_v(3 * nv, 0.0);
  // UVs as written (v flipped: glTF's origin is the image's top-left).
  auto uv = [&](std::uint32_t v, int c) { return c == 0 ? double(mesh.uvs[2 * v]) : 1.0 - double(mesh.uvs[2 * v + 1]); };
  for (std::size_t t = 0; t + 2 < mesh.triangles.size(); t += 3) {
    const std::uint32_t i[3] = {mesh.triangles[t], mesh.triangles[t + 1], mesh.triangles[t + 2]};
    double e1[3], e2[3];
    for (std::size_t c = 0; c < 3; ++c) {
      e1[c] = double(mesh.positions[3 * i[1] + c]) - mesh.positions[3 * i[0] + c];
      e2[c] = double(mesh.positions[3 * i[2] + c]) - mesh.positions[3 * i[0] + c];
    }
    const double du1 = uv(i[1], 0) - uv(i[0], 0), dv1 = uv(i[1], 1) - uv(i[0], 1);
    const double du2 = uv(i[2], 0) - uv(i[0], 0), dv2 = uv(i[2], 1) - uv(i[0], 1);
    const double r = du1 * dv2 - du2 * dv1;
    if (std::abs(r) < 1e-20) continue;  // no UV area: no direction to add
    for (std::uint32_t v : i)
      for (std::size_t c = 0; c < 3; ++c) {
        tan_u[3 * v + c] += (e1[c] * dv2 - e2[c] * dv1) / r;
        tan_v[3 * v + c] += (e2[c] * du1 - e1[c] * du2) / r;
      }
  }
  std::vector<float> out(4 * nv);
  for (std::size_t v = 0; v < nv; ++v) {
    const double n[3] = {mesh.normals[3 * v], mesh.normals[3 * v + 1], mesh.normals[3 * v + 2]};
    const double* u = &tan_u[3 * v];
    const double d = n[0] * u[0] + n[1] * u[1] + n[2] * u[2];
    double t[3] = {u[0] - n[0] * d, u[1] - n[1] * d, u[2] - n[2] * d};
    double len = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    if (!(len > 1e-12)) {  // no UV gradient here: any direction perpendicular to the normal
      const double a[3] = {std::abs(n[0]) < 0.9 ? 1.0 : 0.0, std::abs(n[0]) < 0.9 ? 0.0 : 1.0, 0.0};
      const double da = n[0] * a[0] + n[1] * a[1] + n[2] * a[2];
      for (int c = 0; c < 3; ++c) t[c] = a[c] - n[c] * da;
      len = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    }
    for (int c = 0; c < 3; ++c) t[c] /= len;
    const double b[3] = {n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2], n[0] * t[1] - n[1] * t[0]};
    const double* w = &tan_v[3 * v];
    const double hand = b[0] * w[0] + b[1] * w[1] + b[2] * w[2] < 0.0 ? -1.0 : 1.0;
    for (std::size_t c = 0; c < 3; ++c) out[4 * v + c] = static_cast<float>(t[c]);
    out[4 * v + 3] = static_cast<float>(hand);
  }
  return out;
}

}  // namespace rigfit
