// Wavefront OBJ reader for MakeHuman meshes: v, vt, vn, f, g; other statements are skipped.
#include <charconv>
#include <cmath>
#include <cstring>

#include "core/file_io.hpp"
#include "rigfit/mesh.hpp"

namespace rigfit {
namespace {

class ObjParser {
 public:
  ObjParser(std::string_view text, std::string_view label, const ObjReadOptions& o)
      : t_(text), label_(label), scale_(o.scale_factor) {}

  Expected<Mesh> run() {
    mesh_.scale_factor = scale_;
    mesh_.face_offsets.push_back(0);
    // A rough upper bound keeps push_back from reallocating on typical files.
    const std::size_t lines_guess = t_.size() / 24 + 16;
    mesh_.positions.reserve(lines_guess * 3);
    mesh_.corner_vertices.reserve(lines_guess * 4);
    mesh_.corner_uvs.reserve(lines_guess * 4);
    mesh_.corner_normals.reserve(lines_guess * 4);
    const char* p = t_.data();
    const char* end = p + t_.size();
    while (p < end) {
      const char* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      if (!eol) eol = end;
      ++line_;
      const char* le = eol;
      if (le > p && le[-1] == '\r') --le;
      if (!line(p, le)) return error_;
      p = eol + 1;
    }
    // Faces may refer to vertices defined after them; check once at the end.
    const auto nv = static_cast<std::uint32_t>(mesh_.vertexCount());
    for (std::size_t k = 0; k < mesh_.corner_vertices.size(); ++k) {
      if (mesh_.corner_vertices[k] >= nv)
        return makeError(ErrorCode::kRange, std::string(label_) + ": face corner " + std::to_string(k) +
                                                " refers to vertex " + std::to_string(mesh_.corner_vertices[k] + 1) +
                                                " but the file has " + std::to_string(nv) + " vertices");
    }
    return std::move(mesh_);
  }

 private:
  bool fail(std::string what) {
    error_ = makeError(ErrorCode::kSyntax, std::string(label_) + ": line " + std::to_string(line_) + ": " + what);
    return false;
  }
  static const char* skipWs(const char* p, const char* e) {
    while (p < e && (*p == ' ' || *p == '\t')) ++p;
    return p;
  }
  // Plain decimals ("-7.3299") with at most 7 significant digits and 10 decimals are exact as
  // float(mantissa) / 10^k: both operands are exact floats, so the one division is correctly
  // rounded, the same float from_chars would give. Everything else goes to from_chars.
  static bool fastDecimal(const char*& p, const char* e, float& out) {
    const char* q = p;
    bool neg = false;
    if (q < e && (*q == '-' || *q == '+')) neg = *q++ == '-';
    std::uint64_t int_part = 0, frac_part = 0;
    const char* int_start = q;
    digits(q, e, int_part);
    const int int_digits = static_cast<int>(q - int_start);
    int frac = 0;
    if (q < e && *q == '.') {
      ++q;
      const char* frac_start = q;
      digits(q, e, frac_part);
      frac = static_cast<int>(q - frac_start);
    }
    // Significant digits: leading zeros of the integer part do not count.
    const int sig = (int_part ? int_digits : 0) + frac;
    if (int_digits + frac == 0 || sig > 7 || frac > 10 || int_digits > 7) return false;
    static constexpr std::uint32_t kScale[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000, 0};
    const std::uint32_t m = static_cast<std::uint32_t>(int_part * kScale[frac] + frac_part);
    if (q < e && *q != ' ' && *q != '\t' && *q != '\r') return false;
    static constexpr float kPow10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
    const float v = static_cast<float>(m) / kPow10[frac];
    out = neg ? -v : v;
    p = q;
    return true;
  }

  bool number(const char*& p, const char* e, float& out) {
    p = skipWs(p, e);
    if (fastDecimal(p, e, out)) return true;
    const char* s = p;
    if (p < e && *p == '+') ++p;  // from_chars rejects a leading '+'
    auto r = std::from_chars(p, e, out);
    if (r.ec != std::errc() || (r.ptr < e && *r.ptr != ' ' && *r.ptr != '\t')) {
      const char* te = s;
      while (te < e && *te != ' ' && *te != '\t') ++te;
      return fail("expected a number, found \"" + std::string(s, te) + "\"");
    }
    if (!std::isfinite(out)) return fail("number is not finite");
    p = r.ptr;
    return true;
  }
  // Digits as an unsigned number: one compare per character (d > 9 catches both ends).
  static bool digits(const char*& p, const char* e, std::uint64_t& v) {
    const char* s = p;
    v = 0;
    while (p < e) {
      const unsigned d = static_cast<unsigned char>(*p) - static_cast<unsigned>('0');
      if (d > 9) break;
      v = v * 10 + d;
      ++p;
    }
    return p != s && p - s <= 10;
  }

