// The glTF writer's meshes: vertex streams, skin streams in sets of four, indices and sparse
// morph targets, and the one primitive that uses them.
#include <algorithm>
#include <limits>

#include "formats/gltf/gltf_write.hpp"

namespace rigfit::detail {
namespace {

// Set `set` (JOINTS_set, WEIGHTS_set) of every vertex's k influences (k per vertex in `joints`
// and `weights`, heaviest first): slots whose stored weight is 0 point at joint 0, as the
// validator expects, and a vertex with no weight at all gets `one` on joint 0 in set 0. False
// when a joint is not below nb.
template <typename J, typename W, typename S>
bool fillInfluenceSet(std::size_t nv, int k, int set, const std::uint16_t* joints, const S* weights, W one, std::size_t nb,
                      J* jout, W* wout) {
  const auto kk = static_cast<std::size_t>(k), s0 = 4 * static_cast<std::size_t>(set);
  for (std::size_t v = 0; v < nv; ++v) {
    const S* w = weights + v * kk;
    bool weighted = false;
    for (std::size_t c = 0; c < kk; ++c) weighted = weighted || w[c] != S(0);
    for (std::size_t c = 0; c < 4; ++c) {
      const std::size_t i = v * kk + s0 + c, o = 4 * v + c;
      const bool first = !weighted && set == 0 && c == 0;
      const std::uint16_t joint = weighted && weights[i] != S(0) ? joints[i] : 0;
      if (joint >= nb) return false;
      jout[o] = static_cast<J>(joint);
      wout[o] = first ? one : weighted ? static_cast<W>(weights[i]) : W(0);
    }
  }
  return true;
}

// The vertex attributes' accessors (-1: absent).
struct Attributes {
  int position = -1, normal = -1, uv = -1, tangent = -1;
  int joints[2] = {-1, -1}, weights[2] = {-1, -1};
};

// POSITION with its bounds, NORMAL and TEXCOORD_0 (v flipped: OBJ origin bottom-left, glTF top-left).
void writeVertexStreams(GltfBuffer& b, const ExportMesh& mesh, Attributes& a) {
  const std::size_t nv = mesh.vertexCount();
  a.position = b.accessor(b.copy(mesh.positions, kGltfArrayBuffer), kGltfFloat, nv, "VEC3");
  float lo[3] = {std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
  float hi[3] = {-lo[0], -lo[1], -lo[2]};
  for (std::size_t v = 0; v < nv; ++v)
    for (std::size_t c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], mesh.positions[3 * v + c]);
      hi[c] = std::max(hi[c], mesh.positions[3 * v + c]);
    }
  b.lastAccessor().set("min", gltfNumbers({lo[0], lo[1], lo[2]}));
  b.lastAccessor().set("max", gltfNumbers({hi[0], hi[1], hi[2]}));
  if (!mesh.normals.empty()) a.normal = b.accessor(b.copy(mesh.normals, kGltfArrayBuffer), kGltfFloat, nv, "VEC3");
  if (!mesh.uvs.empty()) {
    const int view = b.view<float>(mesh.uvs.size(), kGltfArrayBuffer);
    float* uv = b.at<float>(view);
    for (std::size_t i = 0; i < mesh.uvs.size(); i += 2) {
      uv[i] = mesh.uvs[i];
      uv[i + 1] = 1.0f - mesh.uvs[i + 1];
    }
    a.uv = b.accessor(view, kGltfFloat, nv, "VEC2");
  }
  // A normal map needs tangents (else engines derive their own, and the validator warns).
  if (mesh.material.normal_texture) {
    const std::vector<float> tangents = exportTangents(mesh);
    if (!tangents.empty()) a.tangent = b.accessor(b.copy(tangents, kGltfArrayBuffer), kGltfFloat, nv, "VEC4");
  }
}

// JOINTS_n / WEIGHTS_n in sets of four; vertices with no weight follow the first joint fully.
Status writeSkinStreams(GltfBuffer& b, std::size_t nv, const GltfSkinStreams& skin, std::size_t nb, Attributes& a) {
  const int k = skin.influences;
  const bool small_joints = nb <= 256;
  for (int set = 0; set < k / 4; ++set) {
    const int jview = small_joints ? b.view<std::uint8_t>(4 * nv, kGltfArrayBuffer) : b.view<std::uint16_t>(4 * nv, kGltfArrayBuffer);
    const int wview = skin.weight_bits == 8    ? b.view<std::uint8_t>(4 * nv, kGltfArrayBuffer)
                      : skin.weight_bits == 16 ? b.view<std::uint16_t>(4 * nv, kGltfArrayBuffer)
                                               : b.view<float>(4 * nv, kGltfArrayBuffer);
    std::uint8_t* j8 = b.at<std::uint8_t>(jview);
    std::uint16_t* j16 = b.at<std::uint16_t>(jview);
    // One loop per joint and weight format (the formats do not change inside a stream).
    const auto withJoints = [&](auto* wout, const auto* weights, auto one) {
      return small_joints ? fillInfluenceSet(nv, k, set, skin.joints.data(), weights, one, nb, j8, wout)
                          : fillInfluenceSet(nv, k, set, skin.joints.data(), weights, one, nb, j16, wout);
    };
    const bool in_range = skin.weight_bits == 8    ? withJoints(b.at<std::uint8_t>(wview), skin.quantized_weights.data(), std::uint8_t{255})
                          : skin.weight_bits == 16 ? withJoints(b.at<std::uint16_t>(wview), skin.quantized_weights.data(), std::uint16_t{65535})
                                                   : withJoints(b.at<float>(wview), skin.weights.data(), 1.0f);
    if (!in_range) return makeError(ErrorCode::kRange, "glTF: joint index beyond the skeleton");
    a.joints[set] = b.accessor(jview, small_joints ? kGltfUnsignedByte : kGltfUnsignedShort, nv, "VEC4");
    a.weights[set] = skin.weight_bits == 8    ? b.accessor(wview, kGltfUnsignedByte, nv, "VEC4", true)
                     : skin.weight_bits == 16 ? b.accessor(wview, kGltfUnsignedShort, nv, "VEC4", true)
                                              : b.accessor(wview, kGltfFloat, nv, "VEC4");
  }
  return {};
}

// Triangle indices: 16 bits when every vertex fits, else 32.
int writeIndices(GltfBuffer& b, const ExportMesh& mesh) {
  if (mesh.vertexCount() > 65535)
    return b.accessor(b.copy(mesh.triangles, kGltfElementArrayBuffer), kGltfUnsignedInt, mesh.triangles.size(), "SCALAR");
  const int view = b.view<std::uint16_t>(mesh.triangles.size(), kGltfElementArrayBuffer);
  std::uint16_t* idx = b.at<std::uint16_t>(view);
  for (std::size_t i = 0; i < mesh.triangles.size(); ++i) idx[i] = static_cast<std::uint16_t>(mesh.triangles[i]);
  return b.accessor(view, kGltfUnsignedShort, mesh.triangles.size(), "SCALAR");
}

// A morph target: sparse POSITION deltas (zero where the target does not move a vertex) with the
// bounds over every vertex, zeros included, as the specification requires; NORMAL deltas share
// the indices' view. Returns the POSITION and NORMAL (-1: none) accessors.
std::pair<int, int> writeMorph(GltfBuffer& b, const ExportMorph& morph, std::size_t nv) {
  const std::size_t count = morph.vertices.size();
  float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.0f, 0.0f, 0.0f};
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], morph.deltas[3 * i + c]);
      hi[c] = std::max(hi[c], morph.deltas[3 * i + c]);
    }
  const int position = b.accessor(-1, kGltfFloat, nv, "VEC3");
  b.lastAccessor().set("min", gltfNumbers({lo[0], lo[1], lo[2]}));
  b.lastAccessor().set("max", gltfNumbers({hi[0], hi[1], hi[2]}));
  if (count == 0) return {position, -1};
  int index_view;
  if (nv <= 65535) {
    index_view = b.view<std::uint16_t>(count, 0);
    std::uint16_t* out = b.at<std::uint16_t>(index_view);
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<std::uint16_t>(morph.vertices[i]);
  } else {
    index_view = b.copy(morph.vertices, 0);
  }
  const auto sparse = [&](const std::vector<float>& values) {
    Json sp = Json::object();
    sp.set("count", static_cast<std::int64_t>(count));
    Json indices = Json::object();
    indices.set("bufferView", index_view);
    indices.set("componentType", nv <= 65535 ? kGltfUnsignedShort : kGltfUnsignedInt);
    sp.set("indices", std::move(indices));
    Json vals = Json::object();
    vals.set("bufferView", b.copy(values, 0));
    sp.set("values", std::move(vals));
    return sp;
  };
  b.accessorAt(position).set("sparse", sparse(morph.deltas));
  int normal = -1;
  if (!morph.normal_deltas.empty()) {
    normal = b.accessor(-1, kGltfFloat, nv, "VEC3");
    b.lastAccessor().set("sparse", sparse(morph.normal_deltas));
  }
  return {position, normal};
}

