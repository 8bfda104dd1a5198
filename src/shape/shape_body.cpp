// Mixing targets into a body as Blender mixes MPFB's shape keys, modifiers, grounding.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/name_hint.hpp"
#include "rigfit/shape.hpp"

namespace rigfit {

Expected<std::vector<std::pair<std::string, double>>> resolveModifiers(const Json& target_json,
                                                                       std::span<const std::pair<std::string, double>> modifiers) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [spec, value] : modifiers) {
    const std::size_t slash = spec.find('/');
    if (slash == std::string::npos)
      return makeError(ErrorCode::kUsage, "modifier \"" + spec + "\": expected GROUP/NAME=VALUE (e.g. nose/nose-scale-horiz-decr-incr=0.5)");
    const std::string group = spec.substr(0, slash), name = spec.substr(slash + 1);
    const Json* g = target_json.find(group);
    const Json* cats = g ? g->find("categories") : nullptr;
    if (!cats || !cats->isArray()) {
      std::vector<std::string_view> groups;
      if (target_json.isObject())
        for (const auto& [key, entry] : target_json.members())
          if (const Json* c = entry.find("categories"); c && c->isArray()) groups.push_back(key);
      return makeError(ErrorCode::kUsage, "modifier \"" + spec + "\": no modifier group \"" + group + "\"" + detail::unknownNameHint(group, groups));
    }
    bool done = false;
    for (const Json& c : cats->items()) {
      const Json* cname = c.find("name");
      const Json* opp = c.find("opposites");
      const Json* targets = c.find("targets");
      if (!cname || !cname->isString()) continue;
      const bool sided = c.find("has_left_and_right") && c.find("has_left_and_right")->isBool() && c.find("has_left_and_right")->asBool();
      std::string side;
      if (sided && (name == "l-" + cname->asString() || name == "r-" + cname->asString())) side = name[0] == 'l' ? "left" : "right";
      else if (name != cname->asString()) {
        // A plain target of this category.
        if (targets && targets->isArray())
          for (const Json& t : targets->items())
            if (t.isString() && t.asString() == name && !done) {
              out.emplace_back(group + "/" + name, value);
              done = true;
            }
        continue;
      }
      if (!opp || !opp->isObject()) continue;
      auto pick = [&](const std::string& key) -> std::string {
        const Json* t = opp->find(key);
        return t && t->isString() ? t->asString() : std::string();
      };
      const std::string suffix = side.empty() ? "unsided" : side;
      const std::string target = value >= 0 ? pick("positive-" + suffix) : pick("negative-" + suffix);
      if (target.empty()) {
        // Single-target categories: the one target at |value| (MPFB clamps negatives to 0).
        if (targets && targets->isArray() && targets->size() == 1 && targets->items()[0].isString())
          out.emplace_back(group + "/" + targets->items()[0].asString(), std::max(value, 0.0));
        done = true;
        break;
      }
      out.emplace_back(group + "/" + target, std::abs(value));
      done = true;
      break;
    }
    if (!done) {
      // The group's modifiers (l-/r- forms of sided ones) and targets.
      std::vector<std::string> names;
      for (const Json& c : cats->items()) {
        const Json* cname = c.find("name");
        if (!cname || !cname->isString()) continue;
        names.push_back(cname->asString());
        if (const Json* sided = c.find("has_left_and_right"); sided && sided->isBool() && sided->asBool()) {
          names.push_back("l-" + cname->asString());
          names.push_back("r-" + cname->asString());
        }
        if (const Json* targets = c.find("targets"); targets && targets->isArray())
          for (const Json& t : targets->items())
            if (t.isString()) names.push_back(t.asString());
      }
      return makeError(ErrorCode::kUsage, "modifier \"" + spec + "\": no modifier or target \"" + name + "\" in group \"" + group + "\"" +
                                              detail::unknownNameHint(name, names));
    }
  }
  return out;
}

Expected<std::shared_ptr<const Target>> TargetCache::get(const std::string& path, std::size_t vertex_count) {
  std::string rel = "targets/" + path + ".target.gz";
  if (!data_.exists(rel)) rel = "targets/" + path + ".target";
  if (!data_.exists(rel)) return makeError(ErrorCode::kIo, data_.label("targets/" + path + ".target.gz") + ": no such target");
  return load(DataFile{true, rel, data_.label(rel)}, vertex_count);
}

Expected<std::shared_ptr<const Target>> TargetCache::find(const std::string& spec, std::size_t vertex_count, DataFile* file) {
  DataFile where;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = found_.find(spec); it != found_.end()) where = it->second;
  }
  if (where.path.empty()) {
    auto resolved = resolveDataFile(data_, DataFileKind::kTarget, spec);
    if (!resolved) return resolved.error();
    where = std::move(*resolved);
    std::lock_guard<std::mutex> lock(mutex_);
    found_.emplace(spec, where);
  }
  if (file) *file = where;
  return load(where, vertex_count);
}

