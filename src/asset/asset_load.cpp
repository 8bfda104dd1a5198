// Loading an asset as MPFB's HumanService.add_mhclo_asset() finds its parts (docs/mpfb-assets.md
// §1, §4, §6): the .mhclo/.proxy, its OBJ and material, and the sidecars beside it.
#include <filesystem>
#include <system_error>

#include "rigfit/asset.hpp"

namespace rigfit {

namespace {

bool isFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

std::string joinRelative(const std::string& folder, const std::string& rel) {
  return (std::filesystem::path(folder) / rel).lexically_normal().generic_string();
}

}  // namespace

std::vector<std::pair<std::string, bool>> customWeightsPaths(const std::string& stem, std::string_view rig_type) {
  std::vector<std::pair<std::string, bool>> out;
  if (isFile(stem + ".mhw")) out.emplace_back(stem + ".mhw", false);
  if (isFile(stem + ".force.mhw")) out.emplace_back(stem + ".force.mhw", true);
  std::string type(rig_type);
  if (const auto at = type.find("rigify_generated"); at != std::string::npos) type.replace(at, 16, "rigify");
  if (type.empty() || type.find("unknown") != std::string::npos) return out;
  // RigService.get_rig_weight_fallbacks
  std::vector<std::string> chain{type};
  if (type == "default_no_toes") chain.push_back("default");
  if (type == "rigify.human") chain.push_back("rigify.human_toes");
  if (type == "rigify.human_toes") chain.push_back("rigify.human");
  for (const auto& t : chain) {
    const std::string p = stem + "." + t + ".mhw";
    if (isFile(p)) {
      out.emplace_back(p, false);
      break;
    }
  }
  return out;
}

Expected<Asset> loadAsset(const std::string& path, const AssetLoadOptions& options) {
  Asset asset;
  asset.path = path;
  auto file = readProxyFile(path);
  if (!file) return file.error();
  asset.file = std::move(*file);
  const std::filesystem::path p(path);
  const std::string folder = p.parent_path().generic_string();
  asset.stem = (p.parent_path() / p.stem()).generic_string();

  if (asset.file.obj_file.empty()) return makeError(ErrorCode::kSchema, path + ": no obj_file");
  asset.obj_path = joinRelative(folder, asset.file.obj_file);
  auto mesh = readObj(asset.obj_path, options.obj);
  if (!mesh) return mesh.error();
  asset.mesh = std::move(*mesh);
  if (asset.mesh.vertexCount() != asset.file.bindings.size())
    return makeError(ErrorCode::kMismatch, path + ": " + std::to_string(asset.file.bindings.size()) + " vertex bindings, but " +
                                               asset.obj_path + " has " + std::to_string(asset.mesh.vertexCount()) + " vertices");

  if (!asset.file.material.empty()) {
    asset.material_path = joinRelative(folder, asset.file.material);
    if (!isFile(asset.material_path)) {
      asset.warnings.push_back(path + ": material file " + asset.material_path + " is missing");
    } else {
      auto material = readMaterial(asset.material_path, &asset.warnings);
      if (!material) return material.error();
      asset.material = std::move(*material);
    }
  }

  for (auto& [weights_path, all] : customWeightsPaths(asset.stem, options.rig_type)) {
    auto weights = readWeights(weights_path, asset.mesh.vertexCount());
    if (!weights) return weights.error();
    asset.custom_weights.push_back({weights_path, all, std::move(*weights)});
  }
  if (isFile(asset.stem + ".mpfbskel")) {
    asset.subrig_path = asset.stem + ".mpfbskel";
    auto subrig = readRig(asset.subrig_path);
    if (!subrig) return subrig.error();
    if (!subrig->is_subrig)
      return makeError(ErrorCode::kSchema, asset.subrig_path + ": is_subrig: not set; a sub-rig beside an asset must say it is one");
    asset.subrig = std::move(*subrig);
  }
  return asset;
}

}  // namespace rigfit
