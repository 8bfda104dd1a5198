// The scalar skinning paths over the raw Skin (internal): float (no layout to prepare) and double
// (the tests' reference).
#pragma once

#include <cstddef>

#include "rigfit/skinning.hpp"

namespace rigfit::detail {

/// Skins vertices [v_begin, v_end) of a valid job (job.skin set) in float or double.
/// `dual_quats`: the bones' records (fillDualQuatTable) for dual quaternion blending; null for
/// the linear blend.
void skinScalarRange(const SkinningJob& job, const float* dual_quats, std::size_t v_begin, std::size_t v_end);
void skinScalarRange(const SkinningJob& job, const double* dual_quats, std::size_t v_begin, std::size_t v_end);

}  // namespace rigfit::detail
