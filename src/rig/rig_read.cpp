// Reading rig.*.json: layout detection, upgrade to 110, and typed bone entries.
#include <array>
#include <cmath>
#include <iterator>
#include <string_view>
#include <unordered_set>

#include "core/json_read.hpp"
#include "rigfit/rig.hpp"

namespace rigfit {

const char* strategyName(Strategy s) {
  switch (s) {
    case Strategy::kCube: return "CUBE";
    case Strategy::kVertex: return "VERTEX";
    case Strategy::kMean: return "MEAN";
    case Strategy::kXyz: return "XYZ";
    case Strategy::kDefault: return "DEFAULT";
  }
  return "?";
}

const char* rollStrategyName(RollStrategy s) {
  switch (s) {
    case RollStrategy::kNone: return "";
    case RollStrategy::kAlignZWorldZ: return "ALIGN_Z_WORLD_Z";
    case RollStrategy::kAlignXWorldX: return "ALIGN_X_WORLD_X";
    case RollStrategy::kAlignZReferenceZ: return "ALIGN_Z_REFERENCE_Z";
  }
  return "?";
}

const char* inheritScaleName(InheritScale s) {
  switch (s) {
    case InheritScale::kFull: return "FULL";
    case InheritScale::kFixShear: return "FIX_SHEAR";
    case InheritScale::kAligned: return "ALIGNED";
    case InheritScale::kAverage: return "AVERAGE";
    case InheritScale::kNone: return "NONE";
    case InheritScale::kNoneLegacy: return "NONE_LEGACY";
  }
  return "?";
}

const char* rotationModeName(RotationMode m) {
  switch (m) {
    case RotationMode::kQuaternion: return "QUATERNION";
    case RotationMode::kXYZ: return "XYZ";
    case RotationMode::kXZY: return "XZY";
    case RotationMode::kYXZ: return "YXZ";
    case RotationMode::kYZX: return "YZX";
    case RotationMode::kZXY: return "ZXY";
    case RotationMode::kZYX: return "ZYX";
    case RotationMode::kAxisAngle: return "AXIS_ANGLE";
  }
  return "?";
}

const BoneDef* RigDefinition::find(std::string_view name) const {
  for (const auto& b : bones)
    if (b.name == name) return &b;
  return nullptr;
}

namespace {

template <typename E, std::size_t N>
bool enumFromName(std::string_view s, const char* (*name)(E), const std::array<E, N>& all, E& out) {
  for (E e : all)
    if (s == name(e)) { out = e; return true; }
  return false;
}

// A JSON path for messages, made into text only when a message needs it: the path of `parent`
// (or nothing) followed by `key` (see jsonPathKey).
struct Path {
  const Path* parent;
  std::string_view key;
  std::string str() const { return jsonPathKey(parent ? parent->str() : std::string(), key); }
  Path operator/(std::string_view k) const { return Path{this, k}; }
};

class RigReader {
 public:
  explicit RigReader(std::string_view label) : label_(label) {}

  Error fail(const std::string& path, const std::string& what, ErrorCode code = ErrorCode::kSchema) const {
    return makeError(code, label_ + ": " + path + ": " + what);
  }
  Error fail(const Path& path, const std::string& what, ErrorCode code = ErrorCode::kSchema) const { return fail(path.str(), what, code); }

