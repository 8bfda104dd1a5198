// Posing: rotation channels, channel matrices, Blender's parent transforms (every inherit_scale
// mode, hinge, local location, connected bones) on hand-computed two- and three-bone chains; the
// rest pose of every shipped rig; Euler and pose matrices bit for bit against generic products; MPFB
// pose files and the command-line forms; and pose matrices compared with Blender 3.4.1's own
// (tests/golden/pose, made by tools/blender/pose_reference.py).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Geometry>
#include <Eigen/LU>

#include "rigfit/bone_frame.hpp"
#include "rigfit/data.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/pose.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

using Eigen::Matrix3d;
using Eigen::Matrix4d;
using Eigen::Vector3d;

// Elementary right-handed rotations, written out.
Matrix3d rx(double a) {
  Matrix3d m;
  m << 1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a);
  return m;
}
Matrix3d ry(double a) {
  Matrix3d m;
  m << std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a);
  return m;
}
Matrix3d rz(double a) {
  Matrix3d m;
  m << std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1;
  return m;
}

Matrix4d affine(const Matrix3d& r, const Vector3d& t) {
  Matrix4d m = Matrix4d::Identity();
  m.topLeftCorner<3, 3>() = r;
  m.topRightCorner<3, 1>() = t;
  return m;
}

double maxAbs(const Eigen::MatrixXd& m) { return m.cwiseAbs().maxCoeff(); }

#define EXPECT_MAT_NEAR(a, b, tol) EXPECT_LE(maxAbs((a) - (b)), tol) << "actual\n" << (a) << "\nexpected\n" << (b)

// ---------------------------------------------------------------------------------------------
// Rotation channels

BonePose euler(RotationMode mode, double x, double y, double z) {
  BonePose p;
  p.rotation_mode = mode;
  p.euler = Vector3d(x, y, z);
  return p;
}

TEST(PoseRotation, EulerOrdersMatchExplicitAxisProducts) {
  const double x = 0.3, y = -0.7, z = 1.1;
  // Blender applies the axes in the order named: XYZ rotates about X first.
  EXPECT_MAT_NEAR(rotationMatrix(euler(RotationMode::kXYZ, x, y, z)), rz(z) * ry(y) * rx(x), 1e-15);
  EXPECT_MAT_NEAR(rotationMatrix(euler(RotationMode::kXZY, x, y, z)), ry(y) * rz(z) * rx(x), 1e-15);
  EXPECT_MAT_NEAR(rotationMatrix(euler(RotationMode::kYXZ, x, y, z)), rz(z) * rx(x) * ry(y), 1e-15);
  EXPECT_MAT_NEAR(rotationMatrix(euler(RotationMode::kYZX, x, y, z)), rx(x) * rz(z) * ry(y), 1e-15);
  EXPECT_MAT_NEAR(rotationMatrix(euler(RotationMode::kZXY, x, y, z)), ry(y) * rx(x) * rz(z), 1e-15);
  EXPECT_MAT_NEAR(rotationMatrix(euler(RotationMode::kZYX, x, y, z)), rx(x) * ry(y) * rz(z), 1e-15);
  // Right-handed: +90 degrees about X takes +Y to +Z.
  const Vector3d v = rotationMatrix(euler(RotationMode::kXYZ, std::numbers::pi / 2, 0, 0)) * Vector3d::UnitY();
  EXPECT_LE((v - Vector3d::UnitZ()).norm(), 1e-15);
  // Blender 3.4.1's own numbers: mathutils Euler((0.3, -0.7, 1.1), ORDER).to_matrix() (float32).
  const Matrix3d xyz = rotationMatrix(euler(RotationMode::kXYZ, x, y, z));
  const Matrix3d zxy = rotationMatrix(euler(RotationMode::kZXY, x, y, z));
  Matrix3d blender_xyz, blender_zxy;
  blender_xyz << 0.3469294309616089, -0.9377582669258118, -0.01579349860548973, 0.6816329956054688, 0.2636694312095642,
      -0.6825356483459473, 0.6442176699638367, 0.22602632641792297, 0.7306816577911377;
  blender_zxy << 0.17726196348667145, -0.7679883241653442, -0.6154446601867676, 0.8514029383659363, 0.43333691358566284,
      -0.29552021622657776, 0.49365097284317017, -0.47160688042640686, 0.7306816577911377;
  EXPECT_MAT_NEAR(xyz, blender_xyz, 1e-7);
  EXPECT_MAT_NEAR(zxy, blender_zxy, 1e-7);
}

TEST(PoseRotation, QuaternionIsNormalisedBeforeUse) {
  BonePose p;  // default: QUATERNION, identity
  EXPECT_MAT_NEAR(rotationMatrix(p), Matrix3d::Identity(), 0.0);
  p.quaternion = Eigen::Vector4d(2, 0, 0, 2);  // 90 degrees about Z, length 2*sqrt(2)
  EXPECT_MAT_NEAR(rotationMatrix(p), rz(std::numbers::pi / 2), 1e-15);
  p.quaternion = Eigen::Vector4d(3, 1, -2, 0.5);
  const Eigen::Vector4d q = p.quaternion.normalized();
  EXPECT_MAT_NEAR(rotationMatrix(p), Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix(), 1e-15);
  EXPECT_NEAR(rotationMatrix(p).determinant(), 1.0, 1e-15);
  // A zero quaternion is Blender's (0, 1, 0, 0): a half turn about X.
  p.quaternion.setZero();
  EXPECT_MAT_NEAR(rotationMatrix(p), Matrix3d(Eigen::Vector3d(1, -1, -1).asDiagonal()), 1e-15);
}

TEST(PoseRotation, AxisAngleNormalisesItsAxis) {
  BonePose p;
  p.rotation_mode = RotationMode::kAxisAngle;
  EXPECT_MAT_NEAR(rotationMatrix(p), Matrix3d::Identity(), 0.0);  // Blender's default (0, 0, 1, 0)
  p.axis_angle = Eigen::Vector4d(0.5, 0, 0, 3);
  EXPECT_MAT_NEAR(rotationMatrix(p), rz(0.5), 1e-15);
  p.axis_angle = Eigen::Vector4d(-1.2, 2, 0, 0);
  EXPECT_MAT_NEAR(rotationMatrix(p), rx(-1.2), 1e-15);
  p.axis_angle = Eigen::Vector4d(0.7, 1, 1, 1);
  const Vector3d n = Vector3d(1, 1, 1).normalized();
  EXPECT_LE((rotationMatrix(p) * n - n).norm(), 1e-15);                     // the axis stays
  EXPECT_NEAR(std::acos((rotationMatrix(p).trace() - 1) / 2), 0.7, 1e-14);  // by the angle
  p.axis_angle = Eigen::Vector4d(0.7, 0, 0, 0);                             // no axis: no rotation
  EXPECT_MAT_NEAR(rotationMatrix(p), Matrix3d::Identity(), 0.0);
}

TEST(PoseChannel, IsTranslationTimesRotationTimesScale) {
  BonePose p = euler(RotationMode::kZXY, 0.2, -0.4, 0.9);
  p.location = Vector3d(0.1, -0.2, 0.3);
  p.scale = Vector3d(2, 0.5, 3);
  const Matrix4d expected = affine(ry(-0.4) * rx(0.2) * rz(0.9) * Matrix3d(p.scale.asDiagonal()), p.location);
  EXPECT_MAT_NEAR(channelMatrix(p, false), expected, 1e-15);
  // Connected bones ignore their location channel.
  EXPECT_MAT_NEAR(channelMatrix(p, true), affine(expected.topLeftCorner<3, 3>(), Vector3d::Zero()), 1e-15);
}

// ---------------------------------------------------------------------------------------------
// Chains

struct BoneSpec {
  const char* name;
  int parent;
  Vector3d head, tail;
  double roll = 0;
  bool connected = false;
};

