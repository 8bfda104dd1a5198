// The SIMD skinning kernels (skinning_kernels.cpp): their arguments, the entry the job calls,
// and the choice of SIMD target for diagnostics, tests and benchmarks (internal).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "skin/skinning_layout.hpp"
#include "skin/skinning_math.hpp"

namespace rigfit::detail {

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

/// Runs chunks [chunk_begin, chunk_end) with the best SIMD target Highway allows.
void skinChunks(const SkinningKernelArgs& args, std::size_t chunk_begin, std::size_t chunk_end);

/// The SIMD targets compiled into the kernels (best first) and the one in use.
std::vector<std::string> skinningCompiledTargets();
std::string skinningActiveTarget();
/// Tests and benchmarks: restricts the kernels (process-wide, all Highway code, through
/// Highway's SetSupportedTargetsForTest) to the named compiled target ("AVX3", "AVX2", "SSE4",
/// ...); "" restores the best one. False if unknown or not supported by this CPU.
bool setSkinningTargetForTesting(std::string_view name);

}  // namespace rigfit::detail
