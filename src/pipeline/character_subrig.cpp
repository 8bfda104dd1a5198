// Sub-rigs of worn assets (docs/mpfb-assets.md §5): each fitted on its asset, its root put under
// the main-rig bone its CHILD_OF constraint resolves to, its bones appended to the character's
// skeleton; the asset's skin blends the sub-rig's deformation over the main rig's by
// `mhmask-subrig`, as MPFB's modifier stack does.
#include <algorithm>
#include <cmath>

#include "pipeline/character_assets.hpp"
#include "rigfit/number_format.hpp"
#include "rigfit/subrig.hpp"

namespace rigfit::detail {

namespace {

// A CHILD_OF that MPFB binds at rest with every channel, full influence, on a pose-space owner:
// the owner then moves exactly as a child of its target, so the hierarchy can hold it.
bool bakesAsParent(const Json& con) {
  const Json* type = con.find("type");
  if (!type || !type->isString() || type->asString() != "CHILD_OF") return false;
  for (const char* key : {"use_location_x", "use_location_y", "use_location_z", "use_rotation_x", "use_rotation_y",
                          "use_rotation_z", "use_scale_x", "use_scale_y", "use_scale_z"})
    if (const Json* v = con.find(key); v && v->isBool() && !v->asBool()) return false;
  if (const Json* v = con.find("influence"); v && v->isNumber() && v->asDouble() != 1.0) return false;
  if (const Json* v = con.find("mute"); v && v->isBool() && v->asBool()) return false;
  for (const char* key : {"owner_space", "target_space"})
    if (const Json* v = con.find(key); v && v->isString() && v->asString() != "WORLD" && v->asString() != "POSE") return false;
  return true;
}

std::string pathOf(const std::string& label, const std::string& bone, std::size_t k, const char* key) {
  return label + ": " + jsonPathKey("bones", bone) + ".constraints[" + std::to_string(k) + "]" + key;
}

// The main-rig bone a parent reference `ref` names (§8.3): JOINTS resolved on the parent rig, with
// `head_tail` re-split along the chain (the saved `subtarget` when no chain spans the joints);
// `strategy: null` the saved subtarget.
Expected<ParentBone> parentTarget(const Json& ref, const std::string& subtarget, std::optional<double> head_tail,
                                  const ParentRig& parent, const Skeleton& main, const Eigen::Vector3d& owner_head,
                                  const std::string& where) {
  const Json* strategy = ref.find("strategy");
  std::string spans;  // why the joints gave no bone
  if (strategy && strategy->isString()) {
    if (strategy->asString() != "JOINTS") return makeError(ErrorCode::kSchema, where + ".target.strategy: \"" + strategy->asString() + "\" is not JOINTS");
    const Json* a = ref.find("joint_head");
    const Json* b = ref.find("joint_tail");
    if (a && b && a->isString() && b->isString() && !subtarget.empty()) {
      if (auto bone = resolveJoints(parent, a->asString(), b->asString(), head_tail, owner_head)) return *bone;
      spans = "no bone of the main rig spans " + a->asString() + " -> " + b->asString();
    }
  } else if (strategy && !strategy->isNull()) {
    return makeError(ErrorCode::kSchema, where + ".target.strategy: expected \"JOINTS\" or null");
  }
  const int bone = main.find(subtarget);
  if (bone < 0)
    return makeError(ErrorCode::kMismatch, spans.empty() ? where + ".subtarget: the main rig has no bone \"" + subtarget + "\""
                                                         : where + ".target: " + spans + ", and the main rig has no bone \"" +
                                                               subtarget + "\" (the subtarget)");
  return ParentBone{bone, head_tail};
}

// An ARMATURE constraint's VERTEX reference (§8.4): one target per main-rig deform bone weighting
// that body vertex, with its raw weight (none without body weights).
Status bindVertex(Constraint& con, const ParentRig& parent, const Skeleton& main, const Skin* body_skin, const std::string& where) {
  const Json& ref = *con.vertex_reference;
  const Json* strategy = ref.find("strategy");
  const Json* index = ref.find("vertex_index");
  if (!strategy || !strategy->isString() || strategy->asString() != "VERTEX")
    return makeError(ErrorCode::kSchema, where + ".target.strategy: an ARMATURE constraint's target must be a VERTEX reference");
  if (!index || !index->isNumber() || index->asDouble() != std::floor(index->asDouble()))
    return makeError(ErrorCode::kSchema, where + ".target.vertex_index: expected an integer");
  const double v = index->asDouble();
  const std::size_t count = body_skin ? body_skin->vertex_count : 0;
  if (body_skin && (v < 0 || v >= static_cast<double>(count)))
    return makeError(ErrorCode::kRange, where + ".target.vertex_index: vertex " +
                                            (std::abs(v) < 1e15 ? std::to_string(static_cast<long long>(v)) : formatPythonFloat(v)) + " is beyond the body of " +
                                            std::to_string(count) + " vertices");
  if (!body_skin) return {};
  for (const auto& [bone, weight] : vertexBinding(parent, *body_skin, static_cast<std::size_t>(v))) {
    ConstraintTarget t;
    t.has_target = true;
    t.parent_reference = ref;
    t.subtarget = main.names[static_cast<std::size_t>(bone)];
    t.weight = weight;
    t.main_bone = bone;
    con.targets.push_back(std::move(t));
  }
  return {};
}

// A sub-rig bone's constraint in the joined skeleton: own targets moved by `first`, parent-rig
// references resolved (JOINTS, a bone by name, VERTEX).
Status joinConstraint(Constraint& con, std::size_t first, const ParentRig& parent, const Skeleton& main, const Skin* body_skin,
                      const Eigen::Vector3d& owner_head, const std::string& where) {
  if (con.vertex_reference) RIGFIT_TRY(bindVertex(con, parent, main, body_skin, where));
  const auto join = [&](ConstraintTarget& t) -> Status {
    if (t.main_bone >= 0) return {};  // bound by bindVertex
    if (!t.parent_reference) {
      if (t.bone >= 0) t.bone += static_cast<int>(first);
      return {};
    }
    const bool single = con.type != ConstraintType::kArmature;
    auto bone = parentTarget(*t.parent_reference, t.subtarget, single ? std::optional<double>(con.head_tail) : std::nullopt,
                             parent, main, owner_head, where);
    if (!bone) return bone.error();
    t.main_bone = bone->bone;
    t.subtarget = main.names[static_cast<std::size_t>(bone->bone)];
    if (single && bone->head_tail) con.head_tail = *bone->head_tail;
    return {};
  };
  for (ConstraintTarget& t : con.targets) RIGFIT_TRY(join(t));
  return join(con.space);
}

}  // namespace

Expected<SubrigJoin> joinSubrig(Character& c, const CharacterMesh& asset_mesh, const Mesh& body, const PositionInfo& body_info) {
  const Asset& asset = asset_mesh.asset->asset;
  const RigDefinition& def = *asset.subrig;
  SubrigJoin join;
  join.asset_name = asset_mesh.name;
  join.first = c.fit.skeleton.size();
  auto prepared = prepareSubrig(def, asset_mesh.mesh.vertexCount(), c.body().groups, body.vertexCount(), body.scale_factor);
  if (!prepared) return prepared.error();
  RIGFIT_TRY(fitSubrig(*prepared, asset_mesh.mesh.positions, body.positions, join.fit));
  const Skeleton& sub = join.fit.skeleton;

  // Roots whose CHILD_OF binds them to a main-rig bone hang under that bone; every other
  // constraint joins the skeleton with its targets resolved.
  const ParentRig parent = parentRigOf(c.fit.skeleton, c.rig, body_info);
  std::vector<int> root_parent(sub.size(), kNoParent);
  std::vector<std::vector<Constraint>> constraints(sub.size());
  for (std::size_t b = 0; b < sub.size(); ++b) {
    const BoneDef& bone = def.bones[sub.source[b]];
    const Json* cons = bone.json.find("constraints");
    const std::size_t count = cons && cons->isArray() ? cons->items().size() : 0;
    const bool typed = b < sub.constraints.size() && sub.constraints[b].size() == count;
    for (std::size_t k = 0; k < count; ++k) {
      const Json& con = cons->items()[k];
      const Json* target = con.find("target");
      const std::string where = pathOf(def.label, bone.name, k, "");
      if (sub.parents[b] == kNoParent && root_parent[b] == kNoParent && target && target->isObject() && bakesAsParent(con)) {
        const Json* subtarget = con.find("subtarget");
        auto t = parentTarget(*target, subtarget && subtarget->isString() ? subtarget->asString() : std::string(), std::nullopt,
                              parent, c.fit.skeleton, sub.heads[b], where);
        if (!t) return t.error();
        root_parent[b] = t->bone;
        continue;
      }
      if (!typed) continue;
      Constraint joined = sub.constraints[b][k];
      RIGFIT_TRY(joinConstraint(joined, join.first, parent, c.fit.skeleton, c.has_skin ? &c.body().skin : nullptr, sub.heads[b], where));
      constraints[b].push_back(std::move(joined));
    }
  }

  // Append the bones: names that clash with the skeleton's get the asset's name as a prefix.
  Skeleton& s = c.fit.skeleton;
  if (s.subrig_of.empty()) s.subrig_of.assign(s.size(), std::string());
  for (std::size_t b = 0; b < sub.size(); ++b) {
    std::string name = sub.names[b];
    if (s.find(name) >= 0) name = join.asset_name + "." + name;
    s.names.push_back(std::move(name));
    s.parents.push_back(sub.parents[b] == kNoParent ? root_parent[b] : static_cast<int>(join.first) + sub.parents[b]);
    s.heads.push_back(sub.heads[b]);
    s.tails.push_back(sub.tails[b]);
    s.rolls.push_back(sub.rolls[b]);
    s.lengths.push_back(sub.lengths[b]);
    s.rest.push_back(sub.rest[b]);
    s.source.push_back(sub.source[b]);
    s.connected.push_back(sub.connected[b]);
    s.local_rotation.push_back(sub.local_rotation[b]);
    s.local_head.push_back(sub.local_head[b]);
    s.local_length.push_back(sub.local_length[b]);
    s.inherit_rotation.push_back(sub.inherit_rotation[b]);
    s.inherit_scale.push_back(sub.inherit_scale[b]);
    s.local_location.push_back(sub.local_location[b]);
    s.rotation_mode.push_back(sub.rotation_mode[b]);
    s.subrig_of.push_back(join.asset_name);
  }
  bool any = !s.constraints.empty();
  for (const auto& list : constraints) any = any || !list.empty();
  if (any) {
    s.constraints.resize(join.first);
    for (auto& list : constraints) s.constraints.push_back(std::move(list));
  }
  // B-Bone settings: the sub-rig's, custom handles re-indexed; defaults for the others.
  if (!sub.bbones.empty() || !s.bbones.empty()) {
    s.bbones.resize(join.first);
    for (std::size_t b = 0; b < sub.size(); ++b) {
      BBone bone = sub.bbones.empty() ? BBone{} : sub.bbones[b];
      for (int* handle : {&bone.custom_handle_start, &bone.custom_handle_end})
        if (*handle >= 0) *handle += static_cast<int>(join.first);
      s.bbones.push_back(bone);
    }
  }
  // A root put under a main bone is re-expressed relative to it (its rest matrix stays as fitted).
  for (std::size_t b = 0; b < sub.size(); ++b) {
    if (root_parent[b] == kNoParent) continue;
    const std::size_t i = join.first + b;
    const Eigen::Matrix4d& pr = s.rest[static_cast<std::size_t>(root_parent[b])];
    const Eigen::Matrix3d pr3 = pr.topLeftCorner<3, 3>();
    s.local_rotation[i] = pr3.transpose() * s.rest[i].topLeftCorner<3, 3>();
    const Eigen::Vector3d parent_tail = pr.topRightCorner<3, 1>() + pr3.col(1) * s.local_length[static_cast<std::size_t>(root_parent[b])];
    s.local_head[i] = pr3.transpose() * (s.rest[i].topRightCorner<3, 1>() - parent_tail);
  }
  return join;
}

Skin blendSubrigSkin(const Skin& main, const Skin& sub, const SubrigJoin& join, std::size_t bone_count, std::size_t* static_share) {
  std::vector<float> none;
  const std::vector<float>* mask = &none;
  for (std::size_t k = 0; k < main.mask_names.size(); ++k)
    if (main.mask_names[k] == "mhmask-subrig") mask = &main.masks[k];
  Skin out;
  out.vertex_count = main.vertex_count;
  out.bone_count = bone_count;
  out.mask_names = main.mask_names;
  out.masks = main.masks;
  out.offsets.assign(1, 0);
  const auto total = [](const Skin& skin, std::size_t v) {
    double t = 0.0;
    for (std::uint32_t k = skin.offsets[v]; k < skin.offsets[v + 1]; ++k) t += skin.weights[k];
    return t;
  };
  for (std::size_t v = 0; v < main.vertex_count; ++v) {
    const double s = mask->empty() ? 0.0 : std::clamp(static_cast<double>((*mask)[v]), 0.0, 1.0);
    const double tm = total(main, v), ts = total(sub, v);
    // Blender's armature modifier leaves a vertex whose weights sum to 0.0001 or less in place.
    const bool main_moves = tm > 1e-4, sub_moves = ts > 1e-4;
    if (static_share && ((!main_moves && s < 1.0) || (!sub_moves && s > 0.0) || (!main_moves && !sub_moves))) ++*static_share;
    if (s < 1.0 && main_moves)
      for (std::uint32_t k = main.offsets[v]; k < main.offsets[v + 1]; ++k) {
        out.bones.push_back(main.bones[k]);
        out.weights.push_back(static_cast<float>((1.0 - s) * main.weights[k] / tm));
      }
    if (s > 0.0 && sub_moves)
      for (std::uint32_t k = sub.offsets[v]; k < sub.offsets[v + 1]; ++k) {
        out.bones.push_back(static_cast<std::uint16_t>(join.first + sub.bones[k]));
        out.weights.push_back(static_cast<float>(s * sub.weights[k] / ts));
      }
    out.offsets.push_back(static_cast<std::uint32_t>(out.bones.size()));
  }
  return out;
}

}  // namespace rigfit::detail
