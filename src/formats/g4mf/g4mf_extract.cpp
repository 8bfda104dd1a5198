// The G4mfDocument of a G4MF file checked without errors: the first skeleton node's bones, the
// meshes it skins (else one: a mesh instanced under it, else any instanced mesh, else the first
// mesh), each with its skin and blend shapes, and the materials.
#include <Eigen/Geometry>

#include "formats/g4mf/g4mf_check.hpp"

namespace rigfit::g4mf {

namespace {

Eigen::Matrix4d localMatrix(const Json& node) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  auto nums = [&](const char* key) {
    std::vector<double> out;
    if (const Json* a = node.find(key))
      for (const Json& v : a->items()) out.push_back(v.asDouble());
    return out;
  };
  if (const auto basis = nums("basis"); basis.size() == 9) {
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) m(r, c) = basis[static_cast<std::size_t>(3 * c + r)];
  } else {
    Eigen::Matrix3d rot = Eigen::Matrix3d::Identity();
    if (const auto rotor = nums("rotor"); rotor.size() == 4) {
      // Rotor [s, xy, xz, yz] -> quaternion (x = yz, y = -xz, z = xy, w = s), as in
      // docs/g4mf-rules.md §7.2.
      Eigen::Quaterniond q(rotor[0], rotor[3], -rotor[2], rotor[1]);
      rot = q.normalized().toRotationMatrix();
    }
    Eigen::Vector3d s = Eigen::Vector3d::Ones();
    if (const auto scale = nums("scale"); scale.size() == 1) s.setConstant(scale[0]);
    else if (scale.size() == 3) s = Eigen::Vector3d(scale[0], scale[1], scale[2]);
    m.topLeftCorner<3, 3>() = rot * s.asDiagonal();
  }
  if (const auto pos = nums("position"); pos.size() == 3) m.topRightCorner<3, 1>() = Eigen::Vector3d(pos[0], pos[1], pos[2]);
  return m;
}

std::string nameOf(const Json* item) {
  if (!item) return {};
  const Json* n = item->find("name");
  return n && n->isString() ? n->asString() : std::string();
}

/// The instance node of a mesh and the mesh (-1: none).
struct MeshUse {
  i64 node = -1, mesh = -1;
};

// One extraction: the checker's state in, `out` filled part by part.
class Extractor {
 public:
  Extractor(const Checker& c, std::string_view label, G4mfDocument& out)
      : c_(c), label_(label), out_(out), budget_(extractBudget(c.bytes_.size(), c.zstd_bytes_)) {}

  void skeleton(i64 skel);
  /// The meshes to read: every skinned mesh instanced on a direct child of the skeleton, in node
  /// order; else one: a mesh instanced under the skeleton, else any instanced mesh, else the first
  /// mesh; else none.
  std::vector<MeshUse> chooseMeshes(i64 skel) const;
  Status mesh(MeshUse use);
  void materials();

 private:
  Status surfaces(const Json& m, const std::string& mp, const Accessor& vertices, G4mfMesh& out);
  Status bind(const Json& s, const std::string& sp, const char* key, const Accessor& vertices, std::size_t first_triangle,
              std::size_t tri_count, const std::vector<std::uint32_t>& triangles, std::vector<float>& values,
              std::vector<std::uint32_t>& indices);
  Status skin(const Json& skin, const std::string& mp, G4mfMesh& out);
  Status blend(const Json& blend, const std::string& bp, G4mfMesh& out);
  /// The mesh index a node instances (-1: none).
  i64 meshOf(std::size_t node) const {
    const Json* mi = c_.nodes_[node] ? c_.nodes_[node]->find("meshInstance") : nullptr;
    const Json* m = mi ? mi->find("mesh") : nullptr;
    const auto i = m ? integerOf(*m) : std::nullopt;
    return i ? *i : -1;
  }

  /// After a clean check every referenced accessor is valid; its bytes may still be unavailable.
  const Accessor& acc(const Json* v) const {
    static const Accessor kNone;
    const auto i = v ? integerOf(*v) : std::nullopt;
    return i && *i >= 0 && static_cast<u64>(*i) < c_.acc_.size() && c_.acc_[static_cast<std::size_t>(*i)].valid
               ? c_.acc_[static_cast<std::size_t>(*i)]
               : kNone;
  }
  Error unavailable(const std::string& path) const {
    return readError(label_, path, "the data is not available (external or undecodable buffer)", ErrorCode::kUnsupported);
  }

