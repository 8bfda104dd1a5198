// Constraint evaluation with Blender 3.4's semantics (blenkernel constraint.c, armature.c), in
// double precision, for an armature object at the origin (its world matrix is the identity, so
// WORLD and POSE space coincide):
//   stack            BKE_constraints_solve: per constraint the owner matrix moves from world into
//                    owner_space, the constraint replaces it, it moves back, and an influence < 1
//                    blends old and new in world space (interp_m4_m4m4: polar decomposition,
//                    slerp of the rotation, lerp of the stretch and the location)
//   spaces           BKE_constraint_mat_convertspace for pose channels
//   target matrices  constraint_target_to_mat4: head_tail along the posed bone or, with
//                    use_bbone_shape on a bendy target (segments > 1), along its posed B-Bone
//                    curve: the two joints around head_tail (PoseBone.bbone_segment_matrix, from
//                    bbone.cpp) give the point, their location interpolated, in the target's pose
//                    matrix; COPY_TRANSFORMS (its default_get_tarmat_full_bbone) takes the whole
//                    joint transform there, interpolated as interp_m4_m4m4 does, even at head 0.
//                    Blender 3.4 reads the flag for every type whose target goes through this
//                    function, but offers head_tail / use_bbone_shape only on COPY_LOCATION,
//                    COPY_TRANSFORMS, DAMPED_TRACK and STRETCH_TO among the types evaluated here
//                    (also LIMIT_DISTANCE, LOCKED_TRACK, TRACK_TO, PIVOT, not evaluated); a rig
//                    file's keys are honoured on any type, as head_tail always was.
//                    The curve needs the final poses of the target's handle bones: constraintOrder
//                    puts them first (Blender's BONE_SEGMENTS relations).
//   connected bones  keep their head after the stack (BKE_pose_where_is_bone)
//   ARMATURE         armdef_evaluate: a target with segments > 1 deforms the owner through the
//                    two B-Bone joints around the owner's rest head (its current location with
//                    use_current_location), the target's weight split between them as for a
//                    vertex weighted to the bone (bboneJointWeights, bbone_skinning.cpp); with
//                    use_deform_preserve_volume each joint's dual quaternion is taken against the
//                    joint's rest frame. Its handle bones are evaluated before the owner as well.
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/SVD>

#include "pose/euler_matrix.hpp"
#include "pose/pose_internal.hpp"
#include "rigfit/bbone.hpp"
#include "rigfit/constraint.hpp"
#include "skin/skinning_math.hpp"

