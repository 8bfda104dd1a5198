// Sub-rigs: an asset's own bones (the `.mpfbskel` beside its `.mhclo`), fitted on the asset and
// joined to the main skeleton (docs/mpfb-assets.md §5, docs/mpfb-behaviour.md §8).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "rigfit/author.hpp"
#include "rigfit/error.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/rig.hpp"
#include "rigfit/skeleton.hpp"
#include "rigfit/weights.hpp"

namespace rigfit {

/// The main rig as a sub-rig sees its parent (MPFB's fast-mode parent Rig): every bone end's
/// strategy is rediscovered from the body's geometry, CUBE when the nearest joint cube is within
/// 0.01 (unless a vertex is within 0.001 and the cube is not), so one sub-rig finds its bones in
/// any main rig.
struct ParentRig {
  const Skeleton* skeleton = nullptr;
  std::vector<int> head_cube, tail_cube;  ///< per skeleton bone: index into `cube_names`, or -1
  std::vector<std::string> cube_names;
  std::vector<Eigen::Vector3d> cubes;     ///< cube centres (rig frame)
  std::vector<std::uint8_t> deform;       ///< per skeleton bone: use_deform (rig JSON; default true)
};

/// `skeleton` must outlive the result. `rig` gives use_deform flags (bones matched by name). `body`
/// needs no vertex tree (fastCube).
ParentRig parentRigOf(const Skeleton& skeleton, const RigDefinition& rig, const PositionInfo& body);

/// A bone of the parent rig a constraint targets, and the head_tail to use on it.
struct ParentBone {
  int bone = -1;                     ///< skeleton index
  std::optional<double> head_tail;   ///< rewritten along the chain, or as given
};

/// MPFB's JOINTS decoding (§8.3, §8.6): the parent bone chains from cube `joint_head` to cube
/// `joint_tail` (with the clavicle/scapula/shoulder and spine splits as fallback), then the bone
/// of the chain `head_tail` falls in (or nearest to `owner_head` without it), preferring single-bone
/// chains, ORG- bones, deform bones, then the shortest chain and the first name. Nothing when no
/// chain spans the cubes (MPFB then keeps the saved subtarget).
std::optional<ParentBone> resolveJoints(const ParentRig& parent, std::string_view joint_head, std::string_view joint_tail,
                                        std::optional<double> head_tail, const Eigen::Vector3d& owner_head);

/// MPFB's VERTEX binding of an ARMATURE constraint (§8.4): the parent's deform bones that weight
/// body vertex `vertex` in `body_skin`, with the raw weights, in the vertex's influence order.
/// Empty when the vertex is beyond the body.
std::vector<std::pair<int, float>> vertexBinding(const ParentRig& parent, const Skin& body_skin, std::size_t vertex);

}  // namespace rigfit
