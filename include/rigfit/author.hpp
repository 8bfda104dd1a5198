// Rig authoring: the fitting arrow run backwards. Bone positions on a body become a rig whose
// every end is tied to the body by a strategy (docs/mpfb-behaviour.md §6): MPFB's automatic
// strategy choice over a spatial index, saved (developer) strategies and locks, MPFB's rounding,
// and the developer tools that edit strategies one bone end at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "rigfit/error.hpp"
#include "rigfit/mesh.hpp"
#include "rigfit/rig.hpp"
#include "rigfit/skeleton.hpp"

namespace rigfit {

// ---------------------------------------------------------------------------------------------
// Spatial index

/// A static 3-D KD-tree over points (double precision). Queries are exact: nearest() returns the
/// closest point, and among points at the same distance the lowest index (a deterministic rule
/// where Blender's KD-tree leaves ties to its build order).
class KdTree {
 public:
  struct Hit {
    std::uint32_t index = 0;
    double distance = 0.0;
  };

  KdTree() = default;
  explicit KdTree(std::vector<Eigen::Vector3d> points);
  /// From packed xyz floats (3 per point).
  static KdTree fromFloats(std::span<const float> xyz);

  std::size_t size() const { return points_.size(); }
  const Eigen::Vector3d& point(std::size_t i) const { return points_[i]; }

  /// The nearest point, or nothing for an empty tree.
  std::optional<Hit> nearest(const Eigen::Vector3d& q) const;
  /// Every point within `radius` (distance <= radius), sorted by distance, then index.
  void range(const Eigen::Vector3d& q, double radius, std::vector<Hit>& out) const;

 private:
  struct Node {
    std::uint32_t begin = 0, end = 0;  ///< the node's slice of order_
    std::uint32_t left = 0, right = 0;  ///< children; 0 for a leaf (the root is node 0, never a child)
    std::uint8_t axis = 0;
    double split = 0.0;
    Eigen::Vector3d lo = Eigen::Vector3d::Zero(), hi = Eigen::Vector3d::Zero();  ///< bounding box of its points
  };
  std::uint32_t build(std::uint32_t begin, std::uint32_t end);
  std::vector<Eigen::Vector3d> points_;
  std::vector<std::uint32_t> order_;
  std::vector<Node> nodes_;
};

// ---------------------------------------------------------------------------------------------
// Position info (§3.1) and strategy evaluation

/// What strategies are evaluated on: every vertex of the body (helpers and cubes included), the
/// centre (unweighted mean) of every vertex group whose name contains "joint", and the height H
/// (max z - min z over all vertices). Built once per body; holds the KD-trees.
struct PositionInfo {
  std::vector<Eigen::Vector3d> vertices;  ///< rig frame, from the float positions
  std::vector<std::string> cube_names;    ///< in vertex-group order
  std::vector<Eigen::Vector3d> cubes;     ///< centre per cube name
  double height = 0.0;                    ///< H
  double mesh_scale_factor = kDefaultScaleFactor;  ///< the body's scale (offsets are scaled by mesh / rig)
  KdTree vertex_tree, cube_tree;

