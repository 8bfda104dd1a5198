// Internals of the glTF writer shared by its files: the binary buffer with its views and
// accessors, and the writing of one mesh.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "rigfit/error.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/json.hpp"

namespace rigfit::detail {

inline constexpr int kGltfFloat = 5126, kGltfUnsignedByte = 5121, kGltfUnsignedShort = 5123, kGltfUnsignedInt = 5125;
inline constexpr int kGltfArrayBuffer = 34962, kGltfElementArrayBuffer = 34963;

/// The binary buffer, built in place: each stream is written straight into its bufferView. For a
/// .glb the same string then receives the header and JSON in front (one move of the bytes instead
/// of a copy into a new file image).
class GltfBuffer {
 public:
  /// Room for `count` values of T, aligned to 4, as a new bufferView; returns its index. Its bytes
  /// are at(index) (valid until the next view). With `from`, the bytes are appended from there
  /// (no zero fill first).
  template <typename T>
  int view(std::size_t count, int target, const T* from = nullptr) {
    return rawView(count * sizeof(T), target, from);
  }
  template <typename T>
  T* at(int view) {  // offsets are multiples of 4 and sizeof(T) <= 4: aligned for T
    return reinterpret_cast<T*>(bin_.data() + offsets_[static_cast<std::size_t>(view)]);
  }
  template <typename T>
  int copy(const std::vector<T>& data, int target) {
    return view<T>(data.size(), target, data.empty() ? nullptr : data.data());
  }
  /// view < 0: no bufferView (all zeros, unless sparse values are added).
  int accessor(int view, int component_type, std::size_t count, const char* type, bool normalized = false);
  Json& lastAccessor() { return accessors.items().back(); }
  Json& accessorAt(int index) { return accessors.items()[static_cast<std::size_t>(index)]; }
  std::string& bin() { return bin_; }
  void reserve(std::size_t bytes) { bin_.reserve(bytes); }

  Json views = Json::array(), accessors = Json::array();

 private:
  int rawView(std::size_t size, int target, const void* from);
  std::string bin_;
  std::vector<std::size_t> offsets_;
};

/// A JSON array of numbers.
Json gltfNumbers(std::initializer_list<double> values);

/// One mesh's streams (positions, normals, UVs, joints and weights, indices, morph targets) into
/// `b`, and its glTF mesh (one primitive with material `material`). Joint indices are checked
/// against `bone_count`.
Expected<Json> writeGltfMesh(GltfBuffer& b, const ExportMesh& mesh, const GltfSkinStreams& skin, std::size_t bone_count,
                             int material);

}  // namespace rigfit::detail
