// The main rig as a sub-rig's parent: fast-mode strategies, JOINTS and VERTEX references
// (docs/mpfb-behaviour.md §8.3, §8.4, §8.6).
#include <algorithm>
#include <array>
#include <numeric>

#include "rigfit/subrig.hpp"

namespace rigfit {

namespace {

constexpr double kExact = MatchConstants::kExact;  // a parent bone's tail "on" its child's head

bool deformFlag(const BoneDef* def) {
  if (!def) return true;
  const Json* d = def->json.find("use_deform");
  return !(d && d->isBool() && !d->asBool());
}

int cubeIndex(const ParentRig& p, std::string_view name) {
  for (std::size_t c = 0; c < p.cube_names.size(); ++c)
    if (p.cube_names[c] == name) return static_cast<int>(c);
  return -1;
}

using Chain = std::vector<int>;

// Chains of parent bones from cube `head` to cube `tail`, head to tail: from every bone ending on
// `tail`, up through parents whose tail touches the current head, until a bone starts on `head`.
std::vector<Chain> jointChains(const ParentRig& p, int head, int tail) {
  const Skeleton& s = *p.skeleton;
  std::vector<Chain> chains;
  if (head < 0 || tail < 0) return chains;
  for (std::size_t b = 0; b < s.size(); ++b) {
    if (p.tail_cube[b] != tail) continue;
    Chain chain;
    for (int cur = static_cast<int>(b);;) {
      chain.push_back(cur);
      if (p.head_cube[static_cast<std::size_t>(cur)] == head) {
        std::reverse(chain.begin(), chain.end());
        chains.push_back(std::move(chain));
        break;
      }
      const int parent = s.parents[static_cast<std::size_t>(cur)];
      if (parent == kNoParent || (s.tails[static_cast<std::size_t>(parent)] - s.heads[static_cast<std::size_t>(cur)]).norm() > kExact)
        break;
      cur = parent;
    }
  }
  return chains;
}

// MPFB's split fallback: rigs with one shoulder bone, or without spine-3, span the middle joint.
std::vector<Chain> chainsWithSplits(const ParentRig& p, std::string head, std::string tail, std::optional<double>& head_tail) {
  static constexpr std::array<std::array<const char*, 3>, 3> kSplits{{
      {"joint-l-clavicle", "joint-l-scapula", "joint-l-shoulder"},
      {"joint-r-clavicle", "joint-r-scapula", "joint-r-shoulder"},
      {"joint-spine-4", "joint-spine-3", "joint-spine-2"},
  }};
  const auto centre = [&](std::string_view name) {
    const int c = cubeIndex(p, name);
    return c < 0 ? Eigen::Vector3d::Zero().eval() : p.cubes[static_cast<std::size_t>(c)];
  };
  std::vector<Chain> chains = jointChains(p, cubeIndex(p, head), cubeIndex(p, tail));
  while (chains.empty()) {
    bool changed = false;
    for (const auto& [first, middle, last] : kSplits) {
      if (head == middle) {
        if (head_tail) {
          const double a = (centre(first) - centre(middle)).norm(), b = (centre(tail) - centre(middle)).norm();
          head_tail = (a + *head_tail * b) / (a + b);
        }
        head = first;
      } else if (tail == middle) {
        if (head_tail) {
          const double a = (centre(head) - centre(middle)).norm(), b = (centre(last) - centre(middle)).norm();
          head_tail = *head_tail * a / (a + b);
        }
        tail = last;
      } else {
        continue;
      }
      changed = true;
      break;
    }
    if (!changed) break;
    chains = jointChains(p, cubeIndex(p, head), cubeIndex(p, tail));
  }
  return chains;
}

// Distance from `point` to the bone's rest segment.
double distanceToBone(const Skeleton& s, int b, const Eigen::Vector3d& point) {
  const Eigen::Vector3d h = s.heads[static_cast<std::size_t>(b)], t = s.tails[static_cast<std::size_t>(b)];
  const Eigen::Vector3d d = t - h;
  const double len2 = d.squaredNorm();
  const double f = len2 > 0.0 ? (point - h).dot(d) / len2 : 0.0;
  const Eigen::Vector3d closest = f < 0.0 ? h : f > 1.0 ? t : Eigen::Vector3d(h + f * d);
  return (point - closest).norm();
}

struct Candidate {
  int bone = -1;
  std::optional<double> head_tail;
  std::size_t chain_length = 0;
};

// The bone of one chain: where head_tail falls along the chain's rest length (rewritten to that
// bone), or the bone nearest the owner's head. Nothing when head_tail is outside [0, 1].
std::optional<Candidate> chainBone(const Skeleton& s, const Chain& chain, std::optional<double> head_tail,
                                   const Eigen::Vector3d& owner_head) {
  if (!head_tail) {
    int best = chain.front();
    double best_d = distanceToBone(s, best, owner_head);
    for (int b : chain)
      if (const double d = distanceToBone(s, b, owner_head); d < best_d) best = b, best_d = d;
    return Candidate{best, std::nullopt, chain.size()};
  }
  std::vector<double> f(chain.size() + 1, 0.0);
  for (std::size_t k = 0; k < chain.size(); ++k) f[k + 1] = f[k] + s.lengths[static_cast<std::size_t>(chain[k])];
  const double total = f.back();
  for (double& x : f) x /= total;
  const double h = *head_tail;
  for (std::size_t k = 0; k < chain.size(); ++k)
    if ((f[k] <= h && h < f[k + 1]) || (h == 1.0 && f[k + 1] == 1.0))
      return Candidate{chain[k], (h - f[k]) / (f[k + 1] - f[k]), chain.size()};
  return std::nullopt;
}

}  // namespace

ParentRig parentRigOf(const Skeleton& skeleton, const RigDefinition& rig, const PositionInfo& body) {
  ParentRig p;
  p.skeleton = &skeleton;
  p.cube_names = body.cube_names;
  p.cubes = body.cubes;
  for (std::size_t b = 0; b < skeleton.size(); ++b) {
    p.head_cube.push_back(fastCube(body, skeleton.heads[b]));
    p.tail_cube.push_back(fastCube(body, skeleton.tails[b]));
    p.deform.push_back(deformFlag(rig.find(skeleton.names[b])));
  }
  return p;
}

std::optional<ParentBone> resolveJoints(const ParentRig& parent, std::string_view joint_head, std::string_view joint_tail,
                                        std::optional<double> head_tail, const Eigen::Vector3d& owner_head) {
  const Skeleton& s = *parent.skeleton;
  const std::vector<Chain> chains = chainsWithSplits(parent, std::string(joint_head), std::string(joint_tail), head_tail);
  std::vector<Candidate> candidates;
  for (const Chain& c : chains)
    if (c.size() == 1) candidates.push_back({c.front(), head_tail, 1});
  if (candidates.empty())
    for (const Chain& c : chains)
      if (auto bone = chainBone(s, c, head_tail, owner_head)) candidates.push_back(*bone);
  const auto keepIf = [&](auto pred) {
    if (candidates.size() < 2) return;
    std::vector<Candidate> kept;
    for (const Candidate& c : candidates)
      if (pred(c)) kept.push_back(c);
    if (!kept.empty()) candidates = std::move(kept);
  };
  keepIf([&](const Candidate& c) { return s.names[static_cast<std::size_t>(c.bone)].starts_with("ORG-"); });
  keepIf([&](const Candidate& c) { return parent.deform[static_cast<std::size_t>(c.bone)] != 0; });
  if (candidates.empty()) return std::nullopt;
  const auto best = std::min_element(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.chain_length != b.chain_length) return a.chain_length < b.chain_length;
    return s.names[static_cast<std::size_t>(a.bone)] < s.names[static_cast<std::size_t>(b.bone)];
  });
  return ParentBone{best->bone, best->head_tail};
}

std::vector<std::pair<int, float>> vertexBinding(const ParentRig& parent, const Skin& body_skin, std::size_t vertex) {
  std::vector<std::pair<int, float>> out;
  if (vertex >= body_skin.vertex_count) return out;
  for (std::uint32_t k = body_skin.offsets[vertex]; k < body_skin.offsets[vertex + 1]; ++k) {
    const int bone = body_skin.bones[k];
    if (static_cast<std::size_t>(bone) < parent.deform.size() && parent.deform[static_cast<std::size_t>(bone)])
      out.emplace_back(bone, body_skin.weights[k]);
  }
  return out;
}

}  // namespace rigfit
