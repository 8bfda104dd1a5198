// Reading MPFB weights files (weights.*.json) with simdjson's On-Demand parser: the pairs go
// straight into the group arrays, the few header keys through rigfit's ordered Json. On-Demand
// checks only what it reads, when it reads it: on any error, the whole text is checked first
// (detail::jsonSyntaxError), so that a syntax error anywhere wins, named by line, column and byte.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <simdjson.h>

#include "core/json_read.hpp"
#include "rigfit/weights.hpp"
#include "skin/group_path.hpp"

namespace rigfit {
namespace {

namespace od = simdjson::ondemand;
using detail::groupPath;
using simdjson::error_code;

// Integer weights are stored as doubles: below 2^53 they write back exactly.
constexpr std::uint64_t kMaxIntWeight = std::uint64_t{1} << 53;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A value's text for messages, shortened.
std::string shown(std::string_view raw) {
  raw = trimmed(raw);
  if (raw.size() > 40) return std::string(raw.substr(0, 37)) + "...";
  return std::string(raw);
}

const char* typeName(od::json_type t) {
  switch (t) {
    case od::json_type::array: return "an array";
    case od::json_type::object: return "an object";
    case od::json_type::number: return "a number";
    case od::json_type::string: return "a string";
    case od::json_type::boolean: return "a boolean";
    case od::json_type::null: return "null";
  }
  return "?";
}

// simdjson 3.0.1's get_double misreads "0." followed by more than 19 digits (its overflow test
// looks at the first non-zero digit's position only; simdjson issue 2093: 0.0548587265818475389167
// reads as 0.0013631687680898392). `token` is a number simdjson checked and read as `w`, followed
// by whitespace: when it is "0." (or "-0.") and 19 more characters or longer, std::from_chars
// reads it again, correctly rounded. (A value beyond double's range keeps simdjson's reading.)
double longNumber(std::string_view token, double w) {
  const std::size_t sign = token[0] == '-';
  if (token.size() < sign + 21 || token[sign] != '0' || token[sign + 1] != '.' || token[sign + 20] < '0' || token[sign + 20] > '9') return w;
  double exact = 0.0;
  const auto r = std::from_chars(token.data(), token.data() + token.size(), exact);
  return r.ec == std::errc() ? exact : w;
}

std::string pairPath(std::string_view group, std::size_t index) {
  return groupPath(group) + "[" + std::to_string(index) + "]";
}

class Reader {
 public:
  Reader(const detail::PaddedJson& text, std::string_view label, std::size_t vertex_count)
      : errors_(text, label), vertex_count_(vertex_count) {}

  Expected<WeightsFile> run() {
    od::parser parser;
    od::document doc;
    if (auto e = parser.iterate(errors_.text().view()).get(doc)) return syntax("$", e);
    od::object root;
    if (auto e = doc.get_object().get(root)) {
      od::json_type t{};
      if (e == simdjson::INCORRECT_TYPE && !doc.type().get(t)) return schema("$", std::string("expected an object, got ") + typeName(t));
      return syntax("$", e);
    }
    WeightsFile file;
    file.label = std::string(errors_.label());
    bool have_weights = false;
    std::vector<std::string_view> seen;
    for (auto field_result : root) {
      od::field field;
      if (auto e = std::move(field_result).get(field)) return syntax("$", e);
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) return syntax("$", e);
      for (std::string_view k : seen)
        if (k == key) return schema("$", "duplicate key \"" + std::string(key) + "\"");
      seen.push_back(key);
      od::value value = field.value();
      if (key == "weights") {
        have_weights = true;
        if (auto err = groups(value, file)) return *err;
      } else {
        auto j = headerValue(value, key);
        if (!j) return j.error();
        file.header.members().emplace_back(std::string(key), std::move(*j));
      }
    }
    if (auto e = errors_.trailing(doc)) return *e;
    if (!have_weights) return schema("$", "missing key \"weights\"");
    const std::string_view text = errors_.text().text();
    file.final_newline = !text.empty() && text.back() == '\n';
    return file;
  }

 private:
  Error syntax(const std::string& path, error_code e) const { return errors_.syntax(path, e); }
  Error schema(const std::string& path, const std::string& what, ErrorCode code = ErrorCode::kSchema) const {
    return errors_.value(path, what, code);
  }

  Expected<Json> headerValue(od::value& value, std::string_view key) {
    const std::string path = jsonPathKey("", key);
    od::json_type t{};
    if (auto e = value.type().get(t)) return syntax(path, e);
    std::string_view raw;
    if (t == od::json_type::array) {
      od::array a;
      if (auto e = value.get_array().get(a)) return syntax(path, e);
      if (auto e = a.raw_json().get(raw)) return syntax(path, e);
    } else if (t == od::json_type::object) {
      od::object o;
      if (auto e = value.get_object().get(o)) return syntax(path, e);
      if (auto e = o.raw_json().get(raw)) return syntax(path, e);
    } else {
      raw = value.raw_json_token();  // skipped by the object iteration afterwards
    }
    const std::string_view label = errors_.label();
    auto j = parseJson(trimmed(raw), label);
    if (!j) {
      // A duplicate key inside the value (unless the text is not JSON): "LABEL: $: what" -> "LABEL: key: what".
      std::string what = j.error().message.substr(label.size() + 2);
      if (what.rfind("$: ", 0) == 0) what.erase(0, 3);
      return schema(path, what, j.error().code);
    }
    return std::move(*j);
  }

