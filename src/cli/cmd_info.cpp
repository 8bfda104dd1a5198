// rigfit info: what a data folder or any file users name (rig, weights, mesh, target, pose) holds,
// at a glance.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/common.hpp"
#include "core/file_io.hpp"
#include "rigfit/weights.hpp"

namespace rigfit::cli {
namespace {

struct InfoArgs {
  std::string target;
  std::string data;
};

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void printRig(const RigDefinition& rig) {
  std::map<std::string, int> strategies;
  std::map<std::string, int> rolls;
  std::size_t roots = 0, connected = 0, constraints = 0, with_offset = 0;
  for (const auto& b : rig.bones) {
    for (const EndDef* e : {&b.head, &b.tail}) {
      ++strategies[strategyName(e->strategy)];
      if (e->offset) ++with_offset;
    }
    if (b.roll_strategy != RollStrategy::kNone) ++rolls[rollStrategyName(b.roll_strategy)];
    if (b.parent.empty()) ++roots;
    if (b.use_connect) ++connected;
    if (const Json* c = b.json.find("constraints")) constraints += c->size();
  }
  std::printf("rig          %s\n", rig.label.c_str());
  std::printf("layout       %s\n", rig.layout == RigLayout::kLegacy ? "legacy (bone dictionary at top level), read as 100, upgraded to 110"
                                   : rig.source_version < 110    ? "version 100, upgraded to 110"
                                                                 : "version 110");
  std::printf("bones        %zu (%zu root%s, %zu connected)\n", rig.bones.size(), roots, roots == 1 ? "" : "s", connected);
  std::printf("strategies  ");
  for (const auto& [k, v] : strategies) std::printf(" %s %d", k.c_str(), v);
  std::printf("  (ends with offset: %zu)\n", with_offset);
  if (!rolls.empty()) {
    std::printf("roll         ");
    for (const auto& [k, v] : rolls) std::printf(" %s %d", k.c_str(), v);
    std::printf("\n");
  }
  std::printf("collections  %zu\n", rig.collections.size());
  if (constraints) std::printf("constraints  %zu\n", constraints);
  if (!rig.extra_bones.empty()) std::printf("extra bones  %zu\n", rig.extra_bones.size());
  if (rig.scale_factor) std::printf("scale        %.17g\n", *rig.scale_factor);
  if (rig.is_subrig) std::printf("sub-rig      yes\n");
}

void printMesh(const Mesh& m, const std::string& label) {
  std::size_t tris = 0, quads = 0, other = 0;
  for (std::size_t f = 0; f < m.faceCount(); ++f) {
    const auto n = m.face_offsets[f + 1] - m.face_offsets[f];
    (n == 3 ? tris : n == 4 ? quads : other)++;
  }
  float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
  for (std::size_t v = 0; v < m.vertexCount(); ++v)
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], m.positions[3 * v + static_cast<std::size_t>(k)]);
      hi[k] = std::max(hi[k], m.positions[3 * v + static_cast<std::size_t>(k)]);
    }
  std::printf("mesh         %s\n", label.c_str());
  std::printf("vertices     %zu\n", m.vertexCount());
  std::printf("faces        %zu (%zu quads, %zu triangles, %zu other)\n", m.faceCount(), quads, tris, other);
  std::printf("uvs          %zu\nnormals      %zu\ngroups       %zu (OBJ g)\n", m.uvs.size() / 2, m.normals.size() / 3, m.group_names.size());
  if (m.vertexCount())
    std::printf("bounds       x %.4f..%.4f  y %.4f..%.4f  z %.4f..%.4f m (rig frame, Z up)\n", lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]);
}

int printData(const DataSource& src) {
  std::printf("data         %s\n", src.describe().c_str());
  auto mesh = loadBaseMesh(src);
  if (!mesh) return reportError(mesh.error());
  auto groups = loadVertexGroups(src, mesh->vertexCount());
  if (!groups) return reportError(groups.error());
  std::size_t cubes = 0;
  for (const auto& n : groups->names)
    if (n.find("joint") != std::string::npos) ++cubes;
  std::printf("base mesh    %zu vertices, %zu faces\n", mesh->vertexCount(), mesh->faceCount());
  std::printf("groups       %zu vertex groups, %zu joint cubes\n", groups->names.size(), cubes);
  std::printf("rigs        ");
  for (const auto& r : listRigs(src)) std::printf(" %s", r.c_str());
  std::printf("\nweights     ");
  for (const char* dir : {"rigs/standard", "rigs/rigify"})
    for (const auto& w : src.list(dir, "weights.", ".json")) std::printf(" %s", w.substr(8, w.size() - 13).c_str());
  std::printf("\n");
  if (!src.isBuiltin()) {
    std::error_code ec;
    std::size_t poses = 0, targets = 0;
    const auto root = std::filesystem::path(src.describe());
    if (std::filesystem::is_directory(root / "poses", ec))
      for (const auto& e : std::filesystem::recursive_directory_iterator(root / "poses", ec))
        if (endsWith(e.path().string(), ".json")) ++poses;
    if (std::filesystem::is_directory(root / "targets", ec))
      for (const auto& e : std::filesystem::recursive_directory_iterator(root / "targets", ec))
        if (endsWith(e.path().string(), ".target") || endsWith(e.path().string(), ".target.gz")) ++targets;
    std::printf("poses        %zu\ntargets      %zu\n", poses, targets);
  }
  return kExitOk;
}

