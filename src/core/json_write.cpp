#include <algorithm>
#include <cstdint>

#include "rigfit/json.hpp"
#include "rigfit/number_format.hpp"

namespace rigfit {
namespace {

void appendHex4(std::string& out, unsigned v) {
  static const char* kHex = "0123456789abcdef";
  out += "\\u";
  for (int s = 12; s >= 0; s -= 4) out.push_back(kHex[(v >> s) & 0xF]);
}

// Python's json with ensure_ascii=True: everything outside printable ASCII is escaped.
void appendString(std::string& out, std::string_view s) {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F) {
      if (c == '"') out += "\\\"";
      else if (c == '\\') out += "\\\\";
      else out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    if (c < 0x80) {
      switch (c) {
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default: appendHex4(out, c);
      }
      ++i;
      continue;
    }
    // Decode one UTF-8 sequence (input was validated by the parser or built by rigfit).
    unsigned cp = 0;
    int len = 1;
    if ((c & 0xE0) == 0xC0) { cp = c & 0x1F; len = 2; }
    else if ((c & 0xF0) == 0xE0) { cp = c & 0x0F; len = 3; }
    else if ((c & 0xF8) == 0xF0) { cp = c & 0x07; len = 4; }
    else { cp = 0xFFFD; }
    for (int k = 1; k < len && i + static_cast<std::size_t>(k) < s.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) & 0x3F);
    i += static_cast<std::size_t>(len);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      appendHex4(out, 0xD800 + (cp >> 10));
      appendHex4(out, 0xDC00 + (cp & 0x3FF));
    } else {
      appendHex4(out, cp);
    }
  }
  out.push_back('"');
}

class Writer {
 public:
  Writer(const JsonWriteOptions& o, std::string& out) : o_(o), out_(out) {}

  void value(const Json& v, int depth) {
    switch (v.type()) {
      case Json::Type::kNull: out_ += "null"; break;
      case Json::Type::kBool: out_ += v.asBool() ? "true" : "false"; break;
      case Json::Type::kInt: out_ += std::to_string(v.asInt()); break;
      case Json::Type::kFloat: appendPythonFloat(out_, v.asDouble()); break;
      case Json::Type::kString: appendString(out_, v.asString()); break;
      case Json::Type::kArray: array(v, depth); break;
      case Json::Type::kObject: object(v, depth); break;
    }
  }

 private:
  void newline(int depth) {
    if (o_.indent < 0) return;
    out_.push_back('\n');
    out_.append(static_cast<std::size_t>(depth * o_.indent), ' ');
  }

  void array(const Json& v, int depth) {
    const auto& items = v.items();
    if (items.empty()) { out_ += "[]"; return; }
    const bool inline_all = o_.inline_numbers &&
        std::all_of(items.begin(), items.end(), [](const Json& j) { return j.isNumber(); });
    out_.push_back('[');
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (k) out_ += (inline_all || o_.indent < 0) ? ", " : ",";
      if (!inline_all) newline(depth + 1);
      value(items[k], depth + 1);
    }
    if (!inline_all) newline(depth);
    out_.push_back(']');
  }

  void object(const Json& v, int depth) {
    const auto& members = v.members();
    if (members.empty()) { out_ += "{}"; return; }
    std::vector<const Json::Member*> order;
    order.reserve(members.size());
    for (const auto& m : members) order.push_back(&m);
    if (o_.sort_keys)
      std::stable_sort(order.begin(), order.end(),
                       [](const Json::Member* a, const Json::Member* b) { return a->first < b->first; });
    out_.push_back('{');
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (k) out_ += o_.indent < 0 ? ", " : ",";
      newline(depth + 1);
      appendString(out_, order[k]->first);
      out_ += ": ";
      value(order[k]->second, depth + 1);
    }
    newline(depth);
    out_.push_back('}');
  }

  const JsonWriteOptions& o_;
  std::string& out_;
};

}  // namespace

std::string writeJson(const Json& value, const JsonWriteOptions& options) {
  std::string out;
  Writer(options, out).value(value, 0);
  if (options.final_newline) out.push_back('\n');
  return out;
}

}  // namespace rigfit
