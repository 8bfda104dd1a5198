// G4MF reading and validation internals (src/formats/g4mf): the issues report, the decoded
// container and buffers, and the Checker that checks every rule of docs/g4mf-rules.md
// in one pass, keeping what it decoded for the extraction into G4mfDocument.
//  - g4mf_container.cpp: the .g4b container and its chunks, the JSON text rules, buffer bytes
//    (chunks, base64 data URIs, Zstd);
//  - g4mf_checks.cpp: the pass itself, the document-level rules (asset, names, top-level arrays,
//    buffers, buffer views, accessors) and the helpers every rule uses;
//  - g4mf_check_nodes.cpp: nodes, transforms, bones, skeletons;
//  - g4mf_check_meshes.cpp: meshes, surfaces, bindings, skins, blend shapes, mesh instances,
//    materials;
//  - g4mf_extract.cpp: the G4mfDocument of a file without errors;
//  - g4mf_reader.cpp: readG4mf and validateG4mf.
//
// Hostile input: sizes are checked against the bytes present before use, all offset arithmetic is
// overflow-checked in 64 bits, and nothing is allocated by a declared count. Memory follows the
// size of the file: Zstd output and the extracted arrays are bounded by budgets proportional to it
// (below), checked against the frames' declared sizes before anything is inflated; frames without
// a declared size grow only with their real output, up to the same bound.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base64.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/json.hpp"

namespace rigfit::g4mf {

using u64 = std::uint64_t;
using i64 = std::int64_t;

constexpr u64 kTopBit = u64(1) << 63;
constexpr u64 kMiB = u64(1) << 20;

// Budgets for a file of F bytes. rigfit's own .g4b files decode to 1.5 F (JSON chunk 6x, a few KiB;
// buffers 1.5x); a parsed JSON document takes up to ~60 bytes per byte of text. The bounds leave
// room for far less compressible data while a file under 1 MB stays well under 512 MB in all.
/// A Zstd JSON chunk decodes to at most 1 MiB + 4 F bytes.
inline u64 jsonChunkCap(u64 file_size) { return kMiB + 4 * file_size; }
/// All Zstd buffers of a file decode to at most 16 MiB + 16 F bytes together.
inline u64 zstdBudget(u64 file_size) { return 16 * kMiB + 16 * file_size; }
/// The reader's arrays (positions, corners, skin, blend shapes) take at most 32 MiB + 4 (F + the
/// decoded Zstd bytes): one accessor referred to by many meshes or shapes is copied each time.
inline u64 extractBudget(u64 file_size, u64 zstd_bytes) { return 32 * kMiB + 4 * (file_size + zstd_bytes); }
constexpr std::size_t kMaxIssues = 1000;        // further issues are counted, not stored
constexpr std::string_view kDataUriPrefix = kOctetStreamDataUri;  // the only data URIs read

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
  void add(std::string path, std::string message, G4mfSeverity severity);
  std::vector<G4mfIssue>& out_;
  std::size_t errors_ = 0, dropped_ = 0;
};

/// JSON pointer steps: a member (escaped as RFC 6901 asks) and an item.
std::string at(std::string_view base, std::string_view key);
std::string at(std::string_view base, std::size_t index);

std::string str(double v);
std::string str(u64 v);

/// An integer without a fractional part (3 and 3.0 both), within int64.
std::optional<i64> integerOf(const Json& v);

// ---------------------------------------------------------------------------------------------
// Component types and accessor data

enum class Kind : std::uint8_t { kFloat, kInt, kUint };
struct ComponentType {
  std::string_view name;
  std::uint8_t size;
  Kind kind;
};

const ComponentType* findComponentType(std::string_view name);

