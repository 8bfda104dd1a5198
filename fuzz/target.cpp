// MakeHuman targets (.target text, .target.gz): decoded for the demo body and added to it as a
// shape key at weight 1.
#include <vector>

#include "demo_character.hpp"
#include "rigfit/shape.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rigfit;
  const fuzz::DemoCharacter& demo = fuzz::demoCharacter();
  const std::size_t n = demo.mesh.vertexCount();
  auto target = decodeTarget(std::string(fuzz::asText(data, size)), "fuzz.target", n);
  if (!target) return 0;
  if (target->offsets.size() != 3 * target->vertices.size()) std::abort();
  std::vector<float> positions = demo.mesh.positions;
  for (std::size_t k = 0; k < target->vertices.size(); ++k) {
    const std::size_t v = target->vertices[k];
    if (v >= n) std::abort();  // the reader drops indices beyond the mesh
    for (std::size_t j = 0; j < 3; ++j) positions[3 * v + j] += static_cast<float>(target->offsets[3 * k + j]);
  }
  return 0;
}
