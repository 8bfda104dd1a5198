// MakeHuman proxy assets (eyes, eyebrows, eyelashes, teeth, tongue, hair, clothes: `.mhclo`; body
// topologies: `.proxy`) as MPFB reads, fits, masks and weights them (docs/mpfb-assets.md §1-§4, §9):
// the file readers, the OBJ + material + sidecar loading, and jobs over caller-owned spans for
// fitting, the body mask and the asset's weights.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rigfit/error.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/mesh.hpp"
#include "rigfit/rig.hpp"
#include "rigfit/shape.hpp"
#include "rigfit/skeleton.hpp"
#include "rigfit/weights.hpp"

namespace rigfit {

/// Each asset vertex bound to three body vertices, struct of arrays with 3 entries per asset vertex.
/// The numbers are kept as MPFB holds them, so that fitting reproduces its float32 results:
/// weights as written (Python doubles; MPFB rounds them to float32 when it fits and uses the
/// doubles when it interpolates weights), offsets already in the rig frame as float32.
struct AssetBindings {
  /// Body vertex indices as written. The first of a vertex is never negative (a negative first
  /// index ends the vertex section); the other two may be (Python indexing then counts from the end).
  std::vector<std::int64_t> vertices;
  std::vector<double> weights;  ///< may be negative; (1, 0, 0) for the one-index form
  /// (dx, -dz, dy) of the file's MH-frame (dx, dy, dz), each rounded to float32: unscaled, in
  /// decimetre-sized MH units; fitting scales them per axis.
  std::vector<float> offsets;

