// The body mesh: hm08 (or any mesh laid out like it) in the rig frame, plus its vertex groups.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rigfit/error.hpp"
#include "rigfit/file_io.hpp"

namespace rigfit {

/// MPFB's default scale factor (decimetres -> metres) as the float32 value Blender stores.
inline constexpr float kDefaultScaleFactor = 0.1f;

/// A polygon mesh read from OBJ. Positions are in the rig frame: Blender's Z up, metres,
/// character facing -Y: rig = scale * (x, -z, y) of the OBJ point (x, y, z), in float32 as
/// Blender stores them. Vertex order is the file's order (rig, weight and target files index it).
struct Mesh {
  std::vector<float> positions;  ///< 3 floats per vertex, rig frame
  std::vector<float> normals;    ///< 3 floats per `vn`, rig frame (unit length as read)
  std::vector<float> uvs;        ///< 2 floats per `vt`
  std::vector<std::uint32_t> face_offsets;  ///< face f has corners [face_offsets[f], face_offsets[f+1])
  std::vector<std::uint32_t> corner_vertices;
  std::vector<std::int32_t> corner_uvs;      ///< -1 where a corner has no UV
  std::vector<std::int32_t> corner_normals;  ///< -1 where a corner has no normal; empty: no corner has one
  std::vector<std::uint32_t> face_groups;    ///< index into group_names per face
  std::vector<std::string> group_names;      ///< OBJ `g` names in order of first use
  float scale_factor = kDefaultScaleFactor;  ///< the scale used to convert from the OBJ frame

  std::size_t vertexCount() const { return positions.size() / 3; }
  std::size_t faceCount() const { return face_offsets.empty() ? 0 : face_offsets.size() - 1; }
};

/// The mesh without the faces flagged in `hidden` (one per face; missing entries count as shown):
/// every vertex, UV and normal is kept, so per-vertex data still applies.
Mesh withoutFaces(const Mesh& mesh, std::span<const std::uint8_t> hidden);

struct ObjReadOptions {
  float scale_factor = kDefaultScaleFactor;
};

[[nodiscard]] Expected<Mesh> parseObj(std::string_view text, std::string_view label, const ObjReadOptions& options = {});
[[nodiscard]] Expected<Mesh> readObj(const std::string& path, const ObjReadOptions& options = {});

/// Writes `mesh` as OBJ in MakeHuman's frame (inverse of the conversion on reading), with the
/// given rig-frame positions and optional normals (nullptr: the mesh's own).
std::string writeObj(const Mesh& mesh, std::span<const float> positions, std::span<const float> normals,
                     std::string_view header_comment);

/// One mesh of a multi-object OBJ.
struct ObjObject {
  std::string_view name;
  const Mesh* mesh = nullptr;
  std::span<const float> positions;  ///< rig frame, 3 per vertex; empty: the mesh's
  std::span<const float> normals;    ///< rig frame, 3 per `vn`; empty: the mesh's
};

/// Writes several meshes as one OBJ in MakeHuman's frame (as writeObj), each as `o NAME`, its
/// `v`/`vt`/`vn` lines, then `g NAME` and its faces (indices past the meshes before it). One group
/// per mesh, as MakeHuman's OBJ exporter writes: Blender's importers make one object per mesh
/// whether they split by object or by group. The meshes' own face groups are not written; every
/// vertex is, in the mesh's order, also those no face uses.
std::string writeObjObjects(std::span<const ObjObject> objects, std::string_view header_comment);

/// Named vertex groups as MPFB's basemesh_vertex_groups.json holds them: inclusive index ranges.
struct VertexGroups {
  struct Range {
    std::uint32_t first, last;  ///< inclusive
  };
  std::vector<std::string> names;
  std::vector<std::vector<Range>> ranges;
  std::unordered_map<std::string, std::uint32_t> index;  ///< name -> position in `names`

  const std::vector<Range>* find(std::string_view name) const;
  std::size_t memberCount(std::size_t group) const;
};

/// Reads `{"group": [[first, last], ...], ...}` (simdjson On-Demand); every index must be
/// < vertex_count. Errors name the file and the JSON path; a syntax error, its line, column and byte.
/// The text is copied into a buffer with the padding simdjson reads past its end.
[[nodiscard]] Expected<VertexGroups> parseVertexGroups(std::string_view text, std::string_view label, std::size_t vertex_count);
/// The same on a file's bytes: read in place when loadFile read them (they are padded).
[[nodiscard]] Expected<VertexGroups> parseVertexGroups(const FileText& text, std::string_view label, std::size_t vertex_count);

}  // namespace rigfit
