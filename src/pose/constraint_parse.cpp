// Reading a bone's `constraints` array into typed Constraints (the keys MPFB writes, §8.2/§8.5).
#include <cmath>
#include <string>

#include "rigfit/constraint.hpp"

namespace rigfit {

const char* constraintTypeName(ConstraintType t) {
  switch (t) {
    case ConstraintType::kArmature: return "ARMATURE";
    case ConstraintType::kTransform: return "TRANSFORM";
    case ConstraintType::kCopyTransforms: return "COPY_TRANSFORMS";
    case ConstraintType::kChildOf: return "CHILD_OF";
    case ConstraintType::kCopyLocation: return "COPY_LOCATION";
    case ConstraintType::kCopyRotation: return "COPY_ROTATION";
    case ConstraintType::kCopyScale: return "COPY_SCALE";
    case ConstraintType::kDampedTrack: return "DAMPED_TRACK";
    case ConstraintType::kStretchTo: return "STRETCH_TO";
    case ConstraintType::kLimitLocation: return "LIMIT_LOCATION";
    case ConstraintType::kLimitRotation: return "LIMIT_ROTATION";
    case ConstraintType::kLimitScale: return "LIMIT_SCALE";
    case ConstraintType::kOther: return "";
  }
  return "";
}

const char* constraintSpaceName(ConstraintSpace s) {
  switch (s) {
    case ConstraintSpace::kWorld: return "WORLD";
    case ConstraintSpace::kCustom: return "CUSTOM";
    case ConstraintSpace::kPose: return "POSE";
    case ConstraintSpace::kLocalWithParent: return "LOCAL_WITH_PARENT";
    case ConstraintSpace::kLocal: return "LOCAL";
    case ConstraintSpace::kLocalOwnerOrient: return "LOCAL_OWNER_ORIENT";
  }
  return "";
}

namespace {

// Blender's other constraint types: valid in a rig file, not evaluated by rigfit.
constexpr const char* kOtherTypes[] = {"CAMERA_SOLVER", "FOLLOW_TRACK", "OBJECT_SOLVER", "LIMIT_DISTANCE", "MAINTAIN_VOLUME",
                                       "TRANSFORM_CACHE", "CLAMP_TO", "IK", "LOCKED_TRACK", "SPLINE_IK", "TRACK_TO",
                                       "ACTION", "FLOOR", "FOLLOW_PATH", "PIVOT", "SHRINKWRAP"};

class ConstraintReader {
 public:
  ConstraintReader(std::string_view label, std::string path) : label_(label), path_(std::move(path)) {}

  Error fail(std::string_view key, const std::string& what) const {
    return makeError(ErrorCode::kSchema, std::string(label_) + ": " + jsonPathKey(path_, key) + ": " + what);
  }

  Status boolean(const Json& j, std::string_view key, bool& out) const {
    const Json* v = j.find(key);
    if (!v) return {};
    if (!v->isBool()) return fail(key, std::string("expected a boolean, found ") + jsonTypeName(v->type()));
    out = v->asBool();
    return {};
  }

  Status number(const Json& j, std::string_view key, double& out) const {
    const Json* v = j.find(key);
    if (!v) return {};
    if (!v->isNumber()) return fail(key, std::string("expected a number, found ") + jsonTypeName(v->type()));
    if (!std::isfinite(v->asDouble())) return fail(key, "not a finite number");
    out = v->asDouble();
    return {};
  }

  // An enum key: its index in `names`, or an error listing them.
  template <std::size_t N>
  Status choice(const Json& j, std::string_view key, const std::array<const char*, N>& names, int& out) const {
    const Json* v = j.find(key);
    if (!v) return {};
    if (v->isString())
      for (std::size_t k = 0; k < N; ++k)
        if (v->asString() == names[k]) {
          out = static_cast<int>(k);
          return {};
        }
    std::string list;
    for (std::size_t k = 0; k < N; ++k) list += (k ? (k + 1 == N ? " or " : ", ") : "") + std::string(names[k]);
    if (!v->isString()) return fail(key, "expected one of " + list + ", found " + jsonTypeName(v->type()));
    return fail(key, "unknown value \"" + v->asString() + "\" (expected " + list + ")");
  }

  template <typename E, std::size_t N>
  Status choiceEnum(const Json& j, std::string_view key, const std::array<const char*, N>& names, E& out) const {
    int k = static_cast<int>(out);
    RIGFIT_TRY(choice(j, key, names, k));
    out = static_cast<E>(k);
    return {};
  }

  template <std::size_t N>
  Status choiceString(const Json& j, std::string_view key, const std::array<const char*, N>& names, std::string& out) const {
    int k = -1;
    RIGFIT_TRY(choice(j, key, names, k));
    if (k >= 0) out = names[static_cast<std::size_t>(k)];
    return {};
  }

