// Fits compared with skeletons Blender 3.4.1 built itself (tests/golden/blender, see its README):
// heads and tails within 1e-6 m; bone frames within float32 noise of Blender's own (Blender keeps
// bones in float32, so its frames near the -Y singularity carry up to ~1e-3 of rounding).
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "rigfit/data.hpp"
#include "rigfit/fit.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

// The "lean" warp of tools/blender/fit_reference.py, in the rig frame, double from float32.
void leanWarp(std::vector<float>& p) {
  for (std::size_t k = 0; k + 2 < p.size(); k += 3) {
    const double x = p[k], y = p[k + 1], z = p[k + 2];
    p[k] = static_cast<float>(x * (1 + 0.15 * z) + 0.01 * std::sin(7 * z));
    p[k + 1] = static_cast<float>(y + 0.05 * std::sin(3 * z) - 0.03 * x * x);
    p[k + 2] = static_cast<float>(1.1 * z + 0.02 * x * x);
  }
}

struct Stats {
  double head = 0, tail = 0, matrix = 0, matrix_near_minus_y = 0;
};

TEST(BlenderGolden, EveryRigOnBaseAndWarpedBodies) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::string dir = test::sourceDir() + "/tests/golden/blender";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  const DataSource data = DataSource::folder(test::sharedData());
  auto base = loadBaseMesh(data);
  ASSERT_TRUE(base.ok());
  auto groups = loadVertexGroups(data, base->vertexCount());
  ASSERT_TRUE(groups.ok());
  Mesh lean = *base;
  leanWarp(lean.positions);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    auto golden = readJsonFile(entry.path().string());
    ASSERT_TRUE(golden.ok()) << golden.error().message;
    const std::string rig_name = golden->find("rig")->asString();
    const std::string body = golden->find("body")->asString();
    auto rig = loadRig(data, *locateRig(data, rig_name));
    ASSERT_TRUE(rig.ok()) << rig.error().message;
    auto fit = fitRig(*rig, body == "lean" ? lean : *base, *groups);
    ASSERT_TRUE(fit.ok()) << fit.error().message;
    const Skeleton& s = fit->skeleton;
    const auto& bones = golden->find("bones")->items();
    ASSERT_EQ(bones.size(), s.size()) << entry.path();
    Stats st;
    for (const Json& b : bones) {
      const auto& f = b.items();
      const int i = s.find(f[0].asString());
      ASSERT_GE(i, 0) << f[0].asString();
      const auto k = static_cast<std::size_t>(i);
      for (int c = 0; c < 3; ++c) {
        st.head = std::max(st.head, std::abs(s.heads[k][c] - f[1].items()[static_cast<std::size_t>(c)].asDouble()));
        st.tail = std::max(st.tail, std::abs(s.tails[k][c] - f[2].items()[static_cast<std::size_t>(c)].asDouble()));
      }
      // A bone close to -Y (in the armature or relative to nothing) has an ill-conditioned float32 frame.
      const Eigen::Vector3d dir3 = (s.tails[k] - s.heads[k]).normalized();
      const bool near_minus_y = dir3.y() < -0.99;
      double dm = 0;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c)
          dm = std::max(dm, std::abs(s.rest[k](r, c) - f[4].items()[static_cast<std::size_t>(4 * r + c)].asDouble()));
      (near_minus_y ? st.matrix_near_minus_y : st.matrix) = std::max(near_minus_y ? st.matrix_near_minus_y : st.matrix, dm);
    }
    EXPECT_LE(st.head, 1e-6) << rig_name << "." << body;
    EXPECT_LE(st.tail, 1e-6) << rig_name << "." << body;
    EXPECT_LE(st.matrix, 1e-4) << rig_name << "." << body;
    EXPECT_LE(st.matrix_near_minus_y, 2e-3) << rig_name << "." << body;
    ++files;
  }
  EXPECT_EQ(files, 20);  // 10 rigs x {base, lean}
}

}  // namespace
}  // namespace rigfit