inline u64 loadLe(const unsigned char* p, int n) {
  u64 v = 0;
  for (int k = n - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

inline double halfToDouble(std::uint32_t h) {
  const int e = static_cast<int>((h >> 10) & 0x1F);
  const double m = h & 0x3FF;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0) return sign * std::ldexp(m, -24);
  if (e == 31) return m == 0 ? sign * std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  return sign * std::ldexp(1024.0 + m, e - 25);
}

// float8: 1 sign, 4 exponent (bias 7), 3 mantissa bits, IEEE-like (maximum finite 240).
inline double float8ToDouble(std::uint32_t b) {
  const int e = static_cast<int>((b >> 3) & 0xF);
  const double m = b & 0x7;
  const double sign = (b & 0x80) ? -1.0 : 1.0;
  if (e == 0) return sign * std::ldexp(m, -9);
  if (e == 15) return m == 0 ? sign * std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  return sign * std::ldexp(8.0 + m, e - 10);
}

inline double quadToDouble(const unsigned char* p) {
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
      case Kind::kFloat: return floatAt(p);
      case Kind::kInt: return static_cast<double>(integer(i));
      case Kind::kUint: break;
    }
    return type->size == 16 && loadLe(p + 8, 8) ? 3.4e38 : static_cast<double>(loadLe(p, std::min<int>(8, type->size)));
  }
  /// Integer components, saturated to int64 (floats: truncated toward zero, NaN -> -1). Forced
  /// inline: the checks' loops over indices spend most of their time here.
  __attribute__((always_inline)) i64 integer(u64 i) const {
    const unsigned char* p = data + i * type->size;
    const int n = type->size;
    if (type->kind == Kind::kFloat) {
      const double d = floatAt(p);
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

 private:
  /// A floating-point component at p.
  double floatAt(const unsigned char* p) const {
    switch (type->size) {
      case 1: return float8ToDouble(p[0]);
      case 2: return halfToDouble(static_cast<std::uint32_t>(loadLe(p, 2)));
      case 4: { float f; std::memcpy(&f, p, 4); return f; }
      case 8: { double d; std::memcpy(&d, p, 8); return d; }
      default: return quadToDouble(p);
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Binary container, JSON text, Zstd

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

/// Four bytes as text, non-printable ones as \xHH.
std::string printable4(const void* p);

/// What the headers of Zstd frames declare, read without decoding anything.
struct ZstdFrames {
  bool known = true;  ///< every frame declares its content size
  u64 total = 0;      ///< the declared sizes' sum (saturated), when known
};
/// Walks the frames of `src` (header and block headers only); false with `error` when the data is
/// not a sequence of complete Zstd frames.
bool zstdFrames(const unsigned char* src, std::size_t n, ZstdFrames& out, std::string& error);
/// Decodes the first `keep` bytes of Zstd frames into `out` (fewer when the data ends first): into
/// one allocation of the declared size when the frames declare it, else growing with the real
/// output only. Nothing beyond `keep` is decoded.
bool zstdDecode(const unsigned char* src, std::size_t n, const ZstdFrames& frames, u64 keep, std::string& out, std::string& error);

/// Decodes one UTF-8 sequence at s[i]; returns its length, 0 when invalid.
int utf8At(std::string_view s, std::size_t i, std::uint32_t& cp);
/// "U+XXXX".
std::string codePoint(std::uint32_t cp);
inline bool isControl(std::uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

/// The JSON text rules (§1.1): UTF-8 without BOM, no raw control characters except TAB and LF.
/// Returns false when the text is not UTF-8 (it cannot be parsed then).
bool checkText(std::string_view t, Report& r);

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
  /// `strict`: checking for the reader, which fails on data it cannot decode (the validator warns).
  Checker(std::span<const unsigned char> bytes, Report& report, bool strict = false)
      : bytes_(bytes), r_(report), strict_(strict), zstd_left_(zstdBudget(bytes.size())) {}

  /// Runs every check. False when the file could not be parsed far enough to check the document.
  bool run();

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

  static const Json* array(const Json& doc, std::string_view key);

 private:
  // The container and buffer bytes (g4mf_container.cpp).
  bool container(std::string_view& text);
  bool looksLikeText(std::string_view text);
  void chunkEncoding(const Chunk& c, const std::string& where);
  void bufferData(const std::string& p, const Json* chunk, const Json* uri, const std::string& encoding, Buffer& out);

  // Helpers of every rule (g4mf_checks.cpp).
  /// An index property: an integer in [0, limit). Reports and returns -1 otherwise.
  i64 index(const Json* v, const std::string& path, u64 limit, std::string_view what);
  i64 required(const Json& obj, std::string_view key, const std::string& base, u64 limit, std::string_view what);
  std::optional<u64> nonNegative(const Json* v, const std::string& path);
  const Json* object(const Json& parent, std::string_view key, const std::string& base);
  bool boolean(const Json& parent, std::string_view key, const std::string& base);
  std::optional<std::vector<double>> numbers(const Json& parent, std::string_view key, const std::string& base);
  u64 count(std::string_view key) const;
  /// Checks that `v` names a valid accessor of the required kind and vector size (0: any).
  const Accessor* accessor(const Json* v, const std::string& path, TypeReq req, u64 vector_size, bool needed_type = true);
  /// Every integer component of `a` in [0, limit); reports the first offender.
  void indicesBelow(const Accessor& a, u64 limit, const std::string& path, std::string_view what);

  // The document (g4mf_checks.cpp).
  bool asset();
  void names();
  void walkItems(const Json& v, const std::string& path, std::map<std::string, std::string>& seen);
  void nameRules(const std::string& name, const std::string& path);
  static void canonical(const Json& v, std::string& out);
  void uniqueItems(const Json& a, const std::string& path);
  void topArrays();
  void buffers();
  enum class Encoding { kOk, kUnsupported, kWrong };
  Encoding bufferEncoding(const Json& b, const std::string& p, std::string& encoding);
  void unsupportedEncoding(const std::string& p, const Json* chunk, const std::string& encoding);
  void views();
  void accessors();

  // Nodes and skeletons (g4mf_check_nodes.cpp).
  void nodes();
  void hierarchy();
  void transform(const Json& node, const std::string& p, bool root);
  void bone(const Json& node, const std::string& p);
  bool isBone(std::size_t i) const { return nodes_[i] && nodes_[i]->contains("bone"); }
  bool isSkeleton(std::size_t i) const { return nodes_[i] && nodes_[i]->contains("skeleton"); }
  void skeletons();
  std::vector<i64> skeletonJoints(std::size_t s, const Json& skel, const std::string& p, std::vector<i64>& joint_pos);

  // Meshes and what refers to them (g4mf_check_meshes.cpp).
  void meshes();
  void surface(const Json& s, const std::string& p, u64 nv, bool known, i64& normal_count, i64& uv_count);
  i64 binding(const Json& b, const std::string& p, const Accessor* simplexes, bool has_simplexes, bool normals);
  void skin(const Json& s, const std::string& p, u64 nv, bool known);
  void blend(const Json& b, const std::string& p, u64 nv, bool known, std::size_t m, const Json* surfaces);
  void meshInstances();
  void materials();

 public:
  std::span<const unsigned char> bytes_;
  Report& r_;
  std::vector<Chunk> chunks_;
  i64 json_chunk_ = -1;
  std::string json_owned_;
  bool strict_ = false;        ///< the reader: an encoding it cannot decode is an error
  u64 zstd_left_ = 0;          ///< what the Zstd buffers may still decode to (zstdBudget)
  u64 zstd_bytes_ = 0;         ///< what they decoded to
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
// Extraction (g4mf_extract.cpp)

/// "<label>: <path or />: <message>" as an Error.
Error readError(std::string_view label, const std::string& path, const std::string& message, ErrorCode code);

/// The document of a file checked without errors.
Expected<G4mfDocument> extract(const Checker& c, std::string_view label);

}  // namespace rigfit::g4mf
