// RigDefinition: the editable, asset-side form of an MPFB rig file (rig.*.json). It mirrors the
// JSON, keeps every key (known or not) so load -> save loses nothing, and is upgraded to
// version 110 on load. FitJob turns it into an immutable Skeleton.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigfit/constraint.hpp"
#include "rigfit/error.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/json.hpp"

namespace rigfit {

using Vec3d = std::array<double, 3>;

/// How a bone end is placed on the body (MPFB's "strategy").
enum class Strategy : std::uint8_t {
  kCube,     ///< mean of the vertices of a `joint-*` vertex group
  kVertex,   ///< one vertex
  kMean,     ///< mean of listed vertices (indices may repeat)
  kXyz,      ///< x, y, z taken from three vertices
  kDefault,  ///< no strategy: `default_position` as saved
};
const char* strategyName(Strategy s);

enum class RollStrategy : std::uint8_t { kNone, kAlignZWorldZ, kAlignXWorldX, kAlignZReferenceZ };
const char* rollStrategyName(RollStrategy s);

enum class InheritScale : std::uint8_t { kFull, kFixShear, kAligned, kAverage, kNone, kNoneLegacy };
const char* inheritScaleName(InheritScale s);

/// Blender's rotation modes; the Euler orders name the axes in the order they are applied.
enum class RotationMode : std::uint8_t { kQuaternion, kXYZ, kXZY, kYXZ, kYZX, kZXY, kZYX, kAxisAngle };
const char* rotationModeName(RotationMode m);

/// One bone end (head or tail).
struct EndDef {
  Strategy strategy = Strategy::kDefault;
  std::string cube_name;                    ///< kCube
  std::int64_t vertex_index = 0;            ///< kVertex (negative wraps, as in Python)
  std::vector<std::int64_t> vertex_indices;  ///< kMean (>= 1), kXyz (>= 3, first 3 used)
  std::optional<Vec3d> offset;              ///< added after evaluation, times the relative scale
  std::optional<Vec3d> default_position;    ///< fallback position (armature space)
  friend bool operator==(const EndDef&, const EndDef&) = default;
};

struct BoneDef {
  std::string name;
  std::string parent;  ///< "" for a root
  EndDef head, tail;
  double roll = 0.0;   ///< Blender's edit-bone roll, radians
  bool use_connect = false;
  bool use_local_location = true;
  bool use_inherit_rotation = true;
  InheritScale inherit_scale = InheritScale::kFull;
  RotationMode rotation_mode = RotationMode::kQuaternion;
  RollStrategy roll_strategy = RollStrategy::kNone;
  std::optional<Vec3d> roll_reference_z;
  std::vector<std::string> collections;
  std::vector<Constraint> constraints;  ///< `constraints`, typed (targets by name; resolved when fitting)
  Json json;  ///< the bone entry as loaded (every key, upgraded to 110); saving starts from it
};

enum class RigLayout : std::uint8_t {
  kLegacy,  ///< the top-level object is the bone dictionary (implied version 100)
  kBones,   ///< {"bones": ..., "version": N, ...}
};

struct RigDefinition {
  std::string label;               ///< file name (for messages)
  RigLayout layout = RigLayout::kBones;
  int source_version = 110;        ///< version before the upgrade
  int version = 110;
  bool is_subrig = false;
  std::optional<double> scale_factor;  ///< header scale_factor (truthy values only)
  std::vector<std::string> collections;
  std::vector<std::string> extra_bones;
  std::vector<BoneDef> bones;      ///< in file (dictionary) order
  Json header;                     ///< every top-level key except "bones", upgraded to 110
  bool final_newline = false;      ///< the source file ended with a newline (kept on save)

  const BoneDef* find(std::string_view name) const;
};

/// Builds a RigDefinition from parsed JSON in any of MPFB's layouts (legacy, v100, v110),
/// upgrading to 110. Errors name `label` and the JSON path.
[[nodiscard]] Expected<RigDefinition> rigFromJson(Json json, std::string_view label);
[[nodiscard]] Expected<RigDefinition> readRig(const std::string& path);
/// Parses rig text (simdjson, into rigfit's Json, then rigFromJson). Syntax errors name line,
/// column and byte. The text is copied into a buffer with the padding simdjson reads past its end.
[[nodiscard]] Expected<RigDefinition> parseRig(std::string_view text, std::string_view label);
/// The same on a file's bytes: read in place when loadFile read them (they are padded).
[[nodiscard]] Expected<RigDefinition> parseRig(const FileText& text, std::string_view label);

/// The version 100 -> 110 upgrade on a whole rig document ({"bones":..., "version":100, ...});
/// layers become bone collections, rigify `*_layers` parameters become `*_coll_refs`.
void upgradeRigJson100To110(Json& document);

/// The rig as MPFB writes it: json.dump(indent=4, sort_keys=True), version 110.
Json rigToJson(const RigDefinition& rig);
std::string writeRig(const RigDefinition& rig);

}  // namespace rigfit
