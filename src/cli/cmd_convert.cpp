// rigfit convert: upgrade any MPFB rig file (legacy, v100, v110) to version 110.
#include <memory>

#include "cli/common.hpp"

namespace rigfit::cli {
namespace {

struct ConvertArgs {
  DataOptions data;
  std::string in, out;
};

int runConvert(const ConvertArgs& a) {
  const DataSource data = a.data.source();
  auto where = locateRig(data, a.in);  // any path form of a rig file, or a rig of the data
  if (!where) return reportError(where.error());
  auto rig = loadRig(data, *where);
  if (!rig) return reportError(rig.error());
  if (Status st = writeOutput(a.out, writeRig(*rig)); !st) return reportError(st.error());
  return kExitOk;
}

}  // namespace

void addConvertCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand("convert", "Upgrade a rig file to version 110 (MPFB's format, every key kept)");
  cmd->add_option("input", args->in, "rig in any MPFB layout: a rig file (.json, .mpfbskel; a path, or in the data folder) or a rig name")
      ->required();
  args->data.add(*cmd, false, false);
  cmd->add_option("--out,-o", args->out, "output rig file ('-' for stdout)")->required();
  cmd->callback([args, &exit_code] { exit_code = runConvert(*args); });
}

}  // namespace rigfit::cli
