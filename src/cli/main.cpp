// rigfit: MakeHuman rigging outside Blender. A thin layer over the library: each command
// parses its options and calls library functions.
#include <cstdio>

#include "cli/common.hpp"

int main(int argc, char** argv) {
  CLI::App app{"rigfit " RIGFIT_VERSION_STRING " - fit MakeHuman (MPFB) rigs to any body, exactly as MPFB does in Blender"};
  app.set_version_flag("--version", std::string("rigfit ") + RIGFIT_VERSION_STRING);
  app.require_subcommand(1);
  int exit_code = rigfit::cli::kExitOk;
  rigfit::cli::addFitCommand(app, exit_code);
  rigfit::cli::addConvertCommand(app, exit_code);
  rigfit::cli::addInfoCommand(app, exit_code);
  rigfit::cli::addShapeCommand(app, exit_code);
  rigfit::cli::addPoseCommand(app, exit_code);
  rigfit::cli::addExportCommand(app, exit_code);
  rigfit::cli::addValidateCommand(app, exit_code);
  rigfit::cli::addSaveRigCommand(app, exit_code);
  rigfit::cli::addEditRigCommand(app, exit_code);
  rigfit::cli::addBatchCommand(app, exit_code);
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
  }
  return exit_code;
}