namespace rigfit {
namespace {

using Mat4 = Eigen::Matrix4d;
using Mat3 = Eigen::Matrix3d;
using Vec3 = Eigen::Vector3d;

// ---- Rotation helpers -----------------------------------------------------------------------

// The 3x3 part of an affine matrix (copied element by element: Eigen's generic block copy is a
// call of its own, and constraints take this part of every matrix they decompose).
Mat3 linear(const Mat4& m) {
  Mat3 r;
  for (int c = 0; c < 3; ++c)
    for (int a = 0; a < 3; ++a) r(a, c) = m(a, c);
  return r;
}

// The inverse of an affine matrix (last row 0 0 0 1, as every bone matrix is): its 3x3 part
// inverted and the translation taken back through it.
// (The inverse's rows are the cross products of the columns over the determinant.)
Mat4 invertAffine(const Mat4& m) {
  const Vec3 c0 = m.col(0).head<3>(), c1 = m.col(1).head<3>(), c2 = m.col(2).head<3>();
  const Vec3 r0 = c1.cross(c2), r1 = c2.cross(c0), r2 = c0.cross(c1);
  const double inv_det = 1.0 / c0.dot(r0);
  Mat4 r;
  r.row(0) << (r0 * inv_det).transpose(), 0.0;
  r.row(1) << (r1 * inv_det).transpose(), 0.0;
  r.row(2) << (r2 * inv_det).transpose(), 0.0;
  r.row(3) << 0.0, 0.0, 0.0, 1.0;
  r.topRightCorner<3, 1>() = -(r.topLeftCorner<3, 3>() * m.topRightCorner<3, 1>());
  return r;
}

RotationMode eulerMode(EulerOrder order, RotationMode owner) {
  return order == EulerOrder::kAuto ? owner : static_cast<RotationMode>(static_cast<int>(order));
}

// The owner's Euler order for constraints: its rotation mode when that is an Euler order, else XYZ.
RotationMode ownerOrder(const Pose& pose, std::size_t bone) {
  const RotationMode m = pose.bones[bone].rotation_mode;
  return m == RotationMode::kQuaternion || m == RotationMode::kAxisAngle ? RotationMode::kXYZ : m;
}

// rotationMatrix of Euler angles in `order` (an Euler order).
Mat3 eulerToMatrix(const Vec3& euler, RotationMode order) {
  detail::Rows3 r;
  detail::eulerRows(order, euler, r);
  Mat3 m;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) m(a, b) = r[a][b];
  return m;
}

// The two Euler triples of a rotation matrix with unit columns (Blender's mat3_normalized_to_eulo2);
// only the first when `e2` is null.
void matrixToEulerPair(const Mat3& m, RotationMode order, Vec3& e1, Vec3* e2) {
  const auto [i, j, k, parity] = detail::eulerAxes(order);
  const double cy = std::hypot(m(i, i), m(j, i));
  if (cy > 16.0 * FLT_EPSILON) {
    e1[i] = std::atan2(m(k, j), m(k, k));
    e1[j] = std::atan2(-m(k, i), cy);
    e1[k] = std::atan2(m(j, i), m(i, i));
    if (e2) {
      (*e2)[i] = std::atan2(-m(k, j), -m(k, k));
      (*e2)[j] = std::atan2(-m(k, i), -cy);
      (*e2)[k] = std::atan2(-m(j, i), -m(i, i));
    }
  } else {
    e1[i] = std::atan2(-m(j, k), m(j, j));
    e1[j] = std::atan2(-m(k, i), cy);
    e1[k] = 0.0;
    if (e2) *e2 = e1;
  }
  if (parity) e1 = -e1;
  if (parity && e2) *e2 = -*e2;
}

Mat3 unitColumns(const Mat3& m) {
  Mat3 r;
  for (int c = 0; c < 3; ++c) {
    Vec3 v;
    detail::normalizeInto(v, m.col(c));
    r.col(c) = v;
  }
  return r;
}

// mat3_to_eulO / mat4_to_eulO: the triple with the smaller sum of magnitudes.
// Each angle of the second triple is the supplement of the first's (|e2| = pi - |e1|; equal
// triples in the degenerate case), so its magnitudes sum to 3 pi minus the first's: away from
// 3 pi / 2 the first's sum decides without computing the second.
Vec3 matrixToEuler(const Mat3& m, RotationMode order) {
  const Mat3 u = unitColumns(m);
  Vec3 e1, e2;
  matrixToEulerPair(u, order, e1, nullptr);
  if (e1.cwiseAbs().sum() < 1.5 * std::numbers::pi - 1e-9) return e1;
  matrixToEulerPair(u, order, e1, &e2);
  return e1.cwiseAbs().sum() > e2.cwiseAbs().sum() ? e2 : e1;
}

// Blender 3.4's compatible_eul: wraps each angle by whole turns towards `old`.
void compatibleEuler(Vec3& eul, const Vec3& old) {
  const double pi_thresh = static_cast<double>(5.1f);
  const double pi_x2 = 2.0 * std::numbers::pi;
  Vec3 d;
  for (int i = 0; i < 3; ++i) {
    d[i] = eul[i] - old[i];
    if (d[i] > pi_thresh) {
      eul[i] -= std::floor(d[i] / pi_x2 + 0.5) * pi_x2;
      d[i] = eul[i] - old[i];
    } else if (d[i] < -pi_thresh) {
      eul[i] += std::floor(-d[i] / pi_x2 + 0.5) * pi_x2;
      d[i] = eul[i] - old[i];
    }
  }
  const double big = static_cast<double>(3.2f), small = static_cast<double>(1.6f);
  for (int i = 0; i < 3; ++i) {
    const int a = (i + 1) % 3, b = (i + 2) % 3;
    if (std::abs(d[i]) > big && std::abs(d[a]) < small && std::abs(d[b]) < small) eul[i] += d[i] > 0.0 ? -pi_x2 : pi_x2;
  }
}

// mat4_to_compatible_eulO: of the two triples, the one nearer `old` after wrapping.
Vec3 matrixToCompatibleEuler(const Mat3& m, const Vec3& old, RotationMode order) {
  Vec3 e1, e2;
  matrixToEulerPair(unitColumns(m), order, e1, &e2);
  compatibleEuler(e1, old);
  compatibleEuler(e2, old);
  return (e1 - old).cwiseAbs().sum() > (e2 - old).cwiseAbs().sum() ? e2 : e1;
}

using detail::matrixToQuat;  // Blender's mat3_to_quat

// mat3_to_rot_size: unit axes and their lengths; a negative determinant negates both.
void rotSize(const Mat3& m, Mat3& rot, Vec3& size) {
  for (int c = 0; c < 3; ++c) {
    Vec3 v;
    size[c] = detail::normalizeInto(v, m.col(c));
    rot.col(c) = v;
  }
  if (rot.determinant() < 0.0) {
    rot = -rot;
    size = -size;
  }
}

Mat4 locRotSize(const Vec3& loc, const Mat3& rot, const Vec3& size) {
  Mat4 r = Mat4::Identity();
  r.topLeftCorner<3, 3>() = rot * size.asDiagonal();
  r.topRightCorner<3, 1>() = loc;
  return r;
}

Vec3 axisLengths(const Mat4& m) { return {m.col(0).head<3>().norm(), m.col(1).head<3>().norm(), m.col(2).head<3>().norm()}; }

// The orthogonal factor U of A = U P by Higham's Newton iteration X <- (g X + (g X)^-T) / 2,
// scaled by g = |det X|^(-1/3) until the steps are small, then unscaled: it converges
// quadratically for any non-singular matrix (bone matrices: a handful of steps). False when A is
// (nearly) singular or the iteration does not settle; U is then not unique.
bool newtonPolar(const Mat3& a, Mat3& u) {
  const double norm = a.norm();
  if (!(norm > 0.0) || !std::isfinite(norm)) return false;
  const double cube = norm * norm * norm;
  Mat3 x = a;
  bool scaled = true, last = false;
  for (int step = 0; step < 32; ++step) {
    Mat3 cof;  // X^-T = cofactor(X) / det X
    cof.col(0) = x.col(1).cross(x.col(2));
    cof.col(1) = x.col(2).cross(x.col(0));
    cof.col(2) = x.col(0).cross(x.col(1));
    const double det = x.col(0).dot(cof.col(0));
    if (!(std::abs(det) > 1e-12 * cube)) return false;
    // (A determinant this near 1 gains nothing from scaling.)
    const double g = scaled && std::abs(std::abs(det) - 1.0) > 1e-3 ? std::cbrt(1.0 / std::abs(det)) : 1.0;
    const Mat3 next = (g * x + cof / (g * det)) * 0.5;
    const double change = (next - x).norm();
    x = next;
    if (last) {
      u = x;
      return true;
    }
    if (change < 1e-2) scaled = false;
    last = change < 1e-9;  // the next step squares the error: it is the last
  }
  return false;
}

// interp_m3_m3m3 / interp_m4_m4m4: polar decomposition A = U P of both, U slerped, P and the
// location interpolated linearly. Blender decomposes by SVD (U = W V*, P = V S V*); the Newton
// iteration gives the same factors of a non-singular matrix faster, and a singular one, whose U
// only the SVD's choice defines, takes the SVD.
void polar(const Mat3& a, Mat3& u, Mat3& p) {
  if (newtonPolar(a, u)) {
    p = u.transpose() * a;
    p = (p + p.transpose()) * 0.5;
  } else {
    Eigen::JacobiSVD<Mat3> svd(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
    u = svd.matrixU() * svd.matrixV().transpose();
    p = svd.matrixV() * svd.singularValues().asDiagonal() * svd.matrixV().transpose();
  }
  if (u.determinant() < 0.0) {
    u = -u;
    p = -p;
  }
}

Eigen::Quaterniond slerpShortest(const Eigen::Quaterniond& a, const Eigen::Quaterniond& b, double t) {
  double cosom = a.dot(b);
  Eigen::Vector4d qa = a.coeffs();
  if (cosom < 0.0) {
    cosom = -cosom;
    qa = -qa;
  }
  double w0 = 1.0 - t, w1 = t;
  if (1.0 - cosom > 0.0001) {
    const double omega = std::acos(cosom), sinom = std::sin(omega);
    w0 = std::sin((1.0 - t) * omega) / sinom;
    w1 = std::sin(t * omega) / sinom;
  }
  Eigen::Quaterniond r;
  r.coeffs() = w0 * qa + w1 * b.coeffs();
  return r;
}

Mat4 interpolate(const Mat4& a, const Mat4& b, double t) {
  Mat3 ua, pa, ub, pb;
  polar(linear(a), ua, pa);
  polar(linear(b), ub, pb);
  const Eigen::Quaterniond q = slerpShortest(matrixToQuat(ua), matrixToQuat(ub), t);
  Mat4 r = Mat4::Identity();
  // Not normalised: where slerp falls back to lerp, Blender uses the slightly short quaternion as is.
  r.topLeftCorner<3, 3>() = q.toRotationMatrix() * (pa + (pb - pa) * t);
  r.topRightCorner<3, 1>() = a.topRightCorner<3, 1>() + (b.topRightCorner<3, 1>() - a.topRightCorner<3, 1>()) * t;
  return r;
}

Eigen::Vector4d wxyz(const Eigen::Quaterniond& q) { return {q.w(), q.x(), q.y(), q.z()}; }

// ARMATURE with use_deform_preserve_volume blends dual quaternions as the armature modifier does
// (mat4_to_dquat, add_weighted_dq_dq, normalize_dq): the skinning's own functions.
void addDualQuat(detail::DualQuatBlend<double>& blend, const Mat4& rest, const Mat4& deform, double weight) {
  double record[detail::kSkinningDualQuatFloats];
  detail::packDualQuat(detail::skinningDualQuat(rest, deform), record);
  blend.add(record, weight);
}

Mat4 dualQuatMatrix(detail::DualQuatBlend<double>& blend, double total) {
  double m[12];
  blend.toMatrix(total, m);
  Mat4 r = Mat4::Identity();
  for (int row = 0; row < 3; ++row)
    for (int col = 0; col < 4; ++col) r(row, col) = m[4 * row + col];
  return r;
}

// ---- Evaluation --------------------------------------------------------------------------------

enum class BBoneShape : std::uint8_t { kNone, kPoint, kTransform };

class Evaluator {
 public:
  Evaluator(const Skeleton& s, const Pose& pose, std::span<Mat4> out, std::vector<std::vector<Constraint>>* capture)
      : s_(s), pose_(pose), out_(out), capture_(capture) {}

  // Bone i's stack on its pose matrix out[i]. (One Evaluator serves a pass: the parent transforms
  // it keeps come from final poses, while its target matrix depends on the owner.)
  void bone(std::size_t i) {
    target_.bone = -1;
    Mat4 m = out_[i];
    const Vec3 head = m.topRightCorner<3, 1>();
    const auto& stack = s_.constraints[i];
    for (std::size_t k = 0; k < stack.size(); ++k) solve(i, k, stack[k], m);
    const int p = s_.parents[i];
    if (p >= 0 && i < s_.connected.size() && s_.connected[i]) m.topRightCorner<3, 1>() = head;
    out_[i] = m;
  }

 private:
  // ---- Spaces: BKE_constraint_mat_convertspace with `bone` as the pose channel, `owner` as the
  // constraint's owner (cob->pchan).

  // A bone's parent transform (LOCAL -> POSE) and its inverse, kept for the pass: the poses they
  // come from (an owner's parent, a target's parent) are final when they are first needed.
  static constexpr std::size_t kNoBone = SIZE_MAX;
  struct Space {
    std::size_t bone = kNoBone;
    bool has_inverse = false;
    detail::ParentTransform t, inverse;
  };
  Space& space(std::size_t bone) {
    for (Space& sp : spaces_)
      if (sp.bone == bone) return sp;
    Space& sp = spaces_[next_space_++ % spaces_.size()];
    const int p = s_.parents[bone];
    sp.bone = bone;
    sp.has_inverse = false;
    sp.t = detail::boneParentTransform(s_, bone, p >= 0 ? &out_[static_cast<std::size_t>(p)] : nullptr);
    return sp;
  }
  Mat4 poseToLocal(std::size_t bone, const Mat4& m) {
    Space& sp = space(bone);
    if (!sp.has_inverse) {
      detail::ParentTransform& inv = sp.inverse;
      inv.rotscale = invertAffine(sp.t.rotscale);
      inv.loc = sp.t.loc_is_rotscale ? inv.rotscale : invertAffine(sp.t.loc);
      inv.loc_is_rotscale = sp.t.loc_is_rotscale;
      for (int a = 0; a < 3; ++a) inv.post_scale[a] = sp.t.post_scale[a] != 0.0 ? 1.0 / sp.t.post_scale[a] : 0.0;
      sp.has_inverse = true;
    }
    return detail::applyParentTransform(sp.inverse, m);
  }
  Mat4 localToPose(std::size_t bone, const Mat4& m) { return detail::applyParentTransform(space(bone).t, m); }
  // The rotation from the bone's rest frame to the owner's (LOCAL <-> LOCAL_OWNER_ORIENT).
  Mat4 ownerOrient(std::size_t bone, std::size_t owner) const {
    Mat4 d = invertAffine(s_.rest[owner]) * s_.rest[bone];
    d.topRightCorner<3, 1>().setZero();
    return d;
  }

  // `m` from space `from` into POSE space, in place.
  void toPose(std::size_t bone, std::size_t owner, const Mat4& custom, Mat4& m, ConstraintSpace from) {
    switch (from) {
      case ConstraintSpace::kWorld:
      case ConstraintSpace::kPose: return;
      case ConstraintSpace::kCustom: m = custom * m; return;
      case ConstraintSpace::kLocalWithParent: m = s_.rest[bone] * m; return;
      case ConstraintSpace::kLocalOwnerOrient: {
        const Mat4 d = ownerOrient(bone, owner);
        m = localToPose(bone, invertAffine(d) * m * d);
        return;
      }
      case ConstraintSpace::kLocal: m = localToPose(bone, m); return;
    }
  }
  // `m` from POSE space into space `to`, in place.
  void fromPose(std::size_t bone, std::size_t owner, const Mat4& custom, Mat4& m, ConstraintSpace to) {
    switch (to) {
      case ConstraintSpace::kWorld:
      case ConstraintSpace::kPose: return;
      case ConstraintSpace::kCustom: m = invertAffine(custom) * m; return;
      case ConstraintSpace::kLocalWithParent: m = invertAffine(s_.rest[bone]) * m; return;
      case ConstraintSpace::kLocalOwnerOrient: {
        const Mat4 d = ownerOrient(bone, owner);
        m = d * poseToLocal(bone, m) * invertAffine(d);
        return;
      }
      case ConstraintSpace::kLocal: m = poseToLocal(bone, m); return;
    }
  }

  // The last target matrix, with what it was made from and the rotation channels read from it
  // (TRANSFORM), kept while the owner's stack is solved: its constraints often share their target
  // (Rigify's helper bones: up to three on one bone, in the same space).
  struct Target {
    int bone = -1;  // -1: none kept
    double head_tail = 0.0;
    BBoneShape shape = BBoneShape::kNone;
    ConstraintSpace space = ConstraintSpace::kWorld;
    int custom = -1;  // the CUSTOM space's bone when `space` is CUSTOM
    Mat4 m;
    bool has_channels = false;
    RotationMode order = RotationMode::kXYZ;
    RotationSource mode = RotationSource::kAuto;
    Vec3 channels;
  };
  Target& target(const Constraint& c, int bone, std::size_t owner, const Mat4& custom) {
    const int custom_key = c.target_space == ConstraintSpace::kCustom ? c.space.bone : -1;
    const BBoneShape shape = bboneShape(c, bone);
    Target& t = target_;
    if (bone >= 0 && t.bone == bone && t.head_tail == c.head_tail && t.shape == shape && t.space == c.target_space && t.custom == custom_key)
      return t;
    t.m = targetMatrix(c, bone, shape, owner, custom);
    t.bone = bone;
    t.head_tail = c.head_tail;
    t.shape = shape;
    t.space = c.target_space;
    t.custom = custom_key;
    t.has_channels = false;
    return t;
  }

  // How a target bone's matrix follows its B-Bone curve (constraint_target_to_mat4): not at all
  // (use_bbone_shape off, a plain bone, or the head of a curve a point-only type reads there), by
  // the point at head_tail, or by the whole joint transform there (COPY_TRANSFORMS, at any head_tail).
  BBoneShape bboneShape(const Constraint& c, int target) const {
    if (!c.use_bbone_shape || target < 0) return BBoneShape::kNone;
    const auto t = static_cast<std::size_t>(target);
    if (t >= s_.bbones.size() || s_.bbones[t].segments <= 1) return BBoneShape::kNone;
    if (c.type == ConstraintType::kCopyTransforms) return BBoneShape::kTransform;
    return c.head_tail >= 0.000001 ? BBoneShape::kPoint : BBoneShape::kNone;
  }

  // constraint_target_to_mat4 for a bone target, in `space`.
  Mat4 targetMatrix(const Constraint& c, int target, BBoneShape shape, std::size_t owner, const Mat4& custom) {
    if (target < 0) return Mat4::Identity();  // the armature object itself: at the origin
    const auto t = static_cast<std::size_t>(target);
    Mat4 m = out_[t];
    if (shape != BBoneShape::kNone) {
      // The posed curve's two joints around head_tail (bone space; PoseBone.bbone_segment_matrix),
      // from the final poses of the target and its handles (evaluated first: constraintOrder).
      std::array<Mat4, kMaxBBoneSegments + 1> joints;
      bboneJointMatrices(s_, pose_, out_, t, false, joints);
      int index = 0;
      double blend = 0.0;
      detail::bboneSegmentAt(s_.bbones[t].segments, c.head_tail, index, blend);
      const Mat4& a = joints[static_cast<std::size_t>(index)];
      const Mat4& b = joints[static_cast<std::size_t>(index) + 1];
      if (shape == BBoneShape::kTransform) {
        m = m * interpolate(a, b, blend);
      } else {
        const Vec3 p = a.topRightCorner<3, 1>() + (b.topRightCorner<3, 1>() - a.topRightCorner<3, 1>()) * blend;
        m.topRightCorner<3, 1>() = (m * p.homogeneous()).head<3>();
      }
    } else if (c.head_tail >= 0.000001) {
      const Vec3 head = m.topRightCorner<3, 1>();
      const Vec3 tail = head + m.col(1).head<3>() * s_.lengths[t];
      m.topRightCorner<3, 1>() = head + (tail - head) * c.head_tail;
    }
    fromPose(t, owner, custom, m, c.target_space);
    return m;
  }

  static bool valid(const ConstraintTarget& t) { return t.has_target && (!t.parent_reference || t.main_bone >= 0); }
  static int boneOf(const ConstraintTarget& t) { return t.parent_reference ? t.main_bone : t.bone; }

  void solve(std::size_t i, std::size_t k, const Constraint& c, Mat4& m) {
    if (c.mute || !c.evaluated() || static_cast<float>(c.influence) == 0.0f) return;
    // Blender disables a constraint whose target is missing (no conversions, no blend).
    const bool limit = c.type == ConstraintType::kLimitLocation || c.type == ConstraintType::kLimitRotation ||
                       c.type == ConstraintType::kLimitScale;
    if (!limit && c.type != ConstraintType::kArmature && (c.targets.empty() || !valid(c.targets[0]))) return;
    for (const ConstraintTarget& t : c.targets)
      if (t.has_target && !t.subtarget.empty() && boneOf(t) < 0 && !t.parent_reference) return;  // bone removed: invalid
    const bool custom_space = c.owner_space == ConstraintSpace::kCustom || c.target_space == ConstraintSpace::kCustom;
    if (custom_space && !c.space.has_target) return;  // CUSTOM space without its object: Blender disables the constraint
    const Mat4& custom = custom_space && c.space.bone >= 0 ? out_[static_cast<std::size_t>(c.space.bone)] : identity_;
    const bool blend = static_cast<float>(c.influence) < 1.0f;
    Mat4 old;
    if (blend) old = m;
    fromPose(i, i, custom, m, c.owner_space);
    evaluate(i, k, c, custom, m);
    // Blender marks a bone's CHILD_OF "space once": its result is taken as it is, not converted
    // back from owner_space (the same for its default POSE space).
    if (c.type != ConstraintType::kChildOf) toPose(i, i, custom, m, c.owner_space);
    if (blend) m = interpolate(old, m, c.influence);
  }

  void evaluate(std::size_t i, std::size_t k, const Constraint& c, const Mat4& custom, Mat4& m) {
    if (c.type == ConstraintType::kArmature) return armature(i, c, m);
    if (c.type == ConstraintType::kLimitLocation) return limitLocation(c, m);
    if (c.type == ConstraintType::kLimitRotation) return limitRotation(i, c, m);
    if (c.type == ConstraintType::kLimitScale) return limitScale(c, m);
    if (c.targets.empty() || !valid(c.targets[0])) return;
    Target& tgt = target(c, boneOf(c.targets[0]), i, custom);
    const Mat4& target = tgt.m;
    switch (c.type) {
      case ConstraintType::kCopyLocation: return copyLocation(c, target, m);
      case ConstraintType::kCopyRotation: return copyRotation(i, c, target, m);
      case ConstraintType::kCopyScale: return copyScale(c, target, m);
      case ConstraintType::kCopyTransforms: return copyTransforms(c, target, m);
      case ConstraintType::kChildOf: return childOf(i, k, c, target, m);
      case ConstraintType::kDampedTrack: return dampedTrack(c.track_axis, target.topRightCorner<3, 1>() - m.topRightCorner<3, 1>(), m);
      case ConstraintType::kStretchTo: return stretchTo(i, k, c, target, m);
      case ConstraintType::kTransform: return transform(i, c, tgt, m);
      default: return;
    }
  }

  // ARMATURE (armdef_evaluate): the targets' deform matrices (pose * rest^-1) blended by weight,
  // linearly or as dual quaternions, applied on top of the owner. A bendy target deforms through
  // its two B-Bone joints around the owner's rest head (its current location with
  // use_current_location), with the weight split between them as for a vertex weighted to it; for
  // dual quaternions each joint is measured against its own rest frame, orthonormalised.
  void armature(std::size_t i, const Constraint& c, Mat4& m) {
    Mat4 sum = Mat4::Zero();
    detail::DualQuatBlend<double> dq;
    double total = 0.0;
    const Vec3 point = c.use_current_location ? Vec3(m.topRightCorner<3, 1>()) : Vec3(s_.rest[i].topRightCorner<3, 1>());
    for (const ConstraintTarget& t : c.targets) {
      if (static_cast<float>(t.weight) <= 0.0f) continue;
      if (!valid(t) || boneOf(t) < 0) return;
      const auto b = static_cast<std::size_t>(boneOf(t));
      if (b < s_.bbones.size() && s_.bbones[b].segments > 1) {
        // The target's joints from its final pose and its handles' (evaluated first: constraintOrder),
        // made once per pass: those poses do not change after.
        addBBoneSkinning(s_, pose_, out_, b, bbone_);
        const BBoneJointWeights split = bboneJointWeights(s_, bbone_, b, point, t.weight);
        for (std::size_t k = 0; k < 2; ++k) {
          const double w = k == 0 ? split.weight0 : split.weight1;
          if (static_cast<float>(w) == 0.0f) continue;
          const Mat4& deform = bbone_.matrices[split.joint + k];
          if (c.use_deform_preserve_volume) {
            Mat4 base = bbone_.joint_rest[split.joint + k];
            detail::orthogonalizeStableY(base, true);
            addDualQuat(dq, base, deform, w);
          } else {
            sum += w * deform;
          }
        }
      } else {
        const Mat4 deform = out_[b] * invertAffine(s_.rest[b]);
        if (c.use_deform_preserve_volume) addDualQuat(dq, s_.rest[b], deform, t.weight);
        else sum += t.weight * deform;
      }
      total += t.weight;
    }
    if (!(total > 0.0)) return;
    sum = c.use_deform_preserve_volume ? dualQuatMatrix(dq, total) : Mat4(sum / total);
    m = sum * m;
  }

  static void copyLocation(const Constraint& c, const Mat4& target, Mat4& m) {
    const Vec3 offset = c.use_offset ? Vec3(m.topRightCorner<3, 1>()) : Vec3::Zero();
    for (int a = 0; a < 3; ++a) {
      if (!c.use_xyz[static_cast<std::size_t>(a)]) continue;
      m(a, 3) = target(a, 3);
      if (c.invert_xyz[static_cast<std::size_t>(a)]) m(a, 3) = -m(a, 3);
      m(a, 3) += offset[a];
    }
  }

  void copyRotation(std::size_t i, const Constraint& c, const Mat4& target, Mat4& m) const {
    Mat3 old_rot;
    Vec3 size;
    rotSize(linear(m), old_rot, size);
    const Vec3 loc = m.topRightCorner<3, 1>();
    const RotationMode order = eulerMode(c.euler_order, ownerOrder(pose_, i));
    const Vec3 owner_euler = matrixToEuler(linear(m), order);
    Mat4 t = target;
    detail::orthogonalizeStableY(t, true);
    Vec3 eul = matrixToCompatibleEuler(linear(t), owner_euler, order);
    const bool legacy_offset = c.mix_mode == "OFFSET";
    const Vec3 fallback = legacy_offset || c.mix_mode == "REPLACE" ? owner_euler : Vec3::Zero();
    for (int a = 0; a < 3; ++a) {
      if (!c.use_xyz[static_cast<std::size_t>(a)]) {
        eul[a] = fallback[a];
        continue;
      }
      if (legacy_offset) {
        // rotate_eulO: the copied rotation followed by the owner's angle about this axis.
        Vec3 axis_angle = Vec3::Zero();
        axis_angle[a] = owner_euler[a];
        const Mat3 r = eulerToMatrix(eul, order) * eulerToMatrix(axis_angle, order);
        eul = matrixToEuler(r, order);
      }
      if (c.invert_xyz[static_cast<std::size_t>(a)]) eul[a] = -eul[a];
    }
    if (c.mix_mode == "ADD") eul += owner_euler;
    compatibleEuler(eul, owner_euler);
    Mat3 rot = eulerToMatrix(eul, order);
    if (c.mix_mode == "BEFORE") rot = rot * old_rot;
    else if (c.mix_mode == "AFTER") rot = old_rot * rot;
    m = locRotSize(loc, rot, size);
  }

  static void copyScale(const Constraint& c, const Mat4& target, Mat4& m) {
    const Vec3 obsize = axisLengths(m);
    Vec3 size;
    if (c.use_make_uniform) {
      double total = 1.0;
      if (c.use_xyz[0] && c.use_xyz[1] && c.use_xyz[2]) {
        total = std::abs(target.topLeftCorner<3, 3>().determinant());
      } else {
        const Vec3 ts = axisLengths(target);
        for (int a = 0; a < 3; ++a)
          if (c.use_xyz[static_cast<std::size_t>(a)]) total *= ts[a];
      }
      size = Vec3::Constant(std::cbrt(total));
    } else {
      size = axisLengths(target);
    }
    for (int a = 0; a < 3; ++a) size[a] = std::pow(size[a], c.power);
    if (c.use_offset) {
      if (!c.use_add) size = size.cwiseProduct(obsize);
      else size += obsize - Vec3::Ones();
    }
    for (int a = 0; a < 3; ++a)
      if ((c.use_xyz[static_cast<std::size_t>(a)] || c.use_make_uniform) && obsize[a] != 0.0)
        m.col(a).head<3>() *= size[a] / obsize[a];
  }

  // mul_m4_m4m4_aligned_scale (split = false) / mul_m4_m4m4_split_channels (split = true).
  static Mat4 mulChannels(const Mat4& a, const Mat4& b, bool split) {
    Mat3 ra, rb;
    Vec3 sa, sb;
    rotSize(linear(a), ra, sa);
    rotSize(linear(b), rb, sb);
    const Vec3 loc = split ? Vec3(a.topRightCorner<3, 1>() + b.topRightCorner<3, 1>()) : Vec3((a * b.col(3)).head<3>());
    return locRotSize(loc, ra * rb, sa.cwiseProduct(sb));
  }

  static void copyTransforms(const Constraint& c, Mat4 target, Mat4& m) {
    if (c.remove_target_shear) detail::orthogonalizeStableY(target, false);
    const std::string& mode = c.mix_mode;
    if (mode == "REPLACE") m = target;
    else if (mode == "BEFORE_FULL") m = target * m;
    else if (mode == "AFTER_FULL") m = m * target;
    else if (mode == "BEFORE") m = mulChannels(target, m, false);
    else if (mode == "AFTER") m = mulChannels(m, target, false);
    else if (mode == "BEFORE_SPLIT") m = mulChannels(target, m, true);
    else if (mode == "AFTER_SPLIT") m = mulChannels(m, target, true);
  }

  // A matrix from the channels of `m` the constraint keeps (CHILD_OF's filtered parenting).
  static Mat4 filtered(const Mat4& m, const std::array<bool, 9>& use, RotationMode order) {
    Vec3 loc = m.topRightCorner<3, 1>();
    Vec3 eul = matrixToEuler(linear(m), order);
    Vec3 size = axisLengths(m);
    for (int a = 0; a < 3; ++a) {
      if (!use[static_cast<std::size_t>(a)]) loc[a] = 0.0;
      if (!use[static_cast<std::size_t>(3 + a)]) eul[a] = 0.0;
      if (!use[static_cast<std::size_t>(6 + a)]) size[a] = 1.0;
    }
    Mat4 r = Mat4::Identity();
    r.topLeftCorner<3, 3>() = eulerToMatrix(eul, order) * size.asDiagonal();
    r.topRightCorner<3, 1>() = loc;
    return r;
  }

  void childOf(std::size_t i, std::size_t k, const Constraint& c, const Mat4& target, Mat4& m) {
    const bool all = std::all_of(c.child_of_channels.begin(), c.child_of_channels.end(), [](bool b) { return b; });
    const int tb = boneOf(c.targets[0]);
    const RotationMode target_order = tb >= 0 ? ownerOrder(pose_, static_cast<std::size_t>(tb)) : RotationMode::kXYZ;
    const Mat4 parent = all ? target : filtered(target, c.child_of_channels, target_order);
    Mat4 inverse = all ? c.inverse_matrix : filtered(c.inverse_matrix, c.child_of_channels, ownerOrder(pose_, i));
    if (c.set_inverse_pending) {
      // Bound at this evaluation (the rest pose when the skeleton is built), as Blender does.
      inverse = parent.inverse();
      if (capture_) {
        (*capture_)[i][k].inverse_matrix = inverse;
        (*capture_)[i][k].set_inverse_pending = false;
      }
    }
    const Mat4 before = m;
    m = parent * inverse * m;
    // A location channel left out keeps the owner's location on that axis.
    for (int a = 0; a < 3; ++a)
      if (!c.child_of_channels[static_cast<std::size_t>(a)]) m(a, 3) = before(a, 3);
  }

  // damptrack_do_transform: the shortest rotation turning the tracked axis towards `to`.
  static void dampedTrack(int track_axis, const Vec3& to, Mat4& m) {
    static const Vec3 kAxes[6] = {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ(), -Vec3::UnitX(), -Vec3::UnitY(), -Vec3::UnitZ()};
    Vec3 target;
    if (detail::normalizeInto(target, to) == 0.0) return;
    Vec3 axis = m.topLeftCorner<3, 3>() * kAxes[track_axis];
    if (detail::normalizeInto(axis, axis) == 0.0) axis = kAxes[track_axis];
    Vec3 raxis = axis.cross(target);
    double angle = std::acos(std::clamp(axis.dot(target), -1.0, 1.0));
    if (detail::normalizeInto(raxis, raxis) < FLT_EPSILON) {
      if (std::abs(angle) < std::numbers::pi - 0.01) return;
      angle = std::numbers::pi;
      const Vec3 other = m.topLeftCorner<3, 3>() * kAxes[(track_axis + 1) % 6];
      if (detail::normalizeInto(raxis, axis.cross(other)) == 0.0) return;
    }
    const Mat3 r = Eigen::AngleAxisd(angle, raxis).toRotationMatrix();
    Mat4 result = Mat4::Identity();
    result.topLeftCorner<3, 3>() = r * m.topLeftCorner<3, 3>();
    result.topRightCorner<3, 1>() = m.topRightCorner<3, 1>();
    m = result;
  }

  void stretchTo(std::size_t i, std::size_t k, const Constraint& c, const Mat4& target, Mat4& m) {
    if (c.keep_axis == 2) detail::orthogonalizeStableY(m, false);
    Mat4 unit = m;
    Vec3 size = detail::normalizeAxes(unit);
    m = unit;
    const Vec3 xx = m.col(0).head<3>(), zz = m.col(2).head<3>();
    Vec3 vec;
    double dist = detail::normalizeInto(vec, target.topRightCorner<3, 1>() - m.topRightCorner<3, 1>());
    dist /= size[1];
    double rest = c.rest_length;
    if (rest == 0.0) {
      // Measured at this evaluation (the rest pose when the skeleton is built), as Blender does.
      rest = dist;
      if (capture_) (*capture_)[i][k].rest_length = dist;
    }
    Vec3 scale;
    scale[1] = dist / rest;
    double bulge = std::pow(rest / dist, c.bulge);
    if (bulge > 1.0 && c.use_bulge_max) {
      const double bulge_max = std::max(c.bulge_max, 1.0);
      const double hard = std::min(bulge, bulge_max);
      const double range = bulge_max - 1.0;
      const double scale_fac = range > 0.0 ? 1.0 / range : 0.0;
      const double soft = 1.0 + range * std::atan((bulge - 1.0) * scale_fac) / (std::numbers::pi / 2);
      bulge = c.bulge_smooth * soft + (1.0 - c.bulge_smooth) * hard;  // Blender's interpf(soft, hard, smooth)
    }
    if (bulge < 1.0 && c.use_bulge_min) {
      const double bulge_min = std::clamp(c.bulge_min, 0.0, 1.0);
      const double hard = std::max(bulge, bulge_min);
      const double range = 1.0 - bulge_min;
      const double scale_fac = range > 0.0 ? 1.0 / range : 0.0;
      const double soft = 1.0 - range * std::atan((1.0 - bulge) * scale_fac) / (std::numbers::pi / 2);
      bulge = c.bulge_smooth * soft + (1.0 - c.bulge_smooth) * hard;  // Blender's interpf(soft, hard, smooth)
    }
    switch (c.volume) {
      case 0: scale[0] = scale[2] = std::sqrt(bulge); break;
      case 1: scale[0] = bulge; scale[2] = 1.0; break;
      case 2: scale[0] = 1.0; scale[2] = bulge; break;
      default: scale[0] = scale[2] = 1.0; break;
    }
    size = size.cwiseProduct(scale);
    switch (c.keep_axis) {
      case 2: dampedTrack(1, vec, m); break;
      case 0: {
        m.col(1).head<3>() = vec;
        Vec3 orth;
        detail::normalizeInto(orth, xx.cross(vec));
        m.col(2).head<3>() = orth;
        Vec3 x;
        detail::normalizeInto(x, vec.cross(orth));
        m.col(0).head<3>() = x;
        break;
      }
      default: {
        m.col(1).head<3>() = vec;
        Vec3 orth;
        detail::normalizeInto(orth, zz.cross(vec));
        m.col(0).head<3>() = -orth;
        Vec3 z;
        detail::normalizeInto(z, vec.cross(orth));
        m.col(2).head<3>() = z;
        break;
      }
    }
    detail::scaleAxes(m, size);
  }

  static void limitLocation(const Constraint& c, Mat4& m) {
    for (int a = 0; a < 3; ++a) {
      const auto u = static_cast<std::size_t>(a);
      if (c.use_min[u] && m(a, 3) < c.min[u]) m(a, 3) = c.min[u];
      if (c.use_max[u] && m(a, 3) > c.max[u]) m(a, 3) = c.max[u];
    }
  }

  void limitRotation(std::size_t i, const Constraint& c, Mat4& m) const {
    detail::orthogonalizeStableY(m, false);
    if (!c.use_limit[0] && !c.use_limit[1] && !c.use_limit[2]) return;
    const RotationMode order = eulerMode(c.euler_order, ownerOrder(pose_, i));
    const Vec3 loc = m.topRightCorner<3, 1>();
    const Vec3 size = axisLengths(m);
    Vec3 eul = matrixToEuler(linear(m), order);
    for (int a = 0; a < 3; ++a) {
      const auto u = static_cast<std::size_t>(a);
      if (!c.use_limit[u]) continue;
      if (eul[a] < c.min[u]) eul[a] = c.min[u];
      if (eul[a] > c.max[u]) eul[a] = c.max[u];
    }
    m = Mat4::Identity();
    m.topLeftCorner<3, 3>() = eulerToMatrix(eul, order) * size.asDiagonal();
    m.topRightCorner<3, 1>() = loc;
  }

  static void limitScale(const Constraint& c, Mat4& m) {
    const Vec3 obsize = axisLengths(m);
    Vec3 size = obsize;
    for (int a = 0; a < 3; ++a) {
      const auto u = static_cast<std::size_t>(a);
      if (c.use_min[u] && size[a] < c.min[u]) size[a] = c.min[u];
      if (c.use_max[u] && size[a] > c.max[u]) size[a] = c.max[u];
    }
    for (int a = 0; a < 3; ++a)
      if (obsize[a] != 0.0) m.col(a).head<3>() *= size[a] / obsize[a];
  }

  // BKE_driver_target_matrix_to_rot_channels for TRANSFORM's rotation input (angles, all channels).
  static Vec3 rotationChannels(const Mat4& target, RotationMode auto_order, RotationSource mode) {
    const auto n = static_cast<int>(mode);
    if (mode == RotationSource::kAuto) return matrixToEuler(linear(target), auto_order);
    if (n <= static_cast<int>(RotationSource::kZYX)) return matrixToEuler(linear(target), static_cast<RotationMode>(n));
    const Eigen::Quaterniond q = matrixToQuat(linear(target));
    // A quaternion component as a pseudo-angle: 2 asin(c).
    auto angle = [](double c) { return 2.0 * std::asin(std::clamp(c, -1.0, 1.0)); };
    if (mode == RotationSource::kQuaternion) return {angle(q.x()), angle(q.y()), angle(q.z())};
    // Swing and twist about one axis: the twist angle on that axis, the swing's pseudo-angles on the others.
    const int axis = n - static_cast<int>(RotationSource::kSwingTwistX);
    const Eigen::Vector4d v = wxyz(q);  // w >= 0
    const double half = std::atan2(v[1 + axis], v[0]);
    Eigen::Quaterniond twist_inv(std::cos(half), 0, 0, 0);
    twist_inv.coeffs()[axis] = -std::sin(half);  // coeffs() is x, y, z, w
    const Eigen::Vector4d swing = wxyz(q * twist_inv);
    Vec3 out;
    for (int a = 0; a < 3; ++a) out[a] = a == axis ? 2.0 * half : angle(swing[1 + a]);
    return out;
  }

  void transform(std::size_t i, const Constraint& c, Target& tgt, Mat4& m) const {
    const Mat4& target = tgt.m;
    const auto from = static_cast<std::size_t>(c.map_from);
    Vec3 d = Vec3::Zero();
    switch (c.map_from) {
      case TransformChannel::kScale:
        d = axisLengths(target);
        if (target.topLeftCorner<3, 3>().determinant() < 0.0) d = -d;
        break;
      case TransformChannel::kRotation: {
        const RotationMode order = ownerOrder(pose_, i);
        if (!tgt.has_channels || tgt.order != order || tgt.mode != c.from_rotation_mode) {
          tgt.channels = rotationChannels(target, order, c.from_rotation_mode);
          tgt.has_channels = true;
          tgt.order = order;
          tgt.mode = c.from_rotation_mode;
        }
        d = tgt.channels;
        break;
      }
      case TransformChannel::kLocation: d = target.topRightCorner<3, 1>(); break;
    }
    const auto& from_min = c.ranges[from][0];
    const auto& from_max = c.ranges[from][1];
    Vec3 sval;
    for (int a = 0; a < 3; ++a) {
      const auto u = static_cast<std::size_t>(a);
      if (!c.use_motion_extrapolate) {
        if (d[a] < from_min[u]) d[a] = from_min[u];
        else if (d[a] > from_max[u]) d[a] = from_max[u];
      }
      const double range = from_max[u] - from_min[u];
      sval[a] = static_cast<float>(range) != 0.0f ? (d[a] - from_min[u]) / range : 0.0;
    }
    const RotationMode order = c.map_to == TransformChannel::kRotation ? eulerMode(c.to_euler_order, ownerOrder(pose_, i)) : ownerOrder(pose_, i);
    Mat3 rot;
    Vec3 size;
    rotSize(linear(m), rot, size);
    Vec3 loc = m.topRightCorner<3, 1>();
    const auto to = static_cast<std::size_t>(c.map_to);
    const auto& to_min = c.ranges[to][2];
    const auto& to_max = c.ranges[to][3];
    Vec3 v;
    for (int a = 0; a < 3; ++a) {
      const auto u = static_cast<std::size_t>(a);
      v[a] = to_min[u] + sval[c.map_to_from[u]] * (to_max[u] - to_min[u]);
    }
    switch (c.map_to) {
      case TransformChannel::kScale:
        size = c.mix_mode_scale == "MULTIPLY" ? Vec3(size.cwiseProduct(v)) : v;
        break;
      case TransformChannel::kRotation:
        if (c.mix_mode_rot == "REPLACE") rot = eulerToMatrix(v, order);
        else if (c.mix_mode_rot == "BEFORE") rot = eulerToMatrix(v, order) * rot;
        else if (c.mix_mode_rot == "AFTER") rot = rot * eulerToMatrix(v, order);
        else rot = eulerToMatrix(v + matrixToEuler(rot, order), order);
        break;
      case TransformChannel::kLocation:
        loc = c.mix_mode == "REPLACE" ? v : Vec3(loc + v);
        break;
    }
    m = locRotSize(loc, rot, size);
  }

  const Skeleton& s_;
  const Pose& pose_;
  std::span<Mat4> out_;
  std::vector<std::vector<Constraint>>* capture_;
  const Mat4 identity_ = Mat4::Identity();  // the armature object's matrix (at the origin)
  std::array<Space, 4> spaces_;  // the owner and up to three targets
  std::size_t next_space_ = 0;
  Target target_;
  BBoneSkinning bbone_;  // the joints of the ARMATURE constraints' bendy targets met in the pass
};

}  // namespace

namespace detail {

void constrainedPosePass(const Skeleton& skeleton, const Pose& pose, std::span<Eigen::Matrix4d> out,
                         std::vector<std::vector<Constraint>>* capture) {
  const std::size_t n = skeleton.size();
  const bool ordered = skeleton.eval_order.size() == n;
  Evaluator evaluator(skeleton, pose, out, capture);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = ordered ? skeleton.eval_order[k] : k;
    poseBone(skeleton, pose, i, out);
    if (i < skeleton.constraints.size() && !skeleton.constraints[i].empty()) evaluator.bone(i);
  }
}

Status constraintOrder(std::size_t n, const int* parents, std::span<const std::uint8_t> connected, std::span<const BBone> bbones,
                       const std::vector<std::vector<Constraint>>& constraints, std::span<const std::string> names,
                       std::string_view label, std::vector<std::uint32_t>& order) {
  order.clear();
  // Bone i depends on its parent and on its constraints' target and space bones.
  auto forEachTarget = [&constraints](std::size_t i, auto&& f) -> Status {
    if (i >= constraints.size()) return {};
    for (const Constraint& c : constraints[i]) {
      for (const ConstraintTarget& t : c.targets) RIGFIT_TRY(f(c, t.parent_reference ? t.main_bone : t.bone));
      RIGFIT_TRY(f(c, c.space.bone));
    }
    return {};
  };
  // A constraint that follows a bendy target's B-Bone shape (use_bbone_shape; ARMATURE always, on
  // each target) also depends on the target's handle bones, whose final poses shape the curve
  // (Blender: the target's BONE_SEGMENTS step waits for them). The owner itself among them is a cycle.
  bool handles = false;
  auto forEachHandle = [&](std::size_t i, auto&& f) {
    if (i >= constraints.size() || bbones.empty()) return;
    for (const Constraint& c : constraints[i]) {
      if (c.mute || !c.evaluated() || c.targets.empty()) continue;
      const bool armature = c.type == ConstraintType::kArmature;
      if (!armature && !c.use_bbone_shape) continue;
      for (std::size_t k = 0; k < (armature ? c.targets.size() : 1); ++k) {
        const ConstraintTarget& t = c.targets[k];
        const int b = t.parent_reference ? t.main_bone : t.bone;
        if (b < 0 || static_cast<std::size_t>(b) >= n || static_cast<std::size_t>(b) >= bbones.size() ||
            bbones[static_cast<std::size_t>(b)].segments <= 1)
          continue;
        int prev = -1, next = -1;
        bboneHandleBones(n, parents, connected, bbones, static_cast<std::size_t>(b), prev, next);
        for (const int h : {prev, next})
          if (h >= 0 && static_cast<std::size_t>(h) < n) {
            handles = true;
            f(c, static_cast<std::size_t>(b), static_cast<std::size_t>(h));
          }
      }
    }
  };
  bool ordered = true;  // every dependency before its bone: index order works
  for (std::size_t i = 0; i < n; ++i) {
    ordered = ordered && parents[i] < static_cast<int>(i);
    RIGFIT_TRY(forEachTarget(i, [&](const Constraint& c, int b) -> Status {
      if (b < 0) return {};
      if (static_cast<std::size_t>(b) >= n)
        return makeError(ErrorCode::kUsage, std::string(label) + ": " + jsonPathKey("bones", names[i]) + ": constraint \"" + c.name +
                                                "\" targets bone index " + std::to_string(b) + " of a skeleton of " + std::to_string(n));
      if (static_cast<std::size_t>(b) == i && !c.mute && c.evaluated())
        return makeError(ErrorCode::kSchema, std::string(label) + ": " + jsonPathKey("bones", names[i]) + ": constraint \"" + c.name +
                                                 "\" targets its own bone");
      ordered = ordered && static_cast<std::size_t>(b) <= i;
      return {};
    }));
    Status handle_status;
    forEachHandle(i, [&](const Constraint& c, std::size_t b, std::size_t h) {
      if (h == i && handle_status.ok())
        handle_status = makeError(ErrorCode::kSchema, std::string(label) + ": " + jsonPathKey("bones", names[i]) + ": constraint \"" + c.name +
                                                          "\" follows the B-Bone shape of \"" + names[b] + "\", which this bone shapes as its handle");
      ordered = ordered && h < i;
    });
    RIGFIT_TRY(handle_status);
  }
  if (ordered) return {};
  std::vector<std::uint32_t> dep_start(n + 1), deps;
  for (std::size_t i = 0; i < n; ++i) {
    dep_start[i] = static_cast<std::uint32_t>(deps.size());
    if (parents[i] >= 0) deps.push_back(static_cast<std::uint32_t>(parents[i]));
    (void)forEachTarget(i, [&](const Constraint&, int b) -> Status {
      if (b >= 0 && static_cast<std::size_t>(b) != i) deps.push_back(static_cast<std::uint32_t>(b));
      return {};
    });
    forEachHandle(i, [&](const Constraint&, std::size_t, std::size_t h) { deps.push_back(static_cast<std::uint32_t>(h)); });
  }
  dep_start[n] = static_cast<std::uint32_t>(deps.size());
  std::vector<std::uint8_t> state(n, 0);  // 0 new, 1 on the stack, 2 done
  order.reserve(n);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;  // bone, next dependency
  for (std::uint32_t root = 0; root < n; ++root) {
    if (state[root]) continue;
    stack.push_back({root, dep_start[root]});
    state[root] = 1;
    while (!stack.empty()) {
      auto& [b, next] = stack.back();
      if (next < dep_start[b + 1]) {
        const std::uint32_t d = deps[next++];
        if (state[d] == 1) {
          std::string cycle;
          bool in = false;
          for (const auto& [sb, unused] : stack) {
            in = in || sb == d;
            if (in) cycle += "\"" + names[sb] + "\" -> ";
          }
          order.clear();
          return makeError(ErrorCode::kSchema, std::string(label) + (handles ? ": constraint targets, B-Bone handles" : ": constraint targets") +
                                                   " and parents form a cycle: " + cycle + "\"" + names[d] + "\"");
        }
        if (state[d] == 0) {
          state[d] = 1;
          stack.push_back({d, dep_start[d]});
        }
        continue;
      }
      state[b] = 2;
      order.push_back(b);
      stack.pop_back();
    }
  }
  return {};
}

void bindAtRest(Skeleton& skeleton) {
  // CHILD_OF inverses and STRETCH_TO rest lengths still to be set are measured on the rest pose.
  bool pending = false;
  for (const auto& stack_i : skeleton.constraints)
    for (const Constraint& c : stack_i)
      pending = pending || (c.type == ConstraintType::kChildOf && c.set_inverse_pending) ||
                (c.type == ConstraintType::kStretchTo && c.rest_length == 0.0);
  if (!pending) return;
  const std::size_t n = skeleton.size();
  std::vector<Eigen::Matrix4d> out(n);
  const Pose rest = Pose::rest(skeleton);
  std::vector<std::vector<Constraint>> captured = skeleton.constraints;
  posePass(skeleton, rest, out, &captured);
  skeleton.constraints = std::move(captured);
}

}  // namespace detail

