// rigfit edit-rig: MPFB's developer bone-strategy tools on the command line. The rig is fitted to
// the body; operations change strategies (and, for reapply, positions); the edited rig is written.
#include <charconv>
#include <cstdio>
#include <memory>
#include <sstream>

#include "cli/author_body.hpp"

namespace rigfit::cli {
namespace {

struct EditRigArgs {
  DataOptions data;
  ShapeOptions shape;
  std::string rig, script, out;
  std::vector<std::string> ops;
  bool no_keep_connected = false;
};

const char* kOpHelp =
    "set-strategy END BONE CUBE|VERTEX|MEAN|XYZ, set-offset END BONE, reapply END BONE, lock END BONE, unlock END BONE, "
    "set-vertices END BONE I [I...], set-cube END BONE JOINT, roll-strategy BONE NONE|ALIGN_Z_WORLD_Z|ALIGN_X_WORLD_X|ALIGN_Z_REFERENCE_Z, "
    "copy-connected BONE (END: head or tail)";

Status runOp(RigEditor& ed, const std::vector<std::string>& t) {
  auto usage = [&](const std::string& what) { return makeError(ErrorCode::kUsage, what + " (operations: " + kOpHelp + ")"); };
  if (t.empty()) return usage("an empty operation");
  const std::string& op = t[0];
  auto end = [&]() -> Expected<RigEditor::End> {
    if (t.size() < 3) return usage(op + ": expected END BONE");
    return ed.find(t[2], t[1]);
  };
  auto count = [&](std::size_t n) -> Status {
    if (t.size() != n) return usage(op + ": expected " + std::to_string(n - 1) + " arguments, found " + std::to_string(t.size() - 1));
    return {};
  };
  if (op == "set-strategy") {
    RIGFIT_TRY(count(4));
    auto e = end();
    if (!e) return e.error();
    Strategy s;
    if (t[3] == "CUBE") s = Strategy::kCube;
    else if (t[3] == "VERTEX") s = Strategy::kVertex;
    else if (t[3] == "MEAN") s = Strategy::kMean;
    else if (t[3] == "XYZ") s = Strategy::kXyz;
    else return usage(op + ": unknown strategy \"" + t[3] + "\"");
    auto r = ed.setStrategy(*e, s);
    if (!r) return r.error();
    return {};
  }
  if (op == "set-offset" || op == "reapply" || op == "lock" || op == "unlock") {
    RIGFIT_TRY(count(3));
    auto e = end();
    if (!e) return e.error();
    if (op == "set-offset") return ed.setOffset(*e);
    if (op == "reapply") return ed.reapply(*e);
    ed.setLock(*e, op == "lock");
    return {};
  }
  if (op == "set-vertices") {
    if (t.size() < 4) return usage(op + ": expected END BONE and at least one vertex index");
    auto e = end();
    if (!e) return e.error();
    std::vector<std::int64_t> v;
    for (std::size_t k = 3; k < t.size(); ++k) {
      std::string_view tok = t[k];
      if (tok.size() > 1 && tok[0] == '+' && tok[1] != '-') tok.remove_prefix(1);
      std::int64_t x = 0;
      const auto [stop, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), x);
      if (ec == std::errc::result_out_of_range) return usage(op + ": vertex index " + t[k] + " is too large");
      if (tok.empty() || ec != std::errc() || stop != tok.data() + tok.size()) return usage(op + ": \"" + t[k] + "\" is not a vertex index");
      v.push_back(x);
    }
    return ed.setVertices(*e, v);
  }
  if (op == "set-cube") {
    RIGFIT_TRY(count(4));
    auto e = end();
    if (!e) return e.error();
    return ed.setCube(*e, t[3]);
  }
  if (op == "roll-strategy") {
    RIGFIT_TRY(count(3));
    auto b = ed.find(t[1], "head");
    if (!b) return b.error();
    RollStrategy r;
    if (t[2] == "NONE") r = RollStrategy::kNone;
    else if (t[2] == "ALIGN_Z_WORLD_Z") r = RollStrategy::kAlignZWorldZ;
    else if (t[2] == "ALIGN_X_WORLD_X") r = RollStrategy::kAlignXWorldX;
    else if (t[2] == "ALIGN_Z_REFERENCE_Z") r = RollStrategy::kAlignZReferenceZ;
    else return usage(op + ": unknown roll strategy \"" + t[2] + "\"");
    ed.setRollStrategy(b->bone, r);
    return {};
  }
  if (op == "copy-connected") {
    RIGFIT_TRY(count(2));
    auto b = ed.find(t[1], "head");
    if (!b) return b.error();
    ed.copyConnected(b->bone);
    return {};
  }
  return usage("unknown operation \"" + op + "\"");
}

std::vector<std::string> tokens(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> t;
  for (std::string w; in >> w;) t.push_back(w);
  return t;
}

// An edit script: [op, ...] or {"keep_connected": bool, "ops": [op, ...]}; an op is a string of
// space-separated words or an array of words (for bone names with spaces).
Status runScript(RigEditor& ed, const std::string& path) {
  auto json = readJsonFile(path);
  if (!json) return json.error();
  const Json* ops = &*json;
  if (json->isObject()) {
    if (const Json* k = json->find("keep_connected")) {
      if (!k->isBool()) return makeError(ErrorCode::kSchema, path + ": keep_connected: expected a boolean");
      ed.keep_connected = k->asBool();
    }
    ops = json->find("ops");
    if (!ops) return makeError(ErrorCode::kSchema, path + ": ops: missing (required)");
  }
  if (!ops->isArray()) return makeError(ErrorCode::kSchema, path + ": ops: expected an array of operations");
  for (std::size_t i = 0; i < ops->size(); ++i) {
    const Json& op = ops->items()[i];
    const std::string where = path + ": " + jsonPathIndex("ops", i);
    std::vector<std::string> t;
    if (op.isString()) {
      t = tokens(op.asString());
    } else if (op.isArray()) {
      for (const Json& w : op.items()) {
        if (w.isString()) t.push_back(w.asString());
        else if (w.isInt()) t.push_back(std::to_string(w.asInt()));
        else return makeError(ErrorCode::kSchema, where + ": expected strings and integers");
      }
    } else {
      return makeError(ErrorCode::kSchema, where + ": expected a string or an array of words");
    }
    if (Status st = runOp(ed, t); !st)
      return makeError(st.error().code == ErrorCode::kUsage ? ErrorCode::kSchema : st.error().code, where + ": " + st.error().message);
  }
  return {};
}

int runEditRig(const EditRigArgs& a) {
  const DataSource data = a.data.source();
  auto where = locateRig(data, a.rig);
  if (!where) return reportError(where.error());
  auto rig = loadRig(data, *where);
  if (!rig) return reportError(rig.error());
  auto body = loadAuthorBody(data, a.data.mesh, a.shape);
  if (!body) return reportError(body.error());
  auto ed = RigEditor::fromFit(std::move(*rig), body->info, body->mesh.positions, body->groups);
  if (!ed) return reportError(ed.error());
  ed->keep_connected = !a.no_keep_connected;
  if (!a.script.empty())
    if (Status st = runScript(*ed, a.script); !st) return reportError(st.error());
  for (const auto& op : a.ops)
    if (Status st = runOp(*ed, tokens(op)); !st) return reportError(makeError(st.error().code, "--op \"" + op + "\": " + st.error().message));
  if (Status st = writeOutput(a.out, writeRig(ed->result())); !st) return reportError(st.error());
  return kExitOk;
}

}  // namespace

void addEditRigCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<EditRigArgs>();
  CLI::App* cmd = app.add_subcommand("edit-rig", "Edit a rig's bone-end strategies as MPFB's developer tools do, on the rig fitted to a body");
  cmd->add_option("rig", args->rig, "rig file or name")->required();
  args->data.add(*cmd, false);
  args->shape.add(*cmd);
  cmd->add_option("--op", args->ops, std::string("an operation (repeatable, run in order after --script): ") + kOpHelp)
      ->allow_extra_args(false);  // one quoted operation per --op
  cmd->add_option("--script", args->script, "edit script JSON: [\"OP ARGS\", ...] or {\"keep_connected\": B, \"ops\": [...]}");
  cmd->add_flag("--no-keep-connected", args->no_keep_connected, "edit only the named end, not the ends at the same place or with the same strategy");
  cmd->add_option("--out,-o", args->out, "output rig file ('-' for stdout)")->required();
  cmd->callback([args, &exit_code] { exit_code = runEditRig(*args); });
}

}  // namespace rigfit::cli
