// B-Bone curves with Blender 3.4's semantics, in double precision:
//   parameters  BKE_pchan_bbone_spline_params_get (handles from neighbours, settings + channels)
//   handles     BKE_pchan_bbone_handles_compute (ease, roll, curve offsets)
//   joints      BKE_pchan_bbone_spline_compute(for_deform) (arc-length spacing, end tangents)
//   deform      BKE_pchan_bbone_segments_cache_compute (joint deform matrices)
// Blender's float[4][4] M[col][row] is Eigen's m(row, col); a Blender "mat[1]" is m.col(1).
#include <algorithm>
#include <cassert>
#include <cmath>

#include <Eigen/Geometry>
#include <Eigen/LU>

#include "pose/pose_internal.hpp"
#include "rigfit/bbone.hpp"
#include "rigfit/bone_frame.hpp"
#include "rigfit/pose.hpp"
#include "rigfit/skeleton.hpp"

namespace rigfit {

namespace {

constexpr int kCurveSteps = kMaxBBoneSegments;  // points of the first, uniform pass over the curve

// normalize_v3: unit vector and former length (a vector no longer than 1e-35 becomes zero).
double normalizeVec(Eigen::Vector3d& v) {
  const double len = v.norm();
  if (len > 1e-35) {
    v /= len;
    return len;
  }
  v.setZero();
  return 0.0;
}

Eigen::Vector3d axisLengths(const Eigen::Matrix4d& m) {
  return {m.col(0).head<3>().norm(), m.col(1).head<3>().norm(), m.col(2).head<3>().norm()};
}

// vec_roll_to_mat3: the bone frame of direction `v` (normalised here) with `roll`.
Eigen::Matrix3d vecRollToMat3(Eigen::Vector3d v, double roll) {
  normalizeVec(v);
  return boneFrame(v, roll);
}

// mat3_vec_to_roll: the twist about Y of `mat` relative to the zero-roll frame of `vec`
// (quat_split_swing_and_twist of the relative rotation's mat3_to_quat, which a handle's sheared
// matrix makes differ from the nearest rotation's).
double mat3VecToRoll(const Eigen::Matrix3d& mat, const Eigen::Vector3d& vec) {
  const Eigen::Matrix3d vecmat = vecRollToMat3(vec, 0.0);
  Eigen::Quaterniond q = detail::matrixToQuat(vecmat.inverse() * mat);
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  return 2.0 * std::atan2(q.y(), q.w());
}

// cubic_tangent_factor_circle_v3: handle length (over the chord, times 0.75) for which a cubic
// Bezier between unit tangents follows a circle.
double circleTangentFactor(const Eigen::Vector3d& tan_l, const Eigen::Vector3d& tan_r) {
  const double eps = 1e-7;
  const double tan_dot = tan_l.dot(tan_r);
  if (tan_dot > 1.0 - eps) return (1.0 / 3.0) * 0.75;
  if (tan_dot < -1.0 + eps) return 0.5;
  const double angle = std::acos(tan_dot) / 2.0;
  const double s = std::sin(angle), c = std::cos(angle);
  return ((1.0 - c) / (s * 2.0)) / s;
}

// BBoneSplineParameters.
struct SplineParams {
  int segments = 1;
  double length = 0.0;
  bool do_scale = false;
  Eigen::Vector3d scale = Eigen::Vector3d::Ones();
  bool use_prev = false, use_next = false, prev_bbone = false, next_bbone = false;
  Eigen::Vector3d prev_h = Eigen::Vector3d::Zero(), next_h = Eigen::Vector3d::Zero();
  Eigen::Matrix4d prev_mat = Eigen::Matrix4d::Identity(), next_mat = Eigen::Matrix4d::Identity();
  double ease1 = 0, ease2 = 0, roll1 = 0, roll2 = 0;
  Eigen::Vector3d scale_in = Eigen::Vector3d::Ones(), scale_out = Eigen::Vector3d::Ones();
  double curve_in_x = 0, curve_in_z = 0, curve_out_x = 0, curve_out_z = 0;
};

const BBone& settingsOf(const Skeleton& s, std::size_t bone) {
  static const BBone kPlain{};
  return bone < s.bbones.size() ? s.bbones[bone] : kPlain;
}

int segmentsOf(const Skeleton& s, int bone) {
  return bone >= 0 && static_cast<std::size_t>(bone) < s.bbones.size() ? s.bbones[static_cast<std::size_t>(bone)].segments : 1;
}

void handleBones(const Skeleton& s, std::size_t bone, int& prev, int& next) {
  detail::bboneHandleBones(s.size(), s.parents.data(), s.connected, s.bbones, bone, prev, next);
}

struct BoneState {
  const Eigen::Matrix4d* arm_mat;
  const Eigen::Matrix4d* pose_mat;
  Eigen::Vector3d arm_head, arm_tail, pose_head, pose_tail;
};

BoneState stateOf(const Skeleton& s, std::span<const Eigen::Matrix4d> pose_matrices, std::size_t bone) {
  BoneState st;
  st.arm_mat = &s.rest[bone];
  st.pose_mat = &pose_matrices[bone];
  st.arm_head = s.heads[bone];
  st.arm_tail = s.tails[bone];
  st.pose_head = pose_matrices[bone].col(3).head<3>();
  st.pose_tail = st.pose_head + pose_matrices[bone].col(1).head<3>() * s.local_length[bone];
  return st;
}

// BKE_pchan_bbone_spline_params_get.
SplineParams splineParams(const Skeleton& s, const Pose& pose, std::span<const Eigen::Matrix4d> pose_matrices,
                          std::size_t bone, bool rest) {
  const BBone& b = settingsOf(s, bone);
  SplineParams p;
  p.segments = b.segments;
  p.length = s.local_length[bone];
  const BoneState self = stateOf(s, pose_matrices, bone);
  if (!rest) {
    const Eigen::Vector3d scale = axisLengths(*self.pose_mat);
    if (std::abs(scale[0] - scale[1]) > 1e-6 || std::abs(scale[1] - scale[2]) > 1e-6) {
      p.do_scale = true;
      p.scale = scale;
    }
  }
  int prev = -1, next = -1;
  handleBones(s, bone, prev, next);

  Eigen::Matrix4d imat;
  if (rest) {
    imat = self.arm_mat->inverse();
  } else if (p.do_scale) {
    Eigen::Matrix4d m = *self.pose_mat;
    for (int c = 0; c < 3; ++c) {
      Eigen::Vector3d v = m.col(c).head<3>();
      normalizeVec(v);
      m.col(c).head<3>() = v;
    }
    imat = m.inverse();
  } else {
    imat = self.pose_mat->inverse();
  }
  const auto transform = [&](const Eigen::Vector3d& v) { return (imat * v.homogeneous()).head<3>().eval(); };

  // The handle bone's scale channel (BKE_armature_mat_pose_to_bone of its pose matrix: its
  // channel rotation and scale; the axis lengths are the scale channel's magnitudes).
  const auto localScale = [&](int h) { return pose.bones[static_cast<std::size_t>(h)].scale.cwiseAbs().eval(); };
  const auto anyScale = [](const std::array<bool, 3>& f, bool ease) { return f[0] || f[1] || f[2] || ease; };

  Eigen::Vector3d prev_scale = Eigen::Vector3d::Ones(), next_scale = Eigen::Vector3d::Ones();
  if (prev >= 0) {
    const auto pi = static_cast<std::size_t>(prev);
    const BoneState ps = stateOf(s, pose_matrices, pi);
    p.use_prev = true;
    bool done = false;
    Eigen::Vector3d h1;
    if (b.handle_type_start == BBoneHandleType::kRelative) {
      if (rest) {
        p.prev_h.setZero();
        done = true;
      } else {
        h1 = self.pose_head - (ps.pose_head - ps.arm_head);
      }
    } else if (b.handle_type_start == BBoneHandleType::kTangent) {
      h1 = rest ? Eigen::Vector3d(self.arm_head - (ps.arm_tail - ps.arm_head))
                : Eigen::Vector3d(self.pose_head - (ps.pose_tail - ps.pose_head));
    } else {
      p.prev_bbone = segmentsOf(s, prev) > 1;
      h1 = rest ? ps.arm_head : ps.pose_head;
    }
    if (!done) p.prev_h = transform(h1);
    if (!p.prev_bbone) {
      p.prev_mat = imat * (rest ? *ps.arm_mat : *ps.pose_mat);
      if (anyScale(b.handle_use_scale_start, b.handle_use_ease_start) && !rest) prev_scale = localScale(prev);
    }
  }
  if (next >= 0) {
    const auto ni = static_cast<std::size_t>(next);
    const BoneState ns = stateOf(s, pose_matrices, ni);
    p.use_next = true;
    bool done = false;
    Eigen::Vector3d h2;
    if (b.handle_type_end == BBoneHandleType::kRelative) {
      if (rest) {
        p.next_h = Eigen::Vector3d(0.0, p.length, 0.0);
        done = true;
      } else {
        h2 = self.pose_tail + (ns.pose_head - ns.arm_head);
      }
    } else if (b.handle_type_end == BBoneHandleType::kTangent) {
      h2 = rest ? Eigen::Vector3d(self.arm_tail + (ns.arm_tail - ns.arm_head))
                : Eigen::Vector3d(self.pose_tail + (ns.pose_tail - ns.pose_head));
    } else {
      p.next_bbone = segmentsOf(s, next) > 1;
      h2 = rest ? ns.arm_tail : ns.pose_tail;
    }
    if (!done) p.next_h = transform(h2);
    p.next_mat = imat * (rest ? *ns.arm_mat : *ns.pose_mat);
    if (anyScale(b.handle_use_scale_end, b.handle_use_ease_end) && !rest) next_scale = localScale(next);
  }

  // The bone's settings (rest shape) plus, when posed, its pose bone's channels.
  const BBonePose& ch = pose.bones[bone].bbone;
  p.ease1 = b.easein + (rest ? 0.0 : ch.easein);
  p.ease2 = b.easeout + (rest ? 0.0 : ch.easeout);
  p.roll1 = b.rollin + (rest ? 0.0 : ch.rollin);
  p.roll2 = b.rollout + (rest ? 0.0 : ch.rollout);
  if (b.use_endroll_as_inroll && prev >= 0) {
    p.roll1 += settingsOf(s, static_cast<std::size_t>(prev)).rollout;
    if (!rest) p.roll1 += pose.bones[static_cast<std::size_t>(prev)].bbone.rollout;
  }
  p.scale_in = b.scalein;
  p.scale_out = b.scaleout;
  if (!rest) {
    p.scale_in = p.scale_in.cwiseProduct(ch.scalein);
    p.scale_out = p.scale_out.cwiseProduct(ch.scaleout);
  }
  p.curve_in_x = b.curveinx + (rest ? 0.0 : ch.curveinx);
  p.curve_in_z = b.curveinz + (rest ? 0.0 : ch.curveinz);
  p.curve_out_x = b.curveoutx + (rest ? 0.0 : ch.curveoutx);
  p.curve_out_z = b.curveoutz + (rest ? 0.0 : ch.curveoutz);
  if (b.use_scale_easing) {
    p.ease1 *= p.scale_in[1];
    p.curve_in_x *= p.scale_in[1];
    p.curve_in_z *= p.scale_in[1];
    p.ease2 *= p.scale_out[1];
    p.curve_out_x *= p.scale_out[1];
    p.curve_out_z *= p.scale_out[1];
  }
  for (int k = 0; k < 3; ++k) {
    if (b.handle_use_scale_start[static_cast<std::size_t>(k)]) p.scale_in[k] *= prev_scale[k];
    if (b.handle_use_scale_end[static_cast<std::size_t>(k)]) p.scale_out[k] *= next_scale[k];
  }
  if (b.handle_use_ease_start) {
    p.ease1 *= prev_scale[1];
    p.curve_in_x *= prev_scale[1];
    p.curve_in_z *= prev_scale[1];
  }
  if (b.handle_use_ease_end) {
    p.ease2 *= next_scale[1];
    p.curve_out_x *= next_scale[1];
    p.curve_out_z *= next_scale[1];
  }
  return p;
}

// BKE_pchan_bbone_handles_compute(ease = true, offsets = true).
void handles(const SplineParams& p, Eigen::Vector3d& h1, double& roll1, Eigen::Vector3d& h2, double& roll2) {
  double length = p.length;
  const double epsilon = 1e-5 * length;
  if (p.do_scale) length *= p.scale[1];
  roll1 = roll2 = 0.0;
  if (p.use_prev) {
    h1 = p.prev_h;
    if (p.prev_bbone) h1[1] -= length;  // a B-Bone neighbour: the average direction
    if (normalizeVec(h1) < epsilon) h1 = Eigen::Vector3d(0.0, -1.0, 0.0);
    h1 = -h1;
    if (!p.prev_bbone) roll1 = mat3VecToRoll(p.prev_mat.topLeftCorner<3, 3>(), h1);
  } else {
    h1 = Eigen::Vector3d(0.0, 1.0, 0.0);
  }
  if (p.use_next) {
    h2 = p.next_h;
    if (!p.next_bbone) h2[1] -= length;
    if (normalizeVec(h2) < epsilon) h2 = Eigen::Vector3d(0.0, 1.0, 0.0);
    roll2 = mat3VecToRoll(p.next_mat.topLeftCorner<3, 3>(), h2);
  } else {
    h2 = Eigen::Vector3d(0.0, 1.0, 0.0);
  }
  const double circle = length * (circleTangentFactor(h1, h2) / 0.75);
  h1 *= p.ease1 * circle;
  h2 *= -p.ease2 * circle;
  roll1 += p.roll1;
  roll2 += p.roll2;
  const double xs = p.do_scale ? p.scale[0] : 1.0;
  const double zs = p.do_scale ? p.scale[2] : 1.0;
  h1[0] += p.curve_in_x * xs;
  h1[2] += p.curve_in_z * zs;
  h2[0] += p.curve_out_x * xs;
  h2[2] += p.curve_out_z * zs;
}

Eigen::Vector3d bezierPoint(const std::array<Eigen::Vector3d, 4>& c, double t) {
  const double u = 1.0 - t;
  return u * u * u * c[0] + 3.0 * u * u * t * c[1] + 3.0 * u * t * t * c[2] + t * t * t * c[3];
}

// equalize_cubic_bezier: curve parameters of the segments + 1 joints, spaced along the arc
// (measured on kCurveSteps uniform steps) in proportion to each segment's length scale.
void equalize(const std::array<Eigen::Vector3d, 4>& c, int segments, const double* segment_scales, double* t) {
  std::array<Eigen::Vector3d, kCurveSteps + 1> coords;
  for (int i = 0; i <= kCurveSteps; ++i) coords[static_cast<std::size_t>(i)] = bezierPoint(c, static_cast<double>(i) / kCurveSteps);
  std::array<double, kCurveSteps + 1> pdist{};
  for (std::size_t i = 0; i < kCurveSteps; ++i) pdist[i + 1] = pdist[i] + (coords[i + 1] - coords[i]).norm();
  double sum = 0.0;
  for (int i = 0; i < segments; ++i) sum += segment_scales[i];
  const double dist_step = pdist[kCurveSteps] / sum;
  double dist = 0.0;
  t[0] = 0.0;
  for (int i = 1, nr = 1; i <= segments; ++i) {
    dist += segment_scales[i - 1] * dist_step;
    while (nr < kCurveSteps && dist >= pdist[static_cast<std::size_t>(nr)]) ++nr;
    const double fac = (pdist[static_cast<std::size_t>(nr)] - dist) /
                       (pdist[static_cast<std::size_t>(nr)] - pdist[static_cast<std::size_t>(nr - 1)]);
    t[i] = (nr - fac) / kCurveSteps;
  }
  t[segments] = 1.0;
}

// evaluate_cubic_bezier (de Casteljau): position and (scaled) tangent.
void bezierAt(const std::array<Eigen::Vector3d, 4>& c, double t, Eigen::Vector3d& pos, Eigen::Vector3d& tangent) {
  const Eigen::Vector3d a = c[0] + (c[1] - c[0]) * t, b = c[1] + (c[2] - c[1]) * t, d = c[2] + (c[3] - c[2]) * t;
  const Eigen::Vector3d e = a + (b - a) * t, f = b + (d - b) * t;
  tangent = f - e;
  pos = e + tangent * t;
}

// ease_handle_axis: the first derivative, faded towards the second when the handle is very short.
Eigen::Vector3d easeHandleAxis(const Eigen::Vector3d& d1, const Eigen::Vector3d& d2) {
  const double gap = 0.1;
  Eigen::Vector3d axis = d1;
  const double len2 = d2.squaredNorm();
  if (len2 == 0.0) return axis;
  const double ratio = d1.squaredNorm() / len2;
  if (ratio < gap * gap) axis += d2 * (gap - std::sqrt(ratio));
  return axis;
}

// make_bbone_spline_matrix.
Eigen::Matrix4d splineMatrix(const SplineParams& p, const Eigen::Vector3d& pos, const Eigen::Vector3d& axis, double roll,
                             double scalex, double scalez) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.topLeftCorner<3, 3>() = vecRollToMat3(axis, roll);
  m.col(3).head<3>() = pos;
  if (p.do_scale) {
    // Corrected for use in the pose's scaled space: S^-1 * m * S.
    const Eigen::Vector3d inv = p.scale.cwiseInverse();
    m = inv.homogeneous().asDiagonal() * m * p.scale.homogeneous().asDiagonal();
  }
  m.col(0).head<3>() *= scalex;
  m.col(2).head<3>() *= scalez;
  return m;
}

// BKE_pchan_bbone_spline_compute(for_deform = true).
void splineJoints(SplineParams p, std::span<Eigen::Matrix4d> out) {
  double length = p.length;
  if (p.do_scale) length *= p.scale[1];
  Eigen::Vector3d h1, h2;
  double roll1 = 0.0, roll2 = 0.0;
  handles(p, h1, roll1, h2, roll2);
  const int n = std::min(p.segments, kMaxBBoneSegments);
  std::array<Eigen::Vector3d, 4> c;
  c[3] = Eigen::Vector3d(0.0, length, 0.0);
  c[2] = c[3] + h2;
  c[1] = h1;
  c[0].setZero();

  p.scale_in[1] = std::max(p.scale_in[1], 0.0001);
  p.scale_out[1] = std::max(p.scale_out[1], 0.0001);
  const double log_in = std::log(p.scale_in[1]), log_out = std::log(p.scale_out[1]);
  std::array<double, kMaxBBoneSegments> segment_scales{};
  for (int i = 0; i < n; ++i) {
    const double fac = static_cast<double>(i) / (n - 1);
    segment_scales[static_cast<std::size_t>(i)] = std::exp(fac * log_out + (1.0 - fac) * log_in);
  }
  std::array<double, kMaxBBoneSegments + 1> t{};
  equalize(c, n, segment_scales.data(), t.data());

  std::array<Eigen::Vector3d, 3> d1;
  std::array<Eigen::Vector3d, 2> d2;
  for (std::size_t i = 0; i < 3; ++i) d1[i] = c[i + 1] - c[i];
  for (std::size_t i = 0; i < 2; ++i) d2[i] = d1[i + 1] - d1[i];
  out[0] = splineMatrix(p, c[0], easeHandleAxis(d1[0], d2[0]), roll1, p.scale_in[0], p.scale_in[2]);
  for (int a = 1; a < n; ++a) {
    Eigen::Vector3d cur, axis;
    bezierAt(c, t[static_cast<std::size_t>(a)], cur, axis);
    const double fac = static_cast<double>(a) / n;
    const double roll = fac * roll2 + (1.0 - fac) * roll1;
    const double scalex = fac * p.scale_out[0] + (1.0 - fac) * p.scale_in[0];
    const double scalez = fac * p.scale_out[2] + (1.0 - fac) * p.scale_in[2];
    out[static_cast<std::size_t>(a)] = splineMatrix(p, cur, axis, roll, scalex, scalez);
  }
  out[static_cast<std::size_t>(n)] = splineMatrix(p, c[3], easeHandleAxis(d1[2], -d2[1]), roll2, p.scale_out[0], p.scale_out[2]);
}

}  // namespace

