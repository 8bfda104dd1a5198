// gltfSkins: every mesh's influences limited (and quantised) for glTF's fixed-size streams.
#include <algorithm>

#include "rigfit/gltf.hpp"
#include "rigfit/weights.hpp"

namespace rigfit {

GltfSkins gltfSkins(const ExportModel& model, int influences, int weight_bits) {
  GltfSkins out;
  const std::size_t nm = model.meshes.size(), k = static_cast<std::size_t>(influences);
  const bool quantize = weight_bits == 8 || weight_bits == 16;
  out.joints.resize(nm);
  out.weights.resize(nm);
  out.quantized_weights.resize(nm);
  for (std::size_t m = 0; m < nm; ++m) {
    const std::size_t n = model.meshes[m].vertexCount() * k;
    out.joints[m].assign(n, 0);
    out.weights[m].assign(n, 0.0f);
    double dropped = 0.0;
    out.mesh_vertices_limited.push_back(limitInfluences(model.meshes[m].skin, influences, out.joints[m], out.weights[m], &dropped));
    out.vertices_limited += out.mesh_vertices_limited.back();
    out.max_dropped_weight = std::max(out.max_dropped_weight, dropped);
    GltfSkinStreams s{.influences = influences, .joints = out.joints[m], .weights = out.weights[m]};
    if (quantize) {
      out.quantized_weights[m].assign(n, 0);
      quantizeInfluences(out.weights[m], influences, weight_bits, out.quantized_weights[m]);
      s.weight_bits = weight_bits;
      s.quantized_weights = out.quantized_weights[m];
    }
    out.streams.push_back(s);
  }
  return out;
}

}  // namespace rigfit
