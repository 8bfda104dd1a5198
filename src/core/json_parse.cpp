// JSON parsing: simdjson, then a conversion into rigfit's ordered Json. simdjson does not say
// where a syntax error is, so on one a small scanner re-reads the text to name the line, column
// and byte offset.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include <simdjson.h>

#include "core/json_read.hpp"
#include "rigfit/json.hpp"

namespace rigfit {
namespace {

struct Location {
  std::size_t offset = 0;
  std::string what;
};

// A strict JSON scanner used only to locate the first syntax error. Iterative (explicit
// stack) so that hostile nesting cannot overflow the call stack.
class Locator {
 public:
  explicit Locator(std::string_view t) : t_(t) {}

  Location run() {
    std::vector<char> stack;  // '{' or '['
    ws();
    if (p_ >= t_.size()) return fail("empty document");
    // State machine: expect a value, then after a value: ',' or a closer.
    bool expect_value = true;
    for (;;) {
      ws();
      if (expect_value) {
        if (p_ >= t_.size()) return fail("unexpected end of file");
        const char c = t_[p_];
        if (c == '{' || c == '[') {
          if (stack.size() >= 1024) return fail("nesting deeper than 1024");
          stack.push_back(c);
          ++p_;
          ws();
          if (p_ < t_.size() && t_[p_] == (c == '{' ? '}' : ']')) {
            ++p_;
            stack.pop_back();
            expect_value = false;
            continue;
          }
          if (c == '{') {
            if (!key()) return err_;
          }
          continue;
        }
        if (!scalar()) return err_;
        expect_value = false;
        continue;
      }
      if (stack.empty()) {
        ws();
        if (p_ < t_.size()) return fail("unexpected text after the document");
        return fail("");
      }
      if (p_ >= t_.size()) return fail("unexpected end of file");
      const char c = t_[p_];
      if (c == ',') {
        ++p_;
        ws();
        if (stack.back() == '{' && !key()) return err_;
        expect_value = true;
        continue;
      }
      if ((c == '}' && stack.back() == '{') || (c == ']' && stack.back() == '[')) {
        ++p_;
        stack.pop_back();
        continue;
      }
      return fail(std::string("expected ',' or '") + (stack.back() == '{' ? '}' : ']') + "'");
    }
  }

 private:
  void ws() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t')) ++p_;
  }
  Location fail(std::string what) {
    err_ = Location{p_, std::move(what)};
    return err_;
  }
  bool failed(std::string what) {
    fail(std::move(what));
    return false;
  }
  bool key() {
    ws();
    if (p_ >= t_.size() || t_[p_] != '"') return failed("expected a string key");
    if (!string()) return false;
    ws();
    if (p_ >= t_.size() || t_[p_] != ':') return failed("expected ':'");
    ++p_;
    return true;
  }
  bool string() {
    ++p_;
    while (p_ < t_.size()) {
      const unsigned char c = static_cast<unsigned char>(t_[p_]);
      if (c == '"') { ++p_; return true; }
      if (c < 0x20) return failed("control character in string");
      if (c == '\\') {
        ++p_;
        if (p_ >= t_.size()) break;
        const char e = t_[p_];
        if (e == 'u') {
          for (int k = 1; k <= 4; ++k)
            if (p_ + static_cast<std::size_t>(k) >= t_.size() || !std::isxdigit(static_cast<unsigned char>(t_[p_ + static_cast<std::size_t>(k)])))
              return failed("bad \\u escape");
          p_ += 4;
        } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return failed("bad escape");
        }
      }
      ++p_;
    }
    return failed("unterminated string");
  }
  bool literal(std::string_view word) {
    if (t_.substr(p_, word.size()) != word) return failed("invalid literal");
    p_ += word.size();
    return true;
  }
  bool scalar() {
    const char c = t_[p_];
    if (c == '"') return string();
    if (c == 't') return literal("true");
    if (c == 'f') return literal("false");
    if (c == 'n') return literal("null");
    if (c == '-' || (c >= '0' && c <= '9')) {
      const std::size_t start = p_;
      if (t_[p_] == '-') ++p_;
      auto digits = [&] {
        const std::size_t s = p_;
        while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
        return p_ > s;
      };
      if (!digits()) return failed("invalid number");
      if (t_[start + (t_[start] == '-')] == '0' && p_ - start - (t_[start] == '-') > 1) {
        p_ = start;
        return failed("leading zero in number");
      }
      if (p_ < t_.size() && t_[p_] == '.') {
        ++p_;
        if (!digits()) return failed("invalid number");
      }
      if (p_ < t_.size() && (t_[p_] == 'e' || t_[p_] == 'E')) {
        ++p_;
        if (p_ < t_.size() && (t_[p_] == '+' || t_[p_] == '-')) ++p_;
        if (!digits()) return failed("invalid number");
      }
      return true;
    }
    // A control character or a lone byte of a multi-byte sequence is shown as its value, not raw.
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", u);
      return failed(std::string("unexpected byte ") + hex);
    }
    return failed(std::string("unexpected character '") + c + "'");
  }

  std::string_view t_;
  std::size_t p_ = 0;
  Location err_;
};

