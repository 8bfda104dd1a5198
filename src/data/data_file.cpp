// The one lookup of the files users name on a command line or in a manifest: rigs, weights,
// meshes, targets, target folders and poses in a data source, worn assets and body proxies in an
// assets folder, as a path (absolute or relative to the current folder) or relative to the data
// source (the assets folder) and the kind's own sub-folders, with or without the kind's
// extension. Anything that matches two different files is an error naming both.
#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "core/name_hint.hpp"
#include "rigfit/data.hpp"

namespace rigfit {
namespace {

namespace fs = std::filesystem;

struct KindRule {
  const char* noun;
  std::array<std::string_view, 2> extensions;  // tried in this order; empty: unused
  std::array<std::string_view, 2> folders;     // the kind's sub-folders of a data source (assets folder)
  std::string_view name_prefix;                // a bare NAME is PREFIX NAME .json in the folders
  bool folder = false;                         // the spec names a folder, not a file
  // Looked up on disk in the assets folder, not in the data source; a folder holding one file of
  // the kind names that file; a bare NAME is NAME + extension anywhere under the assets folder;
  // messages say "NOUN SPEC".
  bool asset = false;
};

const KindRule& rule(DataFileKind kind) {
  static const KindRule kRules[] = {
      {"rig", {".json", ".mpfbskel"}, {"rigs/standard", "rigs/rigify"}, "rig."},
      {"weights", {".json", ".mhw"}, {"rigs/standard", "rigs/rigify"}, "weights."},
      {"mesh", {".obj", ""}, {"3dobjs", ""}, ""},
      {"target", {".target.gz", ".target"}, {"targets", ""}, ""},
      {"target folder", {"", ""}, {"targets", ""}, "", true},
      {"pose", {".json", ""}, {"poses", ""}, ""},
      {"asset", {".mhclo", ""}, {"", ""}, "", false, true},
      {"proxy", {".proxy", ""}, {"proxymeshes", ""}, "", false, true},  // MakeHuman keeps body proxies in proxymeshes/NAME/
  };
  return kRules[static_cast<int>(kind)];
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return !suffix.empty() && s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool hasExtension(const KindRule& r, std::string_view spec) {
  for (std::string_view e : r.extensions)
    if (endsWith(spec, e)) return true;
  return false;
}

// A bare name of a rig, weights, asset or proxy file: no folder, no extension of its kind.
bool isBareName(const KindRule& r, std::string_view spec) {
  return (r.asset || !r.name_prefix.empty()) && spec.find('/') == std::string_view::npos && !hasExtension(r, spec);
}

std::string join(std::string_view dir, std::string_view name) {
  return dir.empty() ? std::string(name) : std::string(dir) + "/" + std::string(name);
}

// A relative path as the current folder's ("./x") in messages, so it reads apart from the data's.
std::string shownOnDisk(const std::string& path) { return path.front() != '/' && path.front() != '.' ? "./" + path : path; }

// One file found, with where it is on disk (empty for the built-in demo's files).
struct Candidate {
  DataFile file;
  std::string disk;
  std::string shown;  // in an ambiguity message
};

class Finder {
 public:
  // `source`: the data source, or for assets the assets folder (nullptr: none).
  Finder(const DataSource* source, const KindRule& r) : source_(source), rule_(r) {}

  void onDisk(const std::string& path) {
    std::error_code ec;
    // A file is anything but a folder (a pipe, a device): the reader then says if it cannot read it.
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) return;
    if (rule_.asset && fs::is_directory(st)) return inFolder(path, shownOnDisk(path));
    if (rule_.folder != fs::is_directory(st)) return;
    addOnDisk(path, shownOnDisk(path));
  }

  void inSource(const std::string& rel) {
    if (!source_) return;
    const std::string label = source_->label(rel);
    if (rule_.asset) {  // assets are read from disk, with their sidecar files: the folder's path
      std::error_code ec;
      const fs::file_status st = fs::status(label, ec);
      if (fs::is_directory(st)) return inFolder(label, label);
      if (fs::exists(st)) addOnDisk(label, label);
      return;
    }
    if (!(rule_.folder ? source_->isFolder(rel) : source_->exists(rel))) return;
    add({DataFile{true, rel, label}, source_->isBuiltin() ? std::string() : label, label});
  }

  // A bare asset NAME: NAME + extension anywhere under the assets folder. Returns every asset
  // name there (for the closest names).
  std::vector<std::string> byName(std::string_view name) {
    std::vector<std::pair<std::string, std::string>> all;  // name, path
    const std::string_view ext = rule_.extensions[0];
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(source_->describe(), fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string file = it->path().filename().string();
      std::error_code fec;
      if (file.size() > ext.size() && endsWith(file, ext) && it->is_regular_file(fec))
        all.emplace_back(file.substr(0, file.size() - ext.size()), it->path().string());
    }
    std::sort(all.begin(), all.end());
    std::vector<std::string> names;
    for (auto& [n, path] : all) {
      if (n == name) addOnDisk(path, path);
      names.push_back(std::move(n));
    }
    return names;
  }

  std::vector<Candidate>& found() { return found_; }
  // An asset folder holding none of the kind's files (the first seen), or several (a message).
  const std::string& emptyFolder() const { return empty_folder_; }
  const std::string& severalInFolder() const { return several_; }

 private:
  void addOnDisk(const std::string& path, std::string shown) { add({DataFile{false, path, path}, path, std::move(shown)}); }

  // The one file of the kind directly in the folder `dir`.
  void inFolder(const std::string& dir, const std::string& shown_dir) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      std::error_code fec;
      if (name.size() > rule_.extensions[0].size() && endsWith(name, rule_.extensions[0]) && e.is_regular_file(fec))
        files.push_back((fs::path(dir) / name).string());
    }
    std::sort(files.begin(), files.end());
    if (files.size() == 1) {
      const std::string shown = shown_dir == dir ? files[0] : shownOnDisk(files[0]);
      return addOnDisk(files[0], shown);
    }
    if (files.empty()) {
      if (empty_folder_.empty()) empty_folder_ = dir;
    } else if (several_.empty()) {
      several_ = "the folder " + dir + " holds " + std::to_string(files.size()) + " " + rule_.noun + " files; name one (" + files[0] + ", " +
                 files[1] + (files.size() > 2 ? ", ..." : "") + ")";
    }
  }

