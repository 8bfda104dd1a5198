// Evaluating one prepared bone end on vertex positions (docs/mpfb-behaviour.md §3.2).
#include "fit/strategy.hpp"

namespace rigfit {

Eigen::Vector3d evaluateEnd(const PreparedRig& p, const PreparedRig::End& e, const float* pos,
                            const Eigen::Vector3d* cube_centres) {
  auto vertex = [pos](std::uint32_t v) {
    const float* q = pos + 3 * static_cast<std::size_t>(v);
    return Eigen::Vector3d(q[0], q[1], q[2]);
  };
  switch (e.kind) {
    case Strategy::kCube:
      return cube_centres[e.first] + e.offset;
    case Strategy::kVertex:
      return vertex(p.indices[e.first]) + e.offset;
    case Strategy::kMean: {
      Eigen::Vector3d sum = Eigen::Vector3d::Zero();
      for (std::uint32_t k = 0; k < e.count; ++k) sum += vertex(p.indices[e.first + k]);
      return sum / static_cast<double>(e.count) + e.offset;
    }
    case Strategy::kXyz: {
      const float* x = pos + 3 * static_cast<std::size_t>(p.indices[e.first]);
      const float* y = pos + 3 * static_cast<std::size_t>(p.indices[e.first + 1]);
      const float* z = pos + 3 * static_cast<std::size_t>(p.indices[e.first + 2]);
      return Eigen::Vector3d(x[0], y[1], z[2]) + e.offset;
    }
    case Strategy::kDefault:
      break;
  }
  return e.fallback;
}

void cubeCentres(const PreparedRig& p, const float* pos, Eigen::Vector3d* out) {
  const std::size_t n = p.cube_names.size();
  for (std::size_t c = 0; c < n; ++c) {
    // Joint cubes are contiguous vertex ranges in hm08: sum them as flat streams.
    double sx = 0.0, sy = 0.0, sz = 0.0;
    for (std::uint32_t k = p.cube_offsets[c]; k < p.cube_offsets[c + 1]; ++k) {
      const VertexGroups::Range r = p.cube_ranges[k];
      for (const float* q = pos + 3 * static_cast<std::size_t>(r.first); q <= pos + 3 * static_cast<std::size_t>(r.last); q += 3) {
        sx += q[0];
        sy += q[1];
        sz += q[2];
      }
    }
    out[c] = Eigen::Vector3d(sx, sy, sz) / static_cast<double>(p.cube_sizes[c]);
  }
}

}  // namespace rigfit
