// A bone's rotation channel as a matrix (Blender's BKE_pchan_rot_to_mat3), and Blender's matrix
// to quaternion conversion.
#include <cmath>

#include <Eigen/Geometry>

#include "pose/euler_matrix.hpp"
#include "pose/pose_internal.hpp"
#include "rigfit/pose.hpp"

namespace rigfit {

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
    default: {
      detail::Rows3 r;
      detail::eulerRows(pose.rotation_mode, pose.euler, r);
      Eigen::Matrix3d m;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m(i, j) = r[i][j];
      return m;
    }
  }
}

namespace detail {

namespace {

// Blender 3.4's mat3_normalized_to_quat on a matrix with unit columns (not necessarily
// orthogonal: the branch decides which entries a sheared matrix's quaternion comes from; Mike
// Day's method, w >= 0), then normalised (always, in 3.4; checked in Blender).
Eigen::Quaterniond unitMatrixToQuat(const Eigen::Matrix3d& m) {
  double w, x, y, z;
  if (m(2, 2) < 0.0) {
    if (m(0, 0) > m(1, 1)) {
      double s = 2.0 * std::sqrt(1.0 + m(0, 0) - m(1, 1) - m(2, 2));
      if (m(2, 1) < m(1, 2)) s = -s;
      x = 0.25 * s;
      s = 1.0 / s;
      w = (m(2, 1) - m(1, 2)) * s;
      y = (m(1, 0) + m(0, 1)) * s;
      z = (m(0, 2) + m(2, 0)) * s;
    } else {
      double s = 2.0 * std::sqrt(1.0 - m(0, 0) + m(1, 1) - m(2, 2));
      if (m(0, 2) < m(2, 0)) s = -s;
      y = 0.25 * s;
      s = 1.0 / s;
      w = (m(0, 2) - m(2, 0)) * s;
      x = (m(1, 0) + m(0, 1)) * s;
      z = (m(2, 1) + m(1, 2)) * s;
    }
  } else if (m(0, 0) < -m(1, 1)) {
    double s = 2.0 * std::sqrt(1.0 - m(0, 0) - m(1, 1) + m(2, 2));
    if (m(1, 0) < m(0, 1)) s = -s;
    z = 0.25 * s;
    s = 1.0 / s;
    w = (m(1, 0) - m(0, 1)) * s;
    x = (m(0, 2) + m(2, 0)) * s;
    y = (m(2, 1) + m(1, 2)) * s;
  } else {
    double s = 2.0 * std::sqrt(1.0 + m(0, 0) + m(1, 1) + m(2, 2));
    w = 0.25 * s;
    s = 1.0 / s;
    x = (m(2, 1) - m(1, 2)) * s;
    y = (m(0, 2) - m(2, 0)) * s;
    z = (m(1, 0) - m(0, 1)) * s;
  }
  Eigen::Quaterniond q(w, x, y, z);
  const double len = q.norm();
  if (!std::isfinite(len) || len == 0.0) return Eigen::Quaterniond(1.0, 0.0, 0.0, 0.0);
  q.coeffs() /= len;
  return q;
}

}  // namespace

Eigen::Quaterniond matrixToQuat(const Eigen::Matrix3d& m) {
  Eigen::Matrix3d u;
  for (int c = 0; c < 3; ++c) {
    Eigen::Vector3d v;
    normalizeInto(v, m.col(c));
    u.col(c) = v;
  }
  if (u.determinant() < 0.0) u = -u;
  return unitMatrixToQuat(u);
}

}  // namespace detail

}  // namespace rigfit
