// rigfit shape: write the shaped body (targets, macros, grounding) as OBJ, with the assets it wears.
#include <memory>

#include "cli/common.hpp"
#include "rigfit/number_format.hpp"
#include "rigfit/posing.hpp"
#include "rigfit/version.hpp"

namespace rigfit::cli {
namespace {

struct ShapeArgs {
  DataOptions data;
  ShapeOptions shape;
  AssetArgs assets;
  bool keep_hidden = false;
  std::string out;
};

int runShape(const ShapeArgs& a) {
  const DataSource src = a.data.source();
  auto mesh = loadBaseMesh(src, a.data.mesh);
  if (!mesh) return reportError(mesh.error());
  auto request = a.shape.request();
  if (!request) return reportError(request.error());
  TargetCache cache(src);
  std::vector<std::pair<std::string, double>> applied;
  if (Status st = shapeBody(cache, *request, mesh->positions, &applied); !st) return reportError(shapeFlagError(st.error()));
  std::string header = "shaped by rigfit " RIGFIT_VERSION_STRING;
  for (const auto& [path, w] : applied) header += "\n# target " + path + " " + formatPythonFloat(w);  // exact: reads back as the same double
  if (a.assets.assets.empty() && a.assets.proxy.empty()) {
    if (Status st = writeOutput(a.out, writeObj(*mesh, mesh->positions, {}, header)); !st) return reportError(st.error());
    return kExitOk;
  }
  // Worn assets: fitted to the shaped body (the asset stage of a character, without a rig: no
  // custom weights are read), one object per mesh, the body (or its proxy) first.
  CharacterOptions worn;
  if (Status st = a.assets.load(src, "", worn); !st) return reportError(st.error());
  auto dressed = dressBody(*mesh, worn.assets, worn.proxy);
  if (!dressed) return reportError(dressed.error());
  for (const auto& w : dressed->warnings) warn(w);
  Character c;
  CharacterMesh& body = c.meshes.emplace_back();
  if (dressed->proxy) {
    body = std::move(*dressed->proxy);
  } else {
    body.mesh = std::move(*mesh);
    body.hidden_faces = std::move(dressed->body_hidden_faces);
  }
  for (CharacterMesh& m : dressed->assets) c.meshes.push_back(std::move(m));
  if (Status st = writeOutput(a.out, writeCharacterObj(c, nullptr, a.keep_hidden, header)); !st) return reportError(st.error());
  return kExitOk;
}

}  // namespace

void addShapeCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ShapeArgs>();
  CLI::App* cmd = app.add_subcommand("shape", "Apply MakeHuman targets and macros to the body and write it as OBJ");
  args->data.add(*cmd, false, true);
  args->shape.add(*cmd);
  args->assets.add(*cmd);
  cmd->add_flag("--keep-hidden", args->keep_hidden, "keep the body faces the worn clothes hide (default: removed)");
  cmd->add_option("--out,-o", args->out, "output OBJ ('-' for stdout)")->required();
  cmd->callback([args, &exit_code] { exit_code = runShape(*args); });
}

}  // namespace rigfit::cli
