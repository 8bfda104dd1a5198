// rigfit validate: check a G4MF file against every MUST rule a file can break.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/common.hpp"
#include "core/file_io.hpp"
#include "rigfit/g4mf.hpp"

namespace rigfit::cli {
namespace {

struct ValidateArgs {
  std::vector<std::string> files;
  bool quiet = false;
};

int runValidate(const ValidateArgs& a) {
  int bad = 0;
  for (const auto& f : a.files) {
    auto bytes = readFile(f);
    if (!bytes) return reportError(bytes.error());
    const auto issues = validateG4mf(std::string_view(*bytes), f);
    std::size_t errors = 0, warnings = 0;
    for (const auto& i : issues) {
      const bool error = i.severity == G4mfSeverity::kError;
      (error ? errors : warnings)++;
      if (!a.quiet || error) {
        // One line each, a huge value from the file elided.
        std::string line = elideMessage(f + ": " + (i.path.empty() ? "/" : i.path) + ": " + (error ? "error" : "warning") + ": " + i.message);
        std::replace(line.begin(), line.end(), '\n', ' ');
        std::printf("%s\n", line.c_str());
      }
    }
    std::printf("%s: %zu errors, %zu warnings\n", f.c_str(), errors, warnings);
    if (errors) ++bad;
  }
  return bad ? kExitBadInput : kExitOk;
}

}  // namespace

void addValidateCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand("validate", "Check G4MF files (.g4tf/.g4b) against every rule a file can break; exit 1 on errors");
  cmd->add_option("files", args->files, "G4MF files")->required();
  cmd->add_flag("--quiet,-q", args->quiet, "print errors only");
  cmd->callback([args, &exit_code] { exit_code = runValidate(*args); });
}

}  // namespace rigfit::cli
