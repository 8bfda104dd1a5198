// The export pipeline's shared model: what G4MF and glTF writers both need, already in their
// frame (Y up, metres, character facing +Z), with helper geometry removed, vertices split where
// UVs or normals differ, bone names made safe, and the skin remapped to the exported vertices.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "rigfit/error.hpp"
#include "rigfit/mesh.hpp"
#include "rigfit/skeleton.hpp"
#include "rigfit/weights.hpp"

namespace rigfit {

struct ExportOptions {
  bool keep_helpers = false;  ///< keep helper geometry and joint cubes (default: body only)
  /// Keep only deforming bones (see selectDeformBones); needs a skin.
  bool deform_only = false;
  /// Threads for the computed normals, started and joined within the call (1: the calling thread
  /// only); the model does not depend on it.
  int threads = 1;
  /// Keep the polygons (polygon_offsets, polygon_corners), which G4MF writes; glTF writes only the
  /// triangles. false: the polygon arrays are left empty.
  bool polygons = true;
};

/// A morph target (blend shape) of one exported mesh: the mesh's export vertices it moves,
/// ascending, each with its position delta (3 floats, export frame, metres).
struct ExportMorph {
  std::string name;
  std::vector<std::uint32_t> vertices;
  std::vector<float> deltas;         ///< position deltas, 3 per listed vertex (may be 0 where only the normal changes)
  std::vector<float> normal_deltas;  ///< normal deltas, 3 per listed vertex; empty: none
};

enum class AlphaMode { kOpaque, kMask, kBlend };

/// An image a material uses (PNG or JPEG, the formats glTF requires every loader to read). Its
/// bytes are shared, not copied, between the characters of a batch.
struct ExportImage {
  std::string name;       ///< the image's item name (the file's stem)
  std::string file_name;  ///< the name it gets when written beside a .gltf ("brown_eye.png")
  std::string mime_type;  ///< "image/png" or "image/jpeg"
  std::shared_ptr<const std::string> bytes;
  int width = 0, height = 0;  ///< texels
};

/// An image from a file's bytes: its format and size read from its header (stb_image), checked
/// to be PNG or JPEG. `label` names the file in errors.
[[nodiscard]] Expected<ExportImage> exportImage(std::shared_ptr<const std::string> bytes, std::string_view label);

/// A mesh's material, as glTF's metallic-roughness model states it. The default is the body's:
/// not metallic (glTF's default material is fully metallic, which engines render dark),
/// roughness 0.5, 0.8 grey, opaque, one-sided.
struct ExportMaterial {
  std::string name = "Body";
  std::array<float, 4> base_color = {0.8f, 0.8f, 0.8f, 1.0f};  ///< linear RGBA, each 0..1
  double metallic = 0.0;   ///< 0..1
  double roughness = 0.5;  ///< 0..1
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  double alpha_cutoff = 0.5;  ///< kMask: alpha below it is transparent (>= 0)
  bool double_sided = false;
  std::optional<ExportImage> base_color_texture;  ///< multiplied by base_color (sRGB image)
  std::optional<ExportImage> normal_texture;      ///< tangent-space normal map
};

/// One skinned mesh of the export, Y up: one vertex per distinct (position, UV, normal) corner.
struct ExportMesh {
  std::string name = "Body";
  ExportMaterial material;
  std::vector<float> positions;           ///< 3 per vertex
  std::vector<float> normals;             ///< 3 per vertex (empty: none)
  std::vector<float> uvs;                 ///< 2 per vertex; empty when the mesh has none
  std::vector<std::uint32_t> triangles;   ///< 3 per triangle (polygons fanned from their first corner)
  std::vector<std::uint32_t> polygon_offsets;  ///< polygon p: corners [offsets[p], offsets[p+1]) in polygon_corners
  std::vector<std::uint32_t> polygon_corners;  ///< export vertex per polygon corner
  std::vector<std::uint32_t> source_vertex;    ///< per export vertex: index in the input mesh

  Skin skin;  ///< influences per export vertex (bones index the model's skeleton); empty if none given
  std::vector<ExportMorph> morphs;  ///< morph targets, applied to the bind-pose mesh before skinning

  std::size_t vertexCount() const { return positions.size() / 3; }
};

/// One skeleton and the meshes it skins.
struct ExportModel {
  // Skeleton, parents first. Bones point along their local +Y, as in Blender.
  std::vector<std::string> names;         ///< export names (see exportName), unique
  std::vector<std::string> source_names;  ///< MakeHuman / rig names
  std::vector<int> parents;               ///< kNoParent for roots
  std::vector<int> source_bones;          ///< index of each bone in the Skeleton it came from
  std::vector<Eigen::Matrix4d> bind_global;  ///< bone -> model, Y up
  std::vector<Eigen::Matrix4d> bind_local;   ///< bone -> parent bone (roots: = bind_global)
  std::vector<double> lengths;
  std::vector<double> rolls;              ///< the rig's edit roll (Blender frame), kept for round trips
  std::vector<Eigen::Vector3d> heads, tails;  ///< Y up
  /// A deform-only skeleton (see selectDeformBones): per bone of the input Skeleton, 1 when some
  /// mesh's weights give it weight (helper vertices included). Empty: every bone is exported.
  std::vector<std::uint8_t> weighted_bones;