  int findCube(std::string_view name) const;
};

/// Builds the position info of a body (`positions`: 3 floats per vertex, rig frame).
/// Without `vertex_tree` the vertex KD-tree is left empty (what fastCube needs; most of the cost).
/// Errors: an empty joint group, a group index beyond the mesh.
[[nodiscard]] Expected<PositionInfo> makePositionInfo(std::span<const float> positions, const VertexGroups& groups,
                                                      double mesh_scale_factor = kDefaultScaleFactor, bool vertex_tree = true);

/// The position a strategy gives (offset included, times `relative_scale`), without falling back
/// to default_position: nothing for DEFAULT, an unknown cube, an index beyond the mesh, an empty
/// MEAN or an XYZ with fewer than 3 indices. Negative indices wrap as in Python.
std::optional<Eigen::Vector3d> evaluateStrategy(const PositionInfo& info, const EndDef& end, double relative_scale = 1.0);

/// Two ends have the same strategy: type and the fields that type uses, and the offset
/// (MPFB's dictionary equality of stored strategies; default_position is not part of it).
bool sameStrategy(const EndDef& a, const EndDef& b);

// ---------------------------------------------------------------------------------------------
// Automatic strategy choice (§6.3)

/// MPFB's constants (metres, armature space, never scaled).
struct MatchConstants {
  static constexpr double kMaxAllowedDist = 0.01;
  static constexpr double kExact = 0.001;
  static constexpr double kCloseMeanRadius = 0.02;
  static constexpr double kMeanMaxDist = 0.02;
  static constexpr double kReplaceThreshold = 0.0001;
  static constexpr double kMeanLengthPenalty = 1.0;
  static constexpr double kMeanBoxFraction = 0.15;  ///< of H
};

/// Result of the vertex-pair mean search (§6.3.1).
struct MeanPair {
  bool found = false;
  std::uint32_t first = 0, second = 0;  ///< first < second
  double distance = MatchConstants::kMeanMaxDist;  ///< |mean - pos| of the pair, or max_dist
};
MeanPair meanSearch(const PositionInfo& info, const Eigen::Vector3d& pos, double max_dist, double radius);

struct MatchOptions {
  bool fast = false;  ///< fast mode (parent rigs of sub-rigs): CUBE / VERTEX only, no MEAN search
};

/// The automatic strategy for a bone end at `pos` (`info` with its vertex tree): CUBE, VERTEX, MEAN
/// (a vertex pair) or DEFAULT when nothing is near. `default_position` is set to `pos` (unrounded). `distance` (optional)
/// receives the chosen strategy's distance to pos (100 for DEFAULT, as MPFB).
EndDef chooseStrategy(const PositionInfo& info, const Eigen::Vector3d& pos, const MatchOptions& options = {},
                      double* distance = nullptr);

/// The cube index (into info.cubes) when fast-mode matching (MatchOptions::fast) gives the end at
/// `pos` a CUBE strategy, else -1. Needs no vertex tree: vertices are scanned only when the nearest
/// cube is accepted but not exact.
int fastCube(const PositionInfo& info, const Eigen::Vector3d& pos);

// ---------------------------------------------------------------------------------------------
// Saving (§6.2, §6.4, §6.6)

/// A bone end's lock (MPFB's `strategy_lock` developer property). rigfit keeps it in the rig file
/// as `"strategy_lock": true` inside the head/tail entry (written only when set; MPFB ignores it).
bool endLocked(const BoneDef& bone, bool head);
void setEndLocked(BoneDef& bone, bool head, bool locked);

/// Python's round(x, 5) with negative zero removed (§6.6).
double roundForRig(double x);

/// Where a bone is on the body the rig is saved from (armature space = rig frame).
struct BonePlacement {
  std::string name;
  std::string parent;  ///< "" for a root
  Eigen::Vector3d head = Eigen::Vector3d::Zero(), tail = Eigen::Vector3d::Zero();
  double roll = 0.0;   ///< Blender edit roll
};

struct SaveOptions {
  bool subrig = false;       ///< write is_subrig: true (a rig fitted to clothes under a parent rig)
  bool rigify_ui = false;    ///< write the base rig's rigify_ui (null when it has none), as "Save Rigify layers"
  bool fast = false;         ///< fast-mode matching (no MEAN search)
  bool use_saved = true;     ///< the base rig's strategies are saved strategies (§6.4); false: automatic only
};

struct SaveReport {
  std::size_t bones = 0;
  std::size_t ends_by_strategy[5] = {};   ///< indexed by Strategy
  std::size_t automatic = 0;              ///< ends whose strategy was chosen automatically
  std::size_t saved_kept = 0;             ///< ends that kept the saved strategy (not clearly worse, or no automatic one)
  std::size_t saved_locked = 0;           ///< ends that kept a locked saved strategy
  std::size_t saved_replaced = 0;         ///< saved strategies the automatic choice beat by more than 0.1 mm
  std::vector<std::string> default_bones; ///< bones with a DEFAULT head or tail (MPFB warns about their count)
  std::vector<std::string> new_bones;     ///< bones not in the base rig (defaults for flags, collections, rigify)
};

/// Builds the rig MPFB's "Save rig" writes for bones at `placements` on the body of `info`:
/// non-positional data (parent, flags, collections, rigify, constraints, roll strategies, header
/// collections/extra_bones/rigify_ui) of bones the base rig has come from `base` (may be empty);
/// strategies are chosen automatically (§6.3), saved ones of `base` kept by §6.4; default
/// positions, offsets, rolls and roll references rounded (§6.6); header version 110, is_subrig,
/// scale_factor = the body's. A bone's parent comes from the base rig when that parent is among
/// `placements`, else from the placement. Errors: duplicate names, unknown parents, cycles.
[[nodiscard]] Expected<RigDefinition> saveRig(const RigDefinition& base, std::span<const BonePlacement> placements,
                                              const PositionInfo& info, const SaveOptions& options = {},
                                              SaveReport* report = nullptr);

/// Placements of a fitted skeleton (rolls as fitted).
std::vector<BonePlacement> placementsFromSkeleton(const Skeleton& skeleton);

// ---------------------------------------------------------------------------------------------
// Sources of bone positions

/// A skeleton read from a file: placements (rig frame) and where they came from. glTF skeletons
/// are read by readGltfSkeleton (a file, with the buffer files beside a .gltf) or
/// parseGltfSkeleton (bytes in memory), in rigfit/gltf.hpp.
struct SkeletonSource {
  std::vector<BonePlacement> bones;
  std::string kind;                  ///< "rigfit-skeleton", "gltf", "rig"
  std::vector<std::string> notes;    ///< assumptions taken (e.g. tails guessed)
};

/// rigfit's skeleton JSON ("rigfit-skeleton/1": bones with name, parent, head, tail, roll; other
/// keys ignored). Errors name the file and JSON path.
[[nodiscard]] Expected<SkeletonSource> parseSkeletonJson(const Json& json, std::string_view label);

// ---------------------------------------------------------------------------------------------
// Editing strategies (§6.5, the developer panel)

/// A rig being edited on one body: the rig, the current position of every bone end (from the fit)
/// and the body's position info (which must outlive the editor). Bone ends are addressed by rig
/// index and head/tail.
class RigEditor {
 public:
  struct End {
    std::size_t bone = 0;
    bool head = true;
  };