  Expected<RigDefinition> run(Json doc) {
    RigDefinition rig;
    rig.label = label_;
    if (!doc.isObject()) return fail("$", std::string("expected an object, found ") + jsonTypeName(doc.type()));
    if (doc.contains("bones")) {
      rig.layout = RigLayout::kBones;
      if (doc.contains("joints")) return fail("$", "a MakeHuman .mhskel skeleton, not an MPFB rig", ErrorCode::kUnsupported);
      const Json* v = doc.find("version");
      if (!v) return fail("version", "missing (required when the file has \"bones\")");
      if (!v->isInt()) return fail("version", std::string("expected an integer, found ") + jsonTypeName(v->type()));
      if (v->asInt() > 110) return fail("version", std::to_string(v->asInt()) + " is newer than 110, the newest rigfit reads", ErrorCode::kUnsupported);
      if (v->asInt() < 100) return fail("version", std::to_string(v->asInt()) + " is older than 100", ErrorCode::kUnsupported);
    } else {
      rig.layout = RigLayout::kLegacy;
      Json wrapped = Json::object();
      wrapped.set("bones", std::move(doc));
      wrapped.set("is_subrig", false);
      wrapped.set("version", 100);
      doc = std::move(wrapped);
    }
    rig.source_version = static_cast<int>(doc.find("version")->asInt());
    if (!doc.find("bones")->isObject()) return fail("bones", std::string("expected an object, found ") + jsonTypeName(doc.find("bones")->type()));
    // Nothing downstream means anything without a bone (a skin needs a joint): say so here.
    if (doc.find("bones")->size() == 0)
      return fail(rig.layout == RigLayout::kLegacy ? "$" : "bones", "no bones (a rig needs at least one)");
    // Bone entries must be objects before the upgrade walks them.
    for (const auto& [name, bone] : doc.find("bones")->members())
      if (!bone.isObject()) return fail(jsonPathKey("bones", name), std::string("expected an object, found ") + jsonTypeName(bone.type()));
    if (rig.source_version < 110) {
      RIGFIT_TRY(checkUpgradeInputs(doc));
      upgradeRigJson100To110(doc);
    }
    rig.version = 110;
    RIGFIT_TRY(readHeader(doc, rig));
    Json bones = std::move(*doc.find("bones"));
    doc.erase("bones");
    rig.header = std::move(doc);
    rig.bones.reserve(bones.size());
    const Path bones_path{nullptr, "bones"};
    for (auto& [name, entry] : bones.members()) {
      BoneDef b;
      b.name = name;
      RIGFIT_TRY(readBone(bones_path / name, entry, b));
      b.json = std::move(entry);
      rig.bones.push_back(std::move(b));
    }
    if (rig.header.contains("collections")) RIGFIT_TRY(checkCollections(rig));
    RIGFIT_TRY(checkConstraintTargets(rig));
    return rig;
  }

 private:
  // A bone's collections must be among the header's: MPFB assigns bones to the collections it
  // created from the header, and fails on any other name when it builds the armature.
  Status checkCollections(const RigDefinition& rig) const {
    const std::unordered_set<std::string_view> known(rig.collections.begin(), rig.collections.end());
    for (const BoneDef& b : rig.bones)
      for (std::size_t k = 0; k < b.collections.size(); ++k)
        if (!known.count(b.collections[k]))
          return fail(jsonPathIndex(jsonPathKey("bones", b.name) + ".collections", k),
                      "collection \"" + b.collections[k] + "\" is not among the rig's collections (MPFB could not build the armature)");
    return {};
  }

  // The upgrade reads layers and rigify parameters; reject shapes it cannot read.
  Status checkUpgradeInputs(const Json& doc) const {
    for (const auto& [name, bone] : doc.find("bones")->members()) {
      const std::string path = jsonPathKey("bones", name);
      if (const Json* layers = bone.find("layers")) {
        if (!layers->isArray()) return fail(path + ".layers", "expected an array of 32 booleans");
        for (std::size_t k = 0; k < layers->size(); ++k)
          if (!layers->items()[k].isBool()) return fail(jsonPathIndex(path + ".layers", k), "expected a boolean");
        if (layers->size() > 32) return fail(path + ".layers", "more than 32 layers");
      }
      if (const Json* rigify = bone.find("rigify")) {
        if (!rigify->isObject()) return fail(path + ".rigify", "expected an object");
        if (const Json* params = rigify->find("rigify_parameters"))
          if (!params->isObject()) return fail(path + ".rigify.rigify_parameters", "expected an object");
        if (const Json* type = rigify->find("rigify_type"))
          if (!type->isString()) return fail(path + ".rigify.rigify_type", "expected a string");
      }
    }
    if (const Json* ui = doc.find("rigify_ui")) {
      if (!ui->isObject() && !ui->isNull()) return fail("rigify_ui", "expected an object");
      if (ui->isObject())
        if (const Json* layers = ui->find("rigify_layers")) {
          if (!layers->isArray()) return fail("rigify_ui.rigify_layers", "expected an array");
          for (std::size_t k = 0; k < layers->size(); ++k)
            if (!layers->items()[k].isObject()) return fail(jsonPathIndex("rigify_ui.rigify_layers", k), "expected an object");
        }
    }
    return {};
  }

