// A character as export bytes: the bind pose (rest, or a pose applied as rest), the export model,
// and the glTF or G4MF writer, with a report. One function for `rigfit export` and `rigfit batch`,
// so a character exported either way is the same bytes.
#pragma once

#include <array>
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
  bool deform_only = false;    ///< only bones that carry weight, re-parented across removed ones
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

struct CharacterExport {
  std::string main;  ///< the .glb/.gltf/.g4tf/.g4b bytes
  std::string bin;   ///< the .bin of a non-embedded .gltf (empty otherwise)
  Json report;       ///< format, rig, joints, vertices, triangles, influences, warnings, bytes
  std::vector<std::string> warnings;  ///< pose warnings (bones the rig lacks, ...)
};

/// Exports a loaded character (it must have a skin). A pose in `pose` becomes the bind pose
/// (skeleton, body and normals together); pose files are looked up in `data` as `rigfit pose` does.
[[nodiscard]] Expected<CharacterExport> exportCharacter(const DataSource& data, const Character& character,
                                                        const PoseRequest& pose, const CharacterExportOptions& options);

/// Writes the export durably and all or nothing (writeFilesAtomic): the main file, and the .bin
/// when `bin_path` is not empty. On failure the files there before are left as they were.
[[nodiscard]] Status writeCharacterExport(const CharacterExport& files, const std::string& path, const std::string& bin_path);

}  // namespace rigfit