  /// `heads`/`tails`: current positions, one per rig bone (rig order), e.g. a fit's positions.
  RigEditor(RigDefinition rig, const PositionInfo& info, std::vector<Eigen::Vector3d> heads,
            std::vector<Eigen::Vector3d> tails, std::vector<double> rolls);
  /// Fits `rig` on the body of `positions` and starts editing at the fitted positions.
  /// `positions` are the body's (3 floats per vertex, rig frame) that `info` was built from.
  [[nodiscard]] static Expected<RigEditor> fromFit(RigDefinition rig, const PositionInfo& info,
                                                   std::span<const float> positions, const VertexGroups& groups);

  /// "Keep Connected" (default on): edits also apply to linked ends.
  bool keep_connected = true;

  const RigDefinition& rig() const { return rig_; }
  RigDefinition& rig() { return rig_; }
  const Eigen::Vector3d& position(End e) const { return e.head ? heads_[e.bone] : tails_[e.bone]; }
  [[nodiscard]] Expected<End> find(std::string_view bone, std::string_view end) const;

  /// Ends linked to `e` (itself first): within 1e-4 of its position (by_location) and/or with the
  /// same stored strategy (by_strategy); only `e` without keep_connected unless `force`.
  std::vector<End> linked(End e, bool by_location, bool by_strategy, bool force = false) const;

  /// Set strategy CUBE / VERTEX / MEAN / XYZ from the end's current position (nearest cube at any
  /// distance; nearest vertex; pair search at 0.02 then 0.15 H, else [nearest vertex]; nearest
  /// vertex three times); offset cleared, locks kept (and ignored); applied to ends linked by
  /// location or strategy. Returns the resulting position.
  [[nodiscard]] Expected<Eigen::Vector3d> setStrategy(End e, Strategy type);
  /// offset = position - strategy result (zero offset); |offset| <= 1e-4 stores (0,0,0); applied
  /// to ends linked by strategy.
  [[nodiscard]] Status setOffset(End e);
  /// Moves the end and the ends linked by strategy to the strategy's position.
  [[nodiscard]] Status reapply(End e);
  void setLock(End e, bool locked);
  /// "Save vertices": by the end's current type: VERTEX <- indices[0]; MEAN <- the indices sorted;
  /// XYZ <- the first three (x, y, z sources), padded with -1; CUBE or DEFAULT -> MEAN. Applied to
  /// ends linked by location or strategy, and locks them. Indices are checked against the mesh.
  [[nodiscard]] Status setVertices(End e, std::span<const std::int64_t> indices);
  /// CUBE with the named joint group; applied and locked like setVertices.
  [[nodiscard]] Status setCube(End e, std::string_view cube_name);
  /// Sets the roll strategy of a bone and applies it at once (ALIGN_Z_REFERENCE_Z stores the
  /// bone's current Z axis as the reference); kNone keeps the current roll.
  void setRollStrategy(std::size_t bone, RollStrategy strategy);
  /// Copy Connected Strategies, for head and tail: among other ends within 1e-4 whose strategy
  /// differs, the first found, a locked one replacing an unlocked choice; copied (lock included)
  /// if it is locked or this end is not. Returns how many ends changed (0-2).
  int copyConnected(std::size_t bone);

  /// The edited rig with default positions = current positions and rolls = current rolls,
  /// rounded as MPFB saves (§6.6).
  RigDefinition result() const;

 private:
  EndDef& def(End e) { return e.head ? rig_.bones[e.bone].head : rig_.bones[e.bone].tail; }
  const EndDef& def(End e) const { return e.head ? rig_.bones[e.bone].head : rig_.bones[e.bone].tail; }
  Eigen::Vector3d& pos(End e) { return e.head ? heads_[e.bone] : tails_[e.bone]; }
  double relativeScale() const;
  /// `s` (default position aside) on `e` and its ends linked by location or strategy, locked.
  void assignLocked(End e, const EndDef& s);

  RigDefinition rig_;
  const PositionInfo* info_;
  std::vector<Eigen::Vector3d> heads_, tails_;
  std::vector<double> rolls_;
};

}  // namespace rigfit