  Status readStringList(const Json& j, const Path& path, std::vector<std::string>& out) const {
    if (!j.isArray()) return fail(path, std::string("expected an array of strings, found ") + jsonTypeName(j.type()));
    for (std::size_t k = 0; k < j.size(); ++k) {
      if (!j.items()[k].isString()) return fail(jsonPathIndex(path.str(), k), "expected a string");
      out.push_back(j.items()[k].asString());
    }
    return {};
  }

  Status readVec3(const Json& j, const Path& path, Vec3d& out) const {
    if (!j.isArray() || j.size() != 3) return fail(path, "expected [x, y, z]");
    for (std::size_t k = 0; k < 3; ++k) {
      const Json& c = j.items()[k];
      if (!c.isNumber()) return fail(jsonPathIndex(path.str(), k), std::string("expected a number, found ") + jsonTypeName(c.type()));
      out[k] = c.asDouble();
      if (!std::isfinite(out[k])) return fail(jsonPathIndex(path.str(), k), "not a finite number");
    }
    return {};
  }

  Status readHeader(const Json& doc, RigDefinition& rig) const {
    if (const Json* s = doc.find("is_subrig")) {
      if (!s->isBool()) return fail("is_subrig", "expected a boolean");
      rig.is_subrig = s->asBool();
    }
    if (const Json* s = doc.find("scale_factor")) {
      if (!s->isNull()) {
        if (!s->isNumber()) return fail("scale_factor", "expected a number");
        if (!std::isfinite(s->asDouble()) || s->asDouble() < 0) return fail("scale_factor", "must be a finite number >= 0");
        if (s->asDouble() != 0.0) rig.scale_factor = s->asDouble();  // only truthy values count
      }
    }
    if (const Json* c = doc.find("collections")) RIGFIT_TRY(readStringList(*c, Path{nullptr, "collections"}, rig.collections));
    if (const Json* c = doc.find("extra_bones")) RIGFIT_TRY(readStringList(*c, Path{nullptr, "extra_bones"}, rig.extra_bones));
    return {};
  }

  Status readEnd(const Json& j, const Path& path, EndDef& e) const {
    if (!j.isObject()) return fail(path, std::string("expected an object, found ") + jsonTypeName(j.type()));
    const Json* s = j.find("strategy");
    if (!s) return fail(path / "strategy", "missing");
    if (!s->isString()) return fail(path / "strategy", std::string("expected a string, found ") + jsonTypeName(s->type()));
    const std::string& name = s->asString();
    static constexpr std::array kAll{Strategy::kCube, Strategy::kVertex, Strategy::kMean, Strategy::kXyz, Strategy::kDefault};
    if (!enumFromName(name, strategyName, kAll, e.strategy))
      return fail(path / "strategy", "unknown strategy \"" + name + "\" (expected CUBE, VERTEX, MEAN, XYZ or DEFAULT)");
    auto indexList = [&](std::size_t min_count) -> Status {
      const Json* v = j.find("vertex_indices");
      const Path p = path / "vertex_indices";
      if (!v) return fail(p, "missing (required by " + name + ")");
      if (!v->isArray()) return fail(p, std::string("expected an array of integers, found ") + jsonTypeName(v->type()));
      if (v->size() < min_count) return fail(p, name + " needs at least " + std::to_string(min_count) + " indices, found " + std::to_string(v->size()));
      e.vertex_indices.reserve(v->size());
      for (std::size_t k = 0; k < v->size(); ++k) {
        if (!v->items()[k].isInt()) return fail(jsonPathIndex(p.str(), k), std::string("expected an integer, found ") + jsonTypeName(v->items()[k].type()));
        e.vertex_indices.push_back(v->items()[k].asInt());
      }
      return {};
    };
    switch (e.strategy) {
      case Strategy::kCube: {
        const Json* c = j.find("cube_name");
        if (!c) return fail(path / "cube_name", "missing (required by CUBE)");
        if (!c->isString()) return fail(path / "cube_name", "expected a string");
        e.cube_name = c->asString();
        break;
      }
      case Strategy::kVertex: {
        const Json* v = j.find("vertex_index");
        if (!v) return fail(path / "vertex_index", "missing (required by VERTEX)");
        if (!v->isInt()) return fail(path / "vertex_index", std::string("expected an integer, found ") + jsonTypeName(v->type()));
        e.vertex_index = v->asInt();
        break;
      }
      case Strategy::kMean: RIGFIT_TRY(indexList(1)); break;
      case Strategy::kXyz: RIGFIT_TRY(indexList(3)); break;
      case Strategy::kDefault: break;
    }
    if (const Json* o = j.find("offset")) {
      Vec3d v{};
      RIGFIT_TRY(readVec3(*o, path / "offset", v));
      e.offset = v;
    }
    if (const Json* d = j.find("default_position")) {
      Vec3d v{};
      RIGFIT_TRY(readVec3(*d, path / "default_position", v));
      e.default_position = v;
    }
    return {};
  }

