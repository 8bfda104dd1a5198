// The validating scanner of the fast readers (core/json_scan.hpp): its number paths agree with
// each other and with std::from_chars (correctly rounded) bit for bit.
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/json_scan.hpp"

namespace rigfit::detail {
namespace {

// `token` followed by `after` and the zero padding the scanner reads past a text.
std::string padded(const std::string& token, const std::string& after) { return token + after + std::string(80, '\0'); }

std::uint64_t bits(double d) { return std::bit_cast<std::uint64_t>(d); }

// scanDecimal either declines `token` or reads it exactly as scanNumber and std::from_chars do.
// Returns whether it read it.
bool decimalAgrees(const std::string& token, const std::string& after = ",") {
  const std::string text = padded(token, after);
  NumberToken fast, general;
  const bool took = scanDecimal(text.data(), fast);
  const bool ok = scanNumber(text.data(), general);
  if (!took) return false;
  EXPECT_TRUE(ok) << token;
  EXPECT_EQ(fast.end, general.end) << token;
  EXPECT_EQ(fast.end - text.data(), static_cast<std::ptrdiff_t>(token.size())) << token;
  EXPECT_FALSE(fast.integer) << token;
  EXPECT_EQ(fast.negative, general.negative) << token;
  EXPECT_EQ(fast.int_digits, general.int_digits) << token;
  EXPECT_EQ(bits(fast.value), bits(general.value)) << token;
  double expected = 0.0;
  const auto r = std::from_chars(token.data(), token.data() + token.size(), expected);
  EXPECT_TRUE(r.ec == std::errc() && r.ptr == token.data() + token.size()) << token;
  EXPECT_EQ(bits(fast.value), bits(expected)) << token << " read as " << fast.value << ", expected " << expected;
  return true;
}

TEST(JsonScan, DecimalFastPathEdgeCases) {
  // Taken: one integer digit, '.', 1 to 18 decimals (19 digits at most), no exponent.
  for (const char* s : {"0.0", "-0.0", "0.5", "-0.5", "9.9", "1.0000000000000000", "0.000000000000000001", "-0.000000000000000001",
                        "0.026746699586510658", "-0.026746699586510658", "0.1860474944114685", "-1.8022286891937256",
                        "9.999999999999999999", "1.999999999999999999", "9.007199254740993", "9.007199254740992", "9.007199254740991",
                        "4.503599627370497", "1.7976931348623157", "2.2250738585072014", "4.9406564584124654", "0.30000000000000004",
                        "0.1", "0.2", "0.7", "5.000000000000000001", "8.000000000000000449", "0.999999999999999944",
                        "0.00000000000000000"})
    EXPECT_TRUE(decimalAgrees(s)) << s;
  EXPECT_TRUE(decimalAgrees("-0.0"));
  EXPECT_EQ(bits(-0.0), [] {
    NumberToken t;
    const std::string text = padded("-0.0", "]");
    EXPECT_TRUE(scanDecimal(text.data(), t));
    return bits(t.value);
  }());
  EXPECT_TRUE(decimalAgrees("9.999999999999999999"));      // 19 digits: taken
  EXPECT_FALSE(decimalAgrees("9.9999999999999999999"));    // 20 digits: left to scanNumber
  EXPECT_FALSE(decimalAgrees("0.0000000000000000000"));    // 20 digits
  // Declined: exponents, several integer digits, no decimals, integers, other bytes.
  for (const char* s : {"1.00000000000000011102230246251565", "1.5e3", "1.5E-3", "-0.5e+2", "10.5", "-12.25", "1.", "-1.", ".5", "-.5", "1", "-7", "0", "01.5", "-", "x", "1.5.2"})
    EXPECT_FALSE(decimalAgrees(s)) << s;
  EXPECT_FALSE(decimalAgrees("1.25", "e5"));
  EXPECT_FALSE(decimalAgrees("1.25", "E5"));
  EXPECT_FALSE(decimalAgrees("1.25", ".5"));
  // Every terminator of a value; the padding (zero bytes) itself.
  for (const char* after : {",", "]", "}", " ", "\n", "\r", "\t", ""}) EXPECT_TRUE(decimalAgrees("-0.123456789012345678", after)) << after;
}

TEST(JsonScan, DecimalFastPathAgreesOnRandomDecimals) {
  std::mt19937_64 rng(11);
  std::size_t taken = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string s = (rng() & 1) ? "-" : "";
    s += static_cast<char>('0' + rng() % 10);
    s += '.';
    const int zeros = (rng() % 4 == 0) ? static_cast<int>(rng() % 18) : 0;
    const int decimals = 1 + static_cast<int>(rng() % 20);
    s += std::string(static_cast<std::size_t>(std::min(zeros, decimals)), '0');
    for (int k = std::min(zeros, decimals); k < decimals; ++k) s += static_cast<char>('0' + rng() % 10);
    taken += decimalAgrees(s, (rng() & 1) ? "," : "\n   ");
  }
  EXPECT_GT(taken, 150000u);
}

// Decimals written from random doubles (shortest round trip and 17 significant digits, as
// Python's json and float32 values widened to double are written), and the neighbours of halfway
// points, where rounding is decided by the last digits.
TEST(JsonScan, DecimalFastPathAgreesOnWrittenDoubles) {
  std::mt19937_64 rng(12);
  std::size_t taken = 0;
  for (int i = 0; i < 100000; ++i) {
    const double d = std::uniform_real_distribution<double>(-9.99, 9.99)(rng);
    for (const double v : {d, static_cast<double>(static_cast<float>(d))}) {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
      taken += decimalAgrees(std::string(buf, r.ptr));
      r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 17);
      taken += decimalAgrees(std::string(buf, r.ptr));
      // The midpoint of v and its upper neighbour (exact in x87's 64-bit long double mantissa),
      // written with 18 decimals, and one unit of the last decimal above it: the cases where
      // Eisel-Lemire must look furthest or give up.
      const long double mid = (static_cast<long double>(v) + static_cast<long double>(std::nextafter(v, 10.0))) / 2;
      std::string near(64, '\0');
      near.resize(static_cast<std::size_t>(std::snprintf(near.data(), near.size(), "%.18Lf", mid)));
      taken += decimalAgrees(near);
      if (near.back() != '9') {
        near.back() = static_cast<char>(near.back() + 1);
        taken += decimalAgrees(near);
      }
    }
  }
  EXPECT_GT(taken, 500000u);
}

}  // namespace
}  // namespace rigfit::detail
