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

// The `v`, `vt` and `vn` lines of a mesh.
void appendStreams(std::string& out, const Mesh& mesh, std::span<const float> positions, std::span<const float> normals) {
  const float s = mesh.scale_factor;
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
}

// The `f` lines, indices past `base` (1-based offsets of the mesh's first v, vt, vn); the mesh's
// own `g` lines when `groups`.
struct IndexBase {
  std::size_t v = 1, vt = 1, vn = 1;
};
void appendFaces(std::string& out, const Mesh& mesh, IndexBase base, bool groups) {
  std::uint32_t group = UINT32_MAX;
  for (std::size_t f = 0; f < mesh.faceCount(); ++f) {
    if (groups && f < mesh.face_groups.size() && mesh.face_groups[f] != group && mesh.face_groups[f] < mesh.group_names.size()) {
      group = mesh.face_groups[f];
      out += "g ";
      out += mesh.group_names[group];
      out += '\n';
    }
    out += 'f';
    for (std::uint32_t c = mesh.face_offsets[f]; c < mesh.face_offsets[f + 1]; ++c) {
      out.push_back(' ');
      out += std::to_string(mesh.corner_vertices[c] + base.v);
      const bool has_uv = c < mesh.corner_uvs.size() && mesh.corner_uvs[c] >= 0;
      const bool has_n = c < mesh.corner_normals.size() && mesh.corner_normals[c] >= 0;
      if (has_uv || has_n) {
        out.push_back('/');
        if (has_uv) out += std::to_string(static_cast<std::size_t>(mesh.corner_uvs[c]) + base.vt);
        if (has_n) {
          out.push_back('/');
          out += std::to_string(static_cast<std::size_t>(mesh.corner_normals[c]) + base.vn);
        }
      }
    }
    out.push_back('\n');
  }
}

void appendHeader(std::string& out, std::string_view header_comment) {
  if (header_comment.empty()) return;
  out += "# ";
  out += header_comment;
  out += '\n';
}

}  // namespace

std::string writeObj(const Mesh& mesh, std::span<const float> positions, std::span<const float> normals,
                     std::string_view header_comment) {
  if (positions.empty()) positions = mesh.positions;
  if (normals.empty()) normals = mesh.normals;
  std::string out;
  out.reserve(positions.size() * 12 + mesh.corner_vertices.size() * 12);
  appendHeader(out, header_comment);
  appendStreams(out, mesh, positions, normals);
  appendFaces(out, mesh, {}, true);
  return out;
}

std::string writeObjObjects(std::span<const ObjObject> objects, std::string_view header_comment) {
  std::size_t reserve = 0;
  for (const ObjObject& o : objects) reserve += o.mesh->positions.size() * 12 + o.mesh->corner_vertices.size() * 12;
  std::string out;
  out.reserve(reserve);
  appendHeader(out, header_comment);
  IndexBase base;
  for (const ObjObject& o : objects) {
    const std::span<const float> positions = o.positions.empty() ? std::span<const float>(o.mesh->positions) : o.positions;
    const std::span<const float> normals = o.normals.empty() ? std::span<const float>(o.mesh->normals) : o.normals;
    out += "o ";
    out += o.name;
    out += '\n';
    appendStreams(out, *o.mesh, positions, normals);
    out += "g ";
    out += o.name;
    out += '\n';
    appendFaces(out, *o.mesh, base, false);
    base.v += positions.size() / 3;
    base.vt += o.mesh->uvs.size() / 2;
    base.vn += normals.size() / 3;
  }
  return out;
}

}  // namespace rigfit