Expected<std::shared_ptr<const Target>> TargetCache::load(const DataFile& file, std::size_t vertex_count) {
  const std::string key = (file.in_source ? "source:" : "disk:") + file.path;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = targets_.find(key);
    if (it != targets_.end()) return it->second;
  }
  auto bytes = viewDataFile(data_, file);
  if (!bytes) return bytes.error();
  auto t = decodeTarget(bytes->text(), file.label, vertex_count);
  if (!t) return t.error();
  auto shared = std::make_shared<const Target>(std::move(*t));
  std::lock_guard<std::mutex> lock(mutex_);
  return targets_.emplace(key, std::move(shared)).first->second;
}

Expected<std::shared_ptr<const MacroTable>> TargetCache::macroTable() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (macro_) return macro_;
  const char* rel = "targets/macrodetails/macro.json";
  auto text = data_.read(rel);
  if (!text) return text.error();
  auto json = parseJson(*text, data_.label(rel));
  if (!json) return json.error();
  auto table = macroTableFromJson(*json, data_.label(rel));
  if (!table) return table.error();
  macro_ = std::make_shared<const MacroTable>(std::move(*table));
  return macro_;
}

Expected<std::shared_ptr<const Json>> TargetCache::targetJson() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (target_json_) return target_json_;
  const char* rel = "targets/target.json";
  auto text = data_.read(rel);
  if (!text) return text.error();
  auto json = parseJson(*text, data_.label(rel));
  if (!json) return json.error();
  target_json_ = std::make_shared<const Json>(std::move(*json));
  return target_json_;
}

float lowestBodyZ(std::span<const float> positions) {
  constexpr std::size_t kHm08Body = 13380;  // MPFB's "body vertex" test: index < 13380
  const std::size_t n = positions.size() / 3;
  const std::size_t body = n >= kHm08Body ? kHm08Body : n;
  float lowest = std::numeric_limits<float>::max();
  for (std::size_t v = 0; v < body; ++v) lowest = std::min(lowest, positions[3 * v + 2]);
  return lowest;
}

Status shapeBody(TargetCache& cache, const ShapeRequest& request, std::span<float> positions,
                 std::vector<std::pair<std::string, double>>* applied) {
  const std::size_t n = positions.size() / 3;
  std::vector<std::pair<std::string, double>> list;
  if (request.use_macros) {
    auto table = cache.macroTable();
    if (!table) return table.error();
    list = macroTargets(**table, request.macros);
  }
  const std::size_t macro_count = list.size();
  if (!request.modifiers.empty()) {
    auto tj = cache.targetJson();
    if (!tj) return tj.error();
    auto resolved = resolveModifiers(**tj, request.modifiers);
    if (!resolved) return resolved.error();
    list.insert(list.end(), resolved->begin(), resolved->end());
  }
  const std::size_t named_count = list.size();
  list.insert(list.end(), request.targets.begin(), request.targets.end());
  // Relative shape keys over the basis: key = float(basis + offset) as MPFB stores it; the mix
  // adds weight * (key - basis) in float, with slider values clamped to [0, 1].
  const std::vector<float> basis(positions.begin(), positions.end());
  for (std::size_t item = 0; item < list.size(); ++item) {
    const auto& [path, w] = list[item];
    // The tables' targets are the data's own names; the request's are named as users name files.
    DataFile file;
    auto target = item < named_count ? cache.get(path, n) : cache.find(path, n, &file);
    if (!target) {
      // A missing file that the user did not name: say which table named it.
      if (item < macro_count)
        return makeError(target.error().code, target.error().message + " (a target of the macro settings, named by " +
                                                  cache.data().label("targets/macrodetails/macro.json") + ")");
      if (item < named_count)
        return makeError(target.error().code, target.error().message + " (named by a modifier in " +
                                                  cache.data().label("targets/target.json") + ")");
      return target.error();
    }
    const float wf = static_cast<float>(std::clamp(w, 0.0, 1.0));
    if (wf == 0.0f) continue;
    const Target& t = **target;
    for (std::size_t k = 0; k < t.vertices.size(); ++k) {
      const std::size_t v = t.vertices[k];
      for (int c = 0; c < 3; ++c) {
        const std::size_t i = 3 * v + static_cast<std::size_t>(c);
        const float key = static_cast<float>(static_cast<double>(basis[i]) + t.offsets[3 * k + static_cast<std::size_t>(c)]);
        positions[i] += wf * (key - basis[i]);
      }
    }
    // Offsets each within float range can still add up beyond it: name the target that did.
    for (const std::uint32_t v : t.vertices)
      if (!std::isfinite(positions[3 * v]) || !std::isfinite(positions[3 * v + 1]) || !std::isfinite(positions[3 * v + 2]))
        return makeError(ErrorCode::kRange, (item < named_count ? cache.data().label("targets/" + path) : file.label) + ": vertex " +
                                                std::to_string(v) + ": the shaped position overflows single precision");
  }
  if (request.ground) {
    // MPFB lifts by |lowest| (so a body already above 0 moves further up).
    const float lift = std::abs(lowestBodyZ(positions));
    for (std::size_t v = 0; v < n; ++v) positions[3 * v + 2] += lift;
    for (std::size_t v = 0; v < n; ++v)
      if (!std::isfinite(positions[3 * v + 2]))
        return makeError(ErrorCode::kRange, "ground: vertex " + std::to_string(v) + ": the lifted position overflows single precision");
  }
  if (applied) *applied = std::move(list);
  return {};
}

}  // namespace rigfit
