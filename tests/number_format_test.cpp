#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "rigfit/number_format.hpp"

namespace rigfit {
namespace {

// Expected strings are what CPython's repr(float) prints.
TEST(NumberFormat, PythonRepr) {
  const std::pair<double, const char*> cases[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {0.1, "0.1"},
      {1e-05, "1e-05"},
      {0.0001, "0.0001"},
      {0.00012345, "0.00012345"},
      {1.2345678901234568e+17, "1.2345678901234568e+17"},
      {1e+16, "1e+16"},
      {9999999999999998.0, "9999999999999998.0"},
      {1234567890123456.8, "1234567890123456.8"},
      {0.10000000149011612, "0.10000000149011612"},
      {1.5707963705062866, "1.5707963705062866"},
      {-0.026746699586510658, "-0.026746699586510658"},
      {2.5e-300, "2.5e-300"},
      {1.7976931348623157e+308, "1.7976931348623157e+308"},
      {5e-324, "5e-324"},
      {100.0, "100.0"},
      {0.5, "0.5"},
      {123.456, "123.456"},
      {1e+100, "1e+100"},
      {-1.5e-10, "-1.5e-10"},
      {0.001, "0.001"},
      {1e+22, "1e+22"},
      {123456789.0, "123456789.0"},
      {-2.2250738585072014e-308, "-2.2250738585072014e-308"},
      // At most five decimals in [1e-4, 1): written from their digits.
      {0.12346, "0.12346"},
      {0.00015, "0.00015"},
      {0.99999, "0.99999"},
      {0.1, "0.1"},
      {0.5, "0.5"},
      {0.0001, "0.0001"},
      {0.00010000000000000002, "0.00010000000000000002"},
      {9.999999999999999e-05, "9.999999999999999e-05"},
      {0.999995, "0.999995"},
      {0.12345678, "0.12345678"},
  };
  for (const auto& [v, s] : cases) EXPECT_EQ(formatPythonFloat(v), s) << s;
  EXPECT_EQ(formatPythonFloat(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(formatPythonFloat(-std::numeric_limits<double>::infinity()), "-Infinity");
}

// Python's round(x, n) rounds the exact binary value half-to-even.
TEST(NumberFormat, PythonRound) {
  EXPECT_EQ(roundPython(0.125, 2), 0.12);
  EXPECT_EQ(roundPython(0.135, 2), 0.14);
  EXPECT_EQ(roundPython(2.675, 2), 2.67);
  EXPECT_EQ(roundPython(0.123456789, 5), 0.12346);
  const double z = roundPython(-0.000001, 5);
  EXPECT_EQ(z, 0.0);
  EXPECT_FALSE(std::signbit(z));
}

}  // namespace
}  // namespace rigfit
