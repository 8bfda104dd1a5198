// Euler rotation matrices composed in plain rows with the axes known at compile time: the zeros
// and ones of the axis rotations stay constants, and inlined into pose evaluation the whole
// composition stays in registers. The floating-point operations and their order are those of the
// generic 3x3 products this replaced, so results are bit-identical to them.
#pragma once

#include <array>
#include <cmath>

#include <Eigen/Core>

#include "rigfit/rig.hpp"

namespace rigfit::detail {

using Rows3 = std::array<std::array<double, 3>, 3>;

inline constexpr Rows3 kIdentityRows{{{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}};

// The rotation by `angle` about axis `Axis`, right-handed (turns axis a towards axis b).
template <int Axis>
Rows3 axisRotationRows(double angle) {
  constexpr int a = (Axis + 1) % 3, b = (Axis + 2) % 3;
  // sin(+-0) = +-0 and cos(+-0) = 1 exactly: no call for the angles poses mostly leave at zero.
  const bool zero = angle == 0.0;
  const double c = zero ? 1.0 : std::cos(angle), s = zero ? angle : std::sin(angle);
  Rows3 r = kIdentityRows;
  r[a][a] = c;
  r[a][b] = -s;
  r[b][a] = s;
  r[b][b] = c;
  return r;
}

// x * y with each entry summed as Eigen 3.4 sums a 3x3 double product on SSE2: rows 0 and 1 as one
// packet, (p0 + p1) + p2; row 2 as p0 + (p1 + p2). The products by constant zeros are kept: they
// decide the sign of a zero sum.
// `r` must not be `y`.
inline void mulRows(const Rows3& x, const Rows3& y, Rows3& r) {
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 2; ++i) r[i][j] = (x[i][0] * y[0][j] + x[i][1] * y[1][j]) + x[i][2] * y[2][j];
    r[2][j] = x[2][0] * y[0][j] + (x[2][1] * y[1][j] + x[2][2] * y[2][j]);
  }
}

// Euler angles applied in the order A0, A1, A2 (XYZ = Rz * Ry * Rx).
// (Written into `out` by the last product: a copy of the rows would load them, as pairs, right
// after they were stored one by one, which stalls.)
template <int A0, int A1, int A2>
void eulerRows(const Eigen::Vector3d& euler, Rows3& out) {
  Rows3 r0, r1;
  mulRows(axisRotationRows<A0>(euler[A0]), kIdentityRows, r0);
  mulRows(axisRotationRows<A1>(euler[A1]), r0, r1);
  mulRows(axisRotationRows<A2>(euler[A2]), r1, out);
}

/// The rotation matrix of Euler angles in an Euler rotation mode (any other mode: XYZ).
inline void eulerRows(RotationMode order, const Eigen::Vector3d& euler, Rows3& out) {
  switch (order) {
    case RotationMode::kXZY: return eulerRows<0, 2, 1>(euler, out);
    case RotationMode::kYXZ: return eulerRows<1, 0, 2>(euler, out);
    case RotationMode::kYZX: return eulerRows<1, 2, 0>(euler, out);
    case RotationMode::kZXY: return eulerRows<2, 0, 1>(euler, out);
    case RotationMode::kZYX: return eulerRows<2, 1, 0>(euler, out);
    default: return eulerRows<0, 1, 2>(euler, out);
  }
}

inline bool isEuler(RotationMode mode) { return mode != RotationMode::kQuaternion && mode != RotationMode::kAxisAngle; }

}  // namespace rigfit::detail
