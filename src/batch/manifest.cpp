// The batch manifest: one JSON object per line, validated strictly (unknown keys, wrong types and
// out-of-range values are errors naming the line and the JSON path).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "core/name_hint.hpp"
#include "rigfit/batch.hpp"
#include "rigfit/number_format.hpp"

namespace rigfit {
namespace {

// The shortest text that reads back as the same double, so values pass through text unchanged.
std::string numberText(double v) { return formatPythonFloat(v); }

std::string keyList(std::initializer_list<const char*> keys) {
  std::string out;
  for (const char* k : keys) out += (out.empty() ? "" : ", ") + std::string(k);
  return out;
}

// Checks one line's values; the first problem becomes the line's error.
class Checker {
 public:
  Checker(std::string_view label, std::size_t line) : prefix_(std::string(label) + ": line " + std::to_string(line) + ": ") {}

  Error error(const std::string& path, const std::string& what) const {
    return makeError(ErrorCode::kSchema, prefix_ + path + ": " + what);
  }
  Status object(const Json& v, const std::string& path, std::initializer_list<const char*> keys) const {
    if (!v.isObject()) return error(path, std::string("expected an object, found ") + jsonTypeName(v.type()));
    for (const auto& [k, _] : v.members()) {
      bool known = false;
      for (const char* key : keys) known = known || k == key;
      if (!known) return error(jsonPathKey(path == "$" ? "" : path, k), "unknown key (expected one of: " + keyList(keys) + ")");
    }
    return {};
  }
  Status string(const Json& v, const std::string& path, std::string& out) const {
    if (!v.isString()) return error(path, std::string("expected a string, found ") + jsonTypeName(v.type()));
    if (v.asString().empty()) return error(path, "must not be empty");
    out = v.asString();
    return {};
  }
  Status boolean(const Json& v, const std::string& path, bool& out) const {
    if (!v.isBool()) return error(path, std::string("expected a boolean, found ") + jsonTypeName(v.type()));
    out = v.asBool();
    return {};
  }
  Status number(const Json& v, const std::string& path, double lo, double hi, double& out) const {
    if (!v.isNumber()) return error(path, std::string("expected a number, found ") + jsonTypeName(v.type()));
    out = v.asDouble();
    if (!(out >= lo && out <= hi)) {
      char range[64];
      std::snprintf(range, sizeof range, "must be from %g to %g", lo, hi);
      return error(path, range);
    }
    return {};
  }
  Status choice(const Json& v, const std::string& path, std::initializer_list<int> allowed, int& out) const {
    std::string list;
    bool found = false;
    for (int a : allowed) {
      list += (list.empty() ? "" : " or ") + std::to_string(a);
      found = found || (v.isInt() && v.asInt() == a);
    }
    if (!found) return error(path, "must be " + list);
    out = static_cast<int>(v.asInt());
    return {};
  }

