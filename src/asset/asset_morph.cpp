// A body's shape target carried over to an asset (docs/mpfb-assets.md §7): each asset vertex
// moves by the binding-weighted sum of its three body vertices' offsets.
#include <cmath>

#include "rigfit/asset.hpp"

namespace rigfit {

void transferTarget(const AssetBindings& bindings, const Target& body_target, std::size_t body_vertex_count, Target& out) {
  out.vertices.clear();
  out.offsets.clear();
  const std::int64_t n = static_cast<std::int64_t>(body_vertex_count);
  std::vector<double> dense(3 * body_vertex_count, 0.0);
  std::vector<std::uint8_t> moved(body_vertex_count, 0);
  for (std::size_t k = 0; k < body_target.vertices.size(); ++k) {
    const std::size_t v = body_target.vertices[k];
    if (v >= body_vertex_count) continue;
    moved[v] = 1;
    for (std::size_t c = 0; c < 3; ++c) dense[3 * v + c] += body_target.offsets[3 * k + c];
  }
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    double d[3] = {0.0, 0.0, 0.0};
    bool any = false;
    for (std::size_t k = 0; k < 3; ++k) {
      std::int64_t v = bindings.vertices[3 * i + k];
      if (v < 0) v += n;  // Python's indexing from the end, as fitting reads it
      if (v < 0 || v >= n || !moved[static_cast<std::size_t>(v)]) continue;
      any = true;
      for (std::size_t c = 0; c < 3; ++c) d[c] += bindings.weights[3 * i + k] * dense[3 * static_cast<std::size_t>(v) + c];
    }
    if (!any || std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) <= 1e-4) continue;  // MPFB's threshold
    out.vertices.push_back(static_cast<std::uint32_t>(i));
    out.offsets.insert(out.offsets.end(), d, d + 3);
  }
}

}  // namespace rigfit
