// rigfit fit: fit a rig to a body and write the skeleton JSON (or a summary).
#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/common.hpp"
#include "rigfit/fit.hpp"

namespace rigfit::cli {
namespace {

struct FitArgs {
  CharacterArgs character;
  std::string out;
};

int runFit(const FitArgs& a) {
  auto c = a.character.load(false);
  if (!c) return reportError(c.error());
  const Skeleton& s = c->fit.skeleton;
  if (!a.out.empty()) {
    if (Status st = writeOutput(a.out, writeSkeletonJson(s)); !st) return reportError(st.error());
    return kExitOk;
  }
  std::size_t roots = 0;
  double zmin = 1e300, zmax = -1e300;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.parents[i] == kNoParent) ++roots;
    zmin = std::min({zmin, s.heads[i].z(), s.tails[i].z()});
    zmax = std::max({zmax, s.heads[i].z(), s.tails[i].z()});
  }
  const RigDefinition& rig = c->rig;
  std::printf("rig        %s (%s, %s)\n", c->rig_name.c_str(), rig.label.c_str(),
              rig.layout == RigLayout::kLegacy ? "legacy layout, upgraded to 110"
              : rig.source_version < 110   ? "version 100, upgraded to 110"
                                           : "version 110");
  std::printf("body       %s (%zu vertices%s)\n", c->mesh_label.c_str(), c->body().mesh.vertexCount(),
              c->targets_applied.empty() ? "" : (", " + std::to_string(c->targets_applied.size()) + " targets").c_str());
  std::printf("bones      %zu fitted, %zu root%s\n", s.size(), roots, roots == 1 ? "" : "s");
  std::printf("fallbacks  %zu\n", c->fit.fallback_count);
  std::printf("warnings   %zu\n", c->fit.warnings.size());
  std::printf("extent     z from %.4f m to %.4f m\n", zmin, zmax);
  std::printf("(write the skeleton with --out FILE.json)\n");
  return kExitOk;
}

}  // namespace

void addFitCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<FitArgs>();
  CLI::App* cmd = app.add_subcommand("fit", "Fit a rig to a body as MPFB does and write the skeleton (JSON)");
  args->character.add(*cmd, false);
  cmd->add_option("--out,-o", args->out, "write the fitted skeleton as rigfit-skeleton/1 JSON ('-' for stdout)");
  cmd->callback([args, &exit_code] { exit_code = runFit(*args); });
}

}  // namespace rigfit::cli