 private:
  std::string prefix_;
};

// A JSON syntax error of one line, placed in the manifest: "LABEL: line N, column C (byte B): what".
Error syntaxError(const Error& e, const ManifestLine& line, std::string_view label) {
  // parseJson with an empty label reports ": line 1, column C (byte B): what" for one-line text.
  std::string msg = e.message;
  std::size_t col = 0, byte = 0;
  int used = 0;
  if (std::sscanf(msg.c_str(), ": line 1, column %zu (byte %zu): %n", &col, &byte, &used) == 2 && used > 0)
    return makeError(ErrorCode::kSyntax, std::string(label) + ": line " + std::to_string(line.number) + ", column " +
                                             std::to_string(col) + " (byte " + std::to_string(line.offset + byte) +
                                             "): " + msg.substr(static_cast<std::size_t>(used)));
  if (msg.rfind(": ", 0) == 0) msg.erase(0, 2);
  return makeError(ErrorCode::kSyntax, std::string(label) + ": line " + std::to_string(line.number) + ": " + msg);
}

bool validName(const std::string& name) {
  if (name.empty() || name.size() > 200 || name[0] == '.' || name[0] == '-') return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

Status parseShape(const Checker& ck, const Json& v, ShapeRequest& shape) {
  RIGFIT_TRY(ck.object(v, "shape", {"macros", "modifiers", "targets", "ground"}));
  if (const Json* m = v.find("macros")) {
    if (!m->isObject()) return ck.error("shape.macros", std::string("expected an object, found ") + jsonTypeName(m->type()));
    std::string spec;
    for (const auto& [k, value] : m->members()) {
      const std::string path = jsonPathKey("shape.macros", k);
      double x = 0;
      RIGFIT_TRY(ck.number(value, path, 0.0, 1.0, x));
      const std::string item = k + "=" + numberText(x);
      if (auto one = parseMacroSettings(item); !one) {
        static constexpr const char* kMacros[] = {"gender", "age", "muscle", "weight", "proportions", "height",
                                                  "cupsize", "firmness", "african", "asian", "caucasian"};
        return ck.error(path, "unknown macro" + detail::unknownNameHint(k, kMacros));
      }
      spec += (spec.empty() ? "" : ",") + item;
    }
    auto settings = parseMacroSettings(spec);
    if (!settings) return ck.error("shape.macros", settings.error().message);
    shape.use_macros = true;
    shape.macros = *settings;
  }
  auto weights = [&](const char* key, double lo, std::vector<std::pair<std::string, double>>& out) -> Status {
    const Json* m = v.find(key);
    if (!m) return {};
    const std::string base = std::string("shape.") + key;
    if (!m->isObject()) return ck.error(base, std::string("expected an object, found ") + jsonTypeName(m->type()));
    for (const auto& [k, value] : m->members()) {
      double x = 0;
      RIGFIT_TRY(ck.number(value, jsonPathKey(base, k), lo, 1.0, x));
      if (k.empty()) return ck.error(base, "an empty name");
      out.emplace_back(k, x);
    }
    return {};
  };
  RIGFIT_TRY(weights("modifiers", -1.0, shape.modifiers));
  RIGFIT_TRY(weights("targets", 0.0, shape.targets));
  if (const Json* g = v.find("ground")) RIGFIT_TRY(ck.boolean(*g, "shape.ground", shape.ground));
  return {};
}

Status parsePose(const Checker& ck, const Json& v, PoseRequest& pose) {
  RIGFIT_TRY(ck.object(v, "pose", {"file", "rotate", "rotate_quat"}));
  if (const Json* f = v.find("file")) RIGFIT_TRY(ck.string(*f, "pose.file", pose.pose_file));
  auto rotations = [&](const char* key, BoneRotation::Kind kind) -> Status {
    const std::size_t count = kind == BoneRotation::Kind::kEulerXyzDegrees ? 3 : 4;
    const Json* m = v.find(key);
    if (!m) return {};
    const std::string base = std::string("pose.") + key;
    if (!m->isObject()) return ck.error(base, std::string("expected an object, found ") + jsonTypeName(m->type()));
    for (const auto& [bone, value] : m->members()) {
      const std::string path = jsonPathKey(base, bone);
      if (!value.isArray() || value.size() != count)
        return ck.error(path, "expected an array of " + std::to_string(count) + " numbers");
      BoneRotation r{.bone = bone, .kind = kind};
      for (std::size_t i = 0; i < count; ++i) {
        const Json& x = value.items()[i];
        if (!x.isNumber() || !std::isfinite(x.asDouble())) return ck.error(jsonPathIndex(path, i), "expected a number");
        r.values[i] = x.asDouble();
      }
      if (kind == BoneRotation::Kind::kQuaternion && r.values == std::array<double, 4>{}) return ck.error(path, "the quaternion has length 0");
      pose.rotations.push_back(std::move(r));
    }
    return {};
  };
  RIGFIT_TRY(rotations("rotate", BoneRotation::Kind::kEulerXyzDegrees));
  RIGFIT_TRY(rotations("rotate_quat", BoneRotation::Kind::kQuaternion));
  return {};
}

Status parseExport(const Checker& ck, const Json& v, CharacterExportOptions& o) {
  RIGFIT_TRY(ck.object(v, "export", {"influences", "quantize", "weight_bits", "keep_helpers", "keep_hidden", "deform_only", "compress", "embed", "morphs",
                                       "base_color", "no_bake"}));
  if (const Json* x = v.find("base_color")) {
    if (!x->isArray() || (x->size() != 3 && x->size() != 4))
      return ck.error("export.base_color", "expected an array of 3 or 4 numbers from 0 to 1");
    for (std::size_t i = 0; i < x->size(); ++i) {
      double c = 0.0;
      RIGFIT_TRY(ck.number(x->items()[i], jsonPathIndex("export.base_color", i), 0.0, 1.0, c));
      o.base_color[i] = static_cast<float>(c);
    }
  }
  if (const Json* x = v.find("morphs")) {
    if (!x->isArray()) return ck.error("export.morphs", std::string("expected an array of \"PATH[=NAME]\" strings, found ") + jsonTypeName(x->type()));
    for (std::size_t i = 0; i < x->size(); ++i) {
      std::string text;
      const std::string path = jsonPathIndex("export.morphs", i);
      RIGFIT_TRY(ck.string(x->items()[i], path, text));
      auto morph = parseMorphSpec(text);
      if (!morph) return ck.error(path, morph.error().message);
      o.morphs.push_back(std::move(*morph));
    }
  }
  if (const Json* x = v.find("influences")) RIGFIT_TRY(ck.choice(*x, "export.influences", {4, 8}, o.influences));
  if (const Json* x = v.find("quantize")) RIGFIT_TRY(ck.boolean(*x, "export.quantize", o.quantize));
  if (const Json* x = v.find("weight_bits")) RIGFIT_TRY(ck.choice(*x, "export.weight_bits", {8, 16}, o.weight_bits));
  if (const Json* x = v.find("keep_helpers")) RIGFIT_TRY(ck.boolean(*x, "export.keep_helpers", o.keep_helpers));
  if (const Json* x = v.find("keep_hidden")) RIGFIT_TRY(ck.boolean(*x, "export.keep_hidden", o.keep_hidden));
  if (const Json* x = v.find("deform_only")) RIGFIT_TRY(ck.boolean(*x, "export.deform_only", o.deform_only));
  if (const Json* x = v.find("no_bake")) RIGFIT_TRY(ck.boolean(*x, "export.no_bake", o.keep_bendy_bones));
  if (const Json* x = v.find("compress")) RIGFIT_TRY(ck.boolean(*x, "export.compress", o.compress));
  if (const Json* x = v.find("embed")) RIGFIT_TRY(ck.boolean(*x, "export.embed", o.embed));
  if (!isGltf(o.format) && (v.contains("influences") || v.contains("quantize") || v.contains("weight_bits") || v.contains("base_color")))
    return ck.error("export", "influences, quantize, weight_bits and base_color are glTF options; format is \"" +
                                  std::string(exportFormatName(o.format)) + "\"");
  if (o.format != ExportFormat::kGltf && v.contains("embed")) return ck.error("export.embed", "only for format \"gltf\"");
  if (o.format != ExportFormat::kG4b && v.contains("compress")) return ck.error("export.compress", "only for format \"g4b\"");
  if (v.contains("weight_bits") && !o.quantize) return ck.error("export.weight_bits", "only with \"quantize\": true");
  return {};
}

}  // namespace

std::vector<ManifestLine> manifestLines(std::string_view text) {
  std::vector<ManifestLine> out;
  std::size_t pos = 0, number = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++number;
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) out.push_back({number, pos, line});
    pos = end + 1;
  }
  return out;
}

