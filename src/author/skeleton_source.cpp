// Where bone positions for "save rig" come from: rigfit's skeleton JSON and glTF skeletons.
#include <cmath>
#include <cstring>
#include <functional>
#include <unordered_map>

#include <Eigen/Geometry>

#include "rigfit/author.hpp"
#include "rigfit/bone_frame.hpp"

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

// A rigfit export's extras.tail: {"x": .., "y": .., "z": ..} (an object: Assimp aborts on arrays
// in node extras), or [x, y, z] as earlier exports wrote it.
Expected<Eigen::Vector3d> extrasTail(const Json* j, std::string_view label, const std::string& path) {
  if (!j || !j->isObject()) return vec3(j, label, path);
  Eigen::Vector3d v;
  for (int k = 0; k < 3; ++k) {
    const std::string key(1, static_cast<char>('x' + k));
    const Json* x = j->find(key);
    if (!x || !x->isNumber() || !std::isfinite(x->asDouble())) return bad(label, path + "." + key, "expected a finite number");
    v[k] = x->asDouble();
  }
  return v;
}

// glTF is Y up; the rig frame Z up: (x, y, z) -> (x, -z, y) (the inverse of rigfit's export).
Eigen::Matrix3d gltfToRig() {
  Eigen::Matrix3d c = Eigen::Matrix3d::Zero();
  c(0, 0) = 1.0;
  c(1, 2) = -1.0;
  c(2, 1) = 1.0;
  return c;
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

Expected<SkeletonSource> parseGltfSkeleton(std::string_view bytes, std::string_view label) {
  // A .glb is a 12-byte header and chunks (length, type, data); the first chunk is the JSON.
  std::string_view text = bytes;
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0) {
    auto u32 = [&](std::size_t at) {
      std::uint32_t v = 0;
      std::memcpy(&v, bytes.data() + at, 4);
      return v;  // little-endian hosts only, as the rest of rigfit's binary I/O
    };
    if (bytes.size() < 20) return makeError(ErrorCode::kSyntax, std::string(label) + ": byte 0: a GLB file shorter than its header");
    if (u32(4) != 2) return makeError(ErrorCode::kUnsupported, std::string(label) + ": byte 4: GLB version " + std::to_string(u32(4)) + " (expected 2)");
    if (u32(8) > bytes.size()) return makeError(ErrorCode::kSyntax, std::string(label) + ": byte 8: the header says " + std::to_string(u32(8)) +
                                                                       " bytes but the file has " + std::to_string(bytes.size()));
    const std::uint32_t len = u32(12);
    if (u32(16) != 0x4E4F534Au)
      return makeError(ErrorCode::kSyntax, std::string(label) + ": byte 16: the first chunk is not JSON");
    if (len > bytes.size() - 20) return makeError(ErrorCode::kSyntax, std::string(label) + ": byte 12: the JSON chunk of " + std::to_string(len) +
                                                                          " bytes runs past the end of the file");
    text = bytes.substr(20, len);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\0')) text.remove_suffix(1);
  }
  auto parsed = parseJson(text, label);
  if (!parsed) return parsed.error();
  const Json& doc = *parsed;
  if (!doc.isObject()) return bad(label, "(root)", "expected a glTF object");
  const Json* nodes = doc.find("nodes");
  if (!nodes || !nodes->isArray() || nodes->size() == 0) return bad(label, "nodes", "no nodes: the file holds no skeleton");
  const std::size_t nn = nodes->size();

  // Local matrices and parents of every node.
  std::vector<Eigen::Matrix4d> local(nn, Eigen::Matrix4d::Identity());
  std::vector<int> parent(nn, -1);
  for (std::size_t i = 0; i < nn; ++i) {
    const Json& n = nodes->items()[i];
    const std::string path = jsonPathIndex("nodes", i);
    if (!n.isObject()) return bad(label, path, "expected an object");
    auto numbers = [&](const char* key, std::size_t count, double* out) -> Status {
      const Json* a = n.find(key);
      if (!a) return {};
      if (!a->isArray() || a->size() != count) return bad(label, path + "." + key, "expected " + std::to_string(count) + " numbers");
      for (std::size_t k = 0; k < count; ++k) {
        if (!a->items()[k].isNumber()) return bad(label, jsonPathIndex(path + "." + key, k), "expected a number");
        out[k] = a->items()[k].asDouble();
      }
      return {};
    };
    double m[16];
    if (n.find("matrix")) {
      RIGFIT_TRY(numbers("matrix", 16, m));
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) local[i](r, c) = m[4 * c + r];  // column-major
    } else {
      double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
      RIGFIT_TRY(numbers("translation", 3, t));
      RIGFIT_TRY(numbers("rotation", 4, q));
      RIGFIT_TRY(numbers("scale", 3, s));
      Eigen::Quaterniond quat(q[3], q[0], q[1], q[2]);
      if (quat.norm() == 0.0) return bad(label, path + ".rotation", "a zero quaternion");
      quat.normalize();
      local[i].topLeftCorner<3, 3>() = quat.toRotationMatrix() * Eigen::Vector3d(s[0], s[1], s[2]).asDiagonal();
      local[i].topRightCorner<3, 1>() = Eigen::Vector3d(t[0], t[1], t[2]);
    }
    if (const Json* ch = n.find("children")) {
      if (!ch->isArray()) return bad(label, path + ".children", "expected an array of node indices");
      for (std::size_t k = 0; k < ch->size(); ++k) {
        const Json& c = ch->items()[k];
        if (!c.isInt() || c.asInt() < 0 || static_cast<std::size_t>(c.asInt()) >= nn)
          return bad(label, jsonPathIndex(path + ".children", k), "expected a node index below " + std::to_string(nn));
        const std::size_t ci = static_cast<std::size_t>(c.asInt());
        if (parent[ci] != -1 || ci == i) return bad(label, jsonPathIndex(path + ".children", k), "node " + std::to_string(ci) + " has two parents");
        parent[ci] = static_cast<int>(i);
      }
    }
  }
  // World matrices (a cycle shows up as a chain longer than the node count).
  std::vector<Eigen::Matrix4d> world(nn);
  std::vector<std::uint8_t> done(nn, 0);
  for (std::size_t i = 0; i < nn; ++i) {
    std::vector<std::size_t> chain;
    for (int q = static_cast<int>(i); q >= 0 && !done[static_cast<std::size_t>(q)]; q = parent[static_cast<std::size_t>(q)]) {
      chain.push_back(static_cast<std::size_t>(q));
      if (chain.size() > nn) return bad(label, jsonPathIndex("nodes", i), "the node hierarchy has a cycle");
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const int p = parent[*it];
      world[*it] = p < 0 ? local[*it] : Eigen::Matrix4d(world[static_cast<std::size_t>(p)] * local[*it]);
      done[*it] = 1;
    }
  }

  // The joints: the first skin's, else every node below a node named "Armature".
  std::vector<std::size_t> joints;
  const Json* skins = doc.find("skins");
  if (skins && skins->isArray() && skins->size() > 0) {
    const Json* js = skins->items()[0].isObject() ? skins->items()[0].find("joints") : nullptr;
    if (!js || !js->isArray()) return bad(label, "skins[0].joints", "expected an array of node indices");
    for (std::size_t k = 0; k < js->size(); ++k) {
      const Json& j = js->items()[k];
      if (!j.isInt() || j.asInt() < 0 || static_cast<std::size_t>(j.asInt()) >= nn)
        return bad(label, jsonPathIndex("skins[0].joints", k), "expected a node index below " + std::to_string(nn));
      joints.push_back(static_cast<std::size_t>(j.asInt()));
    }
  } else {
    for (std::size_t i = 0; i < nn; ++i) {
      for (int q = parent[i]; q >= 0; q = parent[static_cast<std::size_t>(q)]) {
        const Json* nm = nodes->items()[static_cast<std::size_t>(q)].find("name");
        if (nm && nm->isString() && nm->asString() == "Armature") {
          joints.push_back(i);
          break;
        }
      }
    }
  }
  if (joints.empty()) return bad(label, "skins", "no skin joints and no node below an \"Armature\" node: the file holds no skeleton");

  SkeletonSource src;
  src.kind = "gltf";
  const Eigen::Matrix3d c = gltfToRig();
  std::unordered_map<std::size_t, std::size_t> joint_of;  // node -> bone
  for (std::size_t k = 0; k < joints.size(); ++k)
    if (!joint_of.emplace(joints[k], k).second) return bad(label, jsonPathIndex("skins[0].joints", k), "a node listed twice");
  const std::size_t nb = joints.size();
  std::vector<Eigen::Matrix3d> frames(nb);
  std::vector<int> bone_parent(nb, -1);
  std::vector<const Json*> extras(nb, nullptr);
  src.bones.resize(nb);
  std::unordered_map<std::string, std::size_t> names;
  for (std::size_t k = 0; k < nb; ++k) {
    const std::size_t ni = joints[k];
    const Json& n = nodes->items()[ni];
    const std::string path = jsonPathIndex("nodes", ni);
    const Json* ex = n.find("extras");
    extras[k] = ex && ex->isObject() ? ex : nullptr;
    const Json* nm = extras[k] ? extras[k]->find("name") : nullptr;
    if (!nm || !nm->isString()) nm = n.find("name");
    src.bones[k].name = nm && nm->isString() && !nm->asString().empty() ? nm->asString() : "joint" + std::to_string(ni);
    if (!names.emplace(src.bones[k].name, k).second) return bad(label, path + ".name", "bone \"" + src.bones[k].name + "\" appears twice");
    for (int q = parent[ni]; q >= 0; q = parent[static_cast<std::size_t>(q)])
      if (auto it = joint_of.find(static_cast<std::size_t>(q)); it != joint_of.end()) {
        bone_parent[k] = static_cast<int>(it->second);
        break;
      }
    const Eigen::Matrix3d m = c * world[ni].topLeftCorner<3, 3>();
    src.bones[k].head = c * world[ni].topRightCorner<3, 1>();
    // The bone frame without scale: Gram-Schmidt from Y (the bone axis) and Z.
    Eigen::Vector3d y = m.col(1), z = m.col(2);
    if (y.norm() == 0.0) return bad(label, path, "a joint with a degenerate (zero-scale) transform");
    y.normalize();
    z = (z - z.dot(y) * y);
    if (z.norm() == 0.0) return bad(label, path, "a joint with a degenerate (zero-scale) transform");
    z.normalize();
    frames[k].col(0) = y.cross(z);
    frames[k].col(1) = y;
    frames[k].col(2) = z;
  }
  std::vector<std::uint8_t> has_tail(nb, 0);
  for (std::size_t k = 0; k < nb; ++k) {
    BonePlacement& b = src.bones[k];
    b.parent = bone_parent[k] < 0 ? std::string() : src.bones[static_cast<std::size_t>(bone_parent[k])].name;
    const std::string path = jsonPathIndex("nodes", joints[k]);
    const Json* len = extras[k] ? extras[k]->find("length") : nullptr;
    const Json* tail = extras[k] ? extras[k]->find("tail") : nullptr;
    if (len && len->isNumber() && len->asDouble() > 0.0) {
      // Along the joint's own +Y: stays right when the armature above it is moved.
      b.tail = b.head + len->asDouble() * frames[k].col(1);
      has_tail[k] = 1;
    } else if (tail) {
      auto t = extrasTail(tail, label, path + ".extras.tail");
      if (!t) return t.error();
      b.tail = c * *t;
      has_tail[k] = 1;
    }
  }
  // Tails without extras: to the child joint nearest the +Y axis, else the parent's length
  // (parents first, so a leaf finds its parent's length already set).
  std::vector<double> length(nb, -1.0);
  std::vector<std::size_t> order;
  {
    std::vector<std::vector<std::size_t>> kids(nb);
    for (std::size_t k = 0; k < nb; ++k)
      if (bone_parent[k] >= 0) kids[static_cast<std::size_t>(bone_parent[k])].push_back(k);
    std::function<void(std::size_t)> visit = [&](std::size_t k) {
      order.push_back(k);
      for (auto ch : kids[k]) visit(ch);
    };
    for (std::size_t k = 0; k < nb; ++k)
      if (bone_parent[k] < 0) visit(k);
    bool guessed = false;
    for (std::size_t k : order) {
      BonePlacement& b = src.bones[k];
      const Eigen::Vector3d y = frames[k].col(1);
      if (has_tail[k]) {
        length[k] = (b.tail - b.head).norm();
        continue;
      }
      guessed = true;
      double len = -1.0;
      {
        double best_off = 1e300;
        for (auto ch : kids[k]) {
          const Eigen::Vector3d d = src.bones[ch].head - b.head;
          const double along = d.dot(y);
          if (along <= 1e-9) continue;
          const double off = (d - along * y).norm() / along;  // how far off the axis, relative
          if (off < best_off) {
            best_off = off;
            len = along;
          }
        }
      }
      if (len <= 0.0 && bone_parent[k] >= 0) len = length[static_cast<std::size_t>(bone_parent[k])];
      if (len <= 0.0) len = 0.1;
      length[k] = len;
      b.tail = b.head + len * y;
    }
    if (guessed) src.notes.push_back("bones without extras.length or extras.tail: tails guessed along each joint's +Y axis (to a child joint, else at the parent's length)");
  }
  // The roll of the joint's frame about the bone direction.
  for (std::size_t k = 0; k < nb; ++k) {
    BonePlacement& b = src.bones[k];
    // rigfit's exports keep the edit roll itself.
    if (const Json* r = extras[k] ? extras[k]->find("roll") : nullptr; r && r->isNumber() && std::isfinite(r->asDouble())) {
      b.roll = r->asDouble();
      continue;
    }
    const Eigen::Vector3d d = b.tail - b.head;
    if (d.norm() == 0.0) continue;
    const Eigen::Vector3d n = d.normalized();
    const Eigen::Vector3d z = frames[k].col(2);
    b.roll = rollFromZAxis(n, z - z.dot(n) * n);
  }
  // Parents first, so the placements read like a skeleton file.
  std::vector<BonePlacement> sorted;
  sorted.reserve(nb);
  for (std::size_t k : order) sorted.push_back(std::move(src.bones[k]));
  src.bones = std::move(sorted);
  return src;
}

}  // namespace rigfit
