// Error messages stay short: huge values from files are elided (makeError, elideMessage).
#include <gtest/gtest.h>

#include "rigfit/error.hpp"

namespace rigfit {
namespace {

TEST(ElideMessage, ShortMessagesAreKept) {
  const std::string m = "weights.json: weights[\"thigh_l\"][12][1]: weight is negative (-0.5)";
  EXPECT_EQ(elideMessage(m), m);
  const std::string long_words(300, 'w');  // 300 characters: not over the limit
  EXPECT_EQ(elideMessage(long_words), long_words);
}

TEST(ElideMessage, LongRunsKeepTheirEnds) {
  const std::string value = "\"" + std::string(10000, '7') + "\"";
  const std::string m = elideMessage("f.obj: line 3: expected a number, found " + value);
  EXPECT_EQ(m, "f.obj: line 3: expected a number, found \"" + std::string(39, '7') + "...(10002 bytes)..." + std::string(15, '7') + "\"");
  EXPECT_LE(m.size(), 300u);
}

TEST(ElideMessage, ManyWordsAreCutInTheMiddle) {
  std::string m;
  for (int i = 0; i < 200; ++i) m += "word" + std::to_string(i) + " ";
  const std::string e = elideMessage(m);
  EXPECT_EQ(e.size(), 200u + 5u + 90u);
  EXPECT_EQ(e.substr(0, 12), "word0 word1 ");
  EXPECT_NE(e.find(" ... "), std::string::npos);
  EXPECT_EQ(e.substr(e.size() - 8), "word199 ");
}

TEST(ElideMessage, MakeErrorElides) {
  const Error e = makeError(ErrorCode::kSyntax, "x: " + std::string(5000, 'a'));
  EXPECT_EQ(e.code, ErrorCode::kSyntax);
  EXPECT_LT(e.message.size(), 100u);
  EXPECT_NE(e.message.find("...(5000 bytes)..."), std::string::npos);
}

}  // namespace
}  // namespace rigfit
