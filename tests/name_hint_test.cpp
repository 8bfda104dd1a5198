// "Did you mean" hints for unknown names.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/name_hint.hpp"

namespace rigfit::detail {
namespace {

TEST(NameHint, DistanceCountsEditsAndSwapsWithoutCase) {
  EXPECT_EQ(nameDistance("", ""), 0u);
  EXPECT_EQ(nameDistance("abc", ""), 3u);
  EXPECT_EQ(nameDistance("", "abc"), 3u);
  EXPECT_EQ(nameDistance("game_engin", "game_engine"), 1u);  // an insertion
  EXPECT_EQ(nameDistance("weigth", "weight"), 1u);           // two neighbours swapped
  EXPECT_EQ(nameDistance("upperarm.l", "upperarm.L"), 0u);   // case
  EXPECT_EQ(nameDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(nameDistance("nose", "neck"), 3u);
}

TEST(NameHint, SuggestsTheClosestNames) {
  const std::vector<std::string> rigs = {"cmu_mb", "default", "default_no_toes", "game_engine", "game_engine_with_breast"};
  EXPECT_EQ(unknownNameHint("game_engin", rigs), " (did you mean \"game_engine\"?)");
  EXPECT_EQ(unknownNameHint("GAME_ENGINE", rigs), " (did you mean \"game_engine\"?)");
  // Ties at the smallest distance are all named, at most three.
  const std::vector<std::string> bones = {"spine01", "spine02", "spine03", "spine04", "spine05", "neck01"};
  EXPECT_EQ(unknownNameHint("spine0", bones), " (did you mean \"spine01\", \"spine02\" or \"spine03\"?)");
  EXPECT_EQ(unknownNameHint("spine1", std::vector<std::string>{"spine01", "neck01"}), " (did you mean \"spine01\"?)");
  EXPECT_EQ(unknownNameHint("spine1", std::vector<std::string>{"spine01", "spine11"}), " (did you mean \"spine01\" or \"spine11\"?)");
  const char* macros[] = {"gender", "age", "muscle"};
  EXPECT_EQ(unknownNameHint("ag", macros), " (did you mean \"age\"?)");
  EXPECT_EQ(unknownNameHint("gendre", macros), " (did you mean \"gender\"?)");
}

// Without a close name the known ones are listed, as many as fit in 100 characters, and how many more.
TEST(NameHint, ListsKnownNamesWhenNoneIsClose) {
  EXPECT_EQ(unknownNameHint("nope", std::vector<std::string>{"demo"}), " (available: demo)");
  EXPECT_EQ(unknownNameHint("girth", std::vector<std::string>{"gender", "age"}), " (available: gender, age)");
  EXPECT_EQ(unknownNameHint("girth", std::vector<std::string>{"gender", "age", "gender"}), " (available: gender, age)");
  std::vector<std::string> many;
  for (int i = 0; i < 20; ++i) many.push_back("bone" + std::to_string(i));
  EXPECT_EQ(unknownNameHint("head", many),
            " (available: bone0, bone1, bone2, bone3, bone4, bone5, bone6, bone7, bone8, bone9, bone10, bone11, bone12, "
            "bone13, and 6 more)");
  EXPECT_EQ(unknownNameHint("head", std::vector<std::string>{}), "");
}

}  // namespace
}  // namespace rigfit::detail
