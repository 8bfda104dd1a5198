#include <algorithm>
#include <filesystem>

#include "core/file_io.hpp"
#include "rigfit/data.hpp"

namespace rigfit {
namespace detail {
struct EmbeddedFile {
  std::string_view path;
  const unsigned char* data;
  std::size_t size;
};
extern const EmbeddedFile kDemoFiles[];
}  // namespace detail

namespace {

const detail::EmbeddedFile* findEmbedded(std::string_view relative) {
  for (const detail::EmbeddedFile* f = detail::kDemoFiles; f->data; ++f)
    if (f->path == relative) return f;
  return nullptr;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

DataSource DataSource::folder(std::string path) {
  DataSource d;
  d.root_ = path.empty() ? std::string(".") : std::move(path);
  while (d.root_.size() > 1 && d.root_.back() == '/') d.root_.pop_back();
  return d;
}

DataSource DataSource::builtinDemo() { return DataSource(); }

std::string DataSource::describe() const { return isBuiltin() ? "built-in demo" : root_; }

std::string DataSource::label(std::string_view relative) const {
  return isBuiltin() ? "demo:" + std::string(relative) : root_ + "/" + std::string(relative);
}

bool DataSource::exists(std::string_view relative) const {
  if (isBuiltin()) return findEmbedded(relative) != nullptr;
  std::error_code ec;
  return std::filesystem::is_regular_file(label(relative), ec);
}

Expected<std::string> DataSource::read(std::string_view relative) const {
  if (isBuiltin()) {
    const detail::EmbeddedFile* f = findEmbedded(relative);
    if (!f) return makeError(ErrorCode::kIo, label(relative) + ": no such file in the built-in demo");
    return std::string(reinterpret_cast<const char*>(f->data), f->size);
  }
  return readFile(label(relative));
}

Expected<FileText> DataSource::view(std::string_view relative) const {
  if (isBuiltin()) {
    const detail::EmbeddedFile* f = findEmbedded(relative);
    if (!f) return makeError(ErrorCode::kIo, label(relative) + ": no such file in the built-in demo");
    return FileText::borrowed(std::string_view(reinterpret_cast<const char*>(f->data), f->size));
  }
  return loadFile(label(relative));
}

bool DataSource::isFolder(std::string_view relative) const {
  if (isBuiltin()) {
    const std::string d = std::string(relative) + "/";
    for (const detail::EmbeddedFile* f = detail::kDemoFiles; f->data; ++f)
      if (f->path.substr(0, d.size()) == d) return true;
    return false;
  }
  std::error_code ec;
  return std::filesystem::is_directory(label(relative), ec);
}

std::vector<std::string> DataSource::list(std::string_view dir, std::string_view prefix, std::string_view suffix) const {
  std::vector<std::string> out;
  auto accept = [&](std::string_view name) {
    return name.substr(0, prefix.size()) == prefix && endsWith(name, suffix) && name.find('/') == std::string_view::npos;
  };
  if (isBuiltin()) {
    const std::string d = std::string(dir) + "/";
    for (const detail::EmbeddedFile* f = detail::kDemoFiles; f->data; ++f)
      if (f->path.substr(0, d.size()) == d && accept(f->path.substr(d.size()))) out.emplace_back(f->path.substr(d.size()));
  } else {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(label(dir), ec)) {
      const std::string name = e.path().filename().string();
      if (e.is_regular_file(ec) && accept(name)) out.push_back(name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Expected<Mesh> loadBaseMesh(const DataSource& data, const std::string& mesh_path, std::string* label) {
  DataFile where{true, "3dobjs/base.obj", data.label("3dobjs/base.obj")};
  if (!mesh_path.empty()) {
    auto found = resolveDataFile(data, DataFileKind::kMesh, mesh_path);
    if (!found) return found.error();
    where = std::move(*found);
  }
  if (label) *label = where.label;
  auto file = viewDataFile(data, where);
  if (!file) return file.error();
  return parseObj(file->text(), where.label);
}

Expected<VertexGroups> loadVertexGroups(const DataSource& data, std::size_t vertex_count) {
  const char* rel = "mesh_metadata/basemesh_vertex_groups.json";
  auto file = data.view(rel);
  if (!file) return file.error();
  return parseVertexGroups(*file, data.label(rel), vertex_count);
}

Status checkBodyVertexCount(const DataSource& data, const VertexGroups& groups, std::size_t vertex_count, const std::string& mesh_label,
                            bool mesh_is_base) {
  std::size_t extent = 0;
  for (const auto& ranges : groups.ranges)
    for (const auto& r : ranges) extent = std::max<std::size_t>(extent, std::size_t(r.last) + 1);
  if (vertex_count == extent) return {};
  if (!mesh_is_base)
    return makeError(ErrorCode::kMismatch, mesh_label + ": has " + std::to_string(vertex_count) + " vertices, but the base mesh of " +
                                               data.describe() + " has " + std::to_string(extent) +
                                               " (a shaped body must keep its vertex count and order)");
  // The data's own files disagree: the vertex groups describe the base mesh, so they are named.
  const std::string file = data.label("mesh_metadata/basemesh_vertex_groups.json");
  for (std::size_t g = 0; g < groups.ranges.size(); ++g)
    for (std::size_t k = 0; k < groups.ranges[g].size(); ++k)
      if (const auto& r = groups.ranges[g][k]; r.last >= vertex_count)
        return makeError(ErrorCode::kMismatch, file + ": " + jsonPathIndex(jsonPathKey("", groups.names[g]), k) + ": range [" +
                                                   std::to_string(r.first) + ", " + std::to_string(r.last) + "] reaches beyond the " +
                                                   std::to_string(vertex_count) + " vertices of " + mesh_label);
  const std::string covered = extent ? "the groups end at vertex " + std::to_string(extent - 1) : std::string("no group has a vertex");
  return makeError(ErrorCode::kMismatch, file + ": " + covered + ", but " + mesh_label + " has " + std::to_string(vertex_count) +
                                             " vertices (the groups cover every vertex of the base mesh)");
}

Expected<RigLocation> locateRig(const DataSource& data, const std::string& arg) {
  auto found = resolveDataFile(data, DataFileKind::kRig, arg);
  if (!found) {
    // A bare name in a folder with no rigs at all: the folder itself is wrong, say so.
    if (found.error().message.find(": no rig named \"") == std::string::npos || data.isBuiltin() || !listRigs(data).empty())
      return found.error();
    std::error_code ec;
    if (!std::filesystem::is_directory(data.describe(), ec)) return makeError(ErrorCode::kIo, data.describe() + ": no such folder");
    return makeError(ErrorCode::kIo, data.describe() +
                                         ": no rigs in rigs/standard or rigs/rigify (an MPFB data folder has the layout of MPFB's src/mpfb/data)");
  }
  RigLocation out{found->in_source, found->path, {}, found->label};
  // MPFB's rig type for the data's own rigs; the file name without "rig." and the extension otherwise.
  std::string name = std::filesystem::path(out.path).filename().string();
  if (name.substr(0, 4) == "rig.") name = name.substr(4);
  for (std::string_view ext : {".json", ".mpfbskel"})
    if (endsWith(name, ext)) name.resize(name.size() - ext.size());
  out.name = out.in_source && out.path.starts_with("rigs/rigify/rig.") && out.path.find('/', 12) == std::string::npos ? "rigify." + name : name;
  return out;
}

Expected<RigDefinition> loadRig(const DataSource& data, const RigLocation& where) {
  std::string label = where.label;
  if (label.empty()) label = where.in_source ? data.label(where.path) : where.path;
  auto text = viewDataFile(data, DataFile{where.in_source, where.path, label});
  if (!text) return text.error();
  return parseRig(*text, label);
}

std::vector<std::string> listRigs(const DataSource& data) {
  std::vector<std::string> out;
  for (const auto& f : data.list("rigs/standard", "rig.", ".json")) out.push_back(f.substr(4, f.size() - 9));
  for (const auto& f : data.list("rigs/rigify", "rig.", ".json")) out.push_back("rigify." + f.substr(4, f.size() - 9));
  return out;
}

}  // namespace rigfit
