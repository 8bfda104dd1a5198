// A bone's rotation channel as a matrix (Blender's BKE_pchan_rot_to_mat3).
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

}  // namespace rigfit
