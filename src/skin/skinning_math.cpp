// Blender's dual quaternion of one bone (BLI_math_rotation / BLI_math_matrix, Blender 3.4:
// mat4_to_dquat and what it calls), in double.
#include "skin/skinning_math.hpp"

#include <cmath>

#include <Eigen/Geometry>
#include <Eigen/LU>

#include "pose/pose_internal.hpp"

namespace rigfit::detail {

namespace {

bool isOrthonormal3(const Eigen::Matrix3d& m) {  // is_orthonormal_m3: columns, 1e-5
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < i; ++j) {
      if (std::abs(m.col(i).dot(m.col(j))) > 1e-5) return false;
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (std::abs(m.col(i).squaredNorm() - 1.0) > 1e-5) return false;
  }
  return true;
}

// orthogonalize_m4(R, 1): keep the Y axis, rebuild X and Z, keep the column lengths.
void orthogonalizeY(Eigen::Matrix4d& r) {
  const Eigen::Vector3d size(r.col(0).head<3>().norm(), r.col(1).head<3>().norm(), r.col(2).head<3>().norm());
  Eigen::Vector3d c0 = r.col(0).head<3>(), c1 = r.col(1).head<3>(), c2 = r.col(2).head<3>();
  if (c1.norm() != 0.0) c1.normalize();
  auto normalized = [](Eigen::Vector3d v) {
    const double n = v.norm();
    return n != 0.0 ? Eigen::Vector3d(v / n) : v;
  };
  if (c1.dot(c0) < 1) {
    c2 = normalized(c0.cross(c1));
    c0 = c1.cross(c2);
  } else if (c0.dot(c2) < 1) {
    c0 = normalized(c1.cross(c2));
    c2 = c0.cross(c1);
  } else {
    const Eigen::Vector3d vec(c1.y(), c1.z(), c1.x());
    c0 = normalized(c1.cross(vec));
    c2 = c0.cross(c1);
  }
  r.col(0).head<3>() = c0 * size.x();
  r.col(1).head<3>() = c1 * size.y();
  r.col(2).head<3>() = c2 * size.z();
}

// mat4_to_quat: Blender's mat3_to_quat of the 3x3 part (pose/rotation.cpp), as (w, x, y, z).
Eigen::Vector4d mat4ToQuat(const Eigen::Matrix4d& m4) {
  const Eigen::Quaterniond q = matrixToQuat(m4.topLeftCorner<3, 3>());
  return {q.w(), q.x(), q.y(), q.z()};
}

Eigen::Matrix4d quatToMat4(const Eigen::Vector4d& q) {
  const double q0 = M_SQRT2 * q[0], q1 = M_SQRT2 * q[1], q2 = M_SQRT2 * q[2], q3 = M_SQRT2 * q[3];
  const double qda = q0 * q1, qdb = q0 * q2, qdc = q0 * q3, qaa = q1 * q1, qab = q1 * q2, qac = q1 * q3,
               qbb = q2 * q2, qbc = q2 * q3, qcc = q3 * q3;
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();  // m(row, col); Blender's m[col][row]
  m(0, 0) = 1.0 - qbb - qcc;
  m(1, 0) = qdc + qab;
  m(2, 0) = -qdb + qac;
  m(0, 1) = -qdc + qab;
  m(1, 1) = 1.0 - qaa - qcc;
  m(2, 1) = qda + qbc;
  m(0, 2) = qdb + qac;
  m(1, 2) = -qda + qbc;
  m(2, 2) = 1.0 - qaa - qbb;
  return m;
}

Eigen::Matrix4d affineInverse(const Eigen::Matrix4d& m) {
  const Eigen::FullPivLU<Eigen::Matrix4d> lu(m);
  return lu.isInvertible() ? Eigen::Matrix4d(lu.inverse()) : Eigen::Matrix4d(Eigen::Matrix4d::Zero());
}

}  // namespace

Eigen::Matrix4d unpackSkinningMatrix(const float* p) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) m(r, c) = p[r * 4 + c];
  }
  return m;
}

SkinningDualQuat skinningDualQuat(const Eigen::Matrix4d& basemat, const Eigen::Matrix4d& mat) {
  SkinningDualQuat dq;
  const Eigen::Matrix4d base_rs = mat * basemat;
  const Eigen::Vector3d scale(base_rs.col(0).head<3>().norm(), base_rs.col(1).head<3>().norm(),
                              base_rs.col(2).head<3>().norm());
  const Eigen::Vector3d dscale = scale - Eigen::Vector3d::Ones();
  Eigen::Matrix4d r;
  if (!isOrthonormal3(mat.topLeftCorner<3, 3>()) || mat.determinant() < 0.0 || dscale.squaredNorm() > 1e-8) {
    // Split the pose matrix into a rotation (Y axis kept) and a scale, in the bone's rest frame.
    Eigen::Matrix4d tmp = base_rs;
    orthogonalizeY(tmp);
    const Eigen::Vector4d basequat = mat4ToQuat(tmp);
    Eigen::Matrix4d base_r = quatToMat4(basequat);
    base_r.col(3).head<3>() = base_rs.col(3).head<3>();
    const Eigen::Matrix4d baseinv = affineInverse(basemat);
    r = base_r * baseinv;
    const Eigen::Matrix4d s = affineInverse(base_r) * base_rs;
    dq.scale = basemat * s * baseinv;
    dq.has_scale = true;
  } else {
    r = mat;
    dq.scale.setIdentity();
    dq.has_scale = false;
  }
  dq.quat = mat4ToQuat(r);
  const Eigen::Vector3d t = r.col(3).head<3>();
  const Eigen::Vector4d& q = dq.quat;
  dq.trans[0] = -0.5 * (t[0] * q[1] + t[1] * q[2] + t[2] * q[3]);
  dq.trans[1] = 0.5 * (t[0] * q[0] + t[1] * q[3] - t[2] * q[2]);
  dq.trans[2] = 0.5 * (-t[0] * q[3] + t[1] * q[0] + t[2] * q[1]);
  dq.trans[3] = 0.5 * (t[0] * q[2] - t[1] * q[1] + t[2] * q[0]);
  return dq;
}

}  // namespace rigfit::detail