std::string where(std::string_view text, std::size_t offset) {
  std::size_t line = 1, col = 1;
  for (std::size_t k = 0; k < offset && k < text.size(); ++k) {
    if (text[k] == '\n') { ++line; col = 1; } else { ++col; }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col) + " (byte " + std::to_string(offset) + ")";
}

struct Converter {
  std::string_view label;
  Error error;
  bool failed = false;

  bool fail(const std::string& what) {
    if (!failed) error = makeError(ErrorCode::kSyntax, std::string(label) + ": $: " + what);
    failed = true;
    return false;
  }

  // Recursion depth is bounded by simdjson's own depth limit (1024).
  bool convert(simdjson::dom::element e, Json& out) {
    using simdjson::dom::element_type;
    switch (e.type()) {
      case element_type::NULL_VALUE: out = Json(); return true;
      case element_type::BOOL: out = Json(bool(e.get_bool().value_unsafe())); return true;
      case element_type::INT64: out = Json(std::int64_t(e.get_int64().value_unsafe())); return true;
      case element_type::UINT64: {
        const std::uint64_t u = e.get_uint64().value_unsafe();
        out = Json(static_cast<double>(u));  // beyond int64: kept as a float
        return true;
      }
      case element_type::DOUBLE: out = Json(double(e.get_double().value_unsafe())); return true;
      case element_type::STRING: out = Json(std::string(e.get_string().value_unsafe())); return true;
      case element_type::ARRAY: {
        out = Json::array();
        simdjson::dom::array a = e.get_array().value_unsafe();
        out.items().resize(a.size());
        std::size_t k = 0;
        for (simdjson::dom::element child : a)
          if (!convert(child, out.items()[k++])) return false;
        return true;
      }
      case element_type::OBJECT: {
        out = Json::object();
        simdjson::dom::object o = e.get_object().value_unsafe();
        auto& members = out.members();
        members.reserve(o.size());
        for (simdjson::dom::key_value_pair kv : o) {
          members.emplace_back(std::string(kv.key), Json());
          if (!convert(kv.value, members.back().second)) return false;
        }
        return checkDuplicates(out);
      }
    }
    return true;
  }

  bool checkDuplicates(const Json& obj) {
    const auto& m = obj.members();
    if (m.size() < 2) return true;
    if (m.size() <= 16) {
      for (std::size_t a = 0; a < m.size(); ++a)
        for (std::size_t b = a + 1; b < m.size(); ++b)
          if (m[a].first == m[b].first) return fail("duplicate key \"" + m[a].first + "\"");
      return true;
    }
    std::vector<std::string_view> keys;
    keys.reserve(m.size());
    for (const auto& kv : m) keys.push_back(kv.first);
    std::sort(keys.begin(), keys.end());
    for (std::size_t k = 1; k < keys.size(); ++k)
      if (keys[k] == keys[k - 1]) return fail("duplicate key \"" + std::string(keys[k]) + "\"");
    return true;
  }
};

// The error simdjson reported on `text`, at the first syntax error the Locator finds (or, when it
// finds none, at the end with simdjson's message).
Error located(std::string_view text, std::string_view label, simdjson::error_code err) {
  Location loc = Locator(text).run();
  if (loc.what.empty()) loc.what = simdjson::error_message(err);
  return makeError(ErrorCode::kSyntax, std::string(label) + ": " + where(text, loc.offset) + ": " + loc.what);
}

}  // namespace

Expected<Json> detail::parseJson(const PaddedJson& text, std::string_view label) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (const auto err = parser.parse(text.view().data(), text.view().size(), false).get(root)) return located(text.text(), label, err);
  Json out;
  Converter conv{label, {}, false};
  if (!conv.convert(root, out)) return conv.error;
  return out;
}

std::optional<Error> detail::jsonSyntaxError(const PaddedJson& text, std::string_view label) {
  simdjson::dom::parser parser;
  const auto err = parser.parse(text.view().data(), text.view().size(), false).error();
  if (!err) return std::nullopt;
  // Well-formed, but a number beyond double's or 64-bit range (1e400, which Python reads as inf,
  // or a 30-digit integer): not a syntax error.
  if (err == simdjson::NUMBER_ERROR && Locator(text.text()).run().what.empty()) return std::nullopt;
  return located(text.text(), label, err);
}

Error detail::JsonErrors::syntax(const std::string& path, simdjson::error_code e) const {
  if (auto located = jsonSyntaxError(text_, label_)) return *located;
  return makeError(ErrorCode::kSyntax, std::string(label_) + ": " + path + ": " + simdjson::error_message(e));
}

Error detail::JsonErrors::value(const std::string& path, const std::string& what, ErrorCode code) const {
  if (auto located = jsonSyntaxError(text_, label_)) return *located;
  return makeError(code, std::string(label_) + ": " + path + ": " + what);
}

std::optional<Error> detail::JsonErrors::trailing(simdjson::ondemand::document& doc) const {
  if (doc.current_location().error()) return std::nullopt;  // at the end
  return syntax("$", simdjson::TRAILING_CONTENT);
}

Expected<Json> parseJson(std::string_view text, std::string_view label) { return detail::parseJson(detail::PaddedJson(text), label); }

Expected<Json> readJsonFile(const std::string& path) {
  auto file = loadFile(path);
  if (!file) return file.error();
  return detail::parseJson(detail::PaddedJson(*file), path);
}

}  // namespace rigfit
