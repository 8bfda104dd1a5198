// The asset stage of loadCharacter (character_assets.cpp).
#pragma once

#include "rigfit/author.hpp"
#include "rigfit/character.hpp"

namespace rigfit::detail {

/// Fits, weights and adds options.assets to the character (after its fit and weights), hides the
/// body under them, and puts options.proxy in the body's place (its sided weights cleaned when the
/// data's mesh_metadata/proxy_corrective.json lists it).
[[nodiscard]] Status wearAssets(const DataSource& data, Character& c, const CharacterOptions& options);

/// A worn asset's sub-rig joined to the character's skeleton.
struct SubrigJoin {
  std::string asset_name;
  std::size_t first = 0;           ///< skeleton index of its first bone (its bones follow in order)
  FitResult fit;                   ///< the sub-rig fitted on its own (its names, parents within it)
};

/// Fits `asset_mesh`'s sub-rig (asset_mesh.asset->asset.subrig) on the fitted asset and `body` (the
/// shaped body with helpers, whose groups are c.body().groups), and appends its bones to
/// c.fit.skeleton: a root whose CHILD_OF (every channel, influence 1) targets the main rig goes
/// under the bone that target resolves to (JOINTS on `body_info`); its other constraints join with
/// their targets re-indexed and their parent-rig references (JOINTS, a bone by name, VERTEX on the
/// body's skin) resolved. The caller runs prepareConstraints on the joined skeleton.
[[nodiscard]] Expected<SubrigJoin> joinSubrig(Character& c, const CharacterMesh& asset_mesh, const Mesh& body,
                                              const PositionInfo& body_info);

/// The asset's skin over the joined skeleton: the main rig's deformation (`main`) and the
/// sub-rig's (`sub`, indices within the sub-rig), each normalised as Blender's armature modifier
/// does, mixed by the `mhmask-subrig` mask of `main` (p = lerp(p_main, p_sub, mask)). A vertex
/// with a share the armature modifier would leave in place cannot be expressed by bone weights:
/// such vertices are counted in `static_share`.
Skin blendSubrigSkin(const Skin& main, const Skin& sub, const SubrigJoin& join, std::size_t bone_count, std::size_t* static_share);

}  // namespace rigfit::detail
