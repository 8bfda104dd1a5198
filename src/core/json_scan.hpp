// A validating JSON scanner for the fast paths of the rig and weights readers: it reads the bytes
// directly (no structural index, no tape), checks the grammar as it goes and gives up (returns
// false) on anything it does not handle -- an escape in a string, a control character, invalid
// UTF-8, an integer of more than 18 digits, malformed text. The readers then hand the text to
// their general reader, which decides and names the error; so the scanner only has to be exact on
// what it accepts: well-formed JSON, strings without escapes, numbers converted with correct
// rounding (as simdjson and std::from_chars convert them).
//
// Bytes are read past a token to find its end; the text must be readable up to 64 bytes past its
// end (simdjson's padding) and its last non-whitespace byte must be the root's '}' (`Scanner::open`
// checks it), which stops every scan for whitespace, digits and literals inside the text. Only
// string scans can run off the end, and they check for it.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <simdjson.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RIGFIT_NO_PAGE_TRICK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(hwaddress_sanitizer)
#define RIGFIT_NO_PAGE_TRICK 1
#endif
#endif

namespace rigfit::detail {

/// Whether the SIMDJSON_PADDING bytes past [data, data + size) can be read without a fault: they
/// lie on the memory page (4 KiB at least) of the text's last byte. Their content does not matter
/// to simdjson's stage 1 or to a Scanner (see above), so a mapped file needs no padded copy then.
/// Sanitizers would report the read: under them, never.
inline bool paddingReadable(const char* data, std::size_t size) {
#if defined(RIGFIT_NO_PAGE_TRICK)
  (void)data;
  (void)size;
  return false;
#else
  constexpr std::uintptr_t kPage = 4096;
  if (size == 0) return false;
  const auto last = reinterpret_cast<std::uintptr_t>(data) + size - 1;
  return (last % kPage) + simdjson::SIMDJSON_PADDING < kPage;
#endif
}

inline bool isJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline bool isDigit(char c) { return static_cast<unsigned char>(c - '0') <= 9; }

// The first non-whitespace byte at or after p (there is one: the root's closing '}').
[[gnu::always_inline]] inline const char* skipSpace(const char* p) {
  if (static_cast<unsigned char>(*p) > ' ') return p;  // the usual case, in one test
  if (*p == ' ' && static_cast<unsigned char>(p[1]) > ' ') return p + 1;  // ": ", ", "
#if defined(__SSE2__)
  // Pretty-printed files: a newline, then up to ~30 spaces of indentation, 16 bytes per step. (A
  // token's position depends on this scan: it is kept short, one compare chain per step.)
  for (;;) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i ws = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
    const unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(ws)) & 0xFFFFu;
    if (other) {
      p += __builtin_ctz(other);
      break;
    }
    p += 16;
  }
  if (static_cast<unsigned char>(*p) > ' ') return p;
#endif
  while (isJsonSpace(*p)) ++p;  // other whitespace (and other layouts)
  return p;
}

// The n bytes at p are spaces (n <= 32; readable: the text's padding covers them).
[[gnu::always_inline]] inline bool allSpaces(const char* p, int n) {
#if defined(__SSE2__)
  const __m128i sp = _mm_set1_epi8(' ');
  const unsigned lo = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), sp)));
  const unsigned hi = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)), sp)));
  const std::uint64_t want = (std::uint64_t{1} << n) - 1;
  return ((lo | (hi << 16)) & want) == want;
#else
  for (int i = 0; i < n; ++i)
    if (p[i] != ' ') return false;
  return true;
#endif
}

