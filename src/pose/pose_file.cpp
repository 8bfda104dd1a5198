// MPFB pose files (docs/mpfb-behaviour.md §9) and the command-line rotation forms.
// applyPoseJson follows MPFB's RigService.set_pose_from_dict step by step: clear (all bones, or the
// mentioned ones), measure the spine and shoulders for "default" skeleton types, add the scaled
// translations, then set each rotation mode and channel. Unlike MPFB, which fails half-way through
// a malformed file, everything is checked first and the pose is only changed when all is valid.
#include <array>
#include <charconv>
#include <cmath>
#include <numbers>
#include <string>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/name_hint.hpp"
#include "rigfit/pose.hpp"

namespace rigfit {

namespace {

constexpr std::array kRotationModes{RotationMode::kQuaternion, RotationMode::kXYZ,      RotationMode::kXZY,
                                    RotationMode::kYXZ,        RotationMode::kYZX,      RotationMode::kZXY,
                                    RotationMode::kZYX,        RotationMode::kAxisAngle};

bool isEuler(RotationMode m) { return m != RotationMode::kQuaternion && m != RotationMode::kAxisAngle; }

std::string quoted(std::string_view s) {
  std::string out = "\"";
  out += s;
  out += '"';
  return out;
}

struct RotationOp {
  std::size_t bone;
  RotationMode mode;
  std::array<double, 4> values;
};

struct TranslationOp {
  std::size_t bone;
  Eigen::Vector3d value;
};

class PoseFileReader {
 public:
  PoseFileReader(std::string_view label, const Skeleton& skeleton) : label_(label), skeleton_(skeleton) {}

  Error fail(const std::string& path, const std::string& what, ErrorCode code = ErrorCode::kSchema) const {
    return makeError(code, label_ + ": " + path + ": " + what);
  }

  // `count` finite numbers from a JSON array at `path`; `form` names what was expected.
  Status readNumbers(const Json& j, const std::string& path, std::size_t count, const std::string& form,
                     double* out) const {
    if (!j.isArray()) return fail(path, "expected " + form + ", found " + jsonTypeName(j.type()));
    if (j.size() != count)
      return fail(path,
                  "expected " + form + ", found " + std::to_string(j.size()) + (j.size() == 1 ? " item" : " items"));
    for (std::size_t k = 0; k < count; ++k) {
      const Json& c = j.items()[k];
      if (!c.isNumber())
        return fail(jsonPathIndex(path, k), std::string("expected a number, found ") + jsonTypeName(c.type()));
      out[k] = c.asDouble();
      if (!std::isfinite(out[k])) return fail(jsonPathIndex(path, k), "not a finite number");
    }
    return {};
  }

  // An optional number at the top level; `present` tells whether it was there.
  Status readOptionalNumber(const Json& doc, std::string_view key, double& out, bool& present) const {
    const Json* j = doc.find(key);
    present = j != nullptr;
    if (!j) return {};
    if (!j->isNumber())
      return fail(std::string(key), std::string("expected a number, found ") + jsonTypeName(j->type()));
    out = j->asDouble();
    if (!std::isfinite(out)) return fail(std::string(key), "not a finite number");
    return {};
  }

  const Json* requireObject(const Json& doc, std::string_view key, Status& status) const {
    const Json* j = doc.find(key);
    if (!j) {
      status = fail(std::string(key), "missing (MPFB pose files always have it)");
      return nullptr;
    }
    if (!j->isObject()) {
      status = fail(std::string(key), std::string("expected an object, found ") + jsonTypeName(j->type()));
      return nullptr;
    }
    return j;
  }

  // Sets, not scans: a file naming many bones the skeleton lacks stays linear.
  void noteUnknown(const std::string& name) {
    if (unknown_seen_.insert(name).second) unknown_.push_back(name);
  }

