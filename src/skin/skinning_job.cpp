// SkinningJob: validation, then dispatch to the SIMD kernels (over the layout) or the scalar
// paths (over the raw Skin), split into parts over the job's threads.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "rigfit/skinning.hpp"
#include "skin/skinning_kernels.hpp"
#include "skin/skinning_scalar.hpp"

namespace rigfit {

namespace {

bool overlaps(std::span<const float> a, std::span<float> b) {
  if (a.empty() || b.empty()) return false;
  const auto a0 = reinterpret_cast<std::uintptr_t>(a.data()), a1 = a0 + a.size_bytes();
  const auto b0 = reinterpret_cast<std::uintptr_t>(b.data()), b1 = b0 + b.size_bytes();
  return a0 < b1 && b0 < a1;
}

bool badAlias(std::span<const float> in, std::span<float> out) {
  return overlaps(in, out) && !(in.data() == out.data() && in.size() == out.size());
}

bool aligned64(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

// Vertices per part below which splitting costs more than it saves.
constexpr std::size_t kMinVerticesPerPart = 4096;

int partsFor(const SkinningJob& job, std::size_t vertices) {
  int parts = job.threads;
  if (job.executor != nullptr) parts = std::min(parts, job.executor->threads());
  const std::size_t by_size = std::max<std::size_t>(1, vertices / kMinVerticesPerPart);
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(parts, 1)), by_size));
}

// Pieces the layout path splits into: with an executor, a few per thread, taken from a shared
// counter, so that a worker that starts late (its core busy) takes fewer and the job still ends
// when the work does; with threads of its own (or an executor larger than the job's threads, all
// of whose threads would join in), one per thread.
int piecesFor(const SkinningJob& job, std::size_t vertices, int parts) {
  if (job.executor == nullptr || job.executor->threads() > parts) return parts;
  constexpr int kPiecesPerThread = 4;
  constexpr std::size_t kMinVerticesPerPiece = 2048;
  const std::size_t by_size = std::max<std::size_t>(1, vertices / kMinVerticesPerPiece);
  return static_cast<int>(std::clamp<std::size_t>(by_size, static_cast<std::size_t>(parts),
                                                  static_cast<std::size_t>(parts) * kPiecesPerThread));
}

// A 64-byte aligned float buffer on the stack for small sizes, on the heap otherwise.
class Scratch {
 public:
  explicit Scratch(std::size_t floats) {
    if (floats <= kInline) {
      data_ = inline_;
    } else {
      heap_.reset(new (std::align_val_t(64)) float[floats]);
      data_ = heap_.get();
    }
  }
  float* data() { return data_; }

 private:
  struct AlignedDelete {
    void operator()(float* p) const { ::operator delete[](p, std::align_val_t(64)); }
  };
  static constexpr std::size_t kInline = 512 * detail::kSkinningDualQuatFloats;  // 512 bones
  alignas(64) float inline_[kInline];
  std::unique_ptr<float[], AlignedDelete> heap_;
  float* data_ = nullptr;
};

// The scalar paths over the raw Skin: float, or double for the reference.
template <typename Real>
void runScalar(const SkinningJob& job, std::size_t bones, std::size_t n) {
  std::vector<Real> dqs;
  if (job.dual_quaternion) {
    dqs.resize(bones * detail::kSkinningDualQuatFloats);
    detail::fillDualQuatTable(job.rest_matrices.data(), job.matrices.data(), bones, dqs.data());
  }
  const Real* table = job.dual_quaternion ? dqs.data() : nullptr;
  const int parts = partsFor(job, n);
  parallelFor(job.executor, parts, [&](int part) {
    const std::size_t v0 = n * static_cast<std::size_t>(part) / static_cast<std::size_t>(parts);
    const std::size_t v1 = n * static_cast<std::size_t>(part + 1) / static_cast<std::size_t>(parts);
    detail::skinScalarRange(job, table, v0, v1);
  });
}

