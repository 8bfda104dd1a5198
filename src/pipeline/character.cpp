#include "rigfit/character.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "pipeline/character_assets.hpp"

namespace rigfit {

std::string defaultWeightsPath(const DataSource& data, const std::string& rig_name) {
  const bool rigify = rig_name.rfind("rigify.", 0) == 0;
  const std::string base = rigify ? rig_name.substr(7) : rig_name;
  std::vector<std::string> chain{base};
  if (base == "default_no_toes") chain.push_back("default");
  if (rigify && base == "human") chain.push_back("human_toes");
  if (rigify && base == "human_toes") chain.push_back("human");
  for (const auto& name : chain) {
    const std::string rel = std::string(rigify ? "rigs/rigify/" : "rigs/standard/") + "weights." + name + ".json";
    if (data.exists(rel)) return rel;
  }
  return {};
}

Expected<std::shared_ptr<const WeightsFile>> WeightsCache::get(const std::string& label, std::size_t vertex_count,
                                                               const std::function<Expected<WeightsFile>()>& parse) {
  const auto key = std::make_pair(label, vertex_count);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = files_.find(key); it != files_.end()) return it->second;
  }
  auto parsed = parse();  // outside the lock: other files parse meanwhile
  if (!parsed) return parsed.error();
  auto shared = std::make_shared<const WeightsFile>(std::move(*parsed));
  std::lock_guard<std::mutex> lock(mutex_);
  return files_.emplace(key, std::move(shared)).first->second;
}

Expected<CharacterBase> loadCharacterBase(const DataSource& data) {
  CharacterBase base;
  auto mesh = loadBaseMesh(data);
  if (!mesh) return mesh.error();
  base.mesh = std::move(*mesh);
  auto groups = loadVertexGroups(data, SIZE_MAX);
  if (!groups) return groups.error();
  base.groups = std::move(*groups);
  return base;
}