Skeleton makeSkeleton(const std::vector<BoneSpec>& bones) {
  Skeleton s;
  const std::size_t n = bones.size();
  for (const auto& b : bones) {
    s.names.push_back(b.name);
    s.parents.push_back(b.parent);
    s.heads.push_back(b.head);
    s.tails.push_back(b.tail);
    s.rolls.push_back(b.roll);
    s.lengths.push_back((b.tail - b.head).norm());
    s.source.push_back(static_cast<std::uint32_t>(s.source.size()));
    s.connected.push_back(b.connected);
    s.inherit_rotation.push_back(1);
    s.inherit_scale.push_back(InheritScale::kFull);
    s.local_location.push_back(1);
    s.rotation_mode.push_back(RotationMode::kXYZ);
  }
  s.rest.resize(n);
  s.local_rotation.resize(n);
  s.local_head.resize(n);
  s.local_length.resize(n);
  blenderRestMatrices(s.heads.data(), s.tails.data(), s.rolls.data(), s.parents.data(), n, s.rest.data(),
                      s.local_rotation.data(), s.local_head.data(), s.local_length.data());
  return s;
}

// A: head (0, 0, 1), tail (0, 2, 1): rest = [I | (0, 0, 1)], length 2.
// B: head (0.5, 2, 1) (0.5 along A's X from A's tail), tail (0.5, 2, 2): along +Z, so its rest
//    frame is a quarter turn about X: rest = [Rx(90) | (0.5, 2, 1)], offset from A = [Rx(90) | (0.5, 2, 0)].
// C: head (0.5, 2, 2) = B's tail, tail (0.5, 3, 2): along +Y again, rest = [I | (0.5, 2, 2)].
Skeleton chain(bool c_connected = false) {
  return makeSkeleton({{"A", -1, {0, 0, 1}, {0, 2, 1}},
                       {"B", 0, {0.5, 2, 1}, {0.5, 2, 2}},
                       {"C", 1, {0.5, 2, 2}, {0.5, 3, 2}, 0, c_connected}});
}

std::vector<Matrix4d> evaluate(const Skeleton& s, const Pose& p) {
  std::vector<Matrix4d> m(s.size());
  poseMatrices(s, p, m);
  return m;
}

const Matrix3d kRx90 = rx(std::numbers::pi / 2);

TEST(PoseChain, TheChainIsWhatTheCommentSays) {
  const Skeleton s = chain();
  EXPECT_MAT_NEAR(s.rest[0], affine(Matrix3d::Identity(), Vector3d(0, 0, 1)), 1e-15);
  EXPECT_MAT_NEAR(s.rest[1], affine(kRx90, Vector3d(0.5, 2, 1)), 1e-15);
  EXPECT_MAT_NEAR(s.rest[2], affine(Matrix3d::Identity(), Vector3d(0.5, 2, 2)), 1e-15);
  EXPECT_LE((s.local_head[1] - Vector3d(0.5, 0, 0)).norm(), 1e-15);
  EXPECT_NEAR(s.local_length[0], 2.0, 1e-15);
}

TEST(PoseChain, RestPoseGivesRestMatricesAndIdentitySkinning) {
  const Skeleton s = chain();
  const auto m = evaluate(s, Pose::rest(s));
  std::vector<Matrix4d> skin(s.size());
  skinningMatrices(s, m, skin);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_MAT_NEAR(m[i], s.rest[i], 1e-15);
    EXPECT_MAT_NEAR(skin[i], Matrix4d::Identity(), 1e-15);
  }
}

// The pose of A used by the inherit-scale tests: scaled (2, 3, 0.5) along its own axes (its rest
// rotation is the identity), so its pose matrix is [S | (0, 0, 1)] with no shear.
const Vector3d kScaleA(2, 3, 0.5);
const double kTurnB = 0.3;  // B turns about its own Z, which shears it under A's uneven scale

Pose scaledParentPose(const Skeleton& s) {
  Pose p = Pose::rest(s);
  p.bones[0].scale = kScaleA;
  p.bones[1].euler = Vector3d(0, 0, kTurnB);
  return p;
}

Skeleton withModeB(InheritScale mode, bool inherit_rotation = true) {
  Skeleton s = chain();
  s.inherit_scale[1] = mode;
  s.inherit_rotation[1] = inherit_rotation;
  return s;
}

// B's head in every mode: A's pose applied to B's offset from A: [S | (0,0,1)] * (0.5, 2, 0) = (1, 6, 1).
const Vector3d kHeadB(1, 6, 1);

TEST(PoseInheritScale, FullComposesParentPoseOffsetAndChannel) {
  const Skeleton s = withModeB(InheritScale::kFull);
  const auto m = evaluate(s, scaledParentPose(s));
  // pose_B = pose_A * rest_A^-1 * rest_B * chan_B.
  const Matrix4d chan_b = affine(rz(kTurnB), Vector3d::Zero());
  EXPECT_MAT_NEAR(m[1], m[0] * s.rest[0].inverse() * s.rest[1] * chan_b, 1e-15);
  EXPECT_MAT_NEAR(m[1], affine(kScaleA.asDiagonal() * kRx90 * rz(kTurnB), kHeadB), 1e-15);
  // ... which is sheared: B's X and Y axes are no longer perpendicular.
  EXPECT_GT(std::abs(m[1].col(0).head<3>().dot(m[1].col(1).head<3>())), 0.5);
}

// FIX_SHEAR removes the shear a bone inherits through its rest offset from a sheared parent (B in
// FULL mode under the scaled A is sheared; C hangs off it at a right angle), keeping the Y axis,
// the volume and the X:Z proportion, and turning X and Z towards each other by the same angle.
// (A bone's own rotation is applied after that and can shear it again: FIX_SHEAR does not touch
// that, which is why B itself is the same in FULL and FIX_SHEAR.)
TEST(PoseInheritScale, FixShearKeepsTheYAxisAndVolumeAndSplitsTheShearSymmetrically) {
  Skeleton s = chain();
  const Pose p = scaledParentPose(s);
  EXPECT_MAT_NEAR(evaluate(withModeB(InheritScale::kFixShear), p)[1], evaluate(s, p)[1], 1e-15);
  const auto m_full = evaluate(s, p);
  s.inherit_scale[2] = InheritScale::kFixShear;
  const auto m = evaluate(s, p);
  const Matrix3d full = (m_full[1] * s.rest[1].inverse() * s.rest[2]).topLeftCorner<3, 3>();
  const Matrix3d fixed = m[2].topLeftCorner<3, 3>();
  EXPECT_MAT_NEAR(m_full[2], m_full[1] * s.rest[1].inverse() * s.rest[2], 1e-15);
  EXPECT_GT(std::abs(full.col(0).dot(full.col(2))), 0.1);  // FULL: sheared
  // Same head, Y unchanged, volume kept, no shear left:
  EXPECT_LE((m[2].topRightCorner<3, 1>() - m_full[2].topRightCorner<3, 1>()).norm(), 1e-15);
  EXPECT_LE((fixed.col(1) - full.col(1)).norm(), 1e-15);
  EXPECT_NEAR(fixed.determinant(), full.determinant(), 1e-14);
  EXPECT_NEAR(fixed.col(0).dot(fixed.col(1)), 0.0, 1e-14);
  EXPECT_NEAR(fixed.col(0).dot(fixed.col(2)), 0.0, 1e-14);
  EXPECT_NEAR(fixed.col(1).dot(fixed.col(2)), 0.0, 1e-14);
  const Vector3d y = full.col(1).normalized();
  const Vector3d x0 = full.col(0) - y * y.dot(full.col(0)), z0 = full.col(2) - y * y.dot(full.col(2));
  auto angle = [](const Vector3d& a, const Vector3d& b) { return std::acos(a.normalized().dot(b.normalized())); };
  EXPECT_GT(angle(x0, fixed.col(0)), 0.05);
  EXPECT_NEAR(angle(x0, fixed.col(0)), angle(z0, fixed.col(2)), 1e-13);
  EXPECT_NEAR(fixed.col(0).norm() / fixed.col(2).norm(), x0.norm() / z0.norm(), 1e-13);
}

