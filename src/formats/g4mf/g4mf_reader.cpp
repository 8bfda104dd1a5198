// G4MF validation and reading. One pass (class Checker) checks the container, the JSON text, the
// document's structure and every rule of shared/docs/g4mf-checklist.md a file can break, keeping
// what it decoded (buffers, accessors, hierarchy); readG4mf then extracts the skeleton, mesh and
// skin from that state when no error was found.
//
// Hostile input: sizes are checked against the bytes present before use, all offset arithmetic is
// overflow-checked in 64 bits, Zstd output grows only with real output (capped by the declared
// size), and nothing is allocated by a declared count.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <Eigen/Geometry>
#include <zstd.h>

#include "rigfit/g4mf.hpp"
#include "rigfit/json.hpp"
#include "rigfit/number_format.hpp"

namespace rigfit {
namespace {

using u64 = std::uint64_t;
using i64 = std::int64_t;

constexpr u64 kTopBit = u64(1) << 63;
constexpr u64 kMaxJsonBytes = u64(1) << 30;     // decoded JSON chunk
constexpr u64 kMaxBufferBytes = u64(1) << 34;   // decoded buffer (16 GiB)
constexpr std::size_t kMaxIssues = 1000;        // further issues are counted, not stored
constexpr std::string_view kDataUriPrefix = "data:application/octet-stream;base64,";

// ---------------------------------------------------------------------------------------------
// Issues and JSON paths

class Report {
 public:
  explicit Report(std::vector<G4mfIssue>& out) : out_(out) {}
  void error(std::string path, std::string message) { add(std::move(path), std::move(message), G4mfSeverity::kError); }
  void warn(std::string path, std::string message) { add(std::move(path), std::move(message), G4mfSeverity::kWarning); }
  std::size_t errors() const { return errors_; }
  void finish() {
    if (dropped_) out_.push_back({"", std::to_string(dropped_) + " more issues not listed", G4mfSeverity::kWarning});
  }