  std::size_t size() const { return vertices.size() / 3; }
};

/// A scale reference line `x_scale|y_scale|z_scale A B REF`.
struct AssetScaleRef {
  std::int64_t a = 0, b = 0;
  double ref = 0.0;  ///< reference length, MH decimetres
};

/// A `.mhclo` / `.proxy` file as MPFB's Mhclo.load() reads it (§1). Defaults are MPFB's.
struct ProxyFile {
  std::string label;                   ///< the file, for messages
  std::string name = "imported_cloth";  ///< first word after `name`
  std::string uuid;
  std::string obj_file;                ///< as written (relative to the file's folder); empty: none
  std::string material;                ///< as written (relative to the file's folder); empty: none
  std::string vertexboneweights_file;  ///< as written; parsed but not used by MPFB (§4)
  std::string tags;                    ///< lower-cased first words of `tag` lines, joined with commas
  std::int64_t z_depth = 50;           ///< parsed, never used by MPFB
  std::string author = "unknown";      ///< from `# author X` (first word)
  std::string license = "CC0";         ///< from `# license ...`: CC-BY, AGPL or CC0
  std::string description = "no description";  ///< from `# description ...`
  std::optional<AssetScaleRef> x_scale, y_scale, z_scale;
  AssetBindings bindings;
  bool has_delete_verts = false;            ///< a `delete_verts` key was read
  /// As MPFB lists them: numbers, and `a - b` ranges expanded (inclusive) after their first
  /// number, which is thus listed twice (it matters to the conservative mask, see addDeleteGroup).
  std::vector<std::int64_t> delete_verts;
};

/// Reads a `.mhclo` / `.proxy` text. Lines split on whitespace (Python's line.split(); \n, \r\n
/// and \r end lines). `#` lines are comments (author, license, description read); `material` and
/// `vertexboneweights*` are read anywhere, even inside a section; the vertex section (after
/// `verts`) and the `delete_verts` section end at a blank line or a line whose first token is not
/// plain digits (`-1` included), and that line is consumed, not read as a key (MPFB's quirk);
/// unknown keys (shear_*, special_pose, basemesh, ...) are skipped. Errors (kSyntax, "LABEL: line
/// N: what"): a vertex line of 2-8 tokens, a token that is not a number (Python int()/float();
/// nan and inf refused), a key without its values, a vertex section after a `delete_verts` range
/// (MPFB numbers its vertices wrongly then), no vertex at all.
[[nodiscard]] Expected<ProxyFile> parseProxyFile(std::string_view text, std::string_view label);
[[nodiscard]] Expected<ProxyFile> readProxyFile(const std::string& path);

/// A texture named by a material: its key (canonical, e.g. "diffuseTexture"), the path as written
/// and resolved (relative to the .mhmat, backslashes made slashes), and whether the file exists.
struct AssetTexture {
  std::string key;
  std::string written;
  std::string path;
  bool exists = false;
};

/// A MakeHuman `.mhmat` material: the keys that matter outside MakeHuman's viewport. Keys are
/// case-insensitive; absent values keep the MHMAT defaults noted.
struct AssetMaterial {
  std::string label;
  std::string name;
  std::array<double, 3> diffuse_color = {1.0, 1.0, 1.0};  ///< base colour factor (MakeHuman 1.x: white)
  double opacity = 1.0;  ///< 1: opaque
  std::optional<double> roughness;  ///< when the file gives it
  std::optional<double> metallic;
  bool transparent = false;
  bool alpha_to_coverage = true;
  bool backface_cull = true;
  std::vector<AssetTexture> textures;  ///< in file order, each key once (the last wins)
  const AssetTexture* texture(std::string_view key) const;
};

/// Reads a `.mhmat` text; textures are resolved against `folder` (the .mhmat's folder) but not
/// checked. `#` and `//` lines are comments. Unknown keys are warnings ("LABEL: line N: unknown
/// key K"), appended to `warnings` (optional). Errors (kSyntax, file + line): a colour or number
/// that is not one, a texture key without a file.
[[nodiscard]] Expected<AssetMaterial> parseMaterial(std::string_view text, std::string_view label, std::string_view folder,
                                                    std::vector<std::string>* warnings = nullptr);
/// Reads a `.mhmat` file: textures resolved relative to it, and each missing texture file is a
/// warning naming it (not an error).
[[nodiscard]] Expected<AssetMaterial> readMaterial(const std::string& path, std::vector<std::string>* warnings = nullptr);

/// The glTF-like material of an asset: base colour = diffuseColor with alpha = opacity; roughness
/// and metallic where given (else 0.7, the MHMAT default, and 0); `transparent` gives MASK (cutoff
/// 0.5) with alphaToCoverage (MakeHuman's hair, eyebrows and eyelashes: cut-out cards), else BLEND;
/// an opaque material with opacity < 1 is BLEND; double-sided unless backfaceCull.
ExportMaterial exportMaterial(const AssetMaterial& material);

/// A custom weights sidecar of an asset (§4.2), in the order MPFB loads them.
struct AssetCustomWeights {
  std::string path;
  /// `.force.mhw`: every group is loaded; otherwise only groups that map to a bone (or an extra
  /// bone) and `mhmask-*`.
  bool all_groups = false;
  WeightsFile weights;
};

struct AssetLoadOptions {
  /// MPFB's rig type (e.g. "default", "game_engine", "rigify.human"): selects
  /// `<stem>.<rig type>.mhw`, the first existing along the rig fallback chain (default_no_toes ->
  /// default, rigify.human <-> rigify.human_toes). Empty or containing "unknown": none.
  std::string rig_type;
  ObjReadOptions obj;  ///< the OBJ's scale factor (the body's)
};

/// An asset ready to fit: the parsed file, the OBJ (its topology and UVs are the asset's; its
/// positions are replaced by fitting, except for vertices bound outside the body), the material,
/// and the sidecar files next to it.
struct Asset {
  std::string path;  ///< the .mhclo / .proxy
  std::string stem;  ///< path without its extension: sidecars are stem + ".mhw" etc.
  ProxyFile file;
  std::string obj_path;
  Mesh mesh;
  std::string material_path;             ///< resolved; empty when the file names none
  std::optional<AssetMaterial> material;  ///< absent when none is named or it is missing (warning)
  std::vector<AssetCustomWeights> custom_weights;  ///< existing sidecars, read, in MPFB's order
  std::string subrig_path;                ///< stem + ".mpfbskel" when it exists
  std::optional<RigDefinition> subrig;    ///< that sub-rig, read (upgraded to v110)
  std::vector<std::string> warnings;      ///< missing material or textures, unknown material keys
};

/// The existing custom weights sidecars of an asset, in MPFB's order: `<stem>.mhw`,
/// `<stem>.force.mhw`, then the first existing `<stem>.<rig type>.mhw` along the fallback chain
/// (`rigify_generated` read as `rigify`; none for an empty or unknown rig type).
std::vector<std::pair<std::string, bool>> customWeightsPaths(const std::string& stem, std::string_view rig_type);

/// Loads an asset: the .mhclo/.proxy, its OBJ (error kMismatch naming both files if its vertex
/// count differs from the binding count), its material (a missing .mhmat or texture is a warning),
/// its custom weights sidecars (read with the weights reader, indices bounded by the asset's
/// vertex count) and its sub-rig sidecar (which must have `is_subrig: true`). Errors name the file
/// and line (JSON path for the sub-rig).
[[nodiscard]] Expected<Asset> loadAsset(const std::string& path, const AssetLoadOptions& options = {});

/// §2 per-axis size factors: with `x_scale`, sx = |body[xA].x - body[xB].x| / xref, sy from the
/// rig-frame z (MH y) of the y_scale pair, sz from the rig-frame y (MH z) of the z_scale pair,
/// computed in double from the float32 body as MPFB does; without it each is `body_scale_factor`.
struct AssetScaleFactors {
  double x = 0.1, y = 0.1, z = 0.1;
};
/// Errors (kRange, naming the file): a scale index outside the body (MPFB refuses to fit), x_scale
/// without y_scale or z_scale.
[[nodiscard]] Expected<AssetScaleFactors> assetScaleFactors(const ProxyFile& file, std::span<const float> body_positions,
                                                            float body_scale_factor = kDefaultScaleFactor);

/// §2 fitting job: for every asset vertex i (3 floats per vertex in every span, rig frame),
/// out_i = w1*body[v1] + w2*body[v2] + w3*body[v3] + (dx*sx, dy*sz, dz*sy) in MPFB's float32
/// arithmetic (each weight rounded to float32, products and sums in float32 left to right, the
/// offset scaled in double then rounded). A vertex with v1 >= n, v2 > n (MPFB's quirk: `>` where
/// `>=` was meant) or v3 >= n keeps `obj_positions`' position. Negative v2/v3 count from the end.
/// `out` may be `obj_positions`. Errors (kRange, naming `label` and the asset vertex): an index
/// MPFB would fail on (v2 == n, or below -n); spans of the wrong size (kUsage).
[[nodiscard]] Status fitAssetPositions(const AssetBindings& bindings, const AssetScaleFactors& scale,
                                       std::span<const float> body_positions, std::span<const float> obj_positions,
                                       std::span<float> out, std::string_view label);
/// assetScaleFactors + fitAssetPositions from the asset's OBJ positions.
[[nodiscard]] Status fitAsset(const Asset& asset, std::span<const float> body_positions, std::span<float> out,
                              float body_scale_factor = kDefaultScaleFactor);

/// §3 delete group of one asset on a body: the listed vertices below `vertex_count` (others
/// dropped), made conservative as MPFB does: each face that has a listed vertex and an unlisted
/// one removes one listing of each of its listed vertices (a vertex listed k times and in m such
/// faces stays if k > m). Sets `in_group[v] = 1` for the vertices that stay (others untouched, so
/// several assets accumulate: MPFB's masks of several assets apply one after the other).
/// `face_offsets`/`corner_vertices` as in Mesh; `in_group` has vertex_count entries.
void addDeleteGroup(std::span<const std::int64_t> delete_verts, std::span<const std::uint32_t> face_offsets,
                    std::span<const std::uint32_t> corner_vertices, std::span<std::uint8_t> in_group);

/// The faces an inverted Blender MASK modifier on `masked` vertices removes: every face with at
/// least one masked vertex. `face_hidden` has one entry per face.
void maskedFaces(std::span<const std::uint8_t> masked, std::span<const std::uint32_t> face_offsets,
                 std::span<const std::uint32_t> corner_vertices, std::span<std::uint8_t> face_hidden);

/// Per-vertex and per-face hidden flags of a body (or of a body proxy).
struct BodyMask {
  std::vector<std::uint8_t> vertex_masked;
  std::vector<std::uint8_t> face_hidden;
};
/// The body's mask under the worn assets: the union of their delete groups (addDeleteGroup each),
/// and the faces that removes.
BodyMask bodyMask(const Mesh& body, std::span<const ProxyFile* const> worn);

/// §3 carry-over to a body proxy: proxy vertex i is masked when any of its three binding vertices
/// is masked on the body (`body_masked`, one per body vertex; indices outside it never are).
/// `proxy_masked` has bindings.size() entries, set to 0 or 1.
void proxyMask(const AssetBindings& bindings, std::span<const std::uint8_t> body_masked, std::span<std::uint8_t> proxy_masked);

/// §4.1 interpolated weights of an asset from the body's groups as Blender holds them (the body's
/// Skin: bone groups in float32 after loading, and the mhmask-* masks): for each asset vertex and
/// group g, Σ w_k·g(v_k) / Σ w_k in double (absent = 0), kept if > 0.001, stored as the float32
/// (clamped to 1) Blender's vertex group keeps. The result names bone groups after
/// `skeleton_names` (skeleton order, then masks; empty groups left out) so bindWeights on the same
/// skeleton maps them back exactly. Errors (kRange, naming `label` and the vertex): a binding
/// index outside the body (MPFB fails there), weights summing to 0 for a weighted vertex.
[[nodiscard]] Expected<WeightsFile> interpolateAssetWeights(const Skin& body_skin, std::span<const std::string> skeleton_names,
                                                            const AssetBindings& bindings, std::string label);
/// The same from the body's weights file: bound to the skeleton first (bindWeights), as MPFB's body
/// holds it. Groups of the rig's extra bones (Rigify's generated DEF- bones) are not carried: no
/// skin holds them.
[[nodiscard]] Expected<WeightsFile> interpolateAssetWeights(const WeightsFile& body_weights, const Skeleton& skeleton,
                                                            const RigDefinition& rig, std::size_t body_vertex_count,
                                                            const AssetBindings& bindings, std::string label);

/// §4.2 one custom weights file on an asset's weights, as MPFB loads it with replace=True: its
/// groups are mapped as bindWeights maps them (bone, DEF- toggled, toe fallback, extra bones;
/// `mhmask-*` kept; other groups only with `all_groups`); each target group of `asset` is
/// emptied, then the pairs are added (float32, each clamped to [0, 1], sums clamped to 1). Groups
/// the file does not list keep their values. Errors: a vertex index outside the asset (kRange).
/// `ignored` (optional) receives the groups that name no bone and are not loaded (MPFB drops them
/// silently; a file written for another rig's bone names has only such groups).
[[nodiscard]] Status applyCustomWeights(WeightsFile& asset, const WeightsFile& custom, bool all_groups, const Skeleton& skeleton,
                                        const RigDefinition& rig, std::size_t asset_vertex_count,
                                        std::vector<std::string>* ignored = nullptr);

/// §3 MPFB's proxy corrective: `mesh_metadata/proxy_corrective.json` (`corrective`, parsed) lists
/// proxy uuids; one whose entry has `fix_leftright_weights_for_groups` gets its sided weights
/// cleaned. True when `uuid` is listed so.
bool proxyNeedsSidedFix(const Json& corrective, std::string_view uuid);

/// The clean-up itself, on a proxy's skin: a vertex with x > 1e-4 (rig frame) loses its weights for
/// right-side bones (lowercase name ending ".r" or starting "r-" / "r_"), one with x < -1e-4 those
/// for left-side bones (".l", "l-", "l_"). MPFB sets them to 0, which deforms nothing: they leave
/// the skin. `bone_names` names the skin's bones; `positions` are the proxy's, fitted.
void fixSidedWeights(Skin& skin, std::span<const std::string> bone_names, std::span<const float> positions);

/// §7 a body target (offsets in the rig frame, metres) carried over to an asset: asset vertex i
/// moves by Σ w_k·offset(v_k) over its binding (negative indices counted from the end, indices
/// outside the body ignored), listed when that moves it more than 1e-4 m (MPFB's threshold).
/// `out` lists the moved asset vertices ascending; empty when the target does not move the asset.
void transferTarget(const AssetBindings& bindings, const Target& body_target, std::size_t body_vertex_count, Target& out);

}  // namespace rigfit