  // A constraint target on the rig itself must name one of its bones (parent-rig references are
  // resolved when a sub-rig is joined to its main rig).
  Status checkConstraintTargets(const RigDefinition& rig) const {
    std::unordered_set<std::string_view> names;
    for (const BoneDef& b : rig.bones) names.insert(b.name);
    for (const BoneDef& b : rig.bones)
      for (std::size_t k = 0; k < b.constraints.size(); ++k) {
        const Constraint& c = b.constraints[k];
        const std::string at = jsonPathIndex(jsonPathKey(jsonPathKey("bones", b.name), "constraints"), k);
        for (std::size_t t = 0; t < c.targets.size(); ++t) {
          const ConstraintTarget& target = c.targets[t];
          if (!target.has_target || target.parent_reference || target.subtarget.empty() || names.contains(target.subtarget)) continue;
          const std::string key = c.type == ConstraintType::kArmature ? jsonPathIndex(at + ".targets", t) + ".subtarget" : at + ".subtarget";
          return fail(key, "no bone \"" + target.subtarget + "\" in the rig");
        }
        if (c.space.has_target && !c.space.subtarget.empty() && !names.contains(c.space.subtarget))
          return fail(at + ".space_subtarget", "no bone \"" + c.space.subtarget + "\" in the rig");
      }
    return {};
  }

