// The G4MF writer's buffer: views and accessors, deduplicated.
#include <algorithm>

#include "formats/g4mf/g4mf_write.hpp"

namespace rigfit::detail {

int G4mfBuffer::view(const void* data, std::size_t size, std::size_t component_size) {
  std::string key(static_cast<const char*>(data), size);
  key.push_back(static_cast<char>(component_size));
  auto it = view_index_.find(key);
  if (it != view_index_.end()) return it->second;
  while (bin.size() % component_size) bin.push_back('\0');
  Json v = Json::object();
  v.set("byteLength", static_cast<std::int64_t>(size));
  if (!bin.empty()) v.set("byteOffset", static_cast<std::int64_t>(bin.size()));
  bin.append(static_cast<const char*>(data), size);
  views.push(std::move(v));
  const int index = static_cast<int>(views.size() - 1);
  view_index_.emplace(std::move(key), index);
  return index;
}

int G4mfBuffer::accessor(int view, const char* component_type, int vector_size) {
  const auto key = std::make_tuple(view, std::string(component_type), vector_size);
  auto it = accessor_index_.find(key);
  if (it != accessor_index_.end()) return it->second;
  Json a = Json::object();
  a.set("bufferView", view);
  a.set("componentType", component_type);
  if (vector_size != 1) a.set("vectorSize", vector_size);
  accessors.push(std::move(a));
  const int index = static_cast<int>(accessors.size() - 1);
  accessor_index_.emplace(key, index);
  return index;
}

int G4mfBuffer::floats(const std::vector<float>& data, int vector_size) {
  return accessor(view(data.data(), data.size() * sizeof(float), sizeof(float)), "float32", vector_size);
}

int G4mfBuffer::indices(const std::vector<std::uint32_t>& data, std::uint64_t max_value, int vector_size) {
  if (max_value <= 0xFF) {
    std::vector<std::uint8_t> v(data.begin(), data.end());
    return accessor(view(v.data(), v.size(), 1), "uint8", vector_size);
  }
  if (max_value <= 0xFFFF) {
    std::vector<std::uint16_t> v(data.begin(), data.end());
    return accessor(view(v.data(), v.size() * 2, 2), "uint16", vector_size);
  }
  return accessor(view(data.data(), data.size() * 4, 4), "uint32", vector_size);
}

std::uint32_t maxOf(const std::vector<std::uint32_t>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

Json numberArray(const double* values, int n) {
  Json a = Json::array();
  for (int k = 0; k < n; ++k) a.push(values[k] == 0.0 ? 0.0 : values[k]);  // no "-0.0"
  return a;
}

}  // namespace rigfit::detail
