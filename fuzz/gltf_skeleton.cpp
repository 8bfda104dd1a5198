// glTF skeletons (.glb / .gltf) read as a source for rig authoring (`rigfit save-rig --from`).
#include "demo_character.hpp"
#include "rigfit/gltf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rigfit;
  (void)parseGltfSkeleton(fuzz::asText(data, size), "fuzz.glb");
  return 0;
}
