// MPFB's automatic strategy choice for a bone end (docs/mpfb-behaviour.md §6.3, §6.3.1).
#include <cmath>

#include "rigfit/author.hpp"

namespace rigfit {

using C = MatchConstants;

MeanPair meanSearch(const PositionInfo& info, const Eigen::Vector3d& pos, double max_dist, double radius) {
  MeanPair best;
  best.distance = max_dist;
  const double box = C::kMeanBoxFraction * info.height;
  // The length penalty makes a pair as long as the whole search box cost one max_dist.
  const double penalty = box > 0.0 ? C::kMeanLengthPenalty * max_dist / (2.0 * box) : 0.0;
  double best_weight = max_dist + penalty * 2.0 * box;
  std::vector<KdTree::Hit> candidates;
  info.vertex_tree.range(pos, radius * std::sqrt(3.0), candidates);
  for (const KdTree::Hit& c : candidates) {
    // With m the pair's mean, |v2 - v1| = 2|m - v1| >= 2 (d1 - d), so w >= 2 d1 penalty when
    // penalty < 1/2: once that reaches the best weight no farther candidate can win (they come
    // sorted by d1). The margin keeps rounding from cutting a tie MPFB would have considered.
    if (penalty < 0.5 && 2.0 * c.distance * penalty * (1.0 - 1e-9) > best_weight) break;
    const Eigen::Vector3d& v1 = info.vertices[c.index];
    if ((v1 - pos).cwiseAbs().maxCoeff() >= radius) continue;  // inside the box only
    const auto m = info.vertex_tree.nearest(2.0 * pos - v1);
    // Each unordered pair once, from its lower index (this also drops v2 == v1).
    if (!m || m->index <= c.index) continue;
    const Eigen::Vector3d& v2 = info.vertices[m->index];
    const double d = ((v1 + v2) * 0.5 - pos).norm();
    if (!(d < max_dist)) continue;
    const double w = d + (v2 - v1).norm() * penalty;
    if (w < best_weight) {
      best_weight = w;
      best.found = true;
      best.first = c.index;
      best.second = m->index;
      best.distance = d;
    }
  }
  return best;
}

EndDef chooseStrategy(const PositionInfo& info, const Eigen::Vector3d& pos, const MatchOptions& options, double* distance) {
  EndDef e;
  e.default_position = Vec3d{pos.x(), pos.y(), pos.z()};
  const auto cube = info.cube_tree.nearest(pos);
  const auto vert = info.vertex_tree.nearest(pos);
  const bool cube_ok = cube && cube->distance < C::kMaxAllowedDist;
  const bool vert_ok = vert && vert->distance < C::kMaxAllowedDist;
  double best = 100.0;
  if (cube_ok) {
    e.strategy = Strategy::kCube;
    e.cube_name = info.cube_names[cube->index];
    best = cube->distance;
  }
  // An exact vertex beats a cube that is not exact; otherwise any accepted cube wins.
  if (vert_ok && (!cube_ok || (vert->distance < C::kExact && C::kExact < cube->distance))) {
    e.strategy = Strategy::kVertex;
    e.cube_name.clear();
    e.vertex_index = vert->index;
    best = vert->distance;
  }
  if (e.strategy != Strategy::kCube && best > C::kExact && !options.fast) {
    const double radius = vert_ok ? C::kCloseMeanRadius : C::kMeanBoxFraction * info.height;
    const MeanPair pair = meanSearch(info, pos, C::kMeanMaxDist, radius);
    if (pair.found && pair.distance < best) {
      e.strategy = Strategy::kMean;
      e.vertex_index = 0;
      e.vertex_indices = {pair.first, pair.second};
      best = pair.distance;
    }
  }
  if (distance) *distance = best;
  return e;
}

int fastCube(const PositionInfo& info, const Eigen::Vector3d& pos) {
  // chooseStrategy's fast-mode CUBE outcome: an accepted cube, unless an exact vertex beats it.
  const auto cube = info.cube_tree.nearest(pos);
  if (!cube || !(cube->distance < C::kMaxAllowedDist)) return -1;
  if (C::kExact < cube->distance)
    for (const Eigen::Vector3d& v : info.vertices)
      if ((v - pos).norm() < C::kExact) return -1;
  return static_cast<int>(cube->index);
}

}  // namespace rigfit
