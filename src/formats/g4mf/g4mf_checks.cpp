// The G4MF checks of the whole document in one pass (Checker::run), the document-level rules of
// docs/g4mf-rules.md (asset, names, top-level arrays, buffers, buffer views, accessors), the
// helpers every rule uses, and the issues report.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "formats/g4mf/g4mf_check.hpp"
#include "rigfit/number_format.hpp"

namespace rigfit::g4mf {

namespace {

// Names and URIs from the file are quoted in messages and keys appear in paths: control
// characters there are escaped (\n, \u001b, ...) so that every issue stays one line.
std::string escapeControls(std::string s) {
  bool any = false;
  for (unsigned char c : s) any = any || c < 0x20 || c == 0x7F;
  if (!any) return s;
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out.push_back(static_cast<char>(c));
  }
  return out;
}

constexpr ComponentType kComponentTypes[] = {
    {"float8", 1, Kind::kFloat},  {"float16", 2, Kind::kFloat}, {"float32", 4, Kind::kFloat}, {"float64", 8, Kind::kFloat},
    {"float128", 16, Kind::kFloat}, {"int8", 1, Kind::kInt},    {"int16", 2, Kind::kInt},     {"int32", 4, Kind::kInt},
    {"int64", 8, Kind::kInt},     {"int128", 16, Kind::kInt},   {"uint8", 1, Kind::kUint},    {"uint16", 2, Kind::kUint},
    {"uint32", 4, Kind::kUint},   {"uint64", 8, Kind::kUint},   {"uint128", 16, Kind::kUint}};

}  // namespace

void Report::add(std::string path, std::string message, G4mfSeverity severity) {
  if (severity == G4mfSeverity::kError) ++errors_;
  if (out_.size() >= kMaxIssues) {
    ++dropped_;
    return;
  }
  out_.push_back({escapeControls(std::move(path)), escapeControls(std::move(message)), severity});
}

std::string at(std::string_view base, std::string_view key) {
  std::string out(base);
  out.push_back('/');
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out.push_back(c);
  }
  return out;
}
std::string at(std::string_view base, std::size_t index) { return std::string(base) + "/" + std::to_string(index); }

std::string str(double v) { return formatPythonFloat(v); }
std::string str(u64 v) { return std::to_string(v); }

std::optional<i64> integerOf(const Json& v) {
  if (v.isInt()) return v.asInt();
  if (v.type() != Json::Type::kFloat) return std::nullopt;
  const double d = v.asDouble();
  if (!std::isfinite(d) || d != std::floor(d) || std::abs(d) >= 9.2e18) return std::nullopt;
  return static_cast<i64>(d);
}

