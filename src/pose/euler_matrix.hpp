// The rotation matrix of Euler angles as Blender 3.4 builds it (eulO_to_mat3): the closed form of
// the three axis rotations from their sines and cosines in double precision, with Blender's
// products and sums in Blender's order, so that each entry rounds to Blender's float entry.
#pragma once

#include <array>
#include <cmath>

#include <Eigen/Core>

#include "rigfit/rig.hpp"

namespace rigfit::detail {

using Rows3 = std::array<std::array<double, 3>, 3>;

// The first, second and third axis of an Euler order, and whether the order is an odd
// permutation (whose angles then turn the other way).
struct EulerAxes {
  int i, j, k;
  bool parity;
};
constexpr EulerAxes eulerAxes(RotationMode order) {
  switch (order) {
    case RotationMode::kXZY: return {0, 2, 1, true};
    case RotationMode::kYXZ: return {1, 0, 2, true};
    case RotationMode::kYZX: return {1, 2, 0, false};
    case RotationMode::kZXY: return {2, 0, 1, false};
    case RotationMode::kZYX: return {2, 1, 0, true};
    default: return {0, 1, 2, false};
  }
}

// cos and sin of an angle; sin(+-0) = +-0 and cos(+-0) = 1 exactly, so the angles poses mostly
// leave at zero need no call.
inline void cosSin(double angle, double& c, double& s) {
  const bool zero = angle == 0.0;
  c = zero ? 1.0 : std::cos(angle);
  s = zero ? angle : std::sin(angle);
}

// eulerRows for one order, its axes known at compile time (the entries' places are constants).
template <RotationMode Order>
void eulerRowsOf(const Eigen::Vector3d& euler, Rows3& out) {
  constexpr EulerAxes a = eulerAxes(Order);
  constexpr int i = a.i, j = a.j, k = a.k;
  const double sign = a.parity ? -1.0 : 1.0;
  double ci, cj, ch, si, sj, sh;
  cosSin(sign * euler[i], ci, si);
  cosSin(sign * euler[j], cj, sj);
  cosSin(sign * euler[k], ch, sh);
  const double cc = ci * ch, cs = ci * sh, sc = si * ch, ss = si * sh;
  out[i][i] = cj * ch;
  out[i][j] = sj * sc - cs;
  out[i][k] = sj * cc + ss;
  out[j][i] = cj * sh;
  out[j][j] = sj * ss + cc;
  out[j][k] = sj * cs - sc;
  out[k][i] = -sj;
  out[k][j] = cj * si;
  out[k][k] = cj * ci;
}

/// The rotation matrix of Euler angles in an Euler rotation mode (any other mode: XYZ), applied
/// in the order's sequence (XYZ = Rz * Ry * Rx), as rows: out[row][column].
inline void eulerRows(RotationMode order, const Eigen::Vector3d& euler, Rows3& out) {
  switch (order) {
    case RotationMode::kXZY: return eulerRowsOf<RotationMode::kXZY>(euler, out);
    case RotationMode::kYXZ: return eulerRowsOf<RotationMode::kYXZ>(euler, out);
    case RotationMode::kYZX: return eulerRowsOf<RotationMode::kYZX>(euler, out);
    case RotationMode::kZXY: return eulerRowsOf<RotationMode::kZXY>(euler, out);
    case RotationMode::kZYX: return eulerRowsOf<RotationMode::kZYX>(euler, out);
    default: return eulerRowsOf<RotationMode::kXYZ>(euler, out);
  }
}

inline bool isEuler(RotationMode mode) { return mode != RotationMode::kQuaternion && mode != RotationMode::kAxisAngle; }

}  // namespace rigfit::detail
