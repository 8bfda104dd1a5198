// MPFB's proxy corrective on hand-made skins: which uuids it lists, and which sided weights a
// vertex loses on which side of x = ±1e-4 (docs/mpfb-assets.md §3).
#include <gtest/gtest.h>

#include "rigfit/asset.hpp"

namespace rigfit {
namespace {

TEST(ProxyCorrective, ListedUuidsWithTheSidedFix) {
  auto table = parseJson(R"({"a": {"fix_leftright_weights_for_groups": true}, "b": {"other": 1}, "c": 3})", "t");
  ASSERT_TRUE(table.ok());
  EXPECT_TRUE(proxyNeedsSidedFix(*table, "a"));
  EXPECT_FALSE(proxyNeedsSidedFix(*table, "b"));
  EXPECT_FALSE(proxyNeedsSidedFix(*table, "c"));
  EXPECT_FALSE(proxyNeedsSidedFix(*table, "d"));
  EXPECT_FALSE(proxyNeedsSidedFix(*table, ""));
}

TEST(ProxyCorrective, SidedWeightsLeaveTheOtherSide) {
  // Bones: right by suffix, left by prefix (either case), unsided, right by "r_" prefix, and a
  // name that only looks sided ("_r" suffix: not MPFB's rule).
  const std::vector<std::string> names = {"upperarm.R", "L-hand", "spine", "r_toe", "thigh_r"};
  Skin skin;
  skin.vertex_count = 3;
  skin.bone_count = names.size();
  skin.offsets = {0, 5, 10, 15};
  for (int v = 0; v < 3; ++v)
    for (std::uint16_t b = 0; b < 5; ++b) {
      skin.bones.push_back(b);
      skin.weights.push_back(0.1f * static_cast<float>(b + 1));
    }
  // x = +0.5 (loses right-side bones), x = -0.5 (loses left-side), x = 1e-4 (on the line: keeps all).
  const std::vector<float> positions = {0.5f, 0, 0, -0.5f, 0, 0, 1e-4f, 0, 0};
  fixSidedWeights(skin, names, positions);
  ASSERT_EQ(skin.offsets, (std::vector<std::uint32_t>{0, 3, 7, 12}));
  EXPECT_EQ(skin.bones, (std::vector<std::uint16_t>{1, 2, 4, 0, 2, 3, 4, 0, 1, 2, 3, 4}));
  EXPECT_EQ(skin.weights[0], 0.2f);
  EXPECT_EQ(skin.weights.size(), skin.bones.size());
}

}  // namespace
}  // namespace rigfit
