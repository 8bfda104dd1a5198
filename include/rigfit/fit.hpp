// Fitting: place every bone of a rig on a body exactly as MPFB does in Blender
// (docs/mpfb-behaviour.md §3-§5). Two stages, like a builder and a job:
//   PreparedRig prepareRig(rig, groups, vertex_count, ...)  - checks and resolves everything that
//       does not depend on vertex positions (names, indices, cubes, parents, order); slow, once.
//   fitSkeleton(prepared, positions, out)                   - the numeric fit; fast, repeatable
//       for every body shape with the same topology.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "rigfit/bone_frame.hpp"
#include "rigfit/error.hpp"
#include "rigfit/mesh.hpp"
#include "rigfit/rig.hpp"
#include "rigfit/skeleton.hpp"

namespace rigfit {

struct FitOptions {
  /// MPFB falls back to `default_position` when a strategy cannot be evaluated (a vertex index
  /// beyond the mesh, an unknown cube). By default rigfit reports that as an error; with this set
  /// it falls back as MPFB does and records a warning naming the bone end. DEFAULT ends always
  /// fall back (that is their meaning) and always warn.
  bool allow_fallback = false;
};

struct FitWarning {
  std::string bone;     ///< bone name
  std::string message;  ///< what happened, e.g. "head: DEFAULT strategy, default_position used"
};

/// A rig resolved against a mesh topology (vertex count and vertex groups). Immutable.
struct PreparedRig {
  struct End {
    Strategy kind = Strategy::kDefault;  ///< kDefault here also marks any fallback
    std::uint32_t first = 0;             ///< CUBE: cube slot; VERTEX/MEAN/XYZ: into `indices`
    std::uint32_t count = 0;
    Eigen::Vector3d offset = Eigen::Vector3d::Zero();   ///< already times relative_scale
    Eigen::Vector3d fallback = Eigen::Vector3d::Zero(); ///< default_position
  };
  std::vector<std::string> names;       ///< rig (dictionary) order
  std::vector<int> parent;              ///< rig order index, or kNoParent
  std::vector<End> heads, tails;
  std::vector<std::uint32_t> indices;   ///< vertex indices (negative ones already wrapped)
  std::vector<std::uint32_t> cube_offsets;  ///< cube c has ranges [cube_offsets[c], cube_offsets[c+1])
  std::vector<VertexGroups::Range> cube_ranges;  ///< inclusive vertex ranges of each cube
  std::vector<std::uint32_t> cube_sizes;    ///< vertices per cube
  std::vector<std::string> cube_names;
  std::vector<double> rolls;
  std::vector<double> roll_cos, roll_sin;  ///< of `rolls`, computed once for every fit
  std::vector<RollStrategy> roll_strategies;
  std::vector<std::uint8_t> has_reference;
  std::vector<Eigen::Vector3d> references;  ///< roll_reference_z where given
  std::vector<std::uint8_t> connect;
  std::vector<std::uint8_t> inherit_rotation;
  std::vector<InheritScale> inherit_scale;
  std::vector<std::uint8_t> local_location;
  std::vector<RotationMode> rotation_mode;
  std::vector<BBone> bbones;            ///< rig order, custom handles as rig indices; empty: no `bendy_bone` entry
  /// Per rig bone, its constraints with targets resolved to rig bone indices; empty: no bone has any.
  std::vector<std::vector<Constraint>> constraints;
  std::string label;                    ///< the rig file (for messages)
  /// Rig bones in an order with parents and constraint targets first (set when `constraints` is).
  std::vector<std::uint32_t> constraint_order;
  std::vector<std::uint32_t> order;     ///< parents-first (depth-first, children in rig order)
  std::vector<std::uint32_t> rank;      ///< rank[rig index] = position in `order`
  std::vector<FitWarning> warnings;     ///< fallbacks decided while preparing
  std::size_t vertex_count = 0;
  /// A sub-rig (prepareSubrig): VERTEX / MEAN / XYZ ends index the asset's `vertex_count`
  /// vertices, joint cubes the body's `cube_vertex_count`.
  bool is_subrig = false;
  std::size_t cube_vertex_count = 0;
  double relative_scale = 1.0;
  std::size_t fallback_count = 0;
};

/// Resolves `rig` for meshes with `vertex_count` vertices and `groups` (joint cubes are the groups
/// whose name contains "joint"). `mesh_scale_factor` is the body's scale (MPFB: 0.1 as float32);
/// offsets are scaled by mesh_scale_factor / rig.scale_factor when the rig has one.
/// Errors: unknown or duplicate parents, cycles, a sub-rig, and (unless allow_fallback)
/// strategies that cannot be evaluated on this topology.
[[nodiscard]] Expected<PreparedRig> prepareRig(const RigDefinition& rig, const VertexGroups& groups,
                                               std::size_t vertex_count, double mesh_scale_factor,
                                               const FitOptions& options = {});

/// Resolves an asset's sub-rig (`is_subrig: true`, the `.mpfbskel` beside its `.mhclo`) as MPFB
/// fits it (docs/mpfb-assets.md §5): VERTEX / MEAN / XYZ ends on the fitted asset's
/// `asset_vertex_count` vertices, CUBE ends on the body's joint cubes (`body_groups` over
/// `body_vertex_count` vertices), offsets scaled by the body's scale over the file's. A rig that is
/// not a sub-rig is an error. Fit it with fitSubrig.
[[nodiscard]] Expected<PreparedRig> prepareSubrig(const RigDefinition& subrig, std::size_t asset_vertex_count,
                                                  const VertexGroups& body_groups, std::size_t body_vertex_count,
                                                  double body_scale_factor, const FitOptions& options = {});

/// The result of a fit: the skeleton plus what MPFB would have done silently.
struct FitResult {
  Skeleton skeleton;
  std::vector<FitWarning> warnings;       ///< fallbacks, removed zero-length bones
  std::vector<Eigen::Vector3d> roll_reference_z;  ///< per rig bone: the reference used by ALIGN_Z_REFERENCE_Z
  std::size_t fallback_count = 0;
  /// Storage fitSkeleton reuses when it refits into the same FitResult (not part of the result).
  struct Scratch {
    std::vector<Eigen::Vector3d> centres;     ///< joint cube centres
    std::vector<double> roll_cos, roll_sin;   ///< of each fitted bone's roll
    RestMatricesScratch rest;
  } scratch;
};

/// The skeleton's bone names and parents (only those fields) as fitSkeleton gives them when it
/// removes no zero-length bone, known before any body is: enough to bind weights early.
/// Empty when prepareRig would reject the rig's names or parents.
std::optional<Skeleton> skeletonTopology(const RigDefinition& rig);

/// Fits `prepared` to `positions` (3 floats per vertex, rig frame; size must be 3*vertex_count).
/// Reuses `out`'s storage, so refitting the same rig allocates nothing.
Status fitSkeleton(const PreparedRig& prepared, std::span<const float> positions, FitResult& out);

/// Fits a prepared sub-rig: `asset_positions` (the fitted asset, rig frame) for its vertex ends,
/// `body_positions` (the shaped body with its helpers) for its joint cubes.
Status fitSubrig(const PreparedRig& prepared, std::span<const float> asset_positions, std::span<const float> body_positions,
                 FitResult& out);

/// Convenience: prepare + fit in one call.
[[nodiscard]] Expected<FitResult> fitRig(const RigDefinition& rig, const Mesh& mesh, const VertexGroups& groups,
                                         const FitOptions& options = {});

/// The rigfit skeleton JSON (format "rigfit-skeleton/1"): name, parent, head, tail, roll, length and
/// the 4x4 rest matrix (rows, column vectors) per bone, parents first, full double precision.
/// With `pose` (one armature-space pose matrix per bone), each bone also gets "pose_matrix"; a
/// bone of a worn asset's sub-rig gets "subrig": the asset's name.
Json skeletonToJson(const Skeleton& skeleton, std::span<const Eigen::Matrix4d> pose = {});
std::string writeSkeletonJson(const Skeleton& skeleton, std::span<const Eigen::Matrix4d> pose = {});

}  // namespace rigfit
