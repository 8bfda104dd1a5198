// Wavefront OBJ reader for MakeHuman meshes: v, vt, vn, f, g; other statements are skipped.
// One pass over the text with local cursors; numbers take an exact fast path (below) and fall
// back to std::from_chars, so every float is the correctly rounded one, as Blender reads it.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "core/file_io.hpp"
#include "rigfit/mesh.hpp"

namespace rigfit {
namespace {

#define RIGFIT_INLINE [[gnu::always_inline]] inline

RIGFIT_INLINE bool isBlank(char c) { return c == ' ' || c == '\t'; }

RIGFIT_INLINE const char* skipBlanks(const char* p, const char* e) {
  while (p < e && isBlank(*p)) ++p;
  return p;
}

// Decimal digits as an unsigned number (d > 9 catches both ends of '0'..'9' in one compare).
RIGFIT_INLINE const char* scanDigits(const char* p, const char* e, std::uint64_t& v) {
  std::uint64_t x = 0;
  while (p < e) {
    const unsigned d = static_cast<unsigned char>(*p) - static_cast<unsigned>('0');
    if (d > 9) break;
    x = x * 10 + d;
    ++p;
  }
  v = x;
  return p;
}

// A plain decimal ("-7.3299") whose digits form an integer m <= 2^24 with at most 10 decimals is
// float(m) / 10^k with both operands exact floats, so the one division is correctly rounded: the
// same float from_chars gives. Returns the end of the number, or nullptr to take the slow path.
RIGFIT_INLINE const char* fastDecimal(const char* p, const char* e, float& out) {
  bool neg = false;
  if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
  const char* s = p;
  std::uint64_t m = 0;
  p = scanDigits(p, e, m);
  std::ptrdiff_t digits = p - s;
  std::ptrdiff_t frac = 0;
  if (p < e && *p == '.') {
    const char* f = ++p;
    while (p < e) {
      const unsigned d = static_cast<unsigned char>(*p) - static_cast<unsigned>('0');
      if (d > 9) break;
      m = m * 10 + d;
      ++p;
    }
    frac = p - f;
    digits += frac;
  }
  if (digits == 0 || digits > 18 || frac > 10 || m > (1u << 24)) return nullptr;
  if (p < e && !isBlank(*p) && *p != '\r') return nullptr;
  static constexpr float kPow10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
  const float v = static_cast<float>(m) / kPow10[frac];
  out = neg ? -v : v;
  return p;
}

// Up to 8 decimal digits at p at once (8 bytes must be readable from p, which may run past the
// line: the line's end is never a digit). Returns how many digits lead (8: maybe more follow)
// and, in v, their value. Byte k of t is the k-th character minus '0'; a borrow or carry out of a
// non-digit byte only reaches later bytes, so the first non-digit is found exactly.
RIGFIT_INLINE int eightDigits(const char* p, std::uint64_t& v) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  const std::uint64_t t = x - 0x3030303030303030ull;
  const std::uint64_t non_digit = (t | (t + 0x7676767676767676ull)) & 0x8080808080808080ull;
  const int n = non_digit ? std::countr_zero(non_digit) >> 3 : 8;
  if (n == 0) {
    v = 0;
    return 0;
  }
  // The n digits into the high bytes (zeros below are leading zeros), then pairs, quads, eight.
  std::uint64_t d = t << (8 * (8 - n));
  d = d * 10 + (d >> 8);
  d = (((d & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) + (((d >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
  v = d & 0xFFFFFFFFull;
  return n;
}

// fastDecimal with the digits read eight at a time; needs 24 readable bytes from p. Numbers with
// 8 or more digits before or after the point take fastDecimal.
RIGFIT_INLINE const char* fastDecimal8(const char* p, const char* e, float& out) {
  static constexpr std::uint64_t kScale[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
  const char* start = p;
  const bool neg = *p == '-';
  p += neg || *p == '+';
  std::uint64_t m = 0, f = 0;
  const int ni = eightDigits(p, m);
  if (ni == 8) return fastDecimal(start, e, out);
  p += ni;
  int nf = 0;
  if (*p == '.') {
    nf = eightDigits(p + 1, f);
    if (nf == 8) return fastDecimal(start, e, out);
    m = m * kScale[nf] + f;
    p += 1 + nf;
  }
  if (ni + nf == 0 || m > (1u << 24)) return nullptr;
  if (p < e && !isBlank(*p)) return nullptr;
  static constexpr float kPow10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f};
  const float v = static_cast<float>(m) / kPow10[nf];
  out = neg ? -v : v;
  return p;
}

// Lines that start with "v ", "vt" and "f ": the sizes to reserve (one quick pass over the text). The arrays are then their
// final size at once: sized for the worst case instead (every line a vertex, every line a face),
// they would span about four times the memory, and the CLI backs its heap with 2 MiB pages, so
// the unused space would still be touched (zeroed) by the kernel.
struct StatementCounts {
  std::size_t v = 0, vt = 0, f = 0;
};

// Line starts '\n' 'v' ' ' (and "\nvt", "\nf ") counted in byte lanes, kBytes per step (each lane
// at most 255 per round): no branch per line. Returns where it stopped (i + kBytes + 2 > size).
#if defined(__SSE2__)
std::size_t countLanes(const char* p, std::size_t size, std::size_t i, StatementCounts& n) {
  const __m128i nl = _mm_set1_epi8('\n'), v = _mm_set1_epi8('v'), f = _mm_set1_epi8('f'), sp = _mm_set1_epi8(' '),
                t = _mm_set1_epi8('t'), zero = _mm_setzero_si128();
  auto sum = [&](__m128i lanes) {
    const __m128i s = _mm_sad_epu8(lanes, zero);
    return static_cast<std::size_t>(_mm_cvtsi128_si32(s)) + static_cast<std::size_t>(_mm_extract_epi16(s, 4));
  };
  while (i + 18 <= size) {
    const std::size_t end = std::min(size - 18, i + 254 * 16);
    __m128i cv = zero, cvt = zero, cf = zero;
    for (; i <= end; i += 16) {
      const __m128i at = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)), nl);
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 1));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 2));
      const __m128i line_v = _mm_and_si128(at, _mm_cmpeq_epi8(b, v));
      const __m128i blank = _mm_cmpeq_epi8(c, sp);
      cv = _mm_sub_epi8(cv, _mm_and_si128(line_v, blank));
      cvt = _mm_sub_epi8(cvt, _mm_and_si128(line_v, _mm_cmpeq_epi8(c, t)));
      cf = _mm_sub_epi8(cf, _mm_and_si128(_mm_and_si128(at, _mm_cmpeq_epi8(b, f)), blank));
    }
    n.v += sum(cv);
    n.vt += sum(cvt);
    n.f += sum(cf);
  }
  return i;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
