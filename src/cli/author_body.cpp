#include "cli/author_body.hpp"

#include <algorithm>

namespace rigfit::cli {

Expected<AuthorBody> loadAuthorBody(const DataSource& data, const std::string& mesh_path, const ShapeOptions& shape) {
  AuthorBody b;
  auto mesh = loadBaseMesh(data, mesh_path, &b.label);
  if (!mesh) return mesh.error();
  b.mesh = std::move(*mesh);
  auto groups = loadVertexGroups(data, SIZE_MAX);
  if (!groups) return groups.error();
  std::size_t extent = 0;
  for (const auto& ranges : groups->ranges)
    for (const auto& r : ranges) extent = std::max<std::size_t>(extent, std::size_t(r.last) + 1);
  if (b.mesh.vertexCount() != extent)
    return makeError(ErrorCode::kMismatch, b.label + ": has " + std::to_string(b.mesh.vertexCount()) + " vertices, but the base mesh of " +
                                               data.describe() + " has " + std::to_string(extent) +
                                               " (a shaped body must keep its vertex count and order)");
  b.groups = std::move(*groups);
  auto request = shape.request();
  if (!request) return request.error();
  if (request->use_macros || !request->modifiers.empty() || !request->targets.empty() || request->ground) {
    TargetCache cache(data);
    RIGFIT_TRY(shapeBody(cache, *request, b.mesh.positions));
  }
  auto info = makePositionInfo(b.mesh.positions, b.groups, static_cast<double>(b.mesh.scale_factor));
  if (!info) return info.error();
  b.info = std::move(*info);
  return b;
}

}  // namespace rigfit::cli
