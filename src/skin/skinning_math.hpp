// Blender's skinning math (internal), shared by the scalar paths and the kernels:
//  - a bone's dual quaternion from its rest and skinning matrices (mat4_to_dquat);
//  - the blend of a vertex's dual quaternions (add_weighted_dq_dq, normalize_dq) written as the
//    equivalent 3x4 matrix (mul_v3m3_dq);
//  - a vertex and its normal moved by a blended 3x4 matrix.
// The inline parts are forced inline so that each path compiles them for its own SIMD target
// (in the kernels' translation unit, with the instructions of the caller's target).
#pragma once

#include <cmath>
#include <cstddef>

#include <Eigen/Core>

namespace rigfit::detail {

#define RIGFIT_SKIN_INLINE inline __attribute__((always_inline))

/// Blender's dual quaternion of one bone (mat4_to_dquat(rest, S)): quaternion (w, x, y, z), dual
/// part (w, x, y, z), scale matrix (4x4) and whether it is used.
struct SkinningDualQuat {
  Eigen::Vector4d quat = Eigen::Vector4d(1, 0, 0, 0);
  Eigen::Vector4d trans = Eigen::Vector4d::Zero();
  Eigen::Matrix4d scale = Eigen::Matrix4d::Identity();
  bool has_scale = false;
};
SkinningDualQuat skinningDualQuat(const Eigen::Matrix4d& rest, const Eigen::Matrix4d& skinning);

/// The 4x4 affine matrix of a 12-float row-major 3x4 (SkinningJob::matrices).
Eigen::Matrix4d unpackSkinningMatrix(const float* p);

/// Entries of a bone's dual quaternion record: quaternion (w x y z), dual part (w x y z), scale
/// matrix 3x4 row-major, has-scale flag (1 or 0), 3 zeros of padding.
inline constexpr std::size_t kSkinningDualQuatFloats = 24;

/// Writes `dq` as a record of kSkinningDualQuatFloats entries.
template <typename Real>
void packDualQuat(const SkinningDualQuat& dq, Real* out) {
  for (int i = 0; i < 4; ++i) {
    out[i] = static_cast<Real>(dq.quat[i]);
    out[4 + i] = static_cast<Real>(dq.trans[i]);
  }
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) out[8 + 4 * r + c] = static_cast<Real>(dq.scale(r, c));
  }
  out[20] = dq.has_scale ? Real(1) : Real(0);
  out[21] = out[22] = out[23] = Real(0);
}

/// The packDualQuat records of `bones` bones (12-float rest and skinning matrices per bone).
template <typename Real>
void fillDualQuatTable(const float* rest_matrices, const float* matrices, std::size_t bones, Real* out) {
  for (std::size_t b = 0; b < bones; ++b) {
    const SkinningDualQuat q =
        skinningDualQuat(unpackSkinningMatrix(rest_matrices + 12 * b), unpackSkinningMatrix(matrices + 12 * b));
    packDualQuat(q, out + kSkinningDualQuatFloats * b);
  }
}