TEST(PoseInheritScale, AlignedScalesTheChildAlongItsOwnAxes) {
  const Skeleton s = withModeB(InheritScale::kAligned);
  const auto m = evaluate(s, scaledParentPose(s));
  // The parent's unsheared scale (2, 3, 0.5) moves to B's own X, Y, Z.
  EXPECT_MAT_NEAR(m[1], affine(kRx90 * rz(kTurnB) * kScaleA.asDiagonal(), kHeadB), 1e-15);
}

TEST(PoseInheritScale, AverageUsesTheCubeRootOfTheParentVolume) {
  const Skeleton s = withModeB(InheritScale::kAverage);
  const auto m = evaluate(s, scaledParentPose(s));
  EXPECT_MAT_NEAR(m[1], affine(std::cbrt(3.0) * kRx90 * rz(kTurnB), kHeadB), 1e-15);
}

TEST(PoseInheritScale, NoneAndNoneLegacyDropTheParentScale) {
  for (InheritScale mode : {InheritScale::kNone, InheritScale::kNoneLegacy}) {
    const Skeleton s = withModeB(mode);
    const auto m = evaluate(s, scaledParentPose(s));
    EXPECT_MAT_NEAR(m[1], affine(kRx90 * rz(kTurnB), kHeadB), 1e-15) << inheritScaleName(mode);
  }
}

// Under a sheared parent (B in FULL mode under the scaled A), C's modes differ: NONE_LEGACY only
// normalises the parent's axes (keeping the shear), NONE makes them orthonormal around Y.
TEST(PoseInheritScale, UnderAShearedParentNoneIsOrthonormalAndNoneLegacyKeepsTheShear) {
  Skeleton s = chain();
  Pose p = scaledParentPose(s);
  p.bones[2].euler = Vector3d(0.2, 0, 0);
  const Matrix4d chan_c = affine(rx(0.2), Vector3d::Zero());
  const Matrix4d offs_c = s.rest[1].inverse() * s.rest[2];
  const Matrix4d pose_b = evaluate(s, p)[1];

  s.inherit_scale[2] = InheritScale::kNoneLegacy;
  Matrix4d unit_axes = pose_b;
  for (int c = 0; c < 3; ++c) unit_axes.block<3, 1>(0, c).normalize();
  const Matrix4d legacy = evaluate(s, p)[2];
  const Matrix3d legacy_axes = legacy.topLeftCorner<3, 3>();
  const Matrix3d expected_axes = (unit_axes * offs_c * chan_c).topLeftCorner<3, 3>();
  EXPECT_MAT_NEAR(legacy_axes, expected_axes, 1e-15);
  EXPECT_LE((legacy.topRightCorner<3, 1>() - (pose_b * offs_c).topRightCorner<3, 1>()).norm(), 1e-15);

  s.inherit_scale[2] = InheritScale::kNone;
  const Matrix4d none = evaluate(s, p)[2];
  const Matrix3d parent_axes = none.topLeftCorner<3, 3>() * (offs_c * chan_c).topLeftCorner<3, 3>().transpose();
  EXPECT_MAT_NEAR(parent_axes * parent_axes.transpose(), Matrix3d::Identity(), 1e-14);   // orthonormal
  EXPECT_LE((parent_axes.col(1) - pose_b.col(1).head<3>().normalized()).norm(), 1e-15);  // Y kept
  EXPECT_NEAR(parent_axes.determinant(), 1.0, 1e-14);
}

TEST(PoseInheritRotation, HingeKeepsTheParentsRestOrientationAndFollowsItsHead) {
  Pose p = Pose::rest(chain());
  p.bones[0].euler = Vector3d(0, 0, 0.4);  // A turns about Z and is scaled (2, 3, 0.5)
  p.bones[0].scale = kScaleA;
  p.bones[1].euler = Vector3d(0, 0, kTurnB);
  const Matrix4d pose_a = affine(rz(0.4) * kScaleA.asDiagonal(), Vector3d(0, 0, 1));
  const Vector3d head_b = (pose_a * Eigen::Vector4d(0.5, 2, 0, 1)).head<3>();
  struct Case {
    InheritScale mode;
    Matrix3d parent_axes;  // what replaces A's posed axes
    Vector3d post_scale;
  };
  const Case cases[] = {
      {InheritScale::kFull, kScaleA.asDiagonal(), Vector3d::Ones()},      // rest axes times A's axis lengths
      {InheritScale::kFixShear, kScaleA.asDiagonal(), Vector3d::Ones()},  // (no shear to fix)
      {InheritScale::kAligned, Matrix3d::Identity(), kScaleA},            // scale moved to B's axes
      {InheritScale::kAverage, std::cbrt(3.0) * Matrix3d::Identity(), Vector3d::Ones()},
      {InheritScale::kNone, Matrix3d::Identity(), Vector3d::Ones()},
      {InheritScale::kNoneLegacy, Matrix3d::Identity(), Vector3d::Ones()},
  };
  for (const Case& c : cases) {
    const Skeleton s = withModeB(c.mode, /*inherit_rotation=*/false);
    const auto m = evaluate(s, p);
    EXPECT_MAT_NEAR(m[0], pose_a, 1e-15);
    EXPECT_MAT_NEAR(m[1], affine(c.parent_axes * kRx90 * rz(kTurnB) * c.post_scale.asDiagonal(), head_b), 1e-14)
        << inheritScaleName(c.mode);
  }
  // With inherit rotation (FULL) B turns with A instead.
  const auto m = evaluate(chain(), p);
  EXPECT_MAT_NEAR(m[1], affine(rz(0.4) * kScaleA.asDiagonal() * kRx90 * rz(kTurnB), head_b), 1e-15);
}

TEST(PoseLocalLocation, RootLocationIsInTheBoneFrameOrTheArmatureFrame) {
  // A bone along +X: its rest frame is X' = (0,-1,0), Y' = (1,0,0), Z' = (0,0,1).
  Skeleton s = makeSkeleton({{"R", -1, {1, 2, 3}, {2, 2, 3}}});
  Pose p = Pose::rest(s);
  p.bones[0].location = Vector3d(0.1, 0.2, 0.3);
  p.bones[0].euler = Vector3d(0, 0.5, 0);
  const Matrix3d frame = s.rest[0].topLeftCorner<3, 3>();
  EXPECT_MAT_NEAR(frame, (Matrix3d() << 0, 1, 0, -1, 0, 0, 0, 0, 1).finished(), 1e-15);
  EXPECT_MAT_NEAR(evaluate(s, p)[0], affine(frame * ry(0.5), Vector3d(1.2, 1.9, 3.3)), 1e-15);  // local
  s.local_location[0] = 0;
  EXPECT_MAT_NEAR(evaluate(s, p)[0], affine(frame * ry(0.5), Vector3d(1.1, 2.2, 3.3)), 1e-15);  // armature axes
}

TEST(PoseLocalLocation, ChildLocationIsInItsOwnFrameOrInItsParentsPosedAxes) {
  Skeleton s = chain();
  Pose p = Pose::rest(s);
  p.bones[0].euler = Vector3d(0, 0, 0.4);
  p.bones[1].location = Vector3d(0.1, 0.2, 0.3);
  const Matrix4d pose_a = affine(rz(0.4), Vector3d(0, 0, 1));
  const Matrix4d offs_b = affine(kRx90, Vector3d(0.5, 2, 0));
  // Local: the location moves B along its own posed axes.
  EXPECT_MAT_NEAR(evaluate(s, p)[1], pose_a * offs_b * affine(Matrix3d::Identity(), p.bones[1].location), 1e-15);
  // Not local: along A's posed axes (B's rest rotation relative to A is not applied to it).
  s.local_location[1] = 0;
  const Vector3d head = (pose_a * offs_b).topRightCorner<3, 1>() + rz(0.4) * p.bones[1].location;
  EXPECT_MAT_NEAR(evaluate(s, p)[1], affine(rz(0.4) * kRx90, head), 1e-15);
}