Status prepareConstraints(Skeleton& skeleton, std::string_view label) {
  std::vector<std::uint32_t> order;
  RIGFIT_TRY(detail::constraintOrder(skeleton.size(), skeleton.parents.data(), skeleton.connected, skeleton.bbones, skeleton.constraints,
                                     skeleton.names, label, order));
  bool identity = true;
  for (std::size_t k = 0; k < order.size(); ++k) identity = identity && order[k] == k;
  if (identity) skeleton.eval_order.clear();
  else skeleton.eval_order = std::move(order);
  detail::bindAtRest(skeleton);
  return {};
}

std::vector<PoseWarning> constraintWarnings(const Skeleton& skeleton) {
  std::vector<PoseWarning> out;
  for (std::size_t i = 0; i < skeleton.constraints.size(); ++i)
    for (const Constraint& c : skeleton.constraints[i]) {
      if (c.mute) continue;
      std::string why;
      if (!c.evaluated()) why = "is not evaluated by rigfit; posed without it";
      else if (c.type == ConstraintType::kArmature && c.use_bone_envelopes) why = "uses bone envelopes, which rigfit does not evaluate; their factor is taken as 1";
      if (why.empty()) {
        for (const ConstraintTarget& t : c.targets)
          if (t.has_target && !t.subtarget.empty() && (t.parent_reference ? t.main_bone : t.bone) < 0)
            why = t.parent_reference ? "targets the parent rig's \"" + t.subtarget + "\", which is not resolved; skipped"
                                     : "targets \"" + t.subtarget + "\", a bone removed from the skeleton; skipped";
      }
      if (why.empty()) continue;
      out.push_back({"bone \"" + skeleton.names[i] + "\": constraint \"" + c.name + "\" (" + c.type_name + ") " + why, {skeleton.names[i]}});
    }
  return out;
}

}  // namespace rigfit
