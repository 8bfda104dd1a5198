// rigfit shape: write the shaped body (targets, macros, grounding) as OBJ.
#include <memory>

#include "cli/common.hpp"
#include "rigfit/number_format.hpp"
#include "rigfit/version.hpp"

namespace rigfit::cli {
namespace {

struct ShapeArgs {
  DataOptions data;
  ShapeOptions shape;
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
  if (Status st = writeOutput(a.out, writeObj(*mesh, mesh->positions, {}, header)); !st) return reportError(st.error());
  return kExitOk;
}

}  // namespace

void addShapeCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ShapeArgs>();
  CLI::App* cmd = app.add_subcommand("shape", "Apply MakeHuman targets and macros to the body and write it as OBJ");
  args->data.add(*cmd, false, true);
  args->shape.add(*cmd);
  cmd->add_option("--out,-o", args->out, "output OBJ ('-' for stdout)")->required();
  cmd->callback([args, &exit_code] { exit_code = runShape(*args); });
}

}  // namespace rigfit::cli