TEST(PoseConnected, ConnectedBonesIgnoreTheirLocation) {
  const Skeleton s = chain(/*c_connected=*/true);
  Pose p = Pose::rest(s);
  p.bones[1].euler = Vector3d(0.3, 0, 0);
  const Matrix4d without = evaluate(s, p)[2];
  p.bones[2].location = Vector3d(1, 2, 3);
  EXPECT_MAT_NEAR(evaluate(s, p)[2], without, 0.0);
  // C's head stays on B's posed tail.
  const auto m = evaluate(s, p);
  EXPECT_LE((m[2].topRightCorner<3, 1>() - (m[1] * Eigen::Vector4d(0, 1, 0, 1)).head<3>()).norm(), 1e-15);
  const Skeleton loose = chain(false);
  EXPECT_GT(maxAbs(evaluate(loose, p)[2] - without), 0.5);
}

TEST(PoseSkinning, SkinningMatricesMoveRestPointsWithTheirBone) {
  const Skeleton s = chain();
  Pose p = Pose::rest(s);
  p.bones[0].euler = Vector3d(0.1, 0.2, 0.3);
  p.bones[1].scale = Vector3d(1.5, 0.5, 1);
  p.bones[2].location = Vector3d(0, 0.1, 0);
  const auto m = evaluate(s, p);
  std::vector<Matrix4d> skin(s.size());
  skinningMatrices(s, m, skin);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_MAT_NEAR(skin[i] * s.rest[i], m[i], 1e-15);
    const Eigen::Vector4d tail_rest(s.tails[i].x(), s.tails[i].y(), s.tails[i].z(), 1);
    EXPECT_LE(((skin[i] * tail_rest) - m[i] * Eigen::Vector4d(0, s.lengths[i], 0, 1)).norm(), 1e-14);
  }
}

// ---------------------------------------------------------------------------------------------
// Shipped rigs

struct Shipped {
  Mesh mesh;
  VertexGroups groups;
  DataSource data = DataSource::folder(test::sharedData());
};

const Shipped& shipped() {
  static const Shipped s = [] {
    Shipped out;
    auto mesh = loadBaseMesh(out.data);
    EXPECT_TRUE(mesh.ok());
    if (mesh.ok()) out.mesh = std::move(*mesh);
    auto groups = loadVertexGroups(out.data, out.mesh.vertexCount());
    EXPECT_TRUE(groups.ok());
    if (groups.ok()) out.groups = std::move(*groups);
    return out;
  }();
  return s;
}

Skeleton fitShipped(const std::string& name) {
  auto where = locateRig(shipped().data, name);
  EXPECT_TRUE(where.ok()) << name;
  if (!where.ok()) return {};
  auto rig = loadRig(shipped().data, *where);
  EXPECT_TRUE(rig.ok()) << name;
  if (!rig.ok()) return {};
  auto fit = fitRig(*rig, shipped().mesh, shipped().groups);
  EXPECT_TRUE(fit.ok()) << name;
  return fit.ok() ? fit->skeleton : Skeleton{};
}

// MPFB sets every pose bone of a standard (non-Rigify) rig to XYZ when it adds the rig.
void forceXyz(Skeleton& s) {
  for (auto& m : s.rotation_mode) m = RotationMode::kXYZ;
}

TEST(PoseShipped, RestPoseReproducesEveryRigsRestMatrices) {
  RIGFIT_REQUIRE_SHARED_DATA();
  for (const char* name : {"cmu_mb", "default", "default_no_toes", "game_engine", "game_engine_with_breast", "mixamo",
                           "mixamo_unity", "openpose", "rigify.human", "rigify.human_toes"}) {
    const Skeleton s = fitShipped(name);
    ASSERT_GT(s.size(), 0u) << name;
    const auto m = evaluate(s, Pose::rest(s));
    std::vector<Matrix4d> skin(s.size());
    skinningMatrices(s, m, skin);
    double dm = 0, ds = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      dm = std::max(dm, maxAbs(m[i] - s.rest[i]));
      ds = std::max(ds, maxAbs(skin[i] - Matrix4d::Identity()));
    }
    EXPECT_LE(dm, 1e-13) << name;  // measured: <= 2.3e-14 (default)
    EXPECT_LE(ds, 1e-13) << name;
  }
}

// Exactness. The pose matrices of fully inheriting bones are computed with the floating-point
// operations, in the order, of the generic Eigen products they replaced; on the baseline x86-64
// build (SSE2 packets, no FMA) they equal those bit for bit, signed zeros included, so outputs
// written with every digit do not change. Elsewhere Eigen's own products round differently and
// only the tolerances above apply. (Euler matrices follow Blender's closed form instead:
// PoseGolden.EulerMatricesEqualBlendersInFloat.)
#if defined(__x86_64__) && !defined(__FMA__) && !defined(__AVX__)
bool sameBits(const double* a, const double* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(double)) == 0; }

// Angles that poses use: random ones, signed zeros and right angles.
double someAngle(std::mt19937& rng) {
  switch (rng() % 6) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return std::numbers::pi / 2;
    default: return std::uniform_real_distribution<double>(-3.2, 3.2)(rng);
  }
}

// rotationMatrix as three generic axis rotations (the first axis of the order applied first).
Matrix3d composedEuler(RotationMode mode, const Vector3d& e) {
  static constexpr int kAxes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  Matrix3d r = Matrix3d::Identity();
  for (int axis : kAxes[static_cast<int>(mode) - 1]) {
    const double c = std::cos(e[axis]), s = std::sin(e[axis]);
    Matrix3d m = Matrix3d::Identity();
    const int a = (axis + 1) % 3, b = (axis + 2) % 3;
    m(a, a) = c;
    m(a, b) = -s;
    m(b, a) = s;
    m(b, b) = c;
    r = m * r;
  }
  return r;
}

// The closed form (Blender's eulO_to_mat3) against the three axis rotations composed: the same
// matrix to rounding, in every order (parity orders included).
TEST(PoseExactness, EulerMatricesEqualComposedAxisRotations) {
  std::mt19937 rng(11);
  for (int k = 0; k < 20000; ++k) {
    const auto mode = static_cast<RotationMode>(1 + k % 6);
    const Vector3d e(someAngle(rng), someAngle(rng), someAngle(rng));
    const Matrix3d got = rotationMatrix(euler(mode, e.x(), e.y(), e.z())), want = composedEuler(mode, e);
    ASSERT_LE(maxAbs(got - want), 1e-15) << rotationModeName(mode) << " " << e.transpose() << "\n" << got << "\n" << want;
  }
}

