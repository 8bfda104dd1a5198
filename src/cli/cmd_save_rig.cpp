// rigfit save-rig: bone positions (a skeleton JSON, a glTF skeleton, or a rig fitted to the body)
// -> a fittable MPFB rig with automatically chosen strategies.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/author_body.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/gltf.hpp"

namespace rigfit::cli {
namespace {

struct SaveRigArgs {
  DataOptions data;
  ShapeOptions shape;
  std::string from, base_rig, out, report, clothes;
  bool subrig = false, rigify_ui = false, auto_only = false, fast = false;
};

bool endsWith(const std::string& s, const char* suffix) {
  const std::size_t n = std::char_traits<char>::length(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// The positions to save and, for a rig source, the rig itself (its non-positional data).
struct Source {
  SkeletonSource skeleton;
  std::optional<RigDefinition> rig;
};

Expected<Source> readSource(const SaveRigArgs& a, const DataSource& data, const AuthorBody& body) {
  Source s;
  if (endsWith(a.from, ".glb") || endsWith(a.from, ".gltf")) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(a.from, ec)) return makeError(ErrorCode::kIo, a.from + ": no such file");
    auto sk = readGltfSkeleton(a.from);  // with the buffer files beside it
    if (!sk) return sk.error();
    s.skeleton = std::move(*sk);
    return s;
  }
  // A skeleton JSON or a rig, as users name rigs: any path form, or a rig of the data.
  auto where = locateRig(data, a.from);
  if (!where) return where.error();
  const DataFile file{where->in_source, where->path, where->label};
  auto text = viewDataFile(data, file);
  if (!text) return text.error();
  auto json = parseJson(text->text(), file.label);
  if (!json) return json.error();
  const Json* format = json->isObject() ? json->find("format") : nullptr;
  if (format && format->isString() && format->asString().rfind("rigfit-skeleton", 0) == 0) {
    auto sk = parseSkeletonJson(*json, file.label);
    if (!sk) return sk.error();
    s.skeleton = std::move(*sk);
    return s;
  }
  auto rig = rigFromJson(std::move(*json), file.label);
  if (!rig) return rig.error();
  s.rig = std::move(*rig);
  // A rig source: its positions are the rig fitted to the body.
  FitOptions fo;
  fo.allow_fallback = true;
  auto prepared = prepareRig(*s.rig, body.groups, body.mesh.vertexCount(), body.info.mesh_scale_factor, fo);
  if (!prepared) return prepared.error();
  FitResult fit;
  if (Status st = fitSkeleton(*prepared, body.mesh.positions, fit); !st) return st.error();
  for (const auto& w : fit.warnings) warn(s.rig->label + ": bone \"" + w.bone + "\": " + w.message);
  s.skeleton.kind = "rig";
  s.skeleton.bones = placementsFromSkeleton(fit.skeleton);
  return s;
}

Json reportJson(const SaveReport& r, const SkeletonSource& src, const std::string& out) {
  Json j = Json::object();
  j.set("output", out);
  j.set("source", src.kind);
  j.set("bones", static_cast<std::int64_t>(r.bones));
  Json ends = Json::object();
  for (Strategy s : {Strategy::kCube, Strategy::kVertex, Strategy::kMean, Strategy::kXyz, Strategy::kDefault})
    ends.set(strategyName(s), static_cast<std::int64_t>(r.ends_by_strategy[static_cast<int>(s)]));
  j.set("ends", std::move(ends));
  j.set("automatic", static_cast<std::int64_t>(r.automatic));
  j.set("saved_kept", static_cast<std::int64_t>(r.saved_kept));
  j.set("saved_locked", static_cast<std::int64_t>(r.saved_locked));
  j.set("saved_replaced", static_cast<std::int64_t>(r.saved_replaced));
  auto list = [](const std::vector<std::string>& v) {
    Json a = Json::array();
    for (const auto& s : v) a.push(s);
    return a;
  };
  j.set("default_bones", list(r.default_bones));
  j.set("new_bones", list(r.new_bones));
  j.set("notes", list(src.notes));
  return j;
}

int runSaveRig(const SaveRigArgs& a) {
  const DataSource data = a.data.source();
  auto body = loadAuthorBody(data, a.data.mesh, a.shape);
  if (!body) return reportError(body.error());
  auto src = readSource(a, data, *body);
  if (!src) return reportError(src.error());

  RigDefinition base;
  if (!a.base_rig.empty()) {
    auto where = locateRig(data, a.base_rig);
    if (!where) return reportError(where.error());
    auto rig = loadRig(data, *where);
    if (!rig) return reportError(rig.error());
    base = std::move(*rig);
  } else if (src->rig) {
    base = *src->rig;
  }

  // A sub-rig's own ends sit on the clothes: its vertices, the body's joint cubes (docs/mpfb-behaviour.md §8.1).
  const PositionInfo* info = &body->info;
  PositionInfo clothes_info;
  if (!a.clothes.empty()) {
    auto file = resolveDataFile(data, DataFileKind::kMesh, a.clothes);  // any path form of an OBJ
    if (!file) return reportError(file.error());
    auto text = viewDataFile(data, *file);
    if (!text) return reportError(text.error());
    auto clothes = parseObj(text->text(), file->label, ObjReadOptions{body->mesh.scale_factor});
    if (!clothes) return reportError(clothes.error());
    auto ci = makePositionInfo(clothes->positions, VertexGroups{}, static_cast<double>(body->mesh.scale_factor));
    if (!ci) return reportError(ci.error());
    clothes_info = std::move(*ci);
    clothes_info.cube_names = body->info.cube_names;
    clothes_info.cubes = body->info.cubes;
    clothes_info.cube_tree = body->info.cube_tree;
    info = &clothes_info;
  }

  SaveOptions o;
  o.subrig = a.subrig;
  o.rigify_ui = a.rigify_ui;
  o.fast = a.fast;
  o.use_saved = !a.auto_only;
  SaveReport report;
  auto rig = saveRig(base, src->skeleton.bones, *info, o, &report);
  if (!rig) return reportError(makeError(rig.error().code, a.from + ": " + rig.error().message));
  for (const auto& n : src->skeleton.notes) warn(a.from + ": " + n);
  if (!report.default_bones.empty()) {
    std::string names;
    for (std::size_t i = 0; i < report.default_bones.size() && i < 10; ++i) names += (i ? ", " : "") + report.default_bones[i];
    if (report.default_bones.size() > 10) names += ", ...";
    warn(std::to_string(report.default_bones.size()) + " bone" + (report.default_bones.size() == 1 ? "" : "s") +
         (report.default_bones.size() == 1 ? " still has" : " still have") +
         " a DEFAULT head or tail (nothing of the body within 1 cm): " + names);
  }
  if (Status st = writeOutput(a.out, writeRig(*rig)); !st) return reportError(st.error());
  if (!a.report.empty()) {
    JsonWriteOptions jo;
    jo.indent = 2;
    jo.sort_keys = false;
    jo.final_newline = true;
    if (Status st = writeOutput(a.report, writeJson(reportJson(report, src->skeleton, a.out), jo)); !st) return reportError(st.error());
  }
  if (a.out != "-") {
    std::printf("bones      %zu (%zu not in the base rig)\n", report.bones, report.new_bones.size());
    std::printf("ends       CUBE %zu, VERTEX %zu, MEAN %zu, XYZ %zu, DEFAULT %zu\n", report.ends_by_strategy[0], report.ends_by_strategy[1],
                report.ends_by_strategy[2], report.ends_by_strategy[3], report.ends_by_strategy[4]);
    std::printf("chosen     %zu automatic, %zu saved kept, %zu locked, %zu saved replaced\n", report.automatic, report.saved_kept,
                report.saved_locked, report.saved_replaced);
  }
  return kExitOk;
}

}  // namespace

void addSaveRigCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SaveRigArgs>();
  CLI::App* cmd = app.add_subcommand("save-rig", "Save bone positions on a body as a fittable rig with automatically chosen strategies (MPFB's Save rig)");
  args->data.add(*cmd, false);
  args->shape.add(*cmd);
  cmd->add_option("--from", args->from,
                  "bone positions: a rigfit skeleton JSON, a .glb/.gltf skeleton, or a rig (file or name) fitted to the body")
      ->required();
  cmd->add_option("--base-rig", args->base_rig,
                  "rig (file or name) giving parents, flags, collections, Rigify data, constraints and saved strategies of bones with the same names");
  cmd->add_option("--out,-o", args->out, "output rig.NAME.json ('-' for stdout)")->required();
  cmd->add_flag("--subrig", args->subrig, "save as a sub-rig (is_subrig: true)");
  cmd->add_option("--clothes", args->clothes, "sub-rig: the clothes OBJ whose vertices VERTEX/MEAN ends use (cubes stay the body's)");
  cmd->add_flag("--rigify-ui", args->rigify_ui, "write the base rig's rigify_ui (null when it has none)");
  cmd->add_flag("--auto-only", args->auto_only, "ignore the base rig's strategies: every end chosen automatically");
  cmd->add_flag("--fast", args->fast, "fast matching (CUBE and VERTEX only, as MPFB for parent rigs of sub-rigs)");
  cmd->add_option("--report", args->report, "write a JSON report (strategy counts, DEFAULT bones, assumptions)");
  cmd->callback([args, &exit_code] { exit_code = runSaveRig(*args); });
}

}  // namespace rigfit::cli