Json primitiveJson(const Attributes& a, int sets, int indices, int material, const std::vector<std::pair<int, int>>& morphs) {
  Json attributes = Json::object();
  attributes.set("POSITION", a.position);
  if (a.normal >= 0) attributes.set("NORMAL", a.normal);
  if (a.uv >= 0) attributes.set("TEXCOORD_0", a.uv);
  if (a.tangent >= 0) attributes.set("TANGENT", a.tangent);
  for (int set = 0; set < sets; ++set) {
    attributes.set("JOINTS_" + std::to_string(set), a.joints[set]);
    attributes.set("WEIGHTS_" + std::to_string(set), a.weights[set]);
  }
  Json primitive = Json::object();
  primitive.set("attributes", std::move(attributes));
  primitive.set("indices", indices);
  primitive.set("mode", 4);
  primitive.set("material", material);
  if (!morphs.empty()) {
    Json targets = Json::array();
    for (const auto& [position, normal] : morphs) {
      Json t = Json::object();
      t.set("POSITION", position);
      if (normal >= 0) t.set("NORMAL", normal);
      targets.push(std::move(t));
    }
    primitive.set("targets", std::move(targets));
  }
  return primitive;
}

}  // namespace

Expected<Json> writeGltfMesh(GltfBuffer& b, const ExportMesh& mesh, const GltfSkinStreams& skin, std::size_t bone_count,
                             int material) {
  const std::size_t nv = mesh.vertexCount();
  Attributes a;
  writeVertexStreams(b, mesh, a);
  RIGFIT_TRY(writeSkinStreams(b, nv, skin, bone_count, a));
  const int indices = writeIndices(b, mesh);
  std::vector<std::pair<int, int>> morphs;
  for (const ExportMorph& morph : mesh.morphs) morphs.push_back(writeMorph(b, morph, nv));

  Json primitives = Json::array();
  primitives.push(primitiveJson(a, skin.influences / 4, indices, material, morphs));
  Json out = Json::object();
  out.set("name", mesh.name);
  out.set("primitives", std::move(primitives));
  if (!morphs.empty()) {
    // Default weights 0; the names in extras.targetNames, the convention Blender, three.js,
    // Babylon.js and Unity's importers read.
    Json weights = Json::array(), names = Json::array();
    for (const ExportMorph& morph : mesh.morphs) {
      weights.push(0.0);
      names.push(morph.name);
    }
    out.set("weights", std::move(weights));
    Json extras = Json::object();
    extras.set("targetNames", std::move(names));
    out.set("extras", std::move(extras));
  }
  return out;
}

}  // namespace rigfit::detail
