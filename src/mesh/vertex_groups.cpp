#include "rigfit/mesh.hpp"

#include <simdjson.h>

namespace rigfit {

const std::vector<VertexGroups::Range>* VertexGroups::find(std::string_view name) const {
  auto it = index.find(std::string(name));
  return it == index.end() ? nullptr : &ranges[it->second];
}

std::size_t VertexGroups::memberCount(std::size_t group) const {
  std::size_t n = 0;
  for (const auto& r : ranges[group]) n += r.last - r.first + 1;
  return n;
}

Expected<VertexGroups> vertexGroupsFromJson(const Json& json, std::string_view label, std::size_t vertex_count) {
  auto fail = [&](const std::string& path, const std::string& what) {
    return makeError(ErrorCode::kSchema, std::string(label) + ": " + path + ": " + what);
  };
  if (!json.isObject()) return fail("$", "expected an object of vertex groups");
  VertexGroups groups;
  for (const auto& [name, value] : json.members()) {
    const std::string path = jsonPathKey("", name);
    if (!value.isArray()) return fail(path, "expected an array of [first, last] ranges");
    std::vector<VertexGroups::Range> ranges;
    ranges.reserve(value.size());
    for (std::size_t k = 0; k < value.size(); ++k) {
      const Json& r = value.items()[k];
      const std::string rp = jsonPathIndex(path, k);
      if (!r.isArray() || r.size() != 2 || !r.items()[0].isInt() || !r.items()[1].isInt())
        return fail(rp, "expected [first, last] integers");
      const std::int64_t a = r.items()[0].asInt(), b = r.items()[1].asInt();
      if (a < 0 || b < a) return fail(rp, "invalid range [" + std::to_string(a) + ", " + std::to_string(b) + "]");
      if (static_cast<std::uint64_t>(b) >= vertex_count)
        return makeError(ErrorCode::kRange, std::string(label) + ": " + rp + ": vertex " + std::to_string(b) +
                                                " is beyond the mesh of " + std::to_string(vertex_count) + " vertices");
      ranges.push_back({static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)});
    }
    groups.index.emplace(name, static_cast<std::uint32_t>(groups.names.size()));
    groups.names.push_back(name);
    groups.ranges.push_back(std::move(ranges));
  }
  return groups;
}

Expected<VertexGroups> parseVertexGroups(std::string_view text, std::string_view label, std::size_t vertex_count) {
  // Straight from simdjson's document, without building a Json tree; anything unexpected
  // (a duplicate name, a value that is not a [first, last] pair of integers in range, bad
  // JSON) is left to parseJson and vertexGroupsFromJson, whose errors name the place.
  auto exact = [&]() -> Expected<VertexGroups> {
    auto json = parseJson(text, label);
    if (!json) return json.error();
    return vertexGroupsFromJson(*json, label, vertex_count);
  };
  thread_local simdjson::dom::parser parser;
  simdjson::dom::object root;
  if (parser.parse(text.data(), text.size(), true).get(root)) return exact();
  VertexGroups groups;
  for (simdjson::dom::key_value_pair kv : root) {
    simdjson::dom::array list;
    if (kv.value.get(list)) return exact();
    std::vector<VertexGroups::Range> ranges;
    ranges.reserve(list.size());
    for (simdjson::dom::element r : list) {
      simdjson::dom::array pair;
      if (r.get(pair) || pair.size() != 2) return exact();
      std::int64_t a = 0, b = 0;
      if (pair.at(0).get(a) || pair.at(1).get(b) || a < 0 || b < a || static_cast<std::uint64_t>(b) >= vertex_count) return exact();
      ranges.push_back({static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)});
    }
    std::string name(kv.key);
    if (!groups.index.emplace(name, static_cast<std::uint32_t>(groups.names.size())).second) return exact();
    groups.names.push_back(std::move(name));
    groups.ranges.push_back(std::move(ranges));
  }
  return groups;
}

}  // namespace rigfit