Expected<BatchEntry> parseBatchEntry(const ManifestLine& line, std::string_view label) {
  const Checker ck(label, line.number);
  auto json = parseJson(line.text, "");
  if (!json) return syntaxError(json.error(), line, label);
  const Json& v = *json;
  if (!v.isObject()) return ck.error("$", std::string("expected an object, found ") + jsonTypeName(v.type()));
  RIGFIT_TRY(ck.object(v, "$", {"name", "format", "rig", "mesh", "weights", "allow_fallback", "assets", "proxy", "shape", "pose", "export"}));
  BatchEntry e;
  e.line = line.number;
  const Json* name = v.find("name");
  if (!name) return ck.error("name", "missing (required)");
  RIGFIT_TRY(ck.string(*name, "name", e.name));
  if (!validName(e.name))
    return ck.error("name", "\"" + e.name + "\" is not a file name (letters, digits, '.', '_' and '-'; not starting with '.' or '-'; at most 200)");
  const Json* rig = v.find("rig");
  if (!rig) return ck.error("rig", "missing (required)");
  RIGFIT_TRY(ck.string(*rig, "rig", e.character.rig));
  if (const Json* f = v.find("format")) {
    std::string format_name;
    RIGFIT_TRY(ck.string(*f, "format", format_name));
    const auto format = exportFormatFromName(format_name);
    if (!format) return ck.error("format", "\"" + format_name + "\" is not one of glb, gltf, g4tf, g4b");
    e.output.format = *format;
  }
  if (const Json* m = v.find("mesh")) RIGFIT_TRY(ck.string(*m, "mesh", e.character.mesh));
  if (const Json* w = v.find("weights")) {
    RIGFIT_TRY(ck.string(*w, "weights", e.character.weights));
    if (e.character.weights == "none") return ck.error("weights", "an exported character needs weights");
  }
  if (const Json* a = v.find("allow_fallback")) RIGFIT_TRY(ck.boolean(*a, "allow_fallback", e.character.fit.allow_fallback));
  if (const Json* a = v.find("assets")) {
    if (!a->isArray()) return ck.error("assets", std::string("expected an array of asset paths or names, found ") + jsonTypeName(a->type()));
    for (std::size_t i = 0; i < a->size(); ++i) RIGFIT_TRY(ck.string(a->items()[i], jsonPathIndex("assets", i), e.assets.emplace_back()));
  }
  if (const Json* p = v.find("proxy")) RIGFIT_TRY(ck.string(*p, "proxy", e.proxy));
  if (const Json* s = v.find("shape")) RIGFIT_TRY(parseShape(ck, *s, e.character.shape));
  if (const Json* p = v.find("pose")) RIGFIT_TRY(parsePose(ck, *p, e.pose));
  if (const Json* x = v.find("export")) RIGFIT_TRY(parseExport(ck, *x, e.output));
  if (e.output.format == ExportFormat::kGltf && !e.output.embed) e.output.bin_name = e.name + ".bin";
  return e;
}

Expected<Shard> parseShard(std::string_view text) {
  const std::size_t slash = text.find('/');
  Shard s;
  auto whole = [](std::string_view t, std::size_t& out) {
    auto r = std::from_chars(t.data(), t.data() + t.size(), out);
    return !t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size();
  };
  if (slash == std::string_view::npos || !whole(text.substr(0, slash), s.index) || !whole(text.substr(slash + 1), s.count) ||
      s.count == 0 || s.index >= s.count)
    return makeError(ErrorCode::kUsage, "shard \"" + std::string(text) + "\": expected I/N with 0 <= I < N (e.g. 0/4)");
  return s;
}

}  // namespace rigfit
