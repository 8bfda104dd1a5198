// The base64 helper: RFC 4648 §10 test vectors, every byte value round trip, and strict decoding.
#include "core/base64.hpp"

#include <string>

#include <gtest/gtest.h>

namespace rigfit {
namespace {

TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},  {"foob", "Zm9vYg=="},  {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64Encode(plain), encoded);
    std::string out = "junk";
    std::size_t bad = 99;
    ASSERT_TRUE(base64Decode(encoded, out, bad)) << encoded;
    EXPECT_EQ(out, plain);
  }
}

TEST(Base64, AppendsAndRoundTripsEveryByte) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  for (std::size_t n = 0; n <= bytes.size(); n += 37) {
    const std::string part = bytes.substr(0, n);
    std::string uri = "data:,";
    appendBase64(part, uri);
    EXPECT_EQ(uri, "data:," + base64Encode(part));
    EXPECT_EQ(base64Encode(part).size(), (n + 2) / 3 * 4);
    std::string back;
    std::size_t bad = 0;
    ASSERT_TRUE(base64Decode(base64Encode(part), back, bad));
    EXPECT_EQ(back, part);
  }
  EXPECT_EQ(base64Encode("\xFB\xFF"), "+/8=");
  EXPECT_EQ(octetStreamDataUri("foob"), "data:application/octet-stream;base64,Zm9vYg==");
}

TEST(Base64, StrictDecodingNamesTheFirstBadCharacter) {
  std::string out;
  std::size_t bad = 0;
  EXPECT_FALSE(base64Decode("Zm9", out, bad));  // not a multiple of 4
  EXPECT_EQ(bad, 3u);
  EXPECT_FALSE(base64Decode("Zm9v!A==", out, bad));  // outside the alphabet
  EXPECT_EQ(bad, 4u);
  EXPECT_FALSE(base64Decode("Zm-v", out, bad));  // the URL-safe alphabet is not accepted
  EXPECT_EQ(bad, 2u);
  EXPECT_FALSE(base64Decode("Z===", out, bad));  // at most two '='
  EXPECT_EQ(bad, 1u);
  EXPECT_FALSE(base64Decode("Zg==Zm9v", out, bad));  // '=' only at the end
  EXPECT_EQ(bad, 2u);
  EXPECT_FALSE(base64Decode("Zm=v", out, bad));  // nothing after '='
  EXPECT_EQ(bad, 3u);
  EXPECT_FALSE(base64Decode("Zm9v\n", out, bad));
}

}  // namespace
}  // namespace rigfit
