// A bone's rotation channel as a matrix (Blender's BKE_pchan_rot_to_mat3). Euler rotations are
// composed in plain rows with the axes known at compile time: the zeros and ones of the axis
// rotations stay constants, which makes this a few times faster than composing generic 3x3
// matrices, with the same floating-point operations in the same order.
#include <array>
#include <cmath>

#include <Eigen/Geometry>

#include "pose/pose_internal.hpp"
#include "rigfit/pose.hpp"

namespace rigfit {
namespace {

using Rows = std::array<std::array<double, 3>, 3>;

constexpr Rows kIdentity{{{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}};

// The rotation by `angle` about axis `Axis`, right-handed (turns axis a towards axis b).
template <int Axis>
Rows axisRotation(double angle) {
  constexpr int a = (Axis + 1) % 3, b = (Axis + 2) % 3;
  const double c = std::cos(angle), s = std::sin(angle);
  Rows r = kIdentity;
  r[a][a] = c;
  r[a][b] = -s;
  r[b][a] = s;
  r[b][b] = c;
  return r;
}

// x * y with each entry summed as Eigen 3.4 sums a 3x3 double product on SSE2, which this
// function replaced: rows 0 and 1 as one packet, (p0 + p1) + p2; row 2 as p0 + (p1 + p2). The same
// order keeps every bit of earlier results (signed zeros included: the products by constant zeros
// are kept too, as they decide the sign of a zero sum).
Rows mul(const Rows& x, const Rows& y) {
  Rows r;
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 2; ++i) r[i][j] = (x[i][0] * y[0][j] + x[i][1] * y[1][j]) + x[i][2] * y[2][j];
    r[2][j] = x[2][0] * y[0][j] + (x[2][1] * y[1][j] + x[2][2] * y[2][j]);
  }
  return r;
}

// Euler angles applied in the order A0, A1, A2 (XYZ = Rz * Ry * Rx).
template <int A0, int A1, int A2>
Eigen::Matrix3d eulerMatrix(const Eigen::Vector3d& euler) {
  Rows r = mul(axisRotation<A0>(euler[A0]), kIdentity);
  r = mul(axisRotation<A1>(euler[A1]), r);
  r = mul(axisRotation<A2>(euler[A2]), r);
  Eigen::Matrix3d m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = r[i][j];
  return m;
}

}  // namespace

Eigen::Matrix3d rotationMatrix(const BonePose& pose) {
  switch (pose.rotation_mode) {
    case RotationMode::kQuaternion: {
      Eigen::Vector4d q = pose.quaternion;  // w, x, y, z
      const double len = q.norm();
      // Blender's normalize_qt: a zero quaternion becomes (0, 1, 0, 0), a half turn about X.
      q = len != 0.0 ? Eigen::Vector4d(q / len) : Eigen::Vector4d(0.0, 1.0, 0.0, 0.0);
      return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
    }
    case RotationMode::kAxisAngle: {
      Eigen::Vector3d axis;
      if (detail::normalizeInto(axis, pose.axis_angle.tail<3>()) == 0.0) return Eigen::Matrix3d::Identity();
      return Eigen::AngleAxisd(pose.axis_angle[0], axis).toRotationMatrix();
    }
    case RotationMode::kXZY: return eulerMatrix<0, 2, 1>(pose.euler);
    case RotationMode::kYXZ: return eulerMatrix<1, 0, 2>(pose.euler);
    case RotationMode::kYZX: return eulerMatrix<1, 2, 0>(pose.euler);
    case RotationMode::kZXY: return eulerMatrix<2, 0, 1>(pose.euler);
    case RotationMode::kZYX: return eulerMatrix<2, 1, 0>(pose.euler);
    case RotationMode::kXYZ: break;
  }
  return eulerMatrix<0, 1, 2>(pose.euler);
}

}  // namespace rigfit
