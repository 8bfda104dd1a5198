// Writing rig.*.json as MPFB does. Each bone starts from the entry as loaded (every key kept);
// typed fields that were changed in memory are written over it.
#include <algorithm>

#include "rigfit/rig.hpp"

namespace rigfit {
namespace {

Json vec3(const Vec3d& v) { return Json::vec3(v[0], v[1], v[2]); }

bool sameNumber(const Json* j, double v) { return j && j->isNumber() && j->asDouble() == v; }

bool sameVec3(const Json* j, const Vec3d& v) {
  if (!j || !j->isArray() || j->size() != 3) return false;
  for (std::size_t k = 0; k < 3; ++k)
    if (!sameNumber(&j->items()[k], v[k])) return false;
  return true;
}

bool sameString(const Json* j, std::string_view s) { return j && j->isString() && j->asString() == s; }
bool sameBool(const Json* j, bool b) { return j && j->isBool() && j->asBool() == b; }

bool sameInts(const Json* j, const std::vector<std::int64_t>& v) {
  if (!j || !j->isArray() || j->size() != v.size()) return false;
  for (std::size_t k = 0; k < v.size(); ++k)
    if (!j->items()[k].isInt() || j->items()[k].asInt() != v[k]) return false;
  return true;
}

void patchEnd(Json& j, const EndDef& e) {
  if (!j.isObject()) j = Json::object();
  if (!sameString(j.find("strategy"), strategyName(e.strategy))) j.set("strategy", strategyName(e.strategy));
  // Keys that belong to other strategies are dropped when the strategy changes.
  if (e.strategy == Strategy::kCube) {
    if (!sameString(j.find("cube_name"), e.cube_name)) j.set("cube_name", e.cube_name);
  } else {
    j.erase("cube_name");
  }
  if (e.strategy == Strategy::kVertex) {
    const Json* v = j.find("vertex_index");
    if (!v || !v->isInt() || v->asInt() != e.vertex_index) j.set("vertex_index", e.vertex_index);
  } else {
    j.erase("vertex_index");
  }
  if (e.strategy == Strategy::kMean || e.strategy == Strategy::kXyz) {
    if (!sameInts(j.find("vertex_indices"), e.vertex_indices)) {
      Json a = Json::array();
      for (auto i : e.vertex_indices) a.push(i);
      j.set("vertex_indices", std::move(a));
    }
  } else {
    j.erase("vertex_indices");
  }
  if (e.offset) {
    if (!sameVec3(j.find("offset"), *e.offset)) j.set("offset", vec3(*e.offset));
  } else {
    j.erase("offset");
  }
  if (e.default_position) {
    if (!sameVec3(j.find("default_position"), *e.default_position)) j.set("default_position", vec3(*e.default_position));
  } else {
    j.erase("default_position");
  }
}

Json boneToJson(const BoneDef& b) {
  Json j = b.json.isObject() ? b.json : Json::object();
  patchEnd(*(j.find("head") ? j.find("head") : &j.set("head", Json::object())), b.head);
  patchEnd(*(j.find("tail") ? j.find("tail") : &j.set("tail", Json::object())), b.tail);
  if (!sameNumber(j.find("roll"), b.roll)) j.set("roll", b.roll);
  if (!sameString(j.find("parent"), b.parent)) j.set("parent", b.parent);
  if (!sameBool(j.find("use_connect"), b.use_connect)) j.set("use_connect", b.use_connect);
  if (!sameBool(j.find("use_local_location"), b.use_local_location)) j.set("use_local_location", b.use_local_location);
  if (!sameBool(j.find("use_inherit_rotation"), b.use_inherit_rotation)) j.set("use_inherit_rotation", b.use_inherit_rotation);
  if (!sameString(j.find("inherit_scale"), inheritScaleName(b.inherit_scale))) j.set("inherit_scale", inheritScaleName(b.inherit_scale));
  if (!j.find("rigify")) j.set("rigify", Json::object());
  if (b.rotation_mode == RotationMode::kQuaternion) {
    if (const Json* m = j.find("rotation_mode"); m && !sameString(m, "QUATERNION")) j.erase("rotation_mode");
  } else if (!sameString(j.find("rotation_mode"), rotationModeName(b.rotation_mode))) {
    j.set("rotation_mode", rotationModeName(b.rotation_mode));
  }
  if (b.roll_strategy == RollStrategy::kNone) {
    if (const Json* r = j.find("roll_strategy"); r && r->isString() && !r->asString().empty()) j.erase("roll_strategy");
  } else if (!sameString(j.find("roll_strategy"), rollStrategyName(b.roll_strategy))) {
    j.set("roll_strategy", rollStrategyName(b.roll_strategy));
  }
  if (b.roll_reference_z) {
    if (!sameVec3(j.find("roll_reference_z"), *b.roll_reference_z)) j.set("roll_reference_z", vec3(*b.roll_reference_z));
  } else if (const Json* r = j.find("roll_reference_z"); r && !r->isNull()) {
    j.erase("roll_reference_z");
  }
  // Collections are written in every v110 file, sorted by name.
  std::vector<std::string> cols = b.collections;
  std::sort(cols.begin(), cols.end());
  std::vector<std::string> stored;
  if (const Json* c = j.find("collections"); c && c->isArray())
    for (const Json& s : c->items())
      if (s.isString()) stored.push_back(s.asString());
  if (stored != b.collections || !j.find("collections")) {
    Json a = Json::array();
    for (auto& c : cols) a.push(c);
    j.set("collections", std::move(a));
  }
  return j;
}

}  // namespace

Json rigToJson(const RigDefinition& rig) {
  Json doc = rig.header.isObject() ? rig.header : Json::object();
  Json bones = Json::object();
  bones.members().reserve(rig.bones.size());
  for (const BoneDef& b : rig.bones) bones.members().emplace_back(b.name, boneToJson(b));
  doc.set("bones", std::move(bones));
  if (const Json* v = doc.find("version"); !v || !v->isInt() || v->asInt() != rig.version) doc.set("version", rig.version);
  if (const Json* s = doc.find("is_subrig"); !sameBool(s, rig.is_subrig)) doc.set("is_subrig", rig.is_subrig);
  return doc;
}

std::string writeRig(const RigDefinition& rig) {
  JsonWriteOptions o;
  o.final_newline = rig.final_newline;
  return writeJson(rigToJson(rig), o);
}

}  // namespace rigfit
