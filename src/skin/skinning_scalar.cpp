// The scalar skinning paths: each vertex's influences straight from the CSR Skin (raw weights,
// divided by their sum), in float or double.
#include "skin/skinning_scalar.hpp"

#include <cstdint>

#include "skin/skinning_math.hpp"

namespace rigfit::detail {

namespace {

template <typename Real>
void skinRange(const SkinningJob& job, const Real* dqs, std::size_t v_begin, std::size_t v_end) {
  const Skin& skin = *job.skin;
  const bool normals = !job.in_normals.empty();
  const float* mats = job.matrices.data();
  for (std::size_t v = v_begin; v < v_end; ++v) {
    const std::uint32_t o0 = skin.offsets[v], o1 = skin.offsets[v + 1];
    const std::span<const float> w(skin.weights.data() + o0, o1 - o0);
    const float* ip = job.in_positions.data() + 3 * v;
    const float* in = normals ? job.in_normals.data() + 3 * v : nullptr;
    float* op = job.out_positions.data() + 3 * v;
    float* on = normals ? job.out_normals.data() + 3 * v : nullptr;
    if (!skinningDeforms(w)) {
      for (int c = 0; c < 3; ++c) {
        op[c] = ip[c];
        if (normals) on[c] = in[c];
      }
      continue;
    }
    Real total = 0;
    for (float x : w) total += x;
    Real m[12] = {};
    if (dqs != nullptr) {
      DualQuatBlend<Real> blend;
      for (std::size_t i = 0; i < w.size(); ++i) blend.add(dqs + kSkinningDualQuatFloats * skin.bones[o0 + i], Real(w[i]));
      blend.toMatrix(total, m);
    } else {
      for (std::size_t i = 0; i < w.size(); ++i) {
        const Real f = Real(w[i]) / total;
        const float* s = mats + 12 * std::size_t(skin.bones[o0 + i]);
        for (int e = 0; e < 12; ++e) m[e] += f * Real(s[e]);
      }
    }
    transformVertex<Real>(m, ip, in, op, on);
  }
}

}  // namespace

void skinScalarRange(const SkinningJob& job, const float* dual_quats, std::size_t v_begin, std::size_t v_end) {
  skinRange<float>(job, dual_quats, v_begin, v_end);
}

void skinScalarRange(const SkinningJob& job, const double* dual_quats, std::size_t v_begin, std::size_t v_end) {
  skinRange<double>(job, dual_quats, v_begin, v_end);
}

}  // namespace rigfit::detail
