// Skinning: deform a mesh with a posed skeleton exactly as Blender's armature modifier does
// (vertex groups, "preserve volume" off or on), fast.
//
// Two halves, as in ozz-animation:
//  - SkinningLayout (offline -> runtime): built once per Skin. Normalised float weights, zero
//    weights dropped, vertex order kept, in chunks of 16 consecutive vertices stored per bone
//    (the chunk's few bones, each with a vector of the 16 weights) or per vertex (influence
//    slots, influence-major), whichever the kernels do faster.
//  - SkinningJob: spans in, spans out, no state, no allocation for skeletons up to 512 bones.
//    SIMD over vertices (Highway, runtime dispatch: AVX-512, AVX2, SSE4, ...), optional threads.
//
//   SkinningLayout layout = *SkinningLayout::build(skin);     // once
//   SkinningJob job;                                          // every frame
//   job.layout = &layout;
//   job.matrices = packed;             // packSkinningMatrices(skinningMatrices(...))
//   job.in_positions = rest_xyz;  job.out_positions = posed_xyz;
//   job.in_normals = rest_n;      job.out_normals = posed_n;    // optional
//   job.run();
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <Eigen/Core>

#include "rigfit/error.hpp"
#include "rigfit/weights.hpp"

namespace rigfit {

/// Blender leaves a vertex at rest unless the sum of its deform weights is > 1e-4 (float).
inline constexpr float kSkinningRestWeight = 1e-4f;

/// Whether Blender deforms a vertex with these raw weights: the float sum, in the given order,
/// is > kSkinningRestWeight. Used by every skinning path so they agree on which vertices move.
bool skinningDeforms(std::span<const float> weights);

namespace detail {
// The layout's streams as raw pointers, for the kernels (internal). Vertices are in chunks of
// kSkinningChunk consecutive vertices, each chunk in one of two forms:
//  - per vertex (chunk_k[c] = k > 0): every vertex has k influence slots (the chunk's largest
//    count; missing ones have weight 0 on bone 0); slot i of vertex v is at
//    chunk_bone[c] + i * kSkinningChunk + v in bones and chunk_weight[c] + i * kSkinningChunk + v
//    in weights;
//  - per bone (chunk_u[c] = u > 0): the chunk's u distinct bones at bones[chunk_bone[c] + j] and,
//    when u > 1, for each of them the 16 vertices' weights (0 if the vertex does not use it) at
//    weights[chunk_weight[c] + j * kSkinningChunk + v] (64-byte aligned);
//  - both 0: every vertex of the chunk stays at rest.
// Weights are normalised.
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
/// std::allocator with 64-byte alignment.
template <typename T>
struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <typename U>
  Aligned64(const Aligned64<U>&) {}  // NOLINT
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <typename U>
  bool operator==(const Aligned64<U>&) const { return true; }
};
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

  /// Internal streams, for the kernels.
  detail::SkinningView view() const;
  /// Chunk boundaries 0 = c_0 <= c_1 <= ... <= c_parts = chunk count that split the work
  /// (estimated from influence counts) into `parts` parts of about equal cost.
  std::vector<std::size_t> split(int parts) const;

 private:
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
  std::vector<float, detail::Aligned64<float>> weights_;
  std::vector<std::uint8_t> rest_bits_;
  std::vector<double> chunk_cost_;  ///< cumulative estimated work up to the end of each chunk
};

/// A small set of worker threads SkinningJob can reuse (threads > 1). Workers spin briefly after
/// each job (so back-to-back jobs start within a microsecond), then sleep. One job at a time:
/// concurrent run() calls on one pool are serialised.
class SkinningPool {
 public:
  /// `threads`: total parallelism including the calling thread (threads - 1 workers are started).
  explicit SkinningPool(int threads = static_cast<int>(std::thread::hardware_concurrency()));
  ~SkinningPool();
  SkinningPool(const SkinningPool&) = delete;
  SkinningPool& operator=(const SkinningPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  /// Calls fn(i) for every i in [0, count), on the calling thread and the workers; returns when
  /// all calls have returned.
  void parallelFor(int count, const std::function<void(int)>& fn);

 private:
  void workerLoop();
  std::vector<std::thread> workers_;
  std::mutex run_mutex_;
  const std::function<void(int)>* fn_ = nullptr;
  int count_ = 0;
  std::atomic<int> next_{0};
  std::atomic<int> done_{0};
  std::atomic<std::uint32_t> generation_{0};
  std::atomic<bool> stop_{false};
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
  // aligned arrays (e.g. std::vector<float, detail::Aligned64<float>>) save the cache-line
  // splits of every load and store (about 4% on hm08 with AVX-512). Any alignment works.
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
  SkinningPool* pool = nullptr;          ///< threads for threads > 1 (none: std::thread per run)

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

/// Blender's dual quaternion of one bone (mat4_to_dquat(rest, S)), for tools and tests:
/// quaternion (w, x, y, z), dual part (w, x, y, z), scale matrix (4x4) and whether it is used.
struct SkinningDualQuat {
  Eigen::Vector4d quat = Eigen::Vector4d(1, 0, 0, 0);
  Eigen::Vector4d trans = Eigen::Vector4d::Zero();
  Eigen::Matrix4d scale = Eigen::Matrix4d::Identity();
  bool has_scale = false;
};
SkinningDualQuat skinningDualQuat(const Eigen::Matrix4d& rest, const Eigen::Matrix4d& skinning);

/// Diagnostics: the SIMD targets compiled into the kernels (best first) and the one in use.
std::vector<std::string> skinningCompiledTargets();
std::string skinningActiveTarget();
/// Tests and benchmarks: restricts the kernels (process-wide, all Highway code) to the named
/// compiled target ("AVX3", "AVX2", "SSE4", ...); "" restores the best one. False if unknown or
/// not supported by this CPU.
bool setSkinningTargetForTesting(std::string_view name);

namespace detail {
struct SkinningKernelArgs {
  SkinningView layout;
  const float* matrices = nullptr;  ///< LBS: 16 floats per bone (3x4 + 4 zeros), 64-byte aligned
  const float* dual_quats = nullptr;  ///< DQS: 24 floats per bone (see skinning.cpp)
  const float* in_positions = nullptr;
  const float* in_normals = nullptr;  ///< null: positions only
  float* out_positions = nullptr;
  float* out_normals = nullptr;
  bool stream = false;  ///< non-temporal stores; the outputs are 64-byte aligned
};
/// Runs chunks [chunk_begin, chunk_end) with the best SIMD target.
void skinChunks(const SkinningKernelArgs& args, std::size_t chunk_begin, std::size_t chunk_end);
inline constexpr std::size_t kSkinningDualQuatFloats = 24;
}  // namespace detail

}  // namespace rigfit
