// The SIMD skinning kernels (skinning_kernels.cpp): their arguments, the SIMD targets they are
// compiled for, and the entries the job calls (internal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "skin/skinning_layout.hpp"
#include "skin/skinning_math.hpp"

namespace rigfit {

struct SkinningJob;

namespace detail {

struct SkinningKernelArgs {
  SkinningView layout;
  const float* matrices = nullptr;    ///< LBS: 16 floats per bone (3x4 + 4 zeros), 64-byte aligned
  const float* dual_quats = nullptr;  ///< DQS: kSkinningDualQuatFloats per bone (packDualQuat)
  const float* in_positions = nullptr;
  const float* in_normals = nullptr;  ///< null: positions only
  float* out_positions = nullptr;
  float* out_normals = nullptr;
  bool stream = false;  ///< non-temporal stores; the outputs are 64-byte aligned
};

/// The SIMD targets the kernels can be compiled for: Highway's x86 targets, best first, and on
/// other architectures the one target the compiler's flags allow (kBaseline).
enum class SkinningTarget : std::uint8_t { kAvx3Dl, kAvx3, kAvx2, kSse4, kSsse3, kEmu128, kScalar, kBaseline };

/// Highway's name of the target: "AVX3", "AVX2", "SSE4", ...
const char* skinningTargetName(SkinningTarget target);

/// The targets compiled into the kernels, best first; the last one runs wherever the program does.
std::vector<SkinningTarget> skinningCompiledTargets();

/// Whether the target is compiled in and this CPU and its OS run it: the CPU features Highway
/// 1.0.3 requires for it, read at each call.
bool skinningTargetSupported(SkinningTarget target);

/// The best compiled target this CPU runs: the one SkinningJob::run uses.
SkinningTarget skinningBestTarget();

/// Highway's name of the target the kernels run for `target` are compiled for (the dispatch
/// test), or null if `target` is not compiled in.
const char* skinningKernelTargetName(SkinningTarget target);

/// Runs chunks [chunk_begin, chunk_end) with the kernels of `target` (supported: see above).
void skinChunks(const SkinningKernelArgs& args, std::size_t chunk_begin, std::size_t chunk_end,
                SkinningTarget target);

/// SkinningJob::run with the SIMD kernels of `target` (tests and benchmarks). False if the job is
/// invalid or the target is not compiled in or not supported by this CPU.
bool runSkinningJob(const SkinningJob& job, SkinningTarget target);

}  // namespace detail
}  // namespace rigfit
