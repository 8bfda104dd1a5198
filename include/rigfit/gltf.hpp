// glTF 2.0 writer: a skinned character (ExportModel: one skeleton, its meshes) as .glb, or .gltf
// with a .bin beside it or embedded as a data URI. Valid under the Khronos glTF-Validator with no
// warnings. And the skeleton reader: the joints of a .glb / .gltf (from memory, or from a file
// with its .bin beside it) as bone positions for rig authoring.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rigfit/author.hpp"
#include "rigfit/error.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/json.hpp"

namespace rigfit {

enum class GltfContainer { kGlb, kGltf, kGltfEmbedded };

/// Fixed-size skin streams for one mesh's exported vertices (see limitInfluences /
/// quantizeInfluences): `influences` (4 or 8) entries per vertex, heaviest first. Weights are
/// floats, or, when `weight_bits` is 8 or 16, the quantised integers (then `weights` is ignored).
struct GltfSkinStreams {
  int influences = 4;
  std::span<const std::uint16_t> joints;
  std::span<const float> weights;
  int weight_bits = 0;
  std::span<const std::uint16_t> quantized_weights;
};

/// The skin streams of every mesh of a model, and the arrays they view (so not copyable).
struct GltfSkins {
  GltfSkins() = default;
  GltfSkins(GltfSkins&&) = default;
  GltfSkins& operator=(GltfSkins&&) = default;
  GltfSkins(const GltfSkins&) = delete;
  GltfSkins& operator=(const GltfSkins&) = delete;

  std::vector<GltfSkinStreams> streams;  ///< one per mesh, in model order
  std::vector<std::vector<std::uint16_t>> joints, quantized_weights;
  std::vector<std::vector<float>> weights;
  std::size_t vertices_limited = 0;  ///< vertices that lost influences, over every mesh
  std::vector<std::size_t> mesh_vertices_limited;  ///< the same per mesh, in model order
  double max_dropped_weight = 0.0;   ///< the largest normalised weight dropped, over every mesh
};

/// Each mesh's skin limited to `influences` (4 or 8) per vertex with limitInfluences, then, when
/// `weight_bits` is 8 or 16, quantised with quantizeInfluences. A mesh without a skin gets
/// all-zero streams (writeGltf binds its vertices to the first joint).
GltfSkins gltfSkins(const ExportModel& model, int influences, int weight_bits = 0);

struct GltfOptions {
  GltfContainer container = GltfContainer::kGlb;
  std::string bin_name = "model.bin";  ///< the .bin file's name for kGltf (written by the caller)
  std::string rig_name;                ///< recorded in extras
  Json asset_extras = Json::object();  ///< written as asset.extras when not empty (provenance)
};

struct GltfFiles {
  std::string main;  ///< .glb or .gltf bytes
  std::string bin;   ///< .bin bytes (kGltf only)
  /// kGltf only: the material images to write beside the .gltf, as its `images[].uri` name them
  /// (each image's file_name, made unique among them).
  std::vector<std::pair<std::string, std::shared_ptr<const std::string>>> images;
};

/// Writes the model (checked by validateExportModel first). Material images become glTF images
/// (in the .glb's buffer, as data URIs with kGltfEmbedded, or files beside a .gltf), each image
/// once however many materials use it, with one linear, repeating sampler. Layout: scene root nodes are
/// "Armature" (the bones below it, rest transforms as TRS relative to the parent) and one node per
/// mesh (named after it, no transform, as glTF requires), each with its glTF mesh (one primitive,
/// its morph targets) and its material, all skinned by the one skin (joints = every bone).
/// Inverse bind matrices are computed from the written TRS so the rest pose skins to identity.
/// Vertices without influences are bound fully to the first joint. Extras keep each bone's
/// MakeHuman name, tail, roll and length, and the rig's name. `skins`: one per mesh, in model
/// order (see gltfSkins). Deterministic bytes.
[[nodiscard]] Expected<GltfFiles> writeGltf(const ExportModel& model, std::span<const GltfSkinStreams> skins, const GltfOptions& options);

/// A model of one mesh (the body) with its streams.
[[nodiscard]] inline Expected<GltfFiles> writeGltf(const ExportModel& model, const GltfSkinStreams& skin, const GltfOptions& options) {
  return writeGltf(model, std::span<const GltfSkinStreams>(&skin, 1), options);
}

/// The skeleton of a glTF 2.0 file (.glb binary or .gltf text, read by tinygltf from `bytes`
/// alone): the joints of the first skin (or, without skins, every node below a node named
/// "Armature"). Each joint's world matrix (the product of the node transforms from the scene root)
/// gives the head; glTF is Y up, so points go to the rig frame by (x, y, z) -> (x, -z, y). The
/// bone's direction is its local +Y (Blender's and rigfit's convention); the tail is head +
/// extras.length along +Y (rigfit's exports), else extras.tail (a scene-space point: {x, y, z} as
/// rigfit writes it, or [x, y, z]), else
/// the child joint nearest to the +Y axis, else (a leaf) at its parent's length. The roll is
/// extras.roll when present (rigfit's exports), else that of the joint's frame; names are
/// extras.name when present (rigfit keeps MakeHuman's names there), else the node name.
/// No file is opened: a buffer stored in another file (a .gltf with its .bin beside it) is an
/// error (readGltfSkeleton reads those); images are neither decoded nor opened. Errors name the
/// file (`label`) and the byte offset (GLB container, JSON syntax) or the JSON path.
[[nodiscard]] Expected<SkeletonSource> parseGltfSkeleton(std::string_view bytes, std::string_view label);

/// The skeleton of the .glb / .gltf file at `path`, as parseGltfSkeleton, with the buffers stored
/// in other files read from the file's folder: each buffers[i].uri that is not a data: URI is
/// percent-decoded and must be a relative path to a file in that folder or below (no scheme, not
/// absolute, no ".." segment; symbolic links are followed). The file must hold at least
/// byteLength bytes (its size is checked before anything is allocated) and its first byteLength
/// bytes are read. No other file is opened; images are neither decoded nor opened. Errors name
/// `path` and buffers[i].uri on one line.
[[nodiscard]] Expected<SkeletonSource> readGltfSkeleton(const std::string& path);

}  // namespace rigfit