namespace {

// The vertex groups cover every vertex of the base mesh: their extent is its vertex count.
std::size_t groupsExtent(const VertexGroups& groups) {
  std::size_t extent = 0;
  for (const auto& ranges : groups.ranges)
    for (const auto& r : ranges) extent = std::max<std::size_t>(extent, std::size_t(r.last) + 1);
  return extent;
}

bool allInRange(const WeightsFile& file, std::size_t n) {
  bool in_range = true;
  for (const auto& g : file.groups)
    for (std::int64_t v : g.vertices) in_range = in_range && static_cast<std::uint64_t>(v) < n;
  return in_range;
}

// The weights as parsed (no vertex count), and the skin bound early to `topology` for
// `bound_count` vertices (0: not bound).
struct EarlyWeights {
  Expected<WeightsFile> file;
  std::size_t bound_count = 0;
  Skeleton topology;
  Expected<Skin> skin = Error{};
  WeightsBinding binding;
};


// Where the character's weights come from: a parser taking the vertex count (0: unchecked), its
// label, or an error to report after the fit (an unknown weights name), or none at all.
struct WeightsChoice {
  std::function<Expected<WeightsFile>(std::size_t)> parse;
  std::string label;
  std::optional<Error> error;
  bool none = false;
};

WeightsChoice chooseWeights(const DataSource& data, const std::string& weights, const RigLocation& where,
                            const std::string& rig_name) {
  WeightsChoice out;
  auto use = [&](DataFile file) {
    out.label = file.label;
    out.parse = [&data, file = std::move(file)](std::size_t n) -> Expected<WeightsFile> {
      auto text = viewDataFile(data, file);
      if (!text) return text.error();
      return parseWeights(*text, file.label, n);
    };
  };
  if (weights == "none") {
    out.none = true;
  } else if (weights.empty()) {
    // A rig of the data's rigs/ folders has MPFB's weights for its type; any other rig file has
    // none unless a weights.NAME.json sits beside it.
    const bool shipped = where.in_source && (where.path.starts_with("rigs/standard/") || where.path.starts_with("rigs/rigify/"));
    if (shipped) {
      if (const std::string rel = defaultWeightsPath(data, rig_name); !rel.empty()) use(DataFile{true, rel, data.label(rel)});
    } else {
      const std::string beside = (std::filesystem::path(where.path).parent_path() / ("weights." + rig_name + ".json")).string();
      std::error_code ec;
      if (where.in_source ? data.exists(beside) : std::filesystem::is_regular_file(beside, ec))
        use(DataFile{where.in_source, beside, where.in_source ? data.label(beside) : beside});
    }
    out.none = !out.parse;  // no weights for this rig (MPFB ships none for some)
  } else if (auto found = resolveDataFile(data, DataFileKind::kWeights, weights)) {
    use(std::move(*found));
  } else if (const std::string rel = defaultWeightsPath(data, weights);
             !rel.empty() && found.error().message.find(": no weights named \"") != std::string::npos) {
    use(DataFile{true, rel, data.label(rel)});  // MPFB's fallbacks (default_no_toes -> default, ...)
  } else {
    out.error = found.error();
  }
  return out;
}

// The rig named by the options (the demo's own on the built-in demo), located and loaded.
Status loadCharacterRig(const DataSource& data, const CharacterOptions& options, Character& c, RigLocation& where) {
  std::string rig_arg = options.rig;
  if (rig_arg.empty()) {
    if (!data.isBuiltin()) return makeError(ErrorCode::kUsage, "no rig given: a data folder other than the built-in demo needs one (one of its rigs, or a rig.*.json path)");
    rig_arg = "demo";
  }
  auto located = locateRig(data, rig_arg);
  if (!located) return located.error();
  where = std::move(*located);
  c.rig_name = where.name;
  auto rig = loadRig(data, where);
  if (!rig) return rig.error();
  c.rig = std::move(*rig);
  return {};
}

// The body's OBJ (options.mesh, else the data's base.obj) as read, and its label.
struct BodyFile {
  Expected<Mesh> mesh = Error{};
  std::string label;
};

BodyFile readBodyFile(const DataSource& data, const CharacterOptions& options) {
  BodyFile f;
  f.label = data.label("3dobjs/base.obj");
  f.mesh = loadBaseMesh(data, options.mesh, &f.label);
  return f;
}

// The body mesh (the base mesh, or options.mesh: `file` when already read), checked against the
// vertex groups' extent.
Status loadCharacterBody(const DataSource& data, const CharacterOptions& options, std::optional<Expected<VertexGroups>>& groups,
                         std::optional<BodyFile>& file, Character& c) {
  CharacterMesh& body = c.body();
  c.mesh_label = data.label("3dobjs/base.obj");
  if (options.base && options.mesh.empty()) {
    body.mesh = options.base->mesh;
  } else {
    if (!file) file.emplace(readBodyFile(data, options));
    c.mesh_label = file->label;
    if (!file->mesh) return file->mesh.error();
    body.mesh = std::move(*file->mesh);
  }
  if (options.base) {
    body.groups = options.base->groups;
  } else {
    if (!*groups) return groups->error();
    body.groups = std::move(**groups);
  }
  RIGFIT_TRY(checkBodyVertexCount(data, body.groups, body.mesh.vertexCount(), c.mesh_label, options.mesh.empty()));
  return {};
}

// Targets and macros on the body's positions (a cache for this call unless the caller shares one).
Status shapeCharacterBody(const DataSource& data, const CharacterOptions& options, Character& c) {
  const ShapeRequest& shape = options.shape;
  if (!shape.use_macros && shape.modifiers.empty() && shape.targets.empty() && !shape.ground) return {};
  std::unique_ptr<TargetCache> own;
  TargetCache* cache = options.targets;
  if (!cache) {
    own = std::make_unique<TargetCache>(data);
    cache = own.get();
  }
  return shapeBody(*cache, shape, c.body().mesh.positions, &c.targets_applied);
}

// What the weights file says of itself (its "name", "license" and "copyright" strings).
Json weightsStatements(const WeightsFile& f) {
  Json out = Json::object();
  for (const char* key : {"name", "license", "copyright"})
    if (const Json* v = f.header.find(key); v && v->isString()) out.set(key, v->asString());
  return out;
}

// The early weights, when they were parsed and bound for this body and skeleton: the file
// (checked again with the vertex count when an index is out of range) and, when the fit kept the
// topology they were bound to, the skin.
Expected<std::shared_ptr<const WeightsFile>> takeEarlyWeights(EarlyWeights& e, const WeightsChoice& choice, Character& c) {
  if (!e.file) return e.file.error();
  const std::size_t n = c.body().mesh.vertexCount();
  if (e.bound_count == n && e.skin && e.topology.names == c.fit.skeleton.names && e.topology.parents == c.fit.skeleton.parents) {
    c.body().skin = std::move(*e.skin);
    c.binding = std::move(e.binding);
    c.has_skin = true;
  }
  Expected<WeightsFile> parsed = std::move(e.file);
  if (!c.has_skin && !allInRange(*parsed, n)) {
    parsed = choice.parse(n);  // names the first index out of range, as a checked parse does
    if (!parsed) return parsed.error();
  }
  return std::make_shared<const WeightsFile>(std::move(*parsed));
}

}  // namespace