/// One vertex's blend of dual quaternion records (packDualQuat layout).
template <typename Real>
struct DualQuatBlend {
  Real quat[4] = {0, 0, 0, 0};
  Real trans[4] = {0, 0, 0, 0};
  Real scale[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  Real scale_weight = 0;

  /// add_weighted_dq_dq: a zero weight is skipped; the rotation and translation are added with
  /// the sign flipped when the quaternion points away from the running sum, the scale matrix
  /// (bones that have one) with the weight as given.
  RIGFIT_SKIN_INLINE void add(const Real* dq, Real w) {
    if (w == 0) return;
    const Real dot = dq[0] * quat[0] + dq[1] * quat[1] + dq[2] * quat[2] + dq[3] * quat[3];
    const Real ws = dot < 0 ? -w : w;
    for (int i = 0; i < 4; ++i) {
      quat[i] += ws * dq[i];
      trans[i] += ws * dq[4 + i];
    }
    if (dq[20] != 0) {
      for (int i = 0; i < 12; ++i) scale[i] += w * dq[8 + i];
      scale_weight += w;
    }
  }

  /// normalize_dq(total) (the unscaled bones' weight joins the scale matrix as identity), then
  /// mul_v3m3_dq as the row-major 3x4 matrix out[0..11]. A total of 1 skips the division.
  RIGFIT_SKIN_INLINE void toMatrix(Real total, Real* out) {
    const bool scaled = scale_weight != 0;
    if (total != Real(1)) {
      const Real inv = Real(1) / total;
      for (int c = 0; c < 4; ++c) {
        quat[c] *= inv;
        trans[c] *= inv;
      }
    }
    if (scaled) {
      const Real add = total - scale_weight;
      if (add != 0) {
        scale[0] += add;
        scale[5] += add;
        scale[10] += add;
      }
      if (total != Real(1)) {
        const Real inv = Real(1) / total;
        for (Real& v : scale) v *= inv;
      }
    }
    const Real w = quat[0], x = quat[1], y = quat[2], z = quat[3];
    const Real t0 = trans[0], t1 = trans[1], t2 = trans[2], t3 = trans[3];
    const Real m[3][3] = {{w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)},
                          {2 * (x * y + w * z), w * w + y * y - x * x - z * z, 2 * (y * z - w * x)},
                          {2 * (x * z - w * y), 2 * (y * z + w * x), w * w + z * z - x * x - y * y}};
    Real len2 = w * w + x * x + y * y + z * z;
    if (len2 > 0) len2 = Real(1) / len2;
    const Real t[3] = {2 * (-t0 * x + w * t1 - t2 * z + y * t3), 2 * (-t0 * y + t1 * z - x * t3 + w * t2),
                       2 * (-t0 * z + x * t2 + w * t3 - t1 * y)};
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 4; ++c) {
        Real a;
        if (scaled) {
          a = m[r][0] * scale[c] + m[r][1] * scale[4 + c] + m[r][2] * scale[8 + c];
        } else {
          a = c < 3 ? m[r][c] : Real(0);
        }
        if (c == 3) a += t[r];
        out[r * 4 + c] = a * len2;
      }
    }
  }
};

/// Moves one vertex by the row-major 3x4 matrix m (rows 4 apart) and its normal (optional) by the
/// cofactor matrix of the 3x3 part, renormalised; a normal mapped to (almost) zero is kept as
/// given. Reads every input before writing (in and out may be the same arrays).
template <typename Real>
RIGFIT_SKIN_INLINE void transformVertex(const Real* m, const float* ip, const float* in, float* op, float* on) {
  const Real x = ip[0], y = ip[1], z = ip[2];
  float n[3] = {0, 0, 0};
  if (in != nullptr) n[0] = in[0], n[1] = in[1], n[2] = in[2];
  for (int r = 0; r < 3; ++r) op[r] = static_cast<float>(m[4 * r] * x + m[4 * r + 1] * y + m[4 * r + 2] * z + m[4 * r + 3]);
  if (in == nullptr) return;
  auto a = [m](int r, int c) { return m[4 * r + c]; };
  const Real nx = n[0], ny = n[1], nz = n[2];
  const Real c[3][3] = {{a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1), a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2),
                         a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0)},
                        {a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2), a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0),
                         a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1)},
                        {a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1), a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2),
                         a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0)}};
  Real t[3];
  for (int r = 0; r < 3; ++r) t[r] = c[r][0] * nx + c[r][1] * ny + c[r][2] * nz;
  const Real len2 = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
  if (len2 > Real(1e-30)) {
    const Real s = Real(1) / std::sqrt(len2);
    for (int r = 0; r < 3; ++r) on[r] = static_cast<float>(t[r] * s);
  } else {
    for (int r = 0; r < 3; ++r) on[r] = n[r];
  }
}

}  // namespace rigfit::detail
