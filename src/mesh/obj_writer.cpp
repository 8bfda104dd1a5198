#include <charconv>

#include "rigfit/mesh.hpp"

namespace rigfit {
namespace {

void appendFloat(std::string& out, float v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void appendTriple(std::string& out, const char* key, float a, float b, float c) {
  out += key;
  out.push_back(' ');
  appendFloat(out, a);
  out.push_back(' ');
  appendFloat(out, b);
  out.push_back(' ');
  appendFloat(out, c);
  out.push_back('\n');
}

}  // namespace

std::string writeObj(const Mesh& mesh, std::span<const float> positions, std::span<const float> normals,
                     std::string_view header_comment) {
  if (positions.empty()) positions = mesh.positions;
  if (normals.empty()) normals = mesh.normals;
  const float s = mesh.scale_factor;
  std::string out;
  out.reserve(positions.size() * 12 + mesh.corner_vertices.size() * 12);
  if (!header_comment.empty()) {
    out += "# ";
    out += header_comment;
    out += '\n';
  }
  // Rig frame (x, y, z) back to the OBJ frame: (x, z, -y) / scale.
  for (std::size_t v = 0; v + 2 < positions.size(); v += 3)
    appendTriple(out, "v", positions[v] / s, positions[v + 2] / s, -positions[v + 1] / s);
  for (std::size_t t = 0; t + 1 < mesh.uvs.size(); t += 2) {
    out += "vt ";
    appendFloat(out, mesh.uvs[t]);
    out.push_back(' ');
    appendFloat(out, mesh.uvs[t + 1]);
    out.push_back('\n');
  }
  for (std::size_t n = 0; n + 2 < normals.size(); n += 3)
    appendTriple(out, "vn", normals[n], normals[n + 2], -normals[n + 1]);
  std::uint32_t group = UINT32_MAX;
  for (std::size_t f = 0; f < mesh.faceCount(); ++f) {
    if (f < mesh.face_groups.size() && mesh.face_groups[f] != group && mesh.face_groups[f] < mesh.group_names.size()) {
      group = mesh.face_groups[f];
      out += "g ";
      out += mesh.group_names[group];
      out += '\n';
    }
    out += 'f';
    for (std::uint32_t c = mesh.face_offsets[f]; c < mesh.face_offsets[f + 1]; ++c) {
      out.push_back(' ');
      out += std::to_string(mesh.corner_vertices[c] + 1);
      const bool has_uv = mesh.corner_uvs[c] >= 0, has_n = mesh.corner_normals[c] >= 0;
      if (has_uv || has_n) {
        out.push_back('/');
        if (has_uv) out += std::to_string(mesh.corner_uvs[c] + 1);
        if (has_n) {
          out.push_back('/');
          out += std::to_string(mesh.corner_normals[c] + 1);
        }
      }
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace rigfit