  bool index(const char*& p, const char* e, long count, std::int32_t& out, const char* what) {
    const bool neg = p < e && *p == '-';
    if (neg) ++p;
    std::uint64_t u = 0;
    if (!digits(p, e, u)) return fail(std::string("bad ") + what + " index");
    long v = static_cast<long>(u);
    if (neg) v = count - v;  // relative: -1 is the last one defined so far
    else v -= 1;
    if (v < 0) return fail(std::string(what) + " index out of range");
    if (v > INT32_MAX) return fail(std::string(what) + " index too large");
    out = static_cast<std::int32_t>(v);
    return true;
  }

  bool line(const char* p, const char* e) {
    p = skipWs(p, e);
    if (p >= e || *p == '#') return true;
    const char* kw = p;
    while (p < e && *p != ' ' && *p != '\t') ++p;
    const std::string_view key(kw, static_cast<std::size_t>(p - kw));
    if (key.size() == 1 && key[0] == 'f') return face(p, e);
    if (key == "v") {
      float x, y, z;
      if (!number(p, e, x) || !number(p, e, y) || !number(p, e, z)) return false;
      // MakeHuman frame (Y up, decimetres) -> rig frame (Z up, metres), in float as Blender does.
      mesh_.positions.push_back(x * scale_);
      mesh_.positions.push_back(-z * scale_);
      mesh_.positions.push_back(y * scale_);
      return true;
    }
    if (key == "vt") {
      float u, v;
      if (!number(p, e, u) || !number(p, e, v)) return false;
      mesh_.uvs.push_back(u);
      mesh_.uvs.push_back(v);
      return true;
    }
    if (key == "vn") {
      float x, y, z;
      if (!number(p, e, x) || !number(p, e, y) || !number(p, e, z)) return false;
      mesh_.normals.push_back(x);
      mesh_.normals.push_back(-z);
      mesh_.normals.push_back(y);
      return true;
    }
    if (key == "g") {
      p = skipWs(p, e);
      std::string name(p, e);
      while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
      current_group_ = groupIndex(name);
      return true;
    }
    return true;  // o, s, usemtl, mtllib, l, ...: not needed for rigging
  }

  std::uint32_t groupIndex(const std::string& name) {
    for (std::size_t k = 0; k < mesh_.group_names.size(); ++k)
      if (mesh_.group_names[k] == name) return static_cast<std::uint32_t>(k);
    mesh_.group_names.push_back(name);
    return static_cast<std::uint32_t>(mesh_.group_names.size() - 1);
  }

  bool face(const char* p, const char* e) {
    const long nv = static_cast<long>(mesh_.vertexCount());
    const long nt = static_cast<long>(mesh_.uvs.size() / 2);
    const long nn = static_cast<long>(mesh_.normals.size() / 3);
    int corners = 0;
    for (;;) {
      p = skipWs(p, e);
      if (p >= e) break;
      std::int32_t v = 0, vt = -1, vn = -1;
      if (!index(p, e, nv, v, "vertex")) return false;
      if (p < e && *p == '/') {
        ++p;
        if (p < e && *p != '/') {
          if (!index(p, e, nt, vt, "texture coordinate")) return false;
          if (vt >= nt) return fail("texture coordinate index out of range");
        }
        if (p < e && *p == '/') {
          ++p;
          if (!index(p, e, nn, vn, "normal")) return false;
          if (vn >= nn) return fail("normal index out of range");
        }
      }
      if (p < e && *p != ' ' && *p != '\t') return fail("malformed face corner");
      mesh_.corner_vertices.push_back(static_cast<std::uint32_t>(v));
      mesh_.corner_uvs.push_back(vt);
      mesh_.corner_normals.push_back(vn);
      ++corners;
    }
    if (corners < 3) return fail("a face needs at least 3 corners");
    mesh_.face_offsets.push_back(static_cast<std::uint32_t>(mesh_.corner_vertices.size()));
    if (mesh_.group_names.empty()) current_group_ = groupIndex("default");
    mesh_.face_groups.push_back(current_group_);
    return true;
  }

  std::string_view t_;
  std::string_view label_;
  float scale_;
  Mesh mesh_;
  Error error_;
  std::size_t line_ = 0;
  std::uint32_t current_group_ = 0;
};

}  // namespace

Expected<Mesh> parseObj(std::string_view text, std::string_view label, const ObjReadOptions& options) {
  if (!(options.scale_factor > 0.0f) || !std::isfinite(options.scale_factor))
    return makeError(ErrorCode::kUsage, std::string(label) + ": scale factor must be positive");
  return ObjParser(text, label, options).run();
}

Expected<Mesh> readObj(const std::string& path, const ObjReadOptions& options) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.error();
  return parseObj(*bytes, path, options);
}

}  // namespace rigfit