TEST(PoseExactness, PoseMatricesEqualGenericProductsBitForBit) {
  RIGFIT_REQUIRE_SHARED_DATA();
  for (const char* name : {"game_engine", "rigify.human"}) {
    Skeleton s = fitShipped(name);
    ASSERT_GT(s.size(), 0u) << name;
    s.constraints.clear();  // the plain chain: parent pose * offset * channel for each bone
    s.eval_order.clear();
    std::mt19937 rng(5);
    for (int k = 0; k < 8; ++k) {
      Pose pose = Pose::rest(s);
      for (BonePose& b : pose.bones) {
        b.rotation_mode = static_cast<RotationMode>(rng() % 8);
        b.euler = Vector3d(someAngle(rng), someAngle(rng), someAngle(rng));
        b.quaternion = Eigen::Vector4d(someAngle(rng), someAngle(rng), someAngle(rng), someAngle(rng));
        b.axis_angle = Eigen::Vector4d(someAngle(rng), someAngle(rng), someAngle(rng), someAngle(rng));
        if (k % 2) b.location = Vector3d(someAngle(rng), someAngle(rng), someAngle(rng)) * 0.1;
        if (k % 4 == 3) b.scale = Vector3d(0.5, 1.0, 2.0) + 0.1 * Vector3d(someAngle(rng), someAngle(rng), someAngle(rng));
      }
      const auto got = evaluate(s, pose);
      std::vector<Matrix4d> want(s.size());
      for (std::size_t i = 0; i < s.size(); ++i) {
        const bool full = (s.inherit_rotation.empty() || s.inherit_rotation[i]) &&
                          (s.inherit_scale.empty() || s.inherit_scale[i] == InheritScale::kFull) &&
                          (s.local_location.empty() || s.local_location[i]);
        if (!full) {
          want[i] = got[i];  // the other inherit modes keep their own (unchanged) code
          continue;
        }
        const int p = s.parents[i];
        Matrix4d offset = s.rest[i];
        if (p >= 0) {
          offset = affine(s.local_rotation[i], s.local_head[i]);
          offset(1, 3) += s.local_length[static_cast<std::size_t>(p)];
          offset = Matrix4d(want[static_cast<std::size_t>(p)] * offset);
        }
        want[i] = offset * channelMatrix(pose.bones[i], p >= 0 && i < s.connected.size() && s.connected[i]);
        ASSERT_TRUE(sameBits(got[i].data(), want[i].data(), 16)) << name << " pose " << k << " bone " << s.names[i];
      }
    }
  }
}
#endif

Json readJson(const std::string& path) {
  auto j = readJsonFile(path);
  EXPECT_TRUE(j.ok()) << (j.ok() ? "" : j.error().message);
  return j.ok() ? std::move(*j) : Json();
}

TEST(PoseFile, MpfbTPosesApplyToTheirRigs) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::pair<const char*, const char*> cases[] = {{"cmu_mb", "cmu_mb_fk"},
                                                       {"default", "default_fk"},
                                                       {"default_no_toes", "default_fk"},
                                                       {"game_engine", "game_engine_fk"},
                                                       {"game_engine_with_breast", "game_engine_with_breast_fk"},
                                                       {"mixamo_unity", "mixamo_unity_fk"}};
  for (const auto& [rig, folder] : cases) {
    Skeleton s = fitShipped(rig);
    forceXyz(s);
    const std::string path = test::sharedData() + "/poses/" + folder + "/t-pose.json";
    const Json file = readJson(path);
    Pose p = Pose::rest(s);
    std::vector<PoseWarning> warnings;
    ASSERT_TRUE(applyPoseJson(file, "t-pose.json", s, p, &warnings).ok()) << rig;
    EXPECT_TRUE(warnings.empty()) << rig << ": " << (warnings.empty() ? "" : warnings[0].message);
    std::size_t rotated = 0;
    for (const auto& [name, value] : file.find("bone_rotations")->members()) {
      const int i = s.find(name);
      ASSERT_GE(i, 0) << rig << " " << name;
      const BonePose& b = p.bones[static_cast<std::size_t>(i)];
      EXPECT_EQ(b.rotation_mode, RotationMode::kXYZ);
      for (int k = 0; k < 3; ++k) EXPECT_EQ(b.euler[k], value.items()[static_cast<std::size_t>(k)].asDouble());
      ++rotated;
    }
    EXPECT_GE(rotated, 10u) << rig;
    const auto m = evaluate(s, p);
    // Posed: the arms are raised, the rest stays orthonormal (no scale in these poses).
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Matrix3d r = m[i].topLeftCorner<3, 3>();
      EXPECT_LE(maxAbs(r.transpose() * r - Matrix3d::Identity()), 1e-4) << rig << " " << s.names[i];
    }
  }
}

TEST(PoseFile, DefaultSkeletonTypesScaleTranslationsByTheMeasuredSpineAndShoulders) {
  RIGFIT_REQUIRE_SHARED_DATA();
  Skeleton s = fitShipped("default");
  forceXyz(s);
  const Json file = readJson(test::sharedData() + "/poses/default_fk/t-pose.json");
  Pose p = Pose::rest(s);
  ASSERT_TRUE(applyPoseJson(file, "t-pose.json", s, p, nullptr).ok());
  // Measured on the rest pose here (a full pose clears everything first).
  auto idx = [&](const char* n) { return static_cast<std::size_t>(s.find(n)); };
  const double spine = (s.tails[idx("spine01")] - s.heads[idx("spine05")]).norm();
  const double shoulders = (s.tails[idx("shoulder01.L")] - s.tails[idx("shoulder01.R")]).norm();
  const double fz = spine / 0.5398059663800285, fxy = shoulders / 0.348341587790574;
  const Vector3d t(0.0, 0.0002859212108887732, -0.005144631490111351);
  const Vector3d loc = p.bones[idx("root")].location;
  EXPECT_NEAR(loc.x(), 0.0, 0.0);
  EXPECT_NEAR(loc.y(), t.y() * fxy, 1e-15);
  EXPECT_NEAR(loc.z(), t.z() * fz, 1e-15);
  // Blender measured the same sizes (tests/golden/pose/default.t-pose.json's factors).
  EXPECT_NEAR(fz, 0.9566337631493327, 1e-6);
  EXPECT_NEAR(fxy, 0.9629197250546735, 1e-6);
  // A "default" type on a skeleton without those bones fails, as in MPFB.
  Skeleton ge = fitShipped("game_engine");
  Pose q = Pose::rest(ge);
  const Status st = applyPoseJson(file, "t-pose.json", ge, q, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kMismatch);
  EXPECT_EQ(
      st.error().message,
      "t-pose.json: skeleton_type: \"default_no_toes\" poses are scaled by the rig's spine and shoulders, but the "
      "skeleton has no bone \"spine05\"");
}

// ---------------------------------------------------------------------------------------------
// Pose files on the chain

Json parse(const std::string& text) {
  auto j = parseJson(text, "pose.json");
  EXPECT_TRUE(j.ok()) << (j.ok() ? "" : j.error().message);
  return j.ok() ? std::move(*j) : Json();
}

std::string poseText(const std::string& rotations, const std::string& translations = "{}",
                     const std::string& extra = "") {
  return R"({"skeleton_type": "test", "bone_rotations": )" + rotations + R"(, "bone_translations": )" + translations +
         extra + "}";
}

TEST(PoseFile, ModesAreInferredOrGivenAndTranslationsSet) {
  const Skeleton s = chain();
  Pose p = Pose::rest(s);
  const Json file =
      parse(poseText(R"({"A": [0.1, 0.2, 0.3], "B": [1, 0, 0, 0.5], "C": [0.4, 0, 0, 1]})", R"({"A": [1, 2, 3]})",
                     R"(, "bone_rotation_modes": {"C": "AXIS_ANGLE", "A": "ZYX"})"));
  std::vector<PoseWarning> w;
  ASSERT_TRUE(applyPoseJson(file, "pose.json", s, p, &w).ok());
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(p.bones[0].rotation_mode, RotationMode::kZYX);
  EXPECT_EQ(p.bones[0].euler, Vector3d(0.1, 0.2, 0.3));
  EXPECT_EQ(p.bones[0].location, Vector3d(1, 2, 3));
  EXPECT_EQ(p.bones[1].rotation_mode, RotationMode::kQuaternion);  // 4 values, no mode given
  EXPECT_EQ(p.bones[1].quaternion, Eigen::Vector4d(1, 0, 0, 0.5));
  EXPECT_EQ(p.bones[2].rotation_mode, RotationMode::kAxisAngle);
  EXPECT_EQ(p.bones[2].axis_angle, Eigen::Vector4d(0.4, 0, 0, 1));
}

