#pragma once

#include "rigfit/fit.hpp"

namespace rigfit {

/// Position of one bone end: the strategy's point plus its (pre-scaled) offset, or the
/// default_position for a fallback end.
Eigen::Vector3d evaluateEnd(const PreparedRig& p, const PreparedRig::End& e, const float* positions,
                            const Eigen::Vector3d* cube_centres);

/// Arithmetic mean of each used joint cube's vertices (out: one per cube slot).
void cubeCentres(const PreparedRig& p, const float* positions, Eigen::Vector3d* out);

}  // namespace rigfit