// The SIMD kernels over the layout, with per-bone tables: padded 3x4 rows (64 bytes), or
// Blender's dual quaternions.
void runKernels(const SkinningJob& job, std::size_t bones, std::size_t n, detail::SkinningTarget target) {
  Scratch table(bones * (job.dual_quaternion ? detail::kSkinningDualQuatFloats : 16));
  float* t = table.data();
  if (job.dual_quaternion) {
    detail::fillDualQuatTable(job.rest_matrices.data(), job.matrices.data(), bones, t);
  } else {
    for (std::size_t b = 0; b < bones; ++b) {
      std::memcpy(t + 16 * b, job.matrices.data() + 12 * b, 12 * sizeof(float));
      std::memset(t + 16 * b + 12, 0, 4 * sizeof(float));
    }
  }
  detail::SkinningKernelArgs args;
  args.layout = detail::SkinningLayoutAccess::view(*job.layout);
  args.matrices = job.dual_quaternion ? nullptr : t;
  args.dual_quats = job.dual_quaternion ? t : nullptr;
  args.in_positions = job.in_positions.data();
  args.out_positions = job.out_positions.data();
  if (!job.in_normals.empty()) {
    args.in_normals = job.in_normals.data();
    args.out_normals = job.out_normals.data();
  }
  args.stream = job.streams();
  const int parts = partsFor(job, n);
  if (parts <= 1) {
    detail::skinChunks(args, 0, args.layout.chunk_count, target);
    return;
  }
  const std::vector<std::size_t> cut = detail::SkinningLayoutAccess::split(*job.layout, piecesFor(job, n, parts));
  parallelFor(job.executor, static_cast<int>(cut.size()) - 1, [&](int part) {
    detail::skinChunks(args, cut[static_cast<std::size_t>(part)], cut[static_cast<std::size_t>(part) + 1], target);
  });
}

}  // namespace

bool SkinningJob::streams() const {
  if (layout == nullptr || reference || stores == Stores::kCache) return false;
  if (!aligned64(out_positions.data()) || (!out_normals.empty() && !aligned64(out_normals.data()))) return false;
  if (stores == Stores::kStream) return true;
  const std::size_t bytes = (in_positions.size() + out_positions.size() + in_normals.size() + out_normals.size()) * sizeof(float);
  return bytes >= kSkinningStreamBytes;
}

bool SkinningJob::validate() const {
  if (layout == nullptr && skin == nullptr) return false;
  if (reference && skin == nullptr) return false;
  if (layout != nullptr && skin != nullptr &&
      (layout->vertexCount() != skin->vertex_count || layout->boneCount() != skin->bone_count)) {
    return false;
  }
  if (skin != nullptr && skin->offsets.size() != skin->vertex_count + 1) return false;
  const std::size_t n = layout != nullptr ? layout->vertexCount() : skin->vertex_count;
  const std::size_t bones = layout != nullptr ? layout->boneCount() : skin->bone_count;
  if (matrices.size() < 12 * bones) return false;
  if (dual_quaternion && rest_matrices.size() < 12 * bones) return false;
  if (in_positions.size() != 3 * n || out_positions.size() != 3 * n) return false;
  if (in_normals.empty() != out_normals.empty()) return false;
  if (!in_normals.empty() && (in_normals.size() != 3 * n || out_normals.size() != 3 * n)) return false;
  if (threads < 1 || threads > 1024) return false;
  if (badAlias(in_positions, out_positions) || badAlias(in_normals, out_normals)) return false;
  if (overlaps(in_positions, out_normals) || overlaps(in_normals, out_positions) ||
      overlaps(std::span<const float>(out_positions), out_normals)) {
    return false;
  }
  if (overlaps(matrices, out_positions) || overlaps(matrices, out_normals)) return false;
  return true;
}

namespace {

// The job, with the kernels of `target` (supported by this CPU) on the layout path.
bool runJob(const SkinningJob& job, detail::SkinningTarget target) {
  if (!job.validate()) return false;
  const bool use_layout = job.layout != nullptr && !job.reference;
  const std::size_t bones = use_layout ? job.layout->boneCount() : job.skin->bone_count;
  const std::size_t n = use_layout ? job.layout->vertexCount() : job.skin->vertex_count;
  if (n == 0) return true;
  if (use_layout) {
    runKernels(job, bones, n, target);
  } else if (job.reference) {
    runScalar<double>(job, bones, n);
  } else {
    runScalar<float>(job, bones, n);
  }
  return true;
}

}  // namespace

bool SkinningJob::run() const { return runJob(*this, detail::skinningBestTarget()); }

namespace detail {

bool runSkinningJob(const SkinningJob& job, SkinningTarget target) {
  return skinningTargetSupported(target) && runJob(job, target);
}

}  // namespace detail

void packSkinningMatrices(std::span<const Eigen::Matrix4d> matrices, std::span<float> out) {
  const std::size_t n = std::min(matrices.size(), out.size() / 12);
  for (std::size_t b = 0; b < n; ++b) {
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 4; ++c) out[12 * b + 4 * r + c] = static_cast<float>(matrices[b](r, c));
    }
  }
}

}  // namespace rigfit