  /// Counts `count` elements of `size` bytes against the budget before they are copied out; an
  /// error naming `path` when the file's arrays would take more than a file of its size may.
  Status charge(u64 count, u64 size, const std::string& path) {
    const u64 limit = budget_ - used_;
    if (count > limit / size) {
      return readError(label_, path,
                       "reading the file's arrays would take more than " + str(budget_) + " bytes, the most a file of " +
                           str(u64(c_.bytes_.size())) + " bytes (" + str(c_.zstd_bytes_) +
                           " decoded from Zstd) may take: 32 MiB + 4 x (its size + its decoded bytes)",
                       ErrorCode::kRange);
    }
    used_ += count * size;
    return {};
  }

  const Checker& c_;
  std::string_view label_;
  G4mfDocument& out_;
  u64 budget_, used_ = 0;
};

void Extractor::skeleton(i64 skel) {
  const std::size_t n = c_.nodes_.size();
  G4mfDocument& out = out_;
  std::vector<int> bone_of(n, -1);
  const Json& sn = *c_.nodes_[static_cast<std::size_t>(skel)];
  out.skeleton_name = nameOf(&sn);
  if (const Json* extras = sn.find("extras"); extras && extras->isObject())
    if (const Json* rig = extras->find("rig"); rig && rig->isString()) out.rig_name = rig->asString();
  for (std::size_t i = 0; i < n; ++i) {
    if (c_.skeleton_of_[i] != skel) continue;
    const Json& node = *c_.nodes_[i];
    bone_of[i] = static_cast<int>(out.bone_names.size());
    out.bone_nodes.push_back(static_cast<int>(i));
    out.bone_names.push_back(nameOf(&node));
    const Json* bone = node.find("bone");
    const Json* len = bone->find("length");
    out.lengths.push_back(len ? len->asDouble() : std::numeric_limits<double>::quiet_NaN());
    std::string source;
    double roll = std::numeric_limits<double>::quiet_NaN();
    if (const Json* extras = node.find("extras"); extras && extras->isObject()) {
      if (const Json* s = extras->find("makehumanName"); s && s->isString()) source = s->asString();
      if (const Json* r = extras->find("roll"); r && r->isNumber()) roll = r->asDouble();
    }
    out.source_names.push_back(std::move(source));
    out.rolls.push_back(roll);
    out.local.push_back(localMatrix(node));
  }
  const std::size_t nb = out.bone_nodes.size();
  out.parents.resize(nb);
  out.global.resize(nb);
  for (std::size_t b = 0; b < nb; ++b) {
    const i64 par = c_.parent_[static_cast<std::size_t>(out.bone_nodes[b])];
    out.parents[b] = par == skel ? -1 : bone_of[static_cast<std::size_t>(par)];
  }
  // Globals in dependency order (a foreign file may list a child bone before its parent).
  std::vector<std::uint8_t> done(nb, 0);
  for (std::size_t b = 0; b < nb; ++b) {
    std::vector<std::size_t> chain;
    for (int k = static_cast<int>(b); k >= 0 && !done[static_cast<std::size_t>(k)]; k = out.parents[static_cast<std::size_t>(k)]) chain.push_back(static_cast<std::size_t>(k));
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const int par = out.parents[*it];
      out.global[*it] = par < 0 ? out.local[*it] : Eigen::Matrix4d(out.global[static_cast<std::size_t>(par)] * out.local[*it]);
      done[*it] = 1;
    }
  }
  auto jit = c_.joints_.find(static_cast<std::size_t>(skel));
  if (jit != c_.joints_.end())
    for (i64 j : jit->second) out.joints.push_back(j < 0 ? -1 : bone_of[static_cast<std::size_t>(j)]);
}

std::vector<MeshUse> Extractor::chooseMeshes(i64 skel) const {
  const std::size_t n = c_.nodes_.size();
  std::vector<MeshUse> out;
  if (skel >= 0)
    for (std::size_t i = 0; i < n; ++i) {
      const i64 m = meshOf(i);
      if (m >= 0 && c_.parent_[i] == skel && c_.meshes_[static_cast<std::size_t>(m)]->contains("skin")) out.push_back({static_cast<i64>(i), m});
    }
  if (!out.empty()) return out;
  for (int pass = 0; pass < 2 && out.empty(); ++pass)
    for (std::size_t i = 0; i < n && out.empty(); ++i) {
      const i64 m = meshOf(i);
      if (m >= 0 && (pass == 1 || (skel >= 0 && c_.parent_[i] == skel))) out.push_back({static_cast<i64>(i), m});
    }
  if (out.empty() && !c_.meshes_.empty()) out.push_back({-1, 0});
  return out;
}

