// --asset / --assets / --proxy: where the command line finds assets, and loading them once.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "cli/common.hpp"
#include "core/name_hint.hpp"

namespace rigfit::cli {
namespace {

namespace fs = std::filesystem;

bool isAssetFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && (p.extension() == ".mhclo" || p.extension() == ".proxy");
}

// A file as given, or the one .mhclo/.proxy in a folder. Empty when `p` is neither; an error when
// the folder holds none or several.
Expected<std::string> assetIn(const fs::path& p, const std::string& flag, const std::string& arg) {
  std::error_code ec;
  if (fs::is_regular_file(p, ec)) return p.string();
  if (!fs::is_directory(p, ec)) return std::string();
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(p, ec))
    if (isAssetFile(e.path())) found.push_back(e.path().string());
  std::sort(found.begin(), found.end());
  if (found.size() == 1) return found[0];
  if (found.empty()) return makeError(ErrorCode::kIo, flag + " " + arg + ": the folder " + p.string() + " holds no .mhclo or .proxy file");
  return makeError(ErrorCode::kUsage, flag + " " + arg + ": the folder " + p.string() + " holds " + std::to_string(found.size()) +
                                          " asset files; name one (" + found[0] + ", " + found[1] + (found.size() > 2 ? ", ..." : "") + ")");
}

// Every asset under the assets folder, by name (file stem): name -> path.
std::vector<std::pair<std::string, std::string>> assetsByName(const fs::path& root) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (isAssetFile(it->path())) out.emplace_back(it->path().stem().string(), it->path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void AssetArgs::add(CLI::App& app) {
  app.add_option("--asset", assets,
                 "asset to wear: a .mhclo file, a folder holding one, or a name searched in the assets folder (repeatable)");
  app.add_option("--proxy", proxy, "body proxy (.proxy file, folder or name) to use instead of the body mesh");
  app.add_option("--assets", assets_dir, "folder the asset names and relative asset paths are looked up in (default: $RIGFIT_ASSETS)");
}

std::string AssetArgs::folder() const {
  if (!assets_dir.empty()) return assets_dir;
  const char* env = std::getenv("RIGFIT_ASSETS");
  return env ? env : "";
}

Expected<std::string> AssetArgs::resolve(const std::string& arg, const std::string& flag) const {
  auto direct = assetIn(arg, flag, arg);
  if (!direct || !direct->empty()) return direct;
  const std::string root = folder();
  if (root.empty())
    return makeError(ErrorCode::kIo, flag + " " + arg + ": no such file or folder (give --assets DIR or set RIGFIT_ASSETS to find assets by name)");
  auto inside = assetIn(fs::path(root) / arg, flag, arg);
  if (!inside || !inside->empty()) return inside;
  std::vector<std::string> names;
  for (const auto& [name, path] : assetsByName(root)) {
    if (name == arg) return path;
    names.push_back(name);
  }
  return makeError(ErrorCode::kIo, flag + " " + arg + ": no asset of that name in " + root + detail::unknownNameHint(arg, names));
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
