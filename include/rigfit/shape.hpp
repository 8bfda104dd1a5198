// Body shapes: MakeHuman targets (.target / .target.gz), macro modifiers (macro.json) and detail
// modifiers (target.json), mixed as MPFB mixes shape keys (docs/mpfb-behaviour.md §10).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rigfit/data.hpp"
#include "rigfit/error.hpp"
#include "rigfit/json.hpp"
#include "rigfit/mesh.hpp"

namespace rigfit {

/// A target: sparse vertex offsets, already in the rig frame (scale * (dx, -dz, dy)), in double
/// as MPFB computes them before Blender stores the shape key in float.
struct Target {
  std::vector<std::uint32_t> vertices;
  std::vector<double> offsets;  ///< 3 per listed vertex
};

/// Parses target text ("index dx dy dz" lines; '#' and '"' lines and blank lines skipped).
/// Indices beyond `vertex_count` are ignored, as MPFB ignores them.
[[nodiscard]] Expected<Target> parseTarget(std::string_view text, std::string_view label, std::size_t vertex_count,
                                           float scale_factor = kDefaultScaleFactor);
/// Decodes target file bytes, gzip-compressed (detected by its magic) or plain.
[[nodiscard]] Expected<Target> decodeTarget(std::string_view bytes, std::string_view label, std::size_t vertex_count,
                                            float scale_factor = kDefaultScaleFactor);
/// Reads a .target or .target.gz file.
[[nodiscard]] Expected<Target> readTarget(const std::string& path, std::size_t vertex_count, float scale_factor = kDefaultScaleFactor);

/// MPFB's macro sliders. Defaults are MPFB's new human.
struct MacroSettings {
  double gender = 0.5, age = 0.5, muscle = 0.5, weight = 0.5, proportions = 0.5, height = 0.5;
  double cupsize = 0.5, firmness = 0.5;
  double african = 0.33, asian = 0.33, caucasian = 0.33;  ///< not normalised, as in MPFB
};

/// Parses "gender=0.5,age=1,..." (names as in MacroSettings; "default" alone = the defaults).
[[nodiscard]] Expected<MacroSettings> parseMacroSettings(std::string_view text);

/// The interpolation table of targets/macrodetails/macro.json.
struct MacroTable {
  struct Part {
    double lowest, highest;
    std::string low, high;
  };
  std::map<std::string, std::vector<Part>> macros;
};
[[nodiscard]] Expected<MacroTable> macroTableFromJson(const Json& json, std::string_view label);

/// The macro targets and weights MPFB applies for `settings`: paths relative to targets/ without
/// the extension ("macrodetails/african-female-young"), weight > 0.01 (products of the
/// interpolated components), in MPFB's combination order.
std::vector<std::pair<std::string, double>> macroTargets(const MacroTable& table, const MacroSettings& settings);

/// A body shape request.
struct ShapeRequest {
  bool use_macros = false;
  MacroSettings macros;
  std::vector<std::pair<std::string, double>> modifiers;  ///< "group/name" -> value (target.json)
  /// target as a user names it (resolveDataFile, kTarget: a path, or relative to the data or its
  /// targets/, extension optional) -> weight
  std::vector<std::pair<std::string, double>> targets;
  bool ground = false;  ///< lift the body so its lowest body vertex (< 13380 on hm08) is at z = 0
};

/// Resolves modifiers against targets/target.json into (target path, weight) pairs: a paired
/// modifier (negative/positive targets) uses the positive target at v > 0 and the negative one at
/// |v| for v < 0; a sided category takes "l-"/"r-" before its name; a plain target name is used
/// directly with weight v.
[[nodiscard]] Expected<std::vector<std::pair<std::string, double>>> resolveModifiers(
    const Json& target_json, std::span<const std::pair<std::string, double>> modifiers);

/// Loads targets on demand and keeps them (thread-safe), so a batch reads each file once.
class TargetCache {
 public:
  explicit TargetCache(DataSource data) : data_(std::move(data)) {}
  /// A target of the data's own tables (macro.json, target.json): `path` relative to targets/,
  /// without extension (.target.gz then .target are tried).
  [[nodiscard]] Expected<std::shared_ptr<const Target>> get(const std::string& path, std::size_t vertex_count);
  /// A target as a user names it (resolveDataFile, kTarget); `file` (optional) receives where it is.
  [[nodiscard]] Expected<std::shared_ptr<const Target>> find(const std::string& spec, std::size_t vertex_count, DataFile* file = nullptr);
  /// The target in a resolved file.
  [[nodiscard]] Expected<std::shared_ptr<const Target>> load(const DataFile& file, std::size_t vertex_count);
  [[nodiscard]] Expected<std::shared_ptr<const MacroTable>> macroTable();
  [[nodiscard]] Expected<std::shared_ptr<const Json>> targetJson();
  const DataSource& data() const { return data_; }

 private:
  DataSource data_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Target>> targets_;  // by "source:PATH" or "disk:PATH"
  std::map<std::string, DataFile> found_;                         // user specs resolved
  std::shared_ptr<const MacroTable> macro_;
  std::shared_ptr<const Json> target_json_;
};

/// The shaped body: basis + sum of weight * offset (weights clamped to [0, 1] as Blender's shape
/// key sliders), then grounding. Mixed in float like Blender's shape keys. `applied` (optional)
/// receives the (target, weight) list used.
[[nodiscard]] Status shapeBody(TargetCache& cache, const ShapeRequest& request, std::span<float> positions,
                               std::vector<std::pair<std::string, double>>* applied = nullptr);

/// The lowest z over body vertices (all vertices when the mesh is smaller than hm08's body).
float lowestBodyZ(std::span<const float> positions);

}  // namespace rigfit
