#include "cli/author_body.hpp"

namespace rigfit::cli {

Expected<AuthorBody> loadAuthorBody(const DataSource& data, const std::string& mesh_path, const ShapeOptions& shape) {
  AuthorBody b;
  auto mesh = loadBaseMesh(data, mesh_path, &b.label);
  if (!mesh) return mesh.error();
  b.mesh = std::move(*mesh);
  auto groups = loadVertexGroups(data, SIZE_MAX);
  if (!groups) return groups.error();
  RIGFIT_TRY(checkBodyVertexCount(data, *groups, b.mesh.vertexCount(), b.label, mesh_path.empty()));
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
