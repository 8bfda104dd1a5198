// Rig JSON (rig.*.json, .mpfbskel; legacy, v100 and v110 layouts): read, write back, and fit to the
// demo body as `rigfit fit` does.
#include "demo_character.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rigfit;
  const fuzz::DemoCharacter& demo = fuzz::demoCharacter();
  auto rig = parseRig(fuzz::asText(data, size), "fuzz.json");
  if (!rig) return 0;
  (void)writeRig(*rig);
  auto prepared = prepareRig(*rig, demo.groups, demo.mesh.vertexCount(), demo.mesh.scale_factor, {.allow_fallback = true});
  if (!prepared) return 0;
  FitResult fit;
  (void)fitSkeleton(*prepared, demo.mesh.positions, fit);
  return 0;
}