Status Extractor::mesh(MeshUse use) {
  const Json& m = *c_.meshes_[static_cast<std::size_t>(use.mesh)];
  const std::string mp = at("/meshes", static_cast<std::size_t>(use.mesh));
  G4mfMesh out;
  if (use.node >= 0) out.node_name = nameOf(c_.nodes_[static_cast<std::size_t>(use.node)]);
  out.name = nameOf(&m);
  const Accessor& va = acc(m.find("vertices"));
  if (!va.data) return unavailable(at(mp, "vertices"));
  RIGFIT_TRY(charge(va.components(), sizeof(float), at(mp, "vertices")));
  out.positions.resize(static_cast<std::size_t>(va.components()));
  for (u64 k = 0; k < va.components(); ++k) out.positions[static_cast<std::size_t>(k)] = static_cast<float>(va.real(k));
  RIGFIT_TRY(surfaces(m, mp, va, out));
  if (const Json* s = m.find("skin")) RIGFIT_TRY(skin(*s, mp, out));
  if (const Json* b = m.find("blend")) RIGFIT_TRY(blend(*b, at(mp, "blend"), out));
  // The first surface's material; the instance's override (1 entry, or one per surface) wins
  // unless it is -1 ("keep the surface's").
  const Json& surfaces = *m.find("surfaces");
  if (surfaces.size())
    if (const Json* mat = surfaces.items()[0].find("material"))
      if (const auto i = integerOf(*mat)) out.material = static_cast<int>(*i);
  if (use.node >= 0)
    if (const Json* mats = c_.nodes_[static_cast<std::size_t>(use.node)]->find("meshInstance")->find("materials"); mats && mats->size())
      if (const auto i = integerOf(mats->items()[0]); i && *i >= 0) out.material = static_cast<int>(*i);
  out_.meshes.push_back(std::move(out));
  return {};
}

void Extractor::materials() {
  const Json* a = Checker::array(c_.doc_, "materials");
  if (!a) return;
  for (const Json& m : a->items()) {
    G4mfMaterial& out = out_.materials.emplace_back();
    if (!m.isObject()) continue;
    out.name = nameOf(&m);
    auto factor = [&](const char* channel, double* values, std::size_t count) {
      const Json* c = m.find(channel);
      const Json* f = c && c->isObject() ? c->find("factor") : nullptr;
      if (!f || !f->isArray()) return;
      for (std::size_t k = 0; k < std::min(count, f->size()); ++k)
        if (f->items()[k].isNumber()) values[k] = f->items()[k].asDouble();
    };
    factor("baseColor", out.base_color.data(), out.base_color.size());
    factor("orm", out.orm.data(), out.orm.size());
    const Json* extras = m.find("extras");
    if (!extras || !extras->isObject()) continue;
    if (const Json* mode = extras->find("alphaMode"); mode && mode->isString()) {
      if (mode->asString() == "MASK") out.alpha_mode = AlphaMode::kMask;
      else if (mode->asString() == "BLEND") out.alpha_mode = AlphaMode::kBlend;
    }
    if (const Json* cutoff = extras->find("alphaCutoff"); cutoff && cutoff->isNumber()) out.alpha_cutoff = cutoff->asDouble();
    if (const Json* sides = extras->find("doubleSided"); sides && sides->isBool()) out.double_sided = sides->asBool();
  }
}

