// Fits compared with skeletons Blender 3.4.1 built itself (tests/golden/blender, see its README):
// heads and tails within 1e-7 m; rest matrices (Bone.matrix_local) within the float32 noise of
// Blender's own, which grows near the -Y singularity of Blender's bone frame.
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
  double head = 0, tail = 0;
  double matrix_excess = 0;  // max over bones of |dmatrix| - its tolerance
  std::string worst;
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
      // Blender keeps bones in float32: a direction error of ~2e-7/length rad turns into a frame
      // error of about twice that divided by the bone's angle from -Y, where the zero-roll frame
      // is ill-conditioned. Elsewhere Blender's float32 frames agree with the double ones to 5e-5.
      const Eigen::Vector3d n = (s.tails[k] - s.heads[k]).normalized();
      const double off_axis = std::max(std::hypot(n.x(), n.z()), 1e-9);
      const double tol = 5e-5 + 4.0 * (2e-7 / s.lengths[k]) / off_axis;
      double dm = 0;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c)
          dm = std::max(dm, std::abs(s.rest[k](r, c) - f[4].items()[static_cast<std::size_t>(4 * r + c)].asDouble()));
      if (dm - tol > st.matrix_excess) {
        st.matrix_excess = dm - tol;
        st.worst = f[0].asString();
      }
    }
    EXPECT_LE(st.head, 1e-7) << rig_name << "." << body;
    EXPECT_LE(st.tail, 1e-7) << rig_name << "." << body;
    EXPECT_EQ(st.matrix_excess, 0.0) << rig_name << "." << body << ": " << st.worst;
    ++files;
  }
  EXPECT_EQ(files, 20);  // 10 rigs x {base, lean}
}

}  // namespace
}  // namespace rigfit
