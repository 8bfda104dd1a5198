// SkinningLayout's streams as the kernels and the job read them (internal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rigfit/skinning.hpp"

namespace rigfit::detail {

/// Vertices are in chunks of kSkinningChunk consecutive vertices, each chunk in one of two forms:
///  - per vertex (chunk_k[c] = k > 0): every vertex has k influence slots (the chunk's largest
///    count; missing ones have weight 0 on bone 0); slot i of vertex v is at
///    chunk_bone[c] + i * kSkinningChunk + v in bones and chunk_weight[c] + i * kSkinningChunk + v
///    in weights;
///  - per bone (chunk_u[c] = u > 0): the chunk's u distinct bones at bones[chunk_bone[c] + j] and,
///    when u > 1, for each of them the 16 vertices' weights (0 if the vertex does not use it) at
///    weights[chunk_weight[c] + j * kSkinningChunk + v] (64-byte aligned);
///  - both 0: every vertex of the chunk stays at rest.
/// Weights are normalised.
inline constexpr std::size_t kSkinningChunk = 16;

struct SkinningView {
  std::size_t vertex_count = 0;
  std::size_t chunk_count = 0;
  const std::uint8_t* chunk_k = nullptr;
  const std::uint8_t* chunk_u = nullptr;
  const std::uint32_t* chunk_bone = nullptr;
  const std::uint32_t* chunk_weight = nullptr;
  const std::uint16_t* bones = nullptr;
  const float* weights = nullptr;
  const std::uint8_t* rest_bits = nullptr;  ///< bit v: vertex v stays at rest (padded by 8 bytes)
};

struct SkinningLayoutAccess {
  /// The layout's streams.
  static SkinningView view(const SkinningLayout& layout);
  /// Chunk boundaries 0 = c_0 <= c_1 <= ... <= c_parts = chunk count that split the work
  /// (estimated from influence counts) into `parts` parts of about equal cost.
  static std::vector<std::size_t> split(const SkinningLayout& layout, int parts);
};

}  // namespace rigfit::detail
