// MPFB pose JSON (poses/*_fk/*.json): parsed, applied to the demo skeleton and evaluated as
// `rigfit pose` does.
#include <vector>

#include "demo_character.hpp"
#include "rigfit/json.hpp"
#include "rigfit/pose.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rigfit;
  const fuzz::DemoCharacter& demo = fuzz::demoCharacter();
  auto json = parseJson(fuzz::asText(data, size), "fuzz.json");
  if (!json) return 0;
  const Skeleton& skeleton = demo.fit.skeleton;
  Pose pose = Pose::rest(skeleton);
  std::vector<PoseWarning> warnings;
  if (!applyPoseJson(*json, "fuzz.json", skeleton, pose, &warnings)) return 0;
  std::vector<Eigen::Matrix4d> matrices(skeleton.size());
  poseMatrices(skeleton, pose, matrices);
  return 0;
}
