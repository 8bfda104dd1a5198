// --asset / --assets / --proxy: the flags, the assets folder they name (resolveDataFile looks
// there for assets and proxies), and loading each asset once.
#include <cstdlib>
#include <string_view>

#include "cli/common.hpp"

namespace rigfit::cli {

void AssetArgs::add(CLI::App& app) {
  app.add_option("--asset", assets,
                 "asset to wear: a .mhclo file (extension optional), a folder holding one, the same in the assets folder, or a name "
                 "searched in the assets folder (repeatable)");
  app.add_option("--proxy", proxy,
                 "body proxy to use instead of the body mesh: a .proxy file (extension optional), a folder holding one, the same in "
                 "the assets folder or its proxymeshes/, or a name searched in the assets folder");
  app.add_option("--assets", assets_dir, "folder the asset names and relative asset paths are looked up in (default: $RIGFIT_ASSETS)");
}

std::string assetsFolder(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* env = std::getenv("RIGFIT_ASSETS");
  return env ? env : "";
}

std::string AssetArgs::folder() const { return assetsFolder(assets_dir); }

Expected<std::string> AssetArgs::resolve(const DataSource& data, DataFileKind kind, const std::string& arg) const {
  auto file = resolveDataFile(data, kind, arg, folder());
  if (file) return std::move(file->path);
  Error e = replaceSubject(file.error(), kind == DataFileKind::kProxy ? "--proxy" : "--asset");
  // Nothing found and no assets folder to look in: say how to give one.
  constexpr std::string_view kNoFolder = "; no assets folder)";
  if (e.message.ends_with(kNoFolder)) e.message.insert(e.message.size() - 1, ": give --assets DIR or set RIGFIT_ASSETS to find assets by name");
  return e;
}

Status AssetArgs::load(const DataSource& data, const std::string& rig_type, CharacterOptions& o) const {
  for (const std::string& arg : assets) {
    auto path = resolve(data, DataFileKind::kAsset, arg);
    if (!path) return path.error();
    auto worn = loadWornAsset(*path, rig_type);
    if (!worn) return worn.error();
    o.assets.push_back(std::make_shared<const WornAsset>(std::move(*worn)));
  }
  if (!proxy.empty()) {
    auto path = resolve(data, DataFileKind::kProxy, proxy);
    if (!path) return path.error();
    auto worn = loadWornAsset(*path, rig_type);
    if (!worn) return worn.error();
    o.proxy = std::make_shared<const WornAsset>(std::move(*worn));
  }
  return {};
}

}  // namespace rigfit::cli