namespace detail {

void bboneHandleBones(std::size_t n, const int* parents, std::span<const std::uint8_t> connected, std::span<const BBone> bbones,
                      std::size_t bone, int& prev, int& next) {
  static const BBone kPlain{};
  const BBone& b = bone < bbones.size() ? bbones[bone] : kPlain;
  const auto isConnected = [&](std::size_t i) { return i < connected.size() && connected[i]; };
  if (b.handle_type_start == BBoneHandleType::kAuto) prev = isConnected(bone) ? parents[bone] : -1;
  else prev = b.custom_handle_start;
  if (b.handle_type_end == BBoneHandleType::kAuto) {
    // pchan->child: the last connected child in Blender's child order (index order among siblings).
    next = -1;
    for (std::size_t c = 0; c < n; ++c)
      if (parents[c] == static_cast<int>(bone) && isConnected(c)) next = static_cast<int>(c);
  } else {
    next = b.custom_handle_end;
  }
}

void bboneSegmentAt(int segments, double head_tail, int& index, double& blend) {
  head_tail = std::clamp(head_tail, 0.0, 1.0);
  const double pre = head_tail * segments;
  index = std::clamp(static_cast<int>(std::floor(pre)), 0, segments - 1);
  blend = std::clamp(pre - index, 0.0, 1.0);
}

}  // namespace detail

