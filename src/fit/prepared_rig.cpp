// prepareRig: everything about a fit that does not depend on vertex positions.
#include <cmath>
#include <numeric>
#include <string>
#include <string_view>
#include <unordered_map>

#include "fit/bone_order.hpp"
#include "pose/pose_internal.hpp"
#include "rigfit/fit.hpp"

namespace rigfit {
namespace {

class Preparer {
 public:
  // `n` vertices for VERTEX / MEAN / XYZ ends; joint cubes from `groups` over `cube_n` vertices
  // (a sub-rig's cubes are the body's, its vertices the asset's).
  Preparer(const RigDefinition& rig, const VertexGroups& groups, std::size_t n, std::size_t cube_n, double mesh_scale,
           const FitOptions& o)
      : rig_(rig), groups_(groups), n_(n), cube_n_(cube_n), mesh_scale_(mesh_scale), o_(o) {}

  Expected<PreparedRig> run(bool subrig) {
    PreparedRig p;
    p.vertex_count = n_;
    p.is_subrig = subrig;
    if (subrig) p.cube_vertex_count = cube_n_;
    if (rig_.is_subrig && !subrig)
      return makeError(ErrorCode::kUnsupported, rig_.label + ": is_subrig: a sub-rig is fitted to clothes with its parent rig; fit the parent rig instead");
    if (!rig_.is_subrig && subrig)
      return makeError(ErrorCode::kSchema, rig_.label + ": is_subrig: not set; an asset's sub-rig file must say it is one");
    p.relative_scale = rig_.scale_factor ? mesh_scale_ / *rig_.scale_factor : 1.0;
    const std::size_t nb = rig_.bones.size();
    detail::BoneLinks links = detail::linkBones(rig_);
    using Problem = detail::BoneLinks::Problem;
    switch (links.problem) {
      case Problem::kNone: break;
      case Problem::kDuplicateName: return fail(links.bone, "", "duplicate bone name", ErrorCode::kSchema);
      case Problem::kUnknownParent:
        return fail(links.bone, ".parent", "unknown bone \"" + rig_.bones[links.bone].parent + "\"", ErrorCode::kSchema);
      case Problem::kCycle: return fail(links.bone, ".parent", detail::cycleText(rig_, links.cycle), ErrorCode::kSchema);
    }
    p.names.reserve(nb);
    for (const BoneDef& b : rig_.bones) p.names.push_back(b.name);
    p.parent = std::move(links.parent);
    p.order = std::move(links.order);
    p.rank = std::move(links.rank);
    p.heads.resize(nb);
    p.tails.resize(nb);
    for (std::size_t i = 0; i < nb; ++i) {
      RIGFIT_TRY(resolve(p, i, true));
      RIGFIT_TRY(resolve(p, i, false));
      const BoneDef& b = rig_.bones[i];
      p.rolls.push_back(b.roll);
      p.roll_cos.push_back(std::cos(b.roll));
      p.roll_sin.push_back(std::sin(b.roll));
      p.roll_strategies.push_back(b.roll_strategy);
      p.has_reference.push_back(b.roll_reference_z.has_value());
      p.references.push_back(b.roll_reference_z ? Eigen::Vector3d((*b.roll_reference_z)[0], (*b.roll_reference_z)[1], (*b.roll_reference_z)[2])
                                                : Eigen::Vector3d::Zero());
      p.connect.push_back(b.use_connect && p.parent[i] != kNoParent);
      p.inherit_rotation.push_back(b.use_inherit_rotation);
      p.inherit_scale.push_back(b.inherit_scale);
      p.local_location.push_back(b.use_local_location);
      p.rotation_mode.push_back(b.rotation_mode);
    }
    RIGFIT_TRY(readBendyBones(p));
    p.label = rig_.label;
    resolveConstraintTargets(p);
    if (!p.constraints.empty()) {
      RIGFIT_TRY(detail::constraintOrder(nb, p.parent.data(), p.connect, p.bbones, p.constraints, p.names, p.label, p.constraint_order));
      if (p.constraint_order.empty()) {  // the file's order already has every dependency first
        p.constraint_order.resize(nb);
        std::iota(p.constraint_order.begin(), p.constraint_order.end(), 0u);
      }
    }
    p.cube_offsets.push_back(0);
    for (const auto& c : cubes_) {
      for (const auto& r : groups_.ranges[c]) p.cube_ranges.push_back(r);
      p.cube_offsets.push_back(static_cast<std::uint32_t>(p.cube_ranges.size()));
      p.cube_sizes.push_back(static_cast<std::uint32_t>(groups_.memberCount(c)));
      p.cube_names.push_back(groups_.names[c]);
    }
    p.fallback_count = p.warnings.size();
    return p;
  }