TEST(PoseFile, FullPosesClearEveryBonePartialPosesOnlyTheMentionedOnes) {
  const Skeleton s = chain();
  Pose before = Pose::rest(s);
  for (auto& b : before.bones) {
    b.location = Vector3d(1, 1, 1);
    b.scale = Vector3d(2, 2, 2);
    b.euler = Vector3d(0.5, 0.5, 0.5);
  }
  const Json file = parse(poseText(R"({"B": [0, 0, 0.25]})"));
  Pose full = before;
  ASSERT_TRUE(applyPoseJson(file, "pose.json", s, full, nullptr).ok());
  for (std::size_t i : {0u, 2u}) {
    EXPECT_EQ(full.bones[i].location, Vector3d::Zero());
    EXPECT_EQ(full.bones[i].scale, Vector3d::Ones());
    EXPECT_EQ(full.bones[i].euler, Vector3d::Zero());
    EXPECT_EQ(full.bones[i].rotation_mode, RotationMode::kXYZ);  // modes stay
  }
  EXPECT_EQ(full.bones[1].euler, Vector3d(0, 0, 0.25));
  EXPECT_EQ(full.bones[1].scale, Vector3d::Ones());
  Pose partial = before;
  ASSERT_TRUE(applyPoseJson(file, "pose.json", s, partial, nullptr, /*partial=*/true).ok());
  for (std::size_t i : {0u, 2u}) {
    EXPECT_EQ(partial.bones[i].location, before.bones[i].location);
    EXPECT_EQ(partial.bones[i].scale, before.bones[i].scale);
    EXPECT_EQ(partial.bones[i].euler, before.bones[i].euler);
  }
  EXPECT_EQ(partial.bones[1].location, Vector3d::Zero());
  EXPECT_EQ(partial.bones[1].scale, Vector3d::Ones());
  EXPECT_EQ(partial.bones[1].euler, Vector3d(0, 0, 0.25));
  // An empty pose is first set up as the rest pose.
  Pose empty;
  ASSERT_TRUE(applyPoseJson(file, "pose.json", s, empty, nullptr).ok());
  EXPECT_EQ(empty.bones.size(), s.size());
}

TEST(PoseFile, UnknownBonesAreListedInOneWarning) {
  const Skeleton s = chain();
  Pose p = Pose::rest(s);
  std::vector<PoseWarning> w;
  const Json file = parse(poseText(R"({"A": [0, 0, 1], "breast_l": [0, 0, 1], "x y": [1, 0, 0, 0]})",
                                   R"({"breast_l": [0, 0, 1], "root": [0, 0, 0]})"));
  ASSERT_TRUE(applyPoseJson(file, "pose.json", s, p, &w).ok());
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].message,
            "pose.json: 3 bones not in the skeleton, ignored as MPFB ignores them: \"breast_l\", \"root\", \"x y\"");
  EXPECT_EQ(p.bones[0].euler, Vector3d(0, 0, 1));
}

TEST(PoseFile, ManyUnknownBonesAndModesAreLinear) {
  // 200000 bones the skeleton lacks, each with a rotation mode and a translation (some twice in
  // the two tables): each is listed once. Looking each name up by scanning the names seen so far
  // (and the modes object) took minutes here; hash lookups take well under a second.
  const Skeleton s = chain();
  const std::size_t n = 200000;
  std::string rot = "{", tr = "{", modes = "{";
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = "\"u" + std::to_string(i) + "\"";
    rot += (i ? ", " : "") + name + ": [0, 0, 1]";
    modes += (i ? ", " : "") + name + ": \"ZYX\"";
    if (i % 2 == 0) tr += (i ? ", " : "") + name + ": [0, 0, 0]";
  }
  rot += R"(, "B": [0, 0, 0.5]})";
  modes += R"(, "B": "ZXY"})";
  tr += "}";
  const Json file = parse(poseText(rot, tr, ", \"bone_rotation_modes\": " + modes));
  Pose p = Pose::rest(s);
  std::vector<PoseWarning> w;
  ASSERT_TRUE(applyPoseJson(file, "pose.json", s, p, &w).ok());
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].message.rfind("pose.json: 200000 bones not in the skeleton, ignored as MPFB ignores them: \"u0\", \"u2\", ", 0), 0u)
      << w[0].message.substr(0, 200);
  EXPECT_NE(w[0].message.find(", \"u30\" and 199984 more"), std::string::npos) << w[0].message.substr(0, 300);
  EXPECT_EQ(w[0].message.find("\"u32\""), std::string::npos);  // the line names 16
  ASSERT_EQ(w[0].bones.size(), n);  // the warning carries them all, each once, in file order
  EXPECT_EQ(w[0].bones[0], "u0");
  EXPECT_EQ(w[0].bones[1], "u2");
  EXPECT_EQ(w[0].bones[n / 2], "u1");
  EXPECT_EQ(w[0].bones[n - 1], "u199999");
  EXPECT_EQ(p.bones[1].rotation_mode, RotationMode::kZXY);
  EXPECT_EQ(p.bones[1].euler, Vector3d(0, 0, 0.5));
}

TEST(PoseFile, MalformedFilesAreErrorsAndLeaveThePoseAlone) {
  const Skeleton s = chain();
  const std::pair<std::string, std::string> cases[] = {
      {"[]", "pose.json: $: expected an object, found an array"},
      {R"({"bone_rotations": {}, "bone_translations": {}})",
       "pose.json: skeleton_type: missing (MPFB pose files always have it)"},
      {R"({"skeleton_type": 3, "bone_rotations": {}, "bone_translations": {}})",
       "pose.json: skeleton_type: expected a string, found an integer"},
      {R"({"skeleton_type": "t", "bone_translations": {}})",
       "pose.json: bone_rotations: missing (MPFB pose files always have it)"},
      {R"({"skeleton_type": "t", "bone_rotations": [], "bone_translations": {}})",
       "pose.json: bone_rotations: expected an object, found an array"},
      {R"({"skeleton_type": "t", "bone_rotations": {}})",
       "pose.json: bone_translations: missing (MPFB pose files always have it)"},
      {poseText(R"({"A": [0, "1", 0]})"), "pose.json: bone_rotations.A[1]: expected a number, found a string"},
      {poseText(R"({"A": [0, 1]})"),
       "pose.json: bone_rotations.A: expected [x, y, z] (radians) for rotation mode XYZ, found 2 items"},
      {poseText(R"({"A": 1.5})"), "pose.json: bone_rotations.A: expected an array of numbers, found a number"},
      {poseText(R"({"A": [0, 1, 2]})", "{}", R"(, "bone_rotation_modes": {"A": "QUATERNION"})"),
       "pose.json: bone_rotations.A: expected [w, x, y, z] for rotation mode QUATERNION, found 3 items"},
      {poseText(R"({"A": [0, 1, 2, 3, 4]})", "{}", R"(, "bone_rotation_modes": {"A": "AXIS_ANGLE"})"),
       "pose.json: bone_rotations.A: expected [angle, x, y, z] for rotation mode AXIS_ANGLE, found 5 items"},
      {poseText("{}", "{}", R"(, "bone_rotation_modes": {"upper.L": "xyz"})"),
       "pose.json: bone_rotation_modes[\"upper.L\"]: expected QUATERNION, AXIS_ANGLE or an Euler order "
       "(XYZ, XZY, YXZ, YZX, "
       "ZXY, ZYX)"},
      {poseText("{}", R"({"A": [0, 0, null]})"), "pose.json: bone_translations.A[2]: expected a number, found null"},
      {poseText("{}", R"({"A": {"x": 1}})"), "pose.json: bone_translations.A: expected [x, y, z], found an object"},
      {poseText("{}", "{}", R"(, "original_spine_length": "0.5")"),
       "pose.json: original_spine_length: expected a number, found a string"},
  };
  for (const auto& [text, message] : cases) {
    Pose p = Pose::rest(s);
    p.bones[0].euler = Vector3d(1, 2, 3);
    const Status st = applyPoseJson(parse(text), "pose.json", s, p, nullptr);
    ASSERT_FALSE(st.ok()) << text;
    EXPECT_EQ(st.error().code, ErrorCode::kSchema);
    EXPECT_EQ(st.error().message, message);
    EXPECT_EQ(p.bones[0].euler, Vector3d(1, 2, 3)) << text;
  }
  // Non-finite numbers (JSON text cannot hold them, but a built document can).
  Json file = parse(poseText(R"({"B": [0, 0, 0]})"));
  file.find("bone_rotations")->find("B")->items()[1] = Json(std::numeric_limits<double>::quiet_NaN());
  Pose p = Pose::rest(s);
  const Status st = applyPoseJson(file, "pose.json", s, p, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "pose.json: bone_rotations.B[1]: not a finite number");
}

