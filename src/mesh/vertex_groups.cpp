#include "rigfit/mesh.hpp"

#include "core/json_scan.hpp"

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
      if (static_cast<std::uint64_t>(b) > 0xFFFFFFFFull)  // a mesh's vertex indices are 32-bit
        return makeError(ErrorCode::kRange, std::string(label) + ": " + rp + ": vertex " + std::to_string(b) +
                                                " is beyond the 32-bit vertex indices of a mesh");
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

namespace {

// The usual file straight from its bytes with rigfit's JSON scanner: no tree and no buffers
// beyond the groups themselves (simdjson's document would take 12 times the text). False for
// anything else (a duplicate name, a range that is not [first, last] integers in order and in
// range, an escape in a name, bad JSON); the general reader then names the problem.
bool scanVertexGroups(const char* data, std::size_t size, std::size_t vertex_count, VertexGroups& groups) {
  detail::Scanner s;
  if (!s.open(data, size) || !s.eat('{')) return false;
  int more = s.first('}') ? 1 : 0;
  while (more == 1) {
    std::string_view name;
    if (!s.key(name) || !s.eat('[')) return false;
    std::vector<VertexGroups::Range> ranges;
    int item = s.first(']') ? 1 : 0;
    while (item == 1) {
      detail::NumberToken a, b;
      if (!s.eat('[') || !s.number(a) || s.next(']') != 1 || !s.number(b) || s.next(']') != 0) return false;
      if (!a.integer || !b.integer || a.negative || b.negative || b.magnitude < a.magnitude || b.magnitude >= vertex_count ||
          b.magnitude > 0xFFFFFFFFull)
        return false;
      ranges.push_back({static_cast<std::uint32_t>(a.magnitude), static_cast<std::uint32_t>(b.magnitude)});
      item = s.next(']');
    }
    if (item != 0 || !groups.index.emplace(std::string(name), static_cast<std::uint32_t>(groups.names.size())).second)
      return false;
    groups.names.emplace_back(name);
    groups.ranges.push_back(std::move(ranges));
    more = s.next('}');
  }
  return more == 0 && s.atEnd();
}

}  // namespace

Expected<VertexGroups> parseVertexGroups(std::string_view text, std::string_view label, std::size_t vertex_count) {
  VertexGroups groups;
  bool fast;
  if (detail::paddingReadable(text.data(), text.size())) {
    fast = scanVertexGroups(text.data(), text.size(), vertex_count, groups);
  } else {
    std::string padded;
    padded.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    padded.assign(text);
    fast = scanVertexGroups(padded.data(), padded.size(), vertex_count, groups);
  }
  if (fast) return groups;
  auto json = parseJson(text, label);
  if (!json) return json.error();
  return vertexGroupsFromJson(*json, label, vertex_count);
}

}  // namespace rigfit