 private:
  // Typed `bendy_bone` settings (custom handles as rig indices), when any bone has an entry.
  Status readBendyBones(PreparedRig& p) const {
    const auto find = [this](std::string_view name) {
      for (std::size_t k = 0; k < rig_.bones.size(); ++k)
        if (rig_.bones[k].name == name) return static_cast<int>(k);
      return -1;
    };
    for (std::size_t i = 0; i < rig_.bones.size(); ++i) {
      const Json* entry = rig_.bones[i].json.find("bendy_bone");
      if (!entry) continue;
      auto bb = readBendyBone(*entry, rig_.label + ": " + jsonPathKey(jsonPathKey("bones", rig_.bones[i].name), "bendy_bone"), find);
      if (!bb) return bb.error();
      p.bbones.resize(rig_.bones.size());
      p.bbones[i] = *bb;
    }
    return {};
  }

  Error fail(std::size_t bone, const std::string& key, const std::string& what, ErrorCode code) const {
    return makeError(code, rig_.label + ": " + jsonPathKey("bones", rig_.bones[bone].name) + key + ": " + what);
  }

  bool wrap(std::int64_t index, std::uint32_t& out) const {
    // Python indexing: -1 is the last vertex.
    const std::int64_t n = static_cast<std::int64_t>(n_);
    if (index < 0) index += n;
    if (index < 0 || index >= n) return false;
    out = static_cast<std::uint32_t>(index);
    return true;
  }

  Status resolve(PreparedRig& p, std::size_t bone, bool is_head) {
    const EndDef& e = is_head ? rig_.bones[bone].head : rig_.bones[bone].tail;
    PreparedRig::End& out = is_head ? p.heads[bone] : p.tails[bone];
    const std::string key = is_head ? ".head" : ".tail";
    const char* end_name = is_head ? "head" : "tail";
    if (e.offset) out.offset = Eigen::Vector3d((*e.offset)[0], (*e.offset)[1], (*e.offset)[2]) * p.relative_scale;
    if (e.default_position) out.fallback = Eigen::Vector3d((*e.default_position)[0], (*e.default_position)[1], (*e.default_position)[2]);
    std::string problem;
    std::string problem_key;
    switch (e.strategy) {
      case Strategy::kCube: {
        auto it = groups_.index.find(e.cube_name);
        if (e.cube_name.find("joint") == std::string::npos || it == groups_.index.end() || groups_.memberCount(it->second) == 0) {
          problem = "no joint cube group \"" + e.cube_name + "\" in the mesh's vertex groups";
          problem_key = ".cube_name";
          break;
        }
        out.kind = Strategy::kCube;
        out.first = cubeSlot(it->second);
        out.count = 1;
        return {};
      }
      case Strategy::kVertex: {
        std::uint32_t v = 0;
        if (!wrap(e.vertex_index, v)) {
          problem = "vertex " + std::to_string(e.vertex_index) + " is beyond the mesh of " + std::to_string(n_) + " vertices";
          problem_key = ".vertex_index";
          break;
        }
        out.kind = Strategy::kVertex;
        out.first = static_cast<std::uint32_t>(p.indices.size());
        out.count = 1;
        p.indices.push_back(v);
        return {};
      }
      case Strategy::kMean:
      case Strategy::kXyz: {
        const std::size_t use = e.strategy == Strategy::kXyz ? 3 : e.vertex_indices.size();
        const std::uint32_t first = static_cast<std::uint32_t>(p.indices.size());
        bool ok = true;
        for (std::size_t k = 0; k < use; ++k) {
          std::uint32_t v = 0;
          if (!wrap(e.vertex_indices[k], v)) {
            problem = "vertex " + std::to_string(e.vertex_indices[k]) + " is beyond the mesh of " + std::to_string(n_) + " vertices";
            problem_key = ".vertex_indices[" + std::to_string(k) + "]";
            ok = false;
            break;
          }
          p.indices.push_back(v);
        }
        if (!ok) {
          p.indices.resize(first);
          break;
        }
        out.kind = e.strategy;
        out.first = first;
        out.count = static_cast<std::uint32_t>(use);
        return {};
      }
      case Strategy::kDefault:
        break;
    }
    // No position from a strategy: MPFB uses default_position (never offset or scaled).
    out.kind = Strategy::kDefault;
    out.offset = Eigen::Vector3d::Zero();
    if (e.strategy != Strategy::kDefault && !o_.allow_fallback)
      return fail(bone, key + problem_key, problem, ErrorCode::kRange);
    if (!e.default_position)
      return fail(bone, key + ".default_position",
                  e.strategy == Strategy::kDefault ? "missing (a DEFAULT end needs it)" : problem + ", and no default_position to fall back to",
                  ErrorCode::kSchema);
    p.warnings.push_back({rig_.bones[bone].name, std::string(end_name) + ": " +
                                                     (e.strategy == Strategy::kDefault ? std::string("DEFAULT strategy") : problem) +
                                                     "; default_position used"});
    return {};
  }

