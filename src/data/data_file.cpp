// The one lookup of the files users name on a command line or in a manifest: rigs, weights,
// meshes, targets, target folders and poses, as a path (absolute or relative to the current
// folder) or relative to the data source and the kind's own sub-folders, with or without the
// kind's extension. Anything that matches two different files is an error naming both.
#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "core/name_hint.hpp"
#include "rigfit/data.hpp"

namespace rigfit {
namespace {

namespace fs = std::filesystem;

struct KindRule {
  const char* noun;
  std::array<std::string_view, 2> extensions;  // tried in this order; empty: unused
  std::array<std::string_view, 2> folders;     // the kind's sub-folders of a data source
  std::string_view name_prefix;                // a bare NAME is PREFIX NAME .json in the folders
  bool folder = false;                         // the spec names a folder, not a file
};

const KindRule& rule(DataFileKind kind) {
  static const KindRule kRules[] = {
      {"rig", {".json", ".mpfbskel"}, {"rigs/standard", "rigs/rigify"}, "rig."},
      {"weights", {".json", ".mhw"}, {"rigs/standard", "rigs/rigify"}, "weights."},
      {"mesh", {".obj", ""}, {"3dobjs", ""}, ""},
      {"target", {".target.gz", ".target"}, {"targets", ""}, ""},
      {"target folder", {"", ""}, {"targets", ""}, "", true},
      {"pose", {".json", ""}, {"poses", ""}, ""},
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

// A bare name of a rig or weights file: no folder, no extension of its kind.
bool isBareName(const KindRule& r, std::string_view spec) {
  return !r.name_prefix.empty() && spec.find('/') == std::string_view::npos && !hasExtension(r, spec);
}

std::string join(std::string_view dir, std::string_view name) {
  return dir.empty() ? std::string(name) : std::string(dir) + "/" + std::string(name);
}

// One file found, with where it is on disk (empty for the built-in demo's files).
struct Candidate {
  DataFile file;
  std::string disk;
  std::string shown;  // in an ambiguity message
};

class Finder {
 public:
  Finder(const DataSource& data, const KindRule& r) : data_(data), rule_(r) {}

  void onDisk(const std::string& path) {
    std::error_code ec;
    // A file is anything but a folder (a pipe, a device): the reader then says if it cannot read it.
    const fs::file_status st = fs::status(path, ec);
    const bool found = fs::exists(st) && (rule_.folder == fs::is_directory(st));
    if (!found) return;
    const bool plain = path.front() != '/' && path.front() != '.';
    add({DataFile{false, path, path}, path, plain ? "./" + path : path});
  }

  void inSource(const std::string& rel) {
    if (!(rule_.folder ? data_.isFolder(rel) : data_.exists(rel))) return;
    const std::string label = data_.label(rel);
    add({DataFile{true, rel, label}, data_.isBuiltin() ? std::string() : label, label});
  }

  std::vector<Candidate>& found() { return found_; }

 private:
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

  const DataSource& data_;
  const KindRule& rule_;
  std::vector<Candidate> found_;
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

Expected<DataFile> resolveDataFile(const DataSource& data, DataFileKind kind, std::string_view spec) {
  const KindRule& r = rule(kind);
  if (spec.empty()) return makeError(ErrorCode::kUsage, std::string(r.noun) + " \"\": an empty name");
  const std::string given(spec);
  const bool with_extensions = !r.folder && !hasExtension(r, spec);
  std::vector<std::string> forms{given};
  if (with_extensions)
    for (std::string_view e : r.extensions)
      if (!e.empty()) forms.push_back(given + std::string(e));

  Finder finder(data, r);
  for (const std::string& f : forms) finder.onDisk(f);
  // "./x" and "../x" are paths from the current folder only; other relative specs are looked up
  // in the data source too.
  const bool relative = spec.front() != '/' && spec != "." && spec != ".." && !spec.starts_with("./") && !spec.starts_with("../");
  std::vector<std::string> places;  // the data source's places looked in, for the message
  if (relative) {
    std::vector<std::string_view> dirs{""};
    for (std::string_view d : r.folders)
      if (!d.empty()) dirs.push_back(d);
    for (std::string_view d : dirs) {
      places.push_back(d.empty() ? data.describe() : data.label(d));
      for (const std::string& f : forms) finder.inSource(join(d, f));
    }
    if (isBareName(r, spec)) {
      // rig.NAME.json / weights.NAME.json; "rigify.NAME" is the Rigify folder's NAME only.
      const bool rigify = spec.starts_with("rigify.");
      const std::string name = rigify ? given.substr(7) : given;
      const std::string file = std::string(r.name_prefix) + name + ".json";
      if (!rigify) finder.inSource(join(r.folders[0], file));
      finder.inSource(join(r.folders[1], file));
    }
  }

  std::vector<Candidate>& found = finder.found();
  if (found.size() == 1) return std::move(found[0].file);
  if (found.size() > 1) {
    std::string list = found[0].shown + " and " + found[1].shown;
    if (found.size() > 2) list = found[0].shown + ", " + found[1].shown + " and " + std::to_string(found.size() - 2) + " more";
    return makeError(ErrorCode::kUsage, given + ": names more than one " + r.noun + (r.folder ? "" : " file") + ": " + list +
                                            " (give the path of one)");
  }
  if (isBareName(r, spec) && relative) {
    const std::vector<std::string> known = knownNames(data, kind);
    return makeError(ErrorCode::kIo, data.describe() + ": no " + r.noun + " named \"" + given + "\"" + detail::unknownNameHint(given, known));
  }
  std::string tried = formsText(r, spec, with_extensions);
  if (relative) {
    tried += " in .";
    for (const std::string& p : places) tried += ", " + p;
  }
  return makeError(ErrorCode::kIo, given + ": no such " + r.noun + (r.folder ? "" : " file") + " (looked for " + tried + ")");
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