  Status string(const Json& j, std::string_view key, std::string& out) const {
    const Json* v = j.find(key);
    if (!v) return {};
    if (!v->isString()) return fail(key, std::string("expected a string, found ") + jsonTypeName(v->type()));
    out = v->asString();
    return {};
  }

  // `target`: true = the own armature, a dict = a parent-rig reference, absent/false/null = none.
  Status target(const Json& j, ConstraintTarget& t) const {
    const Json* v = j.find("target");
    if (!v || v->isNull() || (v->isBool() && !v->asBool())) return {};
    if (v->isBool()) {
      t.has_target = true;
      return {};
    }
    if (v->isObject()) {
      t.has_target = true;
      t.parent_reference = *v;
      return {};
    }
    return fail("target", std::string("expected true or a parent-rig reference object, found ") + jsonTypeName(v->type()));
  }

  Status read(const Json& j, Constraint& c) const {
    if (!j.isObject()) return makeError(ErrorCode::kSchema, std::string(label_) + ": " + path_ + ": expected an object, found " + jsonTypeName(j.type()));
    const Json* type = j.find("type");
    if (!type) return fail("type", "missing (required)");
    if (!type->isString()) return fail("type", std::string("expected a string, found ") + jsonTypeName(type->type()));
    c.type_name = type->asString();
    c.type = ConstraintType::kOther;
    for (int t = 0; t < static_cast<int>(ConstraintType::kOther); ++t)
      if (c.type_name == constraintTypeName(static_cast<ConstraintType>(t))) c.type = static_cast<ConstraintType>(t);
    if (c.type == ConstraintType::kOther) {
      bool known = false;
      for (const char* n : kOtherTypes) known = known || c.type_name == n;
      if (!known) return fail("type", "unknown constraint type \"" + c.type_name + "\"");
    }
    RIGFIT_TRY(string(j, "name", c.name));
    RIGFIT_TRY(boolean(j, "mute", c.mute));
    RIGFIT_TRY(number(j, "influence", c.influence));
    if (c.influence < 0.0 || c.influence > 1.0) return fail("influence", "outside [0, 1]");
    static constexpr std::array<const char*, 6> kSpaces{"WORLD", "CUSTOM", "POSE", "LOCAL_WITH_PARENT", "LOCAL", "LOCAL_OWNER_ORIENT"};
    RIGFIT_TRY(choiceEnum(j, "target_space", kSpaces, c.target_space));
    // Blender creates a bone's CHILD_OF in POSE space.
    if (c.type == ConstraintType::kChildOf) c.owner_space = ConstraintSpace::kPose;
    static constexpr std::array<const char*, 5> kOwnerSpaces{"WORLD", "CUSTOM", "POSE", "LOCAL_WITH_PARENT", "LOCAL"};
    RIGFIT_TRY(choiceEnum(j, "owner_space", kOwnerSpaces, c.owner_space));
    RIGFIT_TRY(number(j, "head_tail", c.head_tail));
    if (c.head_tail < 0.0 || c.head_tail > 1.0) return fail("head_tail", "outside [0, 1]");
    RIGFIT_TRY(boolean(j, "use_bbone_shape", c.use_bbone_shape));
    if (const Json* so = j.find("space_object")) {
      if (!so->isBool() && !so->isNull()) return fail("space_object", std::string("expected a boolean, found ") + jsonTypeName(so->type()));
      c.space.has_target = so->isBool() && so->asBool();
      RIGFIT_TRY(string(j, "space_subtarget", c.space.subtarget));
    }
    if (c.type == ConstraintType::kArmature) return readArmature(j, c);
    ConstraintTarget t;
    if (c.type != ConstraintType::kOther || j.contains("target")) RIGFIT_TRY(target(j, t));
    RIGFIT_TRY(string(j, "subtarget", t.subtarget));
    c.targets.push_back(std::move(t));
    return readSettings(j, c);
  }