// Whether the CPU (and the OS) can run AVX2 code (GCC and clang read the compiler runtime's
// record of the CPU's features).
inline bool hasAvx2() { return __builtin_cpu_supports("avx2"); }

// The same, 32 bytes per step, where the CPU has AVX2 (chosen at run time).
__attribute__((target("avx2"))) std::size_t countLanesAvx2(const char* p, std::size_t size, std::size_t i, StatementCounts& n) {
  const __m256i nl = _mm256_set1_epi8('\n'), v = _mm256_set1_epi8('v'), f = _mm256_set1_epi8('f'), sp = _mm256_set1_epi8(' '),
                t = _mm256_set1_epi8('t'), zero = _mm256_setzero_si256();
  while (i + 34 <= size) {
    const std::size_t end = std::min(size - 34, i + 254 * 32);
    __m256i cv = zero, cvt = zero, cf = zero;
    for (; i <= end; i += 32) {
      const __m256i at = _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)), nl);
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 1));
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 2));
      const __m256i line_v = _mm256_and_si256(at, _mm256_cmpeq_epi8(b, v));
      const __m256i blank = _mm256_cmpeq_epi8(c, sp);
      cv = _mm256_sub_epi8(cv, _mm256_and_si256(line_v, blank));
      cvt = _mm256_sub_epi8(cvt, _mm256_and_si256(line_v, _mm256_cmpeq_epi8(c, t)));
      cf = _mm256_sub_epi8(cf, _mm256_and_si256(_mm256_and_si256(at, _mm256_cmpeq_epi8(b, f)), blank));
    }
    alignas(32) std::uint64_t sums[3][4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(sums[0]), _mm256_sad_epu8(cv, zero));
    _mm256_store_si256(reinterpret_cast<__m256i*>(sums[1]), _mm256_sad_epu8(cvt, zero));
    _mm256_store_si256(reinterpret_cast<__m256i*>(sums[2]), _mm256_sad_epu8(cf, zero));
    n.v += sums[0][0] + sums[0][1] + sums[0][2] + sums[0][3];
    n.vt += sums[1][0] + sums[1][1] + sums[1][2] + sums[1][3];
    n.f += sums[2][0] + sums[2][1] + sums[2][2] + sums[2][3];
  }
  return i;
}
#endif

