// MakeHuman assets (.mhclo / .proxy): read, then fitted to the demo body, masked on it and given
// weights interpolated from it, so every binding and delete index meets the body.
#include <vector>

#include "demo_character.hpp"
#include "rigfit/asset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rigfit;
  auto file = parseProxyFile(fuzz::asText(data, size), "fuzz.mhclo");
  if (!file) return 0;
  const fuzz::DemoCharacter& demo = fuzz::demoCharacter();
  const Mesh& body = demo.mesh;
  const std::size_t count = file->bindings.size();
  if (auto scale = assetScaleFactors(*file, body.positions, body.scale_factor)) {
    std::vector<float> obj(count * 3, 0.0f), out(count * 3);
    (void)fitAssetPositions(file->bindings, *scale, body.positions, obj, out, "fuzz.mhclo");
  }
  const ProxyFile* worn[] = {&*file};
  const BodyMask mask = bodyMask(body, worn);
  std::vector<std::uint8_t> proxy(count);
  proxyMask(file->bindings, mask.vertex_masked, proxy);
  // One bone weighting every body vertex fully.
  Skin skin;
  skin.vertex_count = body.vertexCount();
  skin.bone_count = 1;
  for (std::uint32_t v = 0; v <= skin.vertex_count; ++v) skin.offsets.push_back(v);
  skin.bones.assign(skin.vertex_count, 0);
  skin.weights.assign(skin.vertex_count, 1.0f);
  const std::string names[] = {"root"};
  (void)interpolateAssetWeights(skin, names, file->bindings, "fuzz.mhclo");
  return 0;
}