// skipSpace with a prediction: a line break followed by `indent` spaces (the indentation this
// caller saw last time), so that the next token's position does not wait for a scan; the
// prediction is checked off that path. A miss scans and updates `indent`.
[[gnu::always_inline]] inline const char* skipSpace(const char* p, int& indent) {
  if (static_cast<unsigned char>(*p) > ' ') return p;
  if (*p == '\n') {
    const char* q = p + 1 + indent;
    if (static_cast<unsigned char>(*q) > ' ' && allSpaces(p + 1, indent)) return q;
    q = skipSpace(p);
    const std::ptrdiff_t n = q - p - 1;
    if (n <= 32) indent = static_cast<int>(n);
    return q;
  }
  return skipSpace(p);
}

// The number of ASCII digits (0-8) that start the 8 bytes at p, and their value (SWAR, after
// simdjson's parse_eight_digits_unrolled; little-endian only: elsewhere digits are read one by one).
[[gnu::always_inline]] inline int leadingDigits(const char* p, std::uint64_t& value) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  // Per byte, the high bit of (c - '0') or (c + 0x46) is set exactly when c is not a digit (for
  // the first non-digit; a borrow or carry only moves towards later bytes).
  const std::uint64_t digits = v - 0x3030303030303030ull;
  const std::uint64_t other = (digits | (v + 0x4646464646464646ull)) & 0x8080808080808080ull;
  const int n = other ? __builtin_ctzll(other) >> 3 : 8;
  if (n == 0) return 0;
  // The n digit values moved up so that 8 - n zero digits lead, then combined pairwise.
  std::uint64_t d = digits << (8 * (8 - n));
  d = d * 10 + (d >> 8);
  value = (((d & 0x000000FF000000FFull) * 0x000F424000000064ull) + (((d >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >> 32;
  return n;
#else
  int n = 0;
  value = 0;
  while (n < 8 && isDigit(p[n])) value = value * 10 + static_cast<unsigned>(p[n++] - '0');
  return n;
#endif
}

// The number of '0' bytes (0-8) that start the 8 bytes at p.
[[gnu::always_inline]] inline int leadingZeros(const char* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  v ^= 0x3030303030303030ull;
  return v ? __builtin_ctzll(v) >> 3 : 8;
#else
  int n = 0;
  while (n < 8 && p[n] == '0') ++n;
  return n;
#endif
}

inline constexpr std::uint64_t kPow10Int[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/// A number token as read by scanNumber.
struct NumberToken {
  const char* end = nullptr;   ///< past the token
  bool integer = false;        ///< written without fraction or exponent
  bool negative = false;
  int int_digits = 0;          ///< integer tokens: digits (without the sign)
  std::uint64_t magnitude = 0; ///< integer tokens: |value|
  double value = 0.0;          ///< the correctly rounded double (finite), for every token
};

// The JSON number at p: grammar checked, value converted with correct rounding (Clinger's exact
// fast path, else simdjson's Eisel-Lemire, else std::from_chars). False: not a number token, an
// integer of more than 18 digits, an exponent beyond simdjson's fast range or a value beyond
// double's.
[[gnu::always_inline]] inline bool scanNumber(const char* p, NumberToken& t) {
  const char* const start = p;
  t.negative = *p == '-';
  p += t.negative;
  std::uint64_t m = 0;
  int significant = 0;  // digits of m from its first non-zero one (m exact while <= 19)
  const char* const int_start = p;
  if (*p == '0') {
    ++p;
  } else {
    int n = leadingDigits(p, m);
    if (n == 0) return false;
    p += n;
    while (n == 8) {  // wraps beyond 19 digits: m is not used then
      std::uint64_t more = 0;
      n = leadingDigits(p, more);
      m = m * kPow10Int[n] + more;
      p += n;
    }
    significant = static_cast<int>(p - int_start);
  }
  t.int_digits = static_cast<int>(p - int_start);
  std::int64_t exp10 = 0;
  t.integer = true;
  if (*p == '.') {
    t.integer = false;
    const char* const frac_start = ++p;
    if (m == 0) {  // leading zeros of "0.000123": not significant
      int z = 8;
      while (z == 8) {
        z = leadingZeros(p);
        p += z;
      }
    }
    const char* const sig_start = p;
    int n = 8;
    while (n == 8) {  // wraps beyond 19 digits: m is not used then
      std::uint64_t more = 0;
      n = leadingDigits(p, more);
      m = m * kPow10Int[n] + more;
      p += n;
    }
    if (p == frac_start) return false;
    significant += static_cast<int>(p - sig_start);
    exp10 = -(p - frac_start);
  }
  if (*p == 'e' || *p == 'E') {
    t.integer = false;
    ++p;
    bool exp_negative = false;
    if (*p == '+' || *p == '-') exp_negative = *p++ == '-';
    if (!isDigit(*p)) return false;
    std::int64_t e = 0;
    while (isDigit(*p)) {
      if (e < 100000) e = e * 10 + (*p - '0');
      ++p;
    }
    exp10 += exp_negative ? -e : e;
  }
  t.end = p;
  if (t.integer) {
    if (t.int_digits > 18) return false;  // may exceed int64: left to the general readers
    t.magnitude = m;
    // As the full reader converts integers: the int64 value ("-0" is 0) to double.
    const auto i = static_cast<std::int64_t>(m);
    t.value = static_cast<double>(t.negative ? -i : i);
    return true;
  }
  // Exponents simdjson reads without its slow path only (1e-400, 1e400: left to the general readers).
  if (exp10 < simdjson::internal::smallest_power || exp10 > simdjson::internal::largest_power) return false;
  double d = 0.0;
  if (significant <= 19 && m == 0) {
    d = t.negative ? -0.0 : 0.0;
  } else if (significant <= 19 && exp10 >= -22 && exp10 <= 22 && m <= (std::uint64_t{1} << 53)) {
    // Clinger: m and 10^|exp10| are exact doubles, so one correctly rounded operation.
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    d = exp10 < 0 ? static_cast<double>(m) / kPow10[-exp10] : static_cast<double>(m) * kPow10[exp10];
    t.value = t.negative ? -d : d;  // finite
    return true;
  } else if (!(significant <= 19 && simdjson::SIMDJSON_BUILTIN_IMPLEMENTATION::numberparsing::compute_float_64(exp10, m, t.negative, d))) {
    const auto r = std::from_chars(start, p, d);
    if (r.ec != std::errc() || r.ptr != p) return false;
  }
  if (!std::isfinite(d)) return false;
  t.value = d;
  return true;
}

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
// The value of the n digits (1-8) at p (SWAR, as in leadingDigits).
[[gnu::always_inline]] inline std::uint64_t digitsValue(const char* p, int n) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  std::uint64_t d = (v - 0x3030303030303030ull) << (8 * (8 - n));
  d = d * 10 + (d >> 8);
  return (((d & 0x000000FF000000FFull) * 0x000F424000000064ull) + (((d >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >> 32;
}

// The usual number of a rig file: one integer digit, '.', 1 to 18 decimals, no exponent
// ("-0.026746699586510658", "0.0"). Its decimals are counted in one 16-byte step and converted
// in independent 8-digit pieces, with fewer instructions than scanNumber's loops. False (nothing
// read) for any other token; scanNumber then reads it. The value is the same: at most 19
// digits, converted by simdjson's compute_float_64 (Clinger's fast path, else Eisel-Lemire).
[[gnu::always_inline]] inline bool scanDecimal(const char* p, NumberToken& t) {
  const bool negative = *p == '-';
  const char* const q = p + negative;
  if (!isDigit(q[0]) || q[1] != '.') return false;
  const char* const f = q + 2;
  // The decimals: bytes with c - '0' <= 9 (unsigned); 16 or more continue past this step.
  const __m128i x = _mm_sub_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(f)), _mm_set1_epi8('0'));
  const unsigned digit = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(9)), x)));
  int n = __builtin_ctz(~digit);  // 0-16
  if (n == 16) {
    n += isDigit(f[16]) ? 1 + isDigit(f[17]) : 0;
    if (n == 18 && isDigit(f[18])) return false;  // more than 19 digits
  }
  const char* const end = f + n;
  if (n == 0 || *end == 'e' || *end == 'E' || *end == '.') return false;
  std::uint64_t m = static_cast<std::uint64_t>(q[0] - '0');
  if (n <= 8) {
    m = m * kPow10Int[n] + digitsValue(f, n);
  } else if (n <= 16) {
    m = (m * kPow10Int[n - 8] + digitsValue(f, n - 8)) * 100000000 + digitsValue(end - 8, 8);
  } else {
    m = ((m * kPow10Int[n - 16] + digitsValue(f, n - 16)) * 100000000 + digitsValue(end - 16, 8)) * 100000000 + digitsValue(end - 8, 8);
  }
  double d;
  if (!simdjson::SIMDJSON_BUILTIN_IMPLEMENTATION::numberparsing::compute_float_64(-n, m, negative, d)) return false;
  t.end = end;
  t.integer = false;
  t.negative = negative;
  t.int_digits = 1;
  t.value = d;
  return true;
}
#else
inline bool scanDecimal(const char*, NumberToken&) { return false; }
#endif

/// A cursor over a JSON text (see the top of the file). Every method returns false when the text
/// is not what it expects or not handled; the caller then gives up.
class Scanner {
 public:
  /// The text [data, data + size), readable 64 bytes further. False when its last
  /// non-whitespace byte is not '}'.
  bool open(const char* data, std::size_t size) {
    const char* e = data + size;
    while (e > data && isJsonSpace(e[-1])) --e;
    if (e == data || e[-1] != '}') return false;
    p_ = skipSpace(data);
    last_ = e - 1;
    return true;
  }
  /// The root object has been read (only whitespace follows it).
  bool atEnd() const { return p_ == kEnd; }

  const char* pos() const { return p_; }
  /// Continues at q, a position this scanner's text reached (after a caller's own scan).
  void seek(const char* q) { p_ = q; }
  char peek() const { return *p_; }

  /// The next byte is `c` (skipped, with the whitespace after it).
  bool eat(char c) {
    if (*p_ != c) return false;
    p_ = skipSpace(p_ + 1, indent_);
    return true;
  }

  /// After '{' or '[' (and its whitespace): true if the container has a first element, false
  /// (with the closing byte eaten) if it is empty.
  bool first(char close) {
    if (*p_ != close) return true;
    p_ = after(p_);
    return false;
  }
  /// After an element: 1 when ',' follows (eaten), 0 when `close` does (eaten), -1 otherwise.
  int next(char close) {
    const char c = *p_;
    if (c == ',') {
      p_ = skipSpace(p_ + 1, indent_);
      return 1;
    }
    if (c == close) {
      p_ = after(p_);
      return 0;
    }
    return -1;
  }

  /// A string without escapes (valid UTF-8, no control characters), and its whitespace.
  bool string(std::string_view& out) {
    const char* q = stringEnd(out);
    if (!q) return false;
    p_ = skipSpace(q + 1, indent_);
    return true;
  }

  /// A key expected at the cursor, as the bytes '"' key '"' ':' (keys of at most 29 bytes, without
  /// '"', '\\' or control characters), zero-padded.
  struct KeyPattern {
    char bytes[32] = {};
    int size = 0;  ///< bytes used
    constexpr explicit KeyPattern(std::string_view key) {
      bytes[0] = '"';
      for (std::size_t i = 0; i < key.size(); ++i) bytes[i + 1] = key[i];
      bytes[key.size() + 1] = '"';
      bytes[key.size() + 2] = ':';
      size = static_cast<int>(key.size()) + 3;
    }
  };

  /// The key `k` and its ':' are at the cursor: both skipped, with the whitespace after them.
  /// False, with nothing read, for anything else (another key, or whitespace before the ':'),
  /// which key() then reads. One compare of 32 bytes instead of a string scan: the readers
  /// predict the next key from the last object's order. (A match lies before the root's '}':
  /// the pattern has neither '}' nor whitespace nor zero bytes.)
  bool knownKey(const KeyPattern& k) {
#if defined(__SSE2__)
    const __m128i lo = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p_)), _mm_loadu_si128(reinterpret_cast<const __m128i*>(k.bytes)));
    const __m128i hi = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p_ + 16)), _mm_loadu_si128(reinterpret_cast<const __m128i*>(k.bytes + 16)));
    const std::uint64_t equal = static_cast<unsigned>(_mm_movemask_epi8(lo)) | (static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(hi))) << 16);
    const std::uint64_t want = (std::uint64_t{1} << k.size) - 1;
    if ((equal & want) != want) return false;