  /// The body first (buildExportModel), then the meshes addExportMesh appended, all skinned by
  /// the one skeleton.
  std::vector<ExportMesh> meshes;
};

/// The rig frame (Blender: Z up, -Y forward) to the export frame (Y up, +Z forward):
/// (x, y, z) -> (x, z, -y), the same change of basis Blender's glTF exporter applies.
Eigen::Matrix4d rigToExportFrame();

/// A name valid in G4MF and safe everywhere: each of " # * . : | ? @ < > { } [ ] / \ % and every
/// control character becomes '_' ("upperarm01.L" -> "upperarm01_L"); empty -> "_".
std::string exportName(std::string_view name);

/// Per-vertex tangents of a mesh with normals and UVs (empty otherwise), 4 floats each: the unit
/// direction in which the texture's u grows (glTF's UV convention, v down), orthogonal to the
/// normal, and w = ±1, the handedness of the bitangent cross(normal, tangent) * w. glTF's TANGENT
/// for normal-mapped materials.
std::vector<float> exportTangents(const ExportMesh& mesh);

/// Adds a morph target to `mesh` from sparse offsets in its input mesh's frame (a MakeHuman
/// target as shapeBody applies it: `source_vertices[k]` moves by offsets[3k..3k+2]): every export
/// vertex split from a listed source vertex moves by the offset in the export frame. Offsets that
/// are zero there are left out; a source vertex listed twice adds up. Rejects (kRange) a source
/// vertex beyond the input mesh and (kUsage) offsets not 3 per vertex.
/// `source_normal_deltas` (optional, 3 per input vertex, input frame): how the target changes
/// each input vertex's normal; a vertex whose normal changes is listed even where it does not move.
[[nodiscard]] Status addExportMorph(ExportMesh& mesh, std::string name, std::size_t source_vertex_count,
                                    std::span<const std::uint32_t> source_vertices, std::span<const double> offsets,
                                    std::span<const float> source_normal_deltas = {});

/// Makes `name` unique against `taken` by appending _2, _3, ... and records it.
std::string uniqueName(std::vector<std::string>& taken, const std::string& name);

/// Bones kept by a deform-only export, in output order (skeleton indices), with their new
/// parents (indices into `bones`, kNoParent for the root).
struct BoneSelection {
  std::vector<int> bones;
  std::vector<int> parents;
};

/// The deform-only skeleton. MakeHuman rig files carry no deform flag (MPFB creates every bone
/// with Blender's default use_deform = true), so a bone deforms when the bound weights give it a
/// weight > 0 on some vertex of the mesh (helpers and joint cubes included, so the skeleton does
/// not depend on --keep-helpers). Shipped rigs lose Root (game_engine*, mixamo_unity) and the
/// small toes (openpose). Every kept bone's parent is its nearest kept ancestor. A single root:
/// kept bones that would become several roots of one tree get their lowest common ancestor back
/// (a non-deforming bone that holds them together); when the kept bones lie in several trees of
/// the rig (openpose: LHip, MidHip, RHip), the top bones of the smaller trees become children of
/// the top bone of the tree with the most kept bones (the first such tree on a tie). Output order
/// is depth-first, children in skeleton order, so parents come first and a selection that
/// changes no tree keeps the skeleton's order. Errors (kUsage): no bone carries weight.
[[nodiscard]] Expected<BoneSelection> selectDeformBones(std::span<const int> parents, const Skin& skin);
/// The same from the bones that carry weight (`weighted[b]` != 0; one per bone, as ExportModel::
/// weighted_bones: the union over several meshes' skins).
[[nodiscard]] Expected<BoneSelection> selectDeformBones(std::span<const int> parents, std::span<const std::uint8_t> weighted);

/// Builds the model from a mesh and a skeleton: the skeleton and meshes[0], the body, named
/// "Body" with the default ExportMaterial. `positions` (rig frame, 3 per mesh vertex) and
/// `bind` (armature-space bone matrices, one per bone) default to the rest data; pass posed ones
/// to make a pose the bind pose. `normals` (3 per mesh vertex, rig frame) default to the OBJ's own
/// per-corner normals, else angle-weighted vertex normals of `positions`. `groups` (optional) tell
/// which vertices are helpers and joint cubes. With options.deform_only the skeleton is
/// selectDeformBones' (bind_global unchanged, bind_local relative to the new parent, the skin's
/// bone indices remapped); otherwise every bone in skeleton order.
[[nodiscard]] Expected<ExportModel> buildExportModel(const Mesh& mesh, const Skeleton& skeleton, const Skin* skin,
                                                     const VertexGroups* groups, const ExportOptions& options,
                                                     std::span<const float> positions = {},
                                                     std::span<const Eigen::Matrix4d> bind = {},
                                                     std::span<const float> normals = {});

/// Appends a further skinned mesh (eyes, hair, clothes) to `model`, through the same vertex
/// split, change of frame, helper removal and skin remap as the body. `skin`'s bone indices refer
/// to `skeleton`, which with `bind` must be the ones the model was built from (checked on the
/// bones it holds), and options.deform_only must be the model's. In a deform-only model a bone
/// deforms when any mesh gives it weight: the skeleton grows by the bones this mesh weights (and
/// the bones that then hold the skeleton together), and the meshes already in the model are
/// remapped to it. `positions`, `normals` and `groups` as in buildExportModel. On an error the
/// model is unchanged. Errors: kUsage (sizes, another skeleton or bind pose, deform-only mode),
/// kMismatch (the skin is for another vertex count).
[[nodiscard]] Status addExportMesh(ExportModel& model, const Skeleton& skeleton, const Mesh& mesh, const Skin& skin,
                                   std::string name, ExportMaterial material, const ExportOptions& options,
                                   const VertexGroups* groups = nullptr, std::span<const float> positions = {},
                                   std::span<const Eigen::Matrix4d> bind = {}, std::span<const float> normals = {});

/// Checks what every writer relies on, before it writes (the glTF and G4MF writers call it).
/// Skeleton: names, parents, bind_local and lengths one per bone (source_names, source_bones,
/// bind_global, rolls, heads and tails one per bone or empty); parents before their children;
/// names not empty, free of exportName's forbidden characters, unique; at most 65535 bones;
/// lengths finite and >= 0; matrices, rolls, heads and tails finite. Per mesh: positions 3 per
/// vertex; normals, UVs and source_vertex one per vertex or empty; triangles 3 indices each and
/// polygons (offsets from 0 to the corner count, 3 corners or more each) within the vertices;
/// finite positions and UVs; finite, non-zero normals; a skin, when given, one entry per vertex
/// (offsets from 0, not decreasing, to the influence count; as many weights as bones) with bone
/// indices below the bone count and finite weights >= 0; morph targets with deltas 3 per listed
/// vertex, normal deltas as many or none (and then only on a mesh with normals), vertices
/// ascending within the mesh, finite values; the material's base colour, metallic and roughness
/// from 0 to 1, a finite alpha cutoff >= 0. Errors: kUsage (sizes, order, names), kRange (indices
/// and values). Messages name the bone, mesh and morph.
[[nodiscard]] Status validateExportModel(const ExportModel& model);

/// Angle-weighted vertex normals (as Blender computes smooth vertex normals) of a polygon mesh,
/// on `threads` threads (the result does not depend on the number).
void vertexNormals(const Mesh& mesh, std::span<const float> positions, std::span<float> out, int threads = 1);

/// The normal deltas of morph targets on one body. Built once (the body's vertex normals and the
/// faces around each vertex); each target then recomputes only the faces around the vertices it
/// moves, in the same order as vertexNormals, so the unchanged normals are bit for bit the same.
class MorphNormals {
 public:
  MorphNormals(const Mesh& mesh, std::span<const float> positions, int threads = 1);
  /// 3 per mesh vertex: the vertex normals of the body with positions[v] + offsets added at
  /// `vertices` (in float, as shapeBody at weight 1) minus the body's own; 0 elsewhere.
  /// Indices beyond the mesh are ignored, as MPFB ignores them.
  void deltas(std::span<const std::uint32_t> vertices, std::span<const double> offsets, std::vector<float>& out);

 private:
  const Mesh& mesh_;
  std::span<const float> positions_;
  std::vector<float> base_;                          // the body's vertex normals
  std::vector<std::uint32_t> star_offsets_, star_;  // faces around each vertex, ascending
  std::vector<float> moved_, normals_;               // scratch: positions and normals of a target
  static constexpr std::uint32_t kNoVertex = 0xFFFFFFFFu;
  std::vector<std::uint8_t> mark_;                   // scratch: faces and vertices visited
  std::vector<std::uint32_t> local_;                 // scratch: vertex -> sub-mesh vertex
  Mesh sub_;                                         // scratch: the faces a target changes
};

}  // namespace rigfit
