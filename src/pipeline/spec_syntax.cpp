// The string forms the command line and the batch manifest share, parsed into typed options.
#include <charconv>
#include <cmath>
#include <vector>

#include "rigfit/pipeline_options.hpp"

namespace rigfit {
namespace {

constexpr std::array<std::string_view, 4> kFormatNames = {"glb", "gltf", "g4tf", "g4b"};

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view exportFormatName(ExportFormat format) { return kFormatNames[static_cast<std::size_t>(format)]; }

std::optional<ExportFormat> exportFormatFromName(std::string_view name) {
  for (std::size_t i = 0; i < kFormatNames.size(); ++i)
    if (name == kFormatNames[i]) return static_cast<ExportFormat>(i);
  return std::nullopt;
}

std::optional<ExportFormat> exportFormatFromExtension(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  return exportFormatFromName(path.substr(dot + 1));
}

Expected<BoneRotation> parseBoneRotation(std::string_view text, BoneRotation::Kind kind) {
  const bool euler = kind == BoneRotation::Kind::kEulerXyzDegrees;
  const std::size_t count = euler ? 3 : 4;
  const char* form = euler ? "RX,RY,RZ (degrees, XYZ Euler)" : "W,X,Y,Z (quaternion)";
  const std::string prefix = "rotation " + quoted(text) + ": ";
  auto usage = [&](const std::string& what) { return makeError(ErrorCode::kUsage, prefix + what); };
  const std::size_t eq = text.rfind('=');
  const std::string_view name = eq == std::string_view::npos ? std::string_view() : trim(text.substr(0, eq));
  if (eq == std::string_view::npos || name.empty()) return usage(std::string("expected BONE=") + form);
  std::string_view rest = trim(text.substr(eq + 1));
  std::vector<std::string_view> items;
  while (!rest.empty() || !items.empty()) {
    const std::size_t comma = rest.find(',');
    items.push_back(trim(rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (items.size() != count)
    return usage("expected " + std::to_string(count) + " comma-separated numbers " + form + " after '=', found " +
                 std::to_string(items.size()));
  BoneRotation out{.bone = std::string(name), .kind = kind};
  for (std::size_t k = 0; k < count; ++k) {
    std::string_view t = items[k];
    if (t.size() > 1 && t.front() == '+' && t[1] != '-') t.remove_prefix(1);
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size()) return usage(quoted(items[k]) + " is not a number");
    if (!std::isfinite(v)) return usage(quoted(items[k]) + " is not a finite number");
    out.values[k] = v;
  }
  if (!euler && out.values == std::array<double, 4>{}) return usage("the quaternion has length 0");
  return out;
}

Expected<MorphSpec> parseMorphSpec(std::string_view text) {
  if (!text.empty() && text.back() == '/') return MorphSpec{.path = std::string(text.substr(0, text.size() - 1)), .whole_folder = true};
  const std::size_t eq = text.find('=');
  MorphSpec m;
  m.path = std::string(text.substr(0, eq));
  if (eq == std::string_view::npos) {
    m.name = m.path.substr(m.path.rfind('/') + 1);
    for (std::string_view ext : {".target.gz", ".target"})
      if (m.name.size() > ext.size() && m.name.ends_with(ext)) {
        m.name.resize(m.name.size() - ext.size());
        break;
      }
  } else {
    m.name = std::string(text.substr(eq + 1));
  }
  if (m.path.empty() || m.name.empty())
    return makeError(ErrorCode::kUsage, "morph " + quoted(text) + ": expected PATH or PATH=NAME (PATH a target file, or relative to targets/)");
  return m;
}

Expected<std::array<float, 4>> parseBaseColor(std::string_view text) {
  std::array<float, 4> c = {0.0f, 0.0f, 0.0f, 1.0f};
  std::size_t count = 0, pos = 0;
  const auto bad = [&] {
    return makeError(ErrorCode::kUsage, "colour " + quoted(text) + ": expected R,G,B or R,G,B,A, each from 0 to 1");
  };
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(pos, comma - pos);
    pos = comma + 1;
    float v = 0.0f;
    auto r = std::from_chars(item.data(), item.data() + item.size(), v);
    if (count == 4 || item.empty() || r.ec != std::errc() || r.ptr != item.data() + item.size() || !(v >= 0.0f && v <= 1.0f)) return bad();
    c[count++] = v;
  }
  if (count < 3) return bad();
  return c;
}

Error replaceSubject(const Error& error, std::string_view subject) {
  const std::size_t space = error.message.find(' ');
  Error out = error;
  out.message = std::string(subject) + (space == std::string::npos ? std::string() : error.message.substr(space));
  return out;
}

}  // namespace rigfit
