// A character as export bytes: the bind pose (rest, or a pose applied as rest), the export model,
// and the glTF or G4MF writer, with a report. One function for `rigfit export` and `rigfit batch`,
// so a character exported either way is the same bytes.
#pragma once

#include <array>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "rigfit/character.hpp"
#include "rigfit/json.hpp"
#include "rigfit/pipeline_options.hpp"
#include "rigfit/posing.hpp"

namespace rigfit {

struct CharacterExportOptions {
  ExportFormat format = ExportFormat::kGlb;
  bool embed = false;          ///< .gltf: the buffer as a data URI instead of a .bin
  std::string bin_name;        ///< .gltf without embed: the .bin's file name written into the .gltf
  int influences = 4;          ///< glTF: 4 or 8 per vertex
  bool quantize = false;       ///< glTF: normalised unsigned weights summing exactly to 1
  int weight_bits = 8;         ///< glTF with quantize: 8 or 16
  bool keep_helpers = false;   ///< keep helper geometry and joint cubes
  bool keep_hidden = false;    ///< keep the faces a mesh hides (CharacterMesh::hidden_faces)
  bool deform_only = false;    ///< only bones that carry weight, re-parented across removed ones
  /// Bendy bones stay single joints (weights as in the rig) instead of becoming joint chains
  /// (rigfit/bbone_bake.hpp).
  bool keep_bendy_bones = false;
  bool compress = false;       ///< .g4b: Zstandard chunks
  int threads = 1;             ///< threads for the computed normals (the bytes do not depend on it)
  /// MakeHuman targets exported as morph targets (glTF) or blend shapes (G4MF), default weight 0,
  /// in order (a whole folder's in name order). With a pose as the bind pose, the deltas are the
  /// target's change to the posed body (carried through each vertex's skinning).
  std::vector<MorphSpec> morphs;
  /// glTF: the body material's linear RGBA base colour (see ExportMaterial::base_color; alpha below 1 blends).
  std::array<float, 4> base_color = {0.8f, 0.8f, 0.8f, 1.0f};
  /// Where the morph targets are read (optional: a batch shares one, so each file is read once).
  TargetCache* targets = nullptr;
};

/// Where an export's weights came from: the weights file by name (not path: the bytes do not
/// depend on where the data is) and what it says of itself ("name", "license", "copyright").
struct WeightsProvenance {
  std::string file;
  std::vector<std::pair<std::string, std::string>> statements;
};

/// What an export wrote, for `--report` and the batch summary (exportReportJson).
struct ExportReport {
  struct Mesh {
    std::string name;
    std::size_t vertices = 0, triangles = 0;
    std::string material;  ///< the material's name
    std::string texture;   ///< the base colour image's file name; empty: none
    std::optional<std::size_t> vertices_limited;  ///< glTF only: this mesh's vertices that lost influences
    std::vector<std::string> warnings;  ///< its asset's (missing material or textures, ...)
  };
  struct Morph {
    std::string name;
    std::size_t vertices = 0;  ///< export vertices the morph moves
  };
  /// glTF only: the top-K influence limit and what it dropped.
  struct Influences {
    int per_vertex = 4;
    std::size_t vertices_limited = 0;
    double max_dropped_weight = 0.0;
  };
  ExportFormat format = ExportFormat::kGlb;
  std::string rig;
  std::size_t joints = 0;
  std::optional<std::vector<std::string>> removed_bones;  ///< with deform_only: the bones left out
  WeightsProvenance weights;
  std::size_t vertices = 0, triangles = 0;  ///< of the body (meshes[0])
  std::vector<Mesh> meshes;                 ///< every exported mesh, the body first
  std::vector<Morph> morphs;                ///< the body's morph targets
  std::optional<Influences> influences;
  std::size_t unweighted_vertices = 0;      ///< body vertices without influences
  std::vector<std::string> unmapped_groups;  ///< weights groups that name no bone
  /// The skeleton's bone constraints, "BONE: NAME (TYPE)": engines do not evaluate them (a pose
  /// applied as rest holds their effect in that pose only). Empty: none.
  std::vector<std::string> constraints;
  std::vector<std::string> warnings;
  std::size_t bytes = 0;                    ///< main file + .bin
};

/// The report as JSON, keys in a fixed order (the format of `rigfit export --report` and of each
/// line's "report" in a batch summary). "meshes" is written only for more than one mesh, each as
/// name, vertices, triangles, material, texture (null: none), vertices_limited (glTF only), warnings.
Json exportReportJson(const ExportReport& report);

struct CharacterExport {
  std::string main;  ///< the .glb/.gltf/.g4tf/.g4b bytes
  std::string bin;   ///< the .bin of a non-embedded .gltf (empty otherwise)
  /// The material images a non-embedded .gltf names: file name (beside the .gltf) and bytes.
  std::vector<std::pair<std::string, std::shared_ptr<const std::string>>> images;
  ExportReport report;
  std::vector<std::string> warnings;  ///< pose warnings (bones the rig lacks, ...)
};

/// Exports a loaded character (it must have a skin). A pose in `pose` becomes the bind pose
/// (skeleton, body and normals together); pose files are looked up in `data` as `rigfit pose` does.
[[nodiscard]] Expected<CharacterExport> exportCharacter(const DataSource& data, const Character& character,
                                                        const PoseRequest& pose, const CharacterExportOptions& options);

/// Writes the export durably and all or nothing (writeFilesAtomic): the main file, and the .bin
/// when `bin_path` is not empty, and the images of a .gltf beside it. On failure the files there
/// before are left as they were.
[[nodiscard]] Status writeCharacterExport(const CharacterExport& files, const std::string& path, const std::string& bin_path);

}  // namespace rigfit
