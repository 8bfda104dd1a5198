// G4MF (Good 4D Model Format, draft; godot-dimensions/g4mf) for rigged characters: a writer for
// .g4tf (text) and .g4b (binary, optionally Zstd-compressed), a strict reader that reads back what
// the writer produces (skeleton, every skinned mesh with its skin and blend shapes, materials),
// and a separate validator that reports every rule of docs/g4mf-rules.md a file can break. 3D
// only on write; the validator takes any dimension, the reader 3 only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "rigfit/error.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/json.hpp"

namespace rigfit {

enum class G4mfContainer {
  kText,    ///< .g4tf: one JSON object, the buffer as a base64 data URI
  kBinary,  ///< .g4b: file header, a JSON chunk and a BLOB chunk (16-byte aligned, 64-bit sizes)
};

struct G4mfWriteOptions {
  G4mfContainer container = G4mfContainer::kText;
  /// .g4b only: both the JSON and the BLOB chunk are Zstandard frames (encoding "Zstd"); the
  /// buffer carries "encoding": "Zstd" and its decoded byteLength.
  bool zstd = false;
  int zstd_level = 3;  ///< libzstd level (1..22; negative = fast modes)
  /// Item names. Sanitised with exportName and made file-unique against the bone names (and each
  /// other) with uniqueName, as are each mesh's: its node is the ExportMesh's name N, its mesh
  /// "<N>Mesh", its surface "<N>Surface".
  std::string root_name = "Scene";
  std::string skeleton_name = "Armature";
  std::string rig_name;  ///< written to the skeleton node's extras ("rig") when not empty
  Json asset_extras = Json::object();  ///< written as asset.extras when not empty (provenance)
  /// docs/g4mf-rules.md §11: drop zero weights and divide each vertex's weights by their sum. A
  /// vertex whose total is <= 1e-4 is left unlisted (it stays at rest, as Blender's armature
  /// modifier leaves it). false: the weights as stored (zero weights still dropped).
  bool normalize_weights = true;
};

/// Writes `model` (checked by validateExportModel first) as a G4MF document (3D, Y up, metres):
///   nodes[0] root (no transform) -> nodes[1] skeleton node (joints = every bone) -> one node per
///   bone in model order (bind_local as position + rotor [+ scale], or basis when the 3x3 part is
///   not a rotation times a positive scale; bone.length; extras makehumanName and roll), and last
///   one node per mesh (identity), each a direct child of the skeleton, so it skins them all.
///   meshes[k], one per ExportMesh: vertices shared across UV/normal seams (export vertices with
///   the same source_vertex, position and influences merged), polygon fans with polytopeSimplexes
///   (rotated so consecutive polygons never share a first vertex), per-corner normals and UVs (v
///   flipped to G4MF's top-left origin) through binding simplexes, and the skin (groups = bone
///   indices, groupNames = bone names).
/// The full rationale is in src/formats/g4mf/g4mf_writer.cpp. Errors: validateExportModel's, and
/// (kUsage) Zstd options. The bytes depend only on the model and the options (and libzstd's
/// version when compressing).
[[nodiscard]] Expected<std::string> writeG4mf(const ExportModel& model, const G4mfWriteOptions& options = {});

/// A blend shape as stored: vertex indices and their position offsets (3 each), and the first
/// surface's normal target (indices into that surface's normal values; 3 offsets each).
struct G4mfBlendShape {
  std::string name;
  double amount = 0.0;  ///< the mesh's blend.amounts entry (0 when absent)
  std::vector<std::uint32_t> vertices;
  std::vector<float> offsets;
  std::vector<std::uint32_t> normal_values;
  std::vector<float> normal_offsets;
};

/// One mesh as readG4mf returns it (G4MF model: shared vertices, per-corner normals and UVs
/// through bindings). Positions, normals and offsets are as stored: for rigfit's files the export
/// frame (Y up, metres); the surfaces are read one after the other into one triangle list.
struct G4mfMesh {
  std::string node_name;  ///< the mesh-instance node ("" when the mesh is not instanced)
  std::string name;       ///< the mesh's name

  std::vector<float> positions;                 ///< 3 per vertex
  std::vector<std::uint32_t> triangles;         ///< the surface simplexes, 3 per triangle
  /// Polygons: consecutive triangles sharing their first vertex when polytopeSimplexes is true
  /// (fans a,b,c + a,c,d -> a,b,c,d), else one per triangle.
  std::vector<std::uint32_t> polygon_offsets;   ///< polygon p: [offsets[p], offsets[p+1]) in polygon_corners
  std::vector<std::uint32_t> polygon_corners;   ///< vertex per polygon corner
  std::vector<float> normals;                   ///< normal values, 3 each (empty: none)
  std::vector<std::uint32_t> normal_indices;    ///< per triangle corner: index into normals/3
  std::vector<float> uvs;                       ///< UV values, 2 each, G4MF convention (origin top-left, v down)
  std::vector<std::uint32_t> uv_indices;        ///< per triangle corner: index into uvs/2

  // Skin: (vertex, group, weight) triples as stored (vertices ascending, weights descending per vertex).
  std::vector<std::uint32_t> skin_vertices;
  std::vector<std::uint32_t> skin_groups;       ///< group k is driven by G4mfDocument::joints[k]
  std::vector<float> skin_weights;
  std::vector<std::string> group_names;

