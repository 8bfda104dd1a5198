#include "cli/common.hpp"

#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "rigfit/file_io.hpp"

namespace rigfit::cli {

void DataOptions::add(CLI::App& app, bool with_rig, bool with_mesh) {
  app.add_option("--data", data, "MPFB data folder (default: $RIGFIT_DATA, else the built-in demo)");
  if (with_rig)
    app.add_option("--rig", rig, "rig name (game_engine, rigify.human, ...) or rig file (.json, .mpfbskel; a path, or in the data folder) (default on the demo: demo)");
  if (with_mesh) app.add_option("--mesh", mesh, "body OBJ with the base mesh's vertices in the same order, a path or in the data folder (default: the data's base.obj)");
}

DataSource DataOptions::source() const {
  if (!data.empty()) return DataSource::folder(data);
  if (const char* env = std::getenv("RIGFIT_DATA"); env && *env) return DataSource::folder(env);
  return DataSource::builtinDemo();
}

void ShapeOptions::add(CLI::App& app) {
  app.add_option("--macro", macro, "macro sliders, e.g. gender=1,age=0.5,muscle=0.7 (0..1; african/asian/caucasian too), or 'default' for MPFB's new human");
  app.add_option("--modifier", modifiers, "detail modifier GROUP/NAME=VALUE from targets/target.json (repeatable)");
  app.add_option("--target", targets,
                 "raw target PATH[:WEIGHT]: a .target/.target.gz path, or relative to the data's targets/; extension optional (repeatable)");
  app.add_flag("--ground", ground, "lift the body so its lowest body vertex is at z = 0, as MPFB's new human");
}

Expected<ShapeRequest> ShapeOptions::request() const {
  ShapeRequest r;
  if (!macro.empty()) {
    auto m = parseMacroSettings(macro);
    if (!m) return replaceSubject(m.error(), "--macro");
    r.use_macros = true;
    r.macros = *m;
  }
  auto number = [](const std::string& text, double& out) {
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return !text.empty() && end == text.c_str() + text.size() && std::isfinite(out);
  };
  for (const auto& m : modifiers) {
    const std::size_t eq = m.rfind('=');
    double v = 0;
    if (eq == std::string::npos || !number(m.substr(eq + 1), v) || v < -1.0 || v > 1.0)
      return makeError(ErrorCode::kUsage, "--modifier \"" + m + "\": expected GROUP/NAME=VALUE with VALUE from -1 to 1");
    r.modifiers.emplace_back(m.substr(0, eq), v);
  }
  for (const auto& t : targets) {
    const std::size_t colon = t.rfind(':');
    double w = 1.0;
    std::string path = t;
    if (colon != std::string::npos) {
      if (!number(t.substr(colon + 1), w) || w < 0.0 || w > 1.0)
        return makeError(ErrorCode::kUsage, "--target \"" + t + "\": the weight must be a number from 0 to 1");
      path = t.substr(0, colon);
    }
    r.targets.emplace_back(path, w);
  }
  r.ground = ground;
  return r;
}

void CharacterArgs::add(CLI::App& app, bool with_weights) {
  data.add(app);
  shape.add(app);
  if (with_weights)
    app.add_option("--weights", weights, "weights name, or weights file (.json, .mhw; a path, or in the data folder) (default: the rig's own)");
  app.add_flag("--allow-fallback", allow_fallback,
               "like MPFB, use default_position (with a warning) where a strategy cannot be evaluated, instead of failing");
  assets.add(app);
}

Expected<Character> CharacterArgs::load(bool with_weights, int threads) const {
  if (data.rig.empty() && !data.source().isBuiltin())
    return makeError(ErrorCode::kUsage, "--rig is required with --data (one of the data's rigs, or a rig.*.json path)");
  CharacterOptions o;
  o.threads = threads;
  o.rig = data.rig;
  o.mesh = data.mesh;
  o.weights = with_weights ? weights : "none";
  o.fit.allow_fallback = allow_fallback;
  auto shape_request = shape.request();
  if (!shape_request) return shape_request.error();
  o.shape = std::move(*shape_request);
  if (!assets.assets.empty() || !assets.proxy.empty()) {
    // Custom weights sidecars are chosen by the rig's MPFB type: its name.
    auto where = locateRig(data.source(), data.rig.empty() ? "demo" : data.rig);
    if (!where) return where.error();
    RIGFIT_TRY(assets.load(data.source(), where->name, o));
  }
  auto c = loadCharacter(data.source(), o);
  if (c)
    for (const auto& w : c->fit.warnings) warn(c->rig.label + ": bone \"" + w.bone + "\": " + w.message);
  if (!c) return shapeFlagError(c.error());
  for (const auto& w : c->warnings) warn(w);
  if (c && with_weights)
    for (const auto& g : c->binding.unmapped) warn(c->weights_label + ": group \"" + g + "\" names no bone of the rig; its weights are not used");
  return c;
}

namespace {
// Messages quote names from input files: a line break in one must not split the message, and a
// huge one (a 100 KB group name) is elided as errors are.
std::string oneLine(std::string msg) {
  for (char& c : msg)
    if (c == '\n' || c == '\r') c = ' ';
  return elideMessage(std::move(msg));
}
}  // namespace

int reportError(const Error& error) {
  std::fprintf(stderr, "rigfit: error: %s\n", oneLine(error.message).c_str());
  return error.code == ErrorCode::kUsage ? kExitUsage : kExitBadInput;
}

void warn(const std::string& message) { std::fprintf(stderr, "rigfit: warning: %s\n", oneLine(message).c_str()); }

Error shapeFlagError(const Error& error) {
  const std::string& m = error.message;
  if (m.rfind("modifier \"", 0) == 0) return replaceSubject(error, "--modifier");
  if (m.rfind("ground: ", 0) == 0) return replaceSubject(error, "--ground:");
  return error;
}

Status parseRotations(const std::vector<std::string>& rotate, const std::vector<std::string>& rotate_quat, PoseRequest& request) {
  for (const auto& text : rotate) {
    auto r = parseBoneRotation(text, BoneRotation::Kind::kEulerXyzDegrees);
    if (!r) return replaceSubject(r.error(), "--rotate");
    request.rotations.push_back(std::move(*r));
  }
  for (const auto& text : rotate_quat) {
    auto r = parseBoneRotation(text, BoneRotation::Kind::kQuaternion);
    if (!r) return replaceSubject(r.error(), "--rotate-quat");
    request.rotations.push_back(std::move(*r));
  }
  return {};
}

Status writeOutput(const std::string& path, const std::string& bytes) {
  if (path == "-") {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    std::fflush(stdout);
    return {};
  }
  return writeFileAtomic(path, bytes);
}

}  // namespace rigfit::cli