// Triangles, polygons, and the normal and UV bindings of every surface.
Status Extractor::surfaces(const Json& m, const std::string& mp, const Accessor& vertices, G4mfMesh& out) {
  const Json& surfaces = *m.find("surfaces");
  bool any_normals = false, any_uvs = false;
  for (const Json& s : surfaces.items()) {
    any_normals = any_normals || s.contains("normals");
    any_uvs = any_uvs || s.contains("textureMap");
  }
  for (std::size_t si = 0; si < surfaces.size(); ++si) {
    const Json& s = surfaces.items()[si];
    const std::string sp = at(at(mp, "surfaces"), si);
    const Json* sv = s.find("simplexes");
    if (!sv) continue;
    const Accessor& sa = acc(sv);
    if (!sa.data) return unavailable(at(sp, "simplexes"));
    // Triangles, and at most as many polygon corners and offsets.
    RIGFIT_TRY(charge(sa.components(), 3 * sizeof(std::uint32_t), at(sp, "simplexes")));
    const std::size_t first_triangle = out.triangles.size() / 3;
    for (u64 k = 0; k < sa.components(); ++k) out.triangles.push_back(static_cast<std::uint32_t>(sa.integer(k)));
    const std::size_t tri_count = static_cast<std::size_t>(sa.count);
    // Polygons.
    const Json* poly = s.find("polytopeSimplexes");
    const bool polytopes = poly && poly->asBool();
    if (out.polygon_offsets.empty()) out.polygon_offsets.push_back(0);
    for (std::size_t t = 0; t < tri_count; ++t) {
      const std::uint32_t* tri = &out.triangles[3 * (first_triangle + t)];
      const bool continues = polytopes && t > 0 && tri[0] == out.triangles[3 * (first_triangle + t - 1)];
      if (continues) {
        if (tri[1] != out.polygon_corners.back()) out.polygon_corners.push_back(tri[1]);
        out.polygon_corners.push_back(tri[2]);
        out.polygon_offsets.back() = static_cast<std::uint32_t>(out.polygon_corners.size());
      } else {
        out.polygon_corners.insert(out.polygon_corners.end(), tri, tri + 3);
        out.polygon_offsets.push_back(static_cast<std::uint32_t>(out.polygon_corners.size()));
      }
    }
    if (any_normals) RIGFIT_TRY(bind(s, sp, "normals", vertices, first_triangle, tri_count, out.triangles, out.normals, out.normal_indices));
    if (any_uvs) RIGFIT_TRY(bind(s, sp, "textureMap", vertices, first_triangle, tri_count, out.triangles, out.uvs, out.uv_indices));
  }
  return {};
}

// A binding of one surface: its values appended to `values`, per corner indices into them.
Status Extractor::bind(const Json& s, const std::string& sp, const char* key, const Accessor& vertices, std::size_t first_triangle,
                       std::size_t tri_count, const std::vector<std::uint32_t>& triangles, std::vector<float>& values,
                       std::vector<std::uint32_t>& indices) {
  const Json* b = s.find(key);
  RIGFIT_TRY(charge(3 * u64(tri_count), sizeof(std::uint32_t), at(sp, key)));  // the corners' indices
  if (!b) {
    indices.insert(indices.end(), 3 * tri_count, 0xFFFFFFFFu);
    return {};
  }
  const std::string bp = at(sp, key);
  const Accessor& vals = acc(b->find("values"));
  if (!vals.data) return unavailable(at(bp, "values"));
  const std::size_t width = std::string_view(key) == "normals" ? 3 : 2;
  if (vals.vector_size != width)
    return readError(label_, at(bp, "values"), "only " + std::to_string(width) + "-component values are read", ErrorCode::kUnsupported);
  RIGFIT_TRY(charge(vals.components(), sizeof(float), at(bp, "values")));
  const std::uint32_t base = static_cast<std::uint32_t>(values.size() / width);
  for (u64 k = 0; k < vals.components(); ++k) values.push_back(static_cast<float>(vals.real(k)));
  if (const Json* idx = b->find("simplexes")) {
    const Accessor& ia = acc(idx);
    if (!ia.data) return unavailable(at(bp, "simplexes"));
    if (ia.components() > 3 * u64(tri_count))
      RIGFIT_TRY(charge(ia.components() - 3 * u64(tri_count), sizeof(std::uint32_t), at(bp, "simplexes")));
    for (u64 k = 0; k < ia.components(); ++k) indices.push_back(base + static_cast<std::uint32_t>(ia.integer(k)));
  } else if (const Json* per = b->find("perSimplex")) {
    const Accessor& ia = acc(per);
    if (!ia.data) return unavailable(at(bp, "perSimplex"));
    if (ia.count > u64(tri_count))
      RIGFIT_TRY(charge(3 * (ia.count - u64(tri_count)), sizeof(std::uint32_t), at(bp, "perSimplex")));
    for (u64 k = 0; k < ia.count; ++k)
      for (int corner = 0; corner < 3; ++corner) indices.push_back(base + static_cast<std::uint32_t>(ia.integer(k)));
  } else if (vals.count == vertices.count) {  // per vertex
    for (std::size_t k = 3 * first_triangle; k < triangles.size(); ++k) indices.push_back(base + triangles[k]);
  } else {
    return readError(label_, bp, "a binding without simplexes or perSimplex is read only with one value per vertex", ErrorCode::kUnsupported);
  }
  return {};
}