  Status read(const Json& doc) {
    if (!doc.isObject()) return fail("$", std::string("expected an object, found ") + jsonTypeName(doc.type()));
    const Json* type = doc.find("skeleton_type");
    if (!type) return fail("skeleton_type", "missing (MPFB pose files always have it)");
    if (!type->isString())
      return fail("skeleton_type", std::string("expected a string, found ") + jsonTypeName(type->type()));
    skeleton_type_ = type->asString();

    Status status;
    const Json* rotations = requireObject(doc, "bone_rotations", status);
    if (!rotations) return status;
    const Json* translations = requireObject(doc, "bone_translations", status);
    if (!translations) return status;
    const Json* modes = doc.find("bone_rotation_modes");
    if (modes && !modes->isObject())
      return fail("bone_rotation_modes", std::string("expected an object, found ") + jsonTypeName(modes->type()));
    if (modes) {
      for (const auto& [name, m] : modes->members()) {
        mode_of_.emplace(name, &m);
        const std::string path = jsonPathKey("bone_rotation_modes", name);
        RotationMode mode;
        if (!m.isString() || !modeFromName(m.asString(), mode))
          return fail(path, "expected QUATERNION, AXIS_ANGLE or an Euler order (XYZ, XZY, YXZ, YZX, ZXY, ZYX)");
      }
    }
    RIGFIT_TRY(readOptionalNumber(doc, "original_spine_length", original_spine_, has_spine_));
    RIGFIT_TRY(readOptionalNumber(doc, "original_shoulder_width", original_shoulders_, has_shoulders_));

    for (const auto& [name, value] : translations->members()) {
      const std::string path = jsonPathKey("bone_translations", name);
      double t[3];
      RIGFIT_TRY(readNumbers(value, path, 3, "[x, y, z]", t));
      const int bone = skeleton_.find(name);
      if (bone < 0) {
        noteUnknown(name);
        continue;
      }
      translations_.push_back({static_cast<std::size_t>(bone), Eigen::Vector3d(t[0], t[1], t[2])});
    }
    for (const auto& [name, value] : rotations->members()) {
      const std::string path = jsonPathKey("bone_rotations", name);
      if (!value.isArray())
        return fail(path, std::string("expected an array of numbers, found ") + jsonTypeName(value.type()));
      RotationMode mode = value.size() == 4 ? RotationMode::kQuaternion : RotationMode::kXYZ;
      if (const auto m = mode_of_.find(name); m != mode_of_.end()) modeFromName(m->second->asString(), mode);
      RotationOp op{0, mode, {0, 0, 0, 0}};
      const std::string form = mode == RotationMode::kQuaternion ? "[w, x, y, z] for rotation mode QUATERNION"
                               : mode == RotationMode::kAxisAngle
                                   ? "[angle, x, y, z] for rotation mode AXIS_ANGLE"
                                   : std::string("[x, y, z] (radians) for rotation mode ") + rotationModeName(mode);
      RIGFIT_TRY(readNumbers(value, path, isEuler(mode) ? 3 : 4, form, op.values.data()));
      const int bone = skeleton_.find(name);
      if (bone < 0) {
        noteUnknown(name);
        continue;
      }
      op.bone = static_cast<std::size_t>(bone);
      rotations_.push_back(op);
    }
    return {};
  }

  // MPFB's translation factors for "default" skeleton types, measured on `cleared`.
  Status translationFactors(const Pose& cleared, Eigen::Vector3d& factors) const {
    factors.setOnes();
    if (skeleton_type_.find("default") == std::string::npos) return {};
    int idx[4];
    const char* names[4] = {"spine05", "spine01", "shoulder01.L", "shoulder01.R"};
    for (int k = 0; k < 4; ++k) {
      idx[k] = skeleton_.find(names[k]);
      if (idx[k] < 0)
        return fail("skeleton_type",
                    quoted(skeleton_type_) +
                        " poses are scaled by the rig's spine and shoulders, but the skeleton has no bone " +
                        quoted(names[k]),
                    ErrorCode::kMismatch);
    }
    std::vector<Eigen::Matrix4d> m(skeleton_.size());
    poseMatrices(skeleton_, cleared, m);
    auto head = [&](int b) { return Eigen::Vector3d(m[static_cast<std::size_t>(b)].topRightCorner<3, 1>()); };
    auto tail = [&](int b) {
      const auto k = static_cast<std::size_t>(b);
      const double len = k < skeleton_.local_length.size() ? skeleton_.local_length[k] : skeleton_.lengths[k];
      return Eigen::Vector3d(head(b) + m[k].block<3, 1>(0, 1) * len);
    };
    const double spine = (tail(idx[1]) - head(idx[0])).norm();
    const double shoulders = (tail(idx[2]) - tail(idx[3])).norm();
    if (has_spine_ && original_spine_ > 1e-4) factors.z() = spine / original_spine_;
    if (has_shoulders_ && original_shoulders_ > 1e-4) factors.x() = factors.y() = shoulders / original_shoulders_;
    return {};
  }

  static bool modeFromName(const std::string& s, RotationMode& out) {
    for (RotationMode m : kRotationModes)
      if (s == rotationModeName(m)) {
        out = m;
        return true;
      }
    return false;
  }

