#include "cli/body.hpp"

#include <algorithm>

namespace rigfit::cli {

Expected<Body> loadBody(const DataSource& data, const std::string& mesh_path) {
  Body body;
  auto mesh = loadBaseMesh(data, mesh_path);
  if (!mesh) return mesh.error();
  body.mesh = std::move(*mesh);
  body.mesh_label = mesh_path.empty() ? data.label("3dobjs/base.obj") : mesh_path;
  // The vertex groups cover every vertex of the base mesh: their extent is its vertex count.
  auto groups = loadVertexGroups(data, SIZE_MAX);
  if (!groups) return groups.error();
  std::size_t extent = 0;
  for (const auto& ranges : groups->ranges)
    for (const auto& r : ranges) extent = std::max<std::size_t>(extent, std::size_t(r.last) + 1);
  if (body.mesh.vertexCount() != extent)
    return makeError(ErrorCode::kMismatch, body.mesh_label + ": has " + std::to_string(body.mesh.vertexCount()) +
                                               " vertices, but the base mesh of " + data.describe() + " has " +
                                               std::to_string(extent) + " (a shaped body must keep its vertex count and order)");
  body.groups = std::move(*groups);
  return body;
}

Expected<RigDefinition> loadRigOption(const DataSource& data, const std::string& rig_arg, std::string* name) {
  std::string arg = rig_arg;
  if (arg.empty()) {
    if (!data.isBuiltin()) return makeError(ErrorCode::kUsage, "--rig is required with --data (one of the data's rigs, or a rig.*.json path)");
    arg = "demo";
  }
  auto where = locateRig(data, arg);
  if (!where) return where.error();
  if (name) *name = where->name;
  return loadRig(data, *where);
}

}  // namespace rigfit::cli
