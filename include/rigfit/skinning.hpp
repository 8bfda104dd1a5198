// Skinning: deform a mesh with a posed skeleton exactly as Blender's armature modifier does
// (vertex groups, "preserve volume" off or on), fast.
//
// Two halves, as in ozz-animation:
//  - SkinningLayout (offline -> runtime): built once per Skin. Normalised float weights, zero
//    weights dropped, vertex order kept, in chunks of 16 consecutive vertices stored per bone
//    (the chunk's few bones, each with a vector of the 16 weights) or per vertex (influence
//    slots, influence-major), whichever the kernels do faster.
//  - SkinningJob: spans in, spans out, no state, no allocation for skeletons up to 512 bones.
//    SIMD over vertices (Highway, runtime dispatch: AVX-512, AVX2, SSE4, ...), optional threads
//    (started within the call, or the caller's Executor).
//
//   SkinningLayout layout = *SkinningLayout::build(skin);     // once
//   SkinningJob job;                                          // every frame
//   job.layout = &layout;
//   job.matrices = packed;             // packSkinningMatrices(skinningMatrices(...))
//   job.in_positions = rest_xyz;  job.out_positions = posed_xyz;
//   job.in_normals = rest_n;      job.out_normals = posed_n;    // optional
//   job.run();
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "rigfit/error.hpp"
#include "rigfit/executor.hpp"
#include "rigfit/weights.hpp"

namespace rigfit {

/// Blender leaves a vertex at rest unless the sum of its deform weights is > 1e-4 (float).
inline constexpr float kSkinningRestWeight = 1e-4f;

/// Whether Blender deforms a vertex with these raw weights: the float sum, in the given order,
/// is > kSkinningRestWeight. Used by every skinning path so they agree on which vertices move.
bool skinningDeforms(std::span<const float> weights);

/// std::allocator with 64-byte alignment, for vertex arrays (see SkinningJob) and the layout.
template <typename T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U>&) {}  // NOLINT
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <typename U>
  bool operator==(const AlignedAllocator<U>&) const { return true; }
};
/// A 64-byte aligned float array.
using AlignedFloats = std::vector<float, AlignedAllocator<float>>;

namespace detail {
struct SkinningLayoutAccess;  // the kernels' view of the layout (src/skin/skinning_layout.hpp)
}  // namespace detail

/// The runtime form of a Skin for SkinningJob (immutable; movable and copyable).
///
/// Per vertex: influences with weight 0 are dropped; a vertex whose float weight sum is
/// <= kSkinningRestWeight (or that has no influence) is marked "at rest" (its position and normal
/// are copied unchanged); the others keep their influences in Skin order (descending weight) with
/// weights divided by their sum, stored as floats. Vertices stay in their order, in chunks of 16,
/// each stored the cheaper of two ways: per bone (the chunk's few distinct bones, each with the
/// 16 vertices' weights as one vector: the kernels blend straight into SoA matrices with
/// broadcast FMAs) or per vertex (16 influence slots per influence count: the kernels blend each
/// vertex's matrix in a register, then transpose). Output keeps the vertex order, written with
/// contiguous stores.
class SkinningLayout {
 public:
  SkinningLayout() = default;

  /// Rejects (kSchema / kRange): offsets not of size vertex_count + 1, not starting at 0, not
  /// non-decreasing or not ending at bones.size() == weights.size(); a bone >= bone_count; a
  /// negative or non-finite weight; a vertex with more than 255 non-zero influences in a chunk
  /// that touches many bones; more than 2^32 - 1 influence slots.
  [[nodiscard]] static Expected<SkinningLayout> build(const Skin& skin);

  std::size_t vertexCount() const { return vertex_count_; }
  std::size_t boneCount() const { return bone_count_; }
  /// Largest influence count after dropping zero weights.
  int maxInfluences() const { return max_influences_; }
  /// Vertices copied unchanged (no influence, or total weight <= kSkinningRestWeight).
  std::size_t restVertexCount() const { return rest_count_; }
  /// Vertices per influence count (index k; index 0 = at rest).
  const std::vector<std::size_t>& influenceHistogram() const { return histogram_; }
  /// Heap bytes held.
  std::size_t memoryBytes() const;

 private:
  friend struct detail::SkinningLayoutAccess;
  std::size_t vertex_count_ = 0;
  std::size_t bone_count_ = 0;
  int max_influences_ = 0;
  std::size_t rest_count_ = 0;
  std::vector<std::size_t> histogram_;
  std::vector<std::uint8_t> chunk_k_;
  std::vector<std::uint8_t> chunk_u_;
  std::vector<std::uint32_t> chunk_bone_;
  std::vector<std::uint32_t> chunk_weight_;
  std::vector<std::uint16_t> bones_;
  AlignedFloats weights_;
  std::vector<std::uint8_t> rest_bits_;
  std::vector<double> chunk_cost_;  ///< cumulative estimated work up to the end of each chunk
};

