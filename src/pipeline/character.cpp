#include "rigfit/character.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <thread>

#include "core/name_hint.hpp"

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

}  // namespace

Expected<Character> loadCharacter(const DataSource& data, const CharacterOptions& options) {
  Character c;
  CharacterMesh& body = c.meshes.emplace_back();
  std::string rig_arg = options.rig;
  if (rig_arg.empty()) {
    if (!data.isBuiltin()) return makeError(ErrorCode::kUsage, "no rig given: a data folder other than the built-in demo needs one (one of its rigs, or a rig.*.json path)");
    rig_arg = "demo";
  }
  auto where = locateRig(data, rig_arg);
  if (!where) return where.error();
  c.rig_name = where->name;
  auto rig = loadRig(data, *where);
  if (!rig) return rig.error();
  c.rig = std::move(*rig);

  // The weights file is chosen now and, unless a batch shares parsed files (WeightsCache), parsed
  // on a second thread while the body loads and the rig fits. The vertex count is not known yet:
  // the file is parsed unchecked and, should an index be out of range, parsed again with the
  // count for the exact error. Errors are reported where they always were, after the fit.
  std::function<Expected<WeightsFile>(std::size_t)> parse;
  Error weights_error;
  bool weights_failed = false, no_weights = options.weights == "none";
  auto fromSource = [&data](std::string rel, std::string label) {
    return [&data, rel = std::move(rel), label = std::move(label)](std::size_t n) -> Expected<WeightsFile> {
      auto text = data.view(rel);
      if (!text) return text.error();
      return parseWeights(*text, label, n);
    };
  };
  auto fromFile = [](std::string path) { return [path = std::move(path)](std::size_t n) { return readWeights(path, n); }; };
  if (no_weights) {
  } else if (options.weights.empty()) {
    // A rig given as a file has no data-folder weights unless a weights.NAME.json sits beside it.
    std::string rel = where->in_source ? defaultWeightsPath(data, c.rig_name) : std::string();
    if (!where->in_source) {
      const auto beside = std::filesystem::path(where->path).parent_path() / ("weights." + c.rig_name + ".json");
      std::error_code ec;
      if (std::filesystem::is_regular_file(beside, ec)) {
        c.weights_label = beside.string();
        parse = fromFile(c.weights_label);
      }
    }
    if (!rel.empty()) {
      c.weights_label = data.label(rel);
      parse = fromSource(rel, c.weights_label);
    }
    no_weights = !parse;  // no weights for this rig (MPFB ships none for some)
  } else if (options.weights.find('/') != std::string::npos ||
             (options.weights.size() > 5 && options.weights.compare(options.weights.size() - 5, 5, ".json") == 0)) {
    c.weights_label = options.weights;
    parse = fromFile(options.weights);
  } else {
    const std::string rel = defaultWeightsPath(data, options.weights);
    if (rel.empty()) {
      weights_failed = true;
      std::vector<std::string> known;
      for (const auto& f : data.list("rigs/standard", "weights.", ".json")) known.push_back(f.substr(8, f.size() - 13));
      for (const auto& f : data.list("rigs/rigify", "weights.", ".json")) known.push_back("rigify." + f.substr(8, f.size() - 13));
      weights_error = makeError(ErrorCode::kIo, data.describe() + ": no weights named \"" + options.weights + "\"" +
                                                    detail::unknownNameHint(options.weights, known));
    } else {
      c.weights_label = data.label(rel);
      parse = fromSource(rel, c.weights_label);
    }
  }
  // With threads to spare, the weights parse on a second thread while this one reads the vertex
  // groups and the body. The groups' extent (the base mesh's vertex count) lets that thread check
  // and bind the weights early too: the names and parents of the skeleton are known before the
  // fit (skeletonTopology), and the early skin is used when the fit keeps every bone, as it does
  // unless a bone has zero length. The thread is joined before this call returns.
  std::promise<std::size_t> extent_promise;  // (outlives the thread that uses it)
  std::shared_future<std::size_t> extent_known = extent_promise.get_future().share();
  std::optional<EarlyWeights> early;
  std::jthread weights_thread;
  const bool early_weights = parse && !options.weights_cache && options.threads > 1;
  if (early_weights) {
    weights_thread = std::jthread([&parse, &c, &early, extent_known] {
      EarlyWeights& e = early.emplace(EarlyWeights{parse(0)});
      const std::size_t n = extent_known.get();
      auto topology = skeletonTopology(c.rig);
      if (!e.file || n == 0 || !topology || !allInRange(*e.file, n)) return;
      e.skin = bindWeights(*e.file, *topology, c.rig, n, &e.binding);
      e.bound_count = n;
      e.topology = std::move(*topology);
    });
  }
  // Until the extent is known, the weights thread waits for it: it is set on every path out.
  struct SetExtent {
    std::promise<std::size_t>& promise;
    std::size_t value = 0;
    ~SetExtent() { promise.set_value(value); }
  };
  std::optional<Expected<VertexGroups>> groups;
  {
    SetExtent set{extent_promise};
    if (!options.base) {
      groups = loadVertexGroups(data, SIZE_MAX);
      if (*groups) set.value = groupsExtent(**groups);
    } else {
      set.value = groupsExtent(options.base->groups);
    }
  }
  if (options.base && options.mesh.empty()) {
    body.mesh = options.base->mesh;
  } else {
    auto mesh = loadBaseMesh(data, options.mesh);
    if (!mesh) return mesh.error();
    body.mesh = std::move(*mesh);
  }
  c.mesh_label = options.mesh.empty() ? data.label("3dobjs/base.obj") : options.mesh;
  if (options.base) {
    body.groups = options.base->groups;
  } else {
    if (!*groups) return groups->error();
    body.groups = std::move(**groups);
  }
  const std::size_t extent = groupsExtent(body.groups);
  if (body.mesh.vertexCount() != extent)
    return makeError(ErrorCode::kMismatch, c.mesh_label + ": has " + std::to_string(body.mesh.vertexCount()) +
                                               " vertices, but the base mesh of " + data.describe() + " has " +
                                               std::to_string(extent) + " (a shaped body must keep its vertex count and order)");

  const ShapeRequest& shape = options.shape;
  if (shape.use_macros || !shape.modifiers.empty() || !shape.targets.empty() || shape.ground) {
    std::unique_ptr<TargetCache> own;
    TargetCache* cache = options.targets;
    if (!cache) {
      own = std::make_unique<TargetCache>(data);
      cache = own.get();
    }
    RIGFIT_TRY(shapeBody(*cache, shape, body.mesh.positions, &c.targets_applied));
  }

  auto fit = fitRig(c.rig, body.mesh, body.groups, options.fit);
  if (!fit) return fit.error();
  c.fit = std::move(*fit);

  if (no_weights) return c;
  if (weights_failed) return weights_error;
  const std::size_t n = body.mesh.vertexCount();
  const auto statements = [](const WeightsFile& f) {
    Json out = Json::object();
    for (const char* key : {"name", "license", "copyright"})
      if (const Json* v = f.header.find(key); v && v->isString()) out.set(key, v->asString());
    return out;
  };
  std::shared_ptr<const WeightsFile> file;
  if (options.weights_cache) {
    auto cached = options.weights_cache->get(c.weights_label, n, [&] { return parse(n); });
    if (!cached) return cached.error();
    file = std::move(*cached);
  } else if (!early_weights) {
    auto parsed = parse(n);
    if (!parsed) return parsed.error();
    file = std::make_shared<const WeightsFile>(std::move(*parsed));
  } else {
    weights_thread.join();
    EarlyWeights& e = *early;
    if (!e.file) return e.file.error();
    c.weights_statements = statements(*e.file);
    if (e.bound_count == n && e.skin && e.topology.names == c.fit.skeleton.names && e.topology.parents == c.fit.skeleton.parents) {
      body.skin = std::move(*e.skin);
      c.binding = std::move(e.binding);
      c.has_skin = true;
      return c;
    }
    Expected<WeightsFile> parsed = std::move(e.file);
    if (!allInRange(*parsed, n)) {
      parsed = parse(n);  // names the first index out of range, as a checked parse does
      if (!parsed) return parsed.error();
    }
    file = std::make_shared<const WeightsFile>(std::move(*parsed));
  }
  c.weights_statements = statements(*file);
  auto skin = bindWeights(*file, c.fit.skeleton, c.rig, body.mesh.vertexCount(), &c.binding);
  if (!skin) return skin.error();
  body.skin = std::move(*skin);
  c.has_skin = true;
  return c;
}

}  // namespace rigfit
