// MPFB's basemesh_vertex_groups.json, read with simdjson's On-Demand parser straight into the
// groups. On any error the whole text is checked first (detail::jsonSyntaxError): a syntax error
// anywhere wins, named by line, column and byte.
#include "rigfit/mesh.hpp"

#include <simdjson.h>

#include "core/json_read.hpp"

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

namespace {

namespace od = simdjson::ondemand;

class GroupsReader {
 public:
  GroupsReader(const detail::PaddedJson& text, std::string_view label, std::size_t vertex_count)
      : errors_(text, label), vertex_count_(vertex_count) {}

  Expected<VertexGroups> run() {
    od::parser parser;
    od::document doc;
    if (auto e = parser.iterate(errors_.text().view()).get(doc)) return syntax("$", e);
    od::object root;
    if (doc.get_object().get(root)) return fail("$", "expected an object of vertex groups");
    VertexGroups groups;
    for (auto field_result : root) {
      od::field field;
      std::string_view name;
      if (auto e = std::move(field_result).get(field)) return syntax("$", e);
      if (auto e = field.unescaped_key().get(name)) return syntax("$", e);
      const std::string path = jsonPathKey("", name);
      od::array list;
      if (field.value().get_array().get(list)) return fail(path, "expected an array of [first, last] ranges");
      std::vector<VertexGroups::Range> ranges;
      std::size_t k = 0;
      for (auto range_result : list) {
        od::value range;
        if (auto e = std::move(range_result).get(range)) return syntax(jsonPathIndex(path, k), e);
        auto r = readRange(range, jsonPathIndex(path, k));
        if (!r) return r.error();
        ranges.push_back(*r);
        ++k;
      }
      if (!groups.index.emplace(std::string(name), static_cast<std::uint32_t>(groups.names.size())).second)
        return fail("$", "duplicate key \"" + std::string(name) + "\"", ErrorCode::kSyntax);
      groups.names.emplace_back(name);
      groups.ranges.push_back(std::move(ranges));
    }
    if (auto e = errors_.trailing(doc)) return *e;
    return groups;
  }

 private:
  // [first, last]: integers, 0 <= first <= last < the vertex count (and 2^32).
  Expected<VertexGroups::Range> readRange(od::value& value, const std::string& path) {
    od::array pair;
    if (value.get_array().get(pair)) return fail(path, "expected [first, last] integers");
    std::int64_t v[2] = {0, 0};
    std::size_t n = 0;
    for (auto item_result : pair) {
      od::value item;
      if (auto e = std::move(item_result).get(item)) return syntax(path, e);
      if (n == 2 || item.get_int64().get(v[n])) return fail(path, "expected [first, last] integers");
      ++n;
    }
    if (n != 2) return fail(path, "expected [first, last] integers");
    const std::int64_t a = v[0], b = v[1];
    if (a < 0 || b < a) return fail(path, "invalid range [" + std::to_string(a) + ", " + std::to_string(b) + "]");
    if (static_cast<std::uint64_t>(b) > 0xFFFFFFFFull)  // a mesh's vertex indices are 32-bit
      return fail(path, "vertex " + std::to_string(b) + " is beyond the 32-bit vertex indices of a mesh", ErrorCode::kRange);
    if (static_cast<std::uint64_t>(b) >= vertex_count_)
      return fail(path, "range [" + std::to_string(a) + ", " + std::to_string(b) + "] reaches beyond the mesh of " + std::to_string(vertex_count_) +
                            " vertices",
                  ErrorCode::kRange);
    return VertexGroups::Range{static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)};
  }

  Error syntax(const std::string& path, simdjson::error_code e) const { return errors_.syntax(path, e); }
  Error fail(const std::string& path, const std::string& what, ErrorCode code = ErrorCode::kSchema) const {
    return errors_.value(path, what, code);
  }

  detail::JsonErrors errors_;
  std::size_t vertex_count_;
};

}  // namespace

Expected<VertexGroups> parseVertexGroups(std::string_view text, std::string_view label, std::size_t vertex_count) {
  const detail::PaddedJson padded(text);
  return GroupsReader(padded, label, vertex_count).run();
}

Expected<VertexGroups> parseVertexGroups(const FileText& text, std::string_view label, std::size_t vertex_count) {
  const detail::PaddedJson padded(text);
  return GroupsReader(padded, label, vertex_count).run();
}

}  // namespace rigfit
