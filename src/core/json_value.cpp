#include <cstring>

#include "rigfit/json.hpp"

namespace rigfit {

Json Json::vec3(double x, double y, double z) {
  Json a = array();
  a.arr_.reserve(3);
  a.arr_.emplace_back(x);
  a.arr_.emplace_back(y);
  a.arr_.emplace_back(z);
  return a;
}

const Json* Json::find(std::string_view key) const {
  for (const auto& m : obj_)
    if (m.first == key) return &m.second;
  return nullptr;
}

Json* Json::find(std::string_view key) {
  for (auto& m : obj_)
    if (m.first == key) return &m.second;
  return nullptr;
}

Json& Json::set(std::string_view key, Json value) {
  if (Json* j = find(key)) {
    *j = std::move(value);
    return *j;
  }
  obj_.emplace_back(std::string(key), std::move(value));
  return obj_.back().second;
}

bool Json::erase(std::string_view key) {
  for (auto it = obj_.begin(); it != obj_.end(); ++it) {
    if (it->first == key) {
      obj_.erase(it);
      return true;
    }
  }
  return false;
}

bool operator==(const Json& a, const Json& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Json::Type::kNull: return true;
    case Json::Type::kBool: return a.num_.b == b.num_.b;
    case Json::Type::kInt: return a.num_.i == b.num_.i;
    case Json::Type::kFloat: return std::memcmp(&a.num_.d, &b.num_.d, sizeof(double)) == 0 || a.num_.d == b.num_.d;
    case Json::Type::kString: return a.str_ == b.str_;
    case Json::Type::kArray: return a.arr_ == b.arr_;
    case Json::Type::kObject: return a.obj_ == b.obj_;
  }
  return false;
}

const char* jsonTypeName(Json::Type t) {
  switch (t) {
    case Json::Type::kNull: return "null";
    case Json::Type::kBool: return "a boolean";
    case Json::Type::kInt: return "an integer";
    case Json::Type::kFloat: return "a number";
    case Json::Type::kString: return "a string";
    case Json::Type::kArray: return "an array";
    case Json::Type::kObject: return "an object";
  }
  return "?";
}

static bool isPlainIdentifier(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return !(key[0] >= '0' && key[0] <= '9');
}

std::string jsonPathKey(std::string_view base, std::string_view key) {
  std::string out(base);
  if (isPlainIdentifier(key)) {
    if (!out.empty()) out.push_back('.');
    out += key;
  } else {
    out += "[\"";
    out += key;
    out += "\"]";
  }
  return out;
}

std::string jsonPathIndex(std::string_view base, std::size_t index) {
  std::string out(base);
  out += '[';
  out += std::to_string(index);
  out += ']';
  return out;
}

}  // namespace rigfit
