// Where bone positions for "save rig" come from: rigfit's skeleton JSON (glTF skeletons are read
// in src/formats/gltf/gltf_skeleton_reader.cpp).
#include <cmath>
#include <unordered_map>

#include "rigfit/author.hpp"

namespace rigfit {
namespace {

Error bad(std::string_view label, const std::string& path, const std::string& what) {
  return makeError(ErrorCode::kSchema, std::string(label) + ": " + path + ": " + what);
}

Expected<Eigen::Vector3d> vec3(const Json* j, std::string_view label, const std::string& path) {
  if (!j) return bad(label, path, "missing (required)");
  if (!j->isArray() || j->size() != 3) return bad(label, path, "expected an array of 3 numbers");
  Eigen::Vector3d v;
  for (int k = 0; k < 3; ++k) {
    const Json& x = j->items()[static_cast<std::size_t>(k)];
    if (!x.isNumber() || !std::isfinite(x.asDouble())) return bad(label, jsonPathIndex(path, static_cast<std::size_t>(k)), "expected a finite number");
    v[k] = x.asDouble();
  }
  return v;
}

}  // namespace

Expected<SkeletonSource> parseSkeletonJson(const Json& doc, std::string_view label) {
  SkeletonSource src;
  src.kind = "rigfit-skeleton";
  const Json* bones = doc.isObject() ? doc.find("bones") : nullptr;
  if (!bones || !bones->isArray()) return bad(label, "bones", "expected an array of bones (a rigfit-skeleton/1 file)");
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < bones->size(); ++i) {
    const Json& b = bones->items()[i];
    const std::string path = jsonPathIndex("bones", i);
    if (!b.isObject()) return bad(label, path, "expected an object");
    BonePlacement p;
    const Json* name = b.find("name");
    if (!name || !name->isString() || name->asString().empty()) return bad(label, path + ".name", "expected a non-empty string");
    p.name = name->asString();
    if (!seen.emplace(p.name, i).second) return bad(label, path + ".name", "bone \"" + p.name + "\" appears twice");
    if (const Json* parent = b.find("parent"); parent && !parent->isNull()) {
      if (!parent->isString()) return bad(label, path + ".parent", "expected a string or null");
      p.parent = parent->asString();
    }
    auto head = vec3(b.find("head"), label, path + ".head");
    if (!head) return head.error();
    auto tail = vec3(b.find("tail"), label, path + ".tail");
    if (!tail) return tail.error();
    p.head = *head;
    p.tail = *tail;
    if (const Json* roll = b.find("roll")) {
      if (!roll->isNumber() || !std::isfinite(roll->asDouble())) return bad(label, path + ".roll", "expected a finite number");
      p.roll = roll->asDouble();
    } else {
      src.notes.push_back("bone \"" + p.name + "\": no roll, 0 used");
    }
    src.bones.push_back(std::move(p));
  }
  for (std::size_t i = 0; i < src.bones.size(); ++i)
    if (!src.bones[i].parent.empty() && !seen.count(src.bones[i].parent))
      return bad(label, jsonPathIndex("bones", i) + ".parent", "no bone named \"" + src.bones[i].parent + "\"");
  return src;
}

}  // namespace rigfit
