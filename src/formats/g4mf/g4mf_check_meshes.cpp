// The G4MF checks of meshes (docs/g4mf-rules.md §9, §11, §14): surfaces, bindings, skins, blend
// shapes; mesh instances (§10) and skinned meshes; materials, textures and files (§9.4).
#include "formats/g4mf/g4mf_check.hpp"

namespace rigfit::g4mf {

void Checker::meshes() {
  const Json* a = array(doc_, "meshes");
  if (!a) return;
  meshes_.assign(a->size(), nullptr);
  mesh_vertices_.assign(a->size(), -1);
  mesh_surfaces_.assign(a->size(), 0);
  mesh_shapes_.assign(a->size(), -1);
  normal_values_.assign(a->size(), {});
  uv_values_.assign(a->size(), {});
  for (std::size_t m = 0; m < a->size(); ++m) {
    if (!a->items()[m].isObject()) continue;
    const Json& mesh = a->items()[m];
    meshes_[m] = &mesh;
    const std::string p = at("/meshes", m);
    if (!mesh.contains("vertices")) r_.error(at(p, "vertices"), "is required");
    if (const Accessor* v = accessor(mesh.find("vertices"), at(p, "vertices"), TypeReq::kAny, static_cast<u64>(dim_))) {
      mesh_vertices_[m] = static_cast<i64>(v->count);
      if (v->type->kind != Kind::kFloat) r_.warn(at(p, "vertices"), "vertices should be floating-point");
    }
    const u64 nv = mesh_vertices_[m] >= 0 ? static_cast<u64>(mesh_vertices_[m]) : 0;
    const bool known = mesh_vertices_[m] >= 0;
    const Json* surfaces = mesh.find("surfaces");
    if (!surfaces) r_.error(at(p, "surfaces"), "is required");
    else if (!surfaces->isArray()) r_.error(at(p, "surfaces"), "must be an array");
    else if (surfaces->size() == 0) r_.error(at(p, "surfaces"), "must have at least one surface");
    if (surfaces && surfaces->isArray()) {
      uniqueItems(*surfaces, at(p, "surfaces"));
      mesh_surfaces_[m] = surfaces->size();
      normal_values_[m].assign(surfaces->size(), -1);
      uv_values_[m].assign(surfaces->size(), -1);
      for (std::size_t s = 0; s < surfaces->size(); ++s) {
        if (!surfaces->items()[s].isObject()) {
          r_.error(at(at(p, "surfaces"), s), "must be an object");
          continue;
        }
        surface(surfaces->items()[s], at(at(p, "surfaces"), s), nv, known, normal_values_[m][s], uv_values_[m][s]);
      }
    }
    if (const Json* skin = object(mesh, "skin", p)) this->skin(*skin, at(p, "skin"), nv, known);
    if (const Json* blend = object(mesh, "blend", p)) this->blend(*blend, at(p, "blend"), nv, known, m, surfaces);
  }
}

void Checker::surface(const Json& s, const std::string& p, u64 nv, bool known, i64& normal_count, i64& uv_count) {
  const u64 d = static_cast<u64>(dim_);
  const Accessor* simplexes = nullptr;
  const bool has_simplexes = s.contains("simplexes");
  if (has_simplexes) {
    simplexes = accessor(s.find("simplexes"), at(p, "simplexes"), TypeReq::kInteger, d);
    if (simplexes && known) indicesBelow(*simplexes, nv, at(p, "simplexes"), "(the mesh's vertices)");
  }
  if (s.contains("polytopeSimplexes")) {
    boolean(s, "polytopeSimplexes", p);
    if (!has_simplexes) r_.error(at(p, "polytopeSimplexes"), "requires simplexes");
  }
  if (s.contains("edges")) {
    const Accessor* e = accessor(s.find("edges"), at(p, "edges"), TypeReq::kInteger, 2);
    if (e && known) indicesBelow(*e, nv, at(p, "edges"), "(the mesh's vertices)");
  }
  if (const Json* g = s.find("geometry")) {
    if (!s.contains("edges")) r_.error(at(p, "geometry"), "requires edges");
    if (!g->isArray() || g->size() == 0) {
      r_.error(at(p, "geometry"), "must be a non-empty array of accessor indices");
    } else {
      uniqueItems(*g, at(p, "geometry"));
      for (std::size_t k = 0; k < g->size(); ++k) accessor(&g->items()[k], at(at(p, "geometry"), k), TypeReq::kUnsigned, 1);
    }
  }
  if (s.contains("seams")) {
    if (!s.contains("edges")) r_.error(at(p, "seams"), "requires edges");
    accessor(s.find("seams"), at(p, "seams"), TypeReq::kUnsigned, 1);
  }
  if (const Json* mat = s.find("material")) index(mat, at(p, "material"), count("materials"), "materials");
  if (const Json* n = object(s, "normals", p)) normal_count = binding(*n, at(p, "normals"), simplexes, has_simplexes, true);
  if (const Json* t = object(s, "textureMap", p)) uv_count = binding(*t, at(p, "textureMap"), simplexes, has_simplexes, false);
}

// A binding (§9.3); returns the values count (-1 unknown).
i64 Checker::binding(const Json& b, const std::string& p, const Accessor* simplexes, bool has_simplexes, bool normals) {
  const u64 d = static_cast<u64>(dim_);
  if (!b.contains("values")) r_.error(at(p, "values"), "is required");
  const Accessor* values = accessor(b.find("values"), at(p, "values"), TypeReq::kFloat, normals ? d : 0);
  i64 count = values ? static_cast<i64>(values->count) : -1;
  if (values && normals && values->data) {
    const double tolerance = values->type->size == 1 ? 0.15 : values->type->size == 2 ? 4e-3 : 1e-3;
    u64 bad = 0, first = 0;
    double first_len = 0;
    for (u64 k = 0; k < values->count; ++k) {
      double len = 0.0;
      for (u64 c = 0; c < d; ++c) len += values->real(k * d + c) * values->real(k * d + c);
      len = std::sqrt(len);
      if (!(std::abs(len - 1.0) <= tolerance))
        if (!bad++) first = k, first_len = len;
    }
    if (bad) r_.error(at(p, "values"), "normal " + str(first) + " has length " + str(first_len) + "; normals must be unit length (" + str(bad) + " in all)");
  }
  if (values && !normals && values->type->kind != Kind::kFloat) count = -1;
  if (b.contains("simplexes")) {
    if (!has_simplexes) r_.error(at(p, "simplexes"), "the surface has no simplexes to bind to");
    const Accessor* idx = accessor(b.find("simplexes"), at(p, "simplexes"), TypeReq::kInteger, simplexes ? simplexes->vector_size : 0);
    if (idx && simplexes && idx->count != simplexes->count)
      r_.error(at(p, "simplexes"), "has " + str(idx->count) + " elements, the surface's simplexes " + str(simplexes->count));
    if (idx && count >= 0) indicesBelow(*idx, static_cast<u64>(count), at(p, "simplexes"), "(the binding's values)");
  }
  if (b.contains("perSimplex")) {
    if (!has_simplexes) r_.error(at(p, "perSimplex"), "the surface has no simplexes to bind to");
    const Accessor* idx = accessor(b.find("perSimplex"), at(p, "perSimplex"), TypeReq::kInteger, 1);
    if (idx && simplexes && idx->count != simplexes->count)
      r_.error(at(p, "perSimplex"), "has " + str(idx->count) + " elements, the surface has " + str(simplexes->count) + " simplexes");
    if (idx && count >= 0) indicesBelow(*idx, static_cast<u64>(count), at(p, "perSimplex"), "(the binding's values)");
  }
  if (const Json* g = b.find("geometry")) {
    if (!g->isArray()) {
      r_.error(at(p, "geometry"), "must be an array");
    } else {
      for (std::size_t k = 0; k < g->size(); ++k) {
        const std::string gp = at(at(p, "geometry"), k);
        const Json& item = g->items()[k];
        if (!item.isObject()) {
          r_.error(gp, "must be an object");
          continue;
        }
        if (!item.contains("accessor")) r_.error(at(gp, "accessor"), "is required");
        else accessor(item.find("accessor"), at(gp, "accessor"), TypeReq::kInteger, 0);
        if (!item.contains("geometryDimension")) r_.error(at(gp, "geometryDimension"), "is required");
        auto gd = nonNegative(item.find("geometryDimension"), at(gp, "geometryDimension"));
        auto dd = nonNegative(item.find("decomposeDimension"), at(gp, "decomposeDimension"));
        if (gd && dd && *dd > *gd) r_.error(at(gp, "decomposeDimension"), "must not be greater than geometryDimension");
      }
    }
  }
  return count;
}

void Checker::skin(const Json& s, const std::string& p, u64 nv, bool known) {
  for (const char* key : {"vertices", "groups", "weights"})
    if (!s.contains(key)) r_.error(at(p, key), "is required");
  const Accessor* v = accessor(s.find("vertices"), at(p, "vertices"), TypeReq::kUnsigned, 1);
  const Accessor* g = accessor(s.find("groups"), at(p, "groups"), TypeReq::kUnsigned, 1);
  const Accessor* w = accessor(s.find("weights"), at(p, "weights"), TypeReq::kFloat, 1);
  if (v && known) indicesBelow(*v, nv, at(p, "vertices"), "(the mesh's vertices)");
  if (v && g && v->count != g->count) r_.error(at(p, "groups"), "has " + str(g->count) + " elements, vertices has " + str(v->count));
  if (v && w && v->count != w->count) r_.error(at(p, "weights"), "has " + str(w->count) + " elements, vertices has " + str(v->count));
  if (v && v->data) {
    for (u64 k = 1; k < v->count; ++k)
      if (v->integer(k) < v->integer(k - 1)) {
        r_.error(at(p, "vertices"), "must be ascending: element " + str(k) + " is " + std::to_string(v->integer(k)) + " after " +
                                        std::to_string(v->integer(k - 1)));
        break;
      }
  }
  if (w && w->data) {
    for (u64 k = 0; k < w->count; ++k)
      if (!std::isfinite(w->real(k))) {
        r_.error(at(p, "weights"), "weight " + str(k) + " is not a finite number");
        break;
      }
    for (u64 k = 0; k < w->count; ++k)
      if (w->real(k) < 0.0) {
        r_.warn(at(p, "weights"), "weight " + str(k) + " is negative");
        break;
      }
  }
  if (v && w && v->data && w->data && v->count == w->count) {
    for (u64 k = 1; k < v->count; ++k)
      if (v->integer(k) == v->integer(k - 1) && w->real(k) > w->real(k - 1)) {
        r_.error(at(p, "weights"), "weights of vertex " + std::to_string(v->integer(k)) + " must be descending: " + str(w->real(k)) +
                                       " after " + str(w->real(k - 1)) + " (element " + str(k) + ")");
        break;
      }
  }
  if (const Json* names = s.find("groupNames")) {
    if (!names->isArray()) {
      r_.error(at(p, "groupNames"), "must be an array of strings");
    } else {
      std::map<std::string, std::size_t> seen;
      for (std::size_t k = 0; k < names->size(); ++k) {
        const Json& n = names->items()[k];
        const std::string np = at(at(p, "groupNames"), k);
        if (!n.isString()) r_.error(np, "must be a string");
        else if (n.asString().empty()) r_.error(np, "group names must not be empty");
        else if (!seen.emplace(n.asString(), k).second)
          r_.error(np, "group name \"" + n.asString() + "\" repeats item " + std::to_string(seen[n.asString()]));
      }
    }
  }
}

void Checker::blend(const Json& b, const std::string& p, u64 nv, bool known, std::size_t m, const Json* surfaces) {
  const u64 d = static_cast<u64>(dim_);
  const Json* shapes = b.find("shapes");
  if (!shapes) {
    r_.error(at(p, "shapes"), "is required");
    return;
  }
  if (!shapes->isArray()) {
    r_.error(at(p, "shapes"), "must be an array");
    return;
  }
  mesh_shapes_[m] = static_cast<i64>(shapes->size());
  if (auto amounts = numbers(b, "amounts", p); amounts && amounts->size() != shapes->size())
    r_.error(at(p, "amounts"), "has " + str(u64(amounts->size())) + " numbers for " + str(u64(shapes->size())) + " shapes");
  const u64 surface_count = surfaces && surfaces->isArray() ? surfaces->size() : 0;
  auto target = [&](const Json& t, const std::string& tp, u64 limit, bool limit_known, u64 offsets_size, std::string_view what) {
    if (!t.isObject()) {
      r_.error(tp, "must be an object");
      return;
    }
    for (const char* key : {"indices", "offsets"})
      if (!t.contains(key)) r_.error(at(tp, key), "is required");
    const Accessor* idx = accessor(t.find("indices"), at(tp, "indices"), TypeReq::kUnsigned, 1);
    const Accessor* off = accessor(t.find("offsets"), at(tp, "offsets"), TypeReq::kAny, offsets_size);
    if (idx && limit_known) indicesBelow(*idx, limit, at(tp, "indices"), what);
    if (idx && off && idx->count != off->count)
      r_.error(at(tp, "offsets"), "has " + str(off->count) + " elements, indices has " + str(idx->count));
  };
  for (std::size_t k = 0; k < shapes->size(); ++k) {
    const Json& shape = shapes->items()[k];
    const std::string sp = at(at(p, "shapes"), k);
    if (!shape.isObject()) {
      r_.error(sp, "must be an object");
      continue;
    }
    if (const Json* pos = shape.find("position")) target(*pos, at(sp, "position"), nv, known, d, "(the mesh's vertices)");
    if (const Json* ss = shape.find("surfaces")) {
      if (!ss->isArray()) {
        r_.error(at(sp, "surfaces"), "must be an array");
        continue;
      }
      if (ss->size() == 0) r_.error(at(sp, "surfaces"), "an empty surfaces array must be omitted");
      if (ss->size() > surface_count && surface_count)
        r_.error(at(sp, "surfaces"), "has more entries than the mesh has surfaces");
      uniqueItems(*ss, at(sp, "surfaces"));
      std::set<i64> used;
      for (std::size_t e = 0; e < ss->size(); ++e) {
        const Json& entry = ss->items()[e];
        const std::string ep = at(at(sp, "surfaces"), e);
        if (!entry.isObject()) {
          r_.error(ep, "must be an object");
          continue;
        }
        if (!entry.contains("surface")) r_.error(at(ep, "surface"), "is required");
        const i64 si = index(entry.find("surface"), at(ep, "surface"), surface_count, "surfaces");
        if (si >= 0 && !used.insert(si).second) r_.error(at(ep, "surface"), "surface " + std::to_string(si) + " appears twice in this shape");
        if (!entry.contains("normal") && !entry.contains("textureMap"))
          r_.error(ep, "an entry holding only surface must be omitted");
        const i64 nvals = si >= 0 ? normal_values_[m][static_cast<std::size_t>(si)] : -1;
        const i64 tvals = si >= 0 ? uv_values_[m][static_cast<std::size_t>(si)] : -1;
        if (const Json* n = entry.find("normal")) target(*n, at(ep, "normal"), nvals >= 0 ? u64(nvals) : 0, nvals >= 0, d, "(the surface's normal values)");
        if (const Json* t = entry.find("textureMap")) {
          u64 tsize = 0;
          if (si >= 0) {
            const Json& surf = surfaces->items()[static_cast<std::size_t>(si)];
            const Json* tm = surf.isObject() ? surf.find("textureMap") : nullptr;
            const Json* values = tm && tm->isObject() ? tm->find("values") : nullptr;
            auto vi = values ? integerOf(*values) : std::nullopt;
            if (vi && *vi >= 0 && static_cast<u64>(*vi) < acc_.size() && acc_[static_cast<std::size_t>(*vi)].valid)
              tsize = acc_[static_cast<std::size_t>(*vi)].vector_size;
          }
          target(*t, at(ep, "textureMap"), tvals >= 0 ? u64(tvals) : 0, tvals >= 0, tsize, "(the surface's texture map values)");
        }
      }
    }
  }
}

void Checker::meshInstances() {
  std::map<i64, std::vector<std::pair<std::size_t, std::size_t>>> skinned_by_skeleton;  // skeleton -> (node, mesh)
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (!nodes_[i]) continue;
    const Json* mi = nodes_[i]->find("meshInstance");
    if (!mi || !mi->isObject()) continue;
    const std::string p = at(at("/nodes", i), "meshInstance");
    if (!mi->contains("mesh")) r_.error(at(p, "mesh"), "is required");
    const i64 m = index(mi->find("mesh"), at(p, "mesh"), meshes_.size(), "meshes");
    if (const Json* mats = mi->find("materials")) {
      if (!mats->isArray() || mats->size() == 0) {
        r_.error(at(p, "materials"), "must be a non-empty array (omit it instead)");
      } else {
        for (std::size_t k = 0; k < mats->size(); ++k) {
          auto v = integerOf(mats->items()[k]);
          if (v && *v == -1) r_.warn(at(at(p, "materials"), k), "-1 (keep the surface's material) is allowed by the text but rejected by the schema");
          else index(&mats->items()[k], at(at(p, "materials"), k), count("materials"), "materials");
        }
        if (m >= 0 && mats->size() != 1 && mats->size() != mesh_surfaces_[static_cast<std::size_t>(m)])
          r_.error(at(p, "materials"), "must have 1 entry or one per surface (" + str(u64(mesh_surfaces_[static_cast<std::size_t>(m)])) + ")");
      }
    }
    if (auto amounts = numbers(*mi, "blendAmounts", p); amounts && m >= 0) {
      const i64 shapes = mesh_shapes_[static_cast<std::size_t>(m)];
      if (static_cast<i64>(amounts->size()) != std::max<i64>(shapes, 0))
        r_.error(at(p, "blendAmounts"), "has " + str(u64(amounts->size())) + " numbers for " + std::to_string(std::max<i64>(shapes, 0)) + " blend shapes");
    }
    if (m < 0 || !meshes_[static_cast<std::size_t>(m)] || !meshes_[static_cast<std::size_t>(m)]->contains("skin")) continue;
    const i64 par = parent_[i];
    if (par < 0 || !nodes_[static_cast<std::size_t>(par)] || !nodes_[static_cast<std::size_t>(par)]->contains("skeleton"))
      r_.warn(p, "the mesh has a skin but this node is not a direct child of a skeleton node: it is drawn unskinned");
    else
      skinned_by_skeleton[par].emplace_back(i, static_cast<std::size_t>(m));
  }
  // Group names of skinned meshes sharing a skeleton must match.
  for (const auto& [skel, users] : skinned_by_skeleton) {
    for (std::size_t a = 1; a < users.size(); ++a) {
      const Json* na = meshes_[users[0].second]->find("skin")->find("groupNames");
      const Json* nb = meshes_[users[a].second]->find("skin")->find("groupNames");
      if (!na || !nb || !na->isArray() || !nb->isArray()) continue;
      for (std::size_t k = 0; k < std::min(na->size(), nb->size()); ++k)
        if (!(na->items()[k] == nb->items()[k])) {
          r_.error(at(at(at(at("/meshes", users[a].second), "skin"), "groupNames"), k),
                   "differs from mesh " + std::to_string(users[0].second) + "'s group " + std::to_string(k) + " although both are skinned by skeleton node " +
                       std::to_string(skel));
          break;
        }
    }
  }
}

