// MakeHuman materials (.mhmat): read (textures resolved, not opened) and mapped to an export material.
#include <string>
#include <vector>

#include "demo_character.hpp"
#include "rigfit/asset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rigfit;
  std::vector<std::string> warnings;
  auto m = parseMaterial(fuzz::asText(data, size), "fuzz.mhmat", "materials", &warnings);
  if (!m) return 0;
  (void)exportMaterial(*m);
  return 0;
}
