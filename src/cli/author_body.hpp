// The body rig authoring works on: the data's base mesh or --mesh, shaped by the shape options,
// with its vertex groups and position info (joint cube centres, KD-trees).
#pragma once

#include <string>

#include "cli/common.hpp"
#include "rigfit/author.hpp"

namespace rigfit::cli {

struct AuthorBody {
  Mesh mesh;
  std::string label;
  VertexGroups groups;
  PositionInfo info;
};

[[nodiscard]] Expected<AuthorBody> loadAuthorBody(const DataSource& data, const std::string& mesh_path, const ShapeOptions& shape);

}  // namespace rigfit::cli
