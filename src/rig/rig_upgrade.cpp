// Rig files version 100 -> 110: Blender's 32 bone layers become named bone collections
// (docs/mpfb-behaviour.md §2.4). Operates on the whole document so that every key survives.
#include <algorithm>
#include <map>
#include <set>

#include "rigfit/rig.hpp"

namespace rigfit {
namespace {

std::string strip(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

// "Arm.L (IK)" -> "Arm.L": a trailing " (...)" removed.
std::string stem(const std::string& name) {
  if (!name.empty() && name.back() == ')') {
    const std::size_t open = name.rfind(" (");
    if (open != std::string::npos) return name.substr(0, open);
  }
  return name;
}

struct UiLayer {
  std::string raw;   // name as stored
  std::string name;  // stripped
  std::int64_t row = 0;
  Json selset, group;
};

// Rigify's display-name resolver for the old layer UI: a name that is repeated, or that starts
// with "(", is prefixed by the stem of a neighbouring name that does not need renaming.
std::vector<std::string> resolveNames(const std::vector<UiLayer>& layers) {
  std::map<std::string, int> counts;
  for (const auto& l : layers)
    if (!l.name.empty()) ++counts[l.name];
  auto needs = [&](const UiLayer& l) { return !l.name.empty() && (counts[l.name] > 1 || l.name[0] == '('); };
  // Rows: entries with names, grouped by row number, in index order.
  std::map<std::int64_t, std::vector<std::size_t>> rows;
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (!layers[i].name.empty()) rows[layers[i].row].push_back(i);
  std::vector<std::string> out(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    out[i] = layers[i].name;
    if (!needs(layers[i])) continue;
    const auto& row = rows[layers[i].row];
    const std::size_t col = static_cast<std::size_t>(std::find(row.begin(), row.end(), i) - row.begin());
    std::string prefix;
    for (std::size_t c = col; c-- > 0;)
      if (!needs(layers[row[c]])) { prefix = stem(layers[row[c]].name); break; }
    if (prefix.empty()) {
      auto it = rows.find(layers[i].row);
      while (it != rows.begin()) {
        --it;
        if (it->second.size() != row.size()) break;
        const UiLayer& above = layers[it->second[col]];
        if (!needs(above)) { prefix = stem(above.name); break; }
      }
    }
    if (!prefix.empty()) out[i] = prefix + " " + layers[i].name;
  }
  return out;
}

// Rigify types whose layer parameters had an implicit default ("only bit 1").
const std::map<std::string, std::vector<std::string>>& implicitLayerStems() {
  static const std::map<std::string, std::vector<std::string>> kStems{
      {"faces.super_face", {"primary", "secondary"}}, {"limbs.arm", {"fk", "tweak"}},
      {"limbs.front_paw", {"fk", "tweak"}},            {"limbs.leg", {"fk", "tweak"}},
      {"limbs.paw", {"fk", "tweak"}},                  {"limbs.rear_paw", {"fk", "tweak"}},
      {"limbs.simple_tentacle", {"tweak"}},            {"limbs.super_finger", {"tweak"}},
      {"limbs.super_limb", {"fk", "tweak"}},           {"spines.basic_spine", {"fk", "tweak"}}};
  return kStems;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

void upgradeRigJson100To110(Json& doc) {
  std::vector<std::string> names(32);
  for (int i = 0; i < 32; ++i) names[static_cast<std::size_t>(i)] = "Layer " + std::to_string(i + 1);
  std::set<int> used;

  Json* ui = doc.find("rigify_ui");
  if (ui && ui->isObject()) {
    std::vector<UiLayer> layers;
    if (const Json* rl = ui->find("rigify_layers"); rl && rl->isArray()) {
      for (const Json& l : rl->items()) {
        UiLayer u;
        if (const Json* n = l.find("name"); n && n->isString()) u.raw = n->asString();
        u.name = strip(u.raw);
        if (const Json* r = l.find("row"); r && r->isNumber()) u.row = r->asInt();
        if (const Json* s = l.find("selset")) u.selset = *s;
        if (const Json* g = l.find("group")) u.group = *g;
        layers.push_back(std::move(u));
      }
    }
    const std::vector<std::string> resolved = resolveNames(layers);
    for (std::size_t i = 0; i < layers.size() && i < 32; ++i)
      if (!resolved[i].empty()) names[i] = resolved[i];
    names[28] = "Root";
    names[29] = "DEF";
    names[30] = "MCH";
    names[31] = "ORG";
    Json collections = Json::object();
    for (std::size_t i = 0; i < layers.size() && i <= 28; ++i) {
      if (layers[i].name.empty()) continue;
      used.insert(static_cast<int>(i));
      Json c = Json::object();
      c.set("is_visible", true);
      c.set("ui_row", layers[i].row);
      c.set("ui_title", layers[i].raw == names[i] ? std::string() : layers[i].raw);
      c.set("sel_set", layers[i].selset);
      c.set("color_set_id", layers[i].group);
      collections.set(names[i], std::move(c));
    }
    if (Json* root = collections.find("Root")) {
      std::int64_t max_row = 0;
      for (const auto& [n, c] : collections.members())
        if (n != "Root") max_row = std::max(max_row, c.find("ui_row")->asInt());
      root->set("ui_row", max_row > INT64_MAX - 3 ? INT64_MAX : max_row + 3);  // (a row near 2^63 saturates)
    }
    ui->set("collections", std::move(collections));
    ui->erase("layers");
    ui->erase("rigify_layers");
  } else {
    names[0] = "Bones";
  }

  auto bitsOf = [](const Json& list) {
    std::vector<int> bits;
    for (std::size_t k = 0; k < list.size() && k < 32; ++k)
      if (list.items()[k].isBool() && list.items()[k].asBool()) bits.push_back(static_cast<int>(k));
    return bits;
  };

  for (auto& [bone_name, bone] : doc.find("bones")->members()) {
    if (Json* layers = bone.find("layers"); layers && layers->isArray() && layers->size() > 0) {
      std::vector<std::string> cols;
      for (int b : bitsOf(*layers)) {
        cols.push_back(names[static_cast<std::size_t>(b)]);
        used.insert(b);
      }
      std::sort(cols.begin(), cols.end());
      Json arr = Json::array();
      for (auto& c : cols) arr.push(std::move(c));
      bone.set("collections", std::move(arr));
      bone.erase("layers");
    }
    Json* rigify = bone.find("rigify");
    if (!rigify || !rigify->isObject()) continue;
    Json* params = rigify->find("rigify_parameters");
    if (!params || !params->isObject() || params->size() == 0) continue;
    if (const Json* type = rigify->find("rigify_type"); type && type->isString()) {
      auto it = implicitLayerStems().find(type->asString());
      if (it != implicitLayerStems().end()) {
        for (const std::string& s : it->second) {
          const Json* extra = params->find(s + "_layers_extra");
          const bool extra_on = !extra || (extra->isBool() && extra->asBool());
          if (extra_on && !params->contains(s + "_layers")) {
            Json bits = Json::array();
            for (int k = 0; k < 32; ++k) bits.push(k == 1);
            params->set(s + "_layers", std::move(bits));
          }
        }
      }
    }
    std::vector<std::string> layer_keys;
    for (const auto& [k, v] : params->members())
      if (endsWith(k, "_layers") && v.isArray() && v.size() == 32) layer_keys.push_back(k);
    for (const std::string& k : layer_keys) {
      Json refs = Json::array();
      for (int b : bitsOf(*params->find(k))) {
        refs.push(names[static_cast<std::size_t>(b)]);
        used.insert(b);
      }
      params->erase(k);
      params->set(k.substr(0, k.size() - 7) + "_coll_refs", std::move(refs));
    }
  }

  if (!used.empty()) {
    Json cols = Json::array();
    for (int i : used) cols.push(names[static_cast<std::size_t>(i)]);
    doc.set("collections", std::move(cols));
  }
  doc.set("version", 110);
}

}  // namespace rigfit
