// A small exact KD-tree: the strategy matcher's nearest-cube, nearest-vertex and range queries
// (MPFB builds Blender KD-trees for the same reason: a linear scan per bone end is too slow).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "rigfit/author.hpp"

namespace rigfit {
namespace {

constexpr std::uint32_t kLeafSize = 8;

double boxDistanceSq(const Eigen::Vector3d& q, const Eigen::Vector3d& lo, const Eigen::Vector3d& hi) {
  double d = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double e = q[k] < lo[k] ? lo[k] - q[k] : (q[k] > hi[k] ? q[k] - hi[k] : 0.0);
    d += e * e;
  }
  return d;
}

}  // namespace

KdTree::KdTree(std::vector<Eigen::Vector3d> points) : points_(std::move(points)) {
  order_.resize(points_.size());
  std::iota(order_.begin(), order_.end(), 0u);
  if (!points_.empty()) {
    nodes_.reserve(2 * points_.size() / kLeafSize + 2);
    build(0, static_cast<std::uint32_t>(points_.size()));
  }
}

KdTree KdTree::fromFloats(std::span<const float> xyz) {
  std::vector<Eigen::Vector3d> p(xyz.size() / 3);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = Eigen::Vector3d(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
  return KdTree(std::move(p));
}

std::uint32_t KdTree::build(std::uint32_t begin, std::uint32_t end) {
  const std::uint32_t id = static_cast<std::uint32_t>(nodes_.size());
  nodes_.emplace_back();
  nodes_[id].begin = begin;
  nodes_[id].end = end;
  Eigen::Vector3d lo = points_[order_[begin]], hi = lo;
  for (std::uint32_t k = begin + 1; k < end; ++k) {
    lo = lo.cwiseMin(points_[order_[k]]);
    hi = hi.cwiseMax(points_[order_[k]]);
  }
  nodes_[id].lo = lo;
  nodes_[id].hi = hi;
  if (end - begin <= kLeafSize) return id;
  int axis = 0;
  (hi - lo).maxCoeff(&axis);
  const std::uint32_t mid = begin + (end - begin) / 2;
  std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end, [&](std::uint32_t a, std::uint32_t b) {
    const double pa = points_[a][axis], pb = points_[b][axis];
    return pa < pb || (pa == pb && a < b);
  });
  const std::uint32_t left = build(begin, mid);
  const std::uint32_t right = build(mid, end);
  Node& n = nodes_[id];  // after the recursion: nodes_ may have grown
  n.left = left;
  n.right = right;
  n.axis = static_cast<std::uint8_t>(axis);
  n.split = points_[order_[mid]][axis];
  return id;
}

std::optional<KdTree::Hit> KdTree::nearest(const Eigen::Vector3d& q) const {
  if (points_.empty()) return std::nullopt;
  double best_d = std::numeric_limits<double>::infinity();
  std::uint32_t best_i = 0;
  // Explicit stack; the nearer child first. Only boxes farther than the best so far are skipped:
  // an equally distant one may hold a lower index.
  std::uint32_t stack[128];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& n = nodes_[stack[--top]];
    if (boxDistanceSq(q, n.lo, n.hi) > best_d) continue;
    if (n.left == 0) {
      for (std::uint32_t k = n.begin; k < n.end; ++k) {
        const std::uint32_t i = order_[k];
        const double d = (points_[i] - q).squaredNorm();
        if (d < best_d || (d == best_d && i < best_i)) {
          best_d = d;
          best_i = i;
        }
      }
      continue;
    }
    const std::uint32_t l = n.left, r = n.right;
    const double dl = boxDistanceSq(q, nodes_[l].lo, nodes_[l].hi);
    const double dr = boxDistanceSq(q, nodes_[r].lo, nodes_[r].hi);
    if (dl <= dr) {
      stack[top++] = r;
      stack[top++] = l;
    } else {
      stack[top++] = l;
      stack[top++] = r;
    }
  }
  return Hit{best_i, std::sqrt(best_d)};
}

void KdTree::range(const Eigen::Vector3d& q, double radius, std::vector<Hit>& out) const {
  out.clear();
  if (points_.empty() || !(radius >= 0.0)) return;
  const double r2 = radius * radius;
  std::vector<std::pair<double, std::uint32_t>> found;
  std::uint32_t stack[128];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& n = nodes_[stack[--top]];
    if (boxDistanceSq(q, n.lo, n.hi) > r2) continue;
    if (n.left == 0) {
      for (std::uint32_t k = n.begin; k < n.end; ++k) {
        const std::uint32_t i = order_[k];
        const double d = (points_[i] - q).squaredNorm();
        if (d <= r2) found.emplace_back(d, i);
      }
      continue;
    }
    stack[top++] = n.left;
    stack[top++] = n.right;
  }
  std::sort(found.begin(), found.end());
  out.reserve(found.size());
  for (const auto& [d, i] : found) out.push_back({i, std::sqrt(d)});
}

}  // namespace rigfit
