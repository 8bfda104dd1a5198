// Reading MPFB weights files (weights.*.json). Well-formed files in the usual form take the fast
// path (weights_fast.cpp); everything else, every error included, is read here with simdjson's
// On-Demand parser: the pairs go straight into the group arrays, the few header keys through
// rigfit's ordered Json. Any error
// simdjson reports that is not one of ours (a type or value problem we can name) is located by
// rigfit::parseJson on the whole text (line, column, byte), as json_parse.cpp does for rigs.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_set>

#include <simdjson.h>

#include "core/file_io.hpp"
#include "rigfit/file_io.hpp"
#include "core/json_number.hpp"
#include "core/json_scan.hpp"
#include "rigfit/weights.hpp"
#include "skin/group_path.hpp"
#include "skin/pair_scratch.hpp"
#include "skin/weights_fast.hpp"


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

// weights["name"] with the name escaped as in JSON (quote, backslash, control characters).

using detail::isJsonNumber;

// A number token (already validated by simdjson, so followed by more text) written without a
// fraction or an exponent.
bool isIntegerToken(const char* p) {
  if (*p == '-') ++p;
  while (*p >= '0' && *p <= '9') ++p;
  return *p != '.' && *p != 'e' && *p != 'E';
}

// Eight ASCII digits at p, and their value (SWAR, as simdjson's is_made_of_eight_digits_fast and
// parse_eight_digits_unrolled; little-endian).
inline bool eightDigits(const char* p, std::uint64_t& value) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if (((v & 0xF0F0F0F0F0F0F0F0ull) | (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) != 0x3333333333333333ull) return false;
  v -= 0x3030303030303030ull;
  v = v * 10 + (v >> 8);
  value = (((v & 0x000000FF000000FFull) * 0x000F424000000064ull) + (((v >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >> 32;
  return true;
}

// What may follow a number token in valid JSON: whitespace or a structural character.
inline bool endsToken(char c) { return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// "0." + more than 19 decimals: simdjson 3.0.1's On-Demand get_double mis-reads these (its
// overflow test is wrong when the integer part is 0; simdjson issue #2093, fixed in 3.6.3: it
// returns 0.0013631687680898392 for 0.0548587265818475389167), so they are read with
// std::from_chars. `p` is past the decimals. False: not a well-formed number token here.
bool manyDecimals(const char* t, const char* p, double& w) {
  if (*p == 'e' || *p == 'E') {
    ++p;
    if (*p == '+' || *p == '-') ++p;
    if (!(*p >= '0' && *p <= '9')) return false;
    while (*p >= '0' && *p <= '9') ++p;
  }
  if (!endsToken(*p)) return false;
  const auto r = std::from_chars(t, p, w);
  return r.ec == std::errc() && r.ptr == p;
}

// The weight token of full-precision files, "0." and 8 or more decimals then JSON whitespace or
// a structural character, parsed 8 digits at a time; simdjson's get_double reads one digit at a
// time (~7% of the parse on game_engine's 17-digit weights). The conversion is simdjson's own
// (Clinger's fast path, else Eisel-Lemire). Shorter fractions are left to simdjson, which is as
// fast for them. Reads up to 18 bytes past the token start: within the text or its padding.
inline bool longFraction(const char* t, double& w) {
  if (t[0] != '0' || t[1] != '.') return false;
  const char* p = t + 2;
  std::uint64_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::uint64_t eight = 0;
  if (!eightDigits(p, eight)) return false;
  i = eight;
  p += 8;
  if (eightDigits(p, eight)) {
    i = i * 100000000 + eight;
    p += 8;
  }
#endif
  while (*p >= '0' && *p <= '9') {
    i = i * 10 + static_cast<unsigned>(*p - '0');  // wraps beyond 19 digits: not used then
    ++p;
  }
  const std::ptrdiff_t n = p - (t + 2);
  if (n > 19) [[unlikely]] return manyDecimals(t, p, w);
  if (n < 8 || !endsToken(*p)) return false;
  return simdjson::SIMDJSON_BUILTIN_IMPLEMENTATION::numberparsing::compute_float_64(-n, i, false, w);
}

std::string pairPath(std::string_view group, std::size_t index) {
  return groupPath(group) + "[" + std::to_string(index) + "]";
}

class Reader {
 public:
  Reader(std::string_view text, std::string_view label, std::size_t vertex_count, bool fast = true)
      : text_(text), label_(label), vertex_count_(vertex_count), fast_(fast) {}

  Expected<WeightsFile> run(const char* data, std::size_t size, std::size_t capacity) {
    if (fast_) {
      WeightsFile fast;
      if (detail::readWeightsFast(data, size, label_, vertex_count_, fast)) {
        fast.label = std::string(label_);
        return fast;
      }
    }
    thread_local od::parser parser;
    od::document doc;
    if (auto e = parser.iterate(data, size, capacity).get(doc)) return syntax("$", e);
    od::object root;
    if (auto e = doc.get_object().get(root)) {
      od::json_type t{};
      if (e == simdjson::INCORRECT_TYPE && !doc.type().get(t)) return schema("$", std::string("expected an object, got ") + typeName(t));
      return syntax("$", e);
    }
    WeightsFile file;
    file.label = std::string(label_);
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
    // On-Demand stops at the root's end: anything after it is an error.
    if (!doc.current_location().error()) return syntax("$", simdjson::TRAILING_CONTENT);
    if (!have_weights) return schema("$", "missing key \"weights\"");
    file.final_newline = !text_.empty() && text_.back() == '\n';
    return file;
  }

 private:
  // The first syntax error of the whole text, located (line, column, byte) by rigfit::parseJson,
  // or nothing when the text is well-formed JSON (duplicate keys aside, which are ours to name).
  std::optional<Error> syntaxError() const {
    thread_local simdjson::dom::parser dom;
    const error_code e = dom.parse(text_.data(), text_.size(), true).error();
    if (!e) return std::nullopt;
    auto full = parseJson(text_, label_);
    if (full) return std::nullopt;
    // parseJson's scanner checks the whole grammar; when it finds nothing, it repeats simdjson's
    // message. For numbers that is a number beyond double or 64-bit range (1e400, which Python
    // reads as inf, or a 30-digit integer): well-formed, and ours to name.
    const std::string& m = full.error().message;
    const std::string_view sj = simdjson::error_message(e);
    if (e == simdjson::NUMBER_ERROR && m.size() >= sj.size() && m.compare(m.size() - sj.size(), sj.size(), sj) == 0)
      return std::nullopt;
    return full.error();
  }
  // An error from simdjson.
  Error syntax(const std::string& path, error_code e) const {
    if (auto located = syntaxError()) return *located;
    return makeError(ErrorCode::kSyntax, std::string(label_) + ": " + path + ": " + simdjson::error_message(e));
  }
  // A value error. Python's json.load rejects a malformed file before anything looks at its
  // values, and On-Demand reads lazily: a syntax error anywhere in the text wins.
  Error schema(const std::string& path, const std::string& what, ErrorCode code = ErrorCode::kSchema) const {
    if (auto located = syntaxError()) return *located;
    return makeError(code, std::string(label_) + ": " + path + ": " + what);
  }

  Expected<Json> headerValue(od::value& value, std::string_view key) {
    const std::string path = key == "weights" ? "weights" : jsonPathKey("", key);
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
    auto j = parseJson(trimmed(raw), label_);
    if (!j) {
      if (auto located = syntaxError()) return *located;
      // Well-formed, so a duplicate key inside the value: "LABEL: $: what" -> "LABEL: key: what".
      std::string what = j.error().message.substr(label_.size() + 2);
      if (what.rfind("$: ", 0) == 0) what.erase(0, 3);
      return makeError(j.error().code, std::string(label_) + ": " + path + ": " + what);
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
    detail::PairScratch& scratch = detail::PairScratch::start();
    std::vector<std::int64_t>& vertices = scratch.vertices;
    std::vector<double>& weights = scratch.weights;
    std::vector<std::size_t>& ints = scratch.ints;
    const std::uint64_t vertex_limit = vertex_count_ != 0 ? vertex_count_ : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1;
    std::size_t index = 0;
    const od::array_iterator end{};
    // The hot loop: straight-line code (measurably faster than a counted loop over the pair),
    // every error handed to one cold function.
    for (auto pair_result : arr) {
      od::value pv;
      od::array pair;
      od::array_iterator it;
      od::value ev;
      error_code e = std::move(pair_result).get(pv);
      if (e) [[unlikely]] return pairProblem(Problem::kSyntax, nullptr, g.name, index, e);
      if ((e = pv.get_array().get(pair))) [[unlikely]] return pairProblem(Problem::kNotPair, &pv, g.name, index, e);
      if ((e = pair.begin().get(it))) [[unlikely]] return pairProblem(Problem::kSyntax, nullptr, g.name, index, e);
      if (!(it != end)) [[unlikely]] return pairProblem(Problem::kSize0, nullptr, g.name, index);
      if ((e = (*it).get(ev))) [[unlikely]] return pairProblem(Problem::kSyntax, nullptr, g.name, index, e);
      std::uint64_t v = 0;
      if (ev.get_uint64().get(v)) [[unlikely]] {
        std::int64_t minus_zero = -1;  // "-0" is 0 (Python's json reads it as the int 0)
        if (ev.get_int64().get(minus_zero) || minus_zero != 0) return pairProblem(Problem::kVertex, &ev, g.name, index);
      }
      if (v >= vertex_limit) [[unlikely]]
        return pairProblem(vertex_count_ != 0 && v >= vertex_count_ ? Problem::kVertexCount : Problem::kVertexBeyondInt64, nullptr, g.name,
                           index, simdjson::SUCCESS, v);
      ++it;
      if (!(it != end)) [[unlikely]] return pairProblem(Problem::kSize1, nullptr, g.name, index);
      if ((e = (*it).get(ev))) [[unlikely]] return pairProblem(Problem::kSyntax, nullptr, g.name, index, e);
      // Long fractions are read by longFraction, the rest by simdjson's get_double (an unread
      // value is skipped by ++it). Only values outside (0, 1) (rare: 0, 1) need a look at the
      // token to tell "1" from "1.0". (A "1.0" shortcut measured slower: code layout.)
      double w = 0.0;
      const char* token = ev.raw_json_token().data();
      if (!longFraction(token, w)) {
        if (ev.get_double().get(w)) [[unlikely]] return pairProblem(Problem::kWeight, &ev, g.name, index);
      }
      bool is_int = false;
      if (!(w > 0.0 && w < 1.0)) [[unlikely]] {  // cheaper than an integrality test (no SSE4.1 floor)
        is_int = isIntegerToken(token);
        if (is_int && !(std::fabs(w) < static_cast<double>(kMaxIntWeight))) return pairProblem(Problem::kWeightValue, &ev, g.name, index);
        if (is_int && w == 0.0) w = 0.0;  // "-0" is Python's int 0
      }
      if (w < 0.0) [[unlikely]] return pairProblem(Problem::kWeightValue, &ev, g.name, index);
      ++it;
      if (it != end) [[unlikely]] {
        if ((e = (*it).get(ev))) return pairProblem(Problem::kSyntax, nullptr, g.name, index, e);
        return pairProblem(Problem::kSize3, nullptr, g.name, index);
      }
      if (is_int) [[unlikely]] ints.push_back(index);
      vertices.push_back(static_cast<std::int64_t>(v));
      weights.push_back(w);
      ++index;
    }
    scratch.store(g);
    return std::nullopt;
  }

  [[gnu::cold, gnu::noinline]] Error pairProblem(Problem problem, od::value* ev, std::string_view group, std::size_t index,
                                                 error_code e = simdjson::SUCCESS, std::uint64_t number = 0) {
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
      case Problem::kVertex: return badVertex(*ev, group, index);
      case Problem::kVertexBeyondInt64:
        return schema(path + "[0]", "vertex index is out of range (" + std::to_string(number) + ")", ErrorCode::kRange);
      case Problem::kVertexCount:
        return schema(path + "[0]",
                      "vertex index " + std::to_string(number) + " is out of range for a mesh of " + std::to_string(vertex_count_) + " vertices",
                      ErrorCode::kRange);
      case Problem::kWeight: return badWeight(*ev, group, index);
      case Problem::kWeightValue: {
        const std::string raw = shown(ev->raw_json_token());
        if (!raw.empty() && raw[0] == '-') return schema(path + "[1]", "weight is negative (" + raw + ")");
        return schema(path + "[1]", "weight is out of range (" + raw + ")");
      }
    }
    return schema(path, "?");
  }

  // What a non-number value looks like in a message: its text for scalars, its type otherwise.
  static std::string describe(od::value& v, od::json_type t) {
    if (t == od::json_type::array || t == od::json_type::object) return typeName(t);
    return shown(v.raw_json_token());
  }

  Error badVertex(od::value& ev, std::string_view group, std::size_t index) {
    const std::string path = pairPath(group, index) + "[0]";
    od::json_type t{};
    if (auto e = ev.type().get(t)) return syntax(path, e);
    if (t != od::json_type::number) return schema(path, "vertex index is not an integer (" + describe(ev, t) + ")");
    const std::string raw = shown(ev.raw_json_token());
    if (!isJsonNumber(trimmed(ev.raw_json_token()))) return syntax(path, simdjson::NUMBER_ERROR);
    const bool negative = raw[0] == '-';
    const bool integer_text = raw.find_first_of(".eE") == std::string::npos;
    if (!integer_text) return schema(path, "vertex index is not an integer (" + raw + ")");
    if (negative) return schema(path, "vertex index is negative (" + raw + ")");
    return schema(path, "vertex index is out of range (" + raw + ")", ErrorCode::kRange);
  }

  Error badWeight(od::value& ev, std::string_view group, std::size_t index) {
    const std::string path = pairPath(group, index) + "[1]";
    od::json_type t{};
    if (auto e = ev.type().get(t)) return syntax(path, e);
    if (t != od::json_type::number) return schema(path, "weight is not a number (" + describe(ev, t) + ")");
    // A number token simdjson cannot hold: bad text (located by the full parse) or out of range.
    if (!isJsonNumber(trimmed(ev.raw_json_token()))) return syntax(path, simdjson::NUMBER_ERROR);
    const std::string raw = shown(ev.raw_json_token());
    if (raw[0] == '-') return schema(path, "weight is negative (" + raw + ")");
    const bool integer_text = raw.find_first_of(".eE") == std::string::npos;
    return schema(path, std::string(integer_text ? "weight is out of range (" : "weight is not a finite number (") + raw + ")");
  }

  std::string_view text_;
  std::string_view label_;
  std::size_t vertex_count_;
  bool fast_;
};

// simdjson and the fast reader read up to SIMDJSON_PADDING bytes past the end: a text is read
// in place when those bytes lie on its last page (detail::paddingReadable); a well-formed
// document here is an object whose last token, '}', ends every number or literal before it (a
// truncated text is an error whatever follows it).
static_assert(FileText::kPadding >= simdjson::SIMDJSON_PADDING, "loaded files are padded for simdjson");

Expected<WeightsFile> parseWeightsIn(std::string_view text, std::string_view label, std::size_t vertex_count, bool fast) {
  Reader reader(text, label, vertex_count, fast);
  if (detail::paddingReadable(text.data(), text.size()))
    return reader.run(text.data(), text.size(), text.size() + simdjson::SIMDJSON_PADDING);
  thread_local std::string padded;
  padded.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  padded.assign(text.data(), text.size());
  return reader.run(padded.data(), padded.size(), padded.capacity());
}

}  // namespace

Expected<WeightsFile> parseWeights(std::string_view text, std::string_view label, std::size_t vertex_count) {
  return parseWeightsIn(text, label, vertex_count, true);
}

Expected<WeightsFile> detail::parseWeightsGeneral(std::string_view text, std::string_view label, std::size_t vertex_count) {
  return parseWeightsIn(text, label, vertex_count, false);
}

Expected<WeightsFile> readWeights(const std::string& path, std::size_t vertex_count) {
  auto bytes = readFile(path, simdjson::SIMDJSON_PADDING);
  if (!bytes) return bytes.error();
  Reader reader(*bytes, path, vertex_count);
  return reader.run(bytes->data(), bytes->size(), bytes->capacity());
}

}  // namespace rigfit
