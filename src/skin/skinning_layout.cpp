// SkinningLayout: a Skin prepared for the kernels (normalised float weights in chunks of 16
// vertices, per bone or per vertex, whichever the kernels do faster), and the view they read.
#include "skin/skinning_layout.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace rigfit {

namespace {

constexpr std::size_t kChunk = detail::kSkinningChunk;

// The Skin's structure: CSR offsets, bone indices, finite non-negative weights.
Status checkSkin(const Skin& skin) {
  const std::size_t n = skin.vertex_count;
  if (skin.offsets.size() != n + 1) {
    return makeError(ErrorCode::kSchema, "skin: offsets has " + std::to_string(skin.offsets.size()) +
                                             " entries, expected vertex_count + 1 = " + std::to_string(n + 1));
  }
  if (skin.offsets[0] != 0) return makeError(ErrorCode::kSchema, "skin: offsets[0] is not 0");
  for (std::size_t v = 0; v < n; ++v) {
    if (skin.offsets[v + 1] < skin.offsets[v]) {
      return makeError(ErrorCode::kSchema, "skin: offsets[" + std::to_string(v + 1) + "] decreases");
    }
  }
  if (skin.bones.size() != skin.offsets[n] || skin.weights.size() != skin.offsets[n]) {
    return makeError(ErrorCode::kSchema, "skin: bones/weights sizes (" + std::to_string(skin.bones.size()) + ", " +
                                             std::to_string(skin.weights.size()) + ") differ from offsets[" +
                                             std::to_string(n) + "] = " + std::to_string(skin.offsets[n]));
  }
  if (skin.bone_count > 65536) return makeError(ErrorCode::kRange, "skin: more than 65536 bones");
  for (std::size_t i = 0; i < skin.bones.size(); ++i) {
    if (skin.bones[i] >= skin.bone_count) {
      return makeError(ErrorCode::kRange, "skin: influence " + std::to_string(i) + " names bone " +
                                              std::to_string(skin.bones[i]) + " of " +
                                              std::to_string(skin.bone_count));
    }
    if (!(skin.weights[i] >= 0.0f) || !std::isfinite(skin.weights[i])) {
      return makeError(ErrorCode::kRange,
                       "skin: influence " + std::to_string(i) + " has weight " + std::to_string(skin.weights[i]));
    }
  }
  return {};
}

}  // namespace

bool skinningDeforms(std::span<const float> weights) {
  float total = 0.0f;
  for (float w : weights) total += w;
  return total > kSkinningRestWeight;
}

