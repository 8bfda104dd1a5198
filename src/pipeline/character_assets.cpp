// The asset stage of a character (docs/mpfb-assets.md): worn assets fitted to the shaped body,
// weighted from it and added as meshes; the body hidden under them; a body proxy in the body's
// place.
#include "core/file_io.hpp"
#include "pipeline/character_assets.hpp"
#include "rigfit/character.hpp"

namespace rigfit {

Expected<WornAsset> loadWornAsset(const std::string& path, const std::string& rig_type, float scale_factor) {
  AssetLoadOptions options;
  options.rig_type = rig_type;
  options.obj.scale_factor = scale_factor;
  auto asset = loadAsset(path, options);
  if (!asset) return asset.error();
  WornAsset out{std::move(*asset), {}, {}};
  out.warnings = out.asset.warnings;
  if (!out.asset.material) {
    out.material.name = out.asset.file.name;
    return out;
  }
  const AssetMaterial& mat = *out.asset.material;
  out.material = exportMaterial(mat);
  // The diffuse image as base colour, the normal map as normal texture; an image that cannot be
  // read is a warning and the material keeps its colours.
  const auto image = [&](const char* key, std::optional<ExportImage>& slot) {
    const AssetTexture* texture = mat.texture(key);
    if (!texture || !texture->exists) return;  // a missing file is already a warning (readMaterial)
    auto bytes = readFile(texture->path);
    auto read = bytes ? exportImage(std::make_shared<const std::string>(std::move(*bytes)), texture->path)
                      : Expected<ExportImage>(bytes.error());
    if (read)
      slot = std::move(*read);
    else
      out.warnings.push_back(read.error().message + " (the material keeps its colour)");
  };
  image("diffuseTexture", out.material.base_color_texture);
  image("normalmapTexture", out.material.normal_texture);
  return out;
}

Expected<std::shared_ptr<const WornAsset>> WornAssetCache::get(const std::string& path, const std::string& rig_type) {
  Slot* slot = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& entry = assets_[{path, rig_type}];
    if (!entry) entry = std::make_unique<Slot>();
    slot = entry.get();
  }
  // Only this asset's callers wait while it loads; other assets load meanwhile.
  std::lock_guard<std::mutex> lock(slot->loading);
  if (slot->asset) return slot->asset;
  auto worn = loadWornAsset(path, rig_type);
  if (!worn) return worn.error();
  slot->asset = std::make_shared<const WornAsset>(std::move(*worn));
  return slot->asset;
}

namespace {

// One worn asset as a mesh: fitted on `body` (the shaped body, helpers included), with its
// material; no skin yet.
Expected<CharacterMesh> fitWorn(const std::shared_ptr<const WornAsset>& worn, const Mesh& body) {
  const Asset& asset = worn->asset;
  CharacterMesh m;
  m.asset = worn;
  m.name = asset.file.name;
  m.mesh = asset.mesh;
  RIGFIT_TRY(fitAsset(asset, body.positions, m.mesh.positions, body.scale_factor));
  m.mesh.normals.clear();  // the OBJ's normals were for its own positions
  for (std::int32_t& k : m.mesh.corner_normals) k = -1;
  m.material = worn->material;
  return m;
}

}  // namespace

Expected<DressedBody> dressBody(const Mesh& body, std::span<const std::shared_ptr<const WornAsset>> assets,
                                const std::shared_ptr<const WornAsset>& proxy) {
  DressedBody out;
  std::vector<const ProxyFile*> masking;
  for (const auto& a : assets) {
    auto m = fitWorn(a, body);
    if (!m) return m.error();
    out.assets.push_back(std::move(*m));
    if (a->asset.file.has_delete_verts) masking.push_back(&a->asset.file);
    out.warnings.insert(out.warnings.end(), a->warnings.begin(), a->warnings.end());
  }
  const BodyMask mask = bodyMask(body, masking);
  bool any_hidden = false;
  for (std::uint8_t h : mask.face_hidden) any_hidden = any_hidden || h;
  if (proxy) {
    // The proxy takes the body's place: masked where any of its binding vertices is (§3).
    auto m = fitWorn(proxy, body);
    if (!m) return m.error();
    out.warnings.insert(out.warnings.end(), proxy->warnings.begin(), proxy->warnings.end());
    std::vector<std::uint8_t> masked(m->mesh.vertexCount(), 0);
    proxyMask(proxy->asset.file.bindings, mask.vertex_masked, masked);
    if (any_hidden) {
      m->hidden_faces.assign(m->mesh.faceCount(), 0);
      maskedFaces(masked, m->mesh.face_offsets, m->mesh.corner_vertices, m->hidden_faces);
    }
    out.proxy = std::move(*m);
  } else if (any_hidden) {
    out.body_hidden_faces = mask.face_hidden;
  }
  return out;
}

namespace detail {

namespace {

// An asset's skin on the character's skeleton: interpolated from the body's skin (§4.1), then its
// custom weights files replace the groups they list (§4.2). Without a body skin, no influences.
Expected<Skin> assetSkin(const Character& c, const Asset& asset, std::size_t n) {
  if (!c.has_skin) {
    Skin none;
    none.vertex_count = n;
    none.bone_count = c.fit.skeleton.size();
    none.offsets.assign(n + 1, 0);
    return none;
  }
  auto weights = interpolateAssetWeights(c.body().skin, c.fit.skeleton.names, asset.file.bindings, asset.path);
  if (!weights) return weights.error();
  for (const AssetCustomWeights& custom : asset.custom_weights)
    RIGFIT_TRY(applyCustomWeights(*weights, custom.weights, custom.all_groups, c.fit.skeleton, c.rig, n));
  return bindWeights(*weights, c.fit.skeleton, c.rig, n);
}

}  // namespace

Status wearAssets(Character& c, const CharacterOptions& options) {
  if (options.assets.empty() && !options.proxy) return {};
  auto dressed = dressBody(c.body().mesh, options.assets, options.proxy);
  if (!dressed) return dressed.error();
  // Every skin comes from the base body's, so the proxy takes its place last.
  for (CharacterMesh& m : dressed->assets) {
    auto skin = assetSkin(c, m.asset->asset, m.mesh.vertexCount());
    if (!skin) return skin.error();
    m.skin = std::move(*skin);
  }
  if (dressed->proxy) {
    auto skin = assetSkin(c, dressed->proxy->asset->asset, dressed->proxy->mesh.vertexCount());
    if (!skin) return skin.error();
    dressed->proxy->skin = std::move(*skin);
    c.body() = std::move(*dressed->proxy);
  } else {
    c.body().hidden_faces = std::move(dressed->body_hidden_faces);
  }
  c.warnings.insert(c.warnings.end(), dressed->warnings.begin(), dressed->warnings.end());
  for (CharacterMesh& m : dressed->assets) c.meshes.push_back(std::move(m));
  return {};
}

}  // namespace detail
}  // namespace rigfit