  std::string label_;
  const Skeleton& skeleton_;
  std::string skeleton_type_;
  double original_spine_ = 0, original_shoulders_ = 0;
  bool has_spine_ = false, has_shoulders_ = false;
  std::vector<TranslationOp> translations_;
  std::vector<RotationOp> rotations_;
  std::vector<std::string> unknown_;
  std::unordered_set<std::string> unknown_seen_;
  std::unordered_map<std::string_view, const Json*> mode_of_;  ///< bone_rotation_modes by bone (first wins, as Json::find)
};

void clearChannels(BonePose& b) {
  const RotationMode mode = b.rotation_mode;
  b = BonePose{};
  b.rotation_mode = mode;
}

// ---------------------------------------------------------------------------------------------
// Command-line forms


void ensureSized(const Skeleton& skeleton, Pose& pose) {
  if (pose.bones.size() != skeleton.size()) pose = Pose::rest(skeleton);
}

}  // namespace

Status applyPoseJson(const Json& pose_file, std::string_view label, const Skeleton& skeleton, Pose& pose,
                     std::vector<PoseWarning>* warnings, bool partial) {
  PoseFileReader reader(label, skeleton);
  RIGFIT_TRY(reader.read(pose_file));

  Pose work = pose;
  ensureSized(skeleton, work);
  // 1. Clear: every bone, or (partial) the bones the file mentions.
  if (!partial) {
    for (auto& b : work.bones) clearChannels(b);
  } else {
    for (const auto& t : reader.translations_) clearChannels(work.bones[t.bone]);
    for (const auto& r : reader.rotations_) clearChannels(work.bones[r.bone]);
  }
  // 2. Translation factors, measured on the cleared pose.
  Eigen::Vector3d factors;
  RIGFIT_TRY(reader.translationFactors(work, factors));
  // 3. Translations are added to the (cleared) location.
  for (const auto& t : reader.translations_) work.bones[t.bone].location += t.value.cwiseProduct(factors);
  // 4. Rotations: the mode (kept afterwards), then its channel.
  for (const auto& r : reader.rotations_) {
    BonePose& b = work.bones[r.bone];
    b.rotation_mode = r.mode;
    if (r.mode == RotationMode::kQuaternion)
      b.quaternion = Eigen::Vector4d(r.values[0], r.values[1], r.values[2], r.values[3]);
    else if (r.mode == RotationMode::kAxisAngle)
      b.axis_angle = Eigen::Vector4d(r.values[0], r.values[1], r.values[2], r.values[3]);
    else
      b.euler = Eigen::Vector3d(r.values[0], r.values[1], r.values[2]);
  }
  pose = std::move(work);

  if (warnings && !reader.unknown_.empty()) {
    // The line names the first few; the warning carries them all.
    constexpr std::size_t kListed = 16;
    const std::size_t n = reader.unknown_.size();
    std::string list;
    for (std::size_t k = 0; k < n && k < kListed; ++k) list += (k ? ", " : "") + quoted(reader.unknown_[k]);
    if (n > kListed) list += " and " + std::to_string(n - kListed) + " more";
    warnings->push_back({std::string(label) + ": " + std::to_string(n) + (n == 1 ? " bone" : " bones") +
                             " not in the skeleton, ignored as MPFB ignores them: " + list,
                         {reader.unknown_.begin(), reader.unknown_.end()}});
  }
  return {};
}

Status applyBoneRotation(const BoneRotation& rotation, const Skeleton& skeleton, Pose& pose) {
  const int bone = skeleton.find(rotation.bone);
  if (bone < 0)
    return makeError(ErrorCode::kMismatch, "rotation: no bone " + quoted(rotation.bone) + " in the skeleton" +
                                               detail::unknownNameHint(rotation.bone, skeleton.names));
  const auto& v = rotation.values;
  const bool euler = rotation.kind == BoneRotation::Kind::kEulerXyzDegrees;
  if (!euler && v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0)
    return makeError(ErrorCode::kUsage, "rotation of " + quoted(rotation.bone) + ": the quaternion has length 0");
  ensureSized(skeleton, pose);
  BonePose& b = pose.bones[static_cast<std::size_t>(bone)];
  if (euler) {
    b.rotation_mode = RotationMode::kXYZ;
    constexpr double kDegree = std::numbers::pi / 180.0;
    b.euler = Eigen::Vector3d(v[0], v[1], v[2]) * kDegree;
  } else {
    b.rotation_mode = RotationMode::kQuaternion;
    b.quaternion = Eigen::Vector4d(v[0], v[1], v[2], v[3]);
  }
  return {};
}

}  // namespace rigfit