StatementCounts countStatements(std::string_view text) {
  StatementCounts n;
  const char* p = text.data();
  const std::size_t size = text.size();
  auto count = [&](std::size_t i) {  // the line starting at i
    if (i + 1 >= size) return;
    n.v += p[i] == 'v' && p[i + 1] == ' ';
    n.vt += p[i] == 'v' && p[i + 1] == 't';
    n.f += p[i] == 'f' && p[i + 1] == ' ';
  };
  count(0);
  std::size_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if (hasAvx2()) i = countLanesAvx2(p, size, i, n);
#endif
#if defined(__SSE2__)
  i = countLanes(p, size, i, n);
#endif
  for (; i < size; ++i)
    if (p[i] == '\n') count(i + 1);
  return n;
}

class ObjParser {
 public:
  ObjParser(std::string_view text, std::string_view label, const ObjReadOptions& o)
      : t_(text), end_(text.data() + text.size()), label_(label), scale_(o.scale_factor) {}

  Expected<Mesh> run() {
    mesh_.scale_factor = scale_;
    mesh_.face_offsets.push_back(0);
    // (Quads assumed: other faces make the corner arrays grow or leave some room.)
    counts_ = countStatements(t_);
    const StatementCounts& n = counts_;
    mesh_.positions.reserve(n.v * 3);
    mesh_.uvs.reserve(n.vt * 2);
    mesh_.corner_vertices.reserve(n.f * 4);
    mesh_.corner_uvs.reserve(n.f * 4);
    mesh_.face_offsets.reserve(n.f + 1);
    mesh_.face_groups.reserve(n.f);
    const char* p = t_.data();
    const char* end = end_;
    while (p < end) {
      if (end - p >= kFastSlack) {
        if (const char* next = fastLine(p)) {  // the usual v, vt and f lines, read in one go
          ++line_;
          p = next;
          continue;
        }
      }
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
      if (mesh_.corner_vertices[k] < nv) continue;
      const auto face = static_cast<std::size_t>(std::upper_bound(mesh_.face_offsets.begin(), mesh_.face_offsets.end(), k) -
                                                 mesh_.face_offsets.begin()) - 1;
      return makeError(ErrorCode::kRange, std::string(label_) + ": line " + std::to_string(faceLine(face)) + ": face corner " +
                                              std::to_string(k - mesh_.face_offsets[face] + 1) + " refers to vertex " +
                                              std::to_string(mesh_.corner_vertices[k] + 1) + " but the file has " +
                                              std::to_string(nv) + " vertices");
    }
    return std::move(mesh_);
  }