#else
    if (std::memcmp(p_, k.bytes, static_cast<std::size_t>(k.size)) != 0) return false;
#endif
    const char* q = p_ + k.size;
    p_ = q[0] == ' ' && static_cast<unsigned char>(q[1]) > ' ' ? q + 1 : skipSpace(q, indent_);
    return true;
  }

  /// An object key and its ':' (with whitespace).
  bool key(std::string_view& out) {
    const char* q = stringEnd(out);
    if (!q) return false;
    if (q[1] == ':' && q[2] == ' ' && static_cast<unsigned char>(q[3]) > ' ') {  // "key": value, in one step
      p_ = q + 3;
      return true;
    }
    p_ = skipSpace(q + 1, indent_);
    return eat(':');
  }

 private:
  // The string at the cursor (see string()): its closing quote, or null.
  const char* stringEnd(std::string_view& out) const {
    if (*p_ != '"') return nullptr;
    const char* const s = p_ + 1;
    const char* q = s;
    bool ascii = true;
    for (;;) {
#if defined(__SSE2__)
      if (q > last_) return nullptr;  // an unterminated string (the text is readable 16 bytes on)
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
      // Signed compare: bytes >= 0x80 count as below 0x20, so one test finds control
      // characters and non-ASCII bytes.
      const __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                                           _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
      const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(special));
      if (!mask) {
        q += 16;
        continue;
      }
      q += __builtin_ctz(mask);
#else
      while (q <= last_ && *q != '"' && *q != '\\' && static_cast<unsigned char>(*q) >= 0x20 && static_cast<unsigned char>(*q) < 0x80) ++q;
#endif
      if (q > last_) return nullptr;
      const unsigned char c = static_cast<unsigned char>(*q);
      if (c == '"') break;
      if (c < 0x80) return nullptr;  // an escape or a control character
      ascii = false;
      ++q;
    }
    out = std::string_view(s, static_cast<std::size_t>(q - s));
    if (!ascii && !simdjson::validate_utf8(out.data(), out.size())) return nullptr;
    return q;
  }

 public:

  /// A number token (see scanNumber), and its whitespace.
  bool number(NumberToken& t) {
    if (!scanDecimal(p_, t) && !scanNumber(p_, t)) return false;
    p_ = skipSpace(t.end, indent_);
    return true;
  }

  /// true / false (and the whitespace after).
  bool boolean(bool& out) {
    if (std::memcmp(p_, "true", 4) == 0) {
      out = true;
      p_ = skipSpace(p_ + 4, indent_);
      return true;
    }
    if (std::memcmp(p_, "false", 5) == 0) {
      out = false;
      p_ = skipSpace(p_ + 5, indent_);
      return true;
    }
    return false;
  }
  /// null (and the whitespace after); false when the value is something else.
  bool null() {
    if (std::memcmp(p_, "null", 4) != 0) return false;
    p_ = skipSpace(p_ + 4, indent_);
    return true;
  }

  /// Skips a value, checking it as the full readers would parse it: grammar, strings, numbers
  /// (finite, integers of at most 18 digits) and unique keys in every object. `keys` is scratch
  /// space (a stack of the open objects' keys).
  template <typename KeyStack>
  bool skip(KeyStack& keys, int depth) {
    if (depth > 1000) return false;
    switch (*p_) {
      case '{': {
        p_ = skipSpace(p_ + 1, indent_);
        if (!first('}')) return true;
        const std::size_t mark = keys.size();
        int more = 1;
        while (more == 1) {
          std::string_view k;
          if (!key(k) || !skip(keys, depth + 1)) return false;
          keys.push_back(k);
          more = next('}');
        }
        const bool unique = more == 0 && uniqueKeys(keys, mark);
        keys.resize(mark);
        return unique;
      }
      case '[': {
        p_ = skipSpace(p_ + 1, indent_);
        if (!first(']')) return true;
        int more = 1;
        while (more == 1) {
          if (!skip(keys, depth + 1)) return false;
          more = next(']');
        }
        return more == 0;
      }
      case '"': {
        std::string_view s;
        return string(s);
      }
      case 't':
      case 'f': {
        bool b = false;
        return boolean(b);
      }
      case 'n': return null();
      default: {
        NumberToken t;
        return number(t);
      }
    }
  }

  /// Unique keys, as the full readers require of every object (keys[from..] are one object's).
  template <typename KeyStack>
  [[gnu::always_inline]] static bool uniqueKeys(KeyStack& keys, std::size_t from = 0) {
    const std::size_t n = keys.size() - from;
    return n < 2 || uniqueKeys(keys.data() + from, n);  // the usual 0 or 1 key: no call
  }

  /// The n keys at k are unique (n >= 2).
  [[gnu::noinline]] static bool uniqueKeys(const std::string_view* k, std::size_t n) {
    if (n <= 8) {
      for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = a + 1; b < n; ++b)
          if (k[a] == k[b]) return false;
      return true;
    }
    if (n > 2048) {
      std::vector<std::string_view> sorted(k, k + n);
      std::sort(sorted.begin(), sorted.end());
      return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    }
    // An open-addressing set of key indices, hashed on the length and the first and last 8 bytes
    // (keys lie in the text, inside its quotes, and the text is readable 64 bytes on).
    std::uint16_t table[4096];
    std::size_t size = 16;
    while (size < 2 * n) size *= 2;
    std::memset(table, 0xFF, size * sizeof(table[0]));
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t head = 0, tail = 0;
      std::memcpy(&head, k[i].data(), 8);
      if (k[i].size() < 8) head &= (std::uint64_t{1} << (8 * k[i].size())) - 1;
      else std::memcpy(&tail, k[i].data() + k[i].size() - 8, 8);  // "DEF-upper_arm.L" and ".R"
      std::size_t h = static_cast<std::size_t>(((head ^ k[i].size()) * 0x9E3779B97F4A7C15ull ^ tail * 0xC2B2AE3D27D4EB4Full) >> 40) & (size - 1);
      for (;; h = (h + 1) & (size - 1)) {
        if (table[h] == 0xFFFF) {
          table[h] = static_cast<std::uint16_t>(i);
          break;
        }
        if (k[table[h]] == k[i]) return false;
      }
    }
    return true;
  }

 private:
  // Past a closing byte and its whitespace. Nothing after the text's last '}' is read: the cursor
  // moves to kEnd, on which every further step fails (the bytes after the text are arbitrary and
  // need not stop a scan), and atEnd() tells whether that '}' closed the root.
  const char* after(const char* close) { return close == last_ ? kEnd : skipSpace(close + 1, indent_); }
  static constexpr char kEnd[64] = {};

  const char* p_ = nullptr;
  const char* last_ = nullptr;  // the root's closing '}'
  int indent_ = 0;              // the last line's indentation (see skipSpace)
};

}  // namespace rigfit::detail