  // Returns an error, or nothing.
  std::optional<Error> groups(od::value& value, WeightsFile& file) {
    od::object obj;
    if (auto e = value.get_object().get(obj)) {
      od::json_type t{};
      if (e == simdjson::INCORRECT_TYPE && !value.type().get(t))
        return schema("weights", std::string("expected an object of groups, got ") + typeName(t));
      return syntax("weights", e);
    }
    std::unordered_set<std::string_view> names;
    for (auto field_result : obj) {
      od::field field;
      if (auto e = std::move(field_result).get(field)) return syntax("weights", e);
      std::string_view name;
      if (auto e = field.unescaped_key().get(name)) return syntax("weights", e);
      if (!names.insert(name).second) return schema(groupPath(name), "duplicate group");
      WeightsFile::Group& g = file.groups.emplace_back();
      g.name = std::string(name);
      od::value pairs_value = field.value();
      if (auto err = pairs(pairs_value, g)) return err;
    }
    return std::nullopt;
  }

  enum class Problem : std::uint8_t { kSyntax, kNotPair, kSize0, kSize1, kSize3, kVertex, kVertexBeyondInt64, kVertexCount, kWeight, kWeightValue };

  std::optional<Error> pairs(od::value& value, WeightsFile::Group& g) {
    od::array arr;
    if (auto e = value.get_array().get(arr)) {
      od::json_type t{};
      if (e == simdjson::INCORRECT_TYPE && !value.type().get(t))
        return schema(groupPath(g.name), std::string("expected an array of [vertex, weight] pairs, got ") + typeName(t));
      return syntax(groupPath(g.name), e);
    }
    // The pairs are collected in this reader's arrays, which keep their capacity from group to
    // group, and then copied into the group's at their final size.
    vertices_.clear();
    weights_.clear();
    ints_.clear();
    const std::uint64_t vertex_limit = vertex_count_ != 0 ? vertex_count_ : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1;
    std::size_t index = 0;
    const od::array_iterator end{};
    // The hot loop: straight-line code, every error handed to one cold function.
    for (auto pair_result : arr) {
      od::value pv;
      od::array pair;
      od::array_iterator it;
      od::value ev;
      error_code e = std::move(pair_result).get(pv);
      if (e) [[unlikely]] return pairProblem(Problem::kSyntax, nullptr, {}, g.name, index, e);
      if ((e = pv.get_array().get(pair))) [[unlikely]] return pairProblem(Problem::kNotPair, &pv, {}, g.name, index, e);
      if ((e = pair.begin().get(it))) [[unlikely]] return pairProblem(Problem::kSyntax, nullptr, {}, g.name, index, e);
      if (!(it != end)) [[unlikely]] return pairProblem(Problem::kSize0, nullptr, {}, g.name, index);
      if ((e = (*it).get(ev))) [[unlikely]] return pairProblem(Problem::kSyntax, nullptr, {}, g.name, index, e);
      std::uint64_t v = 0;
      if (ev.get_uint64().get(v)) [[unlikely]] {
        std::int64_t minus_zero = -1;  // "-0" is 0 (Python's json reads it as the int 0)
        if (ev.get_int64().get(minus_zero) || minus_zero != 0) return pairProblem(Problem::kVertex, &ev, {}, g.name, index);
      }
      if (v >= vertex_limit) [[unlikely]]
        return pairProblem(vertex_count_ != 0 && v >= vertex_count_ ? Problem::kVertexCount : Problem::kVertexBeyondInt64, nullptr, {}, g.name,
                           index, simdjson::SUCCESS, v);
      ++it;
      if (!(it != end)) [[unlikely]] return pairProblem(Problem::kSize1, nullptr, {}, g.name, index);
      if ((e = (*it).get(ev))) [[unlikely]] return pairProblem(Problem::kSyntax, nullptr, {}, g.name, index, e);
      // The weight: checked and read by simdjson (its text is kept for messages).
      const std::string_view token = ev.raw_json_token();
      double w = 0.0;
      if (ev.get_double().get(w)) [[unlikely]] return pairProblem(Problem::kWeight, &ev, {}, g.name, index);
      if (token.size() > 20) [[unlikely]] w = longNumber(token, w);
      // Only values outside (0, 1) (rare: 0, 1) need a look at the text to tell "1" from "1.0".
      bool is_int = false;
      if (!(w > 0.0 && w < 1.0)) [[unlikely]] {
        is_int = trimmed(token).find_first_of(".eE") == std::string_view::npos;
        if (is_int && !(std::fabs(w) < static_cast<double>(kMaxIntWeight))) return pairProblem(Problem::kWeightValue, nullptr, token, g.name, index);
        if (is_int) {
          w += 0.0;  // "-0" is Python's int 0
          ints_.push_back(index);
        }
      }
      if (w < 0.0) [[unlikely]] return pairProblem(Problem::kWeightValue, nullptr, token, g.name, index);
      ++it;
      if (it != end) [[unlikely]] {
        if ((e = (*it).get(ev))) return pairProblem(Problem::kSyntax, nullptr, {}, g.name, index, e);
        return pairProblem(Problem::kSize3, nullptr, {}, g.name, index);
      }
      vertices_.push_back(static_cast<std::int64_t>(v));
      weights_.push_back(w);
      ++index;
    }
    g.vertices.assign(vertices_.begin(), vertices_.end());
    g.weights.assign(weights_.begin(), weights_.end());
    if (!ints_.empty()) {
      g.weight_is_int.assign(g.vertices.size(), 0);
      for (std::size_t i : ints_) g.weight_is_int[i] = 1;
    }
    return std::nullopt;
  }