 private:
  // The line number of face `face` (0-based), found again on this error path only: each `f` line
  // holds one face.
  std::size_t faceLine(std::size_t face) const {
    std::size_t line = 0, faces = 0;
    for (const char* p = t_.data(); p < end_;) {
      const char* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end_ - p)));
      if (!eol) eol = end_;
      ++line;
      const char* q = p;
      while (q < eol && (*q == ' ' || *q == '\t')) ++q;
      if (eol - q >= 2 && q[0] == 'f' && (q[1] == ' ' || q[1] == '\t') && faces++ == face) return line;
      p = eol + 1;
    }
    return line;
  }

  // The fast path reads whole lines of the forms MakeHuman writes ("v X Y Z", "vt U V",
  // "f A/B C/D ..." with up to kFastCorners corners, single spaces, plain decimals, positive
  // indices) where at least kFastSlack bytes remain, so no read can pass the end of the text.
  // It returns the start of the next line, or nullptr having changed nothing: the general path
  // then reads the line (and reports any error).
  static constexpr std::ptrdiff_t kFastSlack = 256;
  static constexpr int kFastCorners = 8;

  // A plain decimal ending at ' ', '\r' or '\n': the exact fast path of fastDecimal8.
  RIGFIT_INLINE static const char* fastNumber(const char* p, float& out) {
    static constexpr std::uint64_t kScale[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    static constexpr float kPow10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f};
    const bool neg = *p == '-';
    p += neg;
    std::uint64_t m = 0, f = 0;
    const char* s = p;  // the integer part is short (MakeHuman: one digit): digit by digit
    for (unsigned d; (d = static_cast<unsigned char>(*p) - static_cast<unsigned>('0')) <= 9 && p - s < 8; ++p) m = m * 10 + d;
    const std::ptrdiff_t ni = p - s;
    if (ni == 8) return nullptr;
    int nf = 0;
    if (*p == '.') {
      nf = eightDigits(p + 1, f);
      if (nf == 8) return nullptr;
      m = m * kScale[nf] + f;
      p += 1 + nf;
    }
    if (ni + nf == 0 || m > (1u << 24) || (*p != ' ' && *p != '\n' && *p != '\r')) return nullptr;
    const float v = static_cast<float>(m) / kPow10[nf];
    out = neg ? -v : v;
    return p;
  }

  // A positive index of 1 to 7 digits, 0-based in `out`.
  RIGFIT_INLINE static const char* fastIndex(const char* p, std::int32_t& out) {
    std::uint64_t u;
    const int n = eightDigits(p, u);
    if (n == 0 || n == 8 || u == 0) return nullptr;
    out = static_cast<std::int32_t>(u - 1);
    return p + n;
  }

  RIGFIT_INLINE static const char* lineEnd(const char* p) {
    if (*p == '\r') ++p;
    return *p == '\n' ? p + 1 : nullptr;
  }

  const char* fastLine(const char* p) {
    if (p[0] == 'v' && p[1] == ' ') {
      float x, y, z;
      if (!(p = fastNumber(p + 2, x)) || *p != ' ' || !(p = fastNumber(p + 1, y)) || *p != ' ' || !(p = fastNumber(p + 1, z)) ||
          !(p = lineEnd(p)))
        return nullptr;
      const float s = scale_;
      mesh_.positions.insert(mesh_.positions.end(), {x * s, -z * s, y * s});
      return p;
    }
    if (p[0] == 'v' && p[1] == 't' && p[2] == ' ') {
      float u, v;
      if (!(p = fastNumber(p + 3, u)) || *p != ' ' || !(p = fastNumber(p + 1, v)) || !(p = lineEnd(p))) return nullptr;
      mesh_.uvs.insert(mesh_.uvs.end(), {u, v});
      return p;
    }
    if (p[0] == 'f' && p[1] == ' ' && !mesh_.group_names.empty()) {
      const long nt = static_cast<long>(mesh_.uvs.size() / 2), nn = static_cast<long>(mesh_.normals.size() / 3);
      std::int32_t v[kFastCorners], vt[kFastCorners], vn[kFastCorners];
      int n = 0;
      ++p;
      while (*p == ' ') {
        if (n == kFastCorners || !(p = fastIndex(p + 1, v[n]))) return nullptr;
        vt[n] = vn[n] = -1;
        if (*p == '/') {
          ++p;
          if (*p != '/') {
            if (!(p = fastIndex(p, vt[n])) || vt[n] >= nt) return nullptr;
          }
          if (*p == '/') {
            if (!(p = fastIndex(p + 1, vn[n])) || vn[n] >= nn) return nullptr;
          }
        }
        ++n;
      }
      if (n < 3 || !(p = lineEnd(p))) return nullptr;
      for (int k = 0; k < n; ++k) {
        cornerNormal(vn[k]);
        mesh_.corner_vertices.push_back(static_cast<std::uint32_t>(v[k]));
        mesh_.corner_uvs.push_back(vt[k]);
      }
      mesh_.face_offsets.push_back(static_cast<std::uint32_t>(mesh_.corner_vertices.size()));
      mesh_.face_groups.push_back(current_group_);
      return p;
    }
    return nullptr;
  }

  // Inside a face, the message names the corner (1-based) too.
  bool fail(std::string what) {
    const std::string corner = corner_ ? "face corner " + std::to_string(corner_) + ": " : std::string();
    error_ = makeError(ErrorCode::kSyntax, std::string(label_) + ": line " + std::to_string(line_) + ": " + corner + what);
    return false;
  }

  // An index that cannot be used: `problem` after "WHAT index TOKEN", TOKEN as written.
  [[gnu::noinline]] bool indexError(const char* start, const char* e, const char* what, const std::string& problem) {
    const char* te = start;
    while (te < e && !isBlank(*te) && *te != '/') ++te;
    return fail(std::string(what) + " index \"" + std::string(start, te) + "\" " + problem);
  }

  [[gnu::noinline]] bool slowNumber(const char*& p, const char* e, float& out) {
    const char* s = p;
    const char* q = p;
    if (q < e && *q == '+') ++q;  // from_chars rejects a leading '+'
    auto r = std::from_chars(q, e, out);
    if (r.ec != std::errc() || (r.ptr < e && !isBlank(*r.ptr))) {
      const char* te = s;
      while (te < e && !isBlank(*te)) ++te;
      return fail("expected a number, found \"" + std::string(s, te) + "\"");
    }
    if (!std::isfinite(out)) return fail("number is not finite");
    p = r.ptr;
    return true;
  }

  RIGFIT_INLINE bool number(const char*& p, const char* e, float& out) {
    const char* q = skipBlanks(p, e);
    if (const char* r = end_ - q >= 24 ? fastDecimal8(q, e, out) : fastDecimal(q, e, out)) {
      p = r;
      return true;
    }
    p = q;
    return slowNumber(p, e, out);
  }

  // A 1-based (or negative, relative) OBJ index into `count` items defined so far.
  RIGFIT_INLINE bool index(const char*& p, const char* e, long count, std::int32_t& out, const char* what) {
    if (end_ - p >= 8) {  // 1 to 7 digits, not 0: the index read at once
      std::uint64_t u;
      const int n = eightDigits(p, u);
      if (n > 0 && n < 8 && u > 0) {
        out = static_cast<std::int32_t>(u - 1);
        p += n;
        return true;
      }
    }
    const char* q = p;
    const bool neg = q < e && *q == '-';
    if (neg) ++q;
    std::uint64_t u = 0;
    const char* s = q;
    q = scanDigits(q, e, u);
    if (q == s || q - s > 10) return indexError(p, e, what, "is not a number of at most 10 digits");
    long v = static_cast<long>(u);
    if (neg) v = count - v;  // relative: -1 is the last one defined so far
    else v -= 1;
    if (v < 0) return indexError(p, e, what, neg ? "is before the first (" + std::to_string(count) + " defined so far)" : "is not 1 or more");
    if (v > INT32_MAX) return indexError(p, e, what, "is too large");
    out = static_cast<std::int32_t>(v);
    p = q;
    return true;
  }

  bool line(const char* p, const char* e) {
    p = skipBlanks(p, e);
    if (p >= e || *p == '#') return true;
    const char* kw = p;
    while (p < e && !isBlank(*p)) ++p;
    const std::size_t klen = static_cast<std::size_t>(p - kw);
    if (klen == 1 && kw[0] == 'f') return face(p, e);
    if (klen == 1 && kw[0] == 'v') {
      float x, y, z;
      if (!number(p, e, x) || !number(p, e, y) || !number(p, e, z)) return false;
      // MakeHuman frame (Y up, decimetres) -> rig frame (Z up, metres), in float as Blender does.
      const float s = scale_;
      mesh_.positions.insert(mesh_.positions.end(), {x * s, -z * s, y * s});
      return true;
    }
    if (klen == 2 && kw[0] == 'v' && kw[1] == 't') {
      float u, v;
      if (!number(p, e, u) || !number(p, e, v)) return false;
      mesh_.uvs.insert(mesh_.uvs.end(), {u, v});
      return true;
    }
    if (klen == 2 && kw[0] == 'v' && kw[1] == 'n') {
      float x, y, z;
      if (!number(p, e, x) || !number(p, e, y) || !number(p, e, z)) return false;
      mesh_.normals.insert(mesh_.normals.end(), {x, -z, y});
      return true;
    }
    if (klen == 1 && kw[0] == 'g') {
      p = skipBlanks(p, e);
      const char* ne = e;
      while (ne > p && isBlank(ne[-1])) --ne;
      current_group_ = groupIndex(std::string_view(p, static_cast<std::size_t>(ne - p)));
      return true;
    }
    return true;  // o, s, usemtl, mtllib, l, ...: not needed for rigging
  }

  // The next corner's normal (-1: none). corner_normals stays empty until a corner has one (most
  // MakeHuman meshes have none: a corner array of -1 would be 4 bytes a corner for nothing); the
  // corners before it then get -1.
  RIGFIT_INLINE void cornerNormal(std::int32_t vn) {
    if (vn >= 0 && mesh_.corner_normals.empty()) {
      mesh_.corner_normals.reserve(std::max(counts_.f * 4, mesh_.corner_vertices.size() + 1));
      mesh_.corner_normals.assign(mesh_.corner_vertices.size(), -1);
    }
    if (vn >= 0 || !mesh_.corner_normals.empty()) mesh_.corner_normals.push_back(vn);
  }

  // A hash map, not a scan of group_names: a file of many distinct `g` lines stays linear.
  std::uint32_t groupIndex(std::string_view name) {
    const auto [it, added] = group_index_.try_emplace(std::string(name), static_cast<std::uint32_t>(mesh_.group_names.size()));
    if (added) mesh_.group_names.emplace_back(name);
    return it->second;
  }

  bool face(const char* p, const char* e) {
    const long nv = static_cast<long>(mesh_.vertexCount());
    const long nt = static_cast<long>(mesh_.uvs.size() / 2);
    const long nn = static_cast<long>(mesh_.normals.size() / 3);
    int corners = 0;
    for (;;) {
      p = skipBlanks(p, e);
      if (p >= e) break;
      const char* start = p;
      corner_ = corners + 1;
      std::int32_t v = 0, vt = -1, vn = -1;
      if (!index(p, e, nv, v, "vertex")) return false;
      if (p < e && *p == '/') {
        ++p;
        if (p < e && *p != '/') {
          const char* t = p;
          if (!index(p, e, nt, vt, "texture coordinate")) return false;
          if (vt >= nt) return indexError(t, e, "texture coordinate", "is beyond the " + std::to_string(nt) + " defined so far");
        }
        if (p < e && *p == '/') {
          ++p;
          const char* n = p;
          if (!index(p, e, nn, vn, "normal")) return false;
          if (vn >= nn) return indexError(n, e, "normal", "is beyond the " + std::to_string(nn) + " defined so far");
        }
      }
      if (p < e && !isBlank(*p)) {
        const char* te = p;
        while (te < e && !isBlank(*te)) ++te;
        return fail("malformed: \"" + std::string(start, te) + "\"");
      }
      corner_ = 0;
      cornerNormal(vn);
      mesh_.corner_vertices.push_back(static_cast<std::uint32_t>(v));
      mesh_.corner_uvs.push_back(vt);
      ++corners;
    }
    if (corners < 3) return fail("a face needs at least 3 corners");
    mesh_.face_offsets.push_back(static_cast<std::uint32_t>(mesh_.corner_vertices.size()));
    if (mesh_.group_names.empty()) current_group_ = groupIndex("default");
    mesh_.face_groups.push_back(current_group_);
    return true;
  }

  std::string_view t_;
  const char* end_;  // of the whole text: reads up to here are safe
  int corner_ = 0;   // the face corner being read (1-based), 0 outside faces
  std::string_view label_;
  float scale_;
  Mesh mesh_;
  Error error_;
  std::size_t line_ = 0;
  std::uint32_t current_group_ = 0;
  StatementCounts counts_;
  std::unordered_map<std::string, std::uint32_t> group_index_;
};

}  // namespace

Expected<Mesh> parseObj(std::string_view text, std::string_view label, const ObjReadOptions& options) {
  if (!(options.scale_factor > 0.0f) || !std::isfinite(options.scale_factor))
    return makeError(ErrorCode::kUsage, std::string(label) + ": scale factor must be positive");
  return ObjParser(text, label, options).run();
}

Expected<Mesh> readObj(const std::string& path, const ObjReadOptions& options) {
  auto file = loadFile(path);
  if (!file) return file.error();
  return parseObj(file->text(), path, options);
}

}  // namespace rigfit