// ---------------------------------------------------------------------------------------------
// Command-line forms

// Parses the command-line form and applies it (what the CLI does with --rotate / --rotate-quat).
Status applyText(std::string_view arg, BoneRotation::Kind kind, const Skeleton& s, Pose& p) {
  auto r = parseBoneRotation(arg, kind);
  if (!r) return r.error();
  return applyBoneRotation(*r, s, p);
}

TEST(PoseArgs, RotateSetsXyzEulerInDegrees) {
  const Skeleton s =
      makeSkeleton({{"upperarm01.L", -1, {0, 0, 0}, {0, 1, 0}}, {"mixamorig:Hips", 0, {0, 1, 0}, {0, 2, 0}}});
  constexpr auto kEuler = BoneRotation::Kind::kEulerXyzDegrees;
  Pose p;
  ASSERT_TRUE(applyText("upperarm01.L=90, -45,+30", kEuler, s, p).ok());
  ASSERT_EQ(p.bones.size(), 2u);
  EXPECT_EQ(p.bones[0].rotation_mode, RotationMode::kXYZ);
  EXPECT_NEAR(p.bones[0].euler.x(), std::numbers::pi / 2, 1e-15);
  EXPECT_NEAR(p.bones[0].euler.y(), -std::numbers::pi / 4, 1e-15);
  EXPECT_NEAR(p.bones[0].euler.z(), std::numbers::pi / 6, 1e-15);
  p.bones[1].rotation_mode = RotationMode::kQuaternion;
  ASSERT_TRUE(applyText("mixamorig:Hips=0,0,1e1", kEuler, s, p).ok());
  EXPECT_EQ(p.bones[1].rotation_mode, RotationMode::kXYZ);
  ASSERT_TRUE(applyText("mixamorig:Hips=1,0,0,1", BoneRotation::Kind::kQuaternion, s, p).ok());
  EXPECT_EQ(p.bones[1].rotation_mode, RotationMode::kQuaternion);
  EXPECT_EQ(p.bones[1].quaternion, Eigen::Vector4d(1, 0, 0, 1));
  EXPECT_MAT_NEAR(rotationMatrix(p.bones[1]), rz(std::numbers::pi / 2), 1e-15);
}

TEST(PoseArgs, MalformedArgumentsAreOneLineErrors) {
  const Skeleton s = makeSkeleton({{"spine", -1, {0, 0, 0}, {0, 1, 0}}});
  constexpr auto kEuler = BoneRotation::Kind::kEulerXyzDegrees;
  const std::pair<const char*, const char*> rotate[] = {
      {"spine", R"(rotation "spine": expected BONE=RX,RY,RZ (degrees, XYZ Euler))"},
      {"=1,2,3", R"(rotation "=1,2,3": expected BONE=RX,RY,RZ (degrees, XYZ Euler))"},
      {"spine=1,2",
       R"(rotation "spine=1,2": expected 3 comma-separated numbers RX,RY,RZ (degrees, XYZ Euler) after '=', found 2)"},
      {"spine=",
       R"(rotation "spine=": expected 3 comma-separated numbers RX,RY,RZ (degrees, XYZ Euler) after '=', found 0)"},
      {"spine=1,2,", R"(rotation "spine=1,2,": "" is not a number)"},
      {"spine=1,x,3", R"(rotation "spine=1,x,3": "x" is not a number)"},
      {"spine=1,2deg,3", R"(rotation "spine=1,2deg,3": "2deg" is not a number)"},
      {"spine=1,inf,3", R"(rotation "spine=1,inf,3": "inf" is not a finite number)"},
  };
  for (const auto& [arg, message] : rotate) {
    Pose p = Pose::rest(s);
    const Status st = applyText(arg, kEuler, s, p);
    ASSERT_FALSE(st.ok()) << arg;
    EXPECT_EQ(st.error().code, ErrorCode::kUsage);
    EXPECT_EQ(st.error().message, message);
    EXPECT_EQ(replaceSubject(st.error(), "--rotate").message, "--rotate" + std::string(message).substr(8));
    EXPECT_EQ(p.bones[0].euler, Vector3d::Zero());
  }
  Pose p = Pose::rest(s);
  Status st = applyText("neck=1,2,3", kEuler, s, p);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kMismatch);
  EXPECT_EQ(st.error().message, R"(rotation: no bone "neck" in the skeleton (available: spine))");
  st = applyText("spin=1,2,3", kEuler, s, p);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, R"(rotation: no bone "spin" in the skeleton (did you mean "spine"?))");
  st = applyText("spine=1,0,0", BoneRotation::Kind::kQuaternion, s, p);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            R"(rotation "spine=1,0,0": expected 4 comma-separated numbers W,X,Y,Z (quaternion) after '=', found 3)");
  st = applyText("spine=0,0,0,0", BoneRotation::Kind::kQuaternion, s, p);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(replaceSubject(st.error(), "-q").message, R"(-q "spine=0,0,0,0": the quaternion has length 0)");
  // A typed quaternion of length 0 is refused when applied too, the pose unchanged.
  st = applyBoneRotation({"spine", BoneRotation::Kind::kQuaternion, {0, 0, 0, 0}}, s, p);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, R"(rotation of "spine": the quaternion has length 0)");
  EXPECT_EQ(p.bones[0].rotation_mode, Pose::rest(s).bones[0].rotation_mode);
}

// ---------------------------------------------------------------------------------------------
// Blender goldens

struct GoldenCase {
  const char* file;  // tests/golden/pose/<file>
  const char* rig;
  const char* pose_path;  // relative to the data folder (MPFB poses) or the source tree (synthetic)
  bool synthetic;
  double tolerance;
};

// Applies the test-only "bone_flags" of a synthetic pose file to the skeleton.
void applyFlags(const Json& file, Skeleton& s) {
  const Json* flags = file.find("bone_flags");
  if (!flags) return;
  for (const auto& [name, f] : flags->members()) {
    const auto i = static_cast<std::size_t>(s.find(name));
    ASSERT_LT(i, s.size()) << name;
    if (const Json* v = f.find("use_inherit_rotation")) s.inherit_rotation[i] = v->asBool();
    if (const Json* v = f.find("use_local_location")) s.local_location[i] = v->asBool();
    if (const Json* v = f.find("inherit_scale")) {
      bool found = false;
      for (InheritScale m : {InheritScale::kFull, InheritScale::kFixShear, InheritScale::kAligned,
                             InheritScale::kAverage, InheritScale::kNone, InheritScale::kNoneLegacy})
        if (v->asString() == inheritScaleName(m)) s.inherit_scale[i] = m, found = true;
      ASSERT_TRUE(found) << v->asString();
    }
  }
}

