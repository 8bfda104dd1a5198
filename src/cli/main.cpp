// rigfit: MakeHuman rigging outside Blender. A thin layer over the library: each command
// parses its options and calls library functions.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string_view>
#include <utility>

#include "rigfit/version.hpp"
#include "cli/common.hpp"
#include "cli/heap.hpp"
#include "core/warm_worker.hpp"

namespace {

// The heap set-up, then the side thread for the commands that read the weights on it as soon
// as the rig is known: starting it first hides its start-up behind the static constructors,
// the option parsing and the rig's reading.
void startUp(int argc, char** argv) {
  static bool done = false;
  if (done) return;
  done = true;
  const std::string_view first = argc > 1 ? argv[1] : "";
  rigfit::cli::setUpHeap(first != "batch");
  if (first == "export" || first == "pose") rigfit::detail::warmUpWorker();
}

#if defined(__GLIBC__) && defined(__linux__)
// glibc passes argc and argv to constructors; 101 runs before the other static constructors.
__attribute__((constructor(101))) void startUpFirst(int argc, char** argv, char**) { startUp(argc, argv); }
#endif

}  // namespace

int main(int argc, char** argv) {
  startUp(argc, argv);  // (already done by startUpFirst where constructors get argv)
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
  }
  // The command is done and its outputs are in place: end the process without running
  // destructors (freeing what the exit frees anyway) or joining the idle side thread.
  std::fflush(nullptr);
  std::_Exit(exit_code);
}
