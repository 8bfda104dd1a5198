// Rig JSON (rig.*.json, .mpfbskel; legacy, v100 and v110 layouts): read, write back, fit to the
// demo body as `rigfit fit` does, and pose a rig with constraints.
#include "demo_character.hpp"
#include "rigfit/pose.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rigfit;
  const fuzz::DemoCharacter& demo = fuzz::demoCharacter();
  auto rig = parseRig(fuzz::asText(data, size), "fuzz.json");
  if (!rig) return 0;
  (void)writeRig(*rig);
  auto prepared = prepareRig(*rig, demo.groups, demo.mesh.vertexCount(), demo.mesh.scale_factor, {.allow_fallback = true});
  if (!prepared) return 0;
  FitResult fit;
  if (!fitSkeleton(*prepared, demo.mesh.positions, fit).ok() || fit.skeleton.constraints.empty()) return 0;
  // Constraints: evaluated on a pose with every bone turned.
  Pose pose = Pose::rest(fit.skeleton);
  for (BonePose& b : pose.bones) {
    b.rotation_mode = RotationMode::kXYZ;
    b.euler = {0.3, -0.2, 0.4};
    b.scale = {1.1, 0.9, 1.0};
  }
  std::vector<Eigen::Matrix4d> out(fit.skeleton.size());
  poseMatrices(fit.skeleton, pose, out);
  (void)constraintWarnings(fit.skeleton);
  return 0;
}
