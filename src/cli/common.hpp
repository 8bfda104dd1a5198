// Shared pieces of the rigfit command line: exit codes, data-source options, messages.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "rigfit/character.hpp"
#include "rigfit/data.hpp"
#include "rigfit/error.hpp"
#include "rigfit/posing.hpp"
#include "rigfit/shape.hpp"

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

/// Body shape options every command that takes a body has.
struct ShapeOptions {
  std::string macro;                   ///< --macro NAME=V,... or "default"
  std::vector<std::string> modifiers;  ///< --modifier GROUP/NAME=V
  std::vector<std::string> targets;    ///< --target PATH[:WEIGHT]
  bool ground = false;                 ///< --ground
  void add(CLI::App& app);
  [[nodiscard]] Expected<ShapeRequest> request() const;
};

/// --data/--rig/--mesh/--weights + shape options -> the character (fitted, skinned).
/// The assets folder: `flag` (--assets) when given, else $RIGFIT_ASSETS, else empty.
std::string assetsFolder(const std::string& flag);

/// --asset, --proxy and --assets: asset files, folders or names, loaded for wearing.
struct AssetArgs {
  std::vector<std::string> assets;
  std::string proxy;
  std::string assets_dir;
  void add(CLI::App& app);
  /// --assets, else $RIGFIT_ASSETS, else empty.
  std::string folder() const;
  /// The asset (kAsset) or proxy (kProxy) file `arg` names, in any path form (resolveDataFile,
  /// with folder()). Errors name the flag.
  [[nodiscard]] Expected<std::string> resolve(const DataSource& data, DataFileKind kind, const std::string& arg) const;
  /// Loads every asset (and the proxy) into `o` for a rig of MPFB type `rig_type`.
  [[nodiscard]] Status load(const DataSource& data, const std::string& rig_type, CharacterOptions& o) const;
};

struct CharacterArgs {
  DataOptions data;
  AssetArgs assets;
  ShapeOptions shape;
  std::string weights;
  bool allow_fallback = false;
  void add(CLI::App& app, bool with_weights);
  /// `threads`: threads the loading may use (loadCharacter's CharacterOptions::threads).
  [[nodiscard]] Expected<Character> load(bool with_weights, int threads = 1) const;
};

/// Prints "rigfit: error: MESSAGE" on stderr and returns the exit code for it.
int reportError(const Error& error);
void warn(const std::string& message);

/// A shaping error (shapeBody) under the flag that asked for it: `modifier "X": ...` becomes
/// `--modifier "X": ...`, `ground: ...` becomes `--ground: ...`; other errors are returned as they are.
Error shapeFlagError(const Error& error);

/// --rotate then --rotate-quat arguments appended to `request` (errors name the flag).
[[nodiscard]] Status parseRotations(const std::vector<std::string>& rotate, const std::vector<std::string>& rotate_quat, PoseRequest& request);

/// Writes `bytes` to `path` atomically, or to stdout for "-".
Status writeOutput(const std::string& path, const std::string& bytes);

// Commands: each registers its subcommand and returns a function that runs it.
void addFitCommand(CLI::App& app, int& exit_code);
void addConvertCommand(CLI::App& app, int& exit_code);
void addInfoCommand(CLI::App& app, int& exit_code);
void addPoseCommand(CLI::App& app, int& exit_code);
void addExportCommand(CLI::App& app, int& exit_code);
void addShapeCommand(CLI::App& app, int& exit_code);
void addValidateCommand(CLI::App& app, int& exit_code);
void addSaveRigCommand(CLI::App& app, int& exit_code);
void addEditRigCommand(CLI::App& app, int& exit_code);
void addBatchCommand(CLI::App& app, int& exit_code);

}  // namespace rigfit::cli
