#include "rigfit/bone_frame.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include <Eigen/Geometry>
#include <Eigen/LU>

namespace rigfit {

Eigen::Matrix3d zeroRollFrame(const Eigen::Vector3d& n) {
  const double x = n.x(), y = n.y(), z = n.z();
  double theta = 1.0 + y;
  const double q = x * x + z * z;
  // Blender's thresholds (vec_roll_to_mat3_normalized): away from -Y use the closed form;
  // near -Y but off the axis, replace 1+y by its series q/2 + q^2/8 to keep precision.
  constexpr double kThetaMin = 6.1e-3;
  constexpr double kQMin = 2.5e-4 * 2.5e-4;
  Eigen::Matrix3d m;
  if (theta > kThetaMin || q > kQMin) {
    if (theta <= kThetaMin) theta = q / 2.0 + q * q / 8.0;
    m.col(0) = Eigen::Vector3d(1.0 - x * x / theta, -x, -x * z / theta);
    m.col(1) = n;
    m.col(2) = Eigen::Vector3d(-x * z / theta, -z, 1.0 - z * z / theta);
  } else {
    // On the -Y axis: Blender uses the half turn about Z (its Y column is exactly -Y).
    m.col(0) = Eigen::Vector3d(-1.0, 0.0, 0.0);
    m.col(1) = Eigen::Vector3d(0.0, -1.0, 0.0);
    m.col(2) = Eigen::Vector3d(0.0, 0.0, 1.0);
  }
  return m;
}

Eigen::Matrix3d boneFrame(const Eigen::Vector3d& n, double roll) {
  // Blender: rotation by `roll` about n applied to the zero-roll frame. Away from the -Y
  // singularity that is X0 cos r - Z0 sin r, n, Z0 cos r + X0 sin r; Rodrigues' formula in full
  // keeps the singular case (where the frame's Y is exactly -Y, not n) identical to Blender.
  if (roll == 0.0) return zeroRollFrame(n);  // the rotation by 0 is exactly the identity
  return boneFrame(n, roll, std::cos(roll), std::sin(roll));
}

Eigen::Matrix3d boneFrame(const Eigen::Vector3d& n, double roll, double c, double s) {
  const Eigen::Matrix3d z0 = zeroRollFrame(n);
  if (roll == 0.0) return z0;
  const double t = 1.0 - c;
  Eigen::Matrix3d r;
  r << t * n.x() * n.x() + c, t * n.x() * n.y() - s * n.z(), t * n.x() * n.z() + s * n.y(),
       t * n.x() * n.y() + s * n.z(), t * n.y() * n.y() + c, t * n.y() * n.z() - s * n.x(),
       t * n.x() * n.z() - s * n.y(), t * n.y() * n.z() + s * n.x(), t * n.z() * n.z() + c;
  return r * z0;
}

Eigen::Matrix4d boneMatrix(const Eigen::Vector3d& head, const Eigen::Vector3d& tail, double roll) {
  Eigen::Vector3d d = tail - head;
  const double len = d.norm();
  d = len > 0.0 ? Eigen::Vector3d(d / len) : Eigen::Vector3d(0.0, 1.0, 0.0);
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.topLeftCorner<3, 3>() = boneFrame(d, roll);
  m.topRightCorner<3, 1>() = head;
  return m;
}

namespace {

// Blender's vec_roll_to_mat3: normalises the vector first.
Eigen::Matrix3d vecRollToMat3(const Eigen::Vector3d& v, double roll) {
  const double len = v.norm();
  return boneFrame(len > 0.0 ? Eigen::Vector3d(v / len) : Eigen::Vector3d(0.0, 1.0, 0.0), roll);
}

}  // namespace

// Blender 3.4's armature_finalize_restpose, in double: local head/tail are taken relative to the
// parent's tail in the parent's final matrix_local rotation (not its edit frame), the local roll is
// first 0 and then set so that the bone's Z axis matches its edit frame:
// roll = -atan2(d[2][0], d[2][2]) with d = edit^-1 * rest.
// When the bone's frame, its frame relative to the parent and every ancestor's are outside
// Blender's near -Y band, all those frames are exact rotations and the procedure returns the
// edit frame itself, so that case takes the short path (equal to rounding).
void blenderRestMatrices(const Eigen::Vector3d* heads, const Eigen::Vector3d* tails, const double* rolls,
                         const int* parents, std::size_t count, Eigen::Matrix4d* out, Eigen::Matrix3d* local_rotation,
                         Eigen::Vector3d* local_head, double* local_length, const double* cos_rolls,
                         const double* sin_rolls, RestMatricesScratch* scratch) {
  constexpr double kBand = 6.1e-3;  // 1 + y at or below this: Blender's series or fixed frame
  RestMatricesScratch own;
  RestMatricesScratch& w = scratch ? *scratch : own;
  w.length.resize(count);
  w.clean.resize(count);
  double* const length = w.length.data();        // each bone's length in its parent's frame
  std::uint8_t* const clean = w.clean.data();   // the bone's frame is its edit frame (short path)
  for (std::size_t i = 0; i < count; ++i) {
    const int p = parents[i];
    const auto q = static_cast<std::size_t>(p);
    const Eigen::Vector3d d = tails[i] - heads[i];
    const double len = d.norm();
    const Eigen::Vector3d n = len > 0.0 ? Eigen::Vector3d(d / len) : Eigen::Vector3d(0.0, 1.0, 0.0);
    const bool parent_clean = p < 0 || clean[q];
    // With a clean parent its rest rotation is exact, so the local direction's y is n_parent . n.
    const double local_y = p < 0 ? n.y() : Eigen::Vector3d(out[q].block<3, 1>(0, 1)).dot(n);
    if (parent_clean && 1.0 + n.y() > kBand && 1.0 + local_y > kBand) {
      clean[i] = 1;
      length[i] = len;
      out[i].setIdentity();
      out[i].topLeftCorner<3, 3>() =
          cos_rolls ? boneFrame(n, rolls[i], cos_rolls[i], sin_rolls[i]) : boneFrame(n, rolls[i]);
      out[i].topRightCorner<3, 1>() = heads[i];
      if (local_rotation) {
        // Exact rotations: the local frame is the parent's transpose times this one.
        local_rotation[i] = p < 0 ? Eigen::Matrix3d(out[i].topLeftCorner<3, 3>())
                                  : Eigen::Matrix3d(out[q].topLeftCorner<3, 3>().transpose() * out[i].topLeftCorner<3, 3>());
      }
      if (local_head) local_head[i] = p < 0 ? heads[i] : Eigen::Vector3d(out[q].topLeftCorner<3, 3>().transpose() * (heads[i] - tails[q]));
      if (local_length) local_length[i] = len;
      continue;
    }
    clean[i] = 0;
    Eigen::Vector3d head = heads[i], tail = tails[i];
    if (p >= 0) {
      // Relative to the parent's tail, in the parent's final rest rotation.
      const Eigen::Matrix3d inv = out[q].topLeftCorner<3, 3>().inverse();
      head = inv * (heads[i] - tails[q]);
      tail = inv * (tails[i] - tails[q]);
    }
    length[i] = (tail - head).norm();
    auto whereIs = [&](double roll) {
      Eigen::Matrix4d bone = Eigen::Matrix4d::Identity();
      bone.topLeftCorner<3, 3>() = vecRollToMat3(tail - head, roll);
      if (p >= 0) {
        bone.topRightCorner<3, 1>() = head + Eigen::Vector3d(0.0, length[q], 0.0);
        return Eigen::Matrix4d(out[q] * bone);
      }
      bone.topRightCorner<3, 1>() = head;
      return bone;
    };
    const Eigen::Matrix3d edit = vecRollToMat3(d, rolls[i]);
    const Eigen::Matrix3d dif = edit.inverse() * whereIs(0.0).topLeftCorner<3, 3>();
    const double local_roll = -std::atan2(dif(0, 2), dif(2, 2));
    out[i] = whereIs(local_roll);
    if (local_rotation) local_rotation[i] = vecRollToMat3(tail - head, local_roll);
    if (local_head) local_head[i] = head;
    if (local_length) local_length[i] = length[i];
  }
}

double rollFromZAxis(const Eigen::Vector3d& n, const Eigen::Vector3d& z) {
  const Eigen::Matrix3d z0 = zeroRollFrame(n);
  return std::atan2(z.dot(z0.col(0)), z.dot(z0.col(2)));
}

double rollFromFrame(const Eigen::Matrix3d& frame) { return rollFromZAxis(frame.col(1), frame.col(2)); }

}  // namespace rigfit
