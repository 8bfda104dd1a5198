// Writing JSON as Python's json.dump does: one writer (detail::JsonWriter) for every JSON file.
#include "core/json_write.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>

#include "rigfit/number_format.hpp"

namespace rigfit {
namespace {

char* putHex4(char* p, unsigned v) {
  static const char* kHex = "0123456789abcdef";
  *p++ = '\\';
  *p++ = 'u';
  for (int s = 12; s >= 0; s -= 4) *p++ = kHex[(v >> s) & 0xF];
  return p;
}

// The longest a string can become: "\uXXXX" for a byte; two of them for a 4-byte character.
constexpr std::size_t kMaxStringBytes = 6;

// Python's json with ensure_ascii=True: everything outside printable ASCII is escaped.
char* putString(char* p, std::string_view s) {
  *p++ = '"';
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F) {
      if (c == '"' || c == '\\') *p++ = '\\';
      *p++ = static_cast<char>(c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      const char* e = nullptr;
      switch (c) {
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\t': e = "\\t"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        default: p = putHex4(p, c);
      }
      if (e) {
        *p++ = e[0];
        *p++ = e[1];
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
      p = putHex4(p, 0xD800 + (cp >> 10));
      p = putHex4(p, 0xDC00 + (cp & 0x3FF));
    } else {
      p = putHex4(p, cp);
    }
  }
  *p++ = '"';
  return p;
}

}  // namespace

namespace detail {

void JsonWriter::grow(std::size_t n) {
  // Geometric growth: resize's zero-filling is paid once per doubling.
  const std::size_t len = static_cast<std::size_t>(cur_ - out_.data());
  out_.resize(std::max(2 * out_.size(), len + n + 256));
  cur_ = out_.data() + len;
  limit_ = out_.data() + out_.size();
}

void JsonWriter::longNewline(std::size_t n) {
  char* p = room(n);
  *p = '\n';
  std::memset(p + 1, ' ', n - 1);
  commit(p + n);
}

void JsonWriter::key(std::string_view k) {
  item();
  char* p = putString(room(k.size() * kMaxStringBytes + 4), k);
  *p++ = ':';
  *p++ = ' ';
  commit(p);
  after_key_ = true;
}

void JsonWriter::string(std::string_view s) {
  item();
  commit(putString(room(s.size() * kMaxStringBytes + 2), s));
}

void JsonWriter::value(const Json& v) {
  switch (v.type()) {
    case Json::Type::kNull: null(); break;
    case Json::Type::kBool: boolean(v.asBool()); break;
    case Json::Type::kInt: integer(v.asInt()); break;
    case Json::Type::kFloat: number(v.asDouble()); break;
    case Json::Type::kString: string(v.asString()); break;
    case Json::Type::kArray: {
      const auto& items = v.items();
      beginArray(o_.inline_numbers && std::all_of(items.begin(), items.end(), [](const Json& j) { return j.isNumber(); }));
      for (const Json& j : items) value(j);
      end();
      break;
    }
    case Json::Type::kObject: {
      const auto& members = v.members();
      std::vector<const Json::Member*> order;
      order.reserve(members.size());
      for (const auto& m : members) order.push_back(&m);
      if (o_.sort_keys)
        std::stable_sort(order.begin(), order.end(), [](const Json::Member* a, const Json::Member* b) { return a->first < b->first; });
      beginObject();
      for (const Json::Member* m : order) {
        key(m->first);
        value(m->second);
      }
      end();
      break;
    }
  }
}

}  // namespace detail

std::string writeJson(const Json& value, const JsonWriteOptions& options) {
  std::string out;
  {
    detail::JsonWriter writer(out, options);
    writer.value(value);
  }
  if (options.final_newline) out.push_back('\n');
  return out;
}

}  // namespace rigfit
