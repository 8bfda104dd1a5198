// Number formatting shared by every writer.
#pragma once

#include <string>

namespace rigfit {

/// Python's repr(float): the shortest string that reads back to the same double, in fixed
/// notation for decimal exponents -4..15 ("0.0001", "1234.5", "1.0") and otherwise
/// scientific with at least two exponent digits ("1e-05", "1.5e+16"). nan/inf as Python's json
/// writes them (NaN, Infinity, -Infinity).
std::string formatPythonFloat(double value);
void appendPythonFloat(std::string& out, double value);
/// The same written at `out` (at most kPythonFloatChars characters); returns the end.
inline constexpr int kPythonFloatChars = 24;  // "-1.2345678901234567e-308"
char* writePythonFloat(char* out, double value);

/// Round half to even at `digits` decimals the way Python's round(x, n) does (correctly rounded
/// from the exact binary value), and -0.0 turned into 0.0.
double roundPython(double value, int digits);

}  // namespace rigfit
