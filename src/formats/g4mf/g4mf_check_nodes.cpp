// The G4MF checks of nodes (docs/g4mf-rules.md §7, §12): the hierarchy, transforms, bones, and
// skeletons.
#include "formats/g4mf/g4mf_check.hpp"

namespace rigfit::g4mf {

void Checker::nodes() {
  const Json* a = array(doc_, "nodes");
  if (!a) return;
  const std::size_t n = a->size();
  nodes_.assign(n, nullptr);
  parent_.assign(n, -1);
  for (std::size_t i = 0; i < n; ++i)
    if (a->items()[i].isObject()) nodes_[i] = &a->items()[i];
  static const char* kComponents[] = {"bone", "camera", "light", "meshInstance", "modelInstance", "physics", "skeleton"};
  for (std::size_t i = 0; i < n; ++i) {
    if (!nodes_[i]) continue;
    const Json& node = *nodes_[i];
    const std::string p = at("/nodes", i);
    if (const Json* c = node.find("children")) {
      if (!c->isArray()) {
        r_.error(at(p, "children"), "must be an array");
      } else {
        if (c->size() == 0) r_.error(at(p, "children"), "must not be empty (omit it instead)");
        std::set<i64> local;
        for (std::size_t k = 0; k < c->size(); ++k) {
          const std::string cp = at(at(p, "children"), k);
          const Json& cv = c->items()[k];
          auto ci = integerOf(cv);
          if (ci && *ci == 0) {
            r_.error(cp, "the root node (0) cannot be a child");
            continue;
          }
          const i64 child = index(&cv, cp, n, "nodes");
          if (child < 0) continue;
          if (!local.insert(child).second) {
            r_.error(cp, "node " + std::to_string(child) + " is listed twice");
            continue;
          }
          if (parent_[static_cast<std::size_t>(child)] >= 0) {
            r_.error(cp, "node " + std::to_string(child) + " already has parent " + std::to_string(parent_[static_cast<std::size_t>(child)]) +
                             " (a node has at most one parent)");
            continue;
          }
          parent_[static_cast<std::size_t>(child)] = static_cast<i64>(i);
        }
      }
    }
    std::vector<std::string> comps;
    for (const char* c : kComponents)
      if (node.contains(c)) comps.push_back(c);
    if (comps.size() > 1) {
      std::string list;
      for (const auto& c : comps) list += (list.empty() ? "" : ", ") + c;
      std::string all;
      for (const char* c : kComponents) all += (all.empty() ? "" : ", ") + std::string(c);
      r_.error(p, "a node has at most one of " + all + "; this one has " + list);
    }
    transform(node, p, i == 0);
    boolean(node, "visible", p);
    if (node.contains("bone")) bone(node, p);
    if (const Json* s = node.find("skeleton"); s && !s->isObject()) r_.error(at(p, "skeleton"), "must be an object");
    if (const Json* mi = node.find("meshInstance"); mi && !mi->isObject()) r_.error(at(p, "meshInstance"), "must be an object");
  }
  hierarchy();
}

// Cycles, the parents-first order of every node, and nodes outside the root's tree.
void Checker::hierarchy() {
  const std::size_t n = nodes_.size();
  // Cycles (each node has at most one parent, so following parents either ends or loops).
  std::vector<std::uint8_t> state(n, 0);  // 0 new, 1 on the current path, 2 done
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::size_t> path;
    std::size_t j = i;
    while (state[j] == 0) {
      state[j] = 1;
      path.push_back(j);
      if (parent_[j] < 0) break;
      j = static_cast<std::size_t>(parent_[j]);
    }
    if (state[j] == 1 && parent_[j] >= 0) {
      r_.error(at(at("/nodes", static_cast<std::size_t>(parent_[j])), "children"), "node " + std::to_string(j) + " is its own ancestor (cycle)");
      cyclic_ = true;
    }
    for (std::size_t k : path) state[k] = 2;
  }
  if (cyclic_) return;
  // Parents-first order of the whole forest (linear, whatever the depth).
  std::vector<std::size_t> first_child(n + 1, 0), kids(n);
  for (std::size_t i = 0; i < n; ++i)
    if (parent_[i] >= 0) ++first_child[static_cast<std::size_t>(parent_[i]) + 1];
  for (std::size_t i = 0; i < n; ++i) first_child[i + 1] += first_child[i];
  std::vector<std::size_t> fill(first_child.begin(), first_child.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    if (parent_[i] >= 0) kids[fill[static_cast<std::size_t>(parent_[i])]++] = i;
  topo_.clear();
  topo_.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (parent_[i] < 0) topo_.push_back(i);
  for (std::size_t k = 0; k < topo_.size(); ++k)
    for (std::size_t c = first_child[topo_[k]]; c < first_child[topo_[k] + 1]; ++c) topo_.push_back(kids[c]);
  std::vector<std::uint8_t> under_root(n, 0);
  for (std::size_t i : topo_) under_root[i] = i == 0 || (parent_[i] >= 0 && under_root[static_cast<std::size_t>(parent_[i])]);
  for (std::size_t i = 1; i < n; ++i)
    if (!under_root[i]) r_.warn(at("/nodes", i), "not a descendant of the root node 0 (unused)");
}

void Checker::transform(const Json& node, const std::string& p, bool root) {
  const u64 d = static_cast<u64>(dim_);
  if (root)
    for (const char* key : {"position", "basis", "rotor", "scale"})
      if (node.contains(key)) r_.error(at(p, key), "the root node must not have a transform");
  if (auto pos = numbers(node, "position", p); pos && pos->size() != d)
    r_.error(at(p, "position"), "must have " + str(d) + " numbers (the dimension), has " + str(u64(pos->size())));
  if (auto basis = numbers(node, "basis", p); basis && basis->size() != d * d)
    r_.error(at(p, "basis"), "must have " + str(d * d) + " numbers (dimension squared), has " + str(u64(basis->size())));
  if (node.contains("basis") && node.contains("rotor")) r_.error(at(p, "basis"), "basis must not be combined with rotor");
  if (node.contains("basis") && node.contains("scale")) r_.error(at(p, "basis"), "basis must not be combined with scale");
  if (auto rotor = numbers(node, "rotor", p)) {
    const u64 lo = 1 + d * (d - 1) / 2, hi = d <= 20 ? u64(1) << (d - 1) : ~u64(0);
    if (rotor->size() < lo || rotor->size() > hi)
      r_.error(at(p, "rotor"), "a " + str(d) + "D rotor has " + (lo == hi ? str(lo) : str(lo) + " to " + str(hi)) + " numbers, this one " +
                                   str(u64(rotor->size())));
    double norm = 0.0;
    for (std::size_t k = 0; k < rotor->size(); ++k) {
      if ((*rotor)[k] < -1.0 || (*rotor)[k] > 1.0) r_.error(at(at(p, "rotor"), k), "rotor numbers lie in [-1, 1]");
      norm += (*rotor)[k] * (*rotor)[k];
    }
    if (!(norm > 0.0)) r_.error(at(p, "rotor"), "a zero rotor is no rotation");
  }
  if (auto scale = numbers(node, "scale", p)) {
    if (scale->size() != 1 && scale->size() != d)
      r_.error(at(p, "scale"), "must have 1 or " + str(d) + " numbers, has " + str(u64(scale->size())));
    for (std::size_t k = 0; k < scale->size(); ++k)
      if (!((*scale)[k] > 0.0)) r_.error(at(at(p, "scale"), k), "scale must be > 0 (use basis for flips)");
  }
}

void Checker::bone(const Json& node, const std::string& p) {
  const Json* b = object(node, "bone", p);
  if (!b) return;
  const std::string bp = at(p, "bone");
  if (const Json* l = b->find("length")) {
    if (!l->isNumber()) r_.error(at(bp, "length"), "must be a number");
    else if (l->asDouble() < 0.0) r_.error(at(bp, "length"), "must not be negative (-1 is an in-memory value, never written)");
  }
  if (const Json* m = b->find("mass")) {
    if (!m->isNumber()) r_.error(at(bp, "mass"), "must be a number");
    else if (m->asDouble() < 0.0) r_.error(at(bp, "mass"), "must not be negative");
    else if (m->asDouble() == 0.0) r_.warn(at(bp, "mass"), "0 is allowed by the text but rejected by the schema (exclusiveMinimum 0)");
  }
  if (const Json* s = b->find("shape")) {
    index(s, at(bp, "shape"), count("shapes"), "shapes");
    if (!b->contains("length")) r_.error(at(bp, "shape"), "shape requires length");
  }
}

void Checker::skeletons() {
  const std::size_t n = nodes_.size();
  skeleton_of_.assign(n, -1);
  if (cyclic_) return;
  for (std::size_t i = 0; i < n; ++i) {
    if (!isBone(i)) continue;
    const i64 par = parent_[i];
    if (par < 0 || !(isBone(static_cast<std::size_t>(par)) || isSkeleton(static_cast<std::size_t>(par)))) {
      r_.error(at(at("/nodes", i), "bone"), par < 0 ? "a bone must descend from a skeleton node (this one has no parent)"
                                                    : "a bone's parent must be a bone or the skeleton node; node " + std::to_string(par) + " is neither");
    }
  }
  for (std::size_t i : topo_) {  // parents first: a bone's skeleton is its parent's
    const i64 par = parent_[i];
    if (!isBone(i) || par < 0) continue;
    skeleton_of_[i] = isSkeleton(static_cast<std::size_t>(par)) ? par : isBone(static_cast<std::size_t>(par)) ? skeleton_of_[static_cast<std::size_t>(par)] : -1;
  }
  std::vector<i64> joint_pos(n, -1);  // first position of a bone in its own skeleton's joints
  for (std::size_t s = 0; s < n; ++s) {
    if (!isSkeleton(s) || !nodes_[s]->find("skeleton")->isObject()) continue;
    const Json& skel = *nodes_[s]->find("skeleton");
    const std::string p = at(at("/nodes", s), "skeleton");
    const std::vector<i64> joints = skeletonJoints(s, skel, p, joint_pos);
    joints_[s] = joints;
    // A single root bone is the skeleton's first child and, when a joint, joints[0].
    std::vector<i64> roots;
    const Json* children = nodes_[s]->find("children");
    if (children && children->isArray())
      for (const Json& c : children->items()) {
        auto ci = integerOf(c);
        if (ci && *ci > 0 && static_cast<u64>(*ci) < n && isBone(static_cast<std::size_t>(*ci)) &&
            parent_[static_cast<std::size_t>(*ci)] == static_cast<i64>(s))
          roots.push_back(*ci);
      }
    if (roots.size() == 1) {
      auto first_child = integerOf(children->items()[0]);
      if (!first_child || *first_child != roots[0])
        r_.error(at(at("/nodes", s), "children"), "the skeleton's single root bone (node " + std::to_string(roots[0]) + ") must be its first child");
      if (std::find(joints.begin(), joints.end(), roots[0]) != joints.end() && joints[0] != roots[0])
        r_.error(at(at(p, "joints"), 0), "the single root bone (node " + std::to_string(roots[0]) + ") is a joint, so it must be joints[0]");
    }
  }
  // Parents before children: no ancestor bone of a joint may be listed after it. ancestor[i] =
  // the latest joints position among i's ancestor bones, computed parents first.
  std::vector<i64> ancestor(n, -1);
  for (std::size_t i : topo_) {
    const i64 par = parent_[i];
    if (!isBone(i) || par < 0 || !isBone(static_cast<std::size_t>(par))) continue;
    ancestor[i] = std::max(ancestor[static_cast<std::size_t>(par)], joint_pos[static_cast<std::size_t>(par)]);
  }
  for (const auto& [s, joints] : joints_)
    for (std::size_t k = 0; k < joints.size(); ++k) {
      const i64 j = joints[k];
      if (j < 0 || skeleton_of_[static_cast<std::size_t>(j)] != static_cast<i64>(s)) continue;
      if (ancestor[static_cast<std::size_t>(j)] > static_cast<i64>(k))
        r_.error(at(at(at(at("/nodes", s), "skeleton"), "joints"), k),
                 "bone " + std::to_string(j) + " is listed before an ancestor bone (joints " + std::to_string(ancestor[static_cast<std::size_t>(j)]) + ")");
    }
}

// skeleton.joints of skeleton node s: bones of this skeleton, increasing; records each bone's
// first position in joint_pos. Returns the joints as written (-1 kept, invalid ones -1).
std::vector<i64> Checker::skeletonJoints(std::size_t s, const Json& skel, const std::string& p, std::vector<i64>& joint_pos) {
  const std::size_t n = nodes_.size();
  std::vector<i64> joints;
  if (const Json* j = skel.find("joints")) {
    if (!j->isArray()) {
      r_.error(at(p, "joints"), "must be an array");
    } else {
      i64 previous = -1;
      for (std::size_t k = 0; k < j->size(); ++k) {
        const std::string jp = at(at(p, "joints"), k);
        const Json& jv = j->items()[k];
        auto ji = integerOf(jv);
        if (ji && *ji == -1) {
          r_.warn(jp, "-1 (a group driven by no bone) is allowed by the text but rejected by the schema");
          joints.push_back(-1);
          continue;
        }
        const i64 node = index(&jv, jp, n, "nodes");
        joints.push_back(node);
        if (node < 0) continue;
        if (!isBone(static_cast<std::size_t>(node))) {
          r_.error(jp, "node " + std::to_string(node) + " is not a bone");
          continue;
        }
        if (skeleton_of_[static_cast<std::size_t>(node)] != static_cast<i64>(s)) {
          r_.error(jp, "bone " + std::to_string(node) + " is not part of this skeleton (no unbroken bone chain to node " + std::to_string(s) + ")");
          continue;
        }
        if (node < previous) r_.error(jp, "joints must be strictly increasing: " + std::to_string(node) + " after " + std::to_string(previous));
        else if (node == previous) r_.warn(jp, "bone " + std::to_string(node) + " repeats (allowed by the text, breaks strictly increasing order)");
        previous = std::max(previous, node);
      }
      for (std::size_t k = 0; k < joints.size(); ++k)
        if (joints[k] >= 0 && skeleton_of_[static_cast<std::size_t>(joints[k])] == static_cast<i64>(s) &&
            joint_pos[static_cast<std::size_t>(joints[k])] < 0)
          joint_pos[static_cast<std::size_t>(joints[k])] = static_cast<i64>(k);
    }
  }
  return joints;
}

}  // namespace rigfit::g4mf