  // A file reached a second way (the data folder is the current folder, a link) is one file, taken
  // as the data source's (its rig type and default weights are the data's).
  void add(Candidate c) {
    for (Candidate& f : found_) {
      std::error_code ec;
      if ((f.file.in_source == c.file.in_source && f.file.path == c.file.path) ||
          (!f.disk.empty() && !c.disk.empty() && fs::equivalent(f.disk, c.disk, ec))) {
        if (c.file.in_source && !f.file.in_source) f = std::move(c);
        return;
      }
    }
    found_.push_back(std::move(c));
  }

  const DataSource* source_;
  const KindRule& rule_;
  std::vector<Candidate> found_;
  std::string empty_folder_, several_;
};

// "a{,.json,.mhw}": the spec as given and with each extension.
std::string formsText(const KindRule& r, std::string_view spec, bool with_extensions) {
  if (!with_extensions) return std::string(spec);
  std::string out = std::string(spec) + "{";
  for (std::string_view e : r.extensions)
    if (!e.empty()) out += "," + std::string(e);
  return out + "}";
}

std::vector<std::string> knownNames(const DataSource& data, DataFileKind kind) {
  if (kind == DataFileKind::kRig) return listRigs(data);
  std::vector<std::string> out;
  for (const auto& f : data.list("rigs/standard", "weights.", ".json")) out.push_back(f.substr(8, f.size() - 13));
  for (const auto& f : data.list("rigs/rigify", "weights.", ".json")) out.push_back("rigify." + f.substr(8, f.size() - 13));
  return out;
}

}  // namespace

const char* dataFileKindName(DataFileKind kind) { return rule(kind).noun; }

