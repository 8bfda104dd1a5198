// Weights JSON (weights.*.json): read and bind to the demo rig's fitted skeleton, as every command
// that skins does.
#include "demo_character.hpp"
#include "rigfit/weights.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rigfit;
  const fuzz::DemoCharacter& demo = fuzz::demoCharacter();
  const std::size_t n = demo.mesh.vertexCount();
  auto file = parseWeights(fuzz::asText(data, size), "fuzz.json", n);
  if (!file) return 0;
  WeightsBinding binding;
  (void)bindWeights(*file, demo.fit.skeleton, demo.rig, n, &binding);
  return 0;
}
