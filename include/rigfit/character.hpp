// A character: body + fitted rig + skin, loaded from a data source the way MPFB adds a rig
// to a human. The stage every command that needs a rigged body starts from.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rigfit/asset.hpp"
#include "rigfit/data.hpp"
#include "rigfit/error.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/mesh.hpp"
#include "rigfit/rig.hpp"
#include "rigfit/shape.hpp"
#include "rigfit/weights.hpp"

namespace rigfit {

/// What every character of a data source starts from, loaded once and shared read-only (batch):
/// the base mesh and the vertex groups.
struct CharacterBase {
  Mesh mesh;
  VertexGroups groups;
};
[[nodiscard]] Expected<CharacterBase> loadCharacterBase(const DataSource& data);

/// Parsed weights files by file and vertex count, shared by threads (batch): each file is parsed once.
class WeightsCache {
 public:
  /// The file named `label`, parsed by `parse` the first time it is asked for (errors are not kept).
  [[nodiscard]] Expected<std::shared_ptr<const WeightsFile>> get(const std::string& label, std::size_t vertex_count,
                                                                 const std::function<Expected<WeightsFile>()>& parse);

 private:
  std::mutex mutex_;
  std::map<std::pair<std::string, std::size_t>, std::shared_ptr<const WeightsFile>> files_;
};

/// An asset as characters wear it: loaded once (loadAsset, for the rig type whose custom weights
/// it takes) with its export material and the material's images read; shared
/// read-only by the characters of a batch.
struct WornAsset {
  Asset asset;
  ExportMaterial material;
  std::vector<std::string> warnings;  ///< missing material or image, unknown material keys
};

/// Loads an asset for wearing: loadAsset, then its material as an ExportMaterial named after the
/// .mhmat, with the diffuse texture read as the base colour image and the normal map as the
/// normal texture (a missing or unreadable image is a warning; the material keeps its colours).
[[nodiscard]] Expected<WornAsset> loadWornAsset(const std::string& path, const std::string& rig_type,
                                                float scale_factor = kDefaultScaleFactor);

/// Worn assets by file and rig type, shared by threads (batch): each is loaded (loadWornAsset) once
/// and then shared read-only.
class WornAssetCache {
 public:
  /// The asset at `path` for rig type `rig_type`, loaded the first time it is asked for; a thread
  /// asking for an asset another is loading waits for it. Errors are not kept (the next call retries).
  [[nodiscard]] Expected<std::shared_ptr<const WornAsset>> get(const std::string& path, const std::string& rig_type);

 private:
  struct Slot {
    std::mutex loading;
    std::shared_ptr<const WornAsset> asset;
  };
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<Slot>> assets_;
};

struct CharacterOptions {
  std::string rig;      ///< name or path; empty: "demo" on the built-in demo
  std::string mesh;     ///< body OBJ; empty: the data's base.obj
  std::string weights;  ///< weights name (weights.NAME.json) or path; empty: the rig's own; "none": no skin
  FitOptions fit;
  ShapeRequest shape;          ///< targets and macros applied to the body before fitting
  TargetCache* targets = nullptr;  ///< shared target cache (batch); null: a cache for this call
  const CharacterBase* base = nullptr;  ///< preloaded base mesh and groups of `data` (batch); null: loaded here
  WeightsCache* weights_cache = nullptr;  ///< shared parsed weights (batch); null: parsed here
  /// Threads the call may use: with 2 or more (and no weights_cache), the body's OBJ is read on a
  /// second thread, started and joined within the call, while this one parses and binds the
  /// weights. The result does not depend on it.
  int threads = 1;
  /// Assets worn over the body, in order: each is fitted to the shaped body, weighted from it and
  /// becomes a mesh after the body; their delete lists hide the body under them.
  std::vector<std::shared_ptr<const WornAsset>> assets;
  /// A body proxy (.proxy): replaces the body's mesh, fitted and weighted from the body (the rig
  /// is still fitted to the body); the worn clothes' masks carry over to it.
  std::shared_ptr<const WornAsset> proxy;
};

/// One skinned mesh of a character, on the character's skeleton.
struct CharacterMesh {
  std::string name = "Body";  ///< the exported mesh's name
  Mesh mesh;
  VertexGroups groups;        ///< the body's: helper geometry and masks (may be empty for others)
  Skin skin;                  ///< weights over the character's skeleton, one row per vertex
  ExportMaterial material;    ///< glTF/G4MF material (the body's base colour comes from the export options)
  /// The worn asset (or body proxy) this mesh is; null for the base body.
  std::shared_ptr<const WornAsset> asset;
  /// Per face: 1 where the face is hidden (the body under clothes); removed on export unless
  /// kept. Empty: every face shows.
  std::vector<std::uint8_t> hidden_faces;
};

/// One skeleton and many skinned meshes: the body is meshes[0] (fitted, shaped when a shape was
/// asked), further meshes (clothes, hair, props) follow; posing skins every mesh and export
/// writes every mesh. Morph targets apply to the body.
struct Character {
  std::vector<CharacterMesh> meshes;
  std::string mesh_label;  ///< where the body came from
  /// The base body's vertex count (targets and asset bindings index it), also when a body proxy
  /// has taken its place in meshes[0]. 0: meshes[0]'s.
  std::size_t body_vertex_count = 0;
  std::vector<std::pair<std::string, double>> targets_applied;
  RigDefinition rig;
  std::string rig_name;
  FitResult fit;
  bool has_skin = false;
  std::string weights_label;
  /// What the weights file says of itself: its "name", "license" and "copyright" (those that are
  /// strings), kept so an export can record where its weights came from and under which licence.
  Json weights_statements = Json::object();
  WeightsBinding binding;  ///< how the weights file's groups met the body's skeleton
  std::vector<std::string> warnings;  ///< the worn assets' warnings (missing images, ...)
  CharacterMesh& body() { return meshes.front(); }
  const CharacterMesh& body() const { return meshes.front(); }
};

/// The asset stage's geometry, without a rig (loadCharacter then weights the meshes; `rigfit
/// shape` writes them as they are).
struct DressedBody {
  std::vector<CharacterMesh> assets;    ///< one per worn asset, in order, fitted; no skin
  std::optional<CharacterMesh> proxy;   ///< the body proxy fitted, masked where the clothes hide the body; no skin
  std::vector<std::uint8_t> body_hidden_faces;  ///< per body face, 1 under the clothes; empty: none hidden
  std::vector<std::string> warnings;    ///< the assets' warnings, then the proxy's
};

/// Fits each worn asset (and the proxy) to `body`, the shaped body with its helpers, and works
/// out which of the body's (or the proxy's) faces the clothes' delete lists hide.
[[nodiscard]] Expected<DressedBody> dressBody(const Mesh& body, std::span<const std::shared_ptr<const WornAsset>> assets,
                                              const std::shared_ptr<const WornAsset>& proxy);

/// The weights file MPFB uses for a rig: rigs/<standard|rigify>/weights.<name>.json, first existing
/// along [name] + fallbacks (default_no_toes -> default, rigify.human <-> rigify.human_toes).
/// Returns the relative path, or an empty string when there is none.
std::string defaultWeightsPath(const DataSource& data, const std::string& rig_name);

/// Loads the body (checked against the base mesh's vertex count), the rig (fitted), and the
/// weights (bound to the fitted skeleton). Errors name the file and location.
[[nodiscard]] Expected<Character> loadCharacter(const DataSource& data, const CharacterOptions& options);

}  // namespace rigfit
