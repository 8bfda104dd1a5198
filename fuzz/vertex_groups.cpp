// Vertex groups (basemesh_vertex_groups.json): read for the demo body's vertex count, then used to
// prepare the demo rig as a fit does.
#include "demo_character.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rigfit;
  const fuzz::DemoCharacter& demo = fuzz::demoCharacter();
  auto groups = parseVertexGroups(fuzz::asText(data, size), "fuzz.json", demo.mesh.vertexCount());
  if (!groups) return 0;
  (void)prepareRig(demo.rig, *groups, demo.mesh.vertexCount(), demo.mesh.scale_factor, {.allow_fallback = true});
  return 0;
}