void Checker::materials() {
  if (const Json* a = array(doc_, "materials"))
    for (std::size_t i = 0; i < a->size(); ++i) {
      const Json& m = a->items()[i];
      if (!m.isObject()) continue;
      for (const char* ch : {"baseColor", "emissive", "normal", "orm"}) {
        const Json* c = object(m, ch, at("/materials", i));
        if (!c) continue;
        const std::string cp = at(at("/materials", i), ch);
        if (const Json* t = c->find("texture")) index(t, at(cp, "texture"), count("textures"), "textures");
        numbers(*c, "factor", cp);
        if (const Json* tm = object(*c, "textureMap", cp)) binding(*tm, at(cp, "textureMap"), nullptr, true, false);
      }
    }
  if (const Json* a = array(doc_, "textures"))
    for (std::size_t i = 0; i < a->size(); ++i) {
      const Json& t = a->items()[i];
      if (!t.isObject()) continue;
      for (const char* key : {"size", "placeholder"})
        if (!t.contains(key)) r_.error(at(at("/textures", i), key), "is required");
      if (const Json* f = t.find("files")) {
        if (!f->isArray()) r_.error(at(at("/textures", i), "files"), "must be an array");
        else
          for (std::size_t k = 0; k < f->size(); ++k) index(&f->items()[k], at(at(at("/textures", i), "files"), k), count("files"), "files");
      }
    }
  if (const Json* a = array(doc_, "files"))
    for (std::size_t i = 0; i < a->size(); ++i) {
      const Json& f = a->items()[i];
      if (!f.isObject()) continue;
      if (!f.contains("mimeType")) r_.error(at(at("/files", i), "mimeType"), "is required");
      if (!f.contains("uri") && !f.contains("bufferView")) r_.error(at("/files", i), "needs uri or bufferView");
      if (const Json* v = f.find("bufferView")) index(v, at(at("/files", i), "bufferView"), views_.size(), "bufferViews");
    }
}

}  // namespace rigfit::g4mf
