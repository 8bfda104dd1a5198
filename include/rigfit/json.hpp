// An ordered JSON document: objects keep their key order and every key, numbers keep their
// int/float kind, so that a file read and written again loses nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rigfit/error.hpp"

namespace rigfit {

class Json {
 public:
  enum class Type : std::uint8_t { kNull, kBool, kInt, kFloat, kString, kArray, kObject };
  using Member = std::pair<std::string, Json>;

  Json() = default;
  Json(std::nullptr_t) {}                                        // NOLINT
  Json(bool b) : type_(Type::kBool) { num_.b = b; }              // NOLINT
  Json(int v) : type_(Type::kInt) { num_.i = v; }                // NOLINT
  Json(std::int64_t v) : type_(Type::kInt) { num_.i = v; }       // NOLINT
  Json(double v) : type_(Type::kFloat) { num_.d = v; }           // NOLINT
  Json(std::string s) : type_(Type::kString), str_(std::move(s)) {}  // NOLINT
  Json(const char* s) : type_(Type::kString), str_(s) {}         // NOLINT
  static Json array() { Json j; j.type_ = Type::kArray; return j; }
  static Json object() { Json j; j.type_ = Type::kObject; return j; }
  static Json vec3(double x, double y, double z);

  Type type() const { return type_; }
  bool isNull() const { return type_ == Type::kNull; }
  bool isBool() const { return type_ == Type::kBool; }
  bool isInt() const { return type_ == Type::kInt; }
  bool isNumber() const { return type_ == Type::kInt || type_ == Type::kFloat; }
  bool isString() const { return type_ == Type::kString; }
  bool isArray() const { return type_ == Type::kArray; }
  bool isObject() const { return type_ == Type::kObject; }

  bool asBool() const { return num_.b; }
  /// A float is truncated toward zero and saturated to the int64 range (NaN: 0), so that any
  /// number read from a file converts (1e19 is INT64_MAX).
  std::int64_t asInt() const { return type_ == Type::kInt ? num_.i : saturatedInt(num_.d); }
  double asDouble() const { return type_ == Type::kInt ? static_cast<double>(num_.i) : num_.d; }
  const std::string& asString() const { return str_; }

  // Arrays.
  std::vector<Json>& items() { return arr_; }
  const std::vector<Json>& items() const { return arr_; }
  Json& push(Json v) { arr_.push_back(std::move(v)); return arr_.back(); }

  // Objects, in key order as read or inserted.
  std::vector<Member>& members() { return obj_; }
  const std::vector<Member>& members() const { return obj_; }
  const Json* find(std::string_view key) const;
  Json* find(std::string_view key);
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  /// Replaces the value of `key`, or appends it at the end.
  Json& set(std::string_view key, Json value);
  bool erase(std::string_view key);

  std::size_t size() const { return type_ == Type::kArray ? arr_.size() : obj_.size(); }

  /// Deep equality; 1 and 1.0 differ (kind is part of the value).
  friend bool operator==(const Json& a, const Json& b);

 private:
  static std::int64_t saturatedInt(double d) {
    constexpr double kLimit = 9223372036854775808.0;  // 2^63
    if (!(d == d)) return 0;
    if (d >= kLimit) return INT64_MAX;
    if (d < -kLimit) return INT64_MIN;
    return static_cast<std::int64_t>(d);
  }

  Type type_ = Type::kNull;
  union {
    bool b;
    std::int64_t i;
    double d;
  } num_{};
  std::string str_;
  std::vector<Json> arr_;
  std::vector<Member> obj_;
};

const char* jsonTypeName(Json::Type t);

/// Parses JSON text (simdjson, on a padded copy of the text). `label` (usually the file name)
/// starts every error message; syntax errors name the line, column and byte offset. Duplicate
/// keys in one object are an error.
Expected<Json> parseJson(std::string_view text, std::string_view label);

/// Reads and parses a JSON file (in place: loadFile pads it).
Expected<Json> readJsonFile(const std::string& path);

struct JsonWriteOptions {
  int indent = 4;            ///< spaces per level; < 0 writes everything on one line
  bool sort_keys = true;     ///< objects' keys in code-point order (Python's sort_keys)
  bool inline_numbers = false;  ///< arrays holding only numbers on one line
  bool final_newline = false;
};

/// Writes JSON the way Python's json.dump(obj, indent=4, sort_keys=True) does with the default
/// options: ASCII only (\uXXXX escapes), floats in Python's repr, ", " / ": " separators.
std::string writeJson(const Json& value, const JsonWriteOptions& options = {});

/// JSON path helpers for messages: appendKey("bones", "a.b") -> bones["a.b"] when needed.
std::string jsonPathKey(std::string_view base, std::string_view key);
std::string jsonPathIndex(std::string_view base, std::size_t index);

}  // namespace rigfit
