// rigfit: MakeHuman rigging outside Blender. A thin layer over the library: each command
// parses its options and calls library functions.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <new>
#include <string_view>
#include <utility>

#include "rigfit/version.hpp"
#include "cli/common.hpp"

int main(int argc, char** argv) {
  const std::string_view first = argc > 1 ? argv[1] : "";
  CLI::App app{"rigfit " RIGFIT_VERSION_STRING " - fit MakeHuman (MPFB) rigs to any body, exactly as MPFB does in Blender"};
  app.set_version_flag("--version", std::string("rigfit ") + RIGFIT_VERSION_STRING);
  app.require_subcommand(1);
  int exit_code = rigfit::cli::kExitOk;
  // A command's options are built only when it is the one asked for (all of them for the
  // top-level help): building every command's costs a quarter of a millisecond at each start.
  using Add = void (*)(CLI::App&, int&);
  const std::pair<const char*, Add> commands[] = {
      {"fit", rigfit::cli::addFitCommand},           {"convert", rigfit::cli::addConvertCommand},
      {"info", rigfit::cli::addInfoCommand},         {"shape", rigfit::cli::addShapeCommand},
      {"pose", rigfit::cli::addPoseCommand},         {"export", rigfit::cli::addExportCommand},
      {"validate", rigfit::cli::addValidateCommand}, {"save-rig", rigfit::cli::addSaveRigCommand},
      {"edit-rig", rigfit::cli::addEditRigCommand},  {"batch", rigfit::cli::addBatchCommand}};
  const bool named = std::any_of(std::begin(commands), std::end(commands), [&](const auto& c) { return first == c.first; });
  for (const auto& [name, add] : commands)
    if (!named || first == name) add(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return rigfit::cli::kExitUsage;
  } catch (const std::bad_alloc&) {
    // The readers bound their memory by their input and report failures as errors; this keeps
    // any allocation that still fails (the machine's or a ulimit's limit) an error line too.
    std::fprintf(stderr, "rigfit: error: out of memory\n");
    return rigfit::cli::kExitBadInput;
  }
  return exit_code;
}
