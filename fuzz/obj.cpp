// Wavefront OBJ (base.obj, shaped bodies): read, and written back when it reads.
#include "demo_character.hpp"
#include "rigfit/mesh.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rigfit;
  auto mesh = parseObj(fuzz::asText(data, size), "fuzz.obj");
  if (!mesh) return 0;
  (void)writeObj(*mesh, mesh->positions, mesh->normals, "fuzz");
  return 0;
}
