// Weights: MPFB's weights.*.json files and rigfit's one sparse skin layout
// (docs/mpfb-behaviour.md §7).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rigfit/error.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/json.hpp"
#include "rigfit/rig.hpp"
#include "rigfit/skeleton.hpp"

namespace rigfit {

/// A weights file as stored: every group with its [vertex, weight] pairs in file order, and every
/// other top-level key (copyright, description, license, name, version, ...) kept as JSON.
struct WeightsFile {
  struct Group {
    std::string name;
    std::vector<std::int64_t> vertices;
    std::vector<double> weights;
    std::vector<std::uint8_t> weight_is_int;  ///< empty, or 1 where the file wrote an integer (0, 1)
  };
  std::string label;
  Json header = Json::object();  ///< top-level keys except "weights", in file order
  std::vector<Group> groups;     ///< file order
  bool final_newline = false;
};

/// Parses a weights file (simdjson On-Demand). Errors are one line "LABEL: PATH: what", e.g.
/// `weights.json: weights["thigh_l"][12][1]: weight is negative (-0.5)`; malformed JSON is a
/// kSyntax error naming line, column and byte (it wins over value errors, as in Python, where the
/// file would not load at all). Errors: negative, non-numeric or non-finite (1e400) weights,
/// integer weights of 2^53 or more (they would not write back exactly), non-integer, negative or
/// too large vertex indices, pairs that are not [vertex, weight], duplicate groups or top-level
/// keys, no "weights". `vertex_count` (0: unchecked) bounds the vertex indices (kRange).
/// The text is copied into a buffer with the padding simdjson reads past its end.
[[nodiscard]] Expected<WeightsFile> parseWeights(std::string_view text, std::string_view label, std::size_t vertex_count = 0);
/// The same on a file's bytes: read in place when loadFile read them (they are padded).
[[nodiscard]] Expected<WeightsFile> parseWeights(const FileText& text, std::string_view label, std::size_t vertex_count = 0);
[[nodiscard]] Expected<WeightsFile> readWeights(const std::string& path, std::size_t vertex_count = 0);

struct WeightsWriteOptions {
  /// MPFB's current saver (RigService.get_weights) on the weights as Blender holds them
  /// (float32): w = max(0, min(1, round(w, 5))), kept if w >= 1e-4; a result of 1 is written as
  /// the integer 1 (Python's min(1, 1.0) is the int).
  bool mpfb_rounding = false;
};

/// Writes the file as MPFB does (json.dump(indent=4, sort_keys=True)); groups are written in sorted
/// order (as sort_keys does) and pairs in stored order. Load -> write gives the same bytes for
/// every file MPFB wrote with sorted keys. A "weights" key in `header` is ignored.
std::string writeWeights(const WeightsFile& file, const WeightsWriteOptions& options = {});

/// rigfit's skin: per vertex, its bone influences sorted by descending weight (ties: lower bone
/// index first), vertices ascending. Weights are as Blender's vertex groups hold them after MPFB
/// loads a file (entries mapped to one bone summed, clamped to [0, 1]); they are not normalised
/// (Blender's armature modifier divides by the vertex's total when it deforms).
struct Skin {
  std::size_t vertex_count = 0;
  std::size_t bone_count = 0;
  std::vector<std::uint32_t> offsets;  ///< vertex v: influences [offsets[v], offsets[v+1]); size vertex_count+1
  std::vector<std::uint16_t> bones;    ///< Skeleton bone index
  std::vector<float> weights;

  /// mhmask-* groups, kept apart (they are not bones): name and dense per-vertex weight.
  std::vector<std::string> mask_names;
  std::vector<std::vector<float>> masks;

  std::size_t influenceCount(std::size_t v) const { return offsets[v + 1] - offsets[v]; }
  std::size_t maxInfluences() const;
};

/// How file groups were matched to bones (for reports and warnings).
struct WeightsBinding {
  struct Match {
    std::string group;  ///< file group
    std::string bone;   ///< skeleton bone it feeds
  };
  std::vector<Match> matches;
  std::vector<std::string> unmapped;  ///< groups that name no bone (not masks): dropped, reported
  std::vector<std::string> unweighted_bones;  ///< bones with no weight > 0 in the skin (no group, or empty/zero groups)
  /// Groups MPFB maps to one of the rig's `extra_bones` (deform bones Rigify generates later; not
  /// bones of this skeleton): `bone` is that extra bone. Not in the skin, not in `unmapped`.
  std::vector<Match> extra;
  /// mhmask-* groups, in file order (they are in Skin::mask_names).
  std::vector<std::string> masks;
};

/// Maps the file's groups to the skeleton's bones as MPFB does (§7.2), every skeleton bone being a
/// deform bone: exact name; `DEF-` toggled; the toe fallback (`^(DEF-)?toe<d>-<d><any>(L|R)$` ->
/// `toe.S`, `DEF-toe.S` or `toe1-1.S`, the first that exists, if it has no child whose name
/// contains "toe"; `\d` taken as an ASCII digit); then the rig's `extra_bones` (name or DEF-
/// toggled form): such groups are reported in `WeightsBinding::extra` and left out of the skin,
/// since those bones only exist in the Rigify rig generated later. `mhmask-*` groups become
/// masks; every other group is reported as unmapped (MPFB drops it).
/// Weights are added as Blender's VertexGroup.add(..., 'ADD') does, in float32, each clamped to
/// [0, 1], bones in skeleton order with their groups in file order. Zero results (Blender keeps
/// them as memberships of weight 0) deform nothing and are not in the skin, so a vertex whose
/// weights are all 0 has no influence. Every loaded group (bone, extra, mask) must have vertex
/// indices < vertex_count (kRange error naming the group and pair) and weights >= 0.
[[nodiscard]] Expected<Skin> bindWeights(const WeightsFile& file, const Skeleton& skeleton, const RigDefinition& rig,
                                         std::size_t vertex_count, WeightsBinding* binding = nullptr);

/// Fixed-size influences for formats that need them (glTF JOINTS_n/WEIGHTS_n): per vertex the K
/// heaviest influences (K = 4 or 8), heaviest first, renormalised to sum 1; unused slots have
/// bone 0 and weight 0. A vertex with no influence (or total <= 1e-4, which Blender leaves at rest)
/// gets all-zero weights. Writes vertex_count*K entries to each output.
/// Returns the number of vertices that lost influences; `dropped_weight` (optional) receives the
/// largest normalised weight dropped from any vertex (dropped weight / the vertex's full total).
/// The float weights of a weighted vertex add up to exactly 1.0f when summed in slot order (a
/// few ulps moved onto the heaviest, or else the lightest, slot; order kept).
/// k not 4 or 8, or outputs shorter than vertex_count*K: nothing is written, returns 0.
std::size_t limitInfluences(const Skin& skin, int k, std::span<std::uint16_t> bones, std::span<float> weights,
                            double* dropped_weight = nullptr);

/// Quantised variant: weights as unsigned integers of `bits` (8 or 16) that sum to exactly
/// 2^bits - 1 per weighted vertex (largest remainders: each rounded down, the missing units to the
/// largest fractional parts, earlier slot on a tie, so heaviest-first order is kept); a vertex
/// whose K weights are all 0 stays 0. `weights` holds K per vertex (limitInfluences' output);
/// they are renormalised by their sum first. Invalid k/bits or a short `out`: nothing is written.
void quantizeInfluences(std::span<const float> weights, int k, int bits, std::span<std::uint16_t> out);

}  // namespace rigfit