  // `ev`: the value at fault (not read); `token`: the text of a value read, for messages.
  [[gnu::cold, gnu::noinline]] Error pairProblem(Problem problem, od::value* ev, std::string_view token, std::string_view group,
                                                 std::size_t index, error_code e = simdjson::SUCCESS, std::uint64_t number = 0) {
    const std::string path = pairPath(group, index);
    switch (problem) {
      case Problem::kSyntax: return syntax(path, e);
      case Problem::kNotPair: {
        od::json_type t{};
        if (e == simdjson::INCORRECT_TYPE && !ev->type().get(t))
          return schema(path, std::string("expected a [vertex, weight] pair, got ") + typeName(t));
        return syntax(path, e);
      }
      case Problem::kSize0: return schema(path, "expected a [vertex, weight] pair, got 0 elements");
      case Problem::kSize1: return schema(path, "expected a [vertex, weight] pair, got 1 element");
      case Problem::kSize3: return schema(path, "expected a [vertex, weight] pair, got more than 2 elements");
      case Problem::kVertex: return badNumber(*ev, path + "[0]", true);
      case Problem::kVertexBeyondInt64:
        return schema(path + "[0]", "vertex index is out of range (" + std::to_string(number) + ")", ErrorCode::kRange);
      case Problem::kVertexCount:
        return schema(path + "[0]",
                      "vertex index " + std::to_string(number) + " is out of range for a mesh of " + std::to_string(vertex_count_) + " vertices",
                      ErrorCode::kRange);
      case Problem::kWeight: return badNumber(*ev, path + "[1]", false);
      case Problem::kWeightValue: {
        const std::string raw = shown(token);
        if (!raw.empty() && raw[0] == '-') return schema(path + "[1]", "weight is negative (" + raw + ")");
        return schema(path + "[1]", "weight is out of range (" + raw + ")");
      }
    }
    return schema(path, "?");
  }

  // A vertex index or weight simdjson did not read as one: not a number, not an integer (a
  // vertex), or a number beyond its range. (A malformed number is a syntax error, which schema
  // reports first.)
  Error badNumber(od::value& ev, const std::string& path, bool vertex) {
    od::json_type t{};
    if (auto e = ev.type().get(t)) return syntax(path, e);
    std::string raw = t == od::json_type::array || t == od::json_type::object ? typeName(t) : shown(ev.raw_json_token());
    if (t != od::json_type::number)
      return schema(path, std::string(vertex ? "vertex index is not an integer (" : "weight is not a number (") + raw + ")");
    const bool negative = raw[0] == '-';
    const bool integer_text = raw.find_first_of(".eE") == std::string::npos;
    if (vertex) {
      if (!integer_text) return schema(path, "vertex index is not an integer (" + raw + ")");
      if (negative) return schema(path, "vertex index is negative (" + raw + ")");
      return schema(path, "vertex index is out of range (" + raw + ")", ErrorCode::kRange);
    }
    if (negative) return schema(path, "weight is negative (" + raw + ")");
    return schema(path, std::string(integer_text ? "weight is out of range (" : "weight is not a finite number (") + raw + ")");
  }

  detail::JsonErrors errors_;
  std::size_t vertex_count_;
  std::vector<std::int64_t> vertices_;  // the pairs of the group being read
  std::vector<double> weights_;
  std::vector<std::size_t> ints_;  // indices of the weights written as integers
};

}  // namespace

Expected<WeightsFile> parseWeights(std::string_view text, std::string_view label, std::size_t vertex_count) {
  const detail::PaddedJson padded(text);
  return Reader(padded, label, vertex_count).run();
}

Expected<WeightsFile> parseWeights(const FileText& text, std::string_view label, std::size_t vertex_count) {
  const detail::PaddedJson padded(text);
  return Reader(padded, label, vertex_count).run();
}

Expected<WeightsFile> readWeights(const std::string& path, std::size_t vertex_count) {
  auto file = loadFile(path);
  if (!file) return file.error();
  return parseWeights(*file, path, vertex_count);
}

}  // namespace rigfit
