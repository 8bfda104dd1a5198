// rigfit info: what a rig file, a mesh or a data folder holds, at a glance.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/common.hpp"
#include "core/file_io.hpp"

namespace rigfit::cli {
namespace {

struct InfoArgs {
  std::string target;
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

int runInfo(const InfoArgs& a) {
  if (a.target.empty()) return printData(DataSource::builtinDemo());
  std::error_code ec;
  if (std::filesystem::is_directory(a.target, ec)) return printData(DataSource::folder(a.target));
  if (endsWith(a.target, ".obj")) {
    auto m = readObj(a.target);
    if (!m) return reportError(m.error());
    printMesh(*m, a.target);
    return kExitOk;
  }
  if (endsWith(a.target, ".json")) {
    auto rig = readRig(a.target);
    if (!rig) return reportError(rig.error());
    printRig(*rig);
    return kExitOk;
  }
  return reportError(makeError(ErrorCode::kUsage, a.target + ": not a data folder, an .obj mesh or a rig .json"));
}

}  // namespace

void addInfoCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand("info", "Show what a rig file, a mesh or a data folder holds (no argument: the built-in demo)");
  cmd->add_option("target", args->target, "rig .json, mesh .obj or MPFB data folder");
  cmd->callback([args, &exit_code] { exit_code = runInfo(*args); });
}

}  // namespace rigfit::cli
