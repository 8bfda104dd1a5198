#include <cmath>
#include <random>

#include <Eigen/Geometry>
#include <gtest/gtest.h>

#include "rigfit/bone_frame.hpp"

namespace rigfit {
namespace {

void expectColumns(const Eigen::Matrix3d& m, const Eigen::Vector3d& x, const Eigen::Vector3d& y, const Eigen::Vector3d& z,
                   double tol = 1e-15) {
  EXPECT_LT((m.col(0) - x).norm(), tol) << m;
  EXPECT_LT((m.col(1) - y).norm(), tol) << m;
  EXPECT_LT((m.col(2) - z).norm(), tol) << m;
}

// The minimal rotation taking +Y to n (what Blender's closed form computes), via Rodrigues.
Eigen::Matrix3d minimalRotation(const Eigen::Vector3d& n) {
  const Eigen::Vector3d axis = Eigen::Vector3d::UnitY().cross(n);
  const double angle = std::atan2(axis.norm(), n.y());
  if (axis.norm() == 0.0) return Eigen::Matrix3d::Identity();
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}

TEST(BoneFrame, HandComputedAxes) {
  // +Y: identity.
  expectColumns(zeroRollFrame({0, 1, 0}), {1, 0, 0}, {0, 1, 0}, {0, 0, 1});
  // +Z: theta = 1, x = 0, z = 1 -> X0 = (1, 0, 0), Z0 = (0, -1, 0).
  expectColumns(zeroRollFrame({0, 0, 1}), {1, 0, 0}, {0, 0, 1}, {0, -1, 0});
  // +X: X0 = (1 - 1, -1, 0), Z0 = (0, 0, 1).
  expectColumns(zeroRollFrame({1, 0, 0}), {0, -1, 0}, {1, 0, 0}, {0, 0, 1});
  // -Z: X0 = (1, 0, 0), Z0 = (0, 1, 0).
  expectColumns(zeroRollFrame({0, 0, -1}), {1, 0, 0}, {0, 0, -1}, {0, 1, 0});
}

TEST(BoneFrame, MinusYIsBlendersHalfTurnAboutZ) {
  expectColumns(zeroRollFrame({0, -1, 0}), {-1, 0, 0}, {0, -1, 0}, {0, 0, 1});
  // Inside the critical radius (x^2 + z^2 <= 2.5e-4^2) the same fixed frame is used.
  const Eigen::Vector3d n = Eigen::Vector3d(1e-4, -1, 1e-4).normalized();
  expectColumns(zeroRollFrame(n), {-1, 0, 0}, {0, -1, 0}, {0, 0, 1});
}

TEST(BoneFrame, NearMinusYUsesBlendersSeries) {
  // theta = 1 + y at or below 6.1e-3 but off the axis: Blender replaces theta by its truncated
  // series q/2 + q^2/8 (q = x^2 + z^2), so the frame there is Blender's, not exactly the minimal
  // rotation (off by up to ~q^3/16 / theta, about 2e-5 at the edge of the band).
  const double x = 0.05, z = -0.025;
  const Eigen::Vector3d n = Eigen::Vector3d(x, -1, z).normalized();
  const double q = n.x() * n.x() + n.z() * n.z();
  ASSERT_LE(1.0 + n.y(), 6.1e-3);
  const double theta = q / 2 + q * q / 8;
  expectColumns(zeroRollFrame(n), {1 - n.x() * n.x() / theta, -n.x(), -n.x() * n.z() / theta}, n,
                {-n.x() * n.z() / theta, -n.z(), 1 - n.z() * n.z() / theta}, 1e-15);
  for (double off : {3e-4, 1e-3, 1e-2, 0.05, 0.1}) {
    const Eigen::Vector3d m = Eigen::Vector3d(off, -1, -0.5 * off).normalized();
    EXPECT_LT((zeroRollFrame(m) - minimalRotation(m)).norm(), 1e-4) << off;
  }
}

TEST(BoneFrame, ZeroRollFrameIsTheMinimalRotationAwayFromMinusY) {
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  int checked = 0;
  for (int k = 0; k < 2000; ++k) {
    const Eigen::Vector3d n = Eigen::Vector3d(g(rng), g(rng), g(rng)).normalized();
    if (1.0 + n.y() <= 6.1e-3) continue;
    EXPECT_LT((zeroRollFrame(n) - minimalRotation(n)).norm(), 1e-12);
    ++checked;
  }
  EXPECT_GT(checked, 1900);
}

TEST(BoneFrame, RollRotatesRightHandedAboutTheBone) {
  const double r = M_PI / 2;
  // +Y with roll 90 deg: X -> (0, 0, -1), Z -> (1, 0, 0).
  expectColumns(boneFrame({0, 1, 0}, r), {0, 0, -1}, {0, 1, 0}, {1, 0, 0}, 1e-15);
  // +Z with roll 30 deg: X = X0 cos - Z0 sin, Z = Z0 cos + X0 sin.
  const double c = std::cos(M_PI / 6), s = std::sin(M_PI / 6);
  expectColumns(boneFrame({0, 0, 1}, M_PI / 6), {c, s, 0}, {0, 0, 1}, {s, -c, 0}, 1e-15);
}

TEST(BoneFrame, RollFromFrameInvertsBoneFrame) {
  std::mt19937 rng(11);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u(-M_PI + 1e-9, M_PI);
  for (int k = 0; k < 2000; ++k) {
    const Eigen::Vector3d n = Eigen::Vector3d(g(rng), g(rng), g(rng)).normalized();
    const double roll = u(rng);
    // Inside Blender's series band the frame is slightly non-orthonormal: the inverse is approximate.
    EXPECT_NEAR(rollFromFrame(boneFrame(n, roll)), roll, 1.0 + n.y() > 6.1e-3 ? 1e-12 : 1e-4);
  }
  // And on the singular axis.
  EXPECT_NEAR(rollFromFrame(boneFrame({0, -1, 0}, 0.7)), 0.7, 1e-15);
}

TEST(BoneFrame, MatrixHasHeadAsTranslation) {
  const Eigen::Matrix4d m = boneMatrix({1, 2, 3}, {1, 2, 5}, 0.0);
  EXPECT_TRUE(m.row(3).isApprox(Eigen::RowVector4d(0, 0, 0, 1)));
  EXPECT_EQ(m.col(1).head<3>(), Eigen::Vector3d(0, 0, 1));
  EXPECT_EQ(m.row(3), (Eigen::RowVector4d(0, 0, 0, 1)));
}

}  // namespace
}  // namespace rigfit

