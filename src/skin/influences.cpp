// Fixed-size influences (glTF JOINTS_n / WEIGHTS_n) from the sparse skin: top K, renormalised,
// and the quantised form whose sums are exact.
#include <algorithm>
#include <cmath>

#include "rigfit/weights.hpp"

namespace rigfit {
namespace {

// Blender leaves a vertex at rest when its total deform weight is at most this.
constexpr double kRestTotal = 1e-4;

// Float sum in slot order (what a consumer adding the weights in float computes).
float floatSum(const float* w, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += w[i];
  return s;
}

// Makes the float sum in slot order exactly 1 while keeping the slots sorted and positive: the
// heaviest weight moves by at most 8 ulps (closest first), and where that alone cannot reach 1
// (round-half-even can make the partial sums skip it) the lightest slot takes the exact
// residual 1 - S of the others' float sum S (exact since S >= 0.5).
void makeSumExact(float* w, int n) {
  if (n == 0 || floatSum(w, n) == 1.0f) return;
  const float original = w[0];
  for (int d = 0; d <= 8; ++d) {
    for (const float toward : {2.0f, 0.0f}) {
      if (d == 0 && toward == 0.0f) continue;
      float c = original;
      for (int i = 0; i < d; ++i) c = std::nextafter(c, toward);
      if (n > 1 && c < w[1]) continue;
      w[0] = c;
      if (floatSum(w, n) == 1.0f) return;
      if (n >= 2) {
        const float s = floatSum(w, n - 1);
        const float r = 1.0f - s;
        if (r > 0.0f && r <= w[n - 2] && s + r == 1.0f) {
          w[n - 1] = r;
          return;
        }
      }
    }
  }
  w[0] = original;
}

}  // namespace

namespace {

// limitInfluences for a fixed K: the per-vertex clears and copies become fixed-size stores.
template <std::size_t K>
std::size_t limitFixed(const Skin& skin, std::uint16_t* bones, float* weights, double& dropped) {
  std::size_t lost = 0;
  const std::uint32_t* offsets = skin.offsets.data();
  const std::uint16_t* sb = skin.bones.data();
  const float* sw = skin.weights.data();
  for (std::size_t v = 0; v < skin.vertex_count; ++v) {
    std::uint16_t* ob = bones + v * K;
    float* ow = weights + v * K;
    for (std::size_t i = 0; i < K; ++i) {
      ob[i] = 0;
      ow[i] = 0.0f;
    }
    const std::size_t begin = offsets[v];
    const std::size_t n = offsets[v + 1] - begin;
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i) total += sw[begin + i];
    if (n == 0 || !(total > kRestTotal)) continue;
    const std::size_t m = std::min(n, K);
    if (n > K) {
      ++lost;
      // The skin is sorted heaviest first: slot K is the largest weight dropped.
      dropped = std::max(dropped, static_cast<double>(sw[begin + K]) / total);
    }
    double kept = total;
    if (n > K) {
      kept = 0.0;
      for (std::size_t i = 0; i < m; ++i) kept += sw[begin + i];
    }
    for (std::size_t i = 0; i < m; ++i) {
      ob[i] = sb[begin + i];
      ow[i] = static_cast<float>(sw[begin + i] / kept);
    }
    makeSumExact(ow, static_cast<int>(m));
  }
  return lost;
}

}  // namespace

std::size_t limitInfluences(const Skin& skin, int k, std::span<std::uint16_t> bones, std::span<float> weights, double* dropped_weight) {
  if (dropped_weight) *dropped_weight = 0.0;
  const std::size_t vc = skin.vertex_count;
  const auto kk = static_cast<std::size_t>(k);
  if ((k != 4 && k != 8) || skin.offsets.size() != vc + 1 || bones.size() < vc * kk || weights.size() < vc * kk) return 0;
  double dropped = 0.0;
  const std::size_t lost = k == 4 ? limitFixed<4>(skin, bones.data(), weights.data(), dropped)
                                  : limitFixed<8>(skin, bones.data(), weights.data(), dropped);
  if (dropped_weight) *dropped_weight = dropped;
  return lost;
}

void quantizeInfluences(std::span<const float> weights, int k, int bits, std::span<std::uint16_t> out) {
  if ((k != 4 && k != 8) || (bits != 8 && bits != 16) || weights.size() % static_cast<std::size_t>(k) != 0 || out.size() < weights.size()) return;
  const auto kk = static_cast<std::size_t>(k);
  const std::int64_t full = (std::int64_t{1} << bits) - 1;
  for (std::size_t v = 0; v < weights.size() / kk; ++v) {
    const float* w = weights.data() + v * kk;
    std::uint16_t* q = out.data() + v * kk;
    double sum = 0.0;
    std::size_t heaviest = 0;
    for (std::size_t i = 0; i < kk; ++i) {
      if (w[i] > 0.0f) sum += w[i];
      if (w[i] > w[heaviest]) heaviest = i;
    }
    if (!(sum > 0.0)) {
      std::fill(q, q + kk, std::uint16_t{0});
      continue;
    }
    // Largest remainders: round every weight down, then give the units still missing to the
    // largest fractional parts (the earlier slot on a tie). The sum is exact, and weights given
    // heaviest first stay in that order (a larger weight never gets the smaller value), which
    // putting the whole rounding error on the heaviest would not guarantee.
    std::int64_t total = 0;
    std::int64_t values[8];
    double fraction[8];
    for (std::size_t i = 0; i < kk; ++i) {
      values[i] = 0;
      fraction[i] = -1.0;
      if (w[i] > 0.0f) {
        const double x = static_cast<double>(w[i]) / sum * static_cast<double>(full);
        values[i] = static_cast<std::int64_t>(std::floor(x));
        fraction[i] = x - static_cast<double>(values[i]);
      }
      total += values[i];
    }
    for (std::int64_t left = full - total; left > 0; --left) {
      std::size_t best = kk;
      for (std::size_t i = 0; i < kk; ++i)
        if (fraction[i] >= 0.0 && (best == kk || fraction[i] > fraction[best])) best = i;
      if (best == kk) best = heaviest;  // (cannot happen: each weight lost less than one unit)
      ++values[best];
      fraction[best] = -1.0;
    }
    for (std::size_t i = 0; i < kk; ++i) q[i] = static_cast<std::uint16_t>(values[i]);
  }
}

}  // namespace rigfit