  Status readArmature(const Json& j, Constraint& c) const {
    RIGFIT_TRY(boolean(j, "use_deform_preserve_volume", c.use_deform_preserve_volume));
    RIGFIT_TRY(boolean(j, "use_bone_envelopes", c.use_bone_envelopes));
    RIGFIT_TRY(boolean(j, "use_current_location", c.use_current_location));
    if (const Json* t = j.find("target")) {
      if (!t->isObject() && !t->isNull() && !(t->isBool() && !t->asBool()))
        return fail("target", "an ARMATURE constraint's target must be a {\"strategy\": \"VERTEX\", ...} reference");
      if (t->isObject()) c.vertex_reference = *t;
    }
    const Json* targets = j.find("targets");
    if (!targets) return {};
    if (!targets->isArray()) return fail("targets", std::string("expected an array, found ") + jsonTypeName(targets->type()));
    for (std::size_t k = 0; k < targets->size(); ++k) {
      const Json& item = targets->items()[k];
      const ConstraintReader sub(label_, jsonPathIndex(jsonPathKey(path_, "targets"), k));
      if (!item.isObject())
        return makeError(ErrorCode::kSchema, std::string(label_) + ": " + sub.path_ + ": expected an object, found " + jsonTypeName(item.type()));
      ConstraintTarget t;
      t.has_target = true;
      if (const Json* ref = item.find("target")) {
        if (!ref->isObject()) return sub.fail("target", std::string("expected a parent-rig reference object, found ") + jsonTypeName(ref->type()));
        t.parent_reference = *ref;
      }
      RIGFIT_TRY(sub.string(item, "subtarget", t.subtarget));
      RIGFIT_TRY(sub.number(item, "weight", t.weight));
      c.targets.push_back(std::move(t));
    }
    return {};
  }

  Status axes(const Json& j, const char* prefix, std::array<bool, 3>& out) const {
    static constexpr const char* kAxes[] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a) RIGFIT_TRY(boolean(j, std::string(prefix) + kAxes[a], out[static_cast<std::size_t>(a)]));
    return {};
  }

  Status values(const Json& j, const char* prefix, const char* suffix, std::array<double, 3>& out) const {
    static constexpr const char* kAxes[] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a)
      RIGFIT_TRY(number(j, std::string(prefix) + kAxes[a] + suffix, out[static_cast<std::size_t>(a)]));
    return {};
  }