namespace rigfit {
namespace {

TEST(BlenderRestMatrices, EqualTheEditFramesAwayFromMinusY) {
  std::mt19937 rng(3);
  std::normal_distribution<double> g;
  const int n = 50;
  std::vector<Eigen::Vector3d> heads(n), tails(n);
  std::vector<double> rolls(n);
  std::vector<int> parents(n);
  for (int i = 0; i < n; ++i) {
    parents[static_cast<std::size_t>(i)] = i == 0 ? -1 : static_cast<int>(rng() % static_cast<unsigned>(i));
    heads[static_cast<std::size_t>(i)] = Eigen::Vector3d(g(rng), g(rng), g(rng));
    Eigen::Vector3d d(g(rng), g(rng), g(rng));
    if (d.normalized().y() < -0.9) d.y() = -d.y();
    tails[static_cast<std::size_t>(i)] = heads[static_cast<std::size_t>(i)] + d;
    rolls[static_cast<std::size_t>(i)] = g(rng);
  }
  std::vector<Eigen::Matrix4d> rest(n);
  blenderRestMatrices(heads.data(), tails.data(), rolls.data(), parents.data(), n, rest.data());
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    // Unless a bone points near -Y relative to its parent, where Blender's local frame differs.
    const Eigen::Matrix4d edit = boneMatrix(heads[i], tails[i], rolls[i]);
    if (parents[i] >= 0) {
      const Eigen::Vector3d local = edit.topLeftCorner<3, 3>().col(1).transpose() *
                                    rest[static_cast<std::size_t>(parents[i])].topLeftCorner<3, 3>();
      if (local.y() < -0.99) continue;
    }
    EXPECT_LT((rest[i] - edit).norm(), 1e-12) << i;
  }
}

TEST(BlenderRestMatrices, NearMinusYTheRestFrameFollowsTheTrueDirection) {
  // A bone 1e-4 rad from -Y has Blender's fixed edit frame (Y exactly -Y rotated by the roll).
  // Under a parent pointing +Z, its direction relative to the parent is far from -Y, so Blender
  // rebuilds matrix_local with the true direction as Y and the roll that best keeps the edit Z.
  const Eigen::Vector3d dir = Eigen::Vector3d(1e-4, -1, 0).normalized();
  const Eigen::Vector3d heads[2] = {{0, 0, 0}, {0, 0, 1}};
  const Eigen::Vector3d tails[2] = {{0, 0, 1}, Eigen::Vector3d(0, 0, 1) + 0.5 * dir};
  const double rolls[2] = {0.0, 0.3};
  const int parents[2] = {-1, 0};
  Eigen::Matrix4d rest[2];
  blenderRestMatrices(heads, tails, rolls, parents, 2, rest);
  EXPECT_LT((rest[0] - boneMatrix(heads[0], tails[0], 0.0)).norm(), 1e-15);
  EXPECT_LT((rest[1].topLeftCorner<3, 3>().col(1) - dir).norm(), 1e-15);
  EXPECT_LT((rest[1].topRightCorner<3, 1>() - heads[1]).norm(), 1e-15);
  const Eigen::Matrix3d edit = boneFrame(dir, 0.3);
  EXPECT_GT((edit.col(1) - dir).norm(), 5e-5);  // the edit frame's Y is not the bone's direction
  EXPECT_LT((rest[1].topLeftCorner<3, 3>().col(2) - edit.col(2)).norm(), 2e-4);
  const Eigen::Matrix3d r = rest[1].topLeftCorner<3, 3>();
  EXPECT_LT((r.transpose() * r - Eigen::Matrix3d::Identity()).norm(), 1e-12);
}

}  // namespace
}  // namespace rigfit
