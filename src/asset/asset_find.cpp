// Where an asset named on a command line or in a manifest is: a path (file or folder), or a name
// looked up in an assets folder. One implementation for `rigfit export --asset` and batch lines.
#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "core/name_hint.hpp"
#include "rigfit/asset.hpp"

namespace rigfit {
namespace {

namespace fs = std::filesystem;

bool isAssetFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && (p.extension() == ".mhclo" || p.extension() == ".proxy");
}

// A file as given, or the one .mhclo/.proxy in a folder. Empty when `p` is neither; an error when
// the folder holds none or several.
Expected<std::string> assetIn(const fs::path& p, const std::string& subject) {
  std::error_code ec;
  if (fs::is_regular_file(p, ec)) return p.string();
  if (!fs::is_directory(p, ec)) return std::string();
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(p, ec))
    if (isAssetFile(e.path())) found.push_back(e.path().string());
  std::sort(found.begin(), found.end());
  if (found.size() == 1) return found[0];
  if (found.empty()) return makeError(ErrorCode::kIo, subject + ": the folder " + p.string() + " holds no .mhclo or .proxy file");
  return makeError(ErrorCode::kUsage, subject + ": the folder " + p.string() + " holds " + std::to_string(found.size()) +
                                          " asset files; name one (" + found[0] + ", " + found[1] + (found.size() > 2 ? ", ..." : "") + ")");
}

// Every asset under the assets folder, by name (file stem): name -> path, in name order.
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

Expected<std::string> findAsset(std::string_view spec, std::string_view assets_dir) {
  const std::string subject = "asset " + std::string(spec);
  if (spec.empty()) return makeError(ErrorCode::kUsage, "asset \"\": an empty name");
  auto direct = assetIn(fs::path(spec), subject);
  if (!direct || !direct->empty()) return direct;
  if (assets_dir.empty()) return makeError(ErrorCode::kIo, subject + ": no such file or folder");
  auto inside = assetIn(fs::path(assets_dir) / spec, subject);
  if (!inside || !inside->empty()) return inside;
  std::vector<std::string> names;
  for (auto& [name, path] : assetsByName(fs::path(assets_dir))) {
    if (name == spec) return std::move(path);
    names.push_back(std::move(name));
  }
  return makeError(ErrorCode::kIo, subject + ": no asset of that name in " + std::string(assets_dir) + detail::unknownNameHint(spec, names));
}

}  // namespace rigfit
