// Writing weights files byte for byte as Python's json.dump(obj, f, indent=4, sort_keys=True).
// The pairs are formatted straight into one buffer through a pointer (no Json tree): each pair is
//             [
//                 VERTEX,
//                 WEIGHT
//             ]
// and weights use Python's float repr (shortest round-trip digits, Python's exponent rules).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>

#include "rigfit/number_format.hpp"
#include "rigfit/weights.hpp"

namespace rigfit {
namespace {

// Pieces of a pair, as char arrays so that every copy has a constant size.
constexpr char kFirstPairOpen[] = "\n            [\n                ";  // after the group's '['
constexpr char kPairOpen[] = ",\n            [\n                ";
constexpr char kPairMid[] = ",\n                ";
constexpr char kPairClose[] = "\n            ]";
constexpr std::size_t kMaxNumber = 32;  // longest int64 or Python float repr is 24 characters
constexpr std::size_t kMaxPair = sizeof kPairOpen + sizeof kPairMid + sizeof kPairClose + 2 * kMaxNumber;

// Integers (vertex indices: small and non-negative) two digits at a time.
char* putInt(char* p, std::int64_t v) {
  if (v < 0 || v >= 100000000) return std::to_chars(p, p + 24, v).ptr;
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  auto u = static_cast<std::uint32_t>(v);
  const int n = u < 10 ? 1 : u < 100 ? 2 : u < 1000 ? 3 : u < 10000 ? 4 : u < 100000 ? 5 : u < 1000000 ? 6 : u < 10000000 ? 7 : 8;
  char* end = p + n;
  char* q = end;
  while (u >= 100) {
    const std::uint32_t r = u % 100;
    u /= 100;
    q -= 2;
    std::memcpy(q, kPairs + 2 * r, 2);
  }
  if (u >= 10) {
    q -= 2;
    std::memcpy(q, kPairs + 2 * u, 2);
  } else {
    *--q = static_cast<char>('0' + u);
  }
  return end;
}

template <std::size_t N>
char* put(char* p, const char (&s)[N]) {
  std::memcpy(p, s, N - 1);
  return p + N - 1;
}

char* put(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

// Python's repr for a weight, with two shortcuts: values with at most 5 decimals in [1e-4, 1)
// (MPFB's current files) are written straight from their digits, and other values go through a
// small cache (weights repeat: a shipped file has ~15k distinct values among ~36k).
// Python's repr for 0 < |w| < 1 from the shortest scientific digits: below 1e-4 Python keeps
// the exponent form (as C++ writes it: "1.5e-05"), otherwise "0." + zeros + digits.
char* shortFraction(char* p, double w) {
  char buf[32];
  const char* end = std::to_chars(buf, buf + sizeof buf, w, std::chars_format::scientific).ptr;
  const char* e = end - 1;
  while (*e != 'e') --e;  // e-XX or e-XXX
  int x = 0;
  for (const char* q = e + 2; q < end; ++q) x = x * 10 + (*q - '0');
  if (x > 4) return put(p, std::string_view(buf, static_cast<std::size_t>(end - buf)));
  const char* s = buf;
  if (*s == '-') *p++ = *s++;
  *p++ = '0';
  *p++ = '.';
  for (int k = 1; k < x; ++k) *p++ = '0';
  *p++ = s[0];
  if (s[1] == '.') p = put(p, std::string_view(s + 2, static_cast<std::size_t>(e - (s + 2))));
  return p;
}

class WeightFormatter {
 public:
  /// The formatter of this thread, its cache emptied (by a new epoch: no memset, and nothing is
  /// carried over from an earlier call).
  static WeightFormatter& fresh() {
    thread_local std::unique_ptr<WeightFormatter> f;
    if (!f) f.reset(new WeightFormatter);
    if (++f->epoch_ == 0) {  // wrapped: really clear
      std::memset(f->entries_, 0, sizeof f->entries_);
      f->epoch_ = 1;
    }
    return *f;
  }

  char* put(char* p, double w) {
    if (w == 1.0) return rigfit::put(p, "1.0");
    if (w > 0.0 && w < 1.0) {
      // n / 1e5 is correctly rounded, so equality means w is the double of "0.nnnnn"; that
      // string (trailing zeros dropped) is then the shortest round trip, in Python's fixed form
      // for w >= 1e-4.
      const auto n = static_cast<std::int64_t>(w * 1e5 + 0.5);
      if (n >= 10 && static_cast<double>(n) / 1e5 == w) {
        char digits[5];
        std::int64_t m = n;
        for (int k = 4; k >= 0; --k) {
          digits[k] = static_cast<char>('0' + m % 10);
          m /= 10;
        }
        int len = 5;
        while (digits[len - 1] == '0') --len;
        *p++ = '0';
        *p++ = '.';
        std::memcpy(p, digits, static_cast<std::size_t>(len));
        return p + len;
      }
    }
    if (!std::isfinite(w)) return writePythonFloat(p, w);
    std::uint64_t bits;
    std::memcpy(&bits, &w, sizeof bits);
    Entry& e = entries_[(bits * 0x9E3779B97F4A7C15ull) >> (64 - kBits)];
    if (e.epoch != epoch_ || e.bits != bits) {
      e.epoch = epoch_;
      e.bits = bits;
      const bool fraction = w > -1.0 && w < 1.0 && w != 0.0;
      e.len = static_cast<std::uint8_t>((fraction ? shortFraction(e.text, w) : writePythonFloat(e.text, w)) - e.text);
    }
    std::memcpy(p, e.text, sizeof e.text);  // fixed-size copy; the buffer has room
    return p + e.len;
  }

 private:
  WeightFormatter() { std::memset(entries_, 0, sizeof entries_); }

  static constexpr int kBits = 13;  // 8192 entries: ~15k distinct values in a shipped file
  struct Entry {
    std::uint64_t bits;
    std::uint32_t epoch;  // valid only in the epoch that wrote it
    std::uint8_t len;
    char text[kMaxNumber - 8];
  };
  static_assert(sizeof(Entry::text) >= kPythonFloatChars);
  std::uint32_t epoch_ = 0;
  Entry entries_[1 << kBits];
};

// The output, written through a pointer into a per-thread scratch buffer that keeps its size
// between calls (std::string::resize would zero-fill a fresh worst-case buffer every time).
class Out {
 public:
  Out() : buf_(scratch()) {}
  char* room(std::size_t n) {
    if (len_ + n > buf_.size()) buf_.resize(std::max(buf_.size() * 2, len_ + n));
    return buf_.data() + len_;
  }
  void commit(const char* end) { len_ = static_cast<std::size_t>(end - buf_.data()); }
  void append(std::string_view s) {
    char* p = room(s.size());
    commit(put(p, s));
  }
  std::string take() const { return std::string(buf_.data(), len_); }

 private:
  static std::string& scratch() {
    thread_local std::string buffer;
    return buffer;
  }
  std::string& buf_;
  std::size_t len_ = 0;
};

// A header value nested one level deep: Python's output at depth 0 with every line indented.
void appendNested(Out& out, const Json& value) {
  JsonWriteOptions o;
  o.indent = 4;
  o.sort_keys = true;
  const std::string text = writeJson(value, o);
  std::string nested;
  nested.reserve(text.size() + 64);
  for (const char c : text) {
    nested.push_back(c);
    if (c == '\n') nested.append(4, ' ');
  }
  out.append(nested);
}

void appendKey(Out& out, std::string_view key) {
  // Keys go through the Json writer so that escaping (ensure_ascii) is exactly Python's.
  out.append(writeJson(Json(std::string(key)), {}));
  out.append(": ");
}

struct Kept {
  double weight;
  bool is_int;
};

// MPFB's saver (RigService.get_weights): Blender holds float32 weights;
// w = max(0, min(1, round(w, 5) + 0)), kept if w >= 0.0001. min(1, 1.0) is Python's int 1.
// Python's round(x, 5) rounds the exact binary value half to even, then takes the nearest double:
// for a float32 x of magnitude <= 2 (24-bit mantissa) x * 1e5 (17 bits) is exact in double, so
// nearbyint (round half even) decides exactly and n / 1e5 is that nearest double. Others
// (beyond 1 they clamp to 1 anyway) go through roundPython.
double roundFloat32To5(float f) {
  const double x = static_cast<double>(f);
  if (!(std::fabs(x) <= 2.0)) return roundPython(x, 5);
  return std::nearbyint(x * 1e5) / 1e5;
}

bool mpfbRound(double w, Kept& k) {
  const double r = roundFloat32To5(static_cast<float>(w)) + 0.0;
  if (!(r >= 0.0001)) return false;  // also drops NaN
  if (r >= 1.0) {
    k = {1.0, true};
    return true;
  }
  k = {r, false};
  return true;
}

void appendGroup(Out& out, const WeightsFile::Group& g, const WeightsWriteOptions& options, WeightFormatter& fmt) {
  appendKey(out, g.name);
  const std::size_t count = std::min(g.vertices.size(), g.weights.size());
  const bool any_int = !g.weight_is_int.empty();
  char* p = out.room(16 + count * kMaxPair);
  *p++ = '[';
  bool first = true;
  for (std::size_t i = 0; i < count; ++i) {
    Kept k{g.weights[i], any_int && i < g.weight_is_int.size() && g.weight_is_int[i] != 0};
    if (options.mpfb_rounding && !mpfbRound(g.weights[i], k)) continue;
    p = first ? put(p, kFirstPairOpen) : put(p, kPairOpen);
    first = false;
    p = putInt(p, g.vertices[i]);
    p = put(p, kPairMid);
    p = k.is_int ? putInt(p, static_cast<std::int64_t>(k.weight)) : fmt.put(p, k.weight);
    p = put(p, kPairClose);
  }
  if (!first) p = put(p, "\n        ");
  *p++ = ']';
  out.commit(p);
}

}  // namespace

std::string writeWeights(const WeightsFile& file, const WeightsWriteOptions& options) {
  // Top-level keys: the header's (except a stray "weights") and "weights", sorted.
  std::vector<const Json::Member*> header;
  for (const auto& m : file.header.members())
    if (m.first != "weights") header.push_back(&m);
  std::stable_sort(header.begin(), header.end(), [](const Json::Member* a, const Json::Member* b) { return a->first < b->first; });
  std::vector<const WeightsFile::Group*> groups;
  groups.reserve(file.groups.size());
  for (const auto& g : file.groups) groups.push_back(&g);
  std::stable_sort(groups.begin(), groups.end(),
                   [](const WeightsFile::Group* a, const WeightsFile::Group* b) { return a->name < b->name; });

  WeightFormatter& fmt = WeightFormatter::fresh();
  Out out;
  out.append("{");
  bool first_key = true;
  auto next_key = [&] {
    out.append(first_key ? "\n    " : ",\n    ");
    first_key = false;
  };
  auto write_weights = [&] {
    next_key();
    out.append("\"weights\": ");
    if (groups.empty()) {
      out.append("{}");
      return;
    }
    out.append("{");
    for (std::size_t k = 0; k < groups.size(); ++k) {
      out.append(k ? ",\n        " : "\n        ");
      appendGroup(out, *groups[k], options, fmt);
    }
    out.append("\n    }");
  };
  bool weights_done = false;
  for (const Json::Member* m : header) {
    if (!weights_done && std::string_view("weights") < std::string_view(m->first)) {
      write_weights();
      weights_done = true;
    }
    next_key();
    appendKey(out, m->first);
    appendNested(out, m->second);
  }
  if (!weights_done) write_weights();
  out.append("\n}");
  if (file.final_newline) out.append("\n");
  return out.take();
}

}  // namespace rigfit
