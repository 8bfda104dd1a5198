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
  m.mesh.corner_normals.clear();
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

// The names and parents (all bindWeights reads) of a skeleton for mapping an asset's weight groups:
// the main rig's bones, then the sub-rig's under their own names (MPFB loads asset weights against
// both armatures).
Skeleton mappingSkeleton(const Skeleton& main, const SubrigJoin& join) {
  Skeleton s;
  s.names = main.names;
  s.parents = main.parents;
  const Skeleton& sub = join.fit.skeleton;
  for (std::size_t b = 0; b < sub.size(); ++b) {
    s.names.push_back(sub.names[b]);
    s.parents.push_back(sub.parents[b] == kNoParent ? kNoParent : static_cast<int>(main.size()) + sub.parents[b]);
  }
  return s;
}

// The warning for a custom weights file's groups that name no bone of the rig (at most 6 named).
std::string ignoredGroups(const std::string& path, const std::vector<std::string>& ignored, std::size_t groups,
                          const std::string& rig_name) {
  std::string names;
  for (std::size_t k = 0; k < ignored.size() && k < 6; ++k) names += (k ? ", " : "") + ignored[k];
  if (ignored.size() > 6) names += ", ...";
  return path + ": " + std::to_string(ignored.size()) + " of its " + std::to_string(groups) + " groups name no bone of rig " +
         rig_name + " and are ignored, as MPFB ignores them (" + names + ")";
}

// An asset's skin on the character's skeleton: interpolated from the body's skin (§4.1), then its
// custom weights files replace the groups they list (§4.2); with a sub-rig, its deformation mixed
// in by mhmask-subrig (§4.3). `main` is the main rig's skeleton. Without a body skin, no influences.
Expected<Skin> assetSkin(const Character& c, const Skeleton& main, const Asset& asset, std::size_t n, const SubrigJoin* join,
                         std::vector<std::string>& warnings) {
  if (!c.has_skin) {
    Skin none;
    none.vertex_count = n;
    none.bone_count = c.fit.skeleton.size();
    none.offsets.assign(n + 1, 0);
    return none;
  }
  auto weights = interpolateAssetWeights(c.body().skin, main.names, asset.file.bindings, asset.path);
  if (!weights) return weights.error();
  std::optional<Skeleton> mapping;
  if (join && !asset.custom_weights.empty()) mapping = mappingSkeleton(main, *join);
  for (const AssetCustomWeights& custom : asset.custom_weights) {
    std::vector<std::string> ignored;
    RIGFIT_TRY(applyCustomWeights(*weights, custom.weights, custom.all_groups, mapping ? *mapping : main, c.rig, n, &ignored));
    if (!ignored.empty()) warnings.push_back(ignoredGroups(custom.path, ignored, custom.weights.groups.size(), c.rig_name));
  }
  auto skin = bindWeights(*weights, main, c.rig, n);
  if (!skin) return skin.error();
  skin->bone_count = c.fit.skeleton.size();
  if (!join) return skin;
  // The sub-rig's armature modifier reads the groups named as its bones.
  WeightsFile sub_groups;
  sub_groups.label = weights->label;
  for (const WeightsFile::Group& g : weights->groups)
    if (join->fit.skeleton.find(g.name) >= 0) sub_groups.groups.push_back(g);
  auto sub = bindWeights(sub_groups, join->fit.skeleton, *asset.subrig, n);
  if (!sub) return sub.error();
  std::size_t fixed = 0;
  Skin out = blendSubrigSkin(*skin, *sub, *join, c.fit.skeleton.size(), &fixed);
  if (fixed)
    warnings.push_back(asset.path + ": " + std::to_string(fixed) +
                       " vertices have a share of the main rig or sub-rig with no bone weights, which Blender leaves in place; "
                       "their other weights take it");
  return out;
}

// MPFB's proxy corrective (§3), when the data folder has its table.
Status proxyCorrective(const DataSource& data, CharacterMesh& proxy, std::span<const std::string> bone_names) {
  constexpr std::string_view kTable = "mesh_metadata/proxy_corrective.json";
  if (data.isBuiltin() || !data.exists(kTable)) return {};
  auto text = data.read(kTable);
  if (!text) return text.error();
  auto table = parseJson(*text, data.label(kTable));
  if (!table) return table.error();
  if (proxyNeedsSidedFix(*table, proxy.asset->asset.file.uuid)) fixSidedWeights(proxy.skin, bone_names, proxy.mesh.positions);
  return {};
}

// Fits every worn asset's sub-rig and joins it to the skeleton (before any asset is weighted).
Expected<std::vector<SubrigJoin>> joinSubrigs(Character& c, const std::vector<CharacterMesh>& assets) {
  std::vector<SubrigJoin> joins(assets.size());
  std::optional<PositionInfo> body_info;
  for (std::size_t a = 0; a < assets.size(); ++a) {
    if (!assets[a].asset->asset.subrig) continue;
    const Mesh& body = c.body().mesh;
    if (!body_info) {
      auto info = makePositionInfo(body.positions, c.body().groups, body.scale_factor, /*vertex_tree=*/false);
      if (!info) return info.error();
      body_info = std::move(*info);
    }
    auto join = joinSubrig(c, assets[a], body, *body_info);
    if (!join) return join.error();
    joins[a] = std::move(*join);
  }
  // The joined skeleton's evaluation order and rest bindings (CHILD_OF inverses) cover the new bones.
  if (body_info && !c.fit.skeleton.constraints.empty()) RIGFIT_TRY(prepareConstraints(c.fit.skeleton, c.rig.label));
  return joins;
}

}  // namespace

Status wearAssets(const DataSource& data, Character& c, const CharacterOptions& options) {
  if (options.assets.empty() && !options.proxy) return {};
  auto dressed = dressBody(c.body().mesh, options.assets, options.proxy);
  if (!dressed) return dressed.error();
  // Sub-rigs join the skeleton first: an asset's weights may name their bones.
  std::optional<Skeleton> main_copy;
  for (const auto& a : options.assets)
    if (a->asset.subrig && !main_copy) main_copy = c.fit.skeleton;
  const Skeleton& main = main_copy ? *main_copy : c.fit.skeleton;
  auto joins = joinSubrigs(c, dressed->assets);
  if (!joins) return joins.error();
  c.body().skin.bone_count = c.fit.skeleton.size();
  // Every skin comes from the base body's, so the proxy takes its place last.
  for (std::size_t a = 0; a < dressed->assets.size(); ++a) {
    CharacterMesh& m = dressed->assets[a];
    const SubrigJoin* join = m.asset->asset.subrig ? &(*joins)[a] : nullptr;
    auto skin = assetSkin(c, main, m.asset->asset, m.mesh.vertexCount(), join, c.warnings);
    if (!skin) return skin.error();
    m.skin = std::move(*skin);
  }
  if (dressed->proxy) {
    auto skin = assetSkin(c, main, dressed->proxy->asset->asset, dressed->proxy->mesh.vertexCount(), nullptr, c.warnings);
    if (!skin) return skin.error();
    dressed->proxy->skin = std::move(*skin);
    RIGFIT_TRY(proxyCorrective(data, *dressed->proxy, c.fit.skeleton.names));
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
