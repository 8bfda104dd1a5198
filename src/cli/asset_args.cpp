// --asset / --assets / --proxy: the flags, the assets folder they name (findAsset looks there), and
// loading each asset once.
#include <cstdlib>

#include "cli/common.hpp"

namespace rigfit::cli {

void AssetArgs::add(CLI::App& app) {
  app.add_option("--asset", assets,
                 "asset to wear: a .mhclo file, a folder holding one, or a name searched in the assets folder (repeatable)");
  app.add_option("--proxy", proxy, "body proxy (.proxy file, folder or name) to use instead of the body mesh");
  app.add_option("--assets", assets_dir, "folder the asset names and relative asset paths are looked up in (default: $RIGFIT_ASSETS)");
}

std::string assetsFolder(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* env = std::getenv("RIGFIT_ASSETS");
  return env ? env : "";
}

std::string AssetArgs::folder() const { return assetsFolder(assets_dir); }

Expected<std::string> AssetArgs::resolve(const std::string& arg, const std::string& flag) const {
  const std::string root = folder();
  auto path = findAsset(arg, root);
  if (path) return path;
  Error e = replaceSubject(path.error(), flag);
  if (root.empty() && e.message.ends_with(": no such file or folder"))
    e.message += " (give --assets DIR or set RIGFIT_ASSETS to find assets by name)";
  return e;
}

Status AssetArgs::load(const std::string& rig_type, CharacterOptions& o) const {
  for (const std::string& arg : assets) {
    auto path = resolve(arg, "--asset");
    if (!path) return path.error();
    auto worn = loadWornAsset(*path, rig_type);
    if (!worn) return worn.error();
    o.assets.push_back(std::make_shared<const WornAsset>(std::move(*worn)));
  }
  if (!proxy.empty()) {
    auto path = resolve(proxy, "--proxy");
    if (!path) return path.error();
    auto worn = loadWornAsset(*path, rig_type);
    if (!worn) return worn.error();
    o.proxy = std::make_shared<const WornAsset>(std::move(*worn));
  }
  return {};
}

}  // namespace rigfit::cli