void printWeights(const WeightsFile& w) {
  std::size_t pairs = 0, used = 0;
  std::int64_t top = -1;
  for (const auto& g : w.groups) {
    pairs += g.vertices.size();
    used += !g.vertices.empty();
    for (std::int64_t v : g.vertices) top = std::max(top, v);
  }
  std::printf("weights      %s\n", w.label.c_str());
  for (const char* key : {"name", "license"})
    if (const Json* v = w.header.find(key); v && v->isString()) std::printf("%-12s %s\n", key, v->asString().c_str());
  std::printf("groups       %zu (%zu with vertices)\n", w.groups.size(), used);
  std::printf("pairs        %zu", pairs);
  if (top >= 0) std::printf(" (vertices up to %lld)", static_cast<long long>(top));
  std::printf("\n");
}

void printTarget(const Target& t, const std::string& label, const DataSource& src, std::size_t vertex_count) {
  double largest = 0.0;
  for (std::size_t k = 0; k < t.vertices.size(); ++k)
    largest = std::max(largest, std::hypot(t.offsets[3 * k], t.offsets[3 * k + 1], t.offsets[3 * k + 2]));
  std::printf("target       %s\n", label.c_str());
  std::printf("vertices     %zu moved", t.vertices.size());
  if (!t.vertices.empty()) std::printf(", %u..%u", t.vertices.front(), t.vertices.back());
  std::printf(" (of the %zu of the base mesh of %s; others are ignored)\n", vertex_count, src.describe().c_str());
  std::printf("largest      %.6f m\n", largest);
}

void printPose(const Json& pose, const std::string& label) {
  std::printf("pose         %s\n", label.c_str());
  for (const char* key : {"bone_rotations", "bone_translations"})
    if (const Json* v = pose.find(key); v && v->isObject()) std::printf("%-12s %zu bones\n", key + 5, v->size());
  if (const Json* t = pose.find("skeleton_type"); t && t->isString()) std::printf("skeleton     %s\n", t->asString().c_str());
}

// The files `spec` names as any kind of file users name (one file may be found as several kinds).
Expected<DataFile> findAnyFile(const DataSource& src, const std::string& spec) {
  std::vector<DataFile> found;
  for (DataFileKind kind : {DataFileKind::kRig, DataFileKind::kWeights, DataFileKind::kMesh, DataFileKind::kTarget, DataFileKind::kPose}) {
    auto f = resolveDataFile(src, kind, spec);
    if (!f) {
      if (f.error().code == ErrorCode::kUsage) return f.error();  // two files of one kind
      continue;
    }
    bool known = false;
    for (const DataFile& g : found) {
      std::error_code ec;
      known = known || (g.in_source == f->in_source && g.path == f->path) ||
              (!src.isBuiltin() && std::filesystem::equivalent(g.label, f->label, ec));
    }
    if (!known) found.push_back(std::move(*f));
  }
  if (found.size() > 1)
    return makeError(ErrorCode::kUsage, spec + ": names more than one file: " + found[0].label + " and " + found[1].label + " (give the path of one)");
  if (found.empty())
    return makeError(ErrorCode::kIo, spec + ": no such rig, weights, mesh, target or pose file (looked here and in " + src.describe() + ")");
  return std::move(found[0]);
}

int runInfo(const InfoArgs& a) {
  DataOptions data_options;
  data_options.data = a.data;
  if (a.target.empty()) return printData(a.data.empty() ? DataSource::builtinDemo() : data_options.source());
  std::error_code ec;
  if (std::filesystem::is_directory(a.target, ec)) return printData(DataSource::folder(a.target));
  const DataSource src = data_options.source();
  auto file = findAnyFile(src, a.target);
  if (!file) return reportError(file.error());
  const std::string& label = file->label;
  auto text = viewDataFile(src, *file);
  if (!text) return reportError(text.error());
  if (endsWith(file->path, ".obj")) {
    auto m = parseObj(text->text(), label);
    if (!m) return reportError(m.error());
    printMesh(*m, label);
    return kExitOk;
  }
  if (endsWith(file->path, ".target") || endsWith(file->path, ".target.gz")) {
    auto base = loadBaseMesh(src);
    if (!base) return reportError(base.error());
    auto t = decodeTarget(text->text(), label, base->vertexCount());
    if (!t) return reportError(t.error());
    printTarget(*t, label, src, base->vertexCount());
    return kExitOk;
  }
  // JSON: weights ("weights"), a pose ("bone_rotations" / "bone_translations") or a rig.
  auto json = parseJson(text->text(), label);
  if (!json) return reportError(json.error());
  if (json->isObject() && json->contains("weights")) {
    auto w = parseWeights(*text, label);
    if (!w) return reportError(w.error());
    printWeights(*w);
    return kExitOk;
  }
  if (json->isObject() && (json->contains("bone_rotations") || json->contains("bone_translations"))) {
    printPose(*json, label);
    return kExitOk;
  }
  auto rig = rigFromJson(std::move(*json), label);
  if (!rig) return reportError(rig.error());
  printRig(*rig);
  return kExitOk;
}

}  // namespace

void addInfoCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand("info", "Show what a data folder, rig, weights, mesh, target or pose file holds (no argument: the built-in demo)");
  cmd->add_option("target", args->target,
                  "MPFB data folder, or a rig, weights, mesh, target or pose file: a path, or a name in the data folder (extension optional)");
  cmd->add_option("--data", args->data, "MPFB data folder names are looked up in (default: $RIGFIT_DATA, else the built-in demo)");
  cmd->callback([args, &exit_code] { exit_code = runInfo(*args); });
}

}  // namespace rigfit::cli