Status Extractor::skin(const Json& skin, const std::string& mp, G4mfMesh& out) {
  const Accessor& v = acc(skin.find("vertices"));
  const Accessor& g = acc(skin.find("groups"));
  const Accessor& w = acc(skin.find("weights"));
  if (!v.data || !g.data || !w.data) return unavailable(at(mp, "skin"));
  RIGFIT_TRY(charge(v.count, 3 * 4, at(mp, "skin")));
  for (u64 k = 0; k < v.count; ++k) {
    out.skin_vertices.push_back(static_cast<std::uint32_t>(v.integer(k)));
    const i64 group = g.integer(k);
    out.skin_groups.push_back(group > 0xFFFFFFFF ? 0xFFFFFFFFu : static_cast<std::uint32_t>(group));
    out.skin_weights.push_back(static_cast<float>(w.real(k)));
  }
  if (const Json* names = skin.find("groupNames"))
    for (const Json& name : names->items()) out.group_names.push_back(name.asString());
  return {};
}

Status Extractor::blend(const Json& blend, const std::string& bp, G4mfMesh& out) {
  const Json& shapes = *blend.find("shapes");
  const Json* amounts = blend.find("amounts");
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const Json& shape = shapes.items()[k];
    G4mfBlendShape out_shape;
    if (const Json* name = shape.find("name"); name && name->isString()) out_shape.name = name->asString();
    out_shape.amount = amounts ? amounts->items()[k].asDouble() : 0.0;
    if (const Json* pos = shape.find("position")) {
      const Accessor& ia = acc(pos->find("indices"));
      const Accessor& oa = acc(pos->find("offsets"));
      if (!ia.data || !oa.data) return unavailable(at(at(at(bp, "shapes"), k), "position"));
      if (oa.vector_size != 3)
        return readError(label_, at(at(at(bp, "shapes"), k), "position"), "only 3-component offsets are read", ErrorCode::kUnsupported);
      RIGFIT_TRY(charge(ia.count + oa.components(), 4, at(at(at(bp, "shapes"), k), "position")));
      for (u64 i = 0; i < ia.count; ++i) out_shape.vertices.push_back(static_cast<std::uint32_t>(ia.integer(i)));
      for (u64 i = 0; i < oa.components(); ++i) out_shape.offsets.push_back(static_cast<float>(oa.real(i)));
    }
    if (const Json* ss = shape.find("surfaces"))
      for (std::size_t j = 0; j < ss->size(); ++j) {
        const Json& st = ss->items()[j];
        const Json* normal = st.find("normal");
        if (!normal || st.find("surface")->asInt() != 0) continue;
        const std::string np = at(at(at(at(at(bp, "shapes"), k), "surfaces"), j), "normal");
        const Accessor& ia = acc(normal->find("indices"));
        const Accessor& oa = acc(normal->find("offsets"));
        if (!ia.data || !oa.data) return unavailable(np);
        if (oa.vector_size != 3) return readError(label_, np, "only 3-component offsets are read", ErrorCode::kUnsupported);
        RIGFIT_TRY(charge(ia.count + oa.components(), 4, np));
        for (u64 i = 0; i < ia.count; ++i) out_shape.normal_values.push_back(static_cast<std::uint32_t>(ia.integer(i)));
        for (u64 i = 0; i < oa.components(); ++i) out_shape.normal_offsets.push_back(static_cast<float>(oa.real(i)));
      }
    out.blend_shapes.push_back(std::move(out_shape));
  }
  return {};
}

}  // namespace

Error readError(std::string_view label, const std::string& path, const std::string& message, ErrorCode code) {
  return makeError(code, std::string(label) + ": " + (path.empty() ? std::string("/") : path) + ": " + message);
}

Expected<G4mfDocument> extract(const Checker& c, std::string_view label) {
  G4mfDocument out;
  out.dimension = c.dim_;
  out.binary = c.binary_;
  if (c.dim_ != 3) return readError(label, "/asset/dimension", "only 3D files are read (this one is " + std::to_string(c.dim_) + "D)", ErrorCode::kUnsupported);
  if (!c.required_ext_.empty())
    return readError(label, "/asset/extensionsRequired", "requires the unsupported extension \"" + *c.required_ext_.begin() + "\"", ErrorCode::kUnsupported);
  if (const Json* asset = c.doc_.find("asset"); const Json* g = asset->find("generator")) out.generator = g->asString();
  const std::size_t n = c.nodes_.size();
  if (n) out.root_name = nameOf(c.nodes_[0]);
  Extractor x(c, label, out);
  // Skeleton: the first skeleton node.
  i64 skel = -1;
  for (std::size_t i = 0; i < n && skel < 0; ++i)
    if (c.nodes_[i] && c.nodes_[i]->contains("skeleton")) skel = static_cast<i64>(i);
  if (skel >= 0) x.skeleton(skel);
  for (const MeshUse use : x.chooseMeshes(skel)) RIGFIT_TRY(x.mesh(use));
  x.materials();
  return out;
}

}  // namespace rigfit::g4mf
