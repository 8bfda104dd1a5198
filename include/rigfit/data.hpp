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
  /// True when `relative` is a folder of the source (for the built-in demo: a folder some file is in).
  bool isFolder(std::string_view relative) const;
  /// Files directly in `relative_dir` whose names start with `prefix` and end with `suffix`, sorted.
  std::vector<std::string> list(std::string_view relative_dir, std::string_view prefix, std::string_view suffix) const;

 private:
  std::string root_;  // empty: built-in
};

/// The kinds of file a user names (an option, a manifest field), each with its folders and the
/// extensions it may be named without. Data files are looked up in a data source; worn assets and
/// body proxies in an assets folder (MakeHuman's asset library layout: proxies in proxymeshes/):
///
/// | kind          | extensions          | sub-folders                  | a bare NAME also means            |
/// |---------------|---------------------|------------------------------|-----------------------------------|
/// | rig           | .json, .mpfbskel    | rigs/standard, rigs/rigify   | rig.NAME.json there (rigify.NAME: rigs/rigify only) |
/// | weights       | .json, .mhw         | rigs/standard, rigs/rigify   | weights.NAME.json there (likewise) |
/// | mesh          | .obj                | 3dobjs                       |                                   |
/// | target        | .target.gz, .target | targets                      |                                   |
/// | target folder | (a folder)          | targets                      |                                   |
/// | pose          | .json               | poses                        |                                   |
/// | asset         | .mhclo              | (the assets folder)          | NAME.mhclo anywhere under the assets folder |
/// | proxy         | .proxy              | proxymeshes                  | NAME.proxy anywhere under the assets folder |
///
/// An asset or proxy may also be named by a folder holding exactly one file of its kind.
enum class DataFileKind { kRig, kWeights, kMesh, kTarget, kTargetFolder, kPose, kAsset, kProxy };

/// "rig", "weights", "mesh", "target", "target folder", "pose", "asset", "proxy".
const char* dataFileKindName(DataFileKind kind);

/// A file (or, for kTargetFolder, a folder) a user named, found.
struct DataFile {
  bool in_source = false;  ///< true: `path` is relative to the data source; false: a path on disk (always for assets and proxies)
  std::string path;
  std::string label;       ///< its name in messages: the source's label of `path`, or `path`
};

/// The one lookup of a file a user names. `spec` is tried as a path on disk (absolute, or relative
/// to the current folder), then, when relative (and not starting with "./" or "../", which name
/// the current folder's files only), inside the data source (for an asset or a proxy: inside
/// `assets_dir`, when given) and inside each of the kind's sub-folders; in each place as given,
/// and (unless it already ends with one of the kind's extensions) with each extension; a bare rig
/// or weights NAME also as rig.NAME.json / weights.NAME.json in the sub-folders, a bare asset or
/// proxy NAME also as NAME.mhclo / NAME.proxy anywhere under `assets_dir`. An asset or proxy spec
/// naming a folder means the one file of its kind directly in it. Exactly one file must match.
/// Errors (one line; an asset's or proxy's subject is "asset SPEC" / "proxy SPEC", which a caller
/// may replace with its own, see replaceSubject; other kinds' is SPEC):
/// - nothing matched: "SPEC: no such KIND file (looked for ...)" (kIo; assets and proxies: "no
///   such file or folder", the places ending with "; no assets folder" when `assets_dir` is empty),
///   or for a bare rig or weights name "SOURCE: no KIND named "NAME"" with the closest names, for a
///   bare asset or proxy name "asset NAME: no asset of that name in ASSETS_DIR" with the closest;
/// - two different files matched: "SPEC: names more than one KIND file: A and B" (kUsage);
/// - an asset folder holding none of the kind's files (kIo) or several (kUsage, naming two).
/// A file reached two ways (the data folder is the current folder) is one file.
[[nodiscard]] Expected<DataFile> resolveDataFile(const DataSource& data, DataFileKind kind, std::string_view spec,
                                                 std::string_view assets_dir = {});
/// The bytes of a resolved file.
[[nodiscard]] Expected<FileText> viewDataFile(const DataSource& data, const DataFile& file);
/// The names of the files directly in a resolved folder that end with `suffix`, sorted.
std::vector<std::string> listDataFolder(const DataSource& data, const DataFile& folder, std::string_view suffix);

/// The body mesh: `mesh_path` if given (resolveDataFile, kMesh: any OBJ with the base mesh's vertex
/// count and order), else the source's 3dobjs/base.obj. `label` (optional) receives its name in messages.
[[nodiscard]] Expected<Mesh> loadBaseMesh(const DataSource& data, const std::string& mesh_path = {}, std::string* label = nullptr);
/// mesh_metadata/basemesh_vertex_groups.json, checked against the vertex count.
[[nodiscard]] Expected<VertexGroups> loadVertexGroups(const DataSource& data, std::size_t vertex_count);

/// Checks a body of `vertex_count` vertices against the data's vertex groups, whose extent is the
/// base mesh's vertex count. The error (kMismatch) names the file that is wrong: a body given by
/// the user (`mesh_is_base` false) is named by `mesh_label`; for the data's own base.obj, the
/// vertex groups file is named, with the group and range that reach beyond the mesh, or with the
/// last vertex the groups cover.
[[nodiscard]] Status checkBodyVertexCount(const DataSource& data, const VertexGroups& groups, std::size_t vertex_count,
                                          const std::string& mesh_label, bool mesh_is_base);

/// Where the rig `name_or_path` is (resolveDataFile, kRig), and its short name: MPFB's rig type for
/// a rig of rigs/standard or rigs/rigify ("game_engine", "rigify.human"), else the file name without
/// "rig." and the extension.
struct RigLocation {
  bool in_source = false;  ///< true: `path` is relative to the data source
  std::string path;
  std::string name;        ///< the rig's short name ("game_engine", "rigify.human")
  std::string label;       ///< its name in messages
};
[[nodiscard]] Expected<RigLocation> locateRig(const DataSource& data, const std::string& name_or_path);
[[nodiscard]] Expected<RigDefinition> loadRig(const DataSource& data, const RigLocation& where);

/// Names of the rigs a source ships ("cmu_mb", ..., "rigify.human").
std::vector<std::string> listRigs(const DataSource& data);

}  // namespace rigfit
