// Where MakeHuman data comes from: an MPFB data folder (the layout of MPFB's src/mpfb/data:
// 3dobjs/base.obj, mesh_metadata/basemesh_vertex_groups.json, rigs/standard|rigify/rig.NAME.json,
// weights, poses/, targets/) or the built-in demo character compiled into rigfit.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rigfit/error.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/mesh.hpp"
#include "rigfit/rig.hpp"

namespace rigfit {

class DataSource {
 public:
  /// An MPFB data folder on disk.
  static DataSource folder(std::string path);
  /// The demo character built into rigfit (a small humanoid with joint cubes, rig "demo").
  static DataSource builtinDemo();

  bool isBuiltin() const { return root_.empty(); }
  /// "DIR" or "built-in demo".
  std::string describe() const;
  /// The name used in messages for a file of this source: "DIR/rel" or "demo:rel".
  std::string label(std::string_view relative) const;
  bool exists(std::string_view relative) const;
  [[nodiscard]] Expected<std::string> read(std::string_view relative) const;
  /// The file's bytes (read whole; the built-in demo's in place, without a copy).
  [[nodiscard]] Expected<FileText> view(std::string_view relative) const;
  /// Files directly in `relative_dir` whose names start with `prefix` and end with `suffix`, sorted.
  std::vector<std::string> list(std::string_view relative_dir, std::string_view prefix, std::string_view suffix) const;

 private:
  std::string root_;  // empty: built-in
};

/// The body mesh: `mesh_path` if given (any OBJ with the base mesh's vertex count and order),
/// else the source's 3dobjs/base.obj.
[[nodiscard]] Expected<Mesh> loadBaseMesh(const DataSource& data, const std::string& mesh_path = {});
/// mesh_metadata/basemesh_vertex_groups.json, checked against the vertex count.
[[nodiscard]] Expected<VertexGroups> loadVertexGroups(const DataSource& data, std::size_t vertex_count);

/// Where a rig named `name_or_path` lives: an existing file path, or a name looked up as
/// rigs/standard/rig.NAME.json then rigs/rigify/rig.NAME.json ("rigify.NAME" for Rigify only).
/// Returns the relative path inside the source, or the file path as given.
struct RigLocation {
  bool in_source = false;  ///< true: `path` is relative to the data source
  std::string path;
  std::string name;        ///< the rig's short name ("game_engine", "rigify.human")
};
[[nodiscard]] Expected<RigLocation> locateRig(const DataSource& data, const std::string& name_or_path);
[[nodiscard]] Expected<RigDefinition> loadRig(const DataSource& data, const RigLocation& where);

/// Names of the rigs a source ships ("cmu_mb", ..., "rigify.human").
std::vector<std::string> listRigs(const DataSource& data);

}  // namespace rigfit
