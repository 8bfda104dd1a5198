#include "cli/common.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "rigfit/file_io.hpp"

namespace rigfit::cli {

void DataOptions::add(CLI::App& app, bool with_rig, bool with_mesh) {
  app.add_option("--data", data, "MPFB data folder (default: $RIGFIT_DATA, else the built-in demo)");
  if (with_rig) app.add_option("--rig", rig, "rig name (game_engine, rigify.human, ...) or rig.*.json path (default on the demo: demo)");
  if (with_mesh) app.add_option("--mesh", mesh, "body OBJ with the base mesh's vertices in the same order (default: the data's base.obj)");
}

DataSource DataOptions::source() const {
  if (!data.empty()) return DataSource::folder(data);
  if (const char* env = std::getenv("RIGFIT_DATA"); env && *env) return DataSource::folder(env);
  return DataSource::builtinDemo();
}

int reportError(const Error& error) {
  std::string msg = error.message;
  for (char& c : msg)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "rigfit: error: %s\n", msg.c_str());
  return error.code == ErrorCode::kUsage ? kExitUsage : kExitBadInput;
}

void warn(const std::string& message) { std::fprintf(stderr, "rigfit: warning: %s\n", message.c_str()); }

Status writeOutput(const std::string& path, const std::string& bytes) {
  if (path == "-") {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    std::fflush(stdout);
    return {};
  }
  return writeFileAtomic(path, bytes);
}

}  // namespace rigfit::cli