  Status readSettings(const Json& j, Constraint& c) const {
    static constexpr std::array<const char*, 7> kEuler{"AUTO", "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
    switch (c.type) {
      case ConstraintType::kCopyLocation:
        RIGFIT_TRY(axes(j, "use_", c.use_xyz));
        RIGFIT_TRY(axes(j, "invert_", c.invert_xyz));
        return boolean(j, "use_offset", c.use_offset);
      case ConstraintType::kCopyRotation: {
        c.mix_mode = "REPLACE";
        RIGFIT_TRY(axes(j, "use_", c.use_xyz));
        RIGFIT_TRY(axes(j, "invert_", c.invert_xyz));
        RIGFIT_TRY(choiceEnum(j, "euler_order", kEuler, c.euler_order));
        RIGFIT_TRY(choiceString(j, "mix_mode", std::array<const char*, 5>{"REPLACE", "ADD", "BEFORE", "AFTER", "OFFSET"}, c.mix_mode));
        // use_offset is the legacy spelling of mix_mode OFFSET (set after mix_mode, as MPFB's key order does).
        bool offset = false;
        RIGFIT_TRY(boolean(j, "use_offset", offset));
        if (offset) c.mix_mode = "OFFSET";
        else if (j.contains("use_offset") && c.mix_mode == "OFFSET") c.mix_mode = "REPLACE";
        return {};
      }
      case ConstraintType::kCopyScale:
        RIGFIT_TRY(axes(j, "use_", c.use_xyz));
        RIGFIT_TRY(number(j, "power", c.power));
        RIGFIT_TRY(boolean(j, "use_make_uniform", c.use_make_uniform));
        RIGFIT_TRY(boolean(j, "use_offset", c.use_offset));
        return boolean(j, "use_add", c.use_add);
      case ConstraintType::kCopyTransforms:
        c.mix_mode = "REPLACE";
        RIGFIT_TRY(boolean(j, "remove_target_shear", c.remove_target_shear));
        return choiceString(j, "mix_mode",
                            std::array<const char*, 7>{"REPLACE", "BEFORE_FULL", "BEFORE", "BEFORE_SPLIT", "AFTER_FULL", "AFTER", "AFTER_SPLIT"},
                            c.mix_mode);
      case ConstraintType::kChildOf: {
        static constexpr const char* kKeys[] = {"use_location_x", "use_location_y", "use_location_z",
                                                "use_rotation_x", "use_rotation_y", "use_rotation_z",
                                                "use_scale_x",    "use_scale_y",    "use_scale_z"};
        for (std::size_t k = 0; k < 9; ++k) RIGFIT_TRY(boolean(j, kKeys[k], c.child_of_channels[k]));
        // The file's value is checked but not used: MPFB sets set_inverse_pending after creating
        // the constraint, so Blender binds it to the rest pose.
        RIGFIT_TRY(boolean(j, "set_inverse_pending", c.set_inverse_pending));
        c.set_inverse_pending = true;
        return {};
      }
      case ConstraintType::kDampedTrack:
        return choice(j, "track_axis",
                      std::array<const char*, 6>{"TRACK_X", "TRACK_Y", "TRACK_Z", "TRACK_NEGATIVE_X", "TRACK_NEGATIVE_Y", "TRACK_NEGATIVE_Z"},
                      c.track_axis);
      case ConstraintType::kStretchTo:
        RIGFIT_TRY(number(j, "rest_length", c.rest_length));
        RIGFIT_TRY(number(j, "bulge", c.bulge));
        RIGFIT_TRY(number(j, "bulge_min", c.bulge_min));
        RIGFIT_TRY(number(j, "bulge_max", c.bulge_max));
        RIGFIT_TRY(number(j, "bulge_smooth", c.bulge_smooth));
        RIGFIT_TRY(boolean(j, "use_bulge_min", c.use_bulge_min));
        RIGFIT_TRY(boolean(j, "use_bulge_max", c.use_bulge_max));
        RIGFIT_TRY(choice(j, "volume", std::array<const char*, 4>{"VOLUME_XZX", "VOLUME_X", "VOLUME_Z", "NO_VOLUME"}, c.volume));
        return choice(j, "keep_axis", std::array<const char*, 3>{"PLANE_X", "PLANE_Z", "SWING_Y"}, c.keep_axis);
      case ConstraintType::kLimitLocation:
      case ConstraintType::kLimitScale:
        RIGFIT_TRY(axes(j, "use_min_", c.use_min));
        RIGFIT_TRY(axes(j, "use_max_", c.use_max));
        RIGFIT_TRY(values(j, "min_", "", c.min));
        return values(j, "max_", "", c.max);
      case ConstraintType::kLimitRotation:
        RIGFIT_TRY(axes(j, "use_limit_", c.use_limit));
        RIGFIT_TRY(values(j, "min_", "", c.min));
        RIGFIT_TRY(values(j, "max_", "", c.max));
        return choiceEnum(j, "euler_order", kEuler, c.euler_order);
      case ConstraintType::kTransform: {
        c.mix_mode = "ADD";
        static constexpr std::array<const char*, 3> kChannels{"LOCATION", "ROTATION", "SCALE"};
        static constexpr std::array<const char*, 3> kAxisNames{"X", "Y", "Z"};
        RIGFIT_TRY(choiceEnum(j, "map_from", kChannels, c.map_from));
        RIGFIT_TRY(choiceEnum(j, "map_to", kChannels, c.map_to));
        RIGFIT_TRY(choice(j, "map_to_x_from", kAxisNames, c.map_to_from[0]));
        RIGFIT_TRY(choice(j, "map_to_y_from", kAxisNames, c.map_to_from[1]));
        RIGFIT_TRY(choice(j, "map_to_z_from", kAxisNames, c.map_to_from[2]));
        RIGFIT_TRY(boolean(j, "use_motion_extrapolate", c.use_motion_extrapolate));
        RIGFIT_TRY(choiceEnum(j, "from_rotation_mode",
                              std::array<const char*, 11>{"AUTO", "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "QUATERNION",
                                                          "SWING_TWIST_X", "SWING_TWIST_Y", "SWING_TWIST_Z"},
                              c.from_rotation_mode));
        RIGFIT_TRY(choiceEnum(j, "to_euler_order", kEuler, c.to_euler_order));
        RIGFIT_TRY(choiceString(j, "mix_mode", std::array<const char*, 2>{"REPLACE", "ADD"}, c.mix_mode));
        RIGFIT_TRY(choiceString(j, "mix_mode_rot", std::array<const char*, 4>{"REPLACE", "ADD", "BEFORE", "AFTER"}, c.mix_mode_rot));
        RIGFIT_TRY(choiceString(j, "mix_mode_scale", std::array<const char*, 2>{"REPLACE", "MULTIPLY"}, c.mix_mode_scale));
        static constexpr const char* kSuffix[] = {"", "_rot", "_scale"};
        static constexpr const char* kRange[] = {"from_min_", "from_max_", "to_min_", "to_max_"};
        for (std::size_t ch = 0; ch < 3; ++ch)
          for (std::size_t r = 0; r < 4; ++r) RIGFIT_TRY(values(j, kRange[r], kSuffix[ch], c.ranges[ch][r]));
        return {};
      }
      case ConstraintType::kArmature:
      case ConstraintType::kOther: return {};
    }
    return {};
  }

  std::string_view label_;
  std::string path_;
};

}  // namespace

Expected<std::vector<Constraint>> parseConstraints(const Json& constraints, std::string_view label, std::string_view path) {
  if (!constraints.isArray())
    return makeError(ErrorCode::kSchema, std::string(label) + ": " + std::string(path) + ": expected an array");
  std::vector<Constraint> out(constraints.size());
  for (std::size_t k = 0; k < constraints.size(); ++k)
    RIGFIT_TRY(ConstraintReader(label, jsonPathIndex(path, k)).read(constraints.items()[k], out[k]));
  return out;
}

}  // namespace rigfit
