// Fitting an asset to the shaped body as MPFB's ClothesService.fit_clothes_to_human() does
// (docs/mpfb-assets.md §2), in its arithmetic: size factors in Python doubles from the float32
// body, positions in mathutils' float32 vector arithmetic.
#include <cmath>

#include "rigfit/asset.hpp"
#include "rigfit/number_format.hpp"

namespace rigfit {

namespace {

bool inBody(std::int64_t v, std::size_t n) { return v >= 0 && static_cast<std::uint64_t>(v) < n; }

// Python (and Blender's collections) index from the end for -n <= v < 0; -1 when out of range.
std::int64_t pythonIndex(std::int64_t v, std::size_t n) {
  const auto sn = static_cast<std::int64_t>(n);
  if (v < 0 && v >= -sn) v += sn;
  return inBody(v, n) ? v : -1;
}

}  // namespace

Expected<AssetScaleFactors> assetScaleFactors(const ProxyFile& file, std::span<const float> body, float body_scale_factor) {
  // MPFB reads the body's scale_factor property (float32); 1.0 when it is unset (0).
  const double s = body_scale_factor != 0.0f ? static_cast<double>(body_scale_factor) : 1.0;
  AssetScaleFactors f{s, s, s};
  if (!file.x_scale) return f;
  if (!file.y_scale || !file.z_scale)
    return makeError(ErrorCode::kSchema, file.label + ": x_scale without " + std::string(!file.y_scale ? "y_scale" : "z_scale") +
                                             " (MPFB cannot fit it)");
  const std::size_t n = body.size() / 3;
  const AssetScaleRef* refs[3] = {&*file.x_scale, &*file.y_scale, &*file.z_scale};
  const char* names[3] = {"x_scale", "y_scale", "z_scale"};
  for (int k = 0; k < 3; ++k)
    for (const std::int64_t v : {refs[k]->a, refs[k]->b})
      if (!inBody(v, n))
        return makeError(ErrorCode::kRange, file.label + ": " + names[k] + ": vertex " + std::to_string(v) +
                                                " is outside the body of " + std::to_string(n) + " vertices (MPFB refuses to fit)");
  // x from the rig-frame x; MH y is the rig-frame z; MH z the rig-frame y.
  auto size = [&](const AssetScaleRef& r, int axis) {
    const double a = body[static_cast<std::size_t>(r.a) * 3 + static_cast<std::size_t>(axis)];
    const double b = body[static_cast<std::size_t>(r.b) * 3 + static_cast<std::size_t>(axis)];
    return std::abs(a - b) / r.ref;
  };
  f.x = size(*file.x_scale, 0);
  f.y = size(*file.y_scale, 2);
  f.z = size(*file.z_scale, 1);
  const double factors[3] = {f.x, f.y, f.z};
  for (int k = 0; k < 3; ++k)
    if (!std::isfinite(factors[k]))  // a reference length of 0 (MPFB divides by it) or next to it
      return makeError(ErrorCode::kRange, file.label + ": " + names[k] + ": the reference length " + formatPythonFloat(refs[k]->ref) +
                                              " gives no finite scale (MPFB fails on it)");
  return f;
}

Status fitAssetPositions(const AssetBindings& bindings, const AssetScaleFactors& scale, std::span<const float> body,
                         std::span<const float> obj_positions, std::span<float> out, std::string_view label) {
  const std::size_t count = bindings.size();
  if (bindings.weights.size() != count * 3 || bindings.offsets.size() != count * 3 || obj_positions.size() != count * 3 ||
      out.size() != count * 3 || body.size() % 3 != 0)
    return makeError(ErrorCode::kUsage, std::string(label) + ": fitAssetPositions: spans of " + std::to_string(count) +
                                            " asset vertices (3 floats each) and a body of 3 floats per vertex expected");
  const std::size_t n = body.size() / 3;
  const auto sn = static_cast<std::int64_t>(n);
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t* v = &bindings.vertices[i * 3];
    // MPFB's bounds test; `>` on the second index where `>=` was meant.
    if (v[0] >= sn || v[1] > sn || v[2] >= sn) {
      if (out.data() != obj_positions.data())
        for (int a = 0; a < 3; ++a) out[i * 3 + static_cast<std::size_t>(a)] = obj_positions[i * 3 + static_cast<std::size_t>(a)];
      continue;
    }
    std::int64_t idx[3];
    for (int k = 0; k < 3; ++k) {
      idx[k] = pythonIndex(v[k], n);
      if (idx[k] < 0)
        return makeError(ErrorCode::kRange, std::string(label) + ": asset vertex " + std::to_string(i) + ": body vertex " +
                                                std::to_string(v[k]) + " is outside the body of " + std::to_string(n) +
                                                " vertices (MPFB fails on it)");
    }
    const double* w = &bindings.weights[i * 3];
    const float* d = &bindings.offsets[i * 3];
    // (dx*sx, dy*sz, dz*sy) in double, then Vector(...) rounds to float32.
    const float off[3] = {static_cast<float>(static_cast<double>(d[0]) * scale.x),
                          static_cast<float>(static_cast<double>(d[1]) * scale.z),
                          static_cast<float>(static_cast<double>(d[2]) * scale.y)};
    const float w0 = static_cast<float>(w[0]), w1 = static_cast<float>(w[1]), w2 = static_cast<float>(w[2]);
    const float* p0 = &body[static_cast<std::size_t>(idx[0]) * 3];
    const float* p1 = &body[static_cast<std::size_t>(idx[1]) * 3];
    const float* p2 = &body[static_cast<std::size_t>(idx[2]) * 3];
    for (int a = 0; a < 3; ++a) {
      // w0*A + w1*B + w2*C + offset, left to right, every step rounded to float32 (separate
      // statements: no contraction into fused multiply-adds).
      const float t0 = w0 * p0[a];
      const float t1 = w1 * p1[a];
      const float t2 = w2 * p2[a];
      float acc = t0 + t1;
      acc = acc + t2;
      out[i * 3 + static_cast<std::size_t>(a)] = acc + off[a];
    }
    const float* o = &out[i * 3];
    if (!std::isfinite(o[0]) || !std::isfinite(o[1]) || !std::isfinite(o[2]))
      return makeError(ErrorCode::kRange, std::string(label) + ": asset vertex " + std::to_string(i) +
                                              ": the fitted position overflows single precision (its weights or offsets are too large)");
  }
  return {};
}

Status fitAsset(const Asset& asset, std::span<const float> body_positions, std::span<float> out, float body_scale_factor) {
  auto scale = assetScaleFactors(asset.file, body_positions, body_scale_factor);
  if (!scale) return scale.error();
  return fitAssetPositions(asset.file.bindings, *scale, body_positions, asset.mesh.positions, out, asset.path);
}

}  // namespace rigfit