/// A skinning job (ozz style: spans in, spans out, no state kept, validate() + run()).
///
/// Linear blend (dual_quaternion = false), Blender's armature modifier with vertex groups:
///   v' = v + sum_i w_i (S_i v - v) / W,   W = sum_i w_i,   applied only when W > 1e-4
/// (otherwise v' = v), S_i = pose_i * rest_i^-1 of the vertex's bone i. Normals: the same
/// normalised blend of the 3x3 parts, M = sum_i (w_i / W) A_i, transforms the normal by its
/// cofactor matrix cof(M) = det(M) M^-T and renormalises: the inverse transpose, so non-uniform
/// scale is right, oriented as the normal of the deformed faces even when det(M) < 0 (Blender
/// recomputes normals from the deformed faces; this is that normal for a locally affine
/// deformation). A vertex at rest keeps its position and normal bit for bit; a normal that the
/// matrix maps to zero is kept as given.
///
/// Dual quaternion (dual_quaternion = true), Blender's "preserve volume" (Blender 3.4:
/// mat4_to_dquat, add_weighted_dq_dq, normalize_dq, mul_v3m3_dq): each bone's S_i is split into a
/// rotation + translation dual quaternion and, when S_i is not a pure rotation (scale beyond 1e-4,
/// a reflection or shear), a scale matrix taken in the bone's rest frame (hence rest_matrices);
/// quaternions are summed with the sign flipped when opposite to the running sum, scale matrices
/// summed with positive weights, the sum normalised, and the vertex moved by the scale matrix,
/// then the rotation and translation. Normals use the cofactor of the resulting 3x3 as above.
/// The kernels visit a vertex's bones in its chunk's order (heaviest in the chunk first), not
/// the vertex's own order; the sign flips, hence the result, can differ from Blender's only
/// when two of the vertex's bones turn more than 180 degrees apart.
///
/// Paths: with `layout`, the SIMD kernels (float; threads); with only `skin`, a direct float
/// loop over the CSR Skin (slower, no preparation); `reference` forces a scalar double-precision
/// evaluation over `skin` (the tests' reference).
struct SkinningJob {
  const SkinningLayout* layout = nullptr;  ///< prepared form (fast path)
  const Skin* skin = nullptr;              ///< raw form (used when layout is null, or reference)
  /// One per bone: S = pose * rest^-1 as a row-major 3x4 (rows of the 3x3 with the
  /// translation as 4th element), 12 floats per bone; at least 12 * bone_count floats.
  std::span<const float> matrices;
  /// Dual quaternion only: each bone's rest matrix (Blender's Bone.matrix_local) in the same
  /// 12-float layout; Blender takes the scale part of S in this frame.
  std::span<const float> rest_matrices;
  // The vertex arrays are read and written 16 vertices (3 x 64 bytes) at a time: 64-byte
  // aligned arrays (e.g. AlignedFloats) save the cache-line splits of every load and store
  // (about 4% on hm08 with AVX-512). Any alignment works.
  std::span<const float> in_positions;   ///< 3 floats per vertex (x, y, z)
  std::span<const float> in_normals;     ///< optional (empty), 3 floats per vertex
  std::span<float> out_positions;        ///< 3 floats per vertex; may be the same array as in_positions
  std::span<float> out_normals;          ///< required when in_normals is given; may alias in_normals
  bool dual_quaternion = false;
  /// How the SIMD kernels write the outputs. kStream: non-temporal stores, which send each line
  /// to memory without first reading it into the cache: for meshes far bigger than the caches,
  /// where the outputs would only evict data and cost a read each. kCache: ordinary stores.
  /// kAuto: kStream when the vertex arrays (in and out) take at least kSkinningStreamBytes and
  /// the outputs are 64-byte aligned. Streaming needs 64-byte aligned outputs (else kCache).
  enum class Stores { kAuto, kCache, kStream } stores = Stores::kAuto;
  bool reference = false;                ///< scalar double-precision path (needs skin)
  int threads = 1;                       ///< parts run in parallel (1: the calling thread only)
  /// Threads for threads > 1 (at most executor->threads() are used); none: the job starts
  /// threads - 1 threads and joins them before run() returns.
  Executor* executor = nullptr;

  /// Rejects: neither layout nor skin (or reference without skin); layout and skin both given
  /// with different vertex or bone counts; matrices fewer than 12 * bone_count; dual_quaternion
  /// with rest_matrices fewer than 12 * bone_count; in/out positions not 3 * vertex_count
  /// floats; normals given for one side only or not 3 * vertex_count floats; an output that
  /// overlaps an input without being the very same array; threads < 1 or > 1024.
  bool validate() const;
  /// validate(), then deforms. Returns false (writing nothing) when invalid.
  bool run() const;
  /// Whether run() writes the outputs with non-temporal stores (see `stores`).
  bool streams() const;
};

/// SkinningJob::Stores::kAuto streams the outputs from this many bytes of vertex arrays on.
inline constexpr std::size_t kSkinningStreamBytes = std::size_t{32} << 20;

/// Packs 4x4 double matrices into the 3x4 float rows SkinningJob takes (12 floats each).
void packSkinningMatrices(std::span<const Eigen::Matrix4d> matrices, std::span<float> out);

}  // namespace rigfit
