// Internals of the G4MF writer shared by its files: the buffer builder (views and accessors) and
// the writing of one mesh. The document layout is described in g4mf_writer.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "rigfit/error.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/json.hpp"

namespace rigfit::detail {

/// The one buffer of a G4MF file (§4) with its views and accessors: one view per array, aligned
/// to its component size (§6); identical views and accessors are reused (§3 uniqueItems).
class G4mfBuffer {
 public:
  /// Appends `size` bytes aligned to `component_size` (or finds the same bytes); the view index.
  int view(const void* data, std::size_t size, std::size_t component_size);
  int accessor(int view, const char* component_type, int vector_size);
  int floats(const std::vector<float>& data, int vector_size);
  /// Unsigned integers in the smallest type that holds `max_value`.
  int indices(const std::vector<std::uint32_t>& data, std::uint64_t max_value, int vector_size);

  std::string bin;
  Json views = Json::array(), accessors = Json::array();

 private:
  std::map<std::string, int> view_index_;
  std::map<std::tuple<int, std::string, int>, int> accessor_index_;
};

/// The file-unique names of a mesh's items (§3).
struct G4mfMeshNames {
  std::string node, mesh, surface, material;
};

/// One mesh (§9, §11, §14) into `buffer`: its JSON, whose surface uses material `material`;
/// `skinned` tells whether it got a skin. Blend shape names are made unique against `taken`.
Expected<Json> writeG4mfMesh(const ExportMesh& mesh, const G4mfMeshNames& names, int material,
                             const std::vector<std::string>& bone_names, const G4mfWriteOptions& options,
                             G4mfBuffer& buffer, std::vector<std::string>& taken, bool& skinned);

std::uint32_t maxOf(const std::vector<std::uint32_t>& values);
/// A JSON array of `n` numbers, -0.0 written as 0.
Json numberArray(const double* values, int n);

}  // namespace rigfit::detail