const ComponentType* findComponentType(std::string_view name) {
  for (const ComponentType& t : kComponentTypes)
    if (t.name == name) return &t;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Checker: the pass

// Neither container: a binary file starts with the magic "G4MF", a text one (after an optional
// BOM and whitespace) with a JSON value ('{' for a document). Bytes that cannot start JSON are
// named, not parsed as JSON.
bool Checker::looksLikeText(std::string_view text) {
  std::size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
  if (i == text.size() || std::string_view("{[\"-0123456789tfn").find(text[i]) != std::string_view::npos) return true;
  std::string found;
  for (std::size_t k = 0; k < std::min<std::size_t>(4, text.size()); ++k) {
    const auto c = static_cast<unsigned char>(text[k]);
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02X", c);
    found += c >= 0x20 && c < 0x7F && c != '"' && c != '\\' ? std::string(1, static_cast<char>(c)) : std::string(hex);
  }
  r_.error("header/magic", "not a G4MF file: it starts with \"" + found +
                                "\" (a binary file starts with the magic \"G4MF\", a text file with '{')");
  return false;
}

bool Checker::run() {
  std::string_view text;
  if (bytes_.size() >= 4 && std::memcmp(bytes_.data(), "G4MF", 4) == 0) {
    binary_ = true;
    if (!container(text)) return false;
  } else {
    text = std::string_view(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
    if (!looksLikeText(text)) return false;
  }
  if (!checkText(text, r_)) return false;
  const std::string_view parse_text = text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF" ? text.substr(3) : text;
  auto parsed = parseJson(parse_text, "JSON");
  if (!parsed) {
    r_.error("text", parsed.error().message);
    return false;
  }
  doc_ = std::move(*parsed);
  if (!doc_.isObject()) {
    r_.error("", "the document must be a JSON object");
    return false;
  }
  if (!asset()) return false;
  names();
  topArrays();
  buffers();
  views();
  accessors();
  nodes();
  meshes();
  skeletons();
  meshInstances();
  materials();
  return true;
}

const Json* Checker::array(const Json& doc, std::string_view key) {
  const Json* a = doc.find(key);
  return a && a->isArray() ? a : nullptr;
}

// ---------------------------------------------------------------------------------------------
// Checker: helpers

i64 Checker::index(const Json* v, const std::string& path, u64 limit, std::string_view what) {
  if (!v) return -1;
  auto i = integerOf(*v);
  if (!i) {
    r_.error(path, v->isNumber() ? "an index must have no fractional part" : "must be an integer index");
    return -1;
  }
  if (*i == -1) {
    r_.error(path, "-1 (none) must not be written");
    return -1;
  }
  if (*i < 0) {
    r_.error(path, "must not be negative");
    return -1;
  }
  if (static_cast<u64>(*i) >= limit) {
    r_.error(path, "is " + std::to_string(*i) + " but there " + (limit == 1 ? "is 1 " : "are " + str(limit) + " ") + std::string(what));
    return -1;
  }
  return *i;
}

i64 Checker::required(const Json& obj, std::string_view key, const std::string& base, u64 limit, std::string_view what) {
  const Json* v = obj.find(key);
  if (!v) {
    r_.error(at(base, key), "is required");
    return -1;
  }
  return index(v, at(base, key), limit, what);
}

std::optional<u64> Checker::nonNegative(const Json* v, const std::string& path) {
  if (!v) return std::nullopt;
  auto i = integerOf(*v);
  if (!i) {
    r_.error(path, "must be an integer");
    return std::nullopt;
  }
  if (*i < 0) {
    r_.error(path, "must not be negative");
    return std::nullopt;
  }
  return static_cast<u64>(*i);
}

const Json* Checker::object(const Json& parent, std::string_view key, const std::string& base) {
  const Json* v = parent.find(key);
  if (!v) return nullptr;
  if (!v->isObject()) {
    r_.error(at(base, key), "must be an object");
    return nullptr;
  }
  return v;
}

bool Checker::boolean(const Json& parent, std::string_view key, const std::string& base) {
  const Json* v = parent.find(key);
  if (!v) return false;
  if (!v->isBool()) {
    r_.error(at(base, key), "must be true or false");
    return false;
  }
  return v->asBool();
}

std::optional<std::vector<double>> Checker::numbers(const Json& parent, std::string_view key, const std::string& base) {
  const Json* v = parent.find(key);
  if (!v) return std::nullopt;
  if (!v->isArray()) {
    r_.error(at(base, key), "must be an array of numbers");
    return std::nullopt;
  }
  std::vector<double> out;
  for (std::size_t k = 0; k < v->size(); ++k) {
    if (!v->items()[k].isNumber()) {
      r_.error(at(at(base, key), k), "must be a number");
      return std::nullopt;
    }
    out.push_back(v->items()[k].asDouble());
  }
  return out;
}

u64 Checker::count(std::string_view key) const {
  const Json* a = array(doc_, key);
  return a ? a->size() : 0;
}

const Accessor* Checker::accessor(const Json* v, const std::string& path, TypeReq req, u64 vector_size, bool needed_type) {
  const i64 i = index(v, path, acc_.size(), "accessors");
  if (i < 0) return nullptr;
  const Accessor& a = acc_[static_cast<std::size_t>(i)];
  if (!a.valid) return nullptr;  // reported at /accessors/i
  bool ok = true;
  const Kind k = a.type->kind;
  if (needed_type) {
    if (req == TypeReq::kFloat && k != Kind::kFloat) ok = false;
    if (req == TypeReq::kInteger && k == Kind::kFloat) ok = false;
    if (req == TypeReq::kUnsigned && k != Kind::kUint) ok = false;
    if (!ok) {
      static const char* kWhat[] = {"any", "a floating-point", "an integer", "an unsigned integer"};
      r_.error(path, std::string("must be ") + kWhat[static_cast<int>(req)] + " accessor; accessor " + std::to_string(i) + " is " +
                         std::string(a.type->name));
    }
  }
  if (vector_size && a.vector_size != vector_size) {
    r_.error(path, "accessor " + std::to_string(i) + " has vectorSize " + str(a.vector_size) + ", must be " + str(vector_size));
    ok = false;
  }
  return ok ? &a : nullptr;
}

void Checker::indicesBelow(const Accessor& a, u64 limit, const std::string& path, std::string_view what) {
  if (!a.data) return;
  u64 bad = 0, first = 0;
  i64 first_value = 0;
  for (u64 k = 0; k < a.components(); ++k) {
    const i64 v = a.integer(k);
    if (v < 0 || static_cast<u64>(v) >= limit) {
      if (!bad++) first = k, first_value = v;
    }
  }
  if (bad)
    r_.error(path, "component " + str(first) + " is " + std::to_string(first_value) + ", outside [0, " + str(limit) + ") " +
                       std::string(what) + " (" + str(bad) + " in all)");
}

// ---------------------------------------------------------------------------------------------
// Checker: asset (§2)

bool Checker::asset() {
  const Json* a = doc_.find("asset");
  if (!a) {
    r_.error("/asset", "is required (a file without asset is not G4MF)");
    return false;
  }
  if (!a->isObject()) {
    r_.error("/asset", "must be an object");
    return false;
  }
  const Json* d = a->find("dimension");
  if (!d) {
    r_.error("/asset/dimension", "is required");
    return false;
  }
  auto dim = integerOf(*d);
  if (!dim) {
    r_.error("/asset/dimension", "must be an integer");
    return false;
  }
  if (*dim < 1 || *dim > 64) {
    r_.error("/asset/dimension", "must be a positive dimension (1..64 checked), is " + std::to_string(*dim));
    return false;
  }
  dim_ = static_cast<int>(*dim);
  for (const char* key : {"generator", "specification", "version"}) {
    const Json* v = a->find(key);
    if (v && !v->isString()) r_.error(at("/asset", key), "must be a string");
  }
  if (const Json* v = a->find("version"); v && v->isString()) {
    const std::string& s = v->asString();
    int parts = 0;
    bool ok = !s.empty();
    std::size_t k = 0;
    while (ok && k < s.size()) {
      const std::size_t start = k;
      while (k < s.size() && s[k] >= '0' && s[k] <= '9') ++k;
      ok = k > start;
      ++parts;
      if (k < s.size()) ok = ok && s[k++] == '.' && k < s.size();
    }
    if (!ok || parts < 2 || parts > 3) r_.error("/asset/version", "must be MAJOR.MINOR or MAJOR.MINOR.PATCH, is \"" + s + "\"");
  }
  if (const Json* t = a->find("thumbnail")) index(t, "/asset/thumbnail", count("textures"), "textures");
  auto strings = [&](const char* key) {
    std::set<std::string> out;
    const Json* v = a->find(key);
    if (!v) return out;
    if (!v->isArray()) {
      r_.error(at("/asset", key), "must be an array of strings");
      return out;
    }
    for (std::size_t k = 0; k < v->size(); ++k) {
      if (!v->items()[k].isString()) r_.error(at(at("/asset", key), k), "must be a string");
      else out.insert(v->items()[k].asString());
    }
    return out;
  };
  used_ = strings("extensionsUsed");
  const std::set<std::string> required_ext = strings("extensionsRequired");
  if (a->contains("extensionsRequired") && !a->contains("extensionsUsed"))
    r_.error("/asset/extensionsUsed", "must be present when extensionsRequired is");
  for (const std::string& e : required_ext)
    if (!used_.count(e)) r_.error("/asset/extensionsRequired", "\"" + e + "\" is not listed in extensionsUsed");
  required_ext_ = required_ext;
  if (const Json* deps = object(*a, "extensionDependencies", "/asset")) {
    for (const auto& [key, value] : deps->members()) {
      if (!used_.count(key)) r_.error(at("/asset/extensionDependencies", key), "\"" + key + "\" is not listed in extensionsUsed");
      if (!value.isArray()) {
        r_.error(at("/asset/extensionDependencies", key), "must be an array of strings");
        continue;
      }
      for (std::size_t k = 0; k < value.size(); ++k)
        if (!value.items()[k].isString()) r_.error(at(at("/asset/extensionDependencies", key), k), "must be a string");
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Checker: names and items (§3)

void Checker::names() {
  std::map<std::string, std::string> seen;
  walkItems(doc_, "", seen);
}

void Checker::walkItems(const Json& v, const std::string& path, std::map<std::string, std::string>& seen) {
  if (v.isArray()) {
    for (std::size_t k = 0; k < v.size(); ++k) walkItems(v.items()[k], at(path, k), seen);
    return;
  }
  if (!v.isObject()) return;
  for (const auto& [key, value] : v.members()) {
    const std::string p = at(path, key);
    if (key == "extras") {
      if (!value.isObject()) r_.error(p, "must be an object");
      continue;  // anything goes inside extras
    }
    if (key == "comment" && !value.isString()) r_.error(p, "must be a string");
    if (key == "name") {
      if (!value.isString()) {
        r_.error(p, "must be a string");
      } else if (!value.asString().empty()) {
        nameRules(value.asString(), p);
        auto [it, added] = seen.emplace(value.asString(), p);
        if (!added) r_.error(p, "name \"" + value.asString() + "\" is already used at " + it->second + " (names are file-unique)");
      }
    }
    if (key == "extensions") {
      if (!value.isObject()) {
        r_.error(p, "must be an object");
        continue;
      }
      for (const auto& [ext, data] : value.members()) {
        if (!used_.count(ext)) r_.error(at(p, ext), "extension \"" + ext + "\" is not listed in asset.extensionsUsed");
        if (!data.isObject()) r_.error(at(p, ext), "an extension's value must be an object");
        else walkItems(data, at(p, ext), seen);
      }
      continue;
    }
    if (key == "extensionDependencies" && path == "/asset") continue;
    walkItems(value, p, seen);
  }
}

void Checker::nameRules(const std::string& name, const std::string& path) {
  for (std::size_t i = 0; i < name.size();) {
    std::uint32_t cp;
    const int len = utf8At(name, i, cp);
    if (!len) return;  // the text was UTF-8; escapes decode to valid code points
    if (isControl(cp)) {
      r_.error(path, "name contains the control character " + codePoint(cp));
      return;
    }
    if (cp < 0x80 && std::string_view("\"#*.:|?@<>{}[]/\\%").find(static_cast<char>(cp)) != std::string_view::npos) {
      r_.error(path, std::string("name \"") + name + "\" contains the forbidden character '" + static_cast<char>(cp) + "'");
      return;
    }
    i += static_cast<std::size_t>(len);
  }
}

// ---------------------------------------------------------------------------------------------
// Checker: top-level arrays

void Checker::canonical(const Json& v, std::string& out) {
  switch (v.type()) {
    case Json::Type::kNull: out += "n"; break;
    case Json::Type::kBool: out += v.asBool() ? "t" : "f"; break;
    case Json::Type::kInt:
    case Json::Type::kFloat: out += "#" + formatPythonFloat(v.asDouble()); break;
    case Json::Type::kString: out += "s" + std::to_string(v.asString().size()) + ":" + v.asString(); break;
    case Json::Type::kArray:
      out += "[";
      for (const Json& x : v.items()) canonical(x, out), out += ",";
      out += "]";
      break;
    case Json::Type::kObject: {
      std::vector<const Json::Member*> m;
      for (const auto& kv : v.members()) m.push_back(&kv);
      std::sort(m.begin(), m.end(), [](auto* a, auto* b) { return a->first < b->first; });
      out += "{";
      for (auto* kv : m) {
        out += std::to_string(kv->first.size()) + ":" + kv->first + "=";
        canonical(kv->second, out);
        out += ",";
      }
      out += "}";
      break;
    }
  }
}

void Checker::uniqueItems(const Json& a, const std::string& path) {
  std::map<std::string, std::size_t> seen;
  for (std::size_t k = 0; k < a.size(); ++k) {
    std::string key;
    canonical(a.items()[k], key);
    auto [it, added] = seen.emplace(std::move(key), k);
    if (!added) r_.error(at(path, k), "is identical to item " + std::to_string(it->second) + " (the array's items must be unique)");
  }
}

void Checker::topArrays() {
  for (const char* key : {"accessors", "buffers", "bufferViews", "files", "materials", "meshes", "nodes", "shapes", "textures"}) {
    const Json* a = doc_.find(key);
    if (!a) continue;
    const std::string p = at("", key);
    if (!a->isArray()) {
      r_.error(p, "must be an array");
      continue;
    }
    for (std::size_t k = 0; k < a->size(); ++k)
      if (!a->items()[k].isObject()) r_.error(at(p, k), "must be an object");
    if (std::string_view(key) != "meshes" && std::string_view(key) != "nodes" && std::string_view(key) != "shapes" &&
        std::string_view(key) != "textures")
      uniqueItems(*a, p);
  }
}

// ---------------------------------------------------------------------------------------------
// Checker: buffers (§4), buffer views (§5), accessors (§6)

void Checker::buffers() {
  const Json* a = array(doc_, "buffers");
  if (!a) return;
  bufs_.resize(a->size());
  for (std::size_t i = 0; i < a->size(); ++i) {
    const Json& b = a->items()[i];
    if (!b.isObject()) continue;
    const std::string p = at("/buffers", i);
    Buffer& out = bufs_[i];
    const Json* len = b.find("byteLength");
    if (!len) r_.error(at(p, "byteLength"), "is required");
    auto byte_length = nonNegative(len, at(p, "byteLength"));
    const Json* uri = b.find("uri");
    const Json* chunk = b.find("chunk");
    if (uri && !uri->isString()) r_.error(at(p, "uri"), "must be a string"), uri = nullptr;
    if (!binary_) {
      if (chunk) r_.error(at(p, "chunk"), "a text file's buffers must not have chunk");
      if (!b.contains("uri")) r_.error(p, "a buffer of a text file must have uri");
    } else {
      if (chunk && b.contains("uri")) r_.error(p, "a buffer has either chunk or uri, not both");
      if (!chunk && !b.contains("uri")) r_.error(p, "a buffer of a binary file needs chunk or uri");
    }
    std::string encoding;
    const Encoding e = bufferEncoding(b, p, encoding);
    if (e == Encoding::kUnsupported) unsupportedEncoding(p, chunk, encoding);
    if (!byte_length) continue;
    out.valid = true;
    out.byte_length = *byte_length;
    if (e != Encoding::kOk) continue;
    bufferData(p, chunk, uri, encoding, out);
  }
}

// A buffer in an encoding this reader does not decode: the validator cannot check its data (a
// warning), the reader cannot read it (an error naming the encoding and where its bytes are).
void Checker::unsupportedEncoding(const std::string& p, const Json* chunk, const std::string& encoding) {
  std::string message = "unsupported encoding \"" + printable4(encoding.data()) + "\"";
  if (chunk && binary_)
    if (const auto c = integerOf(*chunk); c && *c >= 0 && static_cast<u64>(*c) < chunks_.size())
      message += " (chunk " + std::to_string(*c) + ", at byte " + str(chunks_[static_cast<std::size_t>(*c)].header_offset) + ")";
  if (strict_) r_.error(at(p, "encoding"), message + "; rigfit reads plain and Zstd data");
  else r_.warn(at(p, "encoding"), message + " (data not checked)");
}

// The buffer's encoding: absent (plain) or a 4-byte FourCC; kWrong when it breaks a rule
// (reported), kUnsupported when it is not one this reader decodes (Zstd).
Checker::Encoding Checker::bufferEncoding(const Json& b, const std::string& p, std::string& encoding) {
  const Json* e = b.find("encoding");
  if (!e) return Encoding::kOk;
  if (!e->isString()) {
    r_.error(at(p, "encoding"), "must be a string");
    return Encoding::kWrong;
  }
  const std::string& s = e->asString();
  for (std::size_t k = 0; k < s.size();) {
    std::uint32_t cp;
    const int l = utf8At(s, k, cp);
    if (!l || cp > 0xFF) {
      encoding.clear();
      break;
    }
    encoding.push_back(static_cast<char>(cp));
    k += static_cast<std::size_t>(l);
  }
  if (encoding.size() != 4) {
    r_.error(at(p, "encoding"), "must be a 4-byte FourCC such as \"Zstd\"");
  } else if (encoding == std::string(4, '\0')) {
    r_.error(at(p, "encoding"), "plain data must not set encoding");
  } else if (encoding == std::string(4, '\xFF')) {
    r_.error(at(p, "encoding"), "encoding FF FF FF FF is reserved");
  } else if (encoding != "Zstd") {
    return Encoding::kUnsupported;
  } else {
    return Encoding::kOk;
  }
  return Encoding::kWrong;
}

void Checker::views() {
  const Json* a = array(doc_, "bufferViews");
  if (!a) return;
  views_.resize(a->size());
  for (std::size_t i = 0; i < a->size(); ++i) {
    const Json& v = a->items()[i];
    if (!v.isObject()) continue;
    const std::string p = at("/bufferViews", i);
    const Json* b = v.find("buffer");
    i64 buffer = 0;
    if (b) {
      buffer = index(b, at(p, "buffer"), bufs_.size(), "buffers");
    } else if (bufs_.empty()) {
      r_.error(p, "buffer defaults to 0 but the file has no buffers");
      buffer = -1;
    }
    if (!v.contains("byteLength")) r_.error(at(p, "byteLength"), "is required");
    auto length = nonNegative(v.find("byteLength"), at(p, "byteLength"));
    auto offset = v.contains("byteOffset") ? nonNegative(v.find("byteOffset"), at(p, "byteOffset")) : std::optional<u64>(0);
    if (buffer < 0 || !length || !offset) continue;
    const Buffer& buf = bufs_[static_cast<std::size_t>(buffer)];
    if (!buf.valid) continue;
    if (*offset > buf.byte_length || *length > buf.byte_length - *offset) {
      r_.error(p, "byteOffset " + str(*offset) + " + byteLength " + str(*length) + " exceeds buffer " + std::to_string(buffer) +
                      "'s byteLength " + str(buf.byte_length));
      continue;
    }
    views_[i] = View{true, static_cast<std::size_t>(buffer), *offset, *length};
  }
}

void Checker::accessors() {
  const Json* a = array(doc_, "accessors");
  if (!a) return;
  acc_.resize(a->size());
  for (std::size_t i = 0; i < a->size(); ++i) {
    const Json& v = a->items()[i];
    if (!v.isObject()) continue;
    const std::string p = at("/accessors", i);
    if (!v.contains("bufferView")) r_.error(at(p, "bufferView"), "is required");
    const i64 view = index(v.find("bufferView"), at(p, "bufferView"), views_.size(), "bufferViews");
    const Json* ct = v.find("componentType");
    const ComponentType* type = nullptr;
    if (!ct) r_.error(at(p, "componentType"), "is required");
    else if (!ct->isString()) r_.error(at(p, "componentType"), "must be a string");
    else if (!(type = findComponentType(ct->asString())))
      r_.error(at(p, "componentType"), "unknown component type \"" + ct->asString() + "\"");
    u64 vs = 1;
    if (const Json* s = v.find("vectorSize")) {
      auto n = nonNegative(s, at(p, "vectorSize"));
      if (n && *n == 0) r_.error(at(p, "vectorSize"), "must be at least 1");
      if (!n || *n == 0) continue;
      vs = *n;
    }
    if (view < 0 || !type || !views_[static_cast<std::size_t>(view)].valid) continue;
    const View& w = views_[static_cast<std::size_t>(view)];
    bool ok = true;
    if (w.offset % type->size) {
      r_.error(at(p, "bufferView"), "bufferView " + std::to_string(view) + "'s byteOffset " + str(w.offset) + " is not a multiple of " +
                                        std::string(type->name) + "'s size " + std::to_string(type->size));
      ok = false;
    }
    const u64 element = vs > w.length / type->size + 1 ? 0 : vs * type->size;  // 0: larger than the view
    if (element == 0 ? w.length != 0 : w.length % element != 0) {
      r_.error(at(p, "bufferView"), "bufferView " + std::to_string(view) + "'s byteLength " + str(w.length) +
                                        " is not a multiple of the element size (" + std::to_string(type->size) + " x " + str(vs) + ")");
      ok = false;
    }
    if (!ok) continue;
    Accessor& out = acc_[i];
    out.valid = true;
    out.type = type;
    out.vector_size = vs;
    out.count = element ? w.length / element : 0;
    const Buffer& buf = bufs_[w.buffer];
    if (buf.data) out.data = buf.data + w.offset;
  }
}

}  // namespace rigfit::g4mf