void applyScales(const Json& file, const Skeleton& s, Pose& p) {
  const Json* scales = file.find("bone_scales");
  if (!scales) return;
  for (const auto& [name, v] : scales->members()) {
    const auto i = static_cast<std::size_t>(s.find(name));
    ASSERT_LT(i, s.size()) << name;
    for (int k = 0; k < 3; ++k) p.bones[i].scale[k] = v.items()[static_cast<std::size_t>(k)].asDouble();
  }
}

// Blender 3.4's Euler matrices (mathutils Euler.to_matrix, the eulO_to_mat3 of pose channels) for
// float32 angles in every order: rigfit's double matrix rounds to Blender's float32 entries
// exactly, signed zeros included (tools/blender/euler_reference.py).
TEST(PoseGolden, EulerMatricesEqualBlendersInFloat) {
  const Json golden = readJson(test::sourceDir() + "/tests/golden/pose/euler_matrices.json");
  const Json* cases = golden.find("cases");
  ASSERT_TRUE(cases && cases->isArray());
  ASSERT_EQ(cases->size(), 1200u);
  const std::pair<const char*, RotationMode> orders[] = {{"XYZ", RotationMode::kXYZ}, {"XZY", RotationMode::kXZY},
                                                         {"YXZ", RotationMode::kYXZ}, {"YZX", RotationMode::kYZX},
                                                         {"ZXY", RotationMode::kZXY}, {"ZYX", RotationMode::kZYX}};
  std::size_t signed_zeros = 0;
  for (const Json& c : cases->items()) {
    const std::string& name = c.items()[0].asString();
    RotationMode mode = RotationMode::kQuaternion;
    for (const auto& [n, m] : orders)
      if (name == n) mode = m;
    ASSERT_NE(mode, RotationMode::kQuaternion) << name;
    const auto& a = c.items()[1].items();
    const auto& want = c.items()[2].items();
    const Matrix3d got = rotationMatrix(euler(mode, a[0].asDouble(), a[1].asDouble(), a[2].asDouble()));
    for (int r = 0; r < 3; ++r) {
      for (int col = 0; col < 3; ++col) {
        const float g = static_cast<float>(got(r, col));
        const float w = static_cast<float>(want[static_cast<std::size_t>(3 * r + col)].asDouble());
        if (w == 0.0f) ++signed_zeros;
#if defined(__FP_FAST_FMA)
        // A target with fused multiply-add may contract Blender's products and sums: one float step.
        ASSERT_LE(std::abs(g - w), std::nextafter(std::abs(w), 2.0f) - std::abs(w)) << name;
        continue;
#endif
        ASSERT_EQ(std::memcmp(&g, &w, sizeof g), 0) << name << " " << a[0].asDouble() << " " << a[1].asDouble() << " "
                                                    << a[2].asDouble() << " entry " << r << "," << col << ": " << g << " vs " << w;
      }
    }
  }
  EXPECT_GT(signed_zeros, 500u);  // the zero angles' entries, whose signs are compared too
}

TEST(PoseGolden, PoseMatricesMatchBlender) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::string dir = test::sourceDir() + "/tests/golden/pose/";
  // Tolerances: Blender's numbers are float32 (pose channels, rest frames and every product), and
  // its rest frames already differ from rigfit's double ones by up to 5e-5 (the eyes of
  // mixamo_unity: 2e-5), or 5e-4 for the default rig's toes near -Y (tests/golden/blender/README.md).
  // A posed bone carries its rest frame's difference, so the pose matrices get the same
  // tolerances; the skinning matrices, where each bone's own rest frame cancels, agree to 5e-6.
  const GoldenCase cases[] = {
      {"game_engine.t-pose.json", "game_engine", "poses/game_engine_fk/t-pose.json", false, 5e-5},
      {"cmu_mb.t-pose.json", "cmu_mb", "poses/cmu_mb_fk/t-pose.json", false, 5e-5},
      {"mixamo_unity.t-pose.json", "mixamo_unity", "poses/mixamo_unity_fk/t-pose.json", false, 5e-5},
      {"default.t-pose.json", "default", "poses/default_fk/t-pose.json", false, 6e-4},
      {"game_engine.synthetic_limbs.json", "game_engine", "tests/golden/pose/synthetic_limbs.pose.json", true, 5e-5},
      {"game_engine.synthetic_hinge.json", "game_engine", "tests/golden/pose/synthetic_hinge.pose.json", true, 5e-5},
      {"mixamo.synthetic_connected.json", "mixamo", "tests/golden/pose/synthetic_connected.pose.json", true, 5e-5},
  };
  for (const GoldenCase& c : cases) {
    const Json golden = readJson(dir + c.file);
    ASSERT_TRUE(golden.isObject()) << c.file;
    EXPECT_EQ(golden.find("rig")->asString(), c.rig);
    Skeleton s = fitShipped(c.rig);
    forceXyz(s);
    const Json file = readJson((c.synthetic ? test::sourceDir() : test::sharedData()) + "/" + c.pose_path);
    applyFlags(file, s);
    Pose p = Pose::rest(s);
    std::vector<PoseWarning> warnings;
    ASSERT_TRUE(applyPoseJson(file, c.pose_path, s, p, &warnings).ok()) << c.file;
    EXPECT_TRUE(warnings.empty()) << c.file;
    applyScales(file, s, p);
    const auto m = evaluate(s, p);

    // Blender's rest matrices for the same rig and body (tests/golden/blender), for its skinning
    // matrices pose * rest^-1: they cancel the float32 noise of each bone's own rest frame, which
    // dominates the pose matrices' differences near -Y.
    const Json rest_golden = readJson(test::sourceDir() + "/tests/golden/blender/" + c.rig + ".base.json");
    std::vector<Matrix4d> blender_rest(s.size(), Matrix4d::Identity());
    for (const Json& b : rest_golden.find("bones")->items()) {
      const auto i = static_cast<std::size_t>(s.find(b.items()[0].asString()));
      ASSERT_LT(i, s.size());
      for (std::size_t k = 0; k < 12; ++k)
        blender_rest[i](static_cast<int>(k / 4), static_cast<int>(k % 4)) = b.items()[4].items()[k].asDouble();
    }
    std::vector<Matrix4d> skin(s.size());
    skinningMatrices(s, m, skin);

    const auto& bones = golden.find("bones")->items();
    ASSERT_EQ(bones.size(), s.size()) << c.file;
    double worst = 0, worst_axes = 0, worst_head = 0, worst_skin = 0;
    std::string worst_bone, worst_skin_bone;
    for (const Json& b : bones) {
      const auto i = static_cast<std::size_t>(s.find(b.items()[0].asString()));
      ASSERT_LT(i, s.size()) << b.items()[0].asString();
      Matrix4d blender = Matrix4d::Identity();
      for (std::size_t k = 0; k < 12; ++k)
        blender(static_cast<int>(k / 4), static_cast<int>(k % 4)) = b.items()[1].items()[k].asDouble();
      const Matrix4d d = m[i] - blender;
      worst_axes = std::max(worst_axes, maxAbs(d.topLeftCorner<3, 3>()));
      worst_head = std::max(worst_head, maxAbs(d.topRightCorner<3, 1>()));
      if (maxAbs(d) > worst) worst = maxAbs(d), worst_bone = s.names[i];
      const double ds = maxAbs(skin[i] - blender * blender_rest[i].inverse());
      if (ds > worst_skin) worst_skin = ds, worst_skin_bone = s.names[i];
    }
    std::printf("[ golden   ] %-34s pose max |d| %.2e (axes %.2e, heads %.2e m) at %s; skinning max |d| %.2e at %s\n",
                c.file, worst, worst_axes, worst_head, worst_bone.c_str(), worst_skin, worst_skin_bone.c_str());
    EXPECT_LE(worst, c.tolerance) << c.file << ": " << worst_bone;
    EXPECT_LE(worst_head, 5e-6) << c.file;
    EXPECT_LE(worst_skin, 1e-5) << c.file << ": " << worst_skin_bone;
  }
}

}  // namespace
}  // namespace rigfit
