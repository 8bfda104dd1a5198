// The fast path of parseWeights: MPFB's weights files are read straight from their bytes with
// rigfit's validating scanner instead of simdjson's On-Demand front end, which, instantiated for
// baseline x86-64 from Debian's headers, scans strings and numbers a byte at a time. Anything the
// scanner or this reader does not handle returns false and the general reader (weights_read.cpp)
// reads the file and names any error, so results and messages are the general reader's.
#include "skin/weights_fast.hpp"

#include <string>
#include <unordered_set>
#include <vector>

#include "core/json_scan.hpp"
#include "skin/pair_scratch.hpp"

#include <simdjson.h>

namespace rigfit::detail {
namespace {

class FastReader {
 public:
  FastReader(std::string_view label, std::size_t vertex_count) : label_(label), vertex_count_(vertex_count) {}

  bool run(const char* data, std::size_t size, WeightsFile& file) {
    if (!s_.open(data, size) || !s_.eat('{')) return false;
    std::vector<std::string_view> keys;
    bool have_weights = false;
    if (s_.first('}')) {
      int more = 1;
      while (more == 1) {
        std::string_view key;
        if (!s_.key(key)) return false;
        keys.push_back(key);
        if (key == "weights") {
          if (!groups(file)) return false;
          have_weights = true;
        } else {
          // The few header values go through rigfit's Json, as the general reader reads them.
          const char* start = s_.pos();
          if (!s_.skip(scratch_, 1)) return false;
          const char* end = s_.pos();
          while (end > start && isJsonSpace(end[-1])) --end;
          auto j = parseJson(std::string_view(start, static_cast<std::size_t>(end - start)), label_);
          if (!j) return false;
          file.header.members().emplace_back(std::string(key), std::move(*j));
        }
        more = s_.next('}');
      }
      if (more != 0) return false;
    }
    if (!s_.atEnd() || !have_weights || !Scanner::uniqueKeys(keys)) return false;
    file.final_newline = size > 0 && data[size - 1] == '\n';
    return true;
  }

 private:
  bool groups(WeightsFile& file) {
    if (!s_.eat('{')) return false;
    if (!s_.first('}')) return true;
    std::unordered_set<std::string_view> names;
    int more = 1;
    while (more == 1) {
      std::string_view name;
      if (!s_.key(name) || !names.insert(name).second) return false;
      WeightsFile::Group& g = file.groups.emplace_back();
      g.name = std::string(name);
      if (!pairs(g)) return false;
      more = s_.next('}');
    }
    return more == 0;
  }

  // [[vertex, weight], ...]: a vertex is a non-negative integer below the vertex count, a weight
  // a non-negative number (integers below 2^53; they are flagged as such).
  bool pairs(WeightsFile::Group& g) {
    if (!s_.eat('[')) return false;
    if (!s_.first(']')) return true;
    PairScratch& scratch = PairScratch::start();
    std::vector<std::int64_t>& vertices = scratch.vertices;
    std::vector<double>& weights = scratch.weights;
    std::vector<std::size_t>& ints = scratch.ints;
    const std::uint64_t vertex_limit = vertex_count_ != 0 ? vertex_count_ : std::uint64_t{1} << 62;
    // The hot loop, on a local pointer: one pair per iteration.
    const char* p = s_.pos();
    // The indentation predicted at each of the four line breaks of a pretty-printed pair.
    int in_pair = 0, before_close = 0, between = 0;
    for (;;) {
      if (*p != '[') return false;
      p = skipSpace(p + 1, in_pair);
      // The vertex: 1 to 7 digits (longer ones, fractions, signs: left to the general reader).
      std::uint64_t vertex = 0;
      const int n = leadingDigits(p, vertex);
      if (n == 0 || n == 8 || (n > 1 && *p == '0') || vertex >= vertex_limit) [[unlikely]]
        return false;
      p += n;
      if (*p == '.' || *p == 'e' || *p == 'E') [[unlikely]]
        return false;
      p = skipSpace(p);
      if (*p != ',') return false;
      p = skipSpace(p + 1, in_pair);
      // The weight: "0." and decimals (the usual form) read here, anything else by scanNumber.
      double w = 0.0;
      if (!fraction(p, w)) [[unlikely]] {
        NumberToken t;
        if (!scanNumber(p, t) || t.negative) return false;
        if (t.integer) {
          if (t.int_digits > 15) return false;  // 2^53 or more is an error: the general reader says so
          ints.push_back(vertices.size());
        }
        w = t.value;
        p = t.end;
      }
      vertices.push_back(static_cast<std::int64_t>(vertex));
      weights.push_back(w);
      p = skipSpace(p, before_close);
      if (*p != ']') return false;
      p = skipSpace(p + 1);
      if (*p == ',') {
        p = skipSpace(p + 1, between);
        continue;
      }
      if (*p != ']') return false;
      break;
    }
    s_.seek(p);
    s_.eat(']');
    scratch.store(g);
    return true;
  }

  // "0." and at most 19 significant decimals, no exponent, at p: its correctly rounded value in
  // `w`, p moved past it. False (p unchanged) for any other token.
  [[gnu::always_inline]] static bool fraction(const char*& p, double& w) {
    if (p[0] != '0' || p[1] != '.') return false;
    const char* q = p + 2;
    int z = 8;
    while (z == 8) {
      z = leadingZeros(q);
      q += z;
    }
    const char* const sig = q;
    std::uint64_t m = 0;
    int n = 8;
    while (n == 8) {
      std::uint64_t more = 0;
      n = leadingDigits(q, more);
      m = m * kPow10Int[n] + more;
      q += n;
    }
    const std::ptrdiff_t decimals = q - (p + 2);
    if (decimals == 0 || q - sig > 19 || *q == 'e' || *q == 'E' || *q == '.') return false;
    if (m == 0) {
      w = 0.0;
    } else if (decimals <= 22 && m <= (std::uint64_t{1} << 53)) {
      // Clinger: m and 10^decimals are exact doubles, so one correctly rounded division.
      static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                          1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
      w = static_cast<double>(m) / kPow10[decimals];
    } else if (decimals > 342 || !simdjson::SIMDJSON_BUILTIN_IMPLEMENTATION::numberparsing::compute_float_64(-decimals, m, false, w)) {
      return false;
    }
    p = q;
    return true;
  }

  Scanner s_;
  std::string_view label_;
  std::size_t vertex_count_;
  std::vector<std::string_view> scratch_;
};

}  // namespace

bool readWeightsFast(const char* data, std::size_t size, std::string_view label, std::size_t vertex_count, WeightsFile& file) {
  return FastReader(label, vertex_count).run(data, size, file);
}

}  // namespace rigfit::detail
