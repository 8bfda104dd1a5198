// glTF 2.0 writer: a skinned character (ExportModel) as .glb, or .gltf with a .bin beside it or
// embedded as a data URI. Valid under the Khronos glTF-Validator with no warnings.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "rigfit/error.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/json.hpp"

namespace rigfit {

enum class GltfContainer { kGlb, kGltf, kGltfEmbedded };

/// Fixed-size skin streams for the exported vertices (see limitInfluences / quantizeInfluences):
/// `influences` (4 or 8) entries per vertex, heaviest first. Weights are floats, or, when
/// `weight_bits` is 8 or 16, the quantised integers (then `weights` is ignored).
struct GltfSkinStreams {
  int influences = 4;
  std::span<const std::uint16_t> joints;
  std::span<const float> weights;
  int weight_bits = 0;
  std::span<const std::uint16_t> quantized_weights;
};

struct GltfOptions {
  GltfContainer container = GltfContainer::kGlb;
  std::string bin_name = "model.bin";  ///< the .bin file's name for kGltf (written by the caller)
  std::string rig_name;                ///< recorded in extras
  /// The body's material: linear RGBA base colour, not metallic (glTF's default material is fully
  /// metallic, which engines render dark), roughness 0.5.
  std::array<float, 4> base_color = {0.8f, 0.8f, 0.8f, 1.0f};
  Json asset_extras = Json::object();  ///< written as asset.extras when not empty (provenance)
};

struct GltfFiles {
  std::string main;  ///< .glb or .gltf bytes
  std::string bin;   ///< .bin bytes (kGltf only)
};

/// Writes the model. Layout: scene root nodes are "Armature" (the bones below it, rest transforms
/// as TRS relative to the parent) and the skinned mesh node (no transform, as glTF requires).
/// Inverse bind matrices are computed from the written TRS so the rest pose skins to identity.
/// Vertices without influences are bound fully to the first joint. Extras keep each bone's
/// MakeHuman name, tail, roll and length, and the rig's name. Deterministic bytes.
[[nodiscard]] Expected<GltfFiles> writeGltf(const ExportModel& model, const GltfSkinStreams& skin, const GltfOptions& options);

}  // namespace rigfit
