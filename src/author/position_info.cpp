// Position info (docs/mpfb-behaviour.md §3.1) and strategy evaluation without fallback (§3.2).
#include <algorithm>
#include <limits>

#include "rigfit/author.hpp"

namespace rigfit {

int PositionInfo::findCube(std::string_view name) const {
  for (std::size_t c = 0; c < cube_names.size(); ++c)
    if (cube_names[c] == name) return static_cast<int>(c);
  return -1;
}

Expected<PositionInfo> makePositionInfo(std::span<const float> positions, const VertexGroups& groups, double mesh_scale_factor,
                                        bool vertex_tree) {
  PositionInfo info;
  info.mesh_scale_factor = mesh_scale_factor;
  const std::size_t n = positions.size() / 3;
  info.vertices.resize(n);
  double zmin = std::numeric_limits<double>::infinity(), zmax = -zmin;
  for (std::size_t i = 0; i < n; ++i) {
    info.vertices[i] = Eigen::Vector3d(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]);
    zmin = std::min(zmin, info.vertices[i].z());
    zmax = std::max(zmax, info.vertices[i].z());
  }
  info.height = n ? zmax - zmin : 0.0;
  for (std::size_t g = 0; g < groups.names.size(); ++g) {
    // MPFB's cube test: the lowercase substring "joint" (so "JointCubes" is not a cube).
    if (groups.names[g].find("joint") == std::string::npos) continue;
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    std::size_t count = 0;
    for (const auto& r : groups.ranges[g]) {
      if (r.last >= n || r.first > r.last)
        return makeError(ErrorCode::kRange, "vertex group \"" + groups.names[g] + "\": range [" + std::to_string(r.first) + ", " +
                                                std::to_string(r.last) + "] is beyond the mesh of " + std::to_string(n) + " vertices");
      for (std::uint32_t v = r.first; v <= r.last; ++v) sum += info.vertices[v];
      count += r.last - r.first + 1;
    }
    if (count == 0) return makeError(ErrorCode::kSchema, "vertex group \"" + groups.names[g] + "\": a joint cube group with no vertices");
    info.cube_names.push_back(groups.names[g]);
    info.cubes.push_back(sum / static_cast<double>(count));
  }
  if (vertex_tree) info.vertex_tree = KdTree(info.vertices);
  info.cube_tree = KdTree(info.cubes);
  return info;
}

std::optional<Eigen::Vector3d> evaluateStrategy(const PositionInfo& info, const EndDef& e, double relative_scale) {
  const std::int64_t n = static_cast<std::int64_t>(info.vertices.size());
  auto vertex = [&](std::int64_t i) -> const Eigen::Vector3d* {
    if (i < 0) i += n;  // Python indexing
    if (i < 0 || i >= n) return nullptr;
    return &info.vertices[static_cast<std::size_t>(i)];
  };
  std::optional<Eigen::Vector3d> p;
  switch (e.strategy) {
    case Strategy::kCube:
      if (int c = info.findCube(e.cube_name); c >= 0) p = info.cubes[static_cast<std::size_t>(c)];
      break;
    case Strategy::kVertex:
      if (const auto* v = vertex(e.vertex_index)) p = *v;
      break;
    case Strategy::kMean: {
      if (e.vertex_indices.empty()) break;
      Eigen::Vector3d sum = Eigen::Vector3d::Zero();
      for (auto i : e.vertex_indices) {
        const auto* v = vertex(i);
        if (!v) return std::nullopt;
        sum += *v;
      }
      p = sum / static_cast<double>(e.vertex_indices.size());
      break;
    }
    case Strategy::kXyz: {
      if (e.vertex_indices.size() < 3) break;
      const auto *x = vertex(e.vertex_indices[0]), *y = vertex(e.vertex_indices[1]), *z = vertex(e.vertex_indices[2]);
      if (!x || !y || !z) break;
      p = Eigen::Vector3d(x->x(), y->y(), z->z());
      break;
    }
    case Strategy::kDefault:
      break;
  }
  if (p && e.offset) *p += Eigen::Vector3d((*e.offset)[0], (*e.offset)[1], (*e.offset)[2]) * relative_scale;
  return p;
}

bool sameStrategy(const EndDef& a, const EndDef& b) {
  if (a.strategy != b.strategy) return false;
  const Vec3d zero{0.0, 0.0, 0.0};
  if (a.offset.value_or(zero) != b.offset.value_or(zero)) return false;  // no offset = a zero offset
  switch (a.strategy) {
    case Strategy::kCube: return a.cube_name == b.cube_name;
    case Strategy::kVertex: return a.vertex_index == b.vertex_index;
    case Strategy::kMean:
    case Strategy::kXyz: return a.vertex_indices == b.vertex_indices;
    case Strategy::kDefault: return true;
  }
  return true;
}

}  // namespace rigfit
