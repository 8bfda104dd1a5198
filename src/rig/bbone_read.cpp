// A rig bone's `bendy_bone` entry as typed B-Bone settings.
#include <cmath>
#include <string>

#include "rigfit/bbone.hpp"
#include "rigfit/json.hpp"

namespace rigfit {

namespace {

struct Reader {
  std::string_view where;
  Error fail(std::string_view key, const std::string& what) const {
    return makeError(ErrorCode::kSchema, jsonPathKey(where, key) + ": " + what);
  }
  Status number(const Json& v, std::string_view key, double& out) const {
    if (!v.isNumber()) return fail(key, std::string("expected a number, found ") + jsonTypeName(v.type()));
    out = v.asDouble();
    if (!std::isfinite(out)) return fail(key, "not a finite number");
    return {};
  }
  Status boolean(const Json& v, std::string_view key, bool& out) const {
    if (!v.isBool()) return fail(key, std::string("expected a boolean, found ") + jsonTypeName(v.type()));
    out = v.asBool();
    return {};
  }
  Status vec3(const Json& v, std::string_view key, Eigen::Vector3d& out) const {
    if (!v.isArray() || v.items().size() != 3) return fail(key, "expected 3 numbers");
    for (int k = 0; k < 3; ++k) {
      const Json& c = v.items()[static_cast<std::size_t>(k)];
      if (!c.isNumber() || !std::isfinite(c.asDouble())) return fail(key, "expected 3 finite numbers");
      out[k] = c.asDouble();
    }
    return {};
  }
  Status flags3(const Json& v, std::string_view key, std::array<bool, 3>& out) const {
    if (!v.isArray() || v.items().size() != 3) return fail(key, "expected 3 booleans");
    for (std::size_t k = 0; k < 3; ++k) {
      if (!v.items()[k].isBool()) return fail(key, "expected 3 booleans");
      out[k] = v.items()[k].asBool();
    }
    return {};
  }
  Status handleType(const Json& v, std::string_view key, BBoneHandleType& out) const {
    static constexpr std::pair<const char*, BBoneHandleType> kTypes[] = {
        {"AUTO", BBoneHandleType::kAuto}, {"ABSOLUTE", BBoneHandleType::kAbsolute},
        {"RELATIVE", BBoneHandleType::kRelative}, {"TANGENT", BBoneHandleType::kTangent}};
    if (v.isString())
      for (const auto& [name, type] : kTypes)
        if (v.asString() == name) {
          out = type;
          return {};
        }
    return fail(key, "expected AUTO, ABSOLUTE, RELATIVE or TANGENT");
  }
  Status handle(const Json& v, std::string_view key, const std::function<int(std::string_view)>& find_bone, int& out) const {
    if (v.isNull()) {
      out = -1;
      return {};
    }
    if (!v.isString()) return fail(key, std::string("expected a bone name or null, found ") + jsonTypeName(v.type()));
    out = find_bone(v.asString());
    if (out < 0) return fail(key, "no bone \"" + v.asString() + "\" in the rig");
    return {};
  }
};

}  // namespace

Expected<BBone> readBendyBone(const Json& entry, std::string_view where,
                              const std::function<int(std::string_view)>& find_bone) {
  const Reader r{where};
  if (!entry.isObject()) return makeError(ErrorCode::kSchema, std::string(where) + ": expected an object");
  BBone b;
  for (const auto& [key, v] : entry.members()) {
    if (key == "segments") {
      if (!v.isInt()) return r.fail(key, std::string("expected an integer, found ") + jsonTypeName(v.type()));
      if (v.asInt() < 1 || v.asInt() > kMaxBBoneSegments)
        return r.fail(key, std::to_string(v.asInt()) + " is outside 1..32 (Blender's range)");
      b.segments = static_cast<int>(v.asInt());
    } else if (key == "mapping_mode") {
      if (v.isString() && v.asString() == "STRAIGHT") {
        b.mapping = BBoneMapping::kStraight;
      } else if (v.isString() && v.asString() == "CURVED") {
        b.mapping = BBoneMapping::kCurved;
      } else {
        return r.fail(key, "expected STRAIGHT or CURVED");
      }
    } else if (key == "handle_type_start") {
      RIGFIT_TRY(r.handleType(v, key, b.handle_type_start));
    } else if (key == "handle_type_end") {
      RIGFIT_TRY(r.handleType(v, key, b.handle_type_end));
    } else if (key == "custom_handle_start") {
      RIGFIT_TRY(r.handle(v, key, find_bone, b.custom_handle_start));
    } else if (key == "custom_handle_end") {
      RIGFIT_TRY(r.handle(v, key, find_bone, b.custom_handle_end));
    } else if (key == "handle_use_ease_start") {
      RIGFIT_TRY(r.boolean(v, key, b.handle_use_ease_start));
    } else if (key == "handle_use_ease_end") {
      RIGFIT_TRY(r.boolean(v, key, b.handle_use_ease_end));
    } else if (key == "handle_use_scale_start") {
      RIGFIT_TRY(r.flags3(v, key, b.handle_use_scale_start));
    } else if (key == "handle_use_scale_end") {
      RIGFIT_TRY(r.flags3(v, key, b.handle_use_scale_end));
    } else if (key == "easein") {
      RIGFIT_TRY(r.number(v, key, b.easein));
    } else if (key == "easeout") {
      RIGFIT_TRY(r.number(v, key, b.easeout));
    } else if (key == "rollin") {
      RIGFIT_TRY(r.number(v, key, b.rollin));
    } else if (key == "rollout") {
      RIGFIT_TRY(r.number(v, key, b.rollout));
    } else if (key == "curveinx") {
      RIGFIT_TRY(r.number(v, key, b.curveinx));
    } else if (key == "curveinz") {
      RIGFIT_TRY(r.number(v, key, b.curveinz));
    } else if (key == "curveoutx") {
      RIGFIT_TRY(r.number(v, key, b.curveoutx));
    } else if (key == "curveoutz") {
      RIGFIT_TRY(r.number(v, key, b.curveoutz));
    } else if (key == "scalein") {
      RIGFIT_TRY(r.vec3(v, key, b.scalein));
    } else if (key == "scaleout") {
      RIGFIT_TRY(r.vec3(v, key, b.scaleout));
    } else if (key == "x" || key == "z") {
      double display = 0.0;  // bbone_x / bbone_z: display size only
      RIGFIT_TRY(r.number(v, key, display));
    } else {
      return r.fail(key, "unknown B-Bone setting (Blender has no bbone_" + key + ")");
    }
  }
  return b;
}

}  // namespace rigfit