  std::vector<G4mfBlendShape> blend_shapes;  ///< the mesh's blend shapes (position targets), in order

  /// Index into G4mfDocument::materials of the first surface's material: the instance node's
  /// materials override when it has one, else the surface's own; -1 when neither names one (the
  /// spec's default material).
  int material = -1;

  std::size_t vertexCount() const { return positions.size() / 3; }
};

/// A material (docs/g4mf-rules.md §9.4): the factors of its baseColor and orm channels (textures
/// are not read), and the glTF settings G4MF lacks, which rigfit writes in the material's extras.
struct G4mfMaterial {
  std::string name;
  /// baseColor.factor, linear RGBA (the spec's white when absent; alpha 1 when only RGB is given).
  std::array<double, 4> base_color = {1.0, 1.0, 1.0, 1.0};
  /// orm.factor: occlusion, roughness, metallic (the spec's default 0, 1, 0 where absent).
  std::array<double, 3> orm = {0.0, 1.0, 0.0};
  // extras (glTF's defaults when absent): alphaMode "OPAQUE" / "MASK" / "BLEND" (another value
  // is ignored), alphaCutoff (a number), doubleSided (a boolean).
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  double alpha_cutoff = 0.5;
  bool double_sided = false;
};

/// What readG4mf extracts: the first skeleton node's bones; the meshes it skins (every mesh with
/// a skin instanced on a direct child node of that skeleton, one entry per such node, in node
/// order), or, when it skins none, one mesh: the first mesh instanced on a child of the skeleton,
/// else the first instanced mesh, else the file's first mesh (none when the file has no mesh);
/// and every material of the file, in file order. Matrices are 4x4 affine, column vectors. A file
/// rigfit writes reads back as one G4mfMesh per ExportMesh, in order (node and mesh names as
/// G4mfWriteOptions tells), each with its own G4mfMaterial (materials[k] for meshes[k]).
struct G4mfDocument {
  int dimension = 3;
  bool binary = false;       ///< the file was .g4b
  std::string generator;     ///< asset.generator
  std::string root_name, skeleton_name;
  std::string rig_name;      ///< skeleton node extras "rig" ("" when absent)

  // Skeleton: the skeleton's bone nodes in node order (parents before children).
  std::vector<std::string> bone_names;
  std::vector<std::string> source_names;   ///< extras "makehumanName" ("" when absent)
  std::vector<int> bone_nodes;             ///< node index of each bone
  std::vector<int> parents;                ///< bone index, -1 for a child of the skeleton node
  std::vector<Eigen::Matrix4d> local;      ///< bone -> parent (bone or skeleton node)
  std::vector<Eigen::Matrix4d> global;     ///< bone -> skeleton node space
  std::vector<double> lengths;             ///< bone.length; NaN when the bone has none
  std::vector<double> rolls;               ///< extras "roll"; NaN when absent
  std::vector<int> joints;                 ///< skeleton.joints as bone indices (-1: no bone)

  std::vector<G4mfMesh> meshes;
  std::vector<G4mfMaterial> materials;
};

/// Reads a .g4tf or .g4b (told apart by the magic "G4MF"). Strict: any error-level issue that
/// validateG4mf reports makes the read fail with the first one ("label: PATH: message"); hostile
/// sizes are errors before anything is allocated for them, and memory follows the file's size
/// (Zstd output and the document's arrays have bounds proportional to it: README, `rigfit
/// validate`); a buffer in an encoding other than plain or Zstd is an error naming it; external
/// (non-data) URIs and extensionsRequired are kUnsupported. Never throws.
[[nodiscard]] Expected<G4mfDocument> readG4mf(std::span<const std::byte> bytes, std::string_view label);
[[nodiscard]] Expected<G4mfDocument> readG4mf(std::string_view bytes, std::string_view label);

enum class G4mfSeverity {
  kError,    ///< a MUST of the spec or the schema is broken
  kWarning,  ///< allowed by one text but not another, or something this validator cannot check
};

struct G4mfIssue {
  /// Where: a JSON pointer into the document ("/nodes/3/bone/length", "" = the document), or
  /// "g4b:header/..." / "g4b:chunks/N/..." in the binary container, or "text:BYTE" for a byte
  /// offset in the JSON text (the decoded JSON chunk for .g4b).
  std::string path;
  std::string message;
  G4mfSeverity severity = G4mfSeverity::kError;
};

/// Checks every rule of docs/g4mf-rules.md a file can break (container, JSON text, schema
/// structure, names, buffers, accessors, nodes, skeletons, meshes, skins, blend shapes). Never
/// throws, never allocates by a declared size beyond what the bytes can back. Empty: valid. At most
/// 1000 issues are listed (then one warning counts the rest). `label` is not part of the issues
/// (their paths are relative to the file); it is kept for symmetry with readG4mf. External
/// (relative or remote) buffer URIs are not opened: a warning says their data was not checked.
std::vector<G4mfIssue> validateG4mf(std::span<const std::byte> bytes, std::string_view label);
std::vector<G4mfIssue> validateG4mf(std::string_view bytes, std::string_view label);

/// True when any issue is an error.
bool hasG4mfErrors(std::span<const G4mfIssue> issues);

}  // namespace rigfit
