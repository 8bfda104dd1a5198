// rigfit fit: fit a rig to a body and write the skeleton JSON (or a summary).
#include <cstdio>
#include <memory>

#include "cli/body.hpp"
#include "rigfit/fit.hpp"

namespace rigfit::cli {
namespace {

struct FitArgs {
  DataOptions data;
  std::string out;
  bool allow_fallback = false;
  bool quiet = false;
};

int runFit(const FitArgs& a) {
  const DataSource src = a.data.source();
  std::string rig_name;
  auto rig = loadRigOption(src, a.data.rig, &rig_name);
  if (!rig) return reportError(rig.error());
  auto body = loadBody(src, a.data.mesh);
  if (!body) return reportError(body.error());
  FitOptions options;
  options.allow_fallback = a.allow_fallback;
  auto fit = fitRig(*rig, body->mesh, body->groups, options);
  if (!fit) return reportError(fit.error());
  if (!a.quiet)
    for (const auto& w : fit->warnings) warn(rig->label + ": bone \"" + w.bone + "\": " + w.message);
  const Skeleton& s = fit->skeleton;
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
  std::printf("rig        %s (%s, %s)\n", rig_name.c_str(), rig->label.c_str(),
              rig->layout == RigLayout::kLegacy ? "legacy layout, upgraded to 110"
              : rig->source_version < 110   ? "version 100, upgraded to 110"
                                            : "version 110");
  std::printf("body       %s (%zu vertices)\n", body->mesh_label.c_str(), body->mesh.vertexCount());
  std::printf("bones      %zu fitted, %zu root%s\n", s.size(), roots, roots == 1 ? "" : "s");
  std::printf("fallbacks  %zu\n", fit->fallback_count);
  std::printf("warnings   %zu\n", fit->warnings.size());
  std::printf("extent     z from %.4f m to %.4f m\n", zmin, zmax);
  std::printf("(write the skeleton with --out FILE.json)\n");
  return kExitOk;
}

}  // namespace

void addFitCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<FitArgs>();
  CLI::App* cmd = app.add_subcommand("fit", "Fit a rig to a body as MPFB does and write the skeleton (JSON)");
  args->data.add(*cmd);
  cmd->add_option("--out,-o", args->out, "write the fitted skeleton as rigfit-skeleton/1 JSON ('-' for stdout)");
  cmd->add_flag("--allow-fallback", args->allow_fallback,
                "like MPFB, use default_position (with a warning) where a strategy cannot be evaluated, instead of failing");
  cmd->add_flag("--quiet,-q", args->quiet, "do not print warnings");
  cmd->callback([args, &exit_code] { exit_code = runFit(*args); });
}

}  // namespace rigfit::cli