 private:
  void add(std::string path, std::string message, G4mfSeverity severity) {
    if (severity == G4mfSeverity::kError) ++errors_;
    if (out_.size() >= kMaxIssues) {
      ++dropped_;
      return;
    }
    out_.push_back({escapeControls(std::move(path)), escapeControls(std::move(message)), severity});
  }
  // Names and URIs from the file are quoted in messages and keys appear in paths: control
  // characters there are escaped (\n, \u001b, ...) so that every issue stays one line.
  static std::string escapeControls(std::string s) {
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
  std::vector<G4mfIssue>& out_;
  std::size_t errors_ = 0, dropped_ = 0;
};

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

// An integer without a fractional part (3 and 3.0 both), within int64.
std::optional<i64> integerOf(const Json& v) {
  if (v.isInt()) return v.asInt();
  if (v.type() != Json::Type::kFloat) return std::nullopt;
  const double d = v.asDouble();
  if (!std::isfinite(d) || d != std::floor(d) || std::abs(d) >= 9.2e18) return std::nullopt;
  return static_cast<i64>(d);
}

// ---------------------------------------------------------------------------------------------
// Component types and accessor data

enum class Kind : std::uint8_t { kFloat, kInt, kUint };
struct ComponentType {
  std::string_view name;
  std::uint8_t size;
  Kind kind;
};
constexpr ComponentType kComponentTypes[] = {
    {"float8", 1, Kind::kFloat},  {"float16", 2, Kind::kFloat}, {"float32", 4, Kind::kFloat}, {"float64", 8, Kind::kFloat},
    {"float128", 16, Kind::kFloat}, {"int8", 1, Kind::kInt},    {"int16", 2, Kind::kInt},     {"int32", 4, Kind::kInt},
    {"int64", 8, Kind::kInt},     {"int128", 16, Kind::kInt},   {"uint8", 1, Kind::kUint},    {"uint16", 2, Kind::kUint},
    {"uint32", 4, Kind::kUint},   {"uint64", 8, Kind::kUint},   {"uint128", 16, Kind::kUint}};

const ComponentType* findComponentType(std::string_view name) {
  for (const ComponentType& t : kComponentTypes)
    if (t.name == name) return &t;
  return nullptr;
}

u64 loadLe(const unsigned char* p, int n) {
  u64 v = 0;
  for (int k = n - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

double halfToDouble(std::uint32_t h) {
  const int e = static_cast<int>((h >> 10) & 0x1F);
  const double m = h & 0x3FF;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0) return sign * std::ldexp(m, -24);
  if (e == 31) return m == 0 ? sign * std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  return sign * std::ldexp(1024.0 + m, e - 25);
}

// float8: 1 sign, 4 exponent (bias 7), 3 mantissa bits, IEEE-like (maximum finite 240).
double float8ToDouble(std::uint32_t b) {
  const int e = static_cast<int>((b >> 3) & 0xF);
  const double m = b & 0x7;
  const double sign = (b & 0x80) ? -1.0 : 1.0;
  if (e == 0) return sign * std::ldexp(m, -9);
  if (e == 15) return m == 0 ? sign * std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  return sign * std::ldexp(8.0 + m, e - 10);
}

double quadToDouble(const unsigned char* p) {
  const u64 lo = loadLe(p, 8), hi = loadLe(p + 8, 8);
  const int e = static_cast<int>((hi >> 48) & 0x7FFF);
  const double sign = (hi >> 63) ? -1.0 : 1.0;
  const double m = std::ldexp(static_cast<double>(hi & 0xFFFFFFFFFFFFull), -48) + std::ldexp(static_cast<double>(lo), -112);
  if (e == 0) return sign * std::ldexp(m, -16382);
  if (e == 0x7FFF) return m == 0 ? sign * std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  return sign * std::ldexp(1.0 + m, e - 16383);
}

struct Accessor {
  bool valid = false;  ///< type known, view valid, sizes and alignment right
  const ComponentType* type = nullptr;
  u64 vector_size = 1;
  u64 count = 0;                         ///< elements
  const unsigned char* data = nullptr;   ///< nullptr: bytes not available (external or undecodable buffer)

  u64 components() const { return count * vector_size; }
  double real(u64 i) const {
    const unsigned char* p = data + i * type->size;
    switch (type->kind) {
      case Kind::kFloat:
        switch (type->size) {
          case 1: return float8ToDouble(p[0]);
          case 2: return halfToDouble(static_cast<std::uint32_t>(loadLe(p, 2)));
          case 4: { float f; std::memcpy(&f, p, 4); return f; }
          case 8: { double d; std::memcpy(&d, p, 8); return d; }
          default: return quadToDouble(p);
        }
      case Kind::kInt: return static_cast<double>(integer(i));
      case Kind::kUint: break;
    }
    return type->size == 16 && loadLe(p + 8, 8) ? 3.4e38 : static_cast<double>(loadLe(p, std::min<int>(8, type->size)));
  }
  /// Integer components, saturated to int64 (floats: truncated toward zero, NaN -> -1).
  i64 integer(u64 i) const {
    const unsigned char* p = data + i * type->size;
    const int n = type->size;
    if (type->kind == Kind::kFloat) {
      const double d = real(i);
      if (std::isnan(d)) return -1;
      if (d >= 9.2e18) return std::numeric_limits<i64>::max();
      if (d <= -9.2e18) return std::numeric_limits<i64>::min();
      return static_cast<i64>(d);
    }
    if (type->kind == Kind::kUint) {
      if (n == 16 && loadLe(p + 8, 8)) return std::numeric_limits<i64>::max();
      const u64 v = loadLe(p, std::min(n, 8));
      return v > u64(std::numeric_limits<i64>::max()) ? std::numeric_limits<i64>::max() : static_cast<i64>(v);
    }
    if (n == 16) {
      const u64 lo = loadLe(p, 8), hi = loadLe(p + 8, 8);
      const bool negative = hi >> 63;
      if (hi != (negative ? ~u64(0) : 0) || bool(lo >> 63) != negative)
        return negative ? std::numeric_limits<i64>::min() : std::numeric_limits<i64>::max();
      return static_cast<i64>(lo);
    }
    const u64 v = loadLe(p, n);
    const int bits = 8 * n;
    if (bits == 64) return static_cast<i64>(v);
    const u64 sign = u64(1) << (bits - 1);
    return static_cast<i64>((v ^ sign) - sign);
  }
};

// ---------------------------------------------------------------------------------------------
// Binary container, JSON text, base64, Zstd

struct Chunk {
  u64 header_offset = 0;
  char type[4] = {};
  unsigned char encoding[4] = {};
  u64 size = 0;
  const unsigned char* data = nullptr;
  bool isType(const char* t) const { return std::memcmp(type, t, 4) == 0; }
  bool plain() const { return encoding[0] == 0 && encoding[1] == 0 && encoding[2] == 0 && encoding[3] == 0; }
  bool zstd() const { return std::memcmp(encoding, "Zstd", 4) == 0; }
  bool reserved() const { return encoding[0] == 0xFF && encoding[1] == 0xFF && encoding[2] == 0xFF && encoding[3] == 0xFF; }
};

std::string printable4(const void* p) {
  std::string out;
  for (int k = 0; k < 4; ++k) {
    const auto c = static_cast<const unsigned char*>(p)[k];
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
    } else {
      static const char* kHex = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

// Decodes Zstd frames into `out`, keeping at most `limit` bytes; `more` is set when the data
// decodes to more than that (the rest is not decoded). Memory follows the real output only.
bool zstdDecode(const unsigned char* src, std::size_t n, u64 limit, std::string& out, bool& more, std::string& error) {
  more = false;
  out.clear();
  if (n < 4 || std::memcmp(src, "\x28\xB5\x2F\xFD", 4) != 0) {
    error = "Zstd data must start with the Zstd magic 28 B5 2F FD";
    return false;
  }
  std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!dctx) {
    error = "cannot create a Zstd decoder";
    return false;
  }
  u64 capacity = std::min<u64>(limit, u64(n) * 16 + (1u << 20));
  out.resize(static_cast<std::size_t>(capacity));
  ZSTD_inBuffer in{src, n, 0};
  std::size_t produced = 0;
  for (;;) {
    ZSTD_outBuffer ob{out.data() + produced, out.size() - produced, 0};
    const std::size_t in_before = in.pos;
    const std::size_t r = ZSTD_decompressStream(dctx.get(), &ob, &in);
    if (ZSTD_isError(r)) {
      error = std::string("Zstd: ") + ZSTD_getErrorName(r);
      out.clear();
      return false;
    }
    produced += ob.pos;
    if (r == 0 && in.pos == in.size) break;  // every frame complete
    if (produced == out.size()) {
      if (out.size() >= limit) {
        more = true;
        break;
      }
      out.resize(static_cast<std::size_t>(std::min<u64>(limit, std::max<u64>(2 * out.size(), 1024))));
      continue;
    }
    if (in.pos == in.size || (ob.pos == 0 && in.pos == in_before)) {
      error = "Zstd data ends inside a frame";
      out.clear();
      return false;
    }
  }
  out.resize(produced);
  return true;
}

// Strict base64 (RFC 4648 alphabet, padding to a multiple of 4, '=' only at the end).
bool base64Decode(std::string_view s, std::string& out, std::size_t& bad_at) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  out.clear();
  if (s.size() % 4) {
    bad_at = s.size();
    return false;
  }
  out.reserve(s.size() / 4 * 3);
  for (std::size_t i = 0; i < s.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s[i + static_cast<std::size_t>(k)];
      if (c == '=' && i + 4 == s.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      v[k] = value(c);
      if (v[k] < 0 || pad) {
        bad_at = i + static_cast<std::size_t>(k);
        return false;
      }
    }
    const std::uint32_t triple = (std::uint32_t(v[0]) << 18) | (std::uint32_t(v[1]) << 12) | (std::uint32_t(v[2]) << 6) | std::uint32_t(v[3]);
    out.push_back(static_cast<char>((triple >> 16) & 0xFF));
    if (pad < 2) out.push_back(static_cast<char>((triple >> 8) & 0xFF));
    if (pad < 1) out.push_back(static_cast<char>(triple & 0xFF));
  }
  return true;
}

// Decodes one UTF-8 sequence at s[i]; returns its length, 0 when invalid.
int utf8At(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto c = static_cast<unsigned char>(s[i]);
  int len;
  std::uint32_t min;
  if (c < 0x80) {
    cp = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + static_cast<std::size_t>(len) > s.size()) return 0;
  for (int k = 1; k < len; ++k) {
    const auto d = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

std::string codePoint(std::uint32_t cp) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(cp));
  return hex;
}

bool isControl(std::uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

// The JSON text rules (§1.1): UTF-8 without BOM, no raw control characters except TAB and LF.
// Returns false when the text is not UTF-8 (it cannot be parsed then).
bool checkText(std::string_view t, Report& r) {
  std::size_t i = 0;
  if (t.size() >= 3 && t.substr(0, 3) == "\xEF\xBB\xBF") {
    r.error("text:0", "the JSON text starts with a byte order mark (BOM); G4MF forbids it");
    i = 3;
  }
  std::size_t cr = 0, ctl = 0, first_cr = 0, first_ctl = 0;
  std::uint32_t ctl_cp = 0;
  while (i < t.size()) {
    std::uint32_t cp;
    const int len = utf8At(t, i, cp);
    if (!len) {
      r.error("text:" + std::to_string(i), "invalid UTF-8 at byte " + std::to_string(i));
      return false;
    }
    if (cp == 0x0D) {
      if (!cr++) first_cr = i;
    } else if (isControl(cp) && cp != 0x09 && cp != 0x0A) {
      if (!ctl++) first_ctl = i, ctl_cp = cp;
    }
    i += static_cast<std::size_t>(len);
  }
  if (cr)
    r.error("text:" + std::to_string(first_cr), "carriage return (CR, U+000D) at byte " + std::to_string(first_cr) + " (" +
                                                    std::to_string(cr) + " in all); G4MF text allows only LF line ends");
  if (ctl) {
    r.error("text:" + std::to_string(first_ctl), "raw control character " + codePoint(ctl_cp) + " at byte " + std::to_string(first_ctl) +
                                                     " (" + std::to_string(ctl) + " in all); only TAB and LF are allowed");
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The checker

struct Buffer {
  bool valid = false;      ///< the JSON is right (byteLength known)
  u64 byte_length = 0;
  std::string owned;       ///< decoded data (base64 / Zstd)
  const unsigned char* data = nullptr;  ///< byte_length bytes, or nullptr when not available
};
struct View {
  bool valid = false;
  std::size_t buffer = 0;
  u64 offset = 0, length = 0;
};

enum class TypeReq { kAny, kFloat, kInteger, kUnsigned };

class Checker {
 public:
  Checker(std::span<const unsigned char> bytes, Report& report) : bytes_(bytes), r_(report) {}

  /// Runs every check. False when the file could not be parsed far enough to check the document.
  bool run() {
    std::string_view text;
    if (bytes_.size() >= 4 && std::memcmp(bytes_.data(), "G4MF", 4) == 0) {
      binary_ = true;
      if (!container(text)) return false;
    } else {
      text = std::string_view(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
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

  // State the reader uses.
  bool binary_ = false;
  Json doc_;
  int dim_ = 0;
  std::vector<Accessor> acc_;
  std::vector<const Json*> nodes_;       ///< nullptr where not an object
  std::vector<i64> parent_;              ///< -1: none
  std::vector<i64> skeleton_of_;         ///< per bone node: its skeleton node, -1 when none
  std::vector<const Json*> meshes_;
  std::vector<i64> mesh_vertices_;       ///< vertex count per mesh, -1 unknown

  static const Json* array(const Json& doc, std::string_view key) {
    const Json* a = doc.find(key);
    return a && a->isArray() ? a : nullptr;
  }

 private:
  // --- container -------------------------------------------------------------------------------
  bool container(std::string_view& text) {
    const u64 n = bytes_.size();
    const unsigned char* p = bytes_.data();
    if (n < 32) {
      r_.error("g4b:header", "a .g4b file has at least 32 bytes (file header and one chunk header); this one has " + str(n));
      return false;
    }
    const u64 version = loadLe(p + 4, 4);
    if (version != 0) {
      r_.error("g4b:header/version", "version is " + str(version) + "; the draft format is version 0");
      return false;
    }
    u64 end = n;
    const u64 declared = loadLe(p + 8, 8);
    if (declared & kTopBit) {
      r_.error("g4b:header/fileSize", "the file size has its top bit set");
    } else if (declared != n) {
      r_.error("g4b:header/fileSize", "the header declares " + str(declared) + " bytes, the file has " + str(n));
      if (declared < n) end = std::max<u64>(declared, 16);
    }
    u64 off = 16;
    while (end - off >= 16) {
      Chunk c;
      c.header_offset = off;
      std::memcpy(c.type, p + off, 4);
      std::memcpy(c.encoding, p + off + 4, 4);
      c.size = loadLe(p + off + 8, 8);
      const std::string where = "g4b:chunks/" + std::to_string(chunks_.size());
      if (c.size & kTopBit) {
        r_.error(where + "/dataSize", "the chunk's data size has its top bit set");
        break;
      }
      if (c.size > end - off - 16) {
        r_.error(where + "/dataSize", "the chunk declares " + str(c.size) + " bytes of data, only " + str(end - off - 16) + " remain");
        break;
      }
      c.data = p + off + 16;
      const u64 data_end = off + 16 + c.size;
      chunkEncoding(c, where);
      if (!c.isType("JSON") && !c.isType("BLOB")) {
        bool printable = true;
        for (char ch : c.type) printable = printable && ch >= 0x20 && ch < 0x7F;
        r_.warn(where + "/type", "unknown chunk type \"" + printable4(c.type) + "\" (ignored)" +
                                     (printable ? "" : "; chunk types should be printable ASCII"));
      }
      chunks_.push_back(c);
      const u64 next = (data_end + 15) & ~u64(15);
      if (next >= end) {
        if (data_end != end) r_.warn(where + "/padding", "padding after the last chunk (it needs none)");
        off = end;
        break;
      }
      if (c.isType("JSON") && c.plain())
        for (u64 k = data_end; k < next; ++k)
          if (p[k] != ' ') {
            r_.warn(where + "/padding", "padding after plain JSON should be spaces (0x20)");
            break;
          }
      off = next;
    }
    if (off < end && end - off < 16 && !chunks_.empty() && off != end)
      r_.warn("g4b:chunks", str(end - off) + " bytes after the last chunk are not a chunk header");
    if (chunks_.empty()) {
      r_.error("g4b:chunks", "the file has no chunk");
      return false;
    }
    for (std::size_t k = 0; k < chunks_.size(); ++k)
      if (chunks_[k].isType("JSON")) {
        json_chunk_ = static_cast<i64>(k);
        break;
      }
    if (json_chunk_ < 0) {
      r_.error("g4b:chunks", "the file has no JSON chunk");
      return false;
    }
    const Chunk& j = chunks_[static_cast<std::size_t>(json_chunk_)];
    const std::string where = "g4b:chunks/" + std::to_string(json_chunk_);
    if (j.plain()) {
      text = std::string_view(reinterpret_cast<const char*>(j.data), static_cast<std::size_t>(j.size));
      return true;
    }
    if (j.zstd()) {
      bool more = false;
      std::string error;
      if (!zstdDecode(j.data, static_cast<std::size_t>(j.size), kMaxJsonBytes, json_owned_, more, error)) {
        r_.error(where + "/data", "the JSON chunk cannot be decoded: " + error);
        return false;
      }
      if (more) {
        r_.error(where + "/data", "the JSON chunk decodes to more than " + str(kMaxJsonBytes) + " bytes");
        return false;
      }
      text = json_owned_;
      return true;
    }
    r_.error(where + "/encoding", "the JSON chunk's encoding \"" + printable4(j.encoding) + "\" is not supported");
    return false;
  }

  void chunkEncoding(const Chunk& c, const std::string& where) {
    if (c.reserved()) {
      r_.error(where + "/encoding", "encoding FF FF FF FF is reserved");
    } else if (c.zstd()) {
      if (c.size < 4 || std::memcmp(c.data, "\x28\xB5\x2F\xFD", 4) != 0)
        r_.error(where + "/data", "Zstd data must start with the Zstd magic 28 B5 2F FD");
    } else if (!c.plain()) {
      r_.warn(where + "/encoding", "unsupported encoding \"" + printable4(c.encoding) + "\"");
    }
  }

  // --- generic helpers ---------------------------------------------------------------------------
  /// An index property: an integer in [0, limit). Reports and returns -1 otherwise.
  i64 index(const Json* v, const std::string& path, u64 limit, std::string_view what) {
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
  i64 required(const Json& obj, std::string_view key, const std::string& base, u64 limit, std::string_view what) {
    const Json* v = obj.find(key);
    if (!v) {
      r_.error(at(base, key), "is required");
      return -1;
    }
    return index(v, at(base, key), limit, what);
  }
  std::optional<u64> nonNegative(const Json* v, const std::string& path) {
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
  const Json* object(const Json& parent, std::string_view key, const std::string& base) {
    const Json* v = parent.find(key);
    if (!v) return nullptr;
    if (!v->isObject()) {
      r_.error(at(base, key), "must be an object");
      return nullptr;
    }
    return v;
  }
  bool boolean(const Json& parent, std::string_view key, const std::string& base) {
    const Json* v = parent.find(key);
    if (!v) return false;
    if (!v->isBool()) {
      r_.error(at(base, key), "must be true or false");
      return false;
    }
    return v->asBool();
  }
  std::optional<std::vector<double>> numbers(const Json& parent, std::string_view key, const std::string& base) {
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
  u64 count(std::string_view key) const {
    const Json* a = array(doc_, key);
    return a ? a->size() : 0;
  }

  /// Checks that `v` names a valid accessor of the required kind and vector size (0: any).
  const Accessor* accessor(const Json* v, const std::string& path, TypeReq req, u64 vector_size, bool needed_type = true) {
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

  /// Every integer component of `a` in [0, limit); reports the first offender.
  void indicesBelow(const Accessor& a, u64 limit, const std::string& path, std::string_view what) {
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

  // --- asset -----------------------------------------------------------------------------------
  bool asset() {
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

  // --- names and items (§3) ----------------------------------------------------------------------
  void names() {
    std::map<std::string, std::string> seen;
    walkItems(doc_, "", seen);
  }
  void walkItems(const Json& v, const std::string& path, std::map<std::string, std::string>& seen) {
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
  void nameRules(const std::string& name, const std::string& path) {
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

  // --- top-level arrays --------------------------------------------------------------------------
  static void canonical(const Json& v, std::string& out) {
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
  void uniqueItems(const Json& a, const std::string& path) {
    std::map<std::string, std::size_t> seen;
    for (std::size_t k = 0; k < a.size(); ++k) {
      std::string key;
      canonical(a.items()[k], key);
      auto [it, added] = seen.emplace(std::move(key), k);
      if (!added) r_.error(at(path, k), "is identical to item " + std::to_string(it->second) + " (the array's items must be unique)");
    }
  }
  void topArrays() {
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

  // --- buffers (§4) ------------------------------------------------------------------------------
  void buffers() {
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
      // Encoding: absent (plain) or a 4-byte FourCC.
      std::string encoding;
      bool encoding_ok = true;
      if (const Json* e = b.find("encoding")) {
        encoding_ok = false;
        if (!e->isString()) {
          r_.error(at(p, "encoding"), "must be a string");
        } else {
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
            r_.warn(at(p, "encoding"), "unsupported encoding \"" + printable4(encoding.data()) + "\" (data not checked)");
          } else {
            encoding_ok = true;
          }
        }
      }
      if (!byte_length) continue;
      out.valid = true;
      out.byte_length = *byte_length;
      if (!encoding_ok) continue;
      // The encoded bytes.
      const unsigned char* src = nullptr;
      std::size_t src_size = 0;
      std::string decoded_uri;
      bool from_uri = false;
      if (chunk && binary_) {
        const i64 c = index(chunk, at(p, "chunk"), chunks_.size(), "chunks");
        if (c < 0) continue;
        const Chunk& ch = chunks_[static_cast<std::size_t>(c)];
        if (c == json_chunk_) {
          r_.error(at(p, "chunk"), "refers to the JSON chunk");
          continue;
        }
        const bool matches = encoding.empty() ? ch.plain() : std::memcmp(ch.encoding, encoding.data(), 4) == 0;
        if (!matches) {
          r_.error(at(p, "encoding"), "the buffer's encoding (" + (encoding.empty() ? std::string("plain") : "\"" + encoding + "\"") +
                                          ") does not match chunk " + std::to_string(c) + "'s (" +
                                          (ch.plain() ? std::string("plain") : "\"" + printable4(ch.encoding) + "\"") + ")");
          continue;
        }
        if (ch.reserved() || (!ch.plain() && !ch.zstd())) continue;
        src = ch.data;
        src_size = static_cast<std::size_t>(ch.size);
      } else if (uri && !(chunk && binary_)) {
        const std::string& s = uri->asString();
        if (s.rfind("data:", 0) == 0) {
          if (s.rfind(kDataUriPrefix, 0) != 0) {
            r_.error(at(p, "uri"), "a data URI must start with \"" + std::string(kDataUriPrefix) + "\"");
            continue;
          }
          if (binary_) r_.warn(at(p, "uri"), "buffers of a .g4b file should not use base64 data URIs");
          std::size_t bad = 0;
          if (!base64Decode(std::string_view(s).substr(kDataUriPrefix.size()), decoded_uri, bad)) {
            r_.error(at(p, "uri"), "invalid base64 at character " + std::to_string(kDataUriPrefix.size() + bad) + " of the URI");
            continue;
          }
          src = reinterpret_cast<const unsigned char*>(decoded_uri.data());
          src_size = decoded_uri.size();
          from_uri = true;
        } else {
          r_.warn(at(p, "uri"), "external buffer \"" + s + "\" is not read; its data is not checked");
          external_ = true;
          continue;
        }
      } else {
        continue;
      }
      if (encoding == "Zstd") {
        if (out.byte_length > kMaxBufferBytes) {
          r_.error(at(p, "byteLength"), "buffers larger than " + str(kMaxBufferBytes) + " bytes are not supported");
          continue;
        }
        bool more = false;
        std::string error;
        if (!zstdDecode(src, src_size, out.byte_length, out.owned, more, error)) {
          r_.error(chunk && binary_ ? at(p, "chunk") : at(p, "uri"), "cannot decode the buffer: " + error);
          continue;
        }
      } else if (from_uri) {
        out.owned = std::move(decoded_uri);
      } else if (src_size < out.byte_length) {
        r_.error(at(p, "byteLength"), "is " + str(out.byte_length) + " but chunk " + str(u64(chunk->asInt())) + " has only " +
                                          str(u64(src_size)) + " bytes");
        continue;
      } else {
        out.data = src;
        continue;
      }
      if (out.owned.size() < out.byte_length) {
        r_.error(at(p, "byteLength"), "is " + str(out.byte_length) + " but the data has only " + str(u64(out.owned.size())) + " bytes");
        continue;
      }
      out.data = reinterpret_cast<const unsigned char*>(out.owned.data());
    }
  }

  // --- buffer views (§5) -------------------------------------------------------------------------
  void views() {
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

  // --- accessors (§6) ----------------------------------------------------------------------------
  void accessors() {
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

  // --- nodes (§7) --------------------------------------------------------------------------------
  void nodes() {
    const Json* a = array(doc_, "nodes");
    if (!a) return;
    const std::size_t n = a->size();
    nodes_.assign(n, nullptr);
    parent_.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i)
      if (a->items()[i].isObject()) nodes_[i] = &a->items()[i];
    static const char* kComponents[] = {"bone", "camera", "light", "meshInstance", "modelInstance", "physics", "skeleton"};
    for (std::size_t i = 0; i < n; ++i) {
      if (!nodes_[i]) continue;
      const Json& node = *nodes_[i];
      const std::string p = at("/nodes", i);
      if (const Json* c = node.find("children")) {
        if (!c->isArray()) {
          r_.error(at(p, "children"), "must be an array");
        } else {
          if (c->size() == 0) r_.error(at(p, "children"), "must not be empty (omit it instead)");
          std::set<i64> local;
          for (std::size_t k = 0; k < c->size(); ++k) {
            const std::string cp = at(at(p, "children"), k);
            const Json& cv = c->items()[k];
            auto ci = integerOf(cv);
            if (ci && *ci == 0) {
              r_.error(cp, "the root node (0) cannot be a child");
              continue;
            }
            const i64 child = index(&cv, cp, n, "nodes");
            if (child < 0) continue;
            if (!local.insert(child).second) {
              r_.error(cp, "node " + std::to_string(child) + " is listed twice");
              continue;
            }
            if (parent_[static_cast<std::size_t>(child)] >= 0) {
              r_.error(cp, "node " + std::to_string(child) + " already has parent " + std::to_string(parent_[static_cast<std::size_t>(child)]) +
                               " (a node has at most one parent)");
              continue;
            }
            parent_[static_cast<std::size_t>(child)] = static_cast<i64>(i);
          }
        }
      }
      std::vector<std::string> comps;
      for (const char* c : kComponents)
        if (node.contains(c)) comps.push_back(c);
      if (comps.size() > 1) {
        std::string list;
        for (const auto& c : comps) list += (list.empty() ? "" : ", ") + c;
        r_.error(p, "a node has at most one of bone, camera, light, meshInstance, modelInstance, physics, skeleton; this one has " + list);
      }
      transform(node, p, i == 0);
      boolean(node, "visible", p);
      if (node.contains("bone")) bone(node, p);
      if (const Json* s = node.find("skeleton"); s && !s->isObject()) r_.error(at(p, "skeleton"), "must be an object");
      if (const Json* mi = node.find("meshInstance"); mi && !mi->isObject()) r_.error(at(p, "meshInstance"), "must be an object");
    }
    // Cycles (each node has at most one parent, so following parents either ends or loops).
    std::vector<std::uint8_t> state(n, 0);  // 0 new, 1 on the current path, 2 done
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<std::size_t> path;
      std::size_t j = i;
      while (state[j] == 0) {
        state[j] = 1;
        path.push_back(j);
        if (parent_[j] < 0) break;
        j = static_cast<std::size_t>(parent_[j]);
      }
      if (state[j] == 1 && parent_[j] >= 0) {
        r_.error(at(at("/nodes", static_cast<std::size_t>(parent_[j])), "children"), "node " + std::to_string(j) + " is its own ancestor (cycle)");
        cyclic_ = true;
      }
      for (std::size_t k : path) state[k] = 2;
    }
    if (cyclic_) return;
    // Parents-first order of the whole forest (linear, whatever the depth).
    std::vector<std::size_t> first_child(n + 1, 0), kids(n);
    for (std::size_t i = 0; i < n; ++i)
      if (parent_[i] >= 0) ++first_child[static_cast<std::size_t>(parent_[i]) + 1];
    for (std::size_t i = 0; i < n; ++i) first_child[i + 1] += first_child[i];
    std::vector<std::size_t> fill(first_child.begin(), first_child.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      if (parent_[i] >= 0) kids[fill[static_cast<std::size_t>(parent_[i])]++] = i;
    topo_.clear();
    topo_.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      if (parent_[i] < 0) topo_.push_back(i);
    for (std::size_t k = 0; k < topo_.size(); ++k)
      for (std::size_t c = first_child[topo_[k]]; c < first_child[topo_[k] + 1]; ++c) topo_.push_back(kids[c]);
    std::vector<std::uint8_t> under_root(n, 0);
    for (std::size_t i : topo_) under_root[i] = i == 0 || (parent_[i] >= 0 && under_root[static_cast<std::size_t>(parent_[i])]);
    for (std::size_t i = 1; i < n; ++i)
      if (!under_root[i]) r_.warn(at("/nodes", i), "not a descendant of the root node 0 (unused)");
  }

  void transform(const Json& node, const std::string& p, bool root) {
    const u64 d = static_cast<u64>(dim_);
    if (root)
      for (const char* key : {"position", "basis", "rotor", "scale"})
        if (node.contains(key)) r_.error(at(p, key), "the root node must not have a transform");
    if (auto pos = numbers(node, "position", p); pos && pos->size() != d)
      r_.error(at(p, "position"), "must have " + str(d) + " numbers (the dimension), has " + str(u64(pos->size())));
    if (auto basis = numbers(node, "basis", p); basis && basis->size() != d * d)
      r_.error(at(p, "basis"), "must have " + str(d * d) + " numbers (dimension squared), has " + str(u64(basis->size())));
    if (node.contains("basis") && node.contains("rotor")) r_.error(at(p, "basis"), "basis must not be combined with rotor");
    if (node.contains("basis") && node.contains("scale")) r_.error(at(p, "basis"), "basis must not be combined with scale");
    if (auto rotor = numbers(node, "rotor", p)) {
      const u64 lo = 1 + d * (d - 1) / 2, hi = d <= 20 ? u64(1) << (d - 1) : ~u64(0);
      if (rotor->size() < lo || rotor->size() > hi)
        r_.error(at(p, "rotor"), "a " + str(d) + "D rotor has " + (lo == hi ? str(lo) : str(lo) + " to " + str(hi)) + " numbers, this one " +
                                     str(u64(rotor->size())));
      double norm = 0.0;
      for (std::size_t k = 0; k < rotor->size(); ++k) {
        if ((*rotor)[k] < -1.0 || (*rotor)[k] > 1.0) r_.error(at(at(p, "rotor"), k), "rotor numbers lie in [-1, 1]");
        norm += (*rotor)[k] * (*rotor)[k];
      }
      if (!(norm > 0.0)) r_.error(at(p, "rotor"), "a zero rotor is no rotation");
    }
    if (auto scale = numbers(node, "scale", p)) {
      if (scale->size() != 1 && scale->size() != d)
        r_.error(at(p, "scale"), "must have 1 or " + str(d) + " numbers, has " + str(u64(scale->size())));
      for (std::size_t k = 0; k < scale->size(); ++k)
        if (!((*scale)[k] > 0.0)) r_.error(at(at(p, "scale"), k), "scale must be > 0 (use basis for flips)");
    }
  }

  void bone(const Json& node, const std::string& p) {
    const Json* b = object(node, "bone", p);
    if (!b) return;
    const std::string bp = at(p, "bone");
    if (const Json* l = b->find("length")) {
      if (!l->isNumber()) r_.error(at(bp, "length"), "must be a number");
      else if (l->asDouble() < 0.0) r_.error(at(bp, "length"), "must not be negative (-1 is an in-memory value, never written)");
    }
    if (const Json* m = b->find("mass")) {
      if (!m->isNumber()) r_.error(at(bp, "mass"), "must be a number");
      else if (m->asDouble() < 0.0) r_.error(at(bp, "mass"), "must not be negative");
      else if (m->asDouble() == 0.0) r_.warn(at(bp, "mass"), "0 is allowed by the text but rejected by the schema (exclusiveMinimum 0)");
    }
    if (const Json* s = b->find("shape")) {
      index(s, at(bp, "shape"), count("shapes"), "shapes");
      if (!b->contains("length")) r_.error(at(bp, "shape"), "shape requires length");
    }
  }

  // --- skeletons and bones (§12) ------------------------------------------------------------------
  void skeletons() {
    const std::size_t n = nodes_.size();
    skeleton_of_.assign(n, -1);
    if (cyclic_) return;
    auto isBone = [&](std::size_t i) { return nodes_[i] && nodes_[i]->contains("bone"); };
    auto isSkeleton = [&](std::size_t i) { return nodes_[i] && nodes_[i]->contains("skeleton"); };
    for (std::size_t i = 0; i < n; ++i) {
      if (!isBone(i)) continue;
      const i64 par = parent_[i];
      if (par < 0 || !(isBone(static_cast<std::size_t>(par)) || isSkeleton(static_cast<std::size_t>(par)))) {
        r_.error(at(at("/nodes", i), "bone"), par < 0 ? "a bone must descend from a skeleton node (this one has no parent)"
                                                      : "a bone's parent must be a bone or the skeleton node; node " + std::to_string(par) + " is neither");
      }
    }
    for (std::size_t i : topo_) {  // parents first: a bone's skeleton is its parent's
      const i64 par = parent_[i];
      if (!isBone(i) || par < 0) continue;
      skeleton_of_[i] = isSkeleton(static_cast<std::size_t>(par)) ? par : isBone(static_cast<std::size_t>(par)) ? skeleton_of_[static_cast<std::size_t>(par)] : -1;
    }
    std::vector<i64> joint_pos(n, -1);  // first position of a bone in its own skeleton's joints
    for (std::size_t s = 0; s < n; ++s) {
      if (!isSkeleton(s) || !nodes_[s]->find("skeleton")->isObject()) continue;
      const Json& skel = *nodes_[s]->find("skeleton");
      const std::string p = at(at("/nodes", s), "skeleton");
      std::vector<i64> joints;
      if (const Json* j = skel.find("joints")) {
        if (!j->isArray()) {
          r_.error(at(p, "joints"), "must be an array");
        } else {
          i64 previous = -1;
          for (std::size_t k = 0; k < j->size(); ++k) {
            const std::string jp = at(at(p, "joints"), k);
            const Json& jv = j->items()[k];
            auto ji = integerOf(jv);
            if (ji && *ji == -1) {
              r_.warn(jp, "-1 (a group driven by no bone) is allowed by the text but rejected by the schema");
              joints.push_back(-1);
              continue;
            }
            const i64 node = index(&jv, jp, n, "nodes");
            joints.push_back(node);
            if (node < 0) continue;
            if (!isBone(static_cast<std::size_t>(node))) {
              r_.error(jp, "node " + std::to_string(node) + " is not a bone");
              continue;
            }
            if (skeleton_of_[static_cast<std::size_t>(node)] != static_cast<i64>(s)) {
              r_.error(jp, "bone " + std::to_string(node) + " is not part of this skeleton (no unbroken bone chain to node " + std::to_string(s) + ")");
              continue;
            }
            if (node < previous) r_.error(jp, "joints must be strictly increasing: " + std::to_string(node) + " after " + std::to_string(previous));
            else if (node == previous) r_.warn(jp, "bone " + std::to_string(node) + " repeats (allowed by the text, breaks strictly increasing order)");
            previous = std::max(previous, node);
          }
          for (std::size_t k = 0; k < joints.size(); ++k)
            if (joints[k] >= 0 && skeleton_of_[static_cast<std::size_t>(joints[k])] == static_cast<i64>(s) &&
                joint_pos[static_cast<std::size_t>(joints[k])] < 0)
              joint_pos[static_cast<std::size_t>(joints[k])] = static_cast<i64>(k);
        }
      }
      joints_[s] = joints;
      // A single root bone is the skeleton's first child and, when a joint, joints[0].
      std::vector<i64> roots;
      const Json* children = nodes_[s]->find("children");
      if (children && children->isArray())
        for (const Json& c : children->items()) {
          auto ci = integerOf(c);
          if (ci && *ci > 0 && static_cast<u64>(*ci) < n && isBone(static_cast<std::size_t>(*ci)) &&
              parent_[static_cast<std::size_t>(*ci)] == static_cast<i64>(s))
            roots.push_back(*ci);
        }
      if (roots.size() == 1) {
        auto first_child = integerOf(children->items()[0]);
        if (!first_child || *first_child != roots[0])
          r_.error(at(at("/nodes", s), "children"), "the skeleton's single root bone (node " + std::to_string(roots[0]) + ") must be its first child");
        if (std::find(joints.begin(), joints.end(), roots[0]) != joints.end() && joints[0] != roots[0])
          r_.error(at(at(p, "joints"), 0), "the single root bone (node " + std::to_string(roots[0]) + ") is a joint, so it must be joints[0]");
      }
    }
    // Parents before children: no ancestor bone of a joint may be listed after it. ancestor[i] =
    // the latest joints position among i's ancestor bones, computed parents first.
    std::vector<i64> ancestor(n, -1);
    for (std::size_t i : topo_) {
      const i64 par = parent_[i];
      if (!isBone(i) || par < 0 || !isBone(static_cast<std::size_t>(par))) continue;
      ancestor[i] = std::max(ancestor[static_cast<std::size_t>(par)], joint_pos[static_cast<std::size_t>(par)]);
    }
    for (const auto& [s, joints] : joints_)
      for (std::size_t k = 0; k < joints.size(); ++k) {
        const i64 j = joints[k];
        if (j < 0 || skeleton_of_[static_cast<std::size_t>(j)] != static_cast<i64>(s)) continue;
        if (ancestor[static_cast<std::size_t>(j)] > static_cast<i64>(k))
          r_.error(at(at(at(at("/nodes", s), "skeleton"), "joints"), k),
                   "bone " + std::to_string(j) + " is listed before an ancestor bone (joints " + std::to_string(ancestor[static_cast<std::size_t>(j)]) + ")");
      }
  }

  // --- meshes (§9, §11, §14) ---------------------------------------------------------------------
  void meshes() {
    const Json* a = array(doc_, "meshes");
    if (!a) return;
    meshes_.assign(a->size(), nullptr);
    mesh_vertices_.assign(a->size(), -1);
    mesh_surfaces_.assign(a->size(), 0);
    mesh_shapes_.assign(a->size(), -1);
    normal_values_.assign(a->size(), {});
    uv_values_.assign(a->size(), {});
    for (std::size_t m = 0; m < a->size(); ++m) {
      if (!a->items()[m].isObject()) continue;
      const Json& mesh = a->items()[m];
      meshes_[m] = &mesh;
      const std::string p = at("/meshes", m);
      if (!mesh.contains("vertices")) r_.error(at(p, "vertices"), "is required");
      if (const Accessor* v = accessor(mesh.find("vertices"), at(p, "vertices"), TypeReq::kAny, static_cast<u64>(dim_))) {
        mesh_vertices_[m] = static_cast<i64>(v->count);
        if (v->type->kind != Kind::kFloat) r_.warn(at(p, "vertices"), "vertices should be floating-point");
      }
      const u64 nv = mesh_vertices_[m] >= 0 ? static_cast<u64>(mesh_vertices_[m]) : 0;
      const bool known = mesh_vertices_[m] >= 0;
      const Json* surfaces = mesh.find("surfaces");
      if (!surfaces) r_.error(at(p, "surfaces"), "is required");
      else if (!surfaces->isArray()) r_.error(at(p, "surfaces"), "must be an array");
      else if (surfaces->size() == 0) r_.error(at(p, "surfaces"), "must have at least one surface");
      if (surfaces && surfaces->isArray()) {
        uniqueItems(*surfaces, at(p, "surfaces"));
        mesh_surfaces_[m] = surfaces->size();
        normal_values_[m].assign(surfaces->size(), -1);
        uv_values_[m].assign(surfaces->size(), -1);
        for (std::size_t s = 0; s < surfaces->size(); ++s) {
          if (!surfaces->items()[s].isObject()) {
            r_.error(at(at(p, "surfaces"), s), "must be an object");
            continue;
          }
          surface(surfaces->items()[s], at(at(p, "surfaces"), s), nv, known, normal_values_[m][s], uv_values_[m][s]);
        }
      }
      if (const Json* skin = object(mesh, "skin", p)) this->skin(*skin, at(p, "skin"), nv, known);
      if (const Json* blend = object(mesh, "blend", p)) this->blend(*blend, at(p, "blend"), nv, known, m, surfaces);
    }
  }

  void surface(const Json& s, const std::string& p, u64 nv, bool known, i64& normal_count, i64& uv_count) {
    const u64 d = static_cast<u64>(dim_);
    const Accessor* simplexes = nullptr;
    const bool has_simplexes = s.contains("simplexes");
    if (has_simplexes) {
      simplexes = accessor(s.find("simplexes"), at(p, "simplexes"), TypeReq::kInteger, d);
      if (simplexes && known) indicesBelow(*simplexes, nv, at(p, "simplexes"), "(the mesh's vertices)");
    }
    if (s.contains("polytopeSimplexes")) {
      boolean(s, "polytopeSimplexes", p);
      if (!has_simplexes) r_.error(at(p, "polytopeSimplexes"), "requires simplexes");
    }
    if (s.contains("edges")) {
      const Accessor* e = accessor(s.find("edges"), at(p, "edges"), TypeReq::kInteger, 2);
      if (e && known) indicesBelow(*e, nv, at(p, "edges"), "(the mesh's vertices)");
    }
    if (const Json* g = s.find("geometry")) {
      if (!s.contains("edges")) r_.error(at(p, "geometry"), "requires edges");
      if (!g->isArray() || g->size() == 0) {
        r_.error(at(p, "geometry"), "must be a non-empty array of accessor indices");
      } else {
        uniqueItems(*g, at(p, "geometry"));
        for (std::size_t k = 0; k < g->size(); ++k) accessor(&g->items()[k], at(at(p, "geometry"), k), TypeReq::kUnsigned, 1);
      }
    }
    if (s.contains("seams")) {
      if (!s.contains("edges")) r_.error(at(p, "seams"), "requires edges");
      accessor(s.find("seams"), at(p, "seams"), TypeReq::kUnsigned, 1);
    }
    if (const Json* mat = s.find("material")) index(mat, at(p, "material"), count("materials"), "materials");
    if (const Json* n = object(s, "normals", p)) normal_count = binding(*n, at(p, "normals"), simplexes, has_simplexes, true);
    if (const Json* t = object(s, "textureMap", p)) uv_count = binding(*t, at(p, "textureMap"), simplexes, has_simplexes, false);
  }

  // A binding (§9.3); returns the values count (-1 unknown).
  i64 binding(const Json& b, const std::string& p, const Accessor* simplexes, bool has_simplexes, bool normals) {
    const u64 d = static_cast<u64>(dim_);
    if (!b.contains("values")) r_.error(at(p, "values"), "is required");
    const Accessor* values = accessor(b.find("values"), at(p, "values"), TypeReq::kFloat, normals ? d : 0);
    i64 count = values ? static_cast<i64>(values->count) : -1;
    if (values && normals && values->data) {
      const double tolerance = values->type->size == 1 ? 0.15 : values->type->size == 2 ? 4e-3 : 1e-3;
      u64 bad = 0, first = 0;
      double first_len = 0;
      for (u64 k = 0; k < values->count; ++k) {
        double len = 0.0;
        for (u64 c = 0; c < d; ++c) len += values->real(k * d + c) * values->real(k * d + c);
        len = std::sqrt(len);
        if (!(std::abs(len - 1.0) <= tolerance))
          if (!bad++) first = k, first_len = len;
      }
      if (bad) r_.error(at(p, "values"), "normal " + str(first) + " has length " + str(first_len) + "; normals must be unit length (" + str(bad) + " in all)");
    }
    if (values && !normals && values->type->kind != Kind::kFloat) count = -1;
    if (b.contains("simplexes")) {
      if (!has_simplexes) r_.error(at(p, "simplexes"), "the surface has no simplexes to bind to");
      const Accessor* idx = accessor(b.find("simplexes"), at(p, "simplexes"), TypeReq::kInteger, simplexes ? simplexes->vector_size : 0);
      if (idx && simplexes && idx->count != simplexes->count)
        r_.error(at(p, "simplexes"), "has " + str(idx->count) + " elements, the surface's simplexes " + str(simplexes->count));
      if (idx && count >= 0) indicesBelow(*idx, static_cast<u64>(count), at(p, "simplexes"), "(the binding's values)");
    }
    if (b.contains("perSimplex")) {
      if (!has_simplexes) r_.error(at(p, "perSimplex"), "the surface has no simplexes to bind to");
      const Accessor* idx = accessor(b.find("perSimplex"), at(p, "perSimplex"), TypeReq::kInteger, 1);
      if (idx && simplexes && idx->count != simplexes->count)
        r_.error(at(p, "perSimplex"), "has " + str(idx->count) + " elements, the surface has " + str(simplexes->count) + " simplexes");
      if (idx && count >= 0) indicesBelow(*idx, static_cast<u64>(count), at(p, "perSimplex"), "(the binding's values)");
    }
    if (const Json* g = b.find("geometry")) {
      if (!g->isArray()) {
        r_.error(at(p, "geometry"), "must be an array");
      } else {
        for (std::size_t k = 0; k < g->size(); ++k) {
          const std::string gp = at(at(p, "geometry"), k);
          const Json& item = g->items()[k];
          if (!item.isObject()) {
            r_.error(gp, "must be an object");
            continue;
          }
          if (!item.contains("accessor")) r_.error(at(gp, "accessor"), "is required");
          else accessor(item.find("accessor"), at(gp, "accessor"), TypeReq::kInteger, 0);
          if (!item.contains("geometryDimension")) r_.error(at(gp, "geometryDimension"), "is required");
          auto gd = nonNegative(item.find("geometryDimension"), at(gp, "geometryDimension"));
          auto dd = nonNegative(item.find("decomposeDimension"), at(gp, "decomposeDimension"));
          if (gd && dd && *dd > *gd) r_.error(at(gp, "decomposeDimension"), "must not be greater than geometryDimension");
        }
      }
    }
    return count;
  }

  void skin(const Json& s, const std::string& p, u64 nv, bool known) {
    for (const char* key : {"vertices", "groups", "weights"})
      if (!s.contains(key)) r_.error(at(p, key), "is required");
    const Accessor* v = accessor(s.find("vertices"), at(p, "vertices"), TypeReq::kUnsigned, 1);
    const Accessor* g = accessor(s.find("groups"), at(p, "groups"), TypeReq::kUnsigned, 1);
    const Accessor* w = accessor(s.find("weights"), at(p, "weights"), TypeReq::kFloat, 1);
    if (v && known) indicesBelow(*v, nv, at(p, "vertices"), "(the mesh's vertices)");
    if (v && g && v->count != g->count) r_.error(at(p, "groups"), "has " + str(g->count) + " elements, vertices has " + str(v->count));
    if (v && w && v->count != w->count) r_.error(at(p, "weights"), "has " + str(w->count) + " elements, vertices has " + str(v->count));
    if (v && v->data) {
      for (u64 k = 1; k < v->count; ++k)
        if (v->integer(k) < v->integer(k - 1)) {
          r_.error(at(p, "vertices"), "must be ascending: element " + str(k) + " is " + std::to_string(v->integer(k)) + " after " +
                                          std::to_string(v->integer(k - 1)));
          break;
        }
    }
    if (w && w->data) {
      for (u64 k = 0; k < w->count; ++k)
        if (!std::isfinite(w->real(k))) {
          r_.error(at(p, "weights"), "weight " + str(k) + " is not a finite number");
          break;
        }
      for (u64 k = 0; k < w->count; ++k)
        if (w->real(k) < 0.0) {
          r_.warn(at(p, "weights"), "weight " + str(k) + " is negative");
          break;
        }
    }
    if (v && w && v->data && w->data && v->count == w->count) {
      for (u64 k = 1; k < v->count; ++k)
        if (v->integer(k) == v->integer(k - 1) && w->real(k) > w->real(k - 1)) {
          r_.error(at(p, "weights"), "weights of vertex " + std::to_string(v->integer(k)) + " must be descending: " + str(w->real(k)) +
                                         " after " + str(w->real(k - 1)) + " (element " + str(k) + ")");
          break;
        }
    }
    if (const Json* names = s.find("groupNames")) {
      if (!names->isArray()) {
        r_.error(at(p, "groupNames"), "must be an array of strings");
      } else {
        std::map<std::string, std::size_t> seen;
        for (std::size_t k = 0; k < names->size(); ++k) {
          const Json& n = names->items()[k];
          const std::string np = at(at(p, "groupNames"), k);
          if (!n.isString()) r_.error(np, "must be a string");
          else if (n.asString().empty()) r_.error(np, "group names must not be empty");
          else if (!seen.emplace(n.asString(), k).second)
            r_.error(np, "group name \"" + n.asString() + "\" repeats item " + std::to_string(seen[n.asString()]));
        }
      }
    }
  }

  void blend(const Json& b, const std::string& p, u64 nv, bool known, std::size_t m, const Json* surfaces) {
    const u64 d = static_cast<u64>(dim_);
    const Json* shapes = b.find("shapes");
    if (!shapes) {
      r_.error(at(p, "shapes"), "is required");
      return;
    }
    if (!shapes->isArray()) {
      r_.error(at(p, "shapes"), "must be an array");
      return;
    }
    mesh_shapes_[m] = static_cast<i64>(shapes->size());
    if (auto amounts = numbers(b, "amounts", p); amounts && amounts->size() != shapes->size())
      r_.error(at(p, "amounts"), "has " + str(u64(amounts->size())) + " numbers for " + str(u64(shapes->size())) + " shapes");
    const u64 surface_count = surfaces && surfaces->isArray() ? surfaces->size() : 0;
    auto target = [&](const Json& t, const std::string& tp, u64 limit, bool limit_known, u64 offsets_size, std::string_view what) {
      if (!t.isObject()) {
        r_.error(tp, "must be an object");
        return;
      }
      for (const char* key : {"indices", "offsets"})
        if (!t.contains(key)) r_.error(at(tp, key), "is required");
      const Accessor* idx = accessor(t.find("indices"), at(tp, "indices"), TypeReq::kUnsigned, 1);
      const Accessor* off = accessor(t.find("offsets"), at(tp, "offsets"), TypeReq::kAny, offsets_size);
      if (idx && limit_known) indicesBelow(*idx, limit, at(tp, "indices"), what);
      if (idx && off && idx->count != off->count)
        r_.error(at(tp, "offsets"), "has " + str(off->count) + " elements, indices has " + str(idx->count));
    };
    for (std::size_t k = 0; k < shapes->size(); ++k) {
      const Json& shape = shapes->items()[k];
      const std::string sp = at(at(p, "shapes"), k);
      if (!shape.isObject()) {
        r_.error(sp, "must be an object");
        continue;
      }
      if (const Json* pos = shape.find("position")) target(*pos, at(sp, "position"), nv, known, d, "(the mesh's vertices)");
      if (const Json* ss = shape.find("surfaces")) {
        if (!ss->isArray()) {
          r_.error(at(sp, "surfaces"), "must be an array");
          continue;
        }
        if (ss->size() == 0) r_.error(at(sp, "surfaces"), "an empty surfaces array must be omitted");
        if (ss->size() > surface_count && surface_count)
          r_.error(at(sp, "surfaces"), "has more entries than the mesh has surfaces");
        uniqueItems(*ss, at(sp, "surfaces"));
        std::set<i64> used;
        for (std::size_t e = 0; e < ss->size(); ++e) {
          const Json& entry = ss->items()[e];
          const std::string ep = at(at(sp, "surfaces"), e);
          if (!entry.isObject()) {
            r_.error(ep, "must be an object");
            continue;
          }
          if (!entry.contains("surface")) r_.error(at(ep, "surface"), "is required");
          const i64 si = index(entry.find("surface"), at(ep, "surface"), surface_count, "surfaces");
          if (si >= 0 && !used.insert(si).second) r_.error(at(ep, "surface"), "surface " + std::to_string(si) + " appears twice in this shape");
          if (!entry.contains("normal") && !entry.contains("textureMap"))
            r_.error(ep, "an entry holding only surface must be omitted");
          const i64 nvals = si >= 0 ? normal_values_[m][static_cast<std::size_t>(si)] : -1;
          const i64 tvals = si >= 0 ? uv_values_[m][static_cast<std::size_t>(si)] : -1;
          if (const Json* n = entry.find("normal")) target(*n, at(ep, "normal"), nvals >= 0 ? u64(nvals) : 0, nvals >= 0, d, "(the surface's normal values)");
          if (const Json* t = entry.find("textureMap")) {
            u64 tsize = 0;
            if (si >= 0) {
              const Json& surf = surfaces->items()[static_cast<std::size_t>(si)];
              const Json* tm = surf.isObject() ? surf.find("textureMap") : nullptr;
              const Json* values = tm && tm->isObject() ? tm->find("values") : nullptr;
              auto vi = values ? integerOf(*values) : std::nullopt;
              if (vi && *vi >= 0 && static_cast<u64>(*vi) < acc_.size() && acc_[static_cast<std::size_t>(*vi)].valid)
                tsize = acc_[static_cast<std::size_t>(*vi)].vector_size;
            }
            target(*t, at(ep, "textureMap"), tvals >= 0 ? u64(tvals) : 0, tvals >= 0, tsize, "(the surface's texture map values)");
          }
        }
      }
    }
  }

  // --- mesh instances (§10) and skinned meshes ----------------------------------------------------
  void meshInstances() {
    std::map<i64, std::vector<std::pair<std::size_t, std::size_t>>> skinned_by_skeleton;  // skeleton -> (node, mesh)
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (!nodes_[i]) continue;
      const Json* mi = nodes_[i]->find("meshInstance");
      if (!mi || !mi->isObject()) continue;
      const std::string p = at(at("/nodes", i), "meshInstance");
      if (!mi->contains("mesh")) r_.error(at(p, "mesh"), "is required");
      const i64 m = index(mi->find("mesh"), at(p, "mesh"), meshes_.size(), "meshes");
      if (const Json* mats = mi->find("materials")) {
        if (!mats->isArray() || mats->size() == 0) {
          r_.error(at(p, "materials"), "must be a non-empty array (omit it instead)");
        } else {
          for (std::size_t k = 0; k < mats->size(); ++k) {
            auto v = integerOf(mats->items()[k]);
            if (v && *v == -1) r_.warn(at(at(p, "materials"), k), "-1 (keep the surface's material) is allowed by the text but rejected by the schema");
            else index(&mats->items()[k], at(at(p, "materials"), k), count("materials"), "materials");
          }
          if (m >= 0 && mats->size() != 1 && mats->size() != mesh_surfaces_[static_cast<std::size_t>(m)])
            r_.error(at(p, "materials"), "must have 1 entry or one per surface (" + str(u64(mesh_surfaces_[static_cast<std::size_t>(m)])) + ")");
        }
      }
      if (auto amounts = numbers(*mi, "blendAmounts", p); amounts && m >= 0) {
        const i64 shapes = mesh_shapes_[static_cast<std::size_t>(m)];
        if (static_cast<i64>(amounts->size()) != std::max<i64>(shapes, 0))
          r_.error(at(p, "blendAmounts"), "has " + str(u64(amounts->size())) + " numbers for " + std::to_string(std::max<i64>(shapes, 0)) + " blend shapes");
      }
      if (m < 0 || !meshes_[static_cast<std::size_t>(m)] || !meshes_[static_cast<std::size_t>(m)]->contains("skin")) continue;
      const i64 par = parent_[i];
      if (par < 0 || !nodes_[static_cast<std::size_t>(par)] || !nodes_[static_cast<std::size_t>(par)]->contains("skeleton"))
        r_.warn(p, "the mesh has a skin but this node is not a direct child of a skeleton node: it is drawn unskinned");
      else
        skinned_by_skeleton[par].emplace_back(i, static_cast<std::size_t>(m));
    }
    // Group names of skinned meshes sharing a skeleton must match.
    for (const auto& [skel, users] : skinned_by_skeleton) {
      for (std::size_t a = 1; a < users.size(); ++a) {
        const Json* na = meshes_[users[0].second]->find("skin")->find("groupNames");
        const Json* nb = meshes_[users[a].second]->find("skin")->find("groupNames");
        if (!na || !nb || !na->isArray() || !nb->isArray()) continue;
        for (std::size_t k = 0; k < std::min(na->size(), nb->size()); ++k)
          if (!(na->items()[k] == nb->items()[k])) {
            r_.error(at(at(at(at("/meshes", users[a].second), "skin"), "groupNames"), k),
                     "differs from mesh " + std::to_string(users[0].second) + "'s group " + std::to_string(k) + " although both are skinned by skeleton node " +
                         std::to_string(skel));
            break;
          }
      }
    }
  }

  // --- materials, textures, files (§9.4) ----------------------------------------------------------
  void materials() {
    if (const Json* a = array(doc_, "materials"))
      for (std::size_t i = 0; i < a->size(); ++i) {
        const Json& m = a->items()[i];
        if (!m.isObject()) continue;
        for (const char* ch : {"baseColor", "emissive", "normal", "orm"}) {
          const Json* c = object(m, ch, at("/materials", i));
          if (!c) continue;
          const std::string cp = at(at("/materials", i), ch);
          if (const Json* t = c->find("texture")) index(t, at(cp, "texture"), count("textures"), "textures");
          numbers(*c, "factor", cp);
          if (const Json* tm = object(*c, "textureMap", cp)) binding(*tm, at(cp, "textureMap"), nullptr, true, false);
        }
      }
    if (const Json* a = array(doc_, "textures"))
      for (std::size_t i = 0; i < a->size(); ++i) {
        const Json& t = a->items()[i];
        if (!t.isObject()) continue;
        for (const char* key : {"size", "placeholder"})
          if (!t.contains(key)) r_.error(at(at("/textures", i), key), "is required");
        if (const Json* f = t.find("files")) {
          if (!f->isArray()) r_.error(at(at("/textures", i), "files"), "must be an array");
          else
            for (std::size_t k = 0; k < f->size(); ++k) index(&f->items()[k], at(at(at("/textures", i), "files"), k), count("files"), "files");
        }
      }
    if (const Json* a = array(doc_, "files"))
      for (std::size_t i = 0; i < a->size(); ++i) {
        const Json& f = a->items()[i];
        if (!f.isObject()) continue;
        if (!f.contains("mimeType")) r_.error(at(at("/files", i), "mimeType"), "is required");
        if (!f.contains("uri") && !f.contains("bufferView")) r_.error(at("/files", i), "needs uri or bufferView");
        if (const Json* v = f.find("bufferView")) index(v, at(at("/files", i), "bufferView"), views_.size(), "bufferViews");
      }
  }

 public:
  std::span<const unsigned char> bytes_;
  Report& r_;
  std::vector<Chunk> chunks_;
  i64 json_chunk_ = -1;
  std::string json_owned_;
  std::set<std::string> used_, required_ext_;
  std::vector<Buffer> bufs_;
  std::vector<View> views_;
  bool cyclic_ = false;
  bool external_ = false;
  std::vector<std::size_t> topo_;  ///< every node, parents first (empty when the hierarchy has a cycle)
  std::map<std::size_t, std::vector<i64>> joints_;  ///< skeleton node -> joint nodes (-1 kept)
  std::vector<std::size_t> mesh_surfaces_;
  std::vector<i64> mesh_shapes_;
  std::vector<std::vector<i64>> normal_values_, uv_values_;
};

// ---------------------------------------------------------------------------------------------
// Extraction (after a clean check)

Eigen::Matrix4d localMatrix(const Json& node) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  auto nums = [&](const char* key) {
    std::vector<double> out;
    if (const Json* a = node.find(key))
      for (const Json& v : a->items()) out.push_back(v.asDouble());
    return out;
  };
  if (const auto basis = nums("basis"); basis.size() == 9) {
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) m(r, c) = basis[static_cast<std::size_t>(3 * c + r)];
  } else {
    Eigen::Matrix3d rot = Eigen::Matrix3d::Identity();
    if (const auto rotor = nums("rotor"); rotor.size() == 4) {
      // Rotor [s, xy, xz, yz] -> quaternion (x = yz, y = -xz, z = xy, w = s) (§7.2).
      Eigen::Quaterniond q(rotor[0], rotor[3], -rotor[2], rotor[1]);
      rot = q.normalized().toRotationMatrix();
    }
    Eigen::Vector3d s = Eigen::Vector3d::Ones();
    if (const auto scale = nums("scale"); scale.size() == 1) s.setConstant(scale[0]);
    else if (scale.size() == 3) s = Eigen::Vector3d(scale[0], scale[1], scale[2]);
    m.topLeftCorner<3, 3>() = rot * s.asDiagonal();
  }
  if (const auto pos = nums("position"); pos.size() == 3) m.topRightCorner<3, 1>() = Eigen::Vector3d(pos[0], pos[1], pos[2]);
  return m;
}

std::string nameOf(const Json* item) {
  if (!item) return {};
  const Json* n = item->find("name");
  return n && n->isString() ? n->asString() : std::string();
}

Error readError(std::string_view label, const std::string& path, const std::string& message, ErrorCode code) {
  return makeError(code, std::string(label) + ": " + (path.empty() ? std::string("/") : path) + ": " + message);
}

Expected<G4mfDocument> extract(const Checker& c, std::string_view label) {
  G4mfDocument out;
  out.dimension = c.dim_;
  out.binary = c.binary_;
  if (c.dim_ != 3) return readError(label, "/asset/dimension", "only 3D files are read (this one is " + std::to_string(c.dim_) + "D)", ErrorCode::kUnsupported);
  if (!c.required_ext_.empty())
    return readError(label, "/asset/extensionsRequired", "requires the unsupported extension \"" + *c.required_ext_.begin() + "\"", ErrorCode::kUnsupported);
  if (const Json* asset = c.doc_.find("asset"); const Json* g = asset->find("generator")) out.generator = g->asString();
  const std::size_t n = c.nodes_.size();
  if (n) out.root_name = nameOf(c.nodes_[0]);

  // Skeleton: the first skeleton node.
  i64 skel = -1;
  for (std::size_t i = 0; i < n && skel < 0; ++i)
    if (c.nodes_[i] && c.nodes_[i]->contains("skeleton")) skel = static_cast<i64>(i);
  std::vector<int> bone_of(n, -1);
  if (skel >= 0) {
    const Json& sn = *c.nodes_[static_cast<std::size_t>(skel)];
    out.skeleton_name = nameOf(&sn);
    if (const Json* extras = sn.find("extras"); extras && extras->isObject())
      if (const Json* rig = extras->find("rig"); rig && rig->isString()) out.rig_name = rig->asString();
    for (std::size_t i = 0; i < n; ++i) {
      if (c.skeleton_of_[i] != skel) continue;
      const Json& node = *c.nodes_[i];
      bone_of[i] = static_cast<int>(out.bone_names.size());
      out.bone_nodes.push_back(static_cast<int>(i));
      out.bone_names.push_back(nameOf(&node));
      const Json* bone = node.find("bone");
      const Json* len = bone->find("length");
      out.lengths.push_back(len ? len->asDouble() : std::numeric_limits<double>::quiet_NaN());
      std::string source;
      double roll = std::numeric_limits<double>::quiet_NaN();
      if (const Json* extras = node.find("extras"); extras && extras->isObject()) {
        if (const Json* s = extras->find("makehumanName"); s && s->isString()) source = s->asString();
        if (const Json* r = extras->find("roll"); r && r->isNumber()) roll = r->asDouble();
      }
      out.source_names.push_back(std::move(source));
      out.rolls.push_back(roll);
      out.local.push_back(localMatrix(node));
    }
    const std::size_t nb = out.bone_nodes.size();
    out.parents.resize(nb);
    out.global.resize(nb);
    for (std::size_t b = 0; b < nb; ++b) {
      const i64 par = c.parent_[static_cast<std::size_t>(out.bone_nodes[b])];
      out.parents[b] = par == skel ? -1 : bone_of[static_cast<std::size_t>(par)];
    }
    // Globals in dependency order (a foreign file may list a child bone before its parent).
    std::vector<std::uint8_t> done(nb, 0);
    for (std::size_t b = 0; b < nb; ++b) {
      std::vector<std::size_t> chain;
      for (int k = static_cast<int>(b); k >= 0 && !done[static_cast<std::size_t>(k)]; k = out.parents[static_cast<std::size_t>(k)]) chain.push_back(static_cast<std::size_t>(k));
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const int par = out.parents[*it];
        out.global[*it] = par < 0 ? out.local[*it] : Eigen::Matrix4d(out.global[static_cast<std::size_t>(par)] * out.local[*it]);
        done[*it] = 1;
      }
    }
    auto jit = c.joints_.find(static_cast<std::size_t>(skel));
    if (jit != c.joints_.end())
      for (i64 j : jit->second) out.joints.push_back(j < 0 ? -1 : bone_of[static_cast<std::size_t>(j)]);
  }

  // Mesh: skinned by the skeleton, else any instanced mesh, else the first mesh.
  i64 mesh = -1, mesh_node = -1;
  auto meshOf = [&](std::size_t i) -> i64 {
    if (!c.nodes_[i]) return -1;
    const Json* mi = c.nodes_[i]->find("meshInstance");
    return mi ? mi->find("mesh")->asInt() : -1;
  };
  for (int pass = 0; pass < 3 && mesh < 0; ++pass)
    for (std::size_t i = 0; i < n && mesh < 0; ++i) {
      const i64 m = meshOf(i);
      if (m < 0) continue;
      const bool child_of_skeleton = skel >= 0 && c.parent_[i] == skel;
      const bool skinned = c.meshes_[static_cast<std::size_t>(m)]->contains("skin");
      if ((pass == 0 && child_of_skeleton && skinned) || (pass == 1 && child_of_skeleton) || pass == 2) mesh = m, mesh_node = static_cast<i64>(i);
    }
  if (mesh < 0 && !c.meshes_.empty()) mesh = 0;
  if (mesh < 0) return out;
  if (mesh_node >= 0) out.mesh_node_name = nameOf(c.nodes_[static_cast<std::size_t>(mesh_node)]);
  const Json& m = *c.meshes_[static_cast<std::size_t>(mesh)];
  const std::string mp = at("/meshes", static_cast<std::size_t>(mesh));
  out.mesh_name = nameOf(&m);
  // After a clean check every referenced accessor is valid; its bytes may still be unavailable.
  static const Accessor kNone;
  auto acc = [&](const Json* v) -> const Accessor& {
    const auto i = v ? integerOf(*v) : std::nullopt;
    return i && *i >= 0 && static_cast<u64>(*i) < c.acc_.size() && c.acc_[static_cast<std::size_t>(*i)].valid ? c.acc_[static_cast<std::size_t>(*i)] : kNone;
  };
  auto unavailable = [&](const std::string& path) {
    return readError(label, path, "the data is not available (external or undecodable buffer)", ErrorCode::kUnsupported);
  };
  const Accessor& va = acc(m.find("vertices"));
  if (!va.data) return unavailable(at(mp, "vertices"));
  out.positions.resize(static_cast<std::size_t>(va.components()));
  for (u64 k = 0; k < va.components(); ++k) out.positions[static_cast<std::size_t>(k)] = static_cast<float>(va.real(k));

  const Json& surfaces = *m.find("surfaces");
  bool any_normals = false, any_uvs = false;
  for (const Json& s : surfaces.items()) {
    any_normals = any_normals || s.contains("normals");
    any_uvs = any_uvs || s.contains("textureMap");
  }
  for (std::size_t si = 0; si < surfaces.size(); ++si) {
    const Json& s = surfaces.items()[si];
    const std::string sp = at(at(mp, "surfaces"), si);
    const Json* sv = s.find("simplexes");
    if (!sv) continue;
    const Accessor& sa = acc(sv);
    if (!sa.data) return unavailable(at(sp, "simplexes"));
    const std::size_t first_triangle = out.triangles.size() / 3;
    for (u64 k = 0; k < sa.components(); ++k) out.triangles.push_back(static_cast<std::uint32_t>(sa.integer(k)));
    const std::size_t tri_count = static_cast<std::size_t>(sa.count);
    // Polygons.
    const Json* poly = s.find("polytopeSimplexes");
    const bool polytopes = poly && poly->asBool();
    if (out.polygon_offsets.empty()) out.polygon_offsets.push_back(0);
    for (std::size_t t = 0; t < tri_count; ++t) {
      const std::uint32_t* tri = &out.triangles[3 * (first_triangle + t)];
      const bool continues = polytopes && t > 0 && tri[0] == out.triangles[3 * (first_triangle + t - 1)];
      if (continues) {
        if (tri[1] != out.polygon_corners.back()) out.polygon_corners.push_back(tri[1]);
        out.polygon_corners.push_back(tri[2]);
        out.polygon_offsets.back() = static_cast<std::uint32_t>(out.polygon_corners.size());
      } else {
        out.polygon_corners.insert(out.polygon_corners.end(), tri, tri + 3);
        out.polygon_offsets.push_back(static_cast<std::uint32_t>(out.polygon_corners.size()));
      }
    }
    // Bindings: per corner indices into appended values.
    auto bind = [&](const char* key, std::vector<float>& values, std::vector<std::uint32_t>& indices, bool wanted) -> Status {
      if (!wanted) return {};
      const Json* b = s.find(key);
      if (!b) {
        indices.insert(indices.end(), 3 * tri_count, 0xFFFFFFFFu);
        return {};
      }
      const std::string bp = at(sp, key);
      const Accessor& vals = acc(b->find("values"));
      if (!vals.data) return unavailable(at(bp, "values"));
      const std::size_t width = std::string_view(key) == "normals" ? 3 : 2;
      if (vals.vector_size != width)
        return readError(label, at(bp, "values"), "only " + std::to_string(width) + "-component values are read", ErrorCode::kUnsupported);
      const std::uint32_t base = static_cast<std::uint32_t>(values.size() / width);
      for (u64 k = 0; k < vals.components(); ++k) values.push_back(static_cast<float>(vals.real(k)));
      if (const Json* idx = b->find("simplexes")) {
        const Accessor& ia = acc(idx);
        if (!ia.data) return unavailable(at(bp, "simplexes"));
        for (u64 k = 0; k < ia.components(); ++k) indices.push_back(base + static_cast<std::uint32_t>(ia.integer(k)));
      } else if (const Json* per = b->find("perSimplex")) {
        const Accessor& ia = acc(per);
        if (!ia.data) return unavailable(at(bp, "perSimplex"));
        for (u64 k = 0; k < ia.count; ++k)
          for (int corner = 0; corner < 3; ++corner) indices.push_back(base + static_cast<std::uint32_t>(ia.integer(k)));
      } else if (vals.count == va.count) {  // per vertex
        for (std::size_t k = 3 * first_triangle; k < out.triangles.size(); ++k) indices.push_back(base + out.triangles[k]);
      } else {
        return readError(label, bp, "a binding without simplexes or perSimplex is read only with one value per vertex", ErrorCode::kUnsupported);
      }
      return {};
    };
    RIGFIT_TRY(bind("normals", out.normals, out.normal_indices, any_normals));
    RIGFIT_TRY(bind("textureMap", out.uvs, out.uv_indices, any_uvs));
  }

  if (const Json* skin = m.find("skin")) {
    const Accessor& v = acc(skin->find("vertices"));
    const Accessor& g = acc(skin->find("groups"));
    const Accessor& w = acc(skin->find("weights"));
    if (!v.data || !g.data || !w.data) return unavailable(at(mp, "skin"));
    for (u64 k = 0; k < v.count; ++k) {
      out.skin_vertices.push_back(static_cast<std::uint32_t>(v.integer(k)));
      const i64 group = g.integer(k);
      out.skin_groups.push_back(group > 0xFFFFFFFF ? 0xFFFFFFFFu : static_cast<std::uint32_t>(group));
      out.skin_weights.push_back(static_cast<float>(w.real(k)));
    }
    if (const Json* names = skin->find("groupNames"))
      for (const Json& name : names->items()) out.group_names.push_back(name.asString());
  }

  if (const Json* blend = m.find("blend")) {
    const std::string bp = at(mp, "blend");
    const Json& shapes = *blend->find("shapes");
    const Json* amounts = blend->find("amounts");
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      const Json& shape = shapes.items()[k];
      G4mfBlendShape out_shape;
      if (const Json* name = shape.find("name"); name && name->isString()) out_shape.name = name->asString();
      out_shape.amount = amounts ? amounts->items()[k].asDouble() : 0.0;
      if (const Json* pos = shape.find("position")) {
        const Accessor& ia = acc(pos->find("indices"));
        const Accessor& oa = acc(pos->find("offsets"));
        if (!ia.data || !oa.data) return unavailable(at(at(at(bp, "shapes"), k), "position"));
        if (oa.vector_size != 3)
          return readError(label, at(at(at(bp, "shapes"), k), "position"), "only 3-component offsets are read", ErrorCode::kUnsupported);
        for (u64 i = 0; i < ia.count; ++i) out_shape.vertices.push_back(static_cast<std::uint32_t>(ia.integer(i)));
        for (u64 i = 0; i < oa.components(); ++i) out_shape.offsets.push_back(static_cast<float>(oa.real(i)));
      }
      if (const Json* ss = shape.find("surfaces"))
        for (std::size_t j = 0; j < ss->size(); ++j) {
          const Json& st = ss->items()[j];
          const Json* normal = st.find("normal");
          if (!normal || st.find("surface")->asInt() != 0) continue;
          const std::string np = at(at(at(at(at(bp, "shapes"), k), "surfaces"), j), "normal");
          const Accessor& ia = acc(normal->find("indices"));
          const Accessor& oa = acc(normal->find("offsets"));
          if (!ia.data || !oa.data) return unavailable(np);
          if (oa.vector_size != 3) return readError(label, np, "only 3-component offsets are read", ErrorCode::kUnsupported);
          for (u64 i = 0; i < ia.count; ++i) out_shape.normal_values.push_back(static_cast<std::uint32_t>(ia.integer(i)));
          for (u64 i = 0; i < oa.components(); ++i) out_shape.normal_offsets.push_back(static_cast<float>(oa.real(i)));
        }
      out.blend_shapes.push_back(std::move(out_shape));
    }
  }
  return out;
}

std::span<const unsigned char> asBytes(std::string_view s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}
std::span<const unsigned char> asBytes(std::span<const std::byte> s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

Expected<G4mfDocument> read(std::span<const unsigned char> bytes, std::string_view label) {
  std::vector<G4mfIssue> issues;
  Report report(issues);
  Checker checker(bytes, report);
  const bool parsed = checker.run();
  for (const G4mfIssue& issue : issues)
    if (issue.severity == G4mfSeverity::kError) {
      const bool syntax = issue.path.rfind("text", 0) == 0 || issue.path.rfind("g4b:", 0) == 0;
      return readError(label, issue.path, issue.message, syntax ? ErrorCode::kSyntax : ErrorCode::kSchema);
    }
  if (report.errors()) return readError(label, "", std::to_string(report.errors()) + " errors", ErrorCode::kSchema);
  if (!parsed) return readError(label, "", "not a G4MF file", ErrorCode::kSyntax);
  return extract(checker, label);
}

std::vector<G4mfIssue> validate(std::span<const unsigned char> bytes) {
  std::vector<G4mfIssue> issues;
  Report report(issues);
  Checker checker(bytes, report);
  (void)checker.run();
  report.finish();
  return issues;
}

}  // namespace

Expected<G4mfDocument> readG4mf(std::span<const std::byte> bytes, std::string_view label) { return read(asBytes(bytes), label); }
Expected<G4mfDocument> readG4mf(std::string_view bytes, std::string_view label) { return read(asBytes(bytes), label); }

std::vector<G4mfIssue> validateG4mf(std::span<const std::byte> bytes, std::string_view label) {
  (void)label;
  return validate(asBytes(bytes));
}
std::vector<G4mfIssue> validateG4mf(std::string_view bytes, std::string_view label) {
  (void)label;
  return validate(asBytes(bytes));
}

bool hasG4mfErrors(std::span<const G4mfIssue> issues) {
  return std::any_of(issues.begin(), issues.end(), [](const G4mfIssue& i) { return i.severity == G4mfSeverity::kError; });
}

}  // namespace rigfit
