#include "rigfit/number_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace rigfit {

char* writePythonFloat(char* out, double value) {
  auto put = [&out](const char* from, int count) {
    std::memcpy(out, from, static_cast<std::size_t>(count));
    out += count;
  };
  if (std::isnan(value)) {
    put("NaN", 3);
    return out;
  }
  if (std::isinf(value)) {
    value < 0 ? put("-Infinity", 9) : put("Infinity", 8);
    return out;
  }
  // Values of at most five decimals in [1e-4, 1) (MPFB's rounded weights) from their digits:
  // n / 1e5 is correctly rounded, so equality means `value` is the double nearest 0.nnnnn, and
  // those digits (trailing zeros dropped) are the shortest that read back to it.
  if (value >= 1e-4 && value < 1.0) {
    const auto n = static_cast<int>(value * 1e5 + 0.5);
    if (static_cast<double>(n) / 1e5 == value) {
      char digits[5];
      for (int k = 4, m = n; k >= 0; --k, m /= 10) digits[k] = static_cast<char>('0' + m % 10);
      int len = 5;
      while (digits[len - 1] == '0') --len;
      put("0.", 2);
      put(digits, len);
      return out;
    }
  }
  // Shortest round-trip digits in scientific form: [-]d[.ddd]e(+|-)XX[X].
  char sci[40];
  const char* const sci_end = std::to_chars(sci, sci + sizeof sci, value, std::chars_format::scientific).ptr;
  const char* p = sci;
  if (*p == '-') {
    *out++ = '-';
    ++p;
  }
  char digits[24];
  int n = 0;
  for (; *p != 'e'; ++p)
    if (*p != '.') digits[n++] = *p;
  ++p;  // 'e'
  const bool exp_negative = *p++ == '-';
  int exp10 = 0;
  for (; p < sci_end; ++p) exp10 = exp10 * 10 + (*p - '0');
  if (exp_negative) exp10 = -exp10;
  // Python: value = 0.DIGITS * 10^decpt.
  const int decpt = exp10 + 1;
  if (decpt <= -4 || decpt > 16) {
    *out++ = digits[0];
    if (n > 1) {
      *out++ = '.';
      put(digits + 1, n - 1);
    }
    *out++ = 'e';
    const int e = decpt - 1;
    *out++ = e < 0 ? '-' : '+';
    const int ae = std::abs(e);
    if (ae >= 100) *out++ = static_cast<char>('0' + ae / 100);
    *out++ = static_cast<char>('0' + ae / 10 % 10);
    *out++ = static_cast<char>('0' + ae % 10);
  } else if (decpt <= 0) {
    put("0.000", 2 - decpt);
    put(digits, n);
  } else if (decpt >= n) {
    put(digits, n);
    for (int k = n; k < decpt; ++k) *out++ = '0';
    put(".0", 2);
  } else {
    put(digits, decpt);
    *out++ = '.';
    put(digits + decpt, n - decpt);
  }
  return out;
}

void appendPythonFloat(std::string& out, double value) {
  char text[kPythonFloatChars];
  out.append(text, static_cast<std::size_t>(writePythonFloat(text, value) - text));
}

std::string formatPythonFloat(double value) {
  std::string s;
  appendPythonFloat(s, value);
  return s;
}

double roundPython(double value, int digits) {
  if (!std::isfinite(value)) return value;
  char buf[400];
  auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, digits);
  double r = 0.0;
  std::from_chars(buf, res.ptr, r);
  if (r == 0.0) r = 0.0;  // drop the sign of zero
  return r;
}

}  // namespace rigfit