Expected<DataFile> resolveDataFile(const DataSource& data, DataFileKind kind, std::string_view spec, std::string_view assets_dir) {
  const KindRule& r = rule(kind);
  if (spec.empty()) return makeError(ErrorCode::kUsage, std::string(r.noun) + " \"\": an empty name");
  const std::string given(spec);
  // Errors about an asset or proxy say which ("asset SPEC"), so a caller can put its own name there.
  const std::string subject = r.asset ? std::string(r.noun) + " " + given : given;
  const bool with_extensions = !r.folder && !hasExtension(r, spec);
  std::vector<std::string> forms{given};
  if (with_extensions)
    for (std::string_view e : r.extensions)
      if (!e.empty()) forms.push_back(given + std::string(e));

  const DataSource assets = DataSource::folder(std::string(assets_dir));
  const DataSource* source = !r.asset ? &data : assets_dir.empty() ? nullptr : &assets;
  Finder finder(source, r);
  for (const std::string& f : forms) finder.onDisk(f);
  // "./x" and "../x" are paths from the current folder only; other relative specs are looked up
  // in the data source (assets folder) too.
  const bool relative = spec.front() != '/' && spec != "." && spec != ".." && !spec.starts_with("./") && !spec.starts_with("../");
  const bool bare = relative && isBareName(r, spec);
  std::vector<std::string> places;  // the data source's places looked in, for the message
  std::vector<std::string> asset_names;
  if (relative && source) {
    std::vector<std::string_view> dirs{""};
    for (std::string_view d : r.folders)
      if (!d.empty()) dirs.push_back(d);
    for (std::string_view d : dirs) {
      places.push_back(d.empty() ? source->describe() : source->label(d));
      for (const std::string& f : forms) finder.inSource(join(d, f));
    }
    if (bare && r.asset) {
      asset_names = finder.byName(spec);
    } else if (bare) {
      // rig.NAME.json / weights.NAME.json; "rigify.NAME" is the Rigify folder's NAME only.
      const bool rigify = spec.starts_with("rigify.");
      const std::string name = rigify ? given.substr(7) : given;
      const std::string file = std::string(r.name_prefix) + name + ".json";
      if (!rigify) finder.inSource(join(r.folders[0], file));
      finder.inSource(join(r.folders[1], file));
    }
  }

  std::vector<Candidate>& found = finder.found();
  if (found.size() > 1) {
    std::string list = found[0].shown + " and " + found[1].shown;
    if (found.size() > 2) list = found[0].shown + ", " + found[1].shown + " and " + std::to_string(found.size() - 2) + " more";
    return makeError(ErrorCode::kUsage, subject + ": names more than one " + r.noun + (r.folder ? "" : " file") + ": " + list +
                                            " (give the path of one)");
  }
  if (!finder.severalInFolder().empty()) return makeError(ErrorCode::kUsage, subject + ": " + finder.severalInFolder());
  if (found.size() == 1) return std::move(found[0].file);
  if (!finder.emptyFolder().empty())
    return makeError(ErrorCode::kIo, subject + ": the folder " + finder.emptyFolder() + " holds no " + std::string(r.extensions[0]) + " file");
  if (bare && source) {
    if (r.asset)
      return makeError(ErrorCode::kIo, subject + ": no " + r.noun + " of that name in " + std::string(assets_dir) +
                                           detail::unknownNameHint(given, asset_names));
    const std::vector<std::string> known = knownNames(data, kind);
    return makeError(ErrorCode::kIo, data.describe() + ": no " + r.noun + " named \"" + given + "\"" + detail::unknownNameHint(given, known));
  }
  std::string tried = formsText(r, spec, with_extensions);
  if (relative) {
    tried += " in .";
    for (const std::string& p : places) tried += ", " + p;
    if (!source) tried += "; no assets folder";
  }
  const std::string what = r.asset ? "file or folder" : std::string(r.noun) + (r.folder ? "" : " file");
  return makeError(ErrorCode::kIo, subject + ": no such " + what + " (looked for " + tried + ")");
}

Expected<FileText> viewDataFile(const DataSource& data, const DataFile& file) {
  if (file.in_source) return data.view(file.path);
  return loadFile(file.path);
}

std::vector<std::string> listDataFolder(const DataSource& data, const DataFile& folder, std::string_view suffix) {
  if (folder.in_source) return data.list(folder.path, "", suffix);
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder.path, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file(ec) && endsWith(name, suffix)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace rigfit