Expected<Character> loadCharacter(const DataSource& data, const CharacterOptions& options) {
  Character c;
  c.meshes.emplace_back();
  RigLocation where;
  RIGFIT_TRY(loadCharacterRig(data, options, c, where));
  // The weights file is chosen now and, unless a batch shares parsed files (WeightsCache), parsed
  // and bound. With threads to spare, that happens before the body is in, while a second thread
  // reads the body's OBJ: the vertex count is not known yet, so the file is parsed unchecked and,
  // should an index be out of range, parsed again with the count for the exact error. Errors are
  // reported where they always were, after the fit.
  const WeightsChoice choice = chooseWeights(data, options.weights, where, c.rig_name);
  c.weights_label = choice.label;
  const bool early_weights = choice.parse && !options.weights_cache && options.threads > 1;

  // The body's OBJ goes to whichever thread claims it first: the second thread, or this one once
  // the weights are bound, which then does not wait for a thread that has not started (its core
  // busy). The OBJ, not the weights, is what the second thread takes: the mesh stays to the end,
  // while the weights' memory, once freed, is used again by this thread's later work (memory a
  // thread allocates returns to its own pool). The thread is joined before this call returns.
  std::optional<BodyFile> body_file;
  std::atomic<bool> body_claimed{false};
  const auto readBody = [&data, &options, &body_file, &body_claimed] {
    if (!body_claimed.exchange(true)) body_file.emplace(readBodyFile(data, options));
  };
  std::jthread body_thread;
  if (early_weights && !(options.base && options.mesh.empty())) body_thread = std::jthread(readBody);

  std::optional<Expected<VertexGroups>> groups;
  std::size_t extent = 0;  // the groups' extent: the base mesh's vertex count
  if (!options.base) {
    groups = loadVertexGroups(data, SIZE_MAX);
    if (*groups) extent = groupsExtent(**groups);
  } else {
    extent = groupsExtent(options.base->groups);
  }
  // The early weights are checked and bound with the groups' extent: the names and parents of the
  // skeleton are known before the fit (skeletonTopology), and the early skin is used when the fit
  // keeps every bone, as it does unless a bone has zero length.
  std::optional<EarlyWeights> early;
  if (early_weights) {
    EarlyWeights& e = early.emplace(EarlyWeights{choice.parse(0)});
    if (e.file && extent != 0 && allInRange(*e.file, extent))
      if (auto topology = skeletonTopology(c.rig)) {
        e.skin = bindWeights(*e.file, *topology, c.rig, extent, &e.binding);
        e.bound_count = extent;
        e.topology = std::move(*topology);
      }
  }
  if (body_thread.joinable()) {
    readBody();  // unless the second thread has claimed it
    body_thread.join();
  }
  RIGFIT_TRY(loadCharacterBody(data, options, groups, body_file, c));
  c.body_vertex_count = c.body().mesh.vertexCount();
  RIGFIT_TRY(shapeCharacterBody(data, options, c));
  auto fit = fitRig(c.rig, c.body().mesh, c.body().groups, options.fit);
  if (!fit) return fit.error();
  c.fit = std::move(*fit);

  if (choice.none) {
    RIGFIT_TRY(detail::wearAssets(data, c, options));
    return c;
  }
  if (choice.error) return *choice.error;
  const std::size_t n = c.body().mesh.vertexCount();
  std::shared_ptr<const WeightsFile> file;
  if (options.weights_cache) {
    auto cached = options.weights_cache->get(c.weights_label, n, [&] { return choice.parse(n); });
    if (!cached) return cached.error();
    file = std::move(*cached);
  } else if (early_weights) {
    auto taken = takeEarlyWeights(*early, choice, c);
    if (!taken) return taken.error();
    file = std::move(*taken);
  } else {
    auto parsed = choice.parse(n);
    if (!parsed) return parsed.error();
    file = std::make_shared<const WeightsFile>(std::move(*parsed));
  }
  c.weights_statements = weightsStatements(*file);
  if (!c.has_skin) {
    auto skin = bindWeights(*file, c.fit.skeleton, c.rig, n, &c.binding);
    if (!skin) return skin.error();
    c.body().skin = std::move(*skin);
    c.has_skin = true;
  }
  RIGFIT_TRY(detail::wearAssets(data, c, options));
  return c;
}

}  // namespace rigfit