Expected<SkinningLayout> SkinningLayout::build(const Skin& skin) {
  RIGFIT_TRY(checkSkin(skin));
  const std::size_t n = skin.vertex_count;
  SkinningLayout L;
  L.vertex_count_ = n;
  L.bone_count_ = skin.bone_count;
  L.rest_bits_.assign((n + 7) / 8 + 8, 0);
  L.histogram_.assign(1, 0);
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  L.chunk_k_.reserve(chunks);
  L.chunk_u_.reserve(chunks);
  L.chunk_bone_.reserve(chunks);
  L.chunk_weight_.reserve(chunks);
  L.chunk_cost_.reserve(chunks);
  std::vector<std::uint32_t> count(kChunk), begin(kChunk + 1);
  std::vector<std::uint16_t> kb;  // this chunk's kept influences, vertex by vertex
  std::vector<float> kw;
  std::vector<std::uint16_t> distinct;
  std::vector<double> distinct_weight;
  double cost = 0.0;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t first = c * kChunk;
    const std::size_t m = std::min(kChunk, n - first);
    std::uint32_t k_chunk = 0;
    kb.clear();
    kw.clear();
    distinct.clear();
    distinct_weight.clear();
    for (std::size_t v = 0; v < kChunk; ++v) {
      begin[v] = static_cast<std::uint32_t>(kb.size());
      std::uint32_t k = 0;
      if (v < m) {
        const std::size_t vi = first + v;
        const std::uint32_t o0 = skin.offsets[vi], o1 = skin.offsets[vi + 1];
        const std::span<const float> w(skin.weights.data() + o0, o1 - o0);
        if (skinningDeforms(w)) {
          float total = 0.0f;
          for (float x : w) total += x;
          for (std::uint32_t i = o0; i < o1; ++i) {
            if (skin.weights[i] == 0.0f) continue;
            const float nw = static_cast<float>(double(skin.weights[i]) / double(total));
            kb.push_back(skin.bones[i]);
            kw.push_back(nw);
            ++k;
            const auto it = std::find(distinct.begin(), distinct.end(), skin.bones[i]);
            if (it == distinct.end()) {
              distinct.push_back(skin.bones[i]);
              distinct_weight.push_back(nw);
            } else {
              distinct_weight[static_cast<std::size_t>(it - distinct.begin())] += nw;
            }
          }
        } else {
          L.rest_bits_[vi / 8] |= static_cast<std::uint8_t>(1u << (vi % 8));
          ++L.rest_count_;
        }
        if (k >= L.histogram_.size()) L.histogram_.resize(k + 1, 0);
        ++L.histogram_[k];
        L.max_influences_ = std::max(L.max_influences_, static_cast<int>(k));
      }
      count[v] = k;
      k_chunk = std::max(k_chunk, k);
    }
    begin[kChunk] = static_cast<std::uint32_t>(kb.size());
    const std::size_t u = distinct.size();
    if (L.bones_.size() + std::max<std::size_t>(k_chunk * kChunk, u) > 0xffffffffu ||
        L.weights_.size() + std::max<std::size_t>(k_chunk, u) * kChunk > 0xffffffffu) {
      return makeError(ErrorCode::kRange, "skin: more than 2^32 - 1 influence slots");
    }
    L.chunk_bone_.push_back(static_cast<std::uint32_t>(L.bones_.size()));
    L.chunk_weight_.push_back(static_cast<std::uint32_t>(L.weights_.size()));
    // Kernel work, in FMA-sized units: per bone, 12 broadcast FMAs; per vertex slot, one FMA
    // per vertex plus a 52-shuffle transpose.
    const double per_bone = 12.0 * static_cast<double>(u);
    const double per_vertex = 16.0 * k_chunk + 52.0;
    if (k_chunk == 0) {  // every vertex at rest
      L.chunk_k_.push_back(0);
      L.chunk_u_.push_back(0);
    } else if (u <= 255 && per_bone <= per_vertex) {
      // Per bone: heaviest bones first; a vertex's influences on one bone are summed.
      std::vector<std::size_t> order(u);
      for (std::size_t j = 0; j < u; ++j) order[j] = j;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t x, std::size_t y) { return distinct_weight[x] > distinct_weight[y]; });
      L.chunk_k_.push_back(0);
      L.chunk_u_.push_back(static_cast<std::uint8_t>(u));
      for (std::size_t j : order) L.bones_.push_back(distinct[j]);
      if (u > 1) {
        const std::size_t w0 = L.weights_.size();
        L.weights_.resize(w0 + u * kChunk, 0.0f);
        for (std::size_t v = 0; v < kChunk; ++v) {
          for (std::uint32_t i = begin[v]; i < begin[v] + count[v]; ++i) {
            const std::size_t j = static_cast<std::size_t>(
                std::find_if(order.begin(), order.end(), [&](std::size_t x) { return distinct[x] == kb[i]; }) -
                order.begin());
            L.weights_[w0 + j * kChunk + v] += kw[i];
          }
        }
      }
    } else {
      if (k_chunk > 255) return makeError(ErrorCode::kRange, "skin: a vertex has more than 255 non-zero influences");
      // Per vertex, influence-major: slot i of vertex v at i * kChunk + v; missing slots: bone 0, weight 0.
      L.chunk_k_.push_back(static_cast<std::uint8_t>(k_chunk));
      L.chunk_u_.push_back(0);
      const std::size_t b0 = L.bones_.size(), w0 = L.weights_.size();
      L.bones_.resize(b0 + std::size_t(k_chunk) * kChunk, 0);
      L.weights_.resize(w0 + std::size_t(k_chunk) * kChunk, 0.0f);
      for (std::size_t v = 0; v < kChunk; ++v) {
        for (std::uint32_t i = 0; i < count[v]; ++i) {
          L.bones_[b0 + i * kChunk + v] = kb[begin[v] + i];
          L.weights_[w0 + i * kChunk + v] = kw[begin[v] + i];
        }
      }
    }
    cost += std::min(per_bone, per_vertex) + 80.0;  // + the transform
    L.chunk_cost_.push_back(cost);
  }
  return L;
}

std::size_t SkinningLayout::memoryBytes() const {
  return histogram_.capacity() * sizeof(std::size_t) + chunk_k_.capacity() + chunk_u_.capacity() +
         chunk_bone_.capacity() * 4 + chunk_weight_.capacity() * 4 +
         bones_.capacity() * 2 + weights_.capacity() * 4 + rest_bits_.capacity() + chunk_cost_.capacity() * sizeof(double);
}

namespace detail {

SkinningView SkinningLayoutAccess::view(const SkinningLayout& layout) {
  SkinningView v;
  v.vertex_count = layout.vertex_count_;
  v.chunk_count = layout.chunk_k_.size();
  v.chunk_k = layout.chunk_k_.data();
  v.chunk_u = layout.chunk_u_.data();
  v.chunk_bone = layout.chunk_bone_.data();
  v.chunk_weight = layout.chunk_weight_.data();
  v.bones = layout.bones_.data();
  v.weights = layout.weights_.data();
  v.rest_bits = layout.rest_bits_.data();
  return v;
}

std::vector<std::size_t> SkinningLayoutAccess::split(const SkinningLayout& layout, int parts) {
  const std::vector<double>& cost = layout.chunk_cost_;
  const std::size_t nb = layout.chunk_k_.size();
  parts = std::max(1, std::min<int>(parts, static_cast<int>(std::max<std::size_t>(nb, 1))));
  std::vector<std::size_t> cut(static_cast<std::size_t>(parts) + 1, nb);
  cut[0] = 0;
  const double total = nb ? cost.back() : 0.0;
  for (int i = 1; i < parts; ++i) {
    const double target = total * i / parts;
    // First block whose cumulative cost reaches the target ends part i - 1.
    const auto it = std::lower_bound(cost.begin(), cost.end(), target);
    std::size_t b = static_cast<std::size_t>(it - cost.begin()) + 1;
    cut[static_cast<std::size_t>(i)] = std::clamp(b, cut[static_cast<std::size_t>(i) - 1], nb);
  }
  return cut;
}

}  // namespace detail

}  // namespace rigfit
