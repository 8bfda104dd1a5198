// .target / .target.gz files: sparse vertex offsets in MakeHuman's frame (decimetres, Y up).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include <zlib.h>

#include "core/file_io.hpp"
#include "rigfit/shape.hpp"

namespace rigfit {
namespace {

// What a target's text can need: a line per vertex of the mesh (at least of MakeHuman's base mesh,
// hm08's 19158 vertices, which MPFB's targets list whatever the mesh), each at most
// kTargetLineBytes ("index dx dy dz"; MPFB's longest is 26 bytes), and kTargetHeaderBytes of
// comments.
constexpr std::size_t kTargetLineBytes = 128;
constexpr std::size_t kTargetHeaderBytes = 64 << 10;
constexpr std::size_t kBaseMeshVertices = 19158;

std::size_t targetTextBound(std::size_t vertex_count) {
  const std::size_t lines = std::max(vertex_count, kBaseMeshVertices);
  const std::size_t most = std::numeric_limits<std::size_t>::max() / 2;
  return lines >= (most - kTargetHeaderBytes) / kTargetLineBytes ? most : kTargetHeaderBytes + lines * kTargetLineBytes;
}

// Inflates a gzip file, stopping with an error as soon as the output passes `limit` bytes (the
// output grows with what the data really inflates to, never beyond the limit).
Expected<std::string> gunzip(std::string_view bytes, const std::string& label, std::size_t limit, std::size_t vertex_count) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return makeError(ErrorCode::kIo, label + ": cannot start gzip");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      return makeError(ErrorCode::kSyntax, label + ": byte " + std::to_string(z.total_in) + ": corrupt or truncated gzip data");
    }
    const std::size_t produced = sizeof buf - z.avail_out;
    if (produced > limit - out.size()) {
      inflateEnd(&z);
      return makeError(ErrorCode::kRange, label + ": inflates to more than " + std::to_string(limit) + " bytes, the most a target of a " +
                                              std::to_string(std::max(vertex_count, kBaseMeshVertices)) + "-vertex mesh needs (" +
                                              std::to_string(kTargetLineBytes) + " bytes a vertex + " +
                                              std::to_string(kTargetHeaderBytes) + ")");
    }
    out.append(buf, produced);
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
      inflateEnd(&z);
      return makeError(ErrorCode::kSyntax, label + ": byte " + std::to_string(z.total_in) + ": truncated gzip data");
    }
  }
  inflateEnd(&z);
  return out;
}

}  // namespace

Expected<Target> parseTarget(std::string_view text, std::string_view label, std::size_t vertex_count, float scale) {
  Target t;
  const char* p = text.data();
  const char* end = p + text.size();
  std::size_t line = 0;
  auto fail = [&](const std::string& what) {
    return makeError(ErrorCode::kSyntax, std::string(label) + ": line " + std::to_string(line) + ": " + what);
  };
  while (p < end) {
    const char* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (!eol) eol = end;
    ++line;
    const char* q = p;
    const char* e = eol;
    p = eol + 1;
    while (q < e && (*q == ' ' || *q == '\t' || *q == '\r')) ++q;
    while (e > q && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) --e;
    if (q == e || *q == '#' || *q == '"') continue;
    // The word at `from` (up to a blank), for messages; makeError elides a long one.
    auto word = [e](const char* from) {
      const char* to = from;
      while (to < e && *to != ' ' && *to != '\t') ++to;
      return std::string(from, to);
    };
    std::uint64_t index = 0;
    auto r = std::from_chars(q, e, index);
    if (r.ec == std::errc::result_out_of_range) return fail("vertex index " + word(q) + " is too large");
    if (r.ec != std::errc()) return fail("expected a vertex index, found \"" + word(q) + "\"");
    q = r.ptr;
    double d[3];
    for (double& v : d) {
      while (q < e && (*q == ' ' || *q == '\t')) ++q;
      if (q < e && *q == '+') ++q;
      if (q == e) return fail("expected three offsets");
      // Targets write ".904" and "-.002": from_chars reads both.
      auto rv = std::from_chars(q, e, v);
      if (rv.ec == std::errc::result_out_of_range || (rv.ec == std::errc() && std::isinf(v)))
        return fail("offset " + word(q) + " is beyond single precision");
      if (rv.ec != std::errc() || std::isnan(v)) return fail("expected three offsets, found \"" + word(q) + "\"");
      // Shape keys are single precision: an offset beyond it (1e308) would make the body infinite.
      if (std::abs(static_cast<double>(scale) * v) > std::numeric_limits<float>::max())
        return fail("offset " + std::string(q, rv.ptr) + " is beyond single precision");
      q = rv.ptr;
    }
    while (q < e && (*q == ' ' || *q == '\t')) ++q;
    if (q != e) return fail("unexpected text after the offsets: \"" + word(q) + "\"");
    if (index >= vertex_count) continue;  // as MPFB: indices beyond the mesh are ignored
    t.vertices.push_back(static_cast<std::uint32_t>(index));
    // MakeHuman (x, y, z) -> rig frame scale * (x, -z, y), in double as MPFB computes it.
    const double sf = scale;
    t.offsets.push_back(sf * d[0]);
    t.offsets.push_back(sf * -d[2]);
    t.offsets.push_back(sf * d[1]);
  }
  return t;
}

Expected<Target> decodeTarget(std::string_view bytes, std::string_view label, std::size_t vertex_count, float scale) {
  try {
    if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1F && static_cast<unsigned char>(bytes[1]) == 0x8B) {
      auto text = gunzip(bytes, std::string(label), targetTextBound(vertex_count), vertex_count);
      if (!text) return text.error();
      return parseTarget(*text, label, vertex_count, scale);
    }
    return parseTarget(bytes, label, vertex_count, scale);
  } catch (const std::bad_alloc&) {  // a plain target beyond memory: an error like any other
    return makeError(ErrorCode::kIo, std::string(label) + ": out of memory while reading the target");
  }
}

Expected<Target> readTarget(const std::string& path, std::size_t vertex_count, float scale) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.error();
  return decodeTarget(*bytes, path, vertex_count, scale);
}

}  // namespace rigfit