  // Constraint targets on the rig itself by rig bone index (the reader checked that they exist);
  // parent-rig references stay unresolved for the sub-rig join.
  void resolveConstraintTargets(PreparedRig& p) const {
    bool any = false;
    for (const BoneDef& b : rig_.bones) any = any || !b.constraints.empty();
    if (!any) return;
    std::unordered_map<std::string_view, int> index;
    for (std::size_t i = 0; i < rig_.bones.size(); ++i) index.emplace(rig_.bones[i].name, static_cast<int>(i));
    auto resolve = [&](ConstraintTarget& t) {
      if (!t.has_target || t.parent_reference || t.subtarget.empty()) return;
      const auto it = index.find(t.subtarget);
      t.bone = it == index.end() ? -1 : it->second;
    };
    p.constraints.resize(rig_.bones.size());
    for (std::size_t i = 0; i < rig_.bones.size(); ++i) {
      p.constraints[i] = rig_.bones[i].constraints;
      for (Constraint& c : p.constraints[i]) {
        for (ConstraintTarget& t : c.targets) resolve(t);
        resolve(c.space);
      }
    }
  }

  std::uint32_t cubeSlot(std::uint32_t group) {
    for (std::size_t k = 0; k < cubes_.size(); ++k)
      if (cubes_[k] == group) return static_cast<std::uint32_t>(k);
    cubes_.push_back(group);
    return static_cast<std::uint32_t>(cubes_.size() - 1);
  }

  const RigDefinition& rig_;
  const VertexGroups& groups_;
  std::size_t n_;
  std::size_t cube_n_;
  double mesh_scale_;
  const FitOptions& o_;
  std::vector<std::uint32_t> cubes_;  // group index per cube slot
};

}  // namespace

Expected<PreparedRig> prepareRig(const RigDefinition& rig, const VertexGroups& groups, std::size_t vertex_count,
                                 double mesh_scale_factor, const FitOptions& options) {
  return Preparer(rig, groups, vertex_count, vertex_count, mesh_scale_factor, options).run(false);
}

Expected<PreparedRig> prepareSubrig(const RigDefinition& subrig, std::size_t asset_vertex_count, const VertexGroups& body_groups,
                                    std::size_t body_vertex_count, double body_scale_factor, const FitOptions& options) {
  return Preparer(subrig, body_groups, asset_vertex_count, body_vertex_count, body_scale_factor, options).run(true);
}

}  // namespace rigfit
