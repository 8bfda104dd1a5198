// The glTF writer's binary buffer: views aligned to 4 bytes and their accessors.
#include "formats/gltf/gltf_write.hpp"

namespace rigfit::detail {

int GltfBuffer::rawView(std::size_t size, int target, const void* from) {
  while (bin_.size() % 4) bin_.push_back('\0');
  const std::size_t offset = bin_.size();
  Json v = Json::object();
  v.set("buffer", 0);
  v.set("byteOffset", static_cast<std::int64_t>(offset));
  v.set("byteLength", static_cast<std::int64_t>(size));
  if (target) v.set("target", target);
  if (from)
    bin_.append(static_cast<const char*>(from), size);
  else
    bin_.resize(offset + size);
  views.push(std::move(v));
  offsets_.push_back(offset);
  return static_cast<int>(offsets_.size() - 1);
}

int GltfBuffer::accessor(int view, int component_type, std::size_t count, const char* type, bool normalized) {
  Json a = Json::object();
  if (view >= 0) a.set("bufferView", view);
  a.set("componentType", component_type);
  if (normalized) a.set("normalized", true);
  a.set("count", static_cast<std::int64_t>(count));
  a.set("type", type);
  accessors.push(std::move(a));
  return static_cast<int>(accessors.size() - 1);
}

Json gltfNumbers(std::initializer_list<double> values) {
  Json a = Json::array();
  for (double x : values) a.push(x);
  return a;
}

}  // namespace rigfit::detail