  Status readBone(const Path& path, const Json& j, BoneDef& b) const {
    // The required keys, found once.
    static constexpr const char* kRequired[] = {"head", "tail", "roll", "parent", "use_connect", "use_local_location",
                                                "use_inherit_rotation", "inherit_scale", "rigify"};
    const Json* required[std::size(kRequired)];
    for (std::size_t k = 0; k < std::size(kRequired); ++k)
      if (!(required[k] = j.find(kRequired[k]))) return fail(path / kRequired[k], "missing (required)");
    const auto& [head, tail, roll, parent, use_connect, use_local_location, use_inherit_rotation, inherit_scale, rigify] = required;
    RIGFIT_TRY(readEnd(*head, path / "head", b.head));
    RIGFIT_TRY(readEnd(*tail, path / "tail", b.tail));
    if (!roll->isNumber()) return fail(path / "roll", std::string("expected a number, found ") + jsonTypeName(roll->type()));
    b.roll = roll->asDouble();
    if (!std::isfinite(b.roll)) return fail(path / "roll", "not a finite number");
    if (!parent->isString()) return fail(path / "parent", std::string("expected a string, found ") + jsonTypeName(parent->type()));
    b.parent = parent->asString();
    auto flag = [&](const Json* f, const char* key, bool& out) -> Status {
      if (!f->isBool()) return fail(path / key, std::string("expected a boolean, found ") + jsonTypeName(f->type()));
      out = f->asBool();
      return {};
    };
    RIGFIT_TRY(flag(use_connect, "use_connect", b.use_connect));
    RIGFIT_TRY(flag(use_local_location, "use_local_location", b.use_local_location));
    RIGFIT_TRY(flag(use_inherit_rotation, "use_inherit_rotation", b.use_inherit_rotation));
    static constexpr std::array kScales{InheritScale::kFull, InheritScale::kFixShear, InheritScale::kAligned,
                                        InheritScale::kAverage, InheritScale::kNone, InheritScale::kNoneLegacy};
    if (!inherit_scale->isString() || !enumFromName(inherit_scale->asString(), inheritScaleName, kScales, b.inherit_scale))
      return fail(path / "inherit_scale", "expected one of FULL, FIX_SHEAR, ALIGNED, AVERAGE, NONE, NONE_LEGACY");
    if (!rigify->isObject()) return fail(path / "rigify", "expected an object");
    if (const Json* m = j.find("rotation_mode")) {
      static constexpr std::array kModes{RotationMode::kQuaternion, RotationMode::kXYZ, RotationMode::kXZY, RotationMode::kYXZ,
                                         RotationMode::kYZX, RotationMode::kZXY, RotationMode::kZYX, RotationMode::kAxisAngle};
      if (!m->isString() || !enumFromName(m->asString(), rotationModeName, kModes, b.rotation_mode))
        return fail(path / "rotation_mode", "expected QUATERNION, AXIS_ANGLE or an Euler order such as XYZ");
    }
    if (const Json* rs = j.find("roll_strategy")) {
      if (!rs->isString() && !rs->isNull()) return fail(path / "roll_strategy", "expected a string");
      if (rs->isString() && !rs->asString().empty()) {
        static constexpr std::array kRolls{RollStrategy::kAlignZWorldZ, RollStrategy::kAlignXWorldX, RollStrategy::kAlignZReferenceZ};
        if (!enumFromName(rs->asString(), rollStrategyName, kRolls, b.roll_strategy))
          return fail(path / "roll_strategy", "unknown roll strategy \"" + rs->asString() +
                                                  "\" (expected ALIGN_Z_WORLD_Z, ALIGN_X_WORLD_X or ALIGN_Z_REFERENCE_Z)");
      }
    }
    if (const Json* rz = j.find("roll_reference_z")) {
      if (!rz->isNull()) {
        Vec3d v{};
        RIGFIT_TRY(readVec3(*rz, path / "roll_reference_z", v));
        b.roll_reference_z = v;
      }
    }
    if (const Json* c = j.find("collections")) RIGFIT_TRY(readStringList(*c, path / "collections", b.collections));
    if (const Json* c = j.find("constraints")) {
      auto constraints = parseConstraints(*c, label_, (path / "constraints").str());
      if (!constraints) return constraints.error();
      b.constraints = std::move(*constraints);
    }
    if (const Json* c = j.find("bendy_bone"))
      if (!c->isObject()) return fail(path / "bendy_bone", "expected an object");
    return {};
  }

  std::string label_;
};

}  // namespace

Expected<RigDefinition> rigFromJson(Json json, std::string_view label) { return RigReader(label).run(std::move(json)); }

namespace {

Expected<RigDefinition> parsePadded(const detail::PaddedJson& text, std::string_view label) {
  auto json = detail::parseJson(text, label);
  if (!json) return json.error();
  auto rig = rigFromJson(std::move(*json), label);
  if (rig) rig->final_newline = !text.text().empty() && text.text().back() == '\n';
  return rig;
}

}  // namespace

Expected<RigDefinition> parseRig(std::string_view text, std::string_view label) { return parsePadded(detail::PaddedJson(text), label); }

Expected<RigDefinition> parseRig(const FileText& text, std::string_view label) { return parsePadded(detail::PaddedJson(text), label); }

Expected<RigDefinition> readRig(const std::string& path) {
  auto file = loadFile(path);
  if (!file) return file.error();
  return parseRig(*file, path);
}

}  // namespace rigfit
