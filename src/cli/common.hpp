// Shared pieces of the rigfit command line: exit codes, data-source options, messages.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "rigfit/data.hpp"
#include "rigfit/error.hpp"

namespace rigfit::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

/// Options every command that reads MakeHuman data takes.
struct DataOptions {
  std::string data;  ///< --data; empty: $RIGFIT_DATA, else the built-in demo
  std::string rig;   ///< --rig; empty: "demo" on the built-in demo
  std::string mesh;  ///< --mesh
  void add(CLI::App& app, bool with_rig = true, bool with_mesh = true);
  DataSource source() const;
};

/// Prints "rigfit: error: MESSAGE" on stderr and returns the exit code for it.
int reportError(const Error& error);
void warn(const std::string& message);

/// Writes `bytes` to `path` atomically, or to stdout for "-".
Status writeOutput(const std::string& path, const std::string& bytes);

// Commands: each registers its subcommand and returns a function that runs it.
void addFitCommand(CLI::App& app, int& exit_code);
void addConvertCommand(CLI::App& app, int& exit_code);
void addInfoCommand(CLI::App& app, int& exit_code);

}  // namespace rigfit::cli
