// Macro modifiers: MPFB's interpolation over macro.json and its five target combinations.
#include <cmath>
#include <charconv>

#include "core/name_hint.hpp"
#include "rigfit/shape.hpp"

namespace rigfit {
namespace {

double roundTo4(double v) { return std::nearbyint(v * 10000.0) / 10000.0; }

// (name, weight) pairs for one macro value: for each part with lowest < v < highest,
// t = (v - lowest) / (highest - lowest); low gets round(1 - t, 4), high gets round(t, 4).
std::vector<std::pair<std::string, double>> interpolate(const MacroTable& table, const std::string& macro, double v) {
  std::vector<std::pair<std::string, double>> out;
  auto it = table.macros.find(macro);
  if (it == table.macros.end()) return out;
  for (const auto& part : it->second) {
    if (!(part.lowest < v && v < part.highest)) continue;
    const double t = (v - part.lowest) / (part.highest - part.lowest);
    if (!part.low.empty()) out.emplace_back(part.low, roundTo4(1.0 - t));
    if (!part.high.empty()) out.emplace_back(part.high, roundTo4(t));
  }
  return out;
}

}  // namespace

Expected<MacroSettings> parseMacroSettings(std::string_view text) {
  MacroSettings m;
  if (text == "default" || text.empty()) return m;
  const std::pair<const char*, double MacroSettings::*> fields[] = {
      {"gender", &MacroSettings::gender},     {"age", &MacroSettings::age},
      {"muscle", &MacroSettings::muscle},     {"weight", &MacroSettings::weight},
      {"proportions", &MacroSettings::proportions}, {"height", &MacroSettings::height},
      {"cupsize", &MacroSettings::cupsize},   {"firmness", &MacroSettings::firmness},
      {"african", &MacroSettings::african},   {"asian", &MacroSettings::asian},
      {"caucasian", &MacroSettings::caucasian}};
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return makeError(ErrorCode::kUsage, "macro \"" + std::string(item) + "\": expected NAME=VALUE");
    const std::string_view name = item.substr(0, eq), value = item.substr(eq + 1);
    double v = 0;
    auto r = std::from_chars(value.data(), value.data() + value.size(), v);
    if (r.ec != std::errc() || r.ptr != value.data() + value.size() || !std::isfinite(v) || v < 0.0 || v > 1.0)
      return makeError(ErrorCode::kUsage, "macro \"" + std::string(item) + "\": the value must be a number from 0 to 1");
    bool found = false;
    for (const auto& [n, field] : fields)
      if (name == n) {
        m.*field = v;
        found = true;
      }
    if (!found) {
      std::vector<std::string_view> names;
      for (const auto& f : fields) names.push_back(f.first);
      return makeError(ErrorCode::kUsage, "macro \"" + std::string(item) + "\": unknown macro \"" + std::string(name) + "\"" +
                                              detail::unknownNameHint(name, names));
    }
  }
  return m;
}

Expected<MacroTable> macroTableFromJson(const Json& json, std::string_view label) {
  auto fail = [&](const std::string& path, const std::string& what) {
    return makeError(ErrorCode::kSchema, std::string(label) + ": " + path + ": " + what);
  };
  const Json* macros = json.find("macrotargets");
  if (!macros || !macros->isObject()) return fail("macrotargets", "missing or not an object");
  MacroTable t;
  for (const auto& [name, entry] : macros->members()) {
    const std::string path = jsonPathKey("macrotargets", name) + ".parts";
    const Json* parts = entry.find("parts");
    if (!parts || !parts->isArray()) return fail(path, "missing or not an array");
    for (std::size_t k = 0; k < parts->size(); ++k) {
      const Json& p = parts->items()[k];
      const std::string pp = jsonPathIndex(path, k);
      const Json *lo = p.find("lowest"), *hi = p.find("highest"), *l = p.find("low"), *h = p.find("high");
      if (!lo || !lo->isNumber() || !hi || !hi->isNumber()) return fail(pp, "lowest and highest must be numbers");
      if (!l || !l->isString() || !h || !h->isString()) return fail(pp, "low and high must be strings");
      t.macros[name].push_back({lo->asDouble(), hi->asDouble(), l->asString(), h->asString()});
    }
  }
  return t;
}

std::vector<std::pair<std::string, double>> macroTargets(const MacroTable& table, const MacroSettings& s) {
  using Weights = std::vector<std::pair<std::string, double>>;
  const Weights gender = interpolate(table, "gender", s.gender), age = interpolate(table, "age", s.age),
                muscle = interpolate(table, "muscle", s.muscle), weight = interpolate(table, "weight", s.weight),
                height = interpolate(table, "height", s.height), proportions = interpolate(table, "proportions", s.proportions),
                cup = interpolate(table, "cupsize", s.cupsize), firmness = interpolate(table, "firmness", s.firmness);
  const Weights races{{"african", s.african}, {"asian", s.asian}, {"caucasian", s.caucasian}};
  std::vector<std::pair<std::string, double>> out;
  auto keep = [&](std::string path, double w) {
    if (w > 0.01) out.emplace_back(std::move(path), w);
  };
  // 1. race-gender-age, times the race value.
  for (const auto& [race, rv] : races) {
    if (!(rv > 1e-4)) continue;
    for (const auto& [g, gw] : gender)
      for (const auto& [a, aw] : age) keep("macrodetails/" + race + "-" + g + "-" + a, rv * gw * aw);
  }
  // 2. universal gender-age-muscle-weight, 3. height, 5. proportions (not for babies).
  for (const auto& [g, gw] : gender)
    for (const auto& [a, aw] : age)
      for (const auto& [m, mw] : muscle)
        for (const auto& [w, ww] : weight) keep("macrodetails/universal-" + g + "-" + a + "-" + m + "-" + w, gw * aw * mw * ww);
  for (const auto& [g, gw] : gender)
    for (const auto& [a, aw] : age)
      for (const auto& [m, mw] : muscle)
        for (const auto& [w, ww] : weight)
          for (const auto& [h, hw] : height)
            keep("macrodetails/height/" + g + "-" + a + "-" + m + "-" + w + "-" + h, gw * aw * mw * ww * hw);
  // 4. breast: the female component only, without the gender weight.
  for (const auto& [a, aw] : age) {
    if (a == "baby") continue;
    for (const auto& [m, mw] : muscle)
      for (const auto& [w, ww] : weight)
        for (const auto& [c, cw] : cup)
          for (const auto& [f, fw] : firmness) {
            if (c == "averagecup" && f == "averagefirmness") continue;
            keep("breast/female-" + a + "-" + m + "-" + w + "-" + c + "-" + f, aw * mw * ww * cw * fw);
          }
  }
  for (const auto& [g, gw] : gender)
    for (const auto& [a, aw] : age) {
      if (a == "baby") continue;
      for (const auto& [m, mw] : muscle)
        for (const auto& [w, ww] : weight)
          for (const auto& [p, pw] : proportions)
            keep("macrodetails/proportions/" + g + "-" + a + "-" + m + "-" + w + "-" + p, gw * aw * mw * ww * pw);
    }
  return out;
}

}  // namespace rigfit
