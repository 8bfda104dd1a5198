#include "rigfit/number_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace rigfit {

void appendPythonFloat(std::string& out, double value) {
  if (std::isnan(value)) { out += "NaN"; return; }
  if (std::isinf(value)) { out += value < 0 ? "-Infinity" : "Infinity"; return; }
  // Shortest round-trip digits in scientific form: [-]d[.ddd]e[+-]XX.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  bool negative = false;
  if (!sci.empty() && sci[0] == '-') { negative = true; sci.remove_prefix(1); }
  const std::size_t epos = sci.find('e');
  std::string digits;
  digits.reserve(20);
  for (std::size_t k = 0; k < epos; ++k)
    if (sci[k] != '.') digits.push_back(sci[k]);
  int exp10 = std::atoi(std::string(sci.substr(epos + 1)).c_str());
  // Python: value = 0.DIGITS * 10^decpt.
  const int decpt = exp10 + 1;
  if (negative) out.push_back('-');
  const int n = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out.push_back(digits[0]);
    if (n > 1) { out.push_back('.'); out.append(digits, 1, std::string::npos); }
    out.push_back('e');
    const int e = decpt - 1;
    out.push_back(e < 0 ? '-' : '+');
    const int ae = std::abs(e);
    if (ae < 10) out.push_back('0');
    out += std::to_string(ae);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-decpt), '0');
    out += digits;
  } else if (decpt >= n) {
    out += digits;
    out.append(static_cast<std::size_t>(decpt - n), '0');
    out += ".0";
  } else {
    out.append(digits, 0, static_cast<std::size_t>(decpt));
    out.push_back('.');
    out.append(digits, static_cast<std::size_t>(decpt), std::string::npos);
  }
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