bool hasBendyBones(const Skeleton& skeleton) {
  return std::any_of(skeleton.bbones.begin(), skeleton.bbones.end(), [](const BBone& b) { return b.segments > 1; });
}

void bboneJointMatrices(const Skeleton& skeleton, const Pose& pose, std::span<const Eigen::Matrix4d> pose_matrices,
                        std::size_t bone, bool rest, std::span<Eigen::Matrix4d> out) {
  assert(bone < skeleton.bbones.size() && out.size() >= static_cast<std::size_t>(skeleton.bbones[bone].segments) + 1);
  splineJoints(splineParams(skeleton, pose, pose_matrices, bone, rest), out);
}

namespace {

void clearSkinning(BBoneSkinning& out) {
  out.first.clear();
  out.matrices.clear();
  out.joint_rest.clear();
  out.planes.clear();
  out.points.clear();
  out.depth_scale.clear();
  out.arc_length_reciprocal.clear();
}

// Bendy bone i's joints appended to `out` (its `first` and `arc_length_reciprocal` entries set).
void appendSkinning(const Skeleton& skeleton, const Pose& pose, std::span<const Eigen::Matrix4d> pose_matrices, std::size_t i,
                    BBoneSkinning& out) {
  std::array<Eigen::Matrix4d, kMaxBBoneSegments + 1> pose_joints, rest_joints;
  const BBone& b = skeleton.bbones[i];
  const auto count = static_cast<std::size_t>(b.segments) + 1;
  bboneJointMatrices(skeleton, pose, pose_matrices, i, false, pose_joints);
  bboneJointMatrices(skeleton, pose, pose_matrices, i, true, rest_joints);
  out.first[i] = static_cast<std::int32_t>(out.matrices.size());
  const Eigen::Matrix4d& arm = skeleton.rest[i];
  const Eigen::Matrix4d arm_inv = arm.inverse();
  const Eigen::Matrix4d chan = pose_matrices[i] * arm_inv;
  for (std::size_t a = 0; a < count; ++a) {
    out.matrices.push_back(chan * arm * pose_joints[a] * rest_joints[a].inverse() * arm_inv);
    Eigen::Matrix4d frame = arm * rest_joints[a];
    for (int c = 0; c < 3; ++c) {
      Eigen::Vector3d axis = frame.col(c).head<3>();
      normalizeVec(axis);
      frame.col(c).head<3>() = axis;
    }
    out.joint_rest.push_back(frame);
  }
  // Joint planes for the CURVED mapping (compute_bbone_segment_boundaries), kept for every
  // bendy bone so that joint slots line up with `matrices`.
  double arc = 0.0;
  const std::size_t base = out.points.size();
  for (std::size_t a = 0; a < count; ++a) {
    const Eigen::Vector3d point = (arm * rest_joints[a].col(3)).head<3>();
    Eigen::Vector3d normal = arm.topLeftCorner<3, 3>() * rest_joints[a].col(1).head<3>();
    normalizeVec(normal);
    out.points.push_back(point);
    out.planes.emplace_back(normal[0], normal[1], normal[2], point.dot(normal));
    if (a > 0) arc += (point - out.points[base + a - 1]).norm();
  }
  out.arc_length_reciprocal[i] = 1.0 / arc;
  // BSP depth scales: the smoothing band's half width shrinks from the root plane to one
  // segment at the leaves (Blender's tuning factor 0.222).
  const int segments = b.segments;
  const int depth = static_cast<int>(std::ceil(std::log2(segments + 2)));
  const double straight = (out.points[base + count - 1] - out.points[base]).norm();
  const double max_depth_scale = segments * (straight / arc) * 0.222;
  const double factor = std::pow(std::max(max_depth_scale, 1.0), 1.0 / (depth - 1));
  const std::size_t ds = out.depth_scale.size();
  out.depth_scale.resize(ds + count, 0.0);
  out.depth_scale[ds] = segments / max_depth_scale;
  for (int d = 1; d < depth && static_cast<std::size_t>(d) < count; ++d)
    out.depth_scale[ds + static_cast<std::size_t>(d)] = out.depth_scale[ds + static_cast<std::size_t>(d) - 1] * factor;
}

}  // namespace

void bboneSkinningMatrices(const Skeleton& skeleton, const Pose& pose, std::span<const Eigen::Matrix4d> pose_matrices,
                           BBoneSkinning& out) {
  clearSkinning(out);
  if (!hasBendyBones(skeleton)) return;
  const std::size_t n = skeleton.size();
  out.first.assign(n, -1);
  out.arc_length_reciprocal.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    if (skeleton.bbones[i].segments > 1) appendSkinning(skeleton, pose, pose_matrices, i, out);
}

void addBBoneSkinning(const Skeleton& skeleton, const Pose& pose, std::span<const Eigen::Matrix4d> pose_matrices,
                      std::size_t bone, BBoneSkinning& out) {
  assert(bone < skeleton.bbones.size() && skeleton.bbones[bone].segments > 1);
  if (out.first.size() != skeleton.size()) {
    clearSkinning(out);
    out.first.assign(skeleton.size(), -1);
    out.arc_length_reciprocal.assign(skeleton.size(), 0.0);
  }
  if (out.first[bone] < 0) appendSkinning(skeleton, pose, pose_matrices, bone, out);
}

}  // namespace rigfit
